// gpu_protocol.cpp: the JSON lines of gpu_protocol.h.
#include "gpu_protocol.h"

#include <algorithm>

#include "bankviz/printable.h"

namespace bankviz {

using nlohmann::json;

bool is_served_request(std::string_view name) {
  return std::any_of(std::begin(kServedRequests), std::end(kServedRequests),
                     [&](const char* r) { return name == r; });
}

bool is_sent_file_name(std::string_view name) {
  if (name.empty() || name.size() > 64 || name.front() == '.') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '-' || c == '_';
  });
}

namespace {

// The deepest nesting of brackets outside strings; past `max` the scan stops.
int nesting_depth(std::string_view s, int max) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : s) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > max) return deepest;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

const json* member(const json& j, const char* key) {
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

bool string_member(const json& j, const char* key, std::string& out) {
  const json* v = member(j, key);
  if (v == nullptr || !v->is_string()) return false;
  out = v->get<std::string>();
  return true;
}

bool integer_member(const json& j, const char* key, int64_t& out) {
  const json* v = member(j, key);
  if (v == nullptr || !v->is_number_integer()) return false;
  out = v->get<int64_t>();
  return true;
}

}  // namespace

ParsedLine parse_protocol_line(std::string_view line) {
  ParsedLine p;
  if (nesting_depth(line, kMaxJsonDepth) > kMaxJsonDepth) {
    p.error = "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels";
    return p;
  }
  json j = json::parse(line, nullptr, false);
  if (j.is_discarded()) {
    p.error = "not JSON: '" + quoted_excerpt(line, 80) + "'";
    return p;
  }
  if (!j.is_object()) {
    p.error = "not a JSON object: '" + quoted_excerpt(line, 80) + "'";
    return p;
  }
  p.value = std::move(j);
  return p;
}

json greeting_json(const Greeting& g) {
  json d{{"present", g.device.present}};
  if (g.device.present) {
    d["name"] = g.device.name;
    d["sm"] = g.device.sm;
    d["driver_cuda"] = g.device.driver_cuda;
  } else {
    d["reason"] = g.device.reason;
  }
  return {{"protocol", kProtocolName},
          {"protocol_version", g.protocol_version},
          {"bankviz", g.bankviz},
          {"device", d}};
}

std::optional<Greeting> parse_greeting(std::string_view line, std::string* error) {
  ParsedLine p = parse_protocol_line(line);
  std::string name;
  if (!p.value || !string_member(*p.value, "protocol", name) || name != kProtocolName) {
    *error = "its first line is not bankviz's greeting: '" + quoted_excerpt(line) + "'";
    return std::nullopt;
  }
  const json& j = *p.value;
  Greeting g;
  int64_t version = 0;
  const json* d = member(j, "device");
  if (!integer_member(j, "protocol_version", version) || !string_member(j, "bankviz", g.bankviz) ||
      d == nullptr || !d->is_object() || !member(*d, "present") ||
      !member(*d, "present")->is_boolean()) {
    *error = "its greeting is malformed: '" + quoted_excerpt(line) + "'";
    return std::nullopt;
  }
  g.protocol_version = static_cast<int>(std::clamp<int64_t>(version, -1, 1 << 20));
  g.device.present = member(*d, "present")->get<bool>();
  string_member(*d, "name", g.device.name);
  string_member(*d, "sm", g.device.sm);
  string_member(*d, "reason", g.device.reason);
  int64_t driver = 0;
  if (integer_member(*d, "driver_cuda", driver))
    g.device.driver_cuda = static_cast<int>(std::clamp<int64_t>(driver, 0, 1 << 30));
  if (g.device.present && g.device.name.empty()) {
    *error = "its greeting names no device: '" + quoted_excerpt(line) + "'";
    return std::nullopt;
  }
  return g;
}

std::string version_problem(const Greeting& g, std::string_view mine, std::string_view where) {
  const std::string theirs = quoted_excerpt(g.bankviz, 40);
  if (g.bankviz != mine)
    return std::string(where) + " runs bankviz " + theirs + ", this is bankviz " +
           std::string(mine) + ": install bankviz " + std::string(mine) +
           " there (both sides must be the same version)";
  if (g.protocol_version != kProtocolVersion)
    return std::string(where) + " speaks protocol " + std::to_string(g.protocol_version) +
           ", this bankviz speaks " + std::to_string(kProtocolVersion) + ": install bankviz " +
           std::string(mine) + " there";
  return {};
}

std::string short_gpu_name(std::string_view name) {
  std::string n = replace_controls(name, '?');
  for (const char* prefix : {"NVIDIA ", "Tesla "})
    if (n.rfind(prefix, 0) == 0) n = n.substr(std::string_view(prefix).size());
  // "H200 NVL", "H100 80GB HBM3": the first word is the chip people name.
  if (size_t space = n.find(' '); space != std::string::npos && space > 0) n.resize(space);
  return n.empty() ? std::string("GPU") : n;
}

json request_json(const Request& r) {
  json files = json::object();
  for (const auto& [name, text] : r.files) files[name] = text;
  return {{"id", r.id}, {"request", r.request}, {"args", r.args}, {"files", files}};
}

std::optional<Request> parse_request(std::string_view line, std::string* error, int64_t* id) {
  *id = 0;
  ParsedLine p = parse_protocol_line(line);
  if (!p.value) {
    *error = "the request is " + p.error;
    return std::nullopt;
  }
  const json& j = *p.value;
  Request r;
  if (!integer_member(j, "id", r.id)) {
    *error = "the request has no integer \"id\"";
    return std::nullopt;
  }
  *id = r.id;
  if (!string_member(j, "request", r.request)) {
    *error = "the request has no \"request\" (one of run, compare, sweep, validate, "
             "experiments, profile)";
    return std::nullopt;
  }
  if (!is_served_request(r.request)) {
    *error = "'" + quoted_excerpt(r.request, 40) +
             "' is not served (run, compare, sweep, validate, experiments, profile)";
    return std::nullopt;
  }
  if (const json* a = member(j, "args")) {
    if (!a->is_array() || a->size() > 4096) {
      *error = "\"args\" is not an array of at most 4096 strings";
      return std::nullopt;
    }
    for (const json& s : *a) {
      if (!s.is_string()) {
        *error = "\"args\" holds something other than a string";
        return std::nullopt;
      }
      r.args.push_back(s.get<std::string>());
    }
  }
  if (const json* f = member(j, "files")) {
    if (!f->is_object() || f->size() > kMaxRequestFiles) {
      *error = "\"files\" is not an object of at most " + std::to_string(kMaxRequestFiles) +
               " files";
      return std::nullopt;
    }
    for (const auto& [name, text] : f->items()) {
      if (!is_sent_file_name(name) || !text.is_string()) {
        *error = "the file '" + quoted_excerpt(name, 64) +
                 "' has a name that is not a plain file name, or no text";
        return std::nullopt;
      }
      r.files[name] = text.get<std::string>();
    }
  }
  return r;
}

json reply_json(const Reply& r) {
  if (!r.ok) return {{"id", r.id}, {"ok", false}, {"error", r.error}};
  return {{"id", r.id}, {"ok", true}, {"exit", r.exit}, {"stdout", r.out}, {"stderr", r.err}};
}

std::optional<Reply> parse_reply(std::string_view line, int64_t id, std::string* error) {
  ParsedLine p = parse_protocol_line(line);
  if (!p.value) {
    *error = "a malformed reply: " + p.error;
    return std::nullopt;
  }
  const json& j = *p.value;
  Reply r;
  const json* ok = member(j, "ok");
  if (!integer_member(j, "id", r.id) || ok == nullptr || !ok->is_boolean()) {
    *error = "a malformed reply (no \"id\" or \"ok\"): '" + quoted_excerpt(line) + "'";
    return std::nullopt;
  }
  if (r.id != id) {
    *error = "a malformed reply: it answers request " + std::to_string(r.id) + " where " +
             std::to_string(id) + " was asked";
    return std::nullopt;
  }
  r.ok = ok->get<bool>();
  if (!r.ok) {
    if (!string_member(j, "error", r.error)) r.error = "refused without a reason";
    return r;
  }
  int64_t exit = 0;
  if (!integer_member(j, "exit", exit) || exit < 0 || exit > 255 ||
      !string_member(j, "stdout", r.out) || !string_member(j, "stderr", r.err)) {
    *error = "a malformed reply (\"exit\" 0-255, \"stdout\" and \"stderr\" strings): '" +
             quoted_excerpt(line) + "'";
    return std::nullopt;
  }
  r.exit = static_cast<int>(exit);
  return r;
}

std::string quoted_excerpt(std::string_view text, size_t max) {
  std::string s = replace_controls(text.substr(0, std::min(text.size(), max * 4)), '?');
  // Cut at a character boundary (UTF-8 continuation bytes are 10xxxxxx).
  if (s.size() > max) {
    size_t cut = max;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    s = s.substr(0, cut) + "...";
  }
  return s;
}

}  // namespace bankviz
