#!/usr/bin/env python3
"""Summarizes measure.sh's outputs (issue 30): written steps (hardware against the model as
compiled and as written) and exposed steps (measured cycles against the prediction).
usage: tools/truth30/summarize.py OUT_DIR"""
import json, os, sys, glob

def load(p):
    try:
        return json.load(open(p))
    except Exception:
        return None

def main():
    out = sys.argv[1]
    rows = eq_c = eq_w = bounded = 0
    print("written steps: scenario step hardware(instr/wf) as-compiled written")
    for f in sorted(glob.glob(os.path.join(out, "w", "*.json"))):
        n = os.path.basename(f)[:-5]
        d = load(f)
        if not d or not d.get("written_steps"):
            print(f"  {n}: no steps ({(d or {}).get('status')})"); continue
        for s in d["written_steps"]:
            rows += 1
            hw = (s["hardware_instructions"], s["hardware_wavefronts"])
            c = (s.get("compiled_instructions"), s.get("compiled_wavefronts"))
            w = (s["model_instructions"], s["model_wavefronts"])
            ok = hw == c
            eq_c += ok; eq_w += hw == w
            mark = "EQ " if ok else "-- "
            if not ok:
                print(f"  {mark}{n} step {s['step']} {s['label'][:40]}: hw {hw[0]}/{hw[1]} compiled {c[0]}/{c[1]} written {w[0]}/{w[1]}  {s.get('compiled_reason','')[:150]}")
    print(f"written: {rows} steps, hardware == as compiled in {eq_c}, == as written in {eq_w}")
    n2 = within = 0
    print("exposed steps: ratio measured/predicted")
    for f in sorted(glob.glob(os.path.join(out, "e", "*.json"))):
        n = os.path.basename(f)[:-5]
        d = load(f)
        if not d or "exposed" not in d:
            print(f"  {n}: no exposed ({(d or {}).get('status')})"); continue
        for s in d["exposed"].get("steps", []):
            pred = s.get("predicted_cycles") or s.get("model_per_instruction")
            meas = s.get("cycles_per_instruction") or s.get("measured_per_instruction")
            if not pred or not meas:
                continue
            r = meas / pred
            n2 += 1
            ok = abs(r - 1) <= 0.02
            within += ok
            if not ok:
                print(f"  {n} step {s.get('step')} {s.get('label','')[:40]}: measured {meas:.3f} predicted {pred:.3f} ratio {r:.3f} {s.get('rule','')}")
    print(f"exposed: {n2} steps, within 2% in {within}")

if __name__ == "__main__":
    main()
