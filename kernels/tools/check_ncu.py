#!/usr/bin/env python3
"""Compare ncu's executed shared instructions per launch with what bankviz expects.

argv: preset, the run's --json output, ncu's --csv log. Launch order of an exposed run with
--timing-runs 1: per configuration (baseline, then each memory step) verify, warm-up, timed.
"""
import csv, io, json, sys

name, run_json, ncu_csv = sys.argv[1:4]
run = json.load(open(run_json))
text = open(ncu_csv).read()
rows = list(csv.DictReader(io.StringIO(text[text.index('"ID"'):])))
per_launch = {}
for r in rows:
    per_launch.setdefault(int(r["ID"]), {})[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
launches = [per_launch[k] for k in sorted(per_launch)]
ex = run["exposed"]
grid = ex["grid"]
steps = ex["steps"]
base_ld = sum(s["instructions_per_block"] for s in steps if s["kind"] == "load")
base_st = sum(s["instructions_per_block"] for s in steps if s["kind"] == "store")
configs = [None] + [s for s in steps if s["instructions_per_block"] > 0]
print(f"{name}: {len(launches)} launches, grid {grid}")
ok = True
base = launches[2]
b_ld = base.get("smsp__inst_executed_op_shared_ld.sum", 0)
b_st = base.get("smsp__inst_executed_op_shared_st.sum", 0)
print(f"  baseline: ld {b_ld:.0f} st {b_st:.0f} (a guarded step outside its repeat loop may run "
      f"predicated in every warp: ncu counts those too)")
for cfg in configs[1:]:
    ci = configs.index(cfg)
    m = launches[ci * 3 + 2]
    metric = "ld" if cfg["kind"] == "load" else "st"
    got = m.get(f"smsp__inst_executed_op_shared_{metric}.sum", 0) - (b_ld if metric == "ld" else b_st)
    per_rep = got / (grid * (cfg["reps"] - 1))
    wf = m.get(f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{metric}.sum", 0) / max(
        m.get(f"smsp__inst_executed_op_shared_{metric}.sum", 1), 1)
    good = abs(per_rep - cfg["instructions_per_block"]) <= 0.05 * cfg["instructions_per_block"]
    ok &= good
    print(f"  step {cfg['step']:2d} {cfg['kind']:5s}: extra {metric} instructions per repeat per block "
          f"{per_rep:.2f} (expected {cfg['instructions_per_block']}), ncu wavefronts/instr "
          f"{wf:.3f} (model {cfg['model_wavefronts']:.3f}) {'OK' if good else 'DIFFERS'}")
print(f"{name}: {'counts match' if ok else 'COUNTS DIFFER'}")
