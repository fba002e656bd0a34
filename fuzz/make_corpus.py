#!/usr/bin/env python3
"""Writes the seed corpora in fuzz/corpus/ from the presets, tests/data and hand-written lines.

usage: python3 fuzz/make_corpus.py   (from anywhere; rewrites fuzz/corpus/*/ from scratch)
The corpus is committed; run this again when the presets or the test data change.
"""
import json
import pathlib
import shutil

root = pathlib.Path(__file__).resolve().parent.parent
out = root / "fuzz" / "corpus"
scenarios = sorted((root / "assets" / "presets").glob("*.json")) + sorted(
    (root / "tests" / "data" / "semantics").glob("*.json"))


def write(kind, name, data):
    d = out / kind
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data.encode() if isinstance(data, str) else data)


for kind in ("expr", "scenario", "records", "cli", "source"):
    shutil.rmtree(out / kind, ignore_errors=True)

# [SECTION] scenario: every preset and semantics scenario as it is, and a few broken ones.
for p in scenarios:
    write("scenario", p.name, p.read_text())
write("scenario", "empty-object.json", "{}")
write("scenario", "bad-steps.json",
      '{"steps": [{"kind": "store", "index": "tile[0][0]", "loop": {"var": "i", "from": 0, '
      '"to": 2147483647, "step": 0}}, {"kind": "fetch"}], "block": [32, 0, 1]}')
write("scenario", "swizzle-lets-types.json", json.dumps({
    "name": "s", "tiles": [{"name": "t", "elem": "float2", "dims": [8, 64], "pad": 1,
                            "swizzle": {"bits": 3, "base": 1, "shift": 3}},
                           {"name": "u", "elem": "double", "dims": [32], "base": 8192,
                            "dynamic": True}],
    "block": [64, 2, 1], "grid": 4,
    "constants": [{"name": "N", "value": 4294967296}, {"name": "K", "value": -7}],
    "lets": [{"name": "r", "expr": "threadIdx.x / 8", "type": "unsigned int"},
             {"name": "c", "expr": "(threadIdx.x % 8) ^ r", "type": "long long"}],
    "steps": [{"kind": "store", "tile": "t", "index": "[r][c]", "value": "N + K",
               "guard": "threadIdx.y == 0", "label": "write"},
              {"kind": "sync"},
              {"kind": "atomic", "tile": "u", "index": "[hash(threadIdx.x) % 32]",
               "loop": {"var": "i", "from": 0, "to": 4, "step": 2}},
              {"kind": "load", "tile": "t", "index": "t[c][r]"}]}, indent=1))

write("scenario", "cute-layout.json", json.dumps({
    "name": "c", "tiles": [{"name": "t", "elem": "half",
                            "layout": "Sw<3,4,3,bytes> o ((8,4),64):((64,512),1)"},
                           {"name": "b", "elem": "float", "layout": "(4,(2,16)):(0,(1,2))",
                            "base": 8192}],
    "block": [32, 1, 1],
    "steps": [{"kind": "store", "tile": "t", "index": "[threadIdx.x][threadIdx.x % 8 * 8]"},
              {"kind": "store", "tile": "b", "index": "[threadIdx.x / 8][threadIdx.x % 32]"},
              {"kind": "sync"},
              {"kind": "load", "tile": "t", "index": "t[threadIdx.x % 8][threadIdx.x / 8 * 8]"}]},
    indent=1))

# [SECTION] expr: every expression the scenarios hold, and edges of C's rules.
exprs = set()
for p in scenarios:
    s = json.loads(p.read_text())
    for let in s.get("lets", []):
        exprs.add(let["expr"])
    for st in s.get("steps", []):
        for key in ("index", "guard", "value"):
            if st.get(key):
                exprs.add(st[key])
exprs |= {
    "threadIdx.x - 1", "(threadIdx.x - 16) < 8", "-2147483647 - 1", "(-2147483647 - 1) / -1",
    "1 << 31", "1u << 31", "1 << 32", "-1 >> 1", "(char)200 + (unsigned char)200",
    "(short)-1 == (unsigned short)65535", "(bool)7 + (size_t)-1", "(long long)N * M",
    "9223372036854775807LL + 1", "0xffffffffu + 1", "0b1011 ^ 017", "abs(-2147483647 - 1)",
    "min(row, col) + max(i, neg)", "hash(threadIdx.x) % 32", "big % 0", "lane ? row : col",
    "threadIdx.x < 16 && threadIdx.y > 2 || !(blockIdx.x)", "~blockDim.z * gridDim.y",
    "warpSize * (threadIdx.x / warpSize)", "((((((((((1))))))))))", "tile[threadIdx.y][",
    "[ty][tx]", "x +", "1 ? 2 : 3 ? 4 : 5", "(uint64_t)big >> 63", "(int32_t)4294967295u",
}
for n, e in enumerate(sorted(exprs)):
    write("expr", f"expr-{n:03d}", e)

# [SECTION] records: a few lines of each measured suite, and the bad lines the CLI tests use.
for suite in ("atomic", "holdout", "random", "targeted"):
    lines = (root / "tests" / "data" / "hopper" / f"{suite}.txt").read_text().splitlines()
    step = max(1, len(lines) // 40)
    picked = lines[:2] + lines[2::step]
    for k in range(0, len(picked), 8):
        write("records", f"{suite}-{k // 8:02d}.txt", "\n".join(picked[k:k + 8]) + "\n")


def addresses(stride, count=32):
    return "".join(f" {lane * stride}" for lane in range(count))


write("records", "bad-lines.txt",
      "# bad lines, one per error\n"
      "short 4 0xffffffff 0 4 8\n"
      f"w3 3 0xffffffff{addresses(4)}\n"
      f"mis 8 0xffffffff{addresses(4)}\n"
      f"neg 4 0x1 -4{addresses(4, 31)}\n"
      f"far 4 0x1 233472{addresses(4, 31)}\n"
      f"mask 4 0x1ffffffff{addresses(4)}\n"
      f"one 8 0x1 0 999999{addresses(8, 30)}\n"
      f"  # indented comment\n\nrow 16 0xffff0000{addresses(16)}\n")

# [SECTION] cli: command lines, one word per line; after a NUL byte, standard input.
preset_names = [p.stem for p in sorted((root / "assets" / "presets").glob("*.json"))]
lines = {
    "presets": ["presets"], "archs": ["archs"], "help": ["--help"], "help-all": ["--help-all"],
    "analyze-help": ["analyze", "--help"], "nothing": [], "unknown": ["frobnicate"],
    "analyze-flags": ["analyze", "--dims", "32x32", "--block", "32x32", "--step",
                      "store tile[threadIdx.y][threadIdx.x]", "--step", "sync", "--step",
                      "load tile[threadIdx.x][threadIdx.y]", "--no-pictures"],
    "analyze-pad-json": ["analyze", "--dims", "32x32", "--pad", "1", "--block", "32x32",
                         "--no-pictures", "--json"],
    "analyze-swizzle": ["analyze", "--dims", "32x32", "--swizzle", "5,0,5", "--step",
                        "store tile[threadIdx.y][threadIdx.x]", "--step",
                        "load tile[threadIdx.x][threadIdx.y]"],
    "analyze-let-define": ["analyze", "--dims", "32", "--block", "32", "--define", "N=32",
                           "--let", "int row=threadIdx.x - 1", "--step",
                           "load tile[(row + N) % N] if threadIdx.x < 16"],
    "analyze-loop": ["analyze", "--dims", "64x64", "--block", "16x16", "--elem", "double",
                     "--step", "load tile[threadIdx.y + 16 * i][threadIdx.x] for i in 0..4",
                     "--show-step", "2", "--warp", "3", "--wavefront", "1"],
    "analyze-dynamic": ["analyze", "--preset", "reverse-dynamic", "--dynamic=false", "--arch",
                        "kepler8"],
    "analyze-bad-expr": ["analyze", "--step", "load tile[threadIdx.x][threadIdx.y +]"],
    "analyze-bad-dims": ["analyze", "--dims", "32x"],
    "source-swizzle": ["source", "--dims", "32x32", "--block", "32x32", "--swizzle", "5,0,5",
                       "--step", "store tile[threadIdx.y][threadIdx.x]", "--mode", "exposed"],
    "source-let": ["source", "--dims", "32", "--block", "32", "--let",
                   "unsigned row=threadIdx.x * 3", "--step", "atomic tile[row % 32]"],
    "analyze-layout": ["analyze", "--elem", "half", "--layout",
                       "SW128 o ((8,4),64):((64,512),1)", "--block", "32", "--step",
                       "load tile[threadIdx.x % 8][threadIdx.x / 8 * 8]", "--no-pictures"],
    "source-layout": ["source", "--layout", "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)", "--block",
                      "32", "--step", "store tile[threadIdx.x % 8][0]", "--mode", "exposed"],
    "advise-preset": ["advise", "--preset", "row-write-column-read", "--json"],
    "advise-file-rel": ["advise", "s.json"],
    "analyze-file-rel": ["analyze", "--file", "s.json"],
    "wavefronts-file-rel": ["wavefronts", "--arch", "fermi", "r.txt"],
}
for name in preset_names:
    lines[f"analyze-preset-{name}"] = ["analyze", "--preset", name]
stdin = {
    "analyze-stdin": (["analyze", "--file", "-", "--json"],
                      (root / "assets" / "presets" / "matmul-tile16.json").read_text()),
    "analyze-stdin-broken": (["analyze", "-f", "-"], '{ "tiles": [ { "elem": "int", '),
    "wavefronts-stdin": (["wavefronts", "-"],
                         f"# c\n\nrow 4 0xffffffff{addresses(4)}\ncol 4 4294967295"
                         f"{addresses(128)}\nbad 3 0x1{addresses(4)}\n"),
    "wavefronts-stdin-kepler": (["wavefronts", "--arch", "kepler8", "-"],
                                f"dbl 8 0xffffffff{addresses(8)}\n"),
}
for name, words in lines.items():
    write("cli", name, "\n".join(words))
for name, (words, text) in stdin.items():
    write("cli", name, "\n".join(words) + "\0" + text)

# [SECTION] source: a line of a .cu file as a scenario. Four bytes choose the launch (the line - 1,
# the block, the dynamic shared memory, the arguments: fuzz_source.cpp), then the file's text.
kernels = sorted((root / "tests" / "data" / "profile").glob("*.cu"))


def source(name, line, text, block=0, dynamic=0, args=0):
    write("source", name, bytes([line - 1, block, dynamic, args]) + text.encode())


for p in kernels:
    text = p.read_text()
    picked = [n for n, l in enumerate(text.split("\n"), 1)
              if "[" in l and not l.lstrip().startswith("//") and n <= 256]
    for n in picked[::max(1, len(picked) // 8)][:8]:
        source(f"{p.stem}-{n}", n, text, block=n % 3, dynamic=3, args=1)
scan = """#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(n) ((n) >> LOG_NUM_BANKS)
__global__ void scan(float *g, int n) {
  extern __shared__ float temp[];
  int thid = threadIdx.x, offset = 1;
  int ai = thid, bi = thid + (n / 2);
  ai += CONFLICT_FREE_OFFSET(ai);
  bi += CONFLICT_FREE_OFFSET(bi);
  temp[ai] = g[thid];
  for (int d = n >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (thid < d) { int a = offset * (2 * thid + 1) - 1; int b = a + offset;
      a += CONFLICT_FREE_OFFSET(a); b += CONFLICT_FREE_OFFSET(b); temp[b] += temp[a]; }
    offset *= 2;
  }
}
"""
source("scan-13", 13, scan, block=1, dynamic=4, args=1)
source("overflow-define", 3, "#define BIG 99999999999999999999999\n__global__ void k() {\n"
       "  __shared__ int t[32]; t[threadIdx.x * BIG] = 0;\n}\n")
source("many-defines", 202, "".join(f"#define D{i} (D{i - 1} + 1)\n" if i else "#define D0 1\n"
                                    for i in range(200)) +
       "__global__ void k() {\n  __shared__ int t[256]; t[threadIdx.x + D199] = 1;\n}\n")
source("guards-loops", 6, "__global__ void r(int *o) {\n  __shared__ int s[256], u[2];\n"
       "  unsigned t = threadIdx.x;\n  s[t] = t;\n  for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {\n"
       "    if (t < k) s[t] += s[t + k]; __syncthreads(); }\n  if (t == 0) atomicAdd(&u[t % 2], 1);\n}\n",
       block=1)
source("extern-dyn", 3, "__global__ void d() {\n  extern __shared__ float dyn[];\n"
       "  dyn[threadIdx.x + blockDim.x] = 1.0f;\n}\n", dynamic=3)
