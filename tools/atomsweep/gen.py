#!/usr/bin/env python3
"""gen.py OUT.txt: the cases of atoms.cu (issue 19, the cost of ATOMS.CAS).

Families, each for the 32-bit ops (cas, casfail, cassame, exch, add, max) and, where the words
fit 16 banks of 8-byte words, the 64-bit ones (cas64, cas64fail, exch64):
  g-K-D-B-ORDER: K = 32 / (D * B) lanes on each word, D words in each bank, B banks; lanes take
                 the words in order (contiguous: lane l -> word l // K) or interleaved
                 (l -> l % words).
  m-*:           the same with half the lanes (or every other lane) inactive.
  r-N:           random words among 64 (N = 0..).
"""
import random
import sys

OPS32 = ["cas", "casfail", "cassame", "exch", "add", "max"]
OPS64 = ["cas64", "cas64fail", "exch64"]


def words_of(k, d, b, order, wide):
    # word j: bank slot j % b, row j // b; 4-byte words 32 per row, 8-byte words 16 per row
    per_row = 16 if wide else 32
    n = d * b
    words = [(j // b) * per_row + (j % b) for j in range(n)]
    lanes = []
    for l in range(32):
        j = (l // k) % n if order == "c" else l % n
        lanes.append(words[j])
    return lanes


def main():
    rows = []
    pw = [1, 2, 4, 8, 16, 32]
    for d in pw:
        for b in pw:
            if d * b <= 32:
                k = 32 // (d * b)
                orders = ["c", "i"] if k > 1 and d * b > 1 else ["c"]
                for o in orders:
                    name = f"g-{k}-{d}-{b}-{o}"
                    for op in OPS32:
                        rows.append((name, op, 0xFFFFFFFF, words_of(k, d, b, o, False)))
                    if b <= 16:
                        for op in OPS64:
                            rows.append((name, op, 0xFFFFFFFF, words_of(k, d, b, o, True)))
    # inactive lanes
    for (k, d, b) in [(8, 1, 4), (4, 2, 4), (2, 4, 4), (32, 1, 1), (4, 1, 8), (2, 2, 8)]:
        for mname, mask in [("lo", 0x0000FFFF), ("odd", 0xAAAAAAAA), ("one", 0x00000101)]:
            w = words_of(k, d, b, "c", False)
            for op in ["cas", "casfail", "exch"]:
                rows.append((f"m-{mname}-{k}-{d}-{b}", op, mask, w))
            if b <= 16:
                for op in ["cas64"]:
                    rows.append((f"m-{mname}-{k}-{d}-{b}", op, mask, words_of(k, d, b, "c", True)))
    rnd = random.Random(19)
    for n in range(24):
        w = [rnd.randrange(64) for _ in range(32)]
        for op in ["cas", "casfail", "exch", "add"]:
            rows.append((f"r-{n}", op, 0xFFFFFFFF, w))
        rows.append((f"r-{n}", "cas64", 0xFFFFFFFF, [x % 48 for x in w]))
    # the compare-and-swap cases first (a run cut short by its time limit keeps them)
    prio = {"cas": 0, "casfail": 0, "cassame": 1, "cas64": 1, "cas64fail": 2, "exch": 2, "add": 3,
            "max": 3, "exch64": 3}
    rows.sort(key=lambda r: prio[r[1]])
    with open(sys.argv[1], "w") as f:
        f.write("# NAME OP MASK W0..W31 (tools/atomsweep/gen.py)\n")
        for name, op, mask, w in rows:
            f.write(f"{name} {op} {mask:#010x} {' '.join(map(str, w))}\n")
    print(len(rows), "cases")


if __name__ == "__main__":
    main()
