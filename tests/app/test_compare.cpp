// The app's before/after, sweep and experiments state (compare.h), without a window: B follows
// A's playhead, B's choices come from the presets and core's apply_sweep_value, the sweep window's
// points are core's sweep(), and "Measure both" says why not without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "../test_support.h"
#include "bankviz/compare.h"
#include "bankviz/lesson.h"
#include "compare/compare.h"
#include "shell/app_state.h"

using bankviz::test::preset_analysis;

using namespace bankviz;
using namespace bankviz::gui;

namespace {

const std::string kPresets = std::string(BANKVIZ_SOURCE_DIR) + "/assets/presets";

// An app state on preset `name` (analyzed), with the presets listed.
void open_preset(AppState& s, const std::string& name) {
  load_presets(s, kPresets);
  std::string err;
  ASSERT_TRUE(select_preset(s, name, &err)) << err;
  ASSERT_TRUE(s.analysis);
}

}  // namespace

TEST(FollowPlayhead, BTakesTheLeadsStepWarpAndWavefrontWhereItHasThem) {
  const Analysis a = preset_analysis("row-write-column-read"),
                 b = preset_analysis("row-write-column-read-dynamic");
  Playback p;
  const Frame lead = frame_at(a, time_of(a, p, 2, 3, 5), p);  // the 32-way load, warp 3, wf 5
  ASSERT_EQ(lead.wavefront, 5);
  const Frame f = follow_playhead(b, lead, p);  // the same accesses: the same beat exists
  EXPECT_EQ(f.step, 2);
  EXPECT_EQ(f.warp, 3);
  EXPECT_EQ(f.wavefront, 5);
}

TEST(FollowPlayhead, AWavefrontBDoesNotHaveFallsBackToTheSameStepAndWarp) {
  const Analysis a = preset_analysis("row-write-column-read"),
                 b = preset_analysis("row-write-column-read-padded");
  Playback p;
  const Frame lead = frame_at(a, time_of(a, p, 2, 3, 5), p);
  const Frame f = follow_playhead(b, lead, p);  // padded: one wavefront, so wavefront 5 is gone
  EXPECT_EQ(f.step, 2);
  EXPECT_EQ(f.warp, 3);
  EXPECT_EQ(f.wavefront, 0);
}

TEST(FollowPlayhead, AStepBDoesNotHaveFallsBackToBsWorstStep) {
  const Analysis a = preset_analysis("row-write-column-read"),
                 b = preset_analysis("row-write-column-read");
  Playback p;
  Frame lead = frame_at(a, time_of(a, p, 2, 0, 0), p);
  lead.step = 1000;  // no such step in B
  const Frame f = follow_playhead(b, lead, p);
  EXPECT_EQ(f.step, b.worst_step());
}

TEST(Compare, ChoicesOfferThePaddedPartnerPresetAndOneChangeVariants) {
  AppState s;
  open_preset(s, "row-write-column-read");
  const std::vector<CompareChoice> c =
      compare_choices(s.preset, s.presets, s.analysis ? &*s.analysis : nullptr);
  auto has = [&](const std::string& label) {
    return std::any_of(c.begin(), c.end(),
                       [&](const CompareChoice& x) { return x.label == label; });
  };
  EXPECT_TRUE(has("row-write-column-read-padded"));
  EXPECT_TRUE(has("this scenario, padding +1"));
  EXPECT_TRUE(has("this scenario as float2"));
  EXPECT_FALSE(has("row-write-row-read"));  // not a variant of this preset's name
  // From a variant: what it varies, and its siblings.
  open_preset(s, "transpose-padded");
  const std::vector<CompareChoice> t =
      compare_choices(s.preset, s.presets, s.analysis ? &*s.analysis : nullptr);
  auto in_t = [&](const std::string& label) {
    return std::any_of(t.begin(), t.end(),
                       [&](const CompareChoice& x) { return x.label == label; });
  };
  EXPECT_TRUE(in_t("transpose-naive"));
  EXPECT_TRUE(in_t("transpose-swizzled"));
  EXPECT_FALSE(in_t("transpose-padded"));  // not itself
  open_preset(s, "row-write-column-read-padded");
  const std::vector<CompareChoice> r =
      compare_choices(s.preset, s.presets, s.analysis ? &*s.analysis : nullptr);
  EXPECT_TRUE(std::any_of(r.begin(), r.end(), [](const CompareChoice& x) {
    return x.preset == "row-write-column-read";
  }));
}

TEST(Compare, PaddingPlusOneOpensBOnTheLeadsPlayheadWithCoresFigures) {
  AppState s;
  open_preset(s, "row-write-column-read");
  ASSERT_TRUE(seek(s, 2, 0, 0));
  update_frame(s, 0);
  const std::vector<CompareChoice> choices =
      compare_choices(s.preset, s.presets, s.analysis ? &*s.analysis : nullptr);
  auto it = std::find_if(choices.begin(), choices.end(),
                         [](const CompareChoice& c) { return c.param == "pad"; });
  ASSERT_NE(it, choices.end());
  std::string err;
  ASSERT_TRUE(open_compare(s, *it, &err)) << err;
  ASSERT_TRUE(s.compare.open);
  ASSERT_TRUE(s.compare.b_analysis);
  EXPECT_EQ(s.compare.b.tiles[0].pad, 1);
  EXPECT_EQ(s.compare.b_frame.step, 2);
  // B's figures are core's analysis of core's apply_sweep_value, not the app's own.
  const ScenarioLoad direct = apply_sweep_value(s.analysis->scenario, "pad", "1");
  ASSERT_TRUE(direct.scenario);
  const Comparison c = compare(*s.analysis, *analyze(*direct.scenario).analysis);
  EXPECT_EQ(summarize(*s.compare.b_analysis).total_wavefronts, c.b.total_wavefronts);
  EXPECT_LT(c.per_request_ratio, 1);
  // A moves; B follows on the next frame.
  ASSERT_TRUE(seek(s, 0, 4, 0));
  update_frame(s, 0);
  update_compare(s);
  EXPECT_EQ(s.compare.b_frame.step, 0);
  EXPECT_EQ(s.compare.b_frame.warp, 4);
  close_compare(s);
  EXPECT_FALSE(s.compare.open);
}

TEST(Compare, AChoiceThatMakesTheScenarioInvalidIsRefusedWithTheReason) {
  AppState s;
  open_preset(s, "row-write-column-read");
  std::string err;
  EXPECT_FALSE(open_compare(s, CompareChoice{"bad", "", "elem", "quaternion"}, &err));
  EXPECT_FALSE(err.empty());
  EXPECT_FALSE(s.compare.open);
  EXPECT_FALSE(open_compare(s, CompareChoice{"x", "no-such-preset", "", ""}, &err));
  EXPECT_NE(err.find("no-such-preset"), std::string::npos);
}

TEST(Compare, MeasureBothWithoutAGpuSaysWhy) {
  AppState s;  // the Measurer starts unavailable: no runner, as without a GPU
  open_preset(s, "row-write-column-read");
  std::string err;
  ASSERT_TRUE(open_compare(s, CompareChoice{"p", "row-write-column-read-padded", "", ""}, &err));
  std::string why;
  EXPECT_FALSE(measure_both(s, &why));
  EXPECT_NE(why.find("no CUDA device"), std::string::npos) << why;
  EXPECT_EQ(s.compare.measuring, CompareState::Measuring::Idle);
}

TEST(Compare, SetupFromTheCommandLineRefusesAnUnknownPresetAsAUsageError) {
  AppState s;
  load_presets(s, kPresets);
  std::string err;
  EXPECT_EQ(setup_compare(s, "row-write-column-read", "no-such-preset", &err), 2);
  EXPECT_NE(err.find("--compare: no preset named 'no-such-preset'; presets: "), std::string::npos)
      << err;
  EXPECT_EQ(setup_compare(s, "nope", "row-write-column-read", &err), 2);
  EXPECT_EQ(setup_compare(s, "/nonexistent/a.json", "row-write-column-read", &err), 1);
  EXPECT_EQ(setup_compare(s, "row-write-column-read", "row-write-column-read-padded", &err), 0)
      << err;
  EXPECT_EQ(s.frame.step, opening_step(*s.analysis));  // A opens on the step it is about
  EXPECT_EQ(s.compare.b_frame.step, s.frame.step);
}

TEST(SweepWindow, PointsAreCoresSweepOfTheScenario) {
  AppState s;
  open_preset(s, "row-write-column-read-padded");
  std::string err;
  ASSERT_TRUE(open_sweep(s, "pad=0..4", &err)) << err;
  EXPECT_TRUE(s.sweep.open);
  const SweepParse p = parse_sweep("pad=0..4");
  ASSERT_TRUE(p.spec);
  const std::vector<SweepPoint> core = sweep(s.analysis->scenario, *p.spec);
  ASSERT_EQ(s.sweep.points.size(), core.size());
  for (size_t i = 0; i < core.size(); ++i) {
    EXPECT_EQ(s.sweep.points[i].value, core[i].value);
    ASSERT_EQ(s.sweep.points[i].summary.has_value(), core[i].summary.has_value());
    if (core[i].summary) {
      EXPECT_EQ(s.sweep.points[i].summary->worst_per_request, core[i].summary->worst_per_request);
    }
  }
  // pad 0 is the 32-way column read; pad 1 spreads it over the banks.
  EXPECT_GT(s.sweep.points[0].summary->worst_per_request,
            s.sweep.points[1].summary->worst_per_request);
}

TEST(SweepWindow, ABadRangeIsRefusedWithParseSweepsMessage) {
  AppState s;
  open_preset(s, "row-write-column-read");
  std::string err;
  EXPECT_FALSE(open_sweep(s, "pad=9..1", &err));
  EXPECT_NE(err.find(parse_sweep("pad=9..1").error), std::string::npos) << err;
  EXPECT_FALSE(open_sweep(s, "depth=1..2", &err));
  std::string why;
  EXPECT_FALSE(start_sweep_measure(s, &why));  // no points to measure
}

TEST(ExperimentsWindow, ARunWithoutAGpuEndsWithItsReason) {
  AppState s;
  ASSERT_FALSE(experiments().empty());
  std::string why;
  ASSERT_TRUE(start_experiment(s.experiments, 0, &why)) << why;
  EXPECT_FALSE(start_experiment(s.experiments, 0, &why));  // one at a time
  for (int i = 0; i < 600 && s.experiments.running >= 0; ++i) {
    update_experiments(s.experiments);
    if (s.experiments.running >= 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(s.experiments.running, -1);
  ASSERT_TRUE(s.experiments.results[0]);
  // On a GPU host it ran; elsewhere it says why not.
  if (s.experiments.results[0]->status != RunStatus::Ok) {
    EXPECT_FALSE(s.experiments.results[0]->message.empty());
  }
}

namespace {

// A stand-in for the GPU: "measures" 10 + the first tile's padding cycles per instruction, after
// a short wait, so that the order of requests shows in the figures.
Measurement fake_gpu(const Scenario& sc) {
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  Measurement m;
  m.ok = true;
  m.device = "fake";
  m.cycles_per_instruction = 10.0 + static_cast<double>(sc.tiles[0].pad);
  m.predicted = 1;
  return m;
}

template <typename Done>
void pump(AppState& s, Done done) {
  for (int i = 0; i < 2000 && !done(); ++i) {
    s.measure.measurer.wait(1);
    update_compare(s);
    update_sweep(s);
  }
}

}  // namespace

TEST(Compare, MeasureBothMeasuresAThenBThenShowsAAgain) {
  AppState s;
  open_preset(s, "row-write-column-read");
  s.measure.measurer.set_runner(fake_gpu);
  std::string err;
  ASSERT_TRUE(open_compare(s, CompareChoice{"p", "", "pad", "1"}, &err)) << err;
  std::string why;
  ASSERT_TRUE(measure_both(s, &why)) << why;
  pump(s, [&] { return s.compare.measuring == CompareState::Measuring::Idle; });
  ASSERT_TRUE(s.compare.measured_a);
  ASSERT_TRUE(s.compare.measured_b);
  EXPECT_EQ(s.compare.measured_a->cycles_per_instruction, 10);  // A: pad 0
  EXPECT_EQ(s.compare.measured_b->cycles_per_instruction, 11);  // B: pad 1
  s.measure.measurer.wait(10);
  ASSERT_TRUE(s.measure.measurer.last());
  EXPECT_EQ(s.measure.measurer.last()->cycles_per_instruction, 10);  // the panel shows A again
  // The slide carries the measured figures.
  const std::string svg = compare_slide_svg(s, true);
  EXPECT_NE(svg.find("10.00 cycles/instr on fake"), std::string::npos);
  EXPECT_NE(svg.find("11.00 cycles/instr on fake"), std::string::npos);
}

TEST(SweepWindow, MeasureRunsEveryValidValueInOrderAndCanBeCancelled) {
  AppState s;
  open_preset(s, "row-write-column-read");
  s.measure.measurer.set_runner(fake_gpu);
  std::string err;
  ASSERT_TRUE(open_sweep(s, "pad=0..3", &err)) << err;
  std::string why;
  ASSERT_TRUE(start_sweep_measure(s, &why)) << why;
  pump(s, [&] { return !s.sweep.measuring; });
  ASSERT_EQ(s.sweep.cycles.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    ASSERT_TRUE(s.sweep.cycles[i]) << i;
    EXPECT_EQ(*s.sweep.cycles[i], 10.0 + static_cast<double>(i));
  }
  // Cancelled after the first value: the rest stay unmeasured.
  ASSERT_TRUE(start_sweep_measure(s, &why)) << why;
  cancel_sweep_measure(s.sweep);
  pump(s, [&] { return s.measure.measurer.state() != Measurer::State::Running; });
  EXPECT_FALSE(s.sweep.measuring);
  EXPECT_FALSE(s.sweep.cycles[3]);
  EXPECT_EQ(s.sweep.measure_note, "cancelled");
}

TEST(Compare, EveryNewBGetsANewVersionSoNoViewReusesTheOldBsCells) {
  AppState s;
  open_preset(s, "row-write-column-read");
  std::string err;
  ASSERT_TRUE(open_compare(s, CompareChoice{"p", "", "pad", "1"}, &err)) << err;
  const int first = s.compare.b_version;
  close_compare(s);
  ASSERT_TRUE(open_compare(s, CompareChoice{"f2", "", "elem", "float2"}, &err)) << err;
  EXPECT_NE(s.compare.b_version, first);
}

TEST(SweepWindow, AnEditSweepsTheEditedScenarioAgain) {
  AppState s;
  open_preset(s, "row-write-column-read");
  std::string err;
  ASSERT_TRUE(open_sweep(s, "rows=16..17", &err)) << err;
  ASSERT_EQ(s.sweep.points.size(), 2u);
  ASSERT_TRUE(s.sweep.points[0].summary);
  const double before = s.sweep.points[0].summary->worst_per_request;
  Scenario padded = s.analysis->scenario;
  padded.tiles[0].pad = 1;  // the column read becomes conflict-free at every row count
  set_draft(s, padded);
  update_sweep(s);
  ASSERT_EQ(s.sweep.base.tiles[0].pad, 1);
  ASSERT_TRUE(s.sweep.points[0].summary);
  EXPECT_LT(s.sweep.points[0].summary->worst_per_request, before);
}

TEST(SweepAxis, Log2SpacesEachDoublingEvenlyFromOneToThePowerOfTwoAbove) {
  const Log2Axis a = log2_axis(1, 32);
  EXPECT_EQ(a.bottom, 1);
  EXPECT_EQ(a.top, 32);
  EXPECT_EQ(a.ticks, (std::vector<double>{1, 2, 4, 8, 16, 32}));
  // 1, 2, 4, ... 32 evenly spaced: each a fifth of the height above the one before.
  for (size_t i = 0; i < a.ticks.size(); ++i)
    EXPECT_NEAR(a.fraction(a.ticks[i]), static_cast<double>(i) / 5, 1e-12) << a.ticks[i];
  EXPECT_NEAR(a.fraction(std::sqrt(2.0)), 0.1, 1e-12);  // between ticks: log2 too
  EXPECT_EQ(a.fraction(0), 0);                          // a value below the axis sits on it
  EXPECT_EQ(a.fraction(64), 1);
  EXPECT_EQ(log2_axis(1, 33).top, 64);  // up to the next power of two
  EXPECT_EQ(log2_axis(1, 2.5).ticks, (std::vector<double>{1, 2, 4}));
  const Log2Axis flat = log2_axis(1, 1);  // every value conflict-free: still an axis
  EXPECT_EQ(flat.ticks, (std::vector<double>{1, 2}));
  // The measured axis: from the power of two below the fastest to the one above the slowest.
  const Log2Axis cycles = log2_axis(2.2, 40.1);
  EXPECT_EQ(cycles.bottom, 2);
  EXPECT_EQ(cycles.top, 64);
  EXPECT_EQ(log2_axis(0.3, 0.9).ticks, (std::vector<double>{0.25, 0.5, 1}));
  EXPECT_EQ(log2_tick_label(32), "32");
  EXPECT_EQ(log2_tick_label(0.5), "0.5");
  // Nonsense in, an axis out (no NaN positions, no endless ticks).
  const Log2Axis odd = log2_axis(std::nan(""), 1e300);
  EXPECT_LE(odd.ticks.size(), 32u);
  EXPECT_EQ(odd.fraction(std::nan("")), 0);
}
