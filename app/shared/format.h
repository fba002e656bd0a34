// format.h: numbers as both programs print them, one home (the CLI's tables, the app's
// before/after and sweep panels).
#pragma once

#include <cstdio>
#include <string>

namespace bankviz {

// "%.*f": v with `digits` decimals (0.000 for 0; nan and inf as printf spells them).
inline std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace bankviz
