// follower.cpp: following a kernel for one block (follower.h, from_source.h says how).
#include "source/follower.h"

#include <algorithm>
#include <cctype>

#include "bankviz/expr.h"

namespace bankviz::cuda_source {

namespace {

constexpr size_t kMaxFollowedLets = 100000;
constexpr size_t kMaxBuiltChars = 16384;
constexpr size_t kMaxFollowedTokens = size_t{1} << 17;

enum class Cls { Uniform, Thread, Opaque };  // the same in every thread, per thread, unknown

struct Var {
  Cls cls = Cls::Opaque;
  CType type = CType::Int;
  bool integer = false;  // declared with an integer type (else it stays Opaque)
  Value v;               // Uniform
  std::string let;       // Thread: the let holding its present value
  std::string why;       // Opaque: why the model cannot hold it
};

struct Conv {
  std::string text;
  Cls cls = Cls::Uniform;
  std::string why;
  void put(const std::string& s) {
    if (!text.empty()) text += ' ';
    text += s;
  }
  void add(Cls c, const std::string& w) {
    if (c > cls) {
      cls = c;
      if (c == Cls::Opaque) why = w;
    }
  }
};

struct Access {
  StepKind kind = StepKind::Load;
  std::string tile, index, value;
  uint32_t line = 0;
  std::string why;
};

enum class Flow { Normal, Break, Continue, Return };

bool is_assign_op(const std::string& x) {
  return x == "=" || x == "+=" || x == "-=" || x == "*=" || x == "/=" || x == "%=" || x == "<<=" ||
         x == ">>=" || x == "&=" || x == "|=" || x == "^=";
}

bool is_float_literal(const std::string& t) {
  const bool hex = t.size() > 1 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X');
  if (hex) return t.find('.') != std::string::npos || t.find_first_of("pP") != std::string::npos;
  return t.find('.') != std::string::npos || t.find_first_of("eEfF") != std::string::npos;
}

bool is_atomic(const std::string& w) {
  static const char* const k[] = {"atomicAdd", "atomicSub", "atomicExch", "atomicMin",
                                  "atomicMax", "atomicInc", "atomicDec",  "atomicCAS",
                                  "atomicAnd", "atomicOr",  "atomicXor"};
  if (w.rfind("atomic", 0) != 0) return false;
  std::string_view v(w);
  for (const std::string_view suffix : {std::string_view("_block"), std::string_view("_system")})
    if (v.size() > suffix.size() && v.substr(v.size() - suffix.size()) == suffix) {
      v.remove_suffix(suffix.size());
      break;
    }
  for (const char* n : k)
    if (v == n) return true;
  return false;
}

bool is_warp_intrinsic(const std::string& w) {
  for (const char* p : {"__shfl", "__ballot", "__any", "__all", "__match", "__reduce_",
                        "__activemask", "__syncwarp"})
    if (w.rfind(p, 0) == 0) return true;
  return false;
}

std::string literal_of(const Value& v) {
  std::string n = v.text();
  if (!ctype_signed(v.type)) n += v.type == CType::UInt ? "u" : "ull";
  if (v.type == CType::LongLong && v.bits == (uint64_t{1} << 63)) n = "-9223372036854775807 - 1";
  return "((" + std::string(ctype_name(v.type)) + ")" + (v.is_negative() ? '(' + n + ")" : n) + ")";
}

class Follower {
 public:
  Follower(const std::vector<Tok>& t, const std::vector<size_t>& match, uint32_t target,
           const SourceLaunch& launch, const std::map<std::string, int64_t>& constants)
      : t_(t), match_(match), target_(target), launch_(launch), constants_(constants) {
    scopes_.emplace_back();
  }

  std::map<std::string, Array> arrays;
  std::vector<std::string> array_order;
  std::vector<Let> lets;
  std::vector<Step> steps;
  std::string refusal;  // the first reason the target line cannot be expressed
  std::set<std::string> used_tiles;

  // A kernel parameter: a value the same in every thread when its integer argument is known.
  void param(const Param& p, const std::optional<Value>& arg) {
    Var v;
    const std::optional<CType> t = p.pointer ? std::nullopt : parse_ctype(p.type);
    if (t && arg) {
      v.cls = Cls::Uniform;
      v.integer = true;
      v.type = *t;
      v.v = convert(*arg, *t);
    } else {
      v.why = "'" + p.name + "' is a kernel parameter" +
              (t ? " whose value is not given (--arg)" : " the model cannot hold");
    }
    scopes_.back()[p.name] = v;
  }
  void refuse_all(const std::string& why) {
    if (uncertain_.empty()) uncertain_ = why;
  }

  // A statement (or a file-scope declaration) from k; returns how control leaves it.
  Flow stmt(size_t& k) {
    if (k >= t_.size()) {
      k = t_.size();
      return Flow::Normal;
    }
    // Once the line is refused nothing after can change that: stop following (a loop that
    // would run to its limits costs nothing more).
    if (!refusal.empty()) {
      k = t_.size();
      return Flow::Return;
    }
    if (++statements_ > kMaxSourceStatements)
      throw SourceError{"the kernel runs more than " + std::to_string(kMaxSourceStatements) +
                        " statements for one block before line " + std::to_string(target_)};
    if (depth_ > kMaxNesting)
      throw SourceError{"line " + std::to_string(t_[k].line) + " nests statements more than " +
                        std::to_string(kMaxNesting) + " deep"};
    struct Deeper {
      int& d;
      explicit Deeper(int& x) : d(x) { ++d; }
      ~Deeper() { --d; }
    } deeper(depth_);
    const Tok& h = t_[k];
    const std::string& w = h.text;
    if (w == "{") {
      const size_t end = match_[k];
      scopes_.emplace_back();
      ++k;
      Flow f = Flow::Normal;
      while (k < end && f == Flow::Normal) f = stmt(k);
      scopes_.pop_back();
      k = end + 1;
      return f;
    }
    if (w == ";") {
      ++k;
      return Flow::Normal;
    }
    if (w == "if") return if_stmt(k);
    if (w == "for" || w == "while" || w == "do") return loop(k);
    const size_t end = std::max(stmt_end(k), k + 1);
    const size_t semi = t_[end - 1].text == ";" ? end - 1 : end;  // the statement's end
    if (w == "return" || w == "break" || w == "continue") {
      k = end;
      return jump(w);
    }
    if (w == "switch" || w == "goto" || w == "case" || w == "default" || w == "try") {
      poison(k, end,
             "line " + std::to_string(h.line) + " has a " + w + ", which bankviz does not follow");
      refuse_all("the " + w + " on line " + std::to_string(h.line) + " is not followed");
      k = end;
      return Flow::Normal;
    }
    if (w == "asm" || w == "__asm__" || w == "__asm") {
      poison(k, end,
             "line " + std::to_string(h.line) +
                 " is inline asm, which bankviz cannot record (the hardware's figures "
                 "only)");
      k = end;
      return Flow::Normal;
    }
    if (is_declaration(k)) {
      declaration(k, semi);
    } else {
      expression_statement(k, semi);
    }
    k = end;
    return Flow::Normal;
  }

  // Tokens [b, e) are looked at once more: the work of following is bounded in tokens, not only
  // in statements (a statement may be long, and run in a loop).
  void spend(size_t b, size_t e) {
    work_ += e > b ? e - b : 0;
    if (work_ > kMaxFollowedTokens)
      throw SourceError{"following the kernel for one block up to line " + std::to_string(target_) +
                        " looks at more than " + std::to_string(kMaxFollowedTokens) +
                        " tokens (long statements run many times)"};
  }

  // One past the statement starting at k.
  size_t stmt_end(size_t k, int depth = 0) const {
    if (k >= t_.size()) return t_.size();
    if (depth > kMaxNesting)
      throw SourceError{"line " + std::to_string(t_[k].line) + " nests statements more than " +
                        std::to_string(kMaxNesting) + " deep"};
    const std::string& w = t_[k].text;
    if (w == "{") return match_[k] + 1;
    if (w == "if") {
      size_t e = stmt_end(close_of(k) + 1, depth + 1);
      if (e < t_.size() && t_[e].text == "else") e = stmt_end(e + 1, depth + 1);
      return e;
    }
    if (w == "for" || w == "while") return stmt_end(close_of(k) + 1, depth + 1);
    if (w == "do") {
      size_t e = stmt_end(k + 1, depth + 1);  // the body; then while ( ... ) ;
      if (e >= t_.size() || t_[e].text != "while")
        throw SourceError{"line " + std::to_string(t_[k].line) + ": a do without its while"};
      e = close_of(e);
      return std::min(t_.size(), e + 2);
    }
    size_t q = k;
    while (q < t_.size() && t_[q].text != ";") {
      if (t_[q].text == "(" || t_[q].text == "[" || t_[q].text == "{") {
        q = match_[q] + 1;  // past the group (a brace initializer included)
        continue;
      }
      if (t_[q].text == "}") return q;  // a missing ';' before a block's end
      ++q;
    }
    return std::min(t_.size(), q + 1);
  }

 private:
  // The ')' closing the '(' after the keyword at k (if, for, while), or a SourceError.
  size_t close_of(size_t k) const {
    if (k + 1 >= t_.size() || t_[k + 1].text != "(")
      throw SourceError{"line " + std::to_string(t_[k].line) + ": '" + t_[k].text +
                        "' without its '('"};
    return match_[k + 1];
  }

  // ---- values

  Var* find_var(const std::string& n) {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
      if (auto v = it->find(n); v != it->end()) return &v->second;
    return nullptr;
  }
  size_t scope_of(const std::string& n) const {
    for (size_t i = scopes_.size(); i-- > 0;)
      if (scopes_[i].count(n)) return i;
    return 0;
  }
  const Var* find_var(const std::string& n) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
      if (auto v = it->find(n); v != it->end()) return &v->second;
    return nullptr;
  }

  std::optional<Value> eval_uniform(const std::string& text, std::string* why) {
    ExprParse p = parse_expr(text);
    if (!p.expr) {
      *why = p.error.message;
      return std::nullopt;
    }
    Env env;
    for (int d = 0; d < 3; ++d) env.blockDim[d] = static_cast<uint32_t>(launch_.block[d]);
    for (const auto& [name, v] : constants_)
      env.names[name] = Value::of(Constant{name, v}.type(), v);
    ExprError err;
    std::optional<Value> v = p.expr->eval(env, &err);
    if (!v) *why = err.message;
    return v;
  }

  std::string new_let(const std::string& name, CType type, const std::string& expr) {
    std::string n = name;
    for (int i = 2; let_names_.count(n) || constants_.count(n) || !is_valid_name(n); ++i)
      n = name + "_" + std::to_string(i);
    let_names_.insert(n);
    too_long(expr);
    if (lets.size() >= kMaxFollowedLets)
      throw SourceError{"the kernel makes more than " + std::to_string(kMaxFollowedLets) +
                        " per-thread values before line " + std::to_string(target_)};
    lets.push_back(Let(n, expr, ctype_name(type)));
    return n;
  }

  std::string guard() const {
    std::string g;
    auto add = [&](const std::string& c) {
      if (!g.empty()) g += " && ";
      g += '(' + c + ")";
    };
    for (const std::string& c : guards_) add(c);
    for (const std::string& c : dead_) add(c);
    too_long(g);
    return g;
  }
  // The conditions and values a kernel builds up stay bounded (check() takes 4096 characters).
  void too_long(const std::string& text) const {
    if (text.size() > kMaxBuiltChars)
      throw SourceError{"the conditions and values followed before line " +
                        std::to_string(target_) + " grow past " + std::to_string(kMaxBuiltChars) +
                        " characters"};
  }
  // The condition under which an assignment to a local declared in scope `scope` happens: the
  // ifs and the loops' breaks and continues around it that began outside that scope. A return's
  // threads never read a local again, nor do a loop's broken threads read the loop's own locals.
  std::string value_guard(size_t scope) const {
    std::string g;
    auto add = [&](const std::string& c) {
      if (!g.empty()) g += " && ";
      g += '(' + c + ")";
    };
    for (size_t i = 0; i < guards_.size(); ++i)
      if (scope < guard_depth_[i]) add(guards_[i]);
    for (size_t i = 0; i < dead_.size(); ++i)
      if (dead_loop_[i] >= 0 && scope < loops_[static_cast<size_t>(dead_loop_[i])].scope_index)
        add(dead_[i]);
    too_long(g);
    return g;
  }
  void push_guard(const std::string& c) {
    guards_.push_back(c);
    guard_depth_.push_back(scopes_.size());
  }
  void pop_guard() {
    guards_.pop_back();
    guard_depth_.pop_back();
  }
  void push_dead(const std::string& c, int loop) {
    dead_.push_back(c);
    dead_loop_.push_back(loop);
  }
  // Removes the dead entries of loop `loop` that `which` lists.
  void drop_dead(const std::vector<std::string>& which, int loop) {
    for (const std::string& w : which)
      for (size_t i = 0; i < dead_.size(); ++i)
        if (dead_loop_[i] == loop && dead_[i] == w) {
          dead_.erase(dead_.begin() + static_cast<std::ptrdiff_t>(i));
          dead_loop_.erase(dead_loop_.begin() + static_cast<std::ptrdiff_t>(i));
          break;
        }
  }

  void emit(const Access& a) {
    if (a.line != target_) return;
    if (!a.why.empty()) {
      if (refusal.empty()) refusal = a.why;
      return;
    }
    if (!uncertain_.empty()) {
      if (refusal.empty()) refusal = "line " + std::to_string(target_) + ": " + uncertain_;
      return;
    }
    if (steps.size() >= kMaxSteps) {
      if (refusal.empty())
        refusal = "line " + std::to_string(target_) + " executes more than " +
                  std::to_string(kMaxSteps) + " shared accesses in one block";
      return;
    }
    if (sync_pending_ && !steps.empty()) {
      Step s;
      s.kind = StepKind::Sync;
      steps.push_back(s);
    }
    sync_pending_ = false;
    Step s;
    s.kind = a.kind;
    s.tile = a.tile;
    s.index = a.index;
    s.value = a.value;
    s.guard = guard();
    steps.push_back(s);
    used_tiles.insert(a.tile);
  }
  void emit_all(const std::vector<Access>& v) {
    for (const Access& a : v) emit(a);
  }

  // Marks what [b, e) could change as unknown: it is not followed (`why`).
  void poison(size_t b, size_t e, const std::string& why) {
    for (size_t q = b; q < e; ++q) {
      if (t_[q].line == target_ && refusal.empty()) refusal = why;
      if (t_[q].kind != Tok::Ident) continue;
      const bool assigned = (q + 1 < e && (is_assign_op(t_[q + 1].text) || t_[q + 1].text == "++" ||
                                           t_[q + 1].text == "--")) ||
                            (q > b && (t_[q - 1].text == "++" || t_[q - 1].text == "--"));
      if (Var* v = find_var(t_[q].text); v && assigned) {
        v->cls = Cls::Opaque;
        v->why = why;
      }
      const std::string& x = t_[q].text;
      if (x == "return" || x == "break" || x == "continue") refuse_all(why);
    }
  }

  // ---- expressions

  // The shared access at k (an array's name): its subscripts (their own accesses go to `sink`
  // first), as a load. *end: one past it.
  Access access_at(size_t k, size_t e, size_t* end, std::vector<Access>& sink) {
    const Array& arr = arrays.at(t_[k].text);
    Access a;
    a.tile = t_[k].text;
    a.line = t_[k].line;
    a.index = a.tile;
    size_t q = k + 1;
    int n = 0;
    while (q < e && t_[q].text == "[") {
      const size_t m = match_[q];
      Conv c = conv(q + 1, m, sink);
      if (c.cls == Cls::Opaque && a.why.empty())
        a.why = "line " + std::to_string(a.line) + ": the index of " + a.tile + " " + c.why;
      a.index += '[' + c.text + "]";
      ++n;
      q = m + 1;
    }
    *end = q;
    if (arr.rank == 0) a.index += "[0]";
    if (!arr.why.empty()) a.why = "line " + std::to_string(a.line) + ": " + arr.why;
    if (a.why.empty() && n != arr.rank)
      a.why = "line " + std::to_string(a.line) + " uses " + a.tile + " with " + std::to_string(n) +
              " subscripts (it has " + std::to_string(arr.rank) +
              "): a pointer into it is not followed";
    if (a.why.empty() && q < e && (t_[q].text == "." || t_[q].text == "->"))
      a.why = "line " + std::to_string(a.line) + " accesses one member of " + a.tile + "'s " +
              arr.decl.elem +
              " element: the compiler may access only that member, which the model does not "
              "know (load the whole element into a local first)";
    return a;
  }

  // The identifier at t_[k] (and what it takes: `.x`, an access's subscripts, a call's
  // arguments) into c; returns the token after it.
  size_t conv_ident(size_t k, size_t b, size_t e, std::vector<Access>& sink, Conv& c) {
    const Tok& tok = t_[k];
    const std::string& w = tok.text;
    const std::string at = "on line " + std::to_string(tok.line);
    auto put = [&](const std::string& s) { c.put(s); };
    const bool call = k + 1 < e && t_[k + 1].text == "(";
    if ((w == "threadIdx" || w == "blockIdx" || w == "blockDim" || w == "gridDim") && k + 2 < e &&
        t_[k + 1].text == "." &&
        (t_[k + 2].text == "x" || t_[k + 2].text == "y" || t_[k + 2].text == "z")) {
      put(w + "." + t_[k + 2].text);
      c.add(w == "blockDim" ? Cls::Uniform : Cls::Thread, "");
      k += 3;
      return k;
    }
    if (w == "warpSize") {
      put(w);
      k += 1;
      return k;
    }
    if (arrays.count(w) && !find_var(w)) {
      const bool address = k > b && t_[k - 1].text == "&" &&
                           (k - 1 == b || (t_[k - 2].kind == Tok::Punct && t_[k - 2].text != ")" &&
                                           t_[k - 2].text != "]"));
      if ((k + 1 >= e || t_[k + 1].text != "[") && arrays.at(w).rank > 0) {
        escape(tok.line, w);
        c.add(Cls::Opaque, "uses the address of " + w);
        put(w);
        ++k;
        return k;
      }
      size_t end = k;
      Access a = access_at(k, e, &end, sink);
      if (address) {
        escape(tok.line, w);
      } else {
        sink.push_back(a);
      }
      c.add(Cls::Opaque, "reads " + w + " (a value from shared memory) " + at);
      put(a.index);
      k = end;
      return k;
    }
    if (w == "sizeof" && call) {
      // sizeof(T) of a type bankviz knows: its bytes, a size_t.
      const size_t m = match_[k + 1];
      bool type = m > k + 2;
      for (size_t q = k + 2; type && q < m; ++q) type = is_type_word(t_[q].text);
      const std::string spelling = type ? join(t_, k + 2, m) : "";
      const ElemType* et = type ? find_elem_type(spelling) : nullptr;
      const std::optional<CType> ct = type ? parse_ctype(spelling) : std::nullopt;
      const int bytes = et ? et->bytes : ct ? ctype_bits(*ct) / 8 : 0;
      if (bytes > 0) {
        put("((unsigned long long)" + std::to_string(bytes) + "ull)");
      } else {
        c.add(Cls::Opaque, "uses sizeof of something other than a type it knows " + at);
        put(w);
      }
      k = m + 1;
      return k;
    }
    if (call && is_atomic(w)) {
      k = atomic(k, sink, c);
      return k;
    }
    if ((w == "min" || w == "max" || w == "abs") && call) {
      put(w);
      ++k;
      return k;
    }
    if (constants_.count(w)) {
      put(w);
      ++k;
      return k;
    }
    if (Var* v = find_var(w)) {
      // &x: the local can change through the pointer, which is not followed.
      if (k > b && t_[k - 1].text == "&" &&
          (k - 1 == b ||
           (t_[k - 2].kind == Tok::Punct && t_[k - 2].text != ")" && t_[k - 2].text != "]"))) {
        v->cls = Cls::Opaque;
        v->why = "its address is taken " + at + " (changes through a pointer are not followed)";
      }
      if (v->cls == Cls::Uniform) put(literal_of(v->v));
      if (v->cls == Cls::Thread) put(v->let);
      if (v->cls == Cls::Opaque) put(w);
      if (v->cls == Cls::Opaque && k + 1 < e && t_[k + 1].text == "[")
        c.add(Cls::Opaque, "reads " + w + "[...] " + at + " (memory the model does not hold)");
      else
        c.add(v->cls, "depends on " + w + ": " + v->why);
      ++k;
      return k;
    }
    if (call) {
      if (is_warp_intrinsic(w))
        c.add(Cls::Opaque,
              "uses " + w + "() " + at + ", a warp intrinsic, which bankviz cannot record");
      else
        c.add(Cls::Opaque, "calls " + w + "() " + at + ", which the model does not follow");
    } else if (is_type_word(w)) {
      c.add(Cls::Opaque, "uses the type " + w + " " + at);
    } else {
      c.add(Cls::Opaque, "uses '" + w + "' " + at +
                             ", which is not an integer local of the kernel the model can "
                             "hold");
    }
    put(w);
    return k + 1;
  }

  // The expression t[b, e) as a scenario expression; its shared accesses (loads, atomics) go to
  // `sink` in the order they execute.
  Conv conv(size_t b, size_t e, std::vector<Access>& sink) {
    spend(b, e);
    Conv c;
    for (size_t k = b; k < e;) {
      const Tok& tok = t_[k];
      const std::string& w = tok.text;
      const std::string at = "on line " + std::to_string(tok.line);
      auto put = [&](const std::string& s) { c.put(s); };
      if (tok.kind == Tok::Ident) {
        k = conv_ident(k, b, e, sink, c);
        continue;
      }
      if (tok.kind == Tok::Number) {
        if (is_float_literal(w)) c.add(Cls::Opaque, "uses a floating-point value " + at);
        put(w);
        ++k;
        continue;
      }
      if (tok.kind == Tok::Literal) {
        c.add(Cls::Opaque, "uses a string or character " + at);
        put(w);
        ++k;
        continue;
      }
      // Punctuation.
      if (w == "(") {
        // A cast: only type words between the parentheses.
        const size_t m = match_[k];
        bool type = m > k + 1 && m < e;
        for (size_t q = k + 1; type && q < m; ++q) type = is_type_word(t_[q].text);
        if (type) {
          const std::string spelling = join(t_, k + 1, m);
          if (parse_ctype(spelling) || spelling == "char" || spelling == "short" ||
              spelling == "unsigned char" || spelling == "unsigned short" || spelling == "bool")
            put('(' + spelling + ")");
          else
            c.add(Cls::Opaque, "converts to " + spelling + " " + at);
          k = m + 1;
          continue;
        }
      }
      if (is_assign_op(w) || w == "++" || w == "--")
        c.add(Cls::Opaque, "assigns inside an expression " + at + " ('" + w + "')");
      else if (w == "," || w == ";" || w == "{" || w == "}")
        c.add(Cls::Opaque, "holds '" + w + "' " + at);
      else if (w == "." || w == "->" || w == "::")
        c.add(Cls::Opaque, "uses a member or scope ('" + w + "') " + at);
      else if (w == "[" && k > b && t_[k - 1].kind == Tok::Ident)
        c.add(Cls::Opaque,
              "reads " + t_[k - 1].text + "[...] " + at + " (memory the model does not hold)");
      put(w);
      ++k;
    }
    if (c.text.empty()) c.add(Cls::Opaque, "is empty");
    return c;
  }

  void escape(uint32_t line, const std::string& name) {
    const std::string why = "line " + std::to_string(line) + " takes the address of " + name +
                            ": accesses through a pointer are not followed";
    refuse_all(why);
    // The line itself (`*(int2*)&s[i]`, `reinterpret_cast<float4*>(&tile[r][c])[0]`) makes no
    // access the follower sees: say why here, not that it does not execute.
    if (line == target_ && refusal.empty())
      refusal = why + " (profile --record or --record-gpu records them, at their width)";
  }

  // atomicOp(&arr[...], v, ...) at k: an atomic access of the array, or (global memory) the loads
  // in its arguments. Returns one past the call.
  size_t atomic(size_t k, std::vector<Access>& sink, Conv& c) {
    const size_t open = k + 1, close = match_[open];
    std::vector<std::pair<size_t, size_t>> args;
    size_t s = open + 1;
    for (size_t q = s; q <= close; ++q) {
      if (q < close && (t_[q].text == "(" || t_[q].text == "[" || t_[q].text == "{")) {
        q = match_[q];
        continue;
      }
      if (q == close || t_[q].text == ",") {
        args.push_back({s, q});
        s = q + 1;
      }
    }
    c.add(Cls::Opaque,
          "uses the result of " + t_[k].text + " on line " + std::to_string(t_[k].line));
    if (!c.text.empty()) c.text += ' ';
    c.text += t_[k].text + "(...)";
    // &arr[...] or &(arr[...]) as the first argument.
    size_t a = args.empty() ? close : args[0].first, ae = args.empty() ? close : args[0].second;
    bool shared = false;
    if (a < ae && t_[a].text == "&") {
      ++a;
      while (a < ae && t_[a].text == "(" && match_[a] == ae - 1) {
        ++a;
        --ae;
      }
      shared = a < ae && arrays.count(t_[a].text) && !find_var(t_[a].text);
    }
    std::vector<Access> before;
    for (size_t i = 1; i < args.size(); ++i) conv(args[i].first, args[i].second, before);
    if (!shared) {
      std::vector<Access> first;
      if (!args.empty()) conv(args[0].first, args[0].second, first);
      sink.insert(sink.end(), first.begin(), first.end());
      sink.insert(sink.end(), before.begin(), before.end());
      return close + 1;
    }
    size_t end = a;
    Access x = access_at(a, ae, &end, sink);
    sink.insert(sink.end(), before.begin(), before.end());
    if (x.why.empty() && end != ae)
      x.why = "line " + std::to_string(x.line) + ": the address given to " + t_[k].text +
              " is not one element of " + x.tile;
    x.kind = StepKind::Atomic;
    if (args.size() >= 2 && args[1].second == args[1].first + 1) {
      const std::string& v = t_[args[1].first].text;
      if (v == "1" || v == "1u" || v == "1U") x.value = v;
    }
    sink.push_back(x);
    return close + 1;
  }

  // ---- statements

  Flow jump(const std::string& w) {
    if (w == "return") {
      if (guards_.empty()) return Flow::Return;  // every thread still running returns
      std::string g;
      for (const std::string& c : guards_) g += (g.empty() ? "(" : " && (") + c + ")";
      too_long(g);
      push_dead("!(" + g + ")", -1);  // those threads are done for the kernel
      return Flow::Normal;
    }
    if (loops_.empty()) return Flow::Normal;
    const size_t base = loops_.back().guard_base;
    // Every thread still in the loop takes it: control leaves for all of them.
    if (guards_.size() <= base) return w == "break" ? Flow::Break : Flow::Continue;
    // Else the threads of the conditions inside the loop take it (those gone already are gone).
    std::string g;
    for (size_t i = base; i < guards_.size(); ++i)
      g += (g.empty() ? "(" : " && (") + guards_[i] + ")";
    too_long(g);
    const std::string neg = "!(" + g + ")";
    if (w == "break")
      loops_.back().broken.push_back(neg);
    else
      loops_.back().skipped.push_back(neg);
    push_dead(neg, static_cast<int>(loops_.size()) - 1);
    return Flow::Normal;
  }

  Flow if_stmt(size_t& k) {
    const size_t end = stmt_end(k);
    const size_t close = close_of(k), open = k + 1;
    const size_t then_b = close + 1, then_e = stmt_end(then_b);
    const bool has_else = then_e < end && t_[then_e].text == "else";
    std::vector<Access> acc;
    const Conv c = conv(open + 1, close, acc);
    emit_all(acc);
    Flow f = Flow::Normal;
    if (c.cls == Cls::Uniform) {
      std::string why;
      const std::optional<Value> v = eval_uniform(c.text, &why);
      if (!v) {
        poison(then_b, end,
               "line " + std::to_string(t_[k].line) +
                   ": the condition cannot be "
                   "evaluated (" +
                   why + ")");
      } else if (v->truthy()) {
        size_t q = then_b;
        f = stmt(q);
      } else if (has_else) {
        size_t q = then_e + 1;
        f = stmt(q);
      }
    } else if (c.cls == Cls::Thread) {
      // A return/break/continue inside stays in dead_ (it guards what follows).
      push_guard(c.text);
      size_t q = then_b;
      stmt(q);
      pop_guard();
      if (has_else) {
        push_guard("!(" + c.text + ")");
        q = then_e + 1;
        stmt(q);
        pop_guard();
      }
    } else {
      poison(then_b, end, "line " + std::to_string(t_[k].line) + ": the condition " + c.why);
    }
    k = end;
    return f;
  }

  struct Loop {
    size_t guard_base = 0, dead_base = 0;
    size_t scope_index = 0;  // the loop's own scope (its for-init's locals)
    std::vector<std::string> broken, skipped;
  };

  Flow loop(size_t& k) {
    const size_t end = stmt_end(k);
    const std::string w = t_[k].text;
    const uint32_t line = t_[k].line;
    size_t body_b, cond_b = 0, cond_e = 0, inc_b = 0, inc_e = 0;
    scopes_.emplace_back();
    if (w == "do") {
      body_b = k + 1;
      const size_t wh = stmt_end(body_b);  // stmt_end(k) checked the while and its '('
      cond_b = wh + 2;
      cond_e = match_[wh + 1];
    } else {
      const size_t close = close_of(k), open = k + 1;
      body_b = close + 1;
      if (w == "for") {
        size_t s1 = open + 1;
        while (s1 < close && t_[s1].text != ";") s1 = t_[s1].text == "(" ? match_[s1] + 1 : s1 + 1;
        size_t s2 = s1 + 1;
        while (s2 < close && t_[s2].text != ";") s2 = t_[s2].text == "(" ? match_[s2] + 1 : s2 + 1;
        if (s1 >= close || s2 >= close) {
          poison(k, end, "line " + std::to_string(line) + ": a for loop bankviz cannot read");
          scopes_.pop_back();
          k = end;
          return Flow::Normal;
        }
        if (s1 > open + 1) {
          if (is_declaration(open + 1))
            declaration(open + 1, s1);
          else
            expression_statement(open + 1, s1);
        }
        cond_b = s1 + 1;
        cond_e = s2;
        inc_b = s2 + 1;
        inc_e = close;
      } else {
        cond_b = open + 1;
        cond_e = close;
      }
    }
    loops_.push_back({guards_.size(), dead_.size(), scopes_.size() - 1, {}, {}});
    const int loop_id = static_cast<int>(loops_.size()) - 1;
    Flow out = Flow::Normal;
    for (int64_t n = 0;; ++n) {
      if (w != "do" || n > 0) {
        if (cond_e > cond_b) {
          std::vector<Access> acc;
          const Conv c = conv(cond_b, cond_e, acc);
          emit_all(acc);
          std::string why = c.why;
          std::optional<Value> v;
          if (c.cls == Cls::Uniform) v = eval_uniform(c.text, &why);
          if (c.cls == Cls::Thread) why = "differs between threads";
          if (!v) {
            poison(k, end,
                   "line " + std::to_string(line) + ": the loop's condition " + why +
                       " (bankviz models loops whose every iteration it can count)");
            break;
          }
          if (!v->truthy()) break;
        }
      }
      if (n >= kMaxSourceIterations) {
        poison(k, end,
               "line " + std::to_string(line) + ": the loop runs more than " +
                   std::to_string(kMaxSourceIterations) + " iterations");
        break;
      }
      size_t q = body_b;
      const Flow f = stmt(q);
      // The iteration's continues end with it.
      drop_dead(loops_.back().skipped, loop_id);
      loops_.back().skipped.clear();
      if (f == Flow::Break) break;
      if (f == Flow::Return) {
        out = Flow::Return;
        break;
      }
      if (inc_e > inc_b) expression_statement(inc_b, inc_e);
    }
    drop_dead(loops_.back().broken, loop_id);
    loops_.pop_back();
    scopes_.pop_back();
    k = end;
    return out;
  }

  bool is_declaration(size_t k) const {
    const Tok& a = t_[k];
    if (a.kind != Tok::Ident) return false;
    if (is_type_word(a.text)) return true;
    if (k + 1 >= t_.size()) return false;
    const Tok& b = t_[k + 1];
    // `T name ...` or `T* name` with T not a variable: a type we do not know.
    if (find_var(a.text) || arrays.count(a.text)) return false;
    if (b.kind == Tok::Ident) return true;
    return (b.text == "*" || b.text == "&") && k + 2 < t_.size() && t_[k + 2].kind == Tok::Ident &&
           k + 3 < t_.size() && (t_[k + 3].text == "=" || t_[k + 3].text == ";");
  }

  // A declaration t[k, semi): arrays if __shared__, else locals.
  void declaration(size_t k, size_t semi) {
    // Split at top-level commas.
    std::vector<std::pair<size_t, size_t>> parts;
    size_t s = k;
    for (size_t q = k; q <= semi; ++q) {
      if (q < semi && (t_[q].text == "(" || t_[q].text == "[" || t_[q].text == "{")) {
        q = match_[q];
        continue;
      }
      if (q == semi || t_[q].text == ",") {
        parts.push_back({s, q});
        s = q + 1;
      }
    }
    if (parts.empty()) return;
    // The specifiers and type: the first part's tokens before its declarator's name.
    const auto [fb, fe] = parts[0];
    size_t name_at = fe;
    for (size_t q = fb; q < fe; ++q) {
      if (t_[q].text == "(" && q > fb &&
          (t_[q - 1].text == "__align__" || t_[q - 1].text == "alignas")) {
        q = match_[q];
        continue;
      }
      if (t_[q].text == "=" || t_[q].text == "[" || t_[q].text == "(" || t_[q].text == "{") break;
      if (t_[q].kind == Tok::Ident) name_at = q;
    }
    bool shared = false, is_extern = false, pointer = false;
    int64_t align = 0;
    std::vector<std::string> type_words;
    for (size_t q = fb; q < name_at; ++q) {
      const std::string& x = t_[q].text;
      if ((x == "__align__" || x == "alignas") && q + 1 < name_at && t_[q + 1].text == "(") {
        std::vector<Access> ignore;
        const Conv c = conv(q + 2, match_[q + 1], ignore);
        std::string why;
        if (c.cls == Cls::Uniform)
          if (auto v = eval_uniform(c.text, &why)) align = v->to_int64().value_or(0);
        q = match_[q + 1];
        continue;
      }
      if (x == "__shared__")
        shared = true;
      else if (x == "extern")
        is_extern = true;
      else if (x == "*" || x == "&")
        pointer = true;
      else if (x != "const" && x != "volatile" && x != "static" && x != "register" &&
               x != "constexpr" && x != "__device__" && x != "__restrict__")
        type_words.push_back(x);
    }
    std::string type;
    for (const std::string& x : type_words) type += (type.empty() ? "" : " ") + x;
    for (size_t i = 0; i < parts.size(); ++i) {
      auto [b, e] = parts[i];
      size_t n = i == 0 ? name_at : b;
      bool ptr = pointer;
      while (n < e && t_[n].kind != Tok::Ident) {
        if (t_[n].text == "*" || t_[n].text == "&") ptr = true;
        ++n;
      }
      if (n >= e) continue;
      const std::string name = t_[n].text;
      size_t q = n + 1;
      std::vector<std::pair<size_t, size_t>> extents;
      while (q < e && t_[q].text == "[") {
        extents.push_back({q + 1, match_[q]});
        q = match_[q] + 1;
      }
      while (q + 1 < e && (t_[q].text == "__align__" || t_[q].text == "alignas") &&
             t_[q + 1].text == "(")
        q = match_[q + 1] + 1;
      if (shared) {
        shared_array(name, type, extents, is_extern, align, t_[n].line);
        continue;
      }
      // A local: its initializer's accesses execute; its value is held when it is an integer.
      Var v;
      if (q < e && (t_[q].text == "=" || t_[q].text == "(" || t_[q].text == "{")) {
        const size_t ib = t_[q].text == "=" ? q + 1 : q + 1;
        const size_t ie = t_[q].text == "=" ? e : match_[q];
        std::vector<Access> acc;
        const Conv c = conv(ib, ie, acc);
        emit_all(acc);
        const std::optional<CType> ct = parse_ctype(type);
        // A reference to a local (`int& r = x;`): the local can change through it.
        bool ref = false;
        for (size_t x = i == 0 ? fb : b; x < n; ++x) ref = ref || t_[x].text == "&";
        if (ref && ie == ib + 1)
          if (Var* o = t_[ib].kind == Tok::Ident ? find_var(t_[ib].text) : nullptr) {
            o->cls = Cls::Opaque;
            o->why = "'" + name + "' refers to it (line " + std::to_string(t_[n].line) +
                     "): changes through a reference are not followed";
          }
        if (ptr || !extents.empty() || !ct) {
          v.why = "'" + name + "' (line " + std::to_string(t_[n].line) + ") is " +
                  (ptr                ? "a pointer"
                   : !extents.empty() ? "a local array"
                                      : "a " + type) +
                  ", not an integer the model holds";
        } else {
          v.integer = true;
          set_value(v, *ct, c, name, t_[n].line);
        }
      } else {
        v.why = "'" + name + "' (line " + std::to_string(t_[n].line) +
                ") has no value when it is "
                "declared";
        if (auto ct = parse_ctype(type); ct && !ptr && extents.empty()) {
          v.type = *ct;
          v.integer = true;
        }
      }
      scopes_.back()[name] = v;
    }
  }

  // v's new value (an assignment under a condition has already made c `cond ? new : old`).
  void set_value(Var& v, CType type, const Conv& c, const std::string& name, uint32_t line) {
    v.type = type;
    if (c.cls == Cls::Opaque) {
      v.cls = Cls::Opaque;
      v.why = "'" + name + "' (line " + std::to_string(line) + ") " + c.why;
      return;
    }
    if (c.cls == Cls::Uniform) {
      std::string why;
      if (std::optional<Value> x = eval_uniform(c.text, &why)) {
        v.cls = Cls::Uniform;
        v.v = convert(*x, type);
        return;
      }
      v.cls = Cls::Opaque;
      v.why = "'" + name + "' on line " + std::to_string(line) + ": " + why;
      return;
    }
    v.cls = Cls::Thread;
    v.let = new_let(name, type, c.text);
  }

  void shared_array(const std::string& name, const std::string& type,
                    const std::vector<std::pair<size_t, size_t>>& extents, bool is_extern,
                    int64_t align, uint32_t line) {
    Array a;
    a.decl.name = name;
    a.decl.elem = type;
    a.align = align;
    a.rank = static_cast<int>(extents.size());
    const ElemType* et = find_elem_type(type);
    const std::string at = name + " (line " + std::to_string(line) + ")";
    if (!et) {
      a.why = at + " has the element type '" + type + "', which bankviz does not model";
    } else if (is_extern) {
      a.decl.dynamic = true;
      if (extents.size() != 1 || extents[0].second != extents[0].first)
        a.why = at + ": an extern __shared__ array is declared T name[]";
      else if (launch_.dynamic_shared < et->bytes)
        a.why = at +
                " is extern __shared__: its size is the launch's dynamic shared memory; "
                "give it (--shared BYTES)";
      else
        a.decl.dims = {launch_.dynamic_shared / et->bytes};
    } else {
      a.decl.dims.clear();
      for (size_t i = 0; i < extents.size() && a.why.empty(); ++i) {
        auto [b, e] = extents[i];
        // The last extent as `A + B`: A elements and B of padding.
        size_t plus = e;
        for (size_t q = b; q < e; ++q) {
          if (t_[q].text == "(" || t_[q].text == "[")
            q = match_[q];
          else if (t_[q].text == "+" && q > b)
            plus = q;
        }
        std::string why;
        auto extent = [&](size_t x, size_t y) -> std::optional<int64_t> {
          std::vector<Access> ignore;
          const Conv c = conv(x, y, ignore);
          if (c.cls != Cls::Uniform) {
            why = "its extent " + join(t_, x, y) + " " +
                  (c.why.empty() ? std::string("differs between threads") : c.why);
            return std::nullopt;
          }
          auto v = eval_uniform(c.text, &why);
          if (!v) return std::nullopt;
          auto n = v->to_int64();
          if (!n || *n < 0 || *n > (int64_t{1} << 24)) {
            why = "its extent " + join(t_, x, y) + " is " + v->text();
            return std::nullopt;
          }
          return n;
        };
        std::optional<int64_t> main, pad;
        if (i + 1 == extents.size() && plus < e) {
          main = extent(b, plus);
          if (main) pad = extent(plus + 1, e);
        }
        if (main && pad && *pad > 0) {
          a.decl.dims.push_back(*main);
          a.decl.pad = *pad;
          continue;
        }
        why.clear();
        auto v = extent(b, e);
        if (!v || *v < 1)
          a.why = at + ": " + (why.empty() ? "an extent of 0" : why);
        else
          a.decl.dims.push_back(*v);
      }
      if (extents.empty()) a.decl.dims = {1};  // a scalar: one element
      int64_t elements = 1;
      for (int64_t d : a.decl.dims)
        if (a.why.empty() && (elements *= std::max<int64_t>(d, 1)) > (int64_t{1} << 24))
          a.why = at + " has more than 2^24 elements, more than shared memory holds";
      if (a.why.empty() && a.decl.dims.size() > 3)
        a.why = at + " has more than 3 dimensions, which bankviz does not model";
    }
    if (!arrays.count(name)) array_order.push_back(name);
    arrays[name] = a;
  }

  void expression_statement(size_t b, size_t e) {
    if (b >= e) return;
    // a, b: each in turn (`i++, j++` in a for loop's increment).
    for (size_t q = b; q < e; ++q) {
      if (t_[q].text == "(" || t_[q].text == "[" || t_[q].text == "{") {
        q = match_[q];
        continue;
      }
      if (t_[q].text == ",") {
        size_t from = b;
        for (size_t r = b; r <= e; ++r) {
          if (r < e && (t_[r].text == "(" || t_[r].text == "[" || t_[r].text == "{")) {
            r = match_[r];
            continue;
          }
          if (r == e || t_[r].text == ",") {
            if (r > from) one_expression(from, r);
            from = r + 1;
          }
        }
        return;
      }
    }
    one_expression(b, e);
  }

  void one_expression(size_t b, size_t e) {
    spend(b, e);
    const uint32_t line = t_[b].line;
    // __syncthreads();
    if (t_[b].text == "__syncthreads" && e == b + 3) {
      if (!steps.empty()) sync_pending_ = true;
      return;
    }
    if (t_[b].text == "__syncthreads" || t_[b].text == "__syncthreads_count" ||
        t_[b].text == "__syncthreads_and" || t_[b].text == "__syncthreads_or") {
      if (!steps.empty()) sync_pending_ = true;
    }
    // ++x, x++, --x, x--
    std::string op;
    size_t lb = b, le = e, rb = e, re = e;
    if ((t_[b].text == "++" || t_[b].text == "--") && e > b + 1) {
      op = t_[b].text == "++" ? "+=" : "-=";
      lb = b + 1;
    } else if (e > b + 1 && (t_[e - 1].text == "++" || t_[e - 1].text == "--")) {
      op = t_[e - 1].text == "++" ? "+=" : "-=";
      le = e - 1;
    } else {
      for (size_t q = b; q < e; ++q) {
        if (t_[q].text == "(" || t_[q].text == "[" || t_[q].text == "{") {
          q = match_[q];
          continue;
        }
        if (t_[q].kind == Tok::Punct && is_assign_op(t_[q].text)) {
          op = t_[q].text;
          le = q;
          rb = q + 1;
          break;
        }
      }
    }
    if (op.empty()) {
      std::vector<Access> acc;
      conv(b, e, acc);
      emit_all(acc);
      return;
    }
    std::vector<Access> acc;
    Conv rhs;
    if (rb < re) {
      rhs = conv(rb, re, acc);
    } else {
      rhs.text = "1";
    }
    // A local.
    if (le == lb + 1 && t_[lb].kind == Tok::Ident) {
      if (Var* v = find_var(t_[lb].text)) {
        emit_all(acc);
        assign(*v, scope_of(t_[lb].text), t_[lb].text, op, rhs, line);
        return;
      }
    }
    // An element of a shared array.
    if (t_[lb].kind == Tok::Ident && arrays.count(t_[lb].text) && !find_var(t_[lb].text)) {
      size_t end = lb;
      Access a = access_at(lb, le, &end, acc);
      if (a.why.empty() && end != le)
        a.why = "line " + std::to_string(line) + ": the left side is not one element of " + a.tile;
      if (op != "=") acc.push_back(a);  // the compound assignment reads it first
      a.kind = StepKind::Store;
      acc.push_back(a);
      emit_all(acc);
      return;
    }
    // Something else (global memory, a member): only the accesses in it.
    conv(lb, le, acc);
    emit_all(acc);
  }

  // An assignment to v, a local declared in scope `scope` (scopes_ index).
  void assign(Var& v, size_t scope, const std::string& name, const std::string& op, const Conv& rhs,
              uint32_t line) {
    if (v.cls == Cls::Opaque && op != "=") return;  // stays unknown
    if (!v.integer) return;                         // not an integer: it stays unknown
    Conv c;
    if (op == "=") {
      c = rhs;
    } else {
      const std::string cur = v.cls == Cls::Uniform ? literal_of(v.v) : v.let;
      c.text = '(' + cur + ") " + op.substr(0, op.size() - 1) + " (" + rhs.text + ")";
      c.cls = std::max(v.cls, rhs.cls);
      c.why = rhs.why;
    }
    if (c.cls == Cls::Opaque) {
      v.cls = Cls::Opaque;
      v.why = "'" + name + "' (line " + std::to_string(line) + ") " + c.why;
      return;
    }
    if (const std::string vg = value_guard(scope); !vg.empty()) {
      if (v.cls == Cls::Opaque) {
        v.why = "'" + name + "' is assigned on line " + std::to_string(line) +
                " under a condition, and had no value before";
        return;
      }
      const std::string cur = v.cls == Cls::Uniform ? literal_of(v.v) : v.let;
      c.text = '(' + vg + ") ? (" + c.text + ") : (" + cur + ")";
      c.cls = Cls::Thread;
    }
    set_value(v, v.type, c, name, line);
  }

  const std::vector<Tok>& t_;
  const std::vector<size_t>& match_;
  uint32_t target_;
  SourceLaunch launch_;
  const std::map<std::string, int64_t>& constants_;
  std::vector<std::map<std::string, Var>> scopes_;
  std::vector<std::string> guards_;  // per-thread conditions of the enclosing ifs
  std::vector<std::string> dead_;    // negations of returns/breaks/continues taken by some threads
  std::vector<size_t> guard_depth_;  // scopes_.size() when each guard began
  std::vector<int> dead_loop_;       // each dead_'s loop (loops_ index), -1 for a return
  std::vector<Loop> loops_;
  std::set<std::string> let_names_;
  std::string uncertain_;  // why nothing after this point can be trusted
  bool sync_pending_ = false;
  int64_t statements_ = 0;
  int depth_ = 0;    // statements nested in statements (stmt's recursion)
  size_t work_ = 0;  // tokens looked at (spend())
};
}  // namespace

bool is_type_word(const std::string& w) {
  static const std::set<std::string> k = {
      "int",      "unsigned",  "signed",        "short",      "long",    "char",      "bool",
      "float",    "double",    "size_t",        "int8_t",     "uint8_t", "int16_t",   "uint16_t",
      "int32_t",  "uint32_t",  "int64_t",       "uint64_t",   "const",   "volatile",  "static",
      "register", "constexpr", "auto",          "__shared__", "extern",  "__align__", "alignas",
      "half",     "__half",    "__nv_bfloat16", "__device__", "uint",    "ushort",    "ulong"};
  if (k.count(w)) return true;
  // CUDA's vector types: float2, int4, uchar4, double2, longlong2, ...
  static const char* const kVec[] = {"char", "uchar", "short",    "ushort",    "int",   "uint",
                                     "long", "ulong", "longlong", "ulonglong", "float", "double"};
  for (const char* v : kVec) {
    const std::string_view b(v);
    if (w.size() == b.size() + 1 && w.compare(0, b.size(), b) == 0 && w.back() >= '1' &&
        w.back() <= '4')
      return true;
  }
  return false;
}

Followed follow_kernel(const Prepared& p, const Function& fn, uint32_t line,
                       const SourceLaunch& launch) {
  // File-scope __shared__ declarations, then the kernel's body, macros expanded.
  std::map<std::string, int64_t> constants;
  Expander ex(p.macros, &constants);
  std::vector<Tok> toks;
  size_t file_decls = 0;
  for (size_t k = 0; k < p.raw.size(); ++k) {
    if (p.raw[k].text == "{") {
      k = p.match[k];
      continue;
    }
    if (p.raw[k].text != "__shared__") continue;
    size_t b = k, e = k;
    while (b > 0 && p.raw[b - 1].text != ";" && p.raw[b - 1].text != "}" &&
           p.raw[b - 1].text != "{")
      --b;
    while (e < p.raw.size() && p.raw[e].text != ";") ++e;
    std::vector<Tok> d = ex.expand(p.raw, b, std::min(p.raw.size(), e + 1), b);
    toks.insert(toks.end(), d.begin(), d.end());
    k = e;
  }
  file_decls = toks.size();
  {
    std::vector<Tok> body = ex.expand(p.raw, fn.body_b, fn.body_e, fn.body_b);
    toks.insert(toks.end(), body.begin(), body.end());
  }
  const std::vector<size_t> match = match_brackets(toks);
  Follower f(toks, match, line, launch, constants);
  for (size_t i = 0; i < fn.params.size(); ++i)
    f.param(fn.params[i], i < launch.args.size() ? launch.args[i] : std::nullopt);
  if (!p.uncertain.empty()) f.refuse_all(p.uncertain);
  for (size_t k = 0; k < toks.size(); ++k)
    if (toks[k].text == "cooperative_groups" || toks[k].text == "this_thread_block" ||
        toks[k].text == "thread_block" || toks[k].text == "grid_group") {
      f.refuse_all("the kernel uses cooperative groups (line " + std::to_string(toks[k].line) +
                   "), which bankviz cannot record");
      break;
    }
  for (size_t k = 0; k < file_decls;) f.stmt(k);
  for (size_t k = file_decls; k < toks.size();)
    if (f.stmt(k) == Flow::Return) break;
  Followed out;
  for (const Tok& t : toks)
    if (t.line == line && f.arrays.count(t.text)) out.names_array = true;
  out.arrays = std::move(f.arrays);
  out.array_order = std::move(f.array_order);
  out.used_tiles = std::move(f.used_tiles);
  out.lets = std::move(f.lets);
  out.steps = std::move(f.steps);
  out.constants = std::move(constants);
  out.refusal = std::move(f.refusal);
  return out;
}

}  // namespace bankviz::cuda_source
