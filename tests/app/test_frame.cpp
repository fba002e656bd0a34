// The animation is a pure function of time over the analysis: beats, looping, stepping.
#include <gtest/gtest.h>

#include "bankviz/frame.h"

using namespace bankviz;

namespace {

Analysis lesson(const char* name = "row-write-column-read") {
  ScenarioLoad l =
      load_scenario_file(std::string(BANKVIZ_SOURCE_DIR) + "/assets/presets/" + name + ".json");
  EXPECT_TRUE(l.scenario) << name;
  AnalysisResult r = analyze(*l.scenario);
  EXPECT_TRUE(r.analysis);
  return *r.analysis;
}

int step_of_kind(const Analysis& a, StepKind k) {
  for (size_t i = 0; i < a.steps.size(); ++i)
    if (a.steps[i].kind == k) return static_cast<int>(i);
  return -1;
}

}  // namespace

TEST(Frame, BeatsAreEveryWavefrontOfEveryWarpWithoutSyncs) {
  Analysis a = lesson();
  Playback p;
  // 32 warps store a row (1 wavefront each) then load a column (32 each).
  EXPECT_EQ(beat_count(a, p), a.total_wavefronts());
  EXPECT_EQ(beat_count(a, p), 32 * 1 + 32 * 32);
}

TEST(Frame, TimeZeroIsTheFirstWavefrontOfWarpZero) {
  Analysis a = lesson();
  Frame f = frame_at(a, 0.0, Playback{});
  EXPECT_EQ(f.beat, 0);
  EXPECT_EQ(f.step, 0);
  EXPECT_EQ(f.warp, 0);
  EXPECT_EQ(f.wavefront, 0);
  EXPECT_EQ(f.wavefronts, 1);
}

TEST(Frame, SpeedMapsSecondsToBeats) {
  Analysis a = lesson();
  Playback p;
  p.speed = 4;
  Frame f = frame_at(a, 2.1, p);  // 8.4 beats in: the store of warp 8
  EXPECT_EQ(f.beat, 8);
  EXPECT_EQ(f.warp, 8);
  EXPECT_NEAR(f.phase, 0.4, 1e-9);
}

TEST(Frame, LoopingWrapsPastTheEnd) {
  Analysis a = lesson();
  Playback p;
  double d = duration(a, p);
  EXPECT_EQ(frame_at(a, d + beat_time(3, p), p).beat, 3);
  EXPECT_EQ(frame_at(a, -beat_time(0, p) * 2 + 0.0, p).beat, beat_count(a, p) - 1);
}

TEST(Frame, WithoutLoopItStopsOnTheLastBeat) {
  Analysis a = lesson();
  Playback p;
  p.loop = false;
  Frame f = frame_at(a, duration(a, p) + 10, p);
  EXPECT_TRUE(f.finished);
  EXPECT_EQ(f.beat, beat_count(a, p) - 1);
  EXPECT_EQ(f.warp, 31);
  EXPECT_EQ(f.wavefront, 31);
}

TEST(Frame, StepForwardSkipsTheSync) {
  Analysis a = lesson();
  Playback p;
  double t = step_time(a, 0.0, p, StepUnit::Step, 1);
  Frame f = frame_at(a, t, p);
  EXPECT_EQ(f.step, step_of_kind(a, StepKind::Load));
  EXPECT_EQ(f.warp, 0);
  EXPECT_EQ(f.wavefront, 0);
}

TEST(Frame, WarpStepsMoveToTheNextWarpsFirstWavefront) {
  Analysis a = lesson();
  Playback p;
  int load = step_of_kind(a, StepKind::Load);
  double t = time_of(a, p, load, 3, 17);
  ASSERT_GE(t, 0);
  Frame f = frame_at(a, step_time(a, t, p, StepUnit::Warp, 1), p);
  EXPECT_EQ(f.warp, 4);
  EXPECT_EQ(f.wavefront, 0);
  // Back from inside a warp goes to that warp's start first, then to the previous warp.
  double back = step_time(a, t, p, StepUnit::Warp, -1);
  EXPECT_EQ(frame_at(a, back, p).warp, 3);
  EXPECT_EQ(frame_at(a, back, p).wavefront, 0);
  EXPECT_EQ(frame_at(a, step_time(a, back, p, StepUnit::Warp, -1), p).warp, 2);
}

TEST(Frame, WavefrontStepWrapsWhenLooping) {
  Analysis a = lesson();
  Playback p;
  EXPECT_EQ(frame_at(a, step_time(a, 0.0, p, StepUnit::Wavefront, -1), p).beat,
            beat_count(a, p) - 1);
  p.loop = false;
  EXPECT_EQ(frame_at(a, step_time(a, 0.0, p, StepUnit::Wavefront, -1), p).beat, 0);
}

TEST(Frame, OnlyWarpPlaysOneWarp) {
  Analysis a = lesson();
  Playback p;
  p.only_warp = 5;
  EXPECT_EQ(beat_count(a, p), 1 + 32);
  Frame f = frame_at(a, beat_time(1, p), p);
  EXPECT_EQ(f.warp, 5);
  EXPECT_EQ(f.step, step_of_kind(a, StepKind::Load));
}

TEST(FrameCells, ColumnReadLoadsBankZeroThirtyTwoTimes) {
  Analysis a = lesson();
  Playback p;
  int load = step_of_kind(a, StepKind::Load);
  Frame f = frame_at(a, time_of(a, p, load, 0, 0), p);
  FrameCells c = frame_cells(a, f);
  ASSERT_EQ(c.bank_load.size(), 32u);
  EXPECT_EQ(c.bank_load[0], 32);
  for (int b = 1; b < 32; ++b) EXPECT_EQ(c.bank_load[b], 0) << b;
  EXPECT_EQ(c.wavefronts, 32);
  EXPECT_EQ(c.ideal, 1);
  ASSERT_EQ(c.words.size(), 32u);
  int lit = 0;
  for (const LitWord& w : c.words) {
    EXPECT_TRUE(w.conflict);
    EXPECT_EQ(w.bank, 0);
    lit += w.in_wavefront;
  }
  EXPECT_EQ(lit, 1);  // one word per wavefront: that is the conflict
  EXPECT_NE(c.verdict.find("32"), std::string::npos);
}

TEST(FrameCells, PaddingByOneWordMakesColumnReadConflictFree) {
  Analysis a = lesson("row-write-column-read-padded");
  Playback p;
  int load = step_of_kind(a, StepKind::Load);
  FrameCells c = frame_cells(a, frame_at(a, time_of(a, p, load, 0, 0), p));
  for (int b = 0; b < 32; ++b) EXPECT_EQ(c.bank_load[b], 1) << b;
  for (const LitWord& w : c.words) EXPECT_FALSE(w.conflict);
  int lit = 0;
  for (const LitLane& l : c.lanes) lit += l.in_wavefront;
  EXPECT_EQ(lit, 32);
}

TEST(FrameCells, CopyTheBankRecordOfTheWarpStep) {
  Analysis a = lesson();
  Playback p;
  int load = step_of_kind(a, StepKind::Load);
  FrameCells c = frame_cells(a, frame_at(a, time_of(a, p, load, 2, 5), p));
  const AccessResult& r = a.warps[static_cast<size_t>(load)][2].result;
  EXPECT_EQ(c.conflict_banks, r.conflict_banks);
  EXPECT_EQ(c.conflict_banks, 1u << 2);  // warp 2 reads column 2: bank 2
  EXPECT_TRUE(c.conflicted(2));
  EXPECT_FALSE(c.conflicted(0));
  EXPECT_EQ(c.wavefront_banks, r.detail[5].banks);
  for (size_t b = 0; b < c.bank_load.size(); ++b) EXPECT_EQ(c.bank_load[b], r.bank_passes[b]);
}

TEST(TileGrid, TwoDimensionalTilesIncludeThePaddingColumn) {
  TileDecl t;
  t.dims = {32, 32};
  t.pad = 1;
  TileGrid g = tile_grid(t);
  EXPECT_EQ(g.rows, 32);
  EXPECT_EQ(g.cols, 33);
  EXPECT_EQ(grid_element(t, 1, 0), 33);
  EXPECT_EQ(grid_element(t, 32, 0), -1);
  int64_t r, c;
  grid_cell(t, 34, &r, &c);
  EXPECT_EQ(r, 1);
  EXPECT_EQ(c, 1);
}
