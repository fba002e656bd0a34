// follower.h: a kernel followed for one block as a small symbolic interpreter (from_source.h's
// third stage: values, expressions, statements). What it gives is the line's shared accesses as
// scenario steps, the lets and constants they use and the arrays; from_source.cpp builds the
// scenario from them. Internal to core.
#pragma once

#include <map>
#include <set>

#include "bankviz/from_source.h"
#include "bankviz/tile.h"
#include "source/kernel.h"

namespace bankviz::cuda_source {

struct Array {
  TileDecl decl;
  int rank = 1;  // subscripts an access takes (0: a scalar __shared__ variable)
  int64_t align = 0;
  std::string why;  // why its accesses cannot be modelled (declaration)
};

// What following the kernel up to (and through) a line found.
struct Followed {
  std::map<std::string, Array> arrays;       // every __shared__ array declared, by name
  std::vector<std::string> array_order;      // their declaration order
  std::set<std::string> used_tiles;          // those the line's steps access
  std::vector<Let> lets;                     // every let made, in order
  std::vector<Step> steps;                   // the line's accesses (and syncs between), in order
  std::map<std::string, int64_t> constants;  // plain #define constants the text names
  std::string refusal;                       // the first reason the line cannot be expressed
  bool names_array = false;                  // the line names a __shared__ array
};

// Line `line` of the __global__ function fn, followed for one block (a SourceError if the text
// cannot be followed at all).
Followed follow_kernel(const Prepared& p, const Function& fn, uint32_t line,
                       const SourceLaunch& launch);

// A word of a C/CUDA type (int, unsigned, const, float4, __shared__, ...).
bool is_type_word(const std::string& w);

}  // namespace bankviz::cuda_source
