// link.cpp: links that open a scene (see link.h).
#include "shell/link.h"

#include <array>
#include <cstdint>

namespace bankviz::gui {

namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// "%20" -> " ", as a browser writes a fragment's unsafe characters.
std::optional<std::string> percent_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;  // "%4" at the end
    const int hi = hex_digit(text[i + 1]), lo = hex_digit(text[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

// Characters a fragment may carry as they are (RFC 3986's unreserved, and a few sub-delims).
std::string percent_encode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '-' || c == '_' || c == '.' || c == '~';
    if (plain) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

struct Key {
  std::string_view name;
  const char* flag;  // the app's flag it becomes ("" for those handled here)
  bool takes_value;
};
constexpr std::array<Key, 9> kKeys = {{{"lesson", "--lesson", true},
                                       {"scene", "--scene", true},
                                       {"reveal", "--reveal", false},
                                       {"preset", "--preset", true},
                                       {"scenario", "", true},
                                       {"presenter", "--presenter", false},
                                       {"theme", "--theme", true},
                                       {"size", "--size", true},
                                       {"dump-layout", "", false}}};

std::string known_keys() {
  std::string out;
  for (const Key& k : kKeys) out += (out.empty() ? "" : ", ") + std::string(k.name);
  return out;
}

}  // namespace

std::string base64url_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  uint32_t acc = 0;
  int bits = 0;
  for (unsigned char c : bytes) {
    acc = (acc << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += kAlphabet[(acc >> bits) & 63];
    }
  }
  if (bits > 0) out += kAlphabet[(acc << (6 - bits)) & 63];
  return out;
}

std::optional<std::string> base64url_decode(std::string_view text) {
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);  // padding is optional
  if (text.size() % 4 == 1) return std::nullopt;  // no byte count leaves one character over
  std::string out;
  out.reserve(text.size() * 3 / 4);
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    // '+' and '/' too: standard base64 pasted by hand decodes the same.
    size_t v = c == '+' ? 62 : c == '/' ? 63 : kAlphabet.find(c);
    if (v == std::string_view::npos) return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 255);
    }
  }
  return out;
}

std::optional<LinkRequest> parse_link(std::string_view fragment, std::string* error) {
  if (!fragment.empty() && fragment.front() == '#') fragment.remove_prefix(1);
  if (fragment.size() > kMaxLinkBytes) {
    *error = "the link is longer than " + std::to_string(kMaxLinkBytes >> 10) + " KB";
    return std::nullopt;
  }
  LinkRequest out;
  std::array<bool, kKeys.size()> seen{};
  while (!fragment.empty()) {
    const size_t amp = fragment.find('&');
    std::string_view part = fragment.substr(0, amp);
    fragment = amp == std::string_view::npos ? std::string_view{} : fragment.substr(amp + 1);
    if (part.empty()) continue;  // "a&&b", a trailing '&'
    const size_t eq = part.find('=');
    const std::string_view name = part.substr(0, eq);
    size_t k = 0;
    while (k < kKeys.size() && kKeys[k].name != name) ++k;
    if (k == kKeys.size()) {
      *error = "the link's '" + std::string(name.substr(0, 40)) + "' is not a link key (" +
               known_keys() + ")";
      return std::nullopt;
    }
    const Key& key = kKeys[k];
    if (seen[k]) {
      *error = "the link gives '" + std::string(name) + "' twice";
      return std::nullopt;
    }
    seen[k] = true;
    if (key.takes_value != (eq != std::string_view::npos)) {
      *error = key.takes_value ? "the link's '" + std::string(name) + "' needs a value (" +
                                     std::string(name) + "=...)"
                               : "the link's '" + std::string(name) + "' takes no value";
      return std::nullopt;
    }
    std::string value;
    if (key.takes_value) {
      std::optional<std::string> v = percent_decode(part.substr(eq + 1));
      if (!v) {
        *error = "the link's '" + std::string(name) + "' has a broken %-escape";
        return std::nullopt;
      }
      value = std::move(*v);
    }
    if (name == "scenario") {
      std::optional<std::string> json = base64url_decode(value);
      if (!json || json->empty()) {
        *error = "the link's scenario is not base64url text (a scenario's JSON, encoded)";
        return std::nullopt;
      }
      out.scenario_json = std::move(*json);
    } else if (name == "dump-layout") {
      out.dump_layout = true;
    } else {
      out.args.emplace_back(key.flag);
      if (key.takes_value) out.args.push_back(std::move(value));
    }
  }
  return out;
}

std::string make_link(const LinkView& v) {
  std::string out;
  auto add = [&out](std::string_view part) {
    if (!out.empty()) out += '&';
    out += part;
  };
  if (!v.lesson.empty()) {
    add("lesson=" + percent_encode(v.lesson));
    add("scene=" + std::to_string(v.scene));
    if (v.revealed) add("reveal");
  } else if (!v.preset.empty()) {
    add("preset=" + percent_encode(v.preset));
  } else if (v.scenario) {
    add("scenario=" + base64url_encode(scenario_to_json(*v.scenario)));
  }
  if (v.presenter) add("presenter");
  if (v.light) add("theme=light");
  if (!v.size.empty()) add("size=" + percent_encode(v.size));
  return out;
}

}  // namespace bankviz::gui
