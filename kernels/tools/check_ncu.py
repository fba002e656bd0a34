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
for ci, cfg in enumerate(configs):
    m = launches[ci * 3 + 2] if ci * 3 + 2 < len(launches) else None
    if m is None:
        print("  missing launch for config", ci); ok = False; continue
    ld, st = base_ld, base_st
    label = "baseline"
    if cfg:
        extra = (cfg["reps"] - 1) * cfg["instructions_per_block"]
        if cfg["kind"] == "load": ld += extra
        if cfg["kind"] == "store": st += extra
        label = f"step {cfg['step']} {cfg['kind']}"
    got_ld = m.get("smsp__inst_executed_op_shared_ld.sum", -1)
    got_st = m.get("smsp__inst_executed_op_shared_st.sum", -1)
    wf_ld = m.get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 0)
    wf_st = m.get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", 0)
    good = got_ld == ld * grid and got_st == st * grid
    ok &= good
    print(f"  {label:22s} ld {got_ld:.0f} (expected {ld * grid}) st {got_st:.0f} (expected {st * grid})"
          f" wf/instr ld {wf_ld / max(got_ld, 1):.3f} st {wf_st / max(got_st, 1):.3f} {'OK' if good else 'DIFFERS'}")
print(f"{name}: {'counts match' if ok else 'COUNTS DIFFER'}")
