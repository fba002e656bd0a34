// catalog.h: the named things under assets/ (presets/, lessons/), for both programs: the one
// place that lists them, looks a name up and words "no preset named 'x'; presets: ...".
#pragma once

#include <string>
#include <vector>

namespace bankviz {

// "presets" or "lessons": a folder of assets_dir() (data_dir.h) holding NAME.json files.
// The sorted names (file stems); empty when there is no such folder.
std::vector<std::string> catalog_names(const std::string& folder);

// The file of `name` in the folder, or empty with *error set: a name is a file stem, never a path;
// an unknown one is answered with the list ("no lesson named 'x'; lessons: a, b"; the first 40
// and how many more), or with why there is none (no assets directory, set BANKVIZ_ASSETS).
std::string catalog_path(const std::string& folder, const std::string& name, std::string* error);

// The one wording of an unknown name, for both programs: "no preset named 'x'; presets: a, b" (the
// first 40 of `names` and how many more), or why there are none. `folder` as above.
std::string unknown_name_message(const std::string& folder, const std::string& name,
                                 const std::vector<std::string>& names);

}  // namespace bankviz
