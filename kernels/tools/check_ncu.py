#!/usr/bin/env python3
"""Compare ncu's executed shared instructions per launch with what bankviz expects.

argv: preset, the run's --json output, ncu's --csv log. ncu numbers the run's kernel launches
in order; the run's JSON gives, per step, the index of its last timed launch and of its
baseline's (measured_launch, baseline_launch).
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
steps = [s for s in ex["steps"] if s["instructions_per_block"] > 0]
print(f"{name}: {len(launches)} launches")
ok = True
# Each step ran in its own launch (only the lesson's warps that execute it, grid s["grid"]) with
# its own baseline launch (every step once, same warps); the run names both launches' indices.
for cfg in steps:
    m = launches[cfg["measured_launch"]]
    b = launches[cfg["baseline_launch"]]
    metric = "ld" if cfg["kind"] == "load" else "st"
    inst = f"smsp__inst_executed_op_shared_{metric}.sum"
    got = m.get(inst, 0) - b.get(inst, 0)
    # A launched block may hold several replicas of the lesson's warps: per lesson block.
    k = cfg.get("replicas", 1)
    per_rep = got / (cfg["grid"] * k * (cfg["reps"] - 1))
    wf = m.get(f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{metric}.sum", 0) / max(m.get(inst, 1), 1)
    good = abs(per_rep - cfg["instructions_per_block"]) <= 0.05 * cfg["instructions_per_block"]
    ok &= good
    print(f"  step {cfg['step']:2d} {cfg['kind']:5s} warps 0x{cfg['lesson_warps']:x} x{k} x {cfg['blocks_per_sm']}/SM: "
          f"extra {metric} instructions per repeat per block {per_rep:.2f} (expected "
          f"{cfg['instructions_per_block']}), ncu wavefronts/instr {wf:.3f} (model "
          f"{cfg['model_wavefronts']:.3f}) {'OK' if good else 'DIFFERS'}")
print(f"{name}: {'counts match' if ok else 'COUNTS DIFFER'}")
