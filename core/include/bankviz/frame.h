// frame.h: the animation as a pure function of time over an Analysis, and what one frame lights.
//
// The animation plays "beats": one beat is one wavefront of one warp in one executed memory step,
// in program order (step, then warp, then wavefront). Syncs and warps with no active lane have no
// beat. Time maps to a beat by speed (beats per second):
//
//   t -> beat = floor(t * speed)  (wrapped when looping, clamped otherwise) -> (step, warp,
//   wavefront)
//
// Views never keep animation state of their own: they call frame_at(analysis, t, playback) and
// draw what frame_cells() says is lit, so the screen, SVG export and PNG sequences agree.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bankviz/analysis.h"

namespace bankviz {

enum class StepUnit { Wavefront, Step, Warp };

struct Playback {
  double speed = 2.0;  // beats (wavefronts) per second
  bool loop = true;    // wrap past the last beat; else stop on it
  int only_warp = -1;  // -1: every warp in turn; else only this warp's beats
};

struct Frame {
  int beat = -1;          // -1 when nothing in the analysis touches shared memory
  int beats = 0;          // beats in the whole animation
  int step = -1;          // executed step (index into Analysis::steps)
  int warp = -1;          // warp index
  int wavefront = -1;     // index into that warp step's result.detail
  int wavefronts = 0;     // that warp step's wavefront count
  double phase = 0.0;     // 0..1 progress within the beat
  bool finished = false;  // not looping and t is past the last beat
};

// Number of beats (sum of wavefronts over animated warp steps).
int beat_count(const Analysis& a, const Playback& p);
// Seconds the animation takes once through.
double duration(const Analysis& a, const Playback& p);

Frame frame_at(const Analysis& a, double t, const Playback& p);

// The time at which beat b starts (a hair after, so frame_at lands inside it).
double beat_time(int beat, const Playback& p);
// The time of the first beat of (step, warp, wavefront), or -1 when that beat does not exist.
double time_of(const Analysis& a, const Playback& p, int step, int warp, int wavefront);
// Before and after: B's frame for A's playhead `lead` (B over every warp, whatever p.only_warp):
// A's (step, warp, wavefront) when B has that beat, else that step's first wavefront of the same
// warp, else of any warp, else B's worst step's first beat. The app's comparison and
// `bankviz-cli export --compare` both place B with it.
Frame follow_playhead(const Analysis& b, const Frame& lead, const Playback& p);
// From time t, the start of the next (dir > 0) or previous (dir < 0) wavefront, step or warp.
// Stepping back from inside a step first goes to that step's start. Wraps when looping.
double step_time(const Analysis& a, double t, const Playback& p, StepUnit unit, int dir);

// [SECTION] What a frame lights, for the tile view and the bank view.

// The grid the tile view draws: 2-D tiles as declared (columns include padding), 1-D tiles wrapped
// every 32 elements, 3-D tiles with the two outer dimensions folded into rows.
struct TileGrid {
  int64_t rows = 0, cols = 0;
};
TileGrid tile_grid(const TileDecl& t);
// (linear element) -> (row, col) of that grid, and back.
void grid_cell(const TileDecl& t, int64_t element, int64_t* row, int64_t* col);
int64_t grid_element(const TileDecl& t, int64_t row, int64_t col);

struct LitLane {
  int lane = 0;
  int64_t element = -1;       // linear element in the tile
  uint32_t byte = 0;          // byte address
  bool in_wavefront = false;  // served by the current wavefront
};

struct LitWord {
  uint32_t word = 0;  // Arch::word_of(byte address)
  int bank = 0;
  uint32_t lanes = 0;         // lanes touching this word (any wavefront of the warp step)
  int wavefront = 0;          // wavefront that serves it
  bool in_wavefront = false;  // served by the current wavefront
  bool conflict = false;      // its bank is one serve() found conflicting (conflict_banks)
};

// What the views draw for one frame. Everything about banks is copied from the warp step's
// AccessResult (access.h): the views never decide a bank or a conflict themselves.
struct FrameCells {
  int tile = -1;                 // index into Scenario::tiles, -1 when nothing is lit
  std::vector<LitLane> lanes;    // active lanes of the current warp step, lane order; an access
                                 // wider than one element (ldmatrix rows, cp.async) has one entry
                                 // per element it covers, the first at the address the lane gave
  std::vector<LitWord> words;    // every bank word of its request, by word
  std::vector<int> bank_load;    // [bank]: wavefronts in which the bank serves (bank_passes)
  uint32_t conflict_banks = 0;   // banks that cause the conflict (AccessResult::conflict_banks)
  uint32_t wavefront_banks = 0;  // banks the current wavefront uses
  bool extra_pass = false;       // the current wavefront is a pass without words (Fermi's +1)
  int wavefronts = 0, ideal = 0;
  std::string verdict;  // "32-way bank conflict: ..." (text.h verdict)
  std::string label;    // the step's label
  bool conflicted(int bank) const {
    return bank >= 0 && bank < kMaxBanks && ((conflict_banks >> bank) & 1u) != 0;
  }
};
FrameCells frame_cells(const Analysis& a, const Frame& f);

// The picture while a lesson's question is still open (ask before telling): the warp step's whole
// request lit at once, every lane and every word, with nothing that counts or judges it: no
// current wavefront, no per-bank passes, no conflicting bank, no verdict, no wavefront count.
FrameCells conceal_answer(FrameCells c);

}  // namespace bankviz
