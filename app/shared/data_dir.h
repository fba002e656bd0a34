// data_dir.h: where bankviz's read-only data (shaders/, assets/) is at run time, for both
// programs (bankviz and bankviz-cli): the one home of BANKVIZ_DATA_DIR and BANKVIZ_ASSETS.
#pragma once

#include <string>

namespace bankviz {

// The directory holding assets/ (and, for the app, shaders/); the first that exists of:
//   1. $BANKVIZ_DATA_DIR;
//   2. the install's data directory beside the running program (<prefix>/bin/bankviz-cli ->
//      <prefix>/share/bankviz), so an installed program reads its own copy wherever it is run
//      from and whatever prefix `cmake --install --prefix` was given;
//   3. the source tree (compiled in), for programs run from the build directory.
// Empty when none does.
std::string data_dir();

// Where the presets (presets/) and lessons (lessons/) are: $BANKVIZ_ASSETS, else data_dir()'s
// assets/. Empty when none exists.
std::string assets_dir();

// Empty when BANKVIZ_DATA_DIR and BANKVIZ_ASSETS are unset or name directories; else what is
// wrong, for the program to stop with (a variable set to a missing directory is not ignored).
std::string data_env_problem();

}  // namespace bankviz
