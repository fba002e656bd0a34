// catalog.cpp: see catalog.h.
#include "catalog.h"

#include <algorithm>
#include <filesystem>

#include "data_dir.h"

namespace bankviz {

namespace fs = std::filesystem;

std::vector<std::string> catalog_names(const std::string& folder) {
  std::vector<std::string> names;
  const std::string assets = assets_dir();
  if (assets.empty()) return names;
  std::error_code ec;
  for (fs::directory_iterator it(fs::path(assets) / folder, ec), end; !ec && it != end;
       it.increment(ec))
    if (it->path().extension() == ".json") names.push_back(it->path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string catalog_path(const std::string& folder, const std::string& name, std::string* error) {
  const std::vector<std::string> names = catalog_names(folder);
  if (std::binary_search(names.begin(), names.end(), name))
    return (fs::path(assets_dir()) / folder / (name + ".json")).string();
  *error = unknown_name_message(folder, name, names);
  return {};
}

std::string unknown_name_message(const std::string& folder, const std::string& name,
                                 const std::vector<std::string>& names) {
  const std::string one = folder.substr(0, folder.size() - 1);  // "presets" -> "preset"
  // At most kListed names: a folder of thousands would bury the message.
  constexpr size_t kListed = 40;
  std::string list;
  for (size_t i = 0; i < names.size() && i < kListed; ++i)
    list += (list.empty() ? "" : ", ") + names[i];
  if (names.size() > kListed)
    list += " and " + std::to_string(names.size() - kListed) + " more (`bankviz-cli " + folder +
            "` lists them all)";
  return "no " + one + " named '" + name + "'" +
         (!list.empty()          ? "; " + folder + ": " + list
          : assets_dir().empty() ? " (no assets directory found; set BANKVIZ_ASSETS)"
                                 : " (no " + folder + " in " + assets_dir() + ")");
}

}  // namespace bankviz
