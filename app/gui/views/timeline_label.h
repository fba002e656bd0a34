// timeline_label.h: a step's label shortened to fit its timeline column without becoming
// ambiguous. A loop's steps differ only in the loop's value ("s=1, index=2*tid: load ...",
// "load cache[...] (i=128)"), so that value is kept whole: a label cut to "i=1" would read as
// i=1 when it meant i=128, and one cut to "s~" tells the iterations apart not at all.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "bankviz/scenario.h"

namespace bankviz::gui {

// label -> the longest of these that fits `width` (as measured by width_of, in pixels):
//   the label; threadIdx.x spelled tx; the loop's value ("s=128") first, then as much of the
//   rest as fits (without the tile's name before '[', then without the spaces inside subscripts
//   ("[sIdx-10+i]"), then cut with '~', but a cut inside the first subscript gives way to the
//   plain verb before it with the loop's value: "tap (i=1)", not "tap [s~ (i=1)"); the value alone;
//   its number alone; "~"; "" when nothing fits. A barrier is "sync". The name before the first '['
//   goes only when it is one of `tiles` (the scenario's shared arrays; any name when the list is
//   empty): "atomicAdd(&output[tx], temp[tx])" keeps output, a global array, whose subscript
//   alone would read as the shared access. With several shared arrays the name shortens to what
//   tells it from the others instead ("subTileM" and "subTileN": "store M[ty][tx]").
std::string fit_step_label(const std::string& label, float width,
                           const std::function<float(const std::string&)>& width_of,
                           const std::vector<std::string>& tiles = {});
// The names of `s`'s shared arrays, fit_step_label's `tiles`.
std::vector<std::string> tile_names(const Scenario& s);

}  // namespace bankviz::gui
