#!/usr/bin/env python3
"""Re-checks every claim of docs/MATRIX_RULE.md from the committed data, without a GPU.

usage: python3 tools/matrix-suite/check.py      (from the repository root; exits 1 on a failure)
  1. the model (model.py) against the six measured suites in tests/data/hopper/;
  2. each .expected file against the raw counters it was made from (measured/*.joined);
  3. cp.async: the probe's constant 4 (.cg runs), the instrumented LDGSTS counter, and the
     exploration of the global source (measured/cpsrc.*, cpsub.*).
"""
import collections
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(ROOT, "tests", "data", "hopper")
MEAS = os.path.join(HERE, "measured")
sys.path.insert(0, HERE)
from model import CP_OPS, cp_cost_source_sketch, cp_groups, model, read_suite  # noqa: E402

failures = 0


def report(ok, text):
    global failures
    failures += not ok
    print(("ok    " if ok else "FAIL  ") + text)


def expected(path):
    out = {}
    for line in open(path):
        if line.strip() and not line.startswith("#"):
            n, wf, ideal = line.split()
            out[n] = (int(wf), int(ideal))
    return out


def joined(path):
    rows = [l.split() for l in open(path)]
    head = rows[0][3:]
    return {r[0]: (r[1], dict(zip(head, map(int, r[2:])))) for r in rows[1:]}


# 1 and 2 ------------------------------------------------------------------------------------
for suite in ["ldmatrix", "stmatrix", "cpasync", "ldmatrix_holdout", "stmatrix_holdout",
              "cpasync_holdout"]:
    cases = read_suite(os.path.join(DATA, suite + ".txt"))
    exp = expected(os.path.join(DATA, suite + ".expected"))
    agree = sum(model(op, mask, a) == exp[n] for n, op, mask, a in cases)
    report(agree == len(cases) == len(exp), f"{suite}: model agrees with {agree} / {len(cases)}")
    made = subprocess.run([sys.executable, os.path.join(HERE, "make_expected.py"),
                           os.path.join(MEAS, suite + ".joined")], capture_output=True, text=True)
    ok = made.returncode == 0 and made.stdout == open(os.path.join(DATA, suite + ".expected")).read()
    report(ok, f"{suite}.expected is what make_expected.py derives from measured/{suite}.joined")

rep = subprocess.run([sys.executable, os.path.join(HERE, "make_expected.py"),
                      os.path.join(MEAS, "ldrepeat.joined")], capture_output=True, text=True)
first = open(os.path.join(DATA, "ldmatrix.expected")).read().splitlines()[:100]
report(rep.stdout.splitlines() == first, "a second run of 100 ldmatrix cases gave the same counts")

# 3 ------------------------------------------------------------------------------------------
TOT = "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"
CONF = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum"
SASS = "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum"
for name in ["cp16.cg", "sacg.cg"]:
    j = joined(os.path.join(MEAS, name + ".joined"))
    ok = all(m[TOT] == 4 and m[CONF] == 0 and m.get(SASS, 0) == 0 for _, m in j.values())
    report(ok, f"{name}: cp.async.cg counts nothing in {len(j)} cases (total always 4)")


def read_any(path):
    out = {}
    for line in open(path):
        if line.strip() and not line.startswith("#"):
            p = line.split()
            src = [int(x) for x in p[35:]] or None
            out[p[0]] = (p[1], int(p[2], 0), [int(x) for x in p[3:35]], src)
    return out


mix = read_any(os.path.join(MEAS, "sassmix.txt"))
j = joined(os.path.join(MEAS, "sassmix.joined"))
n_cp = sum(op.startswith("cp.") for op, _ in j.values())
ok_inst = ok_base = 0
for n, (op, m) in j.items():
    if not op.startswith("cp."):
        continue
    _, mask, a, _ = mix[n]
    wf, _ = model(op, mask, a)
    ok_inst += m[SASS] == wf
    ok_base += mask == 0 or m[TOT] - 4 == m[SASS]
report(ok_inst == n_cp, f"instrumented LDGSTS wavefronts equal the model in {ok_inst} / {n_cp}")
report(ok_base == n_cp, f"... and equal the kernel total minus 4 in {ok_base} / {n_cp} (mask 0 aside)")
for kind, hw, sw in [("ldmatrix", "op_ld", "ldsm"), ("stmatrix", "op_st", "stsm")]:
    rows = [m for op, m in j.values() if op.startswith(kind)]
    ok = all(m[f"l1tex__data_pipe_lsu_wavefronts_mem_shared_{hw}.sum"] ==
             m[f"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_{sw}.sum"] for m in rows)
    report(ok, f"instrumented {sw} wavefronts equal the hardware counter in {len(rows)} cases")


def coalesced(op, mask, src):
    """The model's condition on the source: at most 4 lines, distinct banks within a group."""
    s = CP_OPS[op]
    act = [l for l in range(32) if (mask >> l) & 1]
    if len({src[l] // 128 for l in act}) > 4:
        return False
    for g in cp_groups(s):
        banks = collections.Counter(w % 32 for l in act if l in g
                                    for w in range(src[l] // 4, (src[l] + s - 1) // 4 + 1))
        if banks and max(banks.values()) > 1:
            return False
    return True


main = read_any(os.path.join(DATA, "cpasync.txt"))
explore = read_any(os.path.join(MEAS, "cpsrc.txt"))
sources = [("cpsub.mirror", lambda n: main[n][2]), ("cpsub.same", lambda n: [0] * 32),
           ("cpsrc", lambda n: explore[n][3])]
sources.insert(0, ("cpasync", lambda n: [l * CP_OPS[main[n][0]] for l in range(32)]))
table = collections.Counter()
for name, src_of in sources:
    sketch = total = 0
    for n, (op, m) in joined(os.path.join(MEAS, name + ".joined")).items():
        _, mask, a, _ = (main.get(n) or explore[n])
        if mask == 0:
            continue
        got = (m[TOT] - 4, m[TOT] - 4 - m[CONF])
        if name != "cpasync":
            table[(coalesced(op, mask, src_of(n)), model(op, mask, a) == got)] += 1
        sketch += cp_cost_source_sketch(op, mask, a, src_of(n)) == got
        total += 1
    print(f"      source sketch (not the model) explains {sketch} / {total} of {name}")
print(f"      other sources: condition holds and model agrees {table[(True, True)]}, "
      f"holds but differs {table[(True, False)]}, fails and agrees {table[(False, True)]}, "
      f"fails and differs {table[(False, False)]}")
report(table[(True, False)] <= 1, "the model holds wherever its source condition holds (1 known exception)")

# 4. the cp.async source suite (docs/CPASYNC_SOURCE.md): the rule with each lane's source.
from model import cp_cost_source  # noqa: E402
src_cases = read_any(os.path.join(DATA, "cpsource.txt"))
src_exp = expected(os.path.join(DATA, "cpsource.expected"))
wf_ok = both_ok = one_line = one_line_ok = 0
for n, (op, mask, a, s) in src_cases.items():
    got = cp_cost_source(op, mask, a, s)
    wf_ok += got[0] == src_exp[n][0]
    both_ok += got == src_exp[n]
    if len({s[l] // 128 for l in range(32) if (mask >> l) & 1}) == 1:
        one_line += 1
        one_line_ok += got == src_exp[n]
report(len(src_cases) == len(src_exp) >= 1000, f"cpsource: {len(src_cases)} measured cases")
report(one_line_ok == one_line, f"cpsource: exact where the warp reads one source line ({one_line_ok} / {one_line})")
report(wf_ok == both_ok == len(src_cases),
       f"cpsource: wavefronts agree in {wf_ok}, wavefronts and ideal in {both_ok} of {len(src_cases)}")
for name, src_of in sources:
    agree = sum(cp_cost_source(op, mask, a, src_of(n)) == (m[TOT] - 4, m[TOT] - 4 - m[CONF])
                for n, (op, m) in joined(os.path.join(MEAS, name + ".joined")).items()
                for (_, mask, a, _) in [main.get(n) or explore[n]] if mask)
    print(f"      source rule explains {agree} of {name}")
made = subprocess.run([sys.executable, os.path.join(HERE, "make_expected.py"),
                       os.path.join(MEAS, "cpsource.joined")], capture_output=True, text=True)
report(made.returncode == 0 and made.stdout == open(os.path.join(DATA, "cpsource.expected")).read(),
       "cpsource.expected is what make_expected.py derives from measured/cpsource.joined")
print("all checks passed" if not failures else f"{failures} check(s) failed")
sys.exit(1 if failures else 0)
