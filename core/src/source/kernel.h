// kernel.h: the functions of a preprocessed CUDA source (from_source.h's second stage): brackets
// matched, each __global__ / __device__ function with its parameters and body. Internal to core.
#pragma once

#include "source/tokens.h"

namespace bankviz::cuda_source {

struct Param {
  std::string name;
  std::string type;      // the type's words ("unsigned int"), qualifiers left out
  bool pointer = false;  // a pointer, reference or array
};

struct Function {
  std::string name;
  bool global = false;
  std::vector<Param> params;
  size_t body_b = 0, body_e = 0;  // tokens of the body, braces excluded
  uint32_t first = 0, last = 0;   // lines of its braces
};

// The matching bracket of every bracket in t, or a SourceError.
std::vector<size_t> match_brackets(const std::vector<Tok>& t);

// The __global__ and __device__ functions defined in t (with bodies), in order.
std::vector<Function> functions(const std::vector<Tok>& t, const std::vector<size_t>& match);

struct Prepared {
  Macros macros;
  std::string uncertain;  // an #if that could not be evaluated
  std::vector<Tok> raw;   // the text's tokens, directives applied
  std::vector<size_t> match;
  std::vector<Function> fns;
  uint32_t lines = 0;
};

// The text tokenized, preprocessed and its functions found (a SourceError if it cannot be).
Prepared prepare(std::string_view source);

}  // namespace bankviz::cuda_source
