#!/usr/bin/env python3
"""Summarizes measure.sh's kernel outputs (issue 30): each shared-memory line the hardware counted
(profile --record-gpu's per-line counters, NVRTC -lineinfo build) against the GPU recording
(K.gpu.json) and the CPU recording (K.cpu.json). A line is right when the recording's requests
and wavefronts equal the hardware's (the GPU route's own `equal`); different with a reason when
the route says why; silently different otherwise; refused when the route gave no figures.
usage: tools/truth30/summarize_kernels.py OUT_DIR"""
import glob, json, os, sys


def load(p):
    try:
        return json.load(open(p))
    except Exception:
        return None


def main():
    k = os.path.join(sys.argv[1], "k")
    tally = {r: dict(right=0, flagged=0, silent=0, refused=0) for r in ("gpu", "cpu")}
    for g in sorted(glob.glob(os.path.join(k, "*.gpu.json"))):
        name = os.path.basename(g)[:-9]
        gj = load(g)
        if not gj or "lines" not in gj:
            print(f"{name}: no profile ({open(g[:-5] + '.err').read().strip()[:200]})")
            continue
        hw = {l["line"]: l for l in gj["lines"]}
        rec = gj.get("recording", {})
        glines = {l["line"]: l for l in rec.get("lines", [])}
        cj = load(os.path.join(k, name + ".cpu.json"))
        cpu_why = "" if cj else open(os.path.join(k, name + ".cpu.err")).read().strip()[:300]
        clines = {l["line"]: l for l in (cj or {}).get("lines", [])}
        for ln in sorted(set(hw) | set(glines) | set(clines)):
            h = hw.get(ln)
            # GPU route
            gl = glines.get(ln)
            if "lines" not in rec:
                gv, greason = "refused", rec.get("why", "")
            elif gl and gl.get("equal"):
                gv, greason = "right", ""
            elif gl and gl.get("reason"):
                gv, greason = "flagged", gl["reason"]
            else:
                gv, greason = "silent", ""
            # CPU route: its requests and wavefronts against the hardware's
            cl = clines.get(ln)
            if not cj:
                cv, creason = "refused", cpu_why
            elif cl and cl.get("reason") and not (h and cl.get("equal")):
                cv, creason = "flagged", cl["reason"]
            elif not h and cl and cl["requests"] == 0 and "how" in cl:
                cv, creason = "right", ""  # every access in another line's instruction
            elif h and cl and cl["wavefronts"] == h["wavefronts"] and (
                    cl["requests"] == h["executed"] or (gl and gl.get("equal"))):
                cv, creason = "right", ""
            elif cl and cl.get("why"):
                cv, creason = "refused", cl["why"]
            else:
                cv, creason = "silent", ""
            tally["gpu"][gv] += 1
            tally["cpu"][cv] += 1
            if gv != "right" or cv != "right":
                hs = f"hw {h['executed']}/{h['wavefronts']}" if h else "hw -"
                gs = f"gpu {gl['recorded']['requests']}/{gl['recorded']['wavefronts']}" \
                    if gl and gl.get("recorded") else "gpu -"
                cs = f"cpu {cl['requests']}/{cl['wavefronts']}" if cl and "requests" in cl else "cpu -"
                print(f"{name}:{ln} {hs} {gs} [{gv}] {cs} [{cv}] {(greason or creason)[:160]}")
    for r, t in tally.items():
        n = sum(t.values())
        print(f"{r}: {n} lines: right {t['right']}, different with a reason {t['flagged']}, "
              f"silently different {t['silent']}, refused {t['refused']}")


if __name__ == "__main__":
    main()
