#!/usr/bin/env python3
"""Picks the metric lists for measure.sh from `ncu --query-metrics` output (names that exist).

usage: pick_metrics.py QUERY.txt ld|st|cp|sa   prints a comma-separated list of NAME.sum
"""
import sys

names = set()
for line in open(sys.argv[1]):
    parts = line.split()
    if parts and "__" in parts[0]:
        names.add(parts[0])
WANT = {
    "ld": ["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld",
           "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld",
           "l1tex__data_pipe_lsu_wavefronts_mem_shared",
           "l1tex__data_bank_conflicts_pipe_lsu_mem_shared",
           "smsp__inst_executed_op_ldsm", "smsp__inst_executed_op_shared_ld",
           "smsp__inst_executed_op_shared_st", "smsp__inst_executed_op_shared_stsm"],
    "st": ["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st",
           "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st",
           "l1tex__data_pipe_lsu_wavefronts_mem_shared",
           "l1tex__data_bank_conflicts_pipe_lsu_mem_shared",
           "smsp__inst_executed_op_shared_stsm", "smsp__inst_executed_op_stsm",
           "smsp__inst_executed_op_shared_st", "smsp__inst_executed_op_shared_ld",
           "smsp__inst_executed_op_ldsm"],
    "cp": ["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts",
           "l1tex__data_bank_conflicts_pipe_lsu_mem_shared",
           "l1tex__data_pipe_lsu_wavefronts_mem_shared",
           "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldgsts",
           "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st",
           "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld",
           "l1tex__data_pipe_lsu_wavefronts",
           "smsp__inst_executed_op_ldgsts",
           "smsp__inst_executed_op_shared_st", "smsp__inst_executed_op_shared_ld",
           "l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts_cache_access",
           "l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_access",
           "l1tex__t_output_wavefronts_pipe_lsu_mem_global_op_ldgsts_cache_access"],
    "sa": ["l1tex__data_pipe_lsu_wavefronts_mem_shared",
           "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld",
           "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st",
           "l1tex__data_bank_conflicts_pipe_lsu_mem_shared",
           "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts"],
}[sys.argv[2]]
picked = [n for n in WANT if n in names]
if sys.argv[2] == "cp":
    # every other shared-data-stage metric that names ldgsts (wavefronts, writes...)
    extra = sorted(n for n in names if "ldgsts" in n and n.startswith("l1tex__data") and n not in picked)
    picked += extra[:6]
if sys.argv[2] == "sa":
    # the instrumented (SASS-patching) per-instruction shared-memory counters
    picked += sorted(n for n in names if n.startswith("smsp__sass_l1tex_data_")
                     and any(k in n for k in ("ldsm", "stsm", "ldgsts")))
print(",".join(n + ".sum" for n in picked))
