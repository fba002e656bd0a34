// data_dir.cpp: see data_dir.h.
#include "data_dir.h"

#include <cstdlib>
#include <filesystem>

namespace bankviz {

namespace fs = std::filesystem;

namespace {

// The variable's value when it is set and not empty.
const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

}  // namespace

std::string data_dir() {
  std::error_code ec;
  if (const char* dir = env("BANKVIZ_DATA_DIR"); dir && fs::is_directory(dir, ec)) return dir;
  // BANKVIZ_DATA_FROM_BIN: the install's data directory relative to its bin directory
  // (GNUInstallDirs: ../share/bankviz), so it holds under any install prefix.
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = (exe.parent_path() / BANKVIZ_DATA_FROM_BIN).lexically_normal();
    if (fs::is_directory(installed / "assets", ec)) return installed.string();
  }
  if (fs::is_directory(fs::path(BANKVIZ_SOURCE_DIR) / "assets", ec)) return BANKVIZ_SOURCE_DIR;
  return {};
}

std::string assets_dir() {
  if (const char* dir = env("BANKVIZ_ASSETS")) return dir;
  const std::string data = data_dir();
  return data.empty() ? data : data + "/assets";
}

std::string data_env_problem() {
  for (const char* name : {"BANKVIZ_DATA_DIR", "BANKVIZ_ASSETS"}) {
    const char* dir = env(name);
    std::error_code ec;
    if (dir && !fs::is_directory(dir, ec))
      return std::string(name) + "='" + dir + "' is not a directory" +
             (fs::exists(dir, ec) ? "" : " (it does not exist)") +
             "; unset it to use the installed data";
  }
  return {};
}

}  // namespace bankviz
