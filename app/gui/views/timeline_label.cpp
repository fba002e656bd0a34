// timeline_label.cpp: see timeline_label.h.
#include "views/timeline_label.h"

#include <cctype>
#include <string>
#include <vector>

namespace bankviz::gui {

namespace {

// "s=1, index=2*tid: load ..." -> "s=1"; "i=128: load ..." -> "i=128": a leading NAME=VALUE
// (the loop variable as the label's writer put it) followed by ',' or ':'; *rest is where the
// text after it and its separator starts. Empty when the label does not start so.
std::string leading_value(const std::string& t, size_t* rest) {
  if (t.empty() || !(std::isalpha(static_cast<unsigned char>(t[0])) || t[0] == '_')) return {};
  size_t i = 0;
  while (i < t.size() && (std::isalnum(static_cast<unsigned char>(t[i])) || t[i] == '_')) ++i;
  if (i >= t.size() || t[i] != '=' || (i + 1 < t.size() && t[i + 1] == '=')) return {};
  size_t j = i + 1;
  while (j < t.size() && t[j] != ',' && t[j] != ':' && t[j] != ' ') ++j;
  // A value followed by a space is an assignment ("x = ..." or "x=a[3] + 1"), not a loop's.
  if (j == i + 1 || j >= t.size() || t[j] == ' ') return {};
  size_t k = j;
  while (k < t.size() && (t[k] == ',' || t[k] == ':' || t[k] == ' ')) ++k;
  *rest = k;
  return t.substr(0, j);
}

// "tap [sIdx - 10 + i]" -> "tap [sIdx-10+i]": the spaces inside subscripts.
std::string compact_subscripts(const std::string& t) {
  std::string out;
  int depth = 0;
  for (char c : t) {
    if (c == '[') ++depth;
    if (c == ']' && depth > 0) --depth;
    if (c == ' ' && depth > 0) continue;
    out += c;
  }
  return out;
}

// The words before the first subscript when they are plain words ("tap", "load", "ldmatrix.x4"),
// else empty ("atomicAdd(&" is half a call).
std::string plain_verb(const std::string& t) {
  const size_t br = t.find('[');
  if (br == std::string::npos) return {};
  std::string v = t.substr(0, br);
  while (!v.empty() && v.back() == ' ') v.pop_back();
  for (char c : v)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != ' ') return {};
  return v;
}

// What a shared array's name shortens to in a label: nothing when it is the scenario's only one,
// else its shortest prefix (or else suffix) that no other array's name shares ("subTileM",
// "subTileN"
// -> "M", "N"): two arrays' "store [ty][tx]" read the same.
std::string tile_abbreviation(const std::string& name, const std::vector<std::string>& tiles) {
  if (tiles.size() <= 1) return {};
  for (size_t n = 1; n < name.size(); ++n) {
    const std::string pre = name.substr(0, n), suf = name.substr(name.size() - n);
    bool pre_ok = true, suf_ok = true;
    for (const std::string& o : tiles) {
      if (o == name) continue;
      pre_ok = pre_ok && o.rfind(pre, 0) != 0;
      suf_ok = suf_ok && !(o.size() >= n && o.compare(o.size() - n, n, suf) == 0);
    }
    if (pre_ok) return pre;
    if (suf_ok) return suf;
  }
  return name;
}

}  // namespace

std::string fit_step_label(const std::string& label, float width,
                           const std::function<float(const std::string&)>& width_of,
                           const std::vector<std::string>& tiles) {
  auto fits = [&](const std::string& t) { return width_of(t) <= width; };
  if (fits(label)) return label;
  std::string t = label;
  if (t.rfind("__syncthreads", 0) == 0) return fits("sync") ? "sync" : "";
  for (const char* d : {"x", "y", "z"})
    for (size_t p; (p = t.find(std::string("threadIdx.") + d)) != std::string::npos;)
      t.replace(p, 11, 't' + std::string(d));
  if (fits(t)) return t;
  // The loop's value leads ("s=128, index=...: ...", "i=128: ...") or trails ("... (i=128)"): it
  // survives whole.
  std::string head, tail;
  size_t rest = 0;
  if (head = leading_value(t, &rest); !head.empty()) {
    t.erase(0, rest);
  } else if (size_t p = t.rfind(" (");
             p != std::string::npos && t.back() == ')' && t.find('=', p) != std::string::npos) {
    tail = t.substr(p);
    t.erase(p);
  }
  const std::string lead = head.empty() ? std::string() : head + ": ";
  if (fits(lead + t + tail)) return lead + t + tail;
  // "load tile[tx][ty]" -> "load [tx][ty]": the name before the first '[' is the tile's (only
  // the name: "atomicAdd(&hist[i], 1)" keeps its call, -> "atomicAdd(&[i], 1)").
  if (size_t br = t.find('['); br != std::string::npos && br > 0) {
    size_t from = br;
    while (from > 0 &&
           (std::isalnum(static_cast<unsigned char>(t[from - 1])) || t[from - 1] == '_'))
      --from;
    const std::string name = t.substr(from, br - from);
    bool tile = tiles.empty();
    for (const std::string& n : tiles) tile = tile || n == name;
    if (tile) t.replace(from, br - from, tile_abbreviation(name, tiles));
  }
  if (fits(lead + t + tail)) return lead + t + tail;
  t = compact_subscripts(t);
  if (fits(lead + t + tail)) return lead + t + tail;
  // Cut inside the first subscript ("tap [s~ (i=1)") the label names nothing: the plain verb
  // with the loop's value ("tap (i=1)") says more.
  const size_t br = t.find('[');
  const std::string verb = plain_verb(t);
  while (!t.empty() && !fits(lead + t + '~' + tail)) t.pop_back();
  const bool first_whole = br == std::string::npos || t.find(']', br) != std::string::npos;
  if (!t.empty() && (first_whole || verb.empty())) return lead + t + '~' + tail;
  if (!verb.empty() && fits(lead + verb + tail)) return lead + verb + tail;
  if (!t.empty()) return lead + t + '~' + tail;
  const std::string value = !head.empty()     ? head
                            : tail.size() > 3 ? tail.substr(2, tail.size() - 3)
                                              : std::string();
  if (!value.empty() && fits(value)) return value;
  // A long loop variable by its initial ("dotIdx=3" as "d=3") before the bare value, which a
  // room could read as a count.
  if (size_t eq = value.find('=');
      eq != std::string::npos && eq > 1 && fits(value.substr(0, 1) + value.substr(eq)))
    return value.substr(0, 1) + value.substr(eq);
  if (size_t eq = value.find('='); eq != std::string::npos && fits(value.substr(eq + 1)))
    return value.substr(eq + 1);
  return fits("~") ? "~" : "";
}

std::vector<std::string> tile_names(const Scenario& s) {
  std::vector<std::string> out;
  for (const TileDecl& t : s.tiles) out.push_back(t.name);
  return out;
}

}  // namespace bankviz::gui
