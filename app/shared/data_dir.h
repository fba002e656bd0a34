// data_dir.h: where bankviz's read-only data (shaders/, assets/) is at run time, for both
// programs (bankviz and bankviz-cli).
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

}  // namespace bankviz
