// data_dir.cpp: see data_dir.h.
#include "data_dir.h"

#include <cstdlib>
#include <filesystem>

namespace bankviz {

namespace fs = std::filesystem;

std::string data_dir() {
  std::error_code ec;
  if (const char* env = std::getenv("BANKVIZ_DATA_DIR"); env && fs::is_directory(env, ec))
    return env;
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

}  // namespace bankviz
