#!/usr/bin/env python3
"""Turns a joined measurement table (join.py) into an .expected file: NAME WAVEFRONTS IDEAL.

usage: make_expected.py JOINED > SUITE.expected
  ldmatrix: WAVEFRONTS = l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,
            IDEAL = WAVEFRONTS - l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
  stmatrix: the same with op_st
  cp.async: ncu has no LDGSTS wavefront counter; WAVEFRONTS = the kernel's
            l1tex__data_pipe_lsu_wavefronts_mem_shared.sum minus the probe's constant 4
            (what the same kernel counts when its cp.async writes nothing that ncu sees: mask
            0, or .cg), IDEAL = WAVEFRONTS - l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum
Checks that each launch executed exactly one LDSM / STSM / LDGSTS and nothing else that
touches shared memory; exits 1 otherwise.
"""
import sys

CP_BASELINE = 4
P = "l1tex__data_pipe_lsu_wavefronts_mem_shared"
C = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared"
lines = [l.split() for l in open(sys.argv[1])]
head = lines[0][3:]
bad = 0
for row in lines[1:]:
    name, op = row[0], row[1]
    m = dict(zip(head, (int(x) for x in row[2:])))
    g = lambda k: m.get(k + ".sum", 0)
    if op.startswith("ldmatrix"):
        wf = g(P + "_op_ld")
        ideal = wf - g(C + "_op_ld")
        ok = (g("smsp__inst_executed_op_ldsm") == 1 and g(P + "_op_st") == 0
              and g("smsp__inst_executed_op_shared_stsm") == 0 and g(P) == wf + 1)
    elif op.startswith("stmatrix"):
        wf = g(P + "_op_st")
        ideal = wf - g(C + "_op_st")
        ok = (g("smsp__inst_executed_op_shared_stsm") == 1 and g(P + "_op_ld") == 0
              and g("smsp__inst_executed_op_ldsm") == 0 and g(P) == wf + 1)
    else:
        wf = g(P) - CP_BASELINE
        ideal = wf - g(C + "_op_ldgsts")
        ok = (g("smsp__inst_executed_op_ldgsts") == 1 and g(P + "_op_ld") == 0
              and g(P + "_op_st") == 0 and g(C) == g(C + "_op_ldgsts"))
    if not ok:
        print(f"{name}: unexpected counters {m}", file=sys.stderr)
        bad += 1
    print(name, wf, ideal)
sys.exit(1 if bad else 0)
