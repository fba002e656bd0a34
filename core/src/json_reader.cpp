// json_reader.cpp: the strict JSON parse shared by scenario and lesson files (json_reader.h).
#include "json_reader.h"

#include <functional>

namespace bankviz::detail {

namespace {

// nlohmann reports a byte offset; people want a line and a column.
std::pair<int, int> line_column(std::string_view text, size_t byte) {
  int line = 1, col = 1;
  for (size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

}  // namespace

std::optional<Json> parse_strict_json(std::string_view json_text, const char* what,
                                      std::vector<Diagnostic>& errors) {
  // The parser reads a NUL byte as the end of the text (a file cut short without a word) and
  // UTF-16 as nonsense at its first byte: both are said as what they are.
  if (json_text.starts_with("\xff\xfe") || json_text.starts_with("\xfe\xff")) {
    errors.push_back({"line 1", 1,
                      "the file is UTF-16 (it starts with a byte-order mark): save it as UTF-8, "
                      "the encoding JSON files are read in"});
    return std::nullopt;
  }
  if (const size_t nul = json_text.find('\0'); nul != std::string_view::npos) {
    auto [line, col] = line_column(json_text, nul + 1);
    errors.push_back({"line " + std::to_string(line), col,
                      "a NUL byte: a JSON file is text (UTF-16 without a byte-order mark? save "
                      "it as UTF-8)"});
    return std::nullopt;
  }
  try {
    JsonGuard guard(what);
    return Json::parse(json_text.begin(), json_text.end(), std::ref(guard));
  } catch (const JsonGuard::Stop& stop) {
    errors.push_back({stop.path, 0, stop.message});
  } catch (const nlohmann::json::parse_error& e) {
    auto [line, col] = line_column(json_text, e.byte);
    // e.what() reads "[json.exception.parse_error.101] parse error at line 1, column 5: syntax
    // error while parsing value - ..."; keep only the part after the position.
    std::string msg = e.what();
    if (size_t p = msg.find(": ", msg.find("parse error")); p != std::string::npos)
      msg = msg.substr(p + 2);
    errors.push_back({"line " + std::to_string(line), col, "invalid JSON: " + msg});
  } catch (const nlohmann::json::out_of_range& e) {
    // A number beyond a double ("1e400"): nlohmann says "[json.exception.out_of_range.406] number
    // overflow parsing '1e400'", with no place. The number's place is found in the text.
    std::string msg = e.what();
    const size_t a = msg.find('\''), b = msg.rfind('\'');
    const std::string number = a != std::string::npos && b > a ? msg.substr(a + 1, b - a - 1) : "";
    const size_t at = number.empty() ? std::string_view::npos : json_text.find(number);
    if (at != std::string_view::npos) {
      auto [line, col] = line_column(json_text, at + 1);
      errors.push_back({"line " + std::to_string(line), col,
                        "invalid JSON: the number " + number.substr(0, 40) +
                            (number.size() > 40 ? "..." : "") +
                            " is beyond the range of a double"});
    } else {
      const size_t tag = msg.find("] ");
      errors.push_back(
          {"", 0, "invalid JSON: " + (tag == std::string::npos ? msg : msg.substr(tag + 2))});
    }
  } catch (const std::exception& e) {
    errors.push_back({"", 0, std::string("invalid JSON: ") + e.what()});
  }
  return std::nullopt;
}

}  // namespace bankviz::detail
