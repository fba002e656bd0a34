// json_reader.h (private to core/src): strict JSON reading shared by scenario files and lesson
// files: a guard that stops the parse on duplicate keys, deep nesting and too many values (with
// the path), the parse itself with its errors as a line and column, and a Reader that takes
// fields out of objects recording every problem with its path.
#pragma once

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <new>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "bankviz/scenario.h"
#include "scenario_json.h"

namespace bankviz::detail {

// A file read under a memory limit (ulimit -v, a container's) that did not fit: said as such,
// never as "unexpected JSON content: std::bad_alloc" (scenario and lesson loaders).
inline constexpr const char* kOutOfMemoryReading =
    "out of memory while reading the file: it did not fit in the memory this process may use "
    "(ulimit -v or a container's limit)";

inline std::string join(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

inline const char* json_type(const Json& j) {
  if (j.is_number_integer()) return "an integer";
  // JSON's reader keeps an integer past 64 bits as a floating-point number: say what it was.
  if (j.is_number_float() && std::fabs(j.get<double>()) >= 9223372036854775808.0 &&
      std::isfinite(j.get<double>()) && std::trunc(j.get<double>()) == j.get<double>())
    return "a whole number too large for 64 bits (at most 9223372036854775807)";
  if (j.is_number_float()) return "a fractional number";
  if (j.is_string()) return "a string";
  if (j.is_boolean()) return "a boolean";
  if (j.is_array()) return "an array";
  if (j.is_object()) return "an object";
  if (j.is_null()) return "null";
  return j.type_name();
}

// Reads fields out of one JSON object, recording every problem with its path.
class Reader {
 public:
  explicit Reader(std::vector<Diagnostic>& errors) : errors_(errors) {}

  void error(const std::string& path, std::string message) {
    errors_.push_back({path, 0, std::move(message)});
  }

  // True when j is an object whose keys are all in `allowed`.
  bool object(const Json& j, const std::string& path,
              std::initializer_list<std::string_view> allowed) {
    if (!j.is_object()) {
      error(path.empty() ? "(top level)" : path,
            std::string("expected an object, got ") + json_type(j));
      return false;
    }
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end()) {
        std::string list;
        for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        error(join(path, it.key()), "unknown key (expected one of: " + list + ")");
      }
    }
    return true;
  }

  bool integer(const Json& j, const std::string& path, int64_t& out) {
    if (j.is_number_unsigned() && j.get<uint64_t>() > uint64_t{INT64_MAX}) {
      error(path, "integer too large (at most 9223372036854775807)");
      return false;
    }
    if (!j.is_number_integer()) {
      error(path, std::string("expected an integer, got ") + json_type(j));
      return false;
    }
    out = j.get<int64_t>();
    return true;
  }

  // Optional members: absent keeps the default.
  void get(const Json& obj, const std::string& path, const char* key, std::string& out) {
    auto it = obj.find(key);
    if (it == obj.end()) return;
    if (!it->is_string()) {
      error(join(path, key), std::string("expected a string, got ") + json_type(*it));
      return;
    }
    out = it->get<std::string>();
  }
  void get(const Json& obj, const std::string& path, const char* key, int64_t& out) {
    auto it = obj.find(key);
    if (it != obj.end()) integer(*it, join(path, key), out);
  }
  void get(const Json& obj, const std::string& path, const char* key, int& out) {
    int64_t v = out;
    auto it = obj.find(key);
    if (it == obj.end() || !integer(*it, join(path, key), v)) return;
    if (v < -1000000 || v > 1000000) {
      error(join(path, key), "value " + std::to_string(v) + " out of range");
      return;
    }
    out = static_cast<int>(v);
  }
  void get(const Json& obj, const std::string& path, const char* key, bool& out) {
    auto it = obj.find(key);
    if (it == obj.end()) return;
    if (!it->is_boolean()) {
      error(join(path, key), std::string("expected true or false, got ") + json_type(*it));
      return;
    }
    out = it->get<bool>();
  }

  // An optional array member; nullptr when absent or not an array (the latter is an error).
  const Json* array(const Json& obj, const std::string& path, const char* key) {
    auto it = obj.find(key);
    if (it == obj.end()) return nullptr;
    if (!it->is_array()) {
      error(join(path, key), std::string("expected an array, got ") + json_type(*it));
      return nullptr;
    }
    return &*it;
  }

  // A string member of at most `max` characters.
  void text(const Json& obj, const std::string& path, const char* key, std::string& out,
            size_t max) {
    get(obj, path, key, out);
    if (out.size() > max)
      error(join(path, key), "is " + std::to_string(out.size()) + " characters long; at most " +
                                 std::to_string(max));
  }
  // An integer member within [lo, hi]; false when absent or bad (bad is an error).
  bool integer(const Json& obj, const std::string& path, const char* key, int64_t& out, int64_t lo,
               int64_t hi) {
    auto it = obj.find(key);
    int64_t v = 0;
    if (it == obj.end() || !integer(*it, join(path, key), v)) return false;
    if (v < lo || v > hi) {
      error(join(path, key), "value " + std::to_string(v) + " out of range (" + std::to_string(lo) +
                                 " to " + std::to_string(hi) + ")");
      return false;
    }
    out = v;
    return true;
  }

 private:
  std::vector<Diagnostic>& errors_;
};

// Watches the parse: a key written twice in one object (JSON readers keep one silently), nesting
// deeper than any scenario or lesson needs, or more values than any legal one holds stop it with
// the path of the problem. Objects keep their keys in order (ordered_json), so a huge object would
// also be slow to build: the value cap stops that too.
class JsonGuard {
 public:
  explicit JsonGuard(const char* what) : what_(what) {}
  struct Stop {
    std::string path, message;
  };
  static constexpr size_t kMaxDepth = 32;
  static constexpr size_t kMaxValues = 1'000'000;

  bool operator()(int, Json::parse_event_t event, Json& parsed) {
    using E = Json::parse_event_t;
    switch (event) {
      case E::object_start:
      case E::array_start:
        if (frames_.size() >= kMaxDepth)
          throw Stop{path(), "nested more than " + std::to_string(kMaxDepth) + " levels deep; " +
                                 std::string(what_) + " needs far fewer"};
        frames_.push_back({event == E::array_start, 0, {}, {}});
        break;
      case E::key: {
        Frame& f = frames_.back();
        f.key = parsed.get<std::string>();
        if (!f.keys.insert(f.key).second)
          throw Stop{path(),
                     "the key \"" + f.key + "\" is written twice in one object; keep one of them"};
        break;
      }
      case E::object_end:
      case E::array_end:
        frames_.pop_back();
        value_done();
        break;
      case E::value:
        value_done();
        break;
    }
    return true;
  }

 private:
  struct Frame {
    bool array = false;
    size_t index = 0;
    std::string key;
    std::set<std::string> keys;
  };
  void value_done() {
    if (++values_ > kMaxValues)
      throw Stop{path(), "more than " + std::to_string(kMaxValues) + " JSON values; " +
                             std::string(what_) + " holds far fewer"};
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
  }
  std::string path() const {
    std::string p;
    for (const Frame& f : frames_) {
      if (f.array)
        p += '[' + std::to_string(f.index) + ']';
      else if (!f.key.empty())
        p += (p.empty() ? "" : ".") + f.key;
    }
    return p.empty() ? "(top level)" : p;
  }
  const char* what_;
  std::vector<Frame> frames_;
  size_t values_ = 0;
};

// Parses `text` under a JsonGuard naming `what` ("a scenario", "a lesson"). On failure returns
// nothing and appends one error: the guard's (with its path) or the parser's (with a line and
// column).
std::optional<Json> parse_strict_json(std::string_view text, const char* what,
                                      std::vector<Diagnostic>& errors);

}  // namespace bankviz::detail
