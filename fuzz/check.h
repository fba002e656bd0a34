// check.h: what the harnesses share: a property that must hold, else the input is a crash.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

// A broken property is a bug like a crash: print why and abort, so libFuzzer saves the input.
#define FUZZ_CHECK(cond, what)                                                                    \
  do {                                                                                            \
    if (!(cond)) {                                                                                \
      std::fprintf(stderr, "\nFUZZ_CHECK failed at %s:%d: %s\n  %s\n", __FILE__, __LINE__, #cond, \
                   std::string(what).c_str());                                                    \
      std::abort();                                                                               \
    }                                                                                             \
  } while (0)
