// gen_expr_cases: writes the differential test's random expressions as C++ (built and run at
// build time; nothing it writes is committed).
//
//   gen_expr_cases OUT_DIR TU_COUNT CASE_COUNT
//
// writes OUT_DIR/expr_cases_<k>.cpp (k < TU_COUNT), each a table of cases
// {BANKVIZ_TEXT_AND_EVAL(text), BANKVIZ_EVAL(opaque), false} (host_cuda.h), and
// OUT_DIR/expr_cases_index.cpp listing the tables. The output depends only on
// the arguments: the random source is a fixed-seed splitmix64, not <random>'s distributions
// (whose results differ between standard libraries).
//
// [SECTION] Random source
// [SECTION] C types (what the generator must know to stay inside the language)
// [SECTION] Leaves: literals, built-ins, named variables
// [SECTION] Expressions
// [SECTION] Output
//
// The generator tracks each subexpression's C type for two reasons: abs() takes a signed operand,
// and shift counts are drawn below the left operand's width most of the time. It keeps most
// cases defined for most environments (shift counts and divisors are usually tamed), and it never
// builds an operator whose operands are all constants: such a subexpression is the same in every
// environment, and the compiler folds it where the sanitizer cannot see it.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace {

// [SECTION] Random source ========================================================================

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {  // splitmix64
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  int below(int n) { return static_cast<int>(next() % static_cast<uint64_t>(n)); }
  bool percent(int p) { return below(100) < p; }
  template <class T, size_t N>
  const T& pick(const T (&items)[N]) {
    return items[below(static_cast<int>(N))];
  }

 private:
  uint64_t state_;
};

// [SECTION] C types ==============================================================================

enum class CType { Int, UInt, LongLong, ULongLong };

bool is_signed(CType t) {
  return t == CType::Int || t == CType::LongLong;
}
int width(CType t) {
  return t == CType::Int || t == CType::UInt ? 32 : 64;
}

// The usual arithmetic conversions on promoted operands (long long represents every unsigned int).
CType common(CType a, CType b) {
  if (a == b) return a;
  if (width(a) != width(b)) {
    const CType wide = width(a) > width(b) ? a : b;
    return wide;  // the 64-bit type: long long holds every 32-bit value, unsigned or not
  }
  return is_signed(a) ? b : a;  // same width, mixed signedness: the unsigned one
}

// Precedence of what an expression's text is at its top (higher binds tighter).
constexpr int kPrimary = 16, kUnary = 15, kCond = 3;

// A generated expression in two spellings of the same C++ computation:
// - text: as a kernel writes it; bankviz parses it and C++ compiles the very same tokens.
// - opaque: every operator that can be undefined called through a function of host_cuda.h
//   (op_mul(a, b) for a * b, ...), so that the compiler cannot fold it away: GCC's front end
//   simplifies `0 * -x` to 0, `(short)(x * y)` to a 16-bit multiply and `x - 431 < 0` to
//   `x < 431` even at -O0, and the sanitizer then misses the overflow. The runner uses this
//   spelling to confirm bankviz's claims of undefined behaviour.
struct Gen {
  std::string text;
  std::string opaque;
  CType type = CType::Int;
  bool has_var = false;  // mentions a value known only at run time
  bool literal = false;  // a bare literal
  int prec = kPrimary;
};

std::string paren(const Gen& g) {
  return "(" + g.text + ")";
}

// [SECTION] Leaves ===============================================================================

// Values near the edges the language cares about, and the small values indices are made of.
constexpr uint64_t kSmall[] = {0,    1,    2,    3,    4,    5,     7,     8,     15,   16,  17,
                               31,   32,   33,   63,   64,   100,   127,   128,   255,  256, 511,
                               1000, 1023, 1024, 4095, 4096, 32767, 32768, 65535, 65536};
constexpr uint64_t kLarge[] = {0x7fffffffULL,         0x80000000ULL,         0x80000001ULL,
                               0xffffffffULL,         0x100000000ULL,        0x100000001ULL,
                               0x4000000000000000ULL, 0x7fffffffffffffffULL, 0x8000000000000000ULL,
                               0xffffffffffffffffULL, 0xfffffffeULL,         1000000007ULL,
                               0x7ffffffeULL,         0xffffffffffffULL};

constexpr const char* kSuffixU[] = {"u", "U"};
constexpr const char* kSuffixL[] = {"l", "L"};
constexpr const char* kSuffixUL[] = {"ul", "uL", "Ul", "UL", "lu", "lU", "Lu", "LU"};
constexpr const char* kSuffixLL[] = {"ll", "LL"};
constexpr const char* kSuffixULL[] = {"ull", "uLL", "Ull", "ULL", "llu", "llU", "LLu", "LLU"};

std::string digits(uint64_t v, int base, bool upper) {
  if (v == 0) return "0";
  const char* d = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  std::string s;
  for (; v; v /= static_cast<uint64_t>(base))
    s.insert(s.begin(), d[v % static_cast<uint64_t>(base)]);
  return s;
}

// C's rule: the first type of the suffix's list (decimal, or any other base) that holds v.
// Returns false when none does (a decimal literal above LLONG_MAX without 'u').
bool literal_type(uint64_t v, bool decimal, bool u, int longs, CType* out) {
  std::vector<CType> list;
  if (!u && longs == 0) {
    list = decimal ? std::vector<CType>{CType::Int, CType::LongLong}
                   : std::vector<CType>{CType::Int, CType::UInt, CType::LongLong, CType::ULongLong};
  } else if (u && longs == 0) {
    list = {CType::UInt, CType::ULongLong};
  } else if (!u) {  // l or ll: long and long long are both 64 bits
    list = decimal ? std::vector<CType>{CType::LongLong}
                   : std::vector<CType>{CType::LongLong, CType::ULongLong};
  } else {
    list = {CType::ULongLong};
  }
  for (CType t : list) {
    const uint64_t max = t == CType::Int        ? 0x7fffffffULL
                         : t == CType::UInt     ? 0xffffffffULL
                         : t == CType::LongLong ? 0x7fffffffffffffffULL
                                                : ~0ULL;
    if (v <= max) return *out = t, true;
  }
  return false;
}

Gen literal(Rng& rng, uint64_t v) {
  const int base_roll = rng.below(10);
  const int base = base_roll < 6 ? 10 : base_roll < 8 ? 16 : base_roll < 9 ? 8 : 2;
  const int suffix_roll = rng.below(100);
  bool u = false;
  int longs = 0;
  std::string suffix;
  if (suffix_roll < 55) {
  } else if (suffix_roll < 70) {
    u = true, suffix = rng.pick(kSuffixU);
  } else if (suffix_roll < 78) {
    longs = 1, suffix = rng.pick(kSuffixL);
  } else if (suffix_roll < 85) {
    u = true, longs = 1, suffix = rng.pick(kSuffixUL);
  } else if (suffix_roll < 92) {
    longs = 2, suffix = rng.pick(kSuffixLL);
  } else {
    u = true, longs = 2, suffix = rng.pick(kSuffixULL);
  }
  Gen g;
  g.literal = true;
  if (!literal_type(v, base == 10, u, longs, &g.type)) {  // decimal above LLONG_MAX needs 'u'
    suffix += "u";
    literal_type(v, true, true, longs, &g.type);
  }
  const bool upper = rng.percent(30);
  switch (base) {
    case 16:
      g.text = (upper ? "0X" : "0x") + digits(v, 16, rng.percent(50));
      break;
    case 8:
      g.text = v == 0 ? "0" : "0" + digits(v, 8, false);
      break;
    case 2:
      g.text = (upper ? "0B" : "0b") + digits(v, 2, false);
      break;
    default:
      g.text = digits(v, 10, false);
  }
  g.text += suffix;
  g.opaque = g.text;
  return g;
}

uint64_t literal_value(Rng& rng) {
  const int roll = rng.below(100);
  return roll < 70   ? rng.pick(kSmall)
         : roll < 82 ? static_cast<uint64_t>(rng.below(4097))
                     : rng.pick(kLarge);
}

uint64_t nonzero_value(Rng& rng) {
  for (;;)
    if (const uint64_t v = literal_value(rng)) return v;
}

Gen literal(Rng& rng) {
  return literal(rng, literal_value(rng));
}

struct Name {
  const char* text;
  CType type;
};
// host_cuda.h's HostEnv declares the same names with the same types.
constexpr Name kBuiltins[] = {{"threadIdx.x", CType::UInt}, {"threadIdx.x", CType::UInt},
                              {"threadIdx.x", CType::UInt}, {"threadIdx.y", CType::UInt},
                              {"threadIdx.z", CType::UInt}, {"blockIdx.x", CType::UInt},
                              {"blockDim.x", CType::UInt},  {"blockDim.y", CType::UInt},
                              {"gridDim.x", CType::UInt},   {"warpSize", CType::Int}};
constexpr Name kVariables[] = {{"a", CType::Int},         {"b", CType::Int},
                               {"ua", CType::UInt},       {"ub", CType::UInt},
                               {"la", CType::LongLong},   {"lb", CType::LongLong},
                               {"ula", CType::ULongLong}, {"ulb", CType::ULongLong}};

Gen name(const Name& n) {
  Gen g;
  g.text = g.opaque = n.text;
  g.type = n.type;
  g.has_var = true;
  return g;
}

Gen variable(Rng& rng) {
  return name(rng.percent(45) ? rng.pick(kBuiltins) : rng.pick(kVariables));
}

Gen leaf(Rng& rng) {
  return rng.percent(40) ? literal(rng) : variable(rng);
}

// [SECTION] Expressions ==========================================================================

struct Cast {
  const char* spelling;
  CType type;  // after promotion: the narrow types promote to int
};
constexpr Cast kCasts[] = {
    {"int", CType::Int},
    {"signed", CType::Int},
    {"signed int", CType::Int},
    {"int32_t", CType::Int},
    {"unsigned", CType::UInt},
    {"unsigned int", CType::UInt},
    {"uint32_t", CType::UInt},
    {"long", CType::LongLong},
    {"long int", CType::LongLong},
    {"long long", CType::LongLong},
    {"long long int", CType::LongLong},
    {"int64_t", CType::LongLong},
    {"unsigned long", CType::ULongLong},
    {"unsigned long long", CType::ULongLong},
    {"size_t", CType::ULongLong},
    {"uint64_t", CType::ULongLong},
    {"char", CType::Int},
    {"signed char", CType::Int},
    {"unsigned char", CType::Int},
    {"short", CType::Int},
    {"short int", CType::Int},
    {"unsigned short", CType::Int},
    {"bool", CType::Int},
    {"int8_t", CType::Int},
    {"uint8_t", CType::Int},
    {"int16_t", CType::Int},
    {"uint16_t", CType::Int},
};

struct BinOp {
  const char* text;
  int prec;
  int weight;
  const char* opaque;  // host_cuda.h's function for it; nullptr: && and || stay operators
};
constexpr BinOp kBinOps[] = {
    {"*", 13, 10, "op_mul"}, {"/", 13, 6, "op_div"},  {"%", 13, 6, "op_mod"},
    {"+", 12, 12, "op_add"}, {"-", 12, 12, "op_sub"}, {"<<", 11, 7, "op_shl"},
    {">>", 11, 7, "op_shr"}, {"<", 10, 4, "op_lt"},   {"<=", 10, 3, "op_le"},
    {">", 10, 4, "op_gt"},   {">=", 10, 3, "op_ge"},  {"==", 9, 3, "op_eq"},
    {"!=", 9, 3, "op_ne"},   {"&", 8, 6, "op_and"},   {"^", 7, 5, "op_xor"},
    {"|", 6, 5, "op_or"},    {"&&", 5, 2, nullptr},   {"||", 4, 2, nullptr}};
constexpr BinOp kAnd = {"&&", 5, 0, nullptr}, kOr = {"||", 4, 0, nullptr};
constexpr BinOp kBitAnd = {"&", 8, 0, "op_and"}, kBitOr = {"|", 6, 0, "op_or"};

const BinOp& pick_binop(Rng& rng, bool comparisons_only) {
  int total = 0;
  for (const BinOp& op : kBinOps)
    if (!comparisons_only || (op.prec == 10 || op.prec == 9)) total += op.weight;
  int roll = rng.below(total);
  for (const BinOp& op : kBinOps) {
    if (comparisons_only && op.prec != 10 && op.prec != 9) continue;
    if (roll < op.weight) return op;
    roll -= op.weight;
  }
  return kBinOps[0];
}

class ExprGen {
 public:
  explicit ExprGen(Rng& rng) : rng_(rng) {}

  // top: a whole case, never a bare leaf.
  Gen expr(int depth, bool top = false) {
    if (!top && (depth <= 0 || rng_.percent(depth >= 3 ? 10 : 30))) return leaf(rng_);
    const int roll = rng_.below(100);
    if (roll < 55) return binary(pick_binop(rng_, false), depth);
    if (roll < 65) return unary(depth);
    if (roll < 77) return cast(depth);
    if (roll < 85) return cond(depth);
    return call(depth);
  }

  // A guard: what `if` conditions look like (comparisons joined by && and ||, or negated).
  Gen guard(int depth) {
    const int roll = rng_.below(100);
    if (roll < 60) return binary(pick_binop(rng_, true), depth);
    if (roll < 85) {
      Gen l = guard(depth - 1), r = binary(pick_binop(rng_, true), depth - 1);
      return join(l, rng_.percent(50) ? kAnd : kOr, r, CType::Int);
    }
    Gen g = binary(pick_binop(rng_, true), depth);
    return prefix("!", g, CType::Int);
  }

  // An operand for abs() whose type is unsigned: bankviz must refuse it at bind time.
  Gen unsigned_operand(int depth) {
    for (;;) {
      Gen g = expr(depth);
      if (!is_signed(g.type) && g.has_var) return g;
    }
  }

 private:
  // "l op r", parenthesized by precedence (left-associative) and now and then without need.
  Gen join(const Gen& l, const BinOp& op, const Gen& r, CType type) {
    const bool extra = rng_.percent(15);
    Gen g;
    g.text = (l.prec < op.prec || extra ? paren(l) : l.text) + " " + op.text + " " +
             (r.prec <= op.prec || extra ? paren(r) : r.text);
    g.opaque = op.opaque ? std::string(op.opaque) + "(" + l.opaque + ", " + r.opaque + ")"
                         : "(" + l.opaque + " " + op.text + " " + r.opaque + ")";
    g.type = type;
    g.has_var = l.has_var || r.has_var;
    g.prec = op.prec;
    return g;
  }

  Gen prefix(const std::string& op, const Gen& x, CType type) {
    Gen g;
    std::string operand = x.prec < kUnary ? paren(x) : x.text;
    // "- -a", not the decrement "--a"
    if ((op == "-" || op == "+") && (operand[0] == '-' || operand[0] == '+'))
      operand = " " + operand;
    g.text = op + operand;
    g.opaque = op == "-" ? "op_neg(" + x.opaque + ")" : "(" + op + "(" + x.opaque + "))";
    g.type = type;
    g.has_var = x.has_var;
    g.prec = kUnary;
    return g;
  }

  Gen binary(const BinOp& op, int depth) {
    const std::string o = op.text;
    Gen l = expr(depth - 1);
    Gen r;
    if (o == "/" || o == "%") {
      const int roll = rng_.below(100);
      if (roll < 50) {
        r = literal(rng_, nonzero_value(rng_));
      } else if (roll < 70) {
        Gen x = expr(depth - 1), one = literal(rng_, 1);
        r = join(x, kBitOr, one, common(x.type, one.type));
        r.text = paren(r), r.prec = kPrimary;
      } else {
        r = expr(depth - 1);
      }
    } else if (o == "<<" || o == ">>") {
      const int roll = rng_.below(100);
      if (roll < 55) {
        r = literal(rng_, static_cast<uint64_t>(rng_.below(width(l.type))));
      } else if (roll < 75) {
        Gen x = expr(depth - 1);
        const Gen mask = literal(rng_, rng_.percent(50) ? 31 : width(l.type) == 64 ? 63 : 15);
        r = join(x, kBitAnd, mask, common(x.type, mask.type));
        r.text = paren(r), r.prec = kPrimary;
      } else {
        r = expr(depth - 1);
      }
    } else {
      r = expr(depth - 1);
    }
    if (!l.has_var && !r.has_var) l = variable(rng_);  // no all-constant operator (see top)
    CType type = CType::Int;
    if (op.prec >= 12 || (op.prec >= 6 && op.prec <= 8)) type = common(l.type, r.type);
    if (op.prec == 11) type = l.type;
    return join(l, op, r, type);
  }

  Gen unary(int depth) {
    static constexpr const char* kOps[] = {"-", "-", "+", "!", "~", "~"};
    const std::string op = rng_.pick(kOps);
    Gen x = expr(depth - 1);
    // -LITERAL cannot overflow (a literal is never negative); any other constant operand could.
    if (op == "-" && !x.has_var && !x.literal) x = variable(rng_);
    return prefix(op, x, op == "!" ? CType::Int : x.type);
  }

  Gen cast(int depth) {
    const Cast& c = rng_.pick(kCasts);
    Gen x = expr(depth - 1);
    Gen g;
    g.text = std::string("(") + c.spelling + ")" + (x.prec < kUnary ? paren(x) : x.text);
    g.opaque = std::string("((") + c.spelling + ")(" + x.opaque + "))";
    g.type = c.type;
    g.has_var = x.has_var;
    g.prec = kUnary;
    return g;
  }

  Gen cond(int depth) {
    Gen c = rng_.percent(60) ? guard(depth - 1) : expr(depth - 1);
    Gen t = expr(depth - 1), e = expr(depth - 1);
    if (!c.has_var && !t.has_var && !e.has_var) c = variable(rng_);
    Gen g;
    g.text = (c.prec <= kCond ? paren(c) : c.text) + " ? " + t.text + " : " +
             (e.prec < kCond ? paren(e) : e.text);
    g.opaque = "((" + c.opaque + ") ? (" + t.opaque + ") : (" + e.opaque + "))";
    g.type = common(t.type, e.type);
    g.has_var = c.has_var || t.has_var || e.has_var;
    g.prec = kCond;
    return g;
  }

  Gen call(int depth) {
    const int roll = rng_.below(15);
    Gen g;
    g.prec = kPrimary;
    if (roll < 8) {  // min, max
      const char* f = roll < 4 ? "min" : "max";
      Gen x = expr(depth - 1), y = expr(depth - 1);
      if (!x.has_var && !y.has_var) x = variable(rng_);
      // CUDA's min/max take two 32-bit or two 64-bit arguments (a mix is ambiguous and bankviz
      // refuses it at bind time): widen the 32-bit one, as a user would.
      const auto wide = [](CType t) { return t == CType::LongLong || t == CType::ULongLong; };
      if (wide(x.type) != wide(y.type)) {
        Gen& n = wide(x.type) ? y : x;
        n.text = "(long long)" + (n.prec < kUnary ? paren(n) : n.text);
        n.opaque = "((long long)(" + n.opaque + "))";
        n.type = CType::LongLong;
      }
      g.text = std::string(f) + "(" + x.text + ", " + y.text + ")";
      g.opaque = std::string(f) + "(" + x.opaque + ", " + y.opaque + ")";
      g.type = common(x.type, y.type);
      g.has_var = true;
      return g;
    }
    Gen x = expr(depth - 1);
    if (!x.has_var) x = variable(rng_);
    g.has_var = true;
    if (roll < 12) {  // abs takes a signed operand
      if (!is_signed(x.type)) {
        const bool wide = rng_.percent(50);
        const std::string cast = wide ? "(long long)" : "(int)";
        x.text = cast + (x.prec < kUnary ? paren(x) : x.text);
        x.opaque = "(" + cast + "(" + x.opaque + "))";
        x.type = wide ? CType::LongLong : CType::Int;
      }
      g.text = "abs(" + x.text + ")";
      g.opaque = "abs(" + x.opaque + ")";
      g.type = x.type;
      return g;
    }
    g.text = "hash(" + x.text + ")";
    g.opaque = "hash(" + x.opaque + ")";
    g.type = CType::UInt;
    return g;
  }

  Rng& rng_;
};

// [SECTION] Output ===============================================================================

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: gen_expr_cases OUT_DIR TU_COUNT CASE_COUNT\n");
    return 2;
  }
  const std::string dir = argv[1];
  const int tus = std::atoi(argv[2]);
  const int cases = std::atoi(argv[3]);
  if (tus < 1 || cases < tus) {
    std::fprintf(stderr, "gen_expr_cases: need 1 <= TU_COUNT <= CASE_COUNT\n");
    return 2;
  }
  const char* kHeader =
      "// Generated by gen_expr_cases (tests/core/expr_differential): do not edit.\n"
      "#include \"host_cuda.h\"\n\n"
      "namespace bankviz_difftest {\n"
      "namespace {\n\n"
      "const Case kCases[] = {\n";
  std::string index =
      "// Generated by gen_expr_cases (tests/core/expr_differential): do not edit.\n"
      "#include \"host_cuda.h\"\n\n"
      "namespace bankviz_difftest {\n\n";
  std::string tables = "extern const CaseTable* const kCaseTables[] = {\n";
  for (int k = 0; k < tus; ++k) {
    Rng rng(0x62616e6b76697a00ULL + static_cast<uint64_t>(k));  // "bankviz" + k
    ExprGen gen(rng);
    std::string text = kHeader;
    const int n = cases / tus + (k < cases % tus ? 1 : 0);
    for (int i = 0; i < n; ++i) {
      const int depth = 2 + rng.below(3);
      if (rng.percent(2)) {
        const Gen g = gen.unsigned_operand(depth - 1);
        text += "    {BANKVIZ_ABS_OF_UNSIGNED(" + g.text + "), BANKVIZ_EVAL(" + g.opaque +
                "), true},\n";
        continue;
      }
      const Gen g = rng.percent(30) ? gen.guard(depth) : gen.expr(depth, true);
      text +=
          "    {BANKVIZ_TEXT_AND_EVAL(" + g.text + "), BANKVIZ_EVAL(" + g.opaque + "), false},\n";
    }
    text += "};\n\n}  // namespace\n\n";
    text += "extern const CaseTable kCaseTable" + std::to_string(k) +
            " = {kCases, sizeof kCases / sizeof kCases[0]};\n\n}  // namespace bankviz_difftest\n";
    if (!write_file(dir + "/expr_cases_" + std::to_string(k) + ".cpp", text)) {
      std::fprintf(stderr, "gen_expr_cases: cannot write %s\n", dir.c_str());
      return 1;
    }
    index += "extern const CaseTable kCaseTable" + std::to_string(k) + ";\n";
    tables += "    &kCaseTable" + std::to_string(k) + ",\n";
  }
  index += "\n" + tables + "};\nextern const size_t kCaseTableCount = " + std::to_string(tus) +
           ";\n\n}  // namespace bankviz_difftest\n";
  return write_file(dir + "/expr_cases_index.cpp", index) ? 0 : 1;
}
