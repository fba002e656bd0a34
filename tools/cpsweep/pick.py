#!/usr/bin/env python3
"""Metric lists for run.sh from `ncu --query-metrics` output: pick.py QUERY.txt full|min"""
import sys

names = {l.split()[0] for l in open(sys.argv[1]) if l.split() and "__" in l.split()[0]}
want = ["l1tex__t_output_wavefronts_pipe_lsu_mem_global_op_ldgsts_cache_access",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared", "smsp__inst_executed_op_ldgsts"]
if sys.argv[2] == "full":
    want += ["l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts_cache_access",
             "l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_access",
             "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts"]
    want += sorted(n for n in names if "ldgsts" in n and n.startswith(("l1tex__t_", "l1tex__m_"))
                   and any(k in n for k in ("hit", "miss", "set_")))[:8]
print(",".join(n + ".sum" for n in want if n in names))
