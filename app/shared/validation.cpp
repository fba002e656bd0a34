// validation.cpp: the validate record (validation.h).
#include "validation.h"

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "bankviz/io.h"

namespace bankviz {

std::string config_dir() {
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x) return std::string(x) + "/bankviz";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.config/bankviz";
  return "";
}

namespace {

std::string record_path() {
  const std::string dir = config_dir();
  return dir.empty() ? "" : dir + "/validated.json";
}

}  // namespace

std::string save_validation_record(const ValidationRecord& r) {
  const std::string path = record_path();
  if (path.empty()) return "neither XDG_CONFIG_HOME nor HOME is set";
  std::error_code ec;
  std::filesystem::create_directories(config_dir(), ec);
  if (ec) return "cannot create " + config_dir() + ": " + ec.message();
  const nlohmann::json j = {
      {"device", r.device}, {"sm", r.sm},       {"arch", r.arch},         {"date", r.date},
      {"agrees", r.agrees}, {"cases", r.cases}, {"compared", r.compared}, {"agreeing", r.agreeing}};
  return write_file_atomic(path, j.dump(2) + "\n", true);
}

std::optional<ValidationRecord> load_validation_record(std::string* problem) {
  const std::string path = record_path();
  if (path.empty()) return std::nullopt;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  TextRead t = read_text_file(path, int64_t{1} << 20);
  auto fail = [&](const std::string& why) -> std::optional<ValidationRecord> {
    if (problem) *problem = path + ": " + why;
    return std::nullopt;
  };
  if (!t.text) return fail(t.error);
  const nlohmann::json j = nlohmann::json::parse(*t.text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return fail("not a JSON object");
  try {
    ValidationRecord r;
    r.device = j.at("device").get<std::string>();
    r.sm = j.at("sm").get<std::string>();
    r.arch = j.at("arch").get<std::string>();
    r.date = j.at("date").get<std::string>();
    r.agrees = j.at("agrees").get<bool>();
    r.cases = j.at("cases").get<int64_t>();
    r.compared = j.at("compared").get<int64_t>();
    r.agreeing = j.at("agreeing").get<int64_t>();
    return r;
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}

std::string validation_label(const std::optional<ValidationRecord>& r, const std::string& device,
                             const std::string& sm, const std::string& arch) {
  if (!r || r->arch != arch || device.empty() || r->device != device || r->sm != sm) return "";
  if (r->agrees)
    return "validated on this GPU (" + r->date + ": " + std::to_string(r->compared) +
           " counts agree)";
  return "validate on this GPU found " + std::to_string(r->compared - r->agreeing) + " of " +
         std::to_string(r->compared) + " counts differ (" + r->date + ")";
}

}  // namespace bankviz
