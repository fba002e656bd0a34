// The export job (export_job.h): frames handed over one at a time, encoded on a worker, written
// once at the end; cancel and failures leave nothing behind; one export at a time.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "../test_support.h"
#include "export/export_job.h"
#include "export/gif.h"
#include "gif_decode.h"
#include "stb_image.h"

using bankviz::test::preset_analysis;

using namespace bankviz;
using namespace bankviz::gui;
namespace fs = std::filesystem;

namespace {

// A scratch directory of its own per test, removed after.
struct Scratch {
  fs::path path;
  explicit Scratch(const char* name) : path(fs::path(::testing::TempDir()) / name) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Scratch() { fs::remove_all(path); }
};

constexpr int kW = 24, kH = 16;

// Frame i: the bar lit at column i, so that every frame differs from the one before (one colour:
// the GIF palette is taken from the first frame).
std::vector<uint8_t> pixels(int i) {
  std::vector<uint8_t> px(static_cast<size_t>(kW) * kH * 4, 30);
  for (int y = 0; y < kH; ++y)
    for (int x = i % kW; x < i % kW + 2 && x < kW; ++x) {
      uint8_t* p = &px[(static_cast<size_t>(y) * kW + x) * 4];
      p[0] = 250;
      p[1] = 20;
      p[2] = 10;
    }
  return px;
}

ExportRequest request(ExportKind kind, const std::string& path, int frames) {
  ExportRequest r;
  r.kind = kind;
  r.path = path;
  for (int i = 0; i < frames; ++i) r.beats.push_back(i);
  r.width = kW;
  r.height = kH;
  r.delay_cs = 25;
  r.palette_seed = palette_seed(dark_palette());
  return r;
}

// Plays the UI thread's part: renders (here: makes up) each frame the job asks for, until `stop`
// frames were handed over or the job wants no more.
int feed(ExportJob& job, int stop) {
  int given = 0;
  for (int spins = 0; given < stop && spins < 100000; ++spins) {
    const int beat = job.next_beat();
    if (beat < 0) {
      if (job.progress().rendered == job.progress().total) break;
      std::this_thread::yield();  // the worker is behind: the UI would draw a frame meanwhile
      continue;
    }
    job.submit(pixels(beat));
    ++given;
  }
  return given;
}

std::vector<uint8_t> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

TEST(ExportBeats, StepScopeIsTheCurrentWarpsWavefrontsOfTheCurrentStep) {
  const Analysis a = preset_analysis("row-write-column-read");
  Playback p;
  // Find the column read: the step whose warp 3 needs the most wavefronts.
  int step = -1, most = 0;
  for (size_t st = 0; st < a.warps.size(); ++st)
    if (a.warps[st].size() > 3 && a.warps[st][3].result.wavefronts > most) {
      most = a.warps[st][3].result.wavefronts;
      step = static_cast<int>(st);
    }
  ASSERT_GT(most, 1);
  // Anywhere inside that warp step (its second wavefront here) the export is the whole step.
  const Frame f = frame_at(a, time_of(a, p, step, 3, 1), p);
  ASSERT_EQ(f.step, step);
  std::string why;
  const std::vector<int> beats = export_beats(a, p, f, ExportScope::Step, &why);
  ASSERT_EQ(static_cast<int>(beats.size()), most) << why;
  for (size_t i = 0; i < beats.size(); ++i) {
    const Frame at = frame_at(a, beat_time(beats[i], p), p);
    EXPECT_EQ(at.step, step);
    EXPECT_EQ(at.warp, 3);
    EXPECT_EQ(at.wavefront, static_cast<int>(i));
  }
  // The whole animation: every beat, far more than one step.
  const std::vector<int> all = export_beats(a, p, f, ExportScope::Animation, &why);
  EXPECT_EQ(static_cast<int>(all.size()), beat_count(a, p));
  EXPECT_GT(all.size(), beats.size());
}

TEST(ExportBeats, AWholeAnimationPastTheLimitIsRefusedWithTheStepStillExportable) {
  // The column read twice more: 1056 + 2 x 1024 beats, past kMaxExportFrames.
  ScenarioLoad l = load_scenario_file(std::string(BANKVIZ_SOURCE_DIR) +
                                      "/assets/presets/row-write-column-read.json");
  ASSERT_TRUE(l.scenario);
  Scenario sc = *l.scenario;
  const Step load = sc.steps.back();
  sc.steps.push_back(load);
  sc.steps.push_back(load);
  AnalysisResult r = analyze(sc);
  ASSERT_TRUE(r.analysis);
  const Analysis& a = *r.analysis;
  Playback p;
  ASSERT_GT(beat_count(a, p), kMaxExportFrames);
  const Frame f = frame_at(a, beat_time(0, p), p);
  std::string why;
  EXPECT_TRUE(export_beats(a, p, f, ExportScope::Animation, &why).empty());
  EXPECT_NE(why.find(std::to_string(beat_count(a, p)) + " beats"), std::string::npos) << why;
  EXPECT_FALSE(export_beats(a, p, f, ExportScope::Step, &why).empty());
}

// Issue 31: a step's GIF plays in at most 10 s, a whole animation in at most 60 s.
TEST(ExportBeats, AGifStepPlaysInTenSecondsAndAWholeAnimationInAMinute) {
  EXPECT_EQ(gif_delay_cs(2.0), 50);                      // the speed alone: half a second a beat
  EXPECT_EQ(gif_delay_cs(2.0, 8, kGifStepSeconds), 50);  // 4 s: as played
  EXPECT_LE(gif_delay_cs(2.0, 32, kGifStepSeconds) * 32, 1000);
  EXPECT_GT(gif_delay_cs(2.0, 32, kGifStepSeconds) * 32, 900);  // no shorter than needed
  EXPECT_LE(gif_delay_cs(2.0, 1056, kGifAnimationSeconds) * 1056, 6000);
  EXPECT_LE(gif_delay_cs(0.1, kMaxExportFrames, kGifAnimationSeconds) * kMaxExportFrames, 6000);
  EXPECT_EQ(gif_delay_cs(60.0, 4000, kGifAnimationSeconds), 2);  // never under 2 (browsers)
  EXPECT_EQ(gif_delay_cs(0.0), 100);
}

TEST(ExportBeats, NoCurrentStepIsAReasonNotAnEmptyFile) {
  const Analysis a = preset_analysis("row-write-column-read");
  std::string why;
  EXPECT_TRUE(export_beats(a, Playback{}, Frame{}, ExportScope::Step, &why).empty());
  EXPECT_NE(why.find("no current step"), std::string::npos) << why;
}

TEST(ExportJob, GifHoldsOneFramePerBeatHandedOverIncrementally) {
  const Scratch dir("export-gif");
  const fs::path gif = dir.path / "out.gif";
  ExportJob job;
  std::string err;
  ASSERT_TRUE(job.start(request(ExportKind::Gif, gif.string(), 7), &err)) << err;
  EXPECT_TRUE(job.active());
  EXPECT_EQ(feed(job, 7), 7);
  EXPECT_EQ(job.next_beat(), -1);  // every frame handed over
  ASSERT_TRUE(job.wait(30));
  std::optional<ExportResult> r = job.take_result();
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->ok) << r->error;
  EXPECT_EQ(r->frames, 7);
  EXPECT_FALSE(job.active());
  const std::vector<uint8_t> bytes = read_bytes(gif);
  EXPECT_EQ(r->bytes, bytes.size());
  test::Decoded d = test::decode_gif(bytes);
  ASSERT_TRUE(d.ok) << d.error;
  EXPECT_EQ(d.width, kW);
  EXPECT_EQ(d.height, kH);
  ASSERT_EQ(d.frames.size(), 7u);
  EXPECT_EQ(d.delays.front(), 25);
  // Frame 5 is the pixels handed over fifth: its lit bar in the right place.
  const Rgba lit = d.frames[5][static_cast<size_t>(3) * kW + 5];
  EXPECT_EQ(lit.r, 250);
  EXPECT_EQ(d.frames[5][static_cast<size_t>(3) * kW + 0].r, 30);
}

TEST(ExportJob, WaitForRoomWakesWhenTheWorkerTakesAFrameAndWhenItIsDone) {
  // The headless loop waits here instead of sleeping: each wake must mean a frame can be handed
  // over (or the job is over), never a spin.
  const Scratch dir("export-room");
  const fs::path gif = dir.path / "out.gif";
  ExportJob job;
  std::string err;
  ASSERT_TRUE(job.start(request(ExportKind::Gif, gif.string(), 40), &err)) << err;
  int given = 0;
  while (given < 40) {
    if (job.next_beat() < 0) {
      ASSERT_TRUE(job.wait_for_room(30)) << given;
      ASSERT_GE(job.next_beat(), 0) << given;  // woken with room: a frame is asked for
      continue;
    }
    job.submit(pixels(given++));
  }
  EXPECT_EQ(job.next_beat(), -1);
  // Every frame handed over: it returns once the worker is done, with the file written.
  ASSERT_TRUE(job.wait_for_room(30));
  std::optional<ExportResult> r = job.take_result();
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->ok) << r->error;
  EXPECT_EQ(r->frames, 40);
}

TEST(ExportJob, CancelLeavesNoFile) {
  const Scratch dir("export-cancel");
  const fs::path gif = dir.path / "out.gif";
  ExportJob job;
  std::string err;
  ASSERT_TRUE(job.start(request(ExportKind::Gif, gif.string(), 50), &err)) << err;
  EXPECT_EQ(feed(job, 3), 3);
  job.cancel("the scenario changed");
  EXPECT_EQ(job.next_beat(), -1);  // no more frames are asked for
  ASSERT_TRUE(job.wait(30));
  std::optional<ExportResult> r = job.take_result();
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->ok);
  EXPECT_TRUE(r->cancelled);
  EXPECT_NE(r->error.find("the scenario changed"), std::string::npos) << r->error;
  EXPECT_FALSE(fs::exists(gif));
  EXPECT_TRUE(fs::is_empty(dir.path));  // no temporary file either
}

TEST(ExportJob, CancelledSequenceRemovesItsFramesAndTheDirectoryItMade) {
  const Scratch dir("export-seq-cancel");
  const fs::path out = dir.path / "frames";
  ExportJob job;
  std::string err;
  ASSERT_TRUE(job.start(request(ExportKind::Sequence, out.string(), 20), &err)) << err;
  EXPECT_EQ(feed(job, 4), 4);
  // Let the worker write what it was given, so that there is something to remove.
  for (int i = 0; i < 2000 && job.progress().encoded < 4; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(job.progress().encoded, 4);
  job.cancel();
  ASSERT_TRUE(job.wait(30));
  std::optional<ExportResult> r = job.take_result();
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->cancelled);
  EXPECT_FALSE(fs::exists(out));
}

TEST(ExportJob, SequenceWritesOnePngPerFrameEachItsOwnPixels) {
  // The frames queued together are encoded side by side (export_job.cpp): each file must still
  // hold its own frame, in order.
  const Scratch dir("export-seq");
  const fs::path out = dir.path / "frames";
  const int frames = 12;
  ExportJob job;
  std::string err;
  ASSERT_TRUE(job.start(request(ExportKind::Sequence, out.string(), frames), &err)) << err;
  feed(job, frames);
  ASSERT_TRUE(job.wait(30));
  std::optional<ExportResult> r = job.take_result();
  ASSERT_TRUE(r && r->ok) << (r ? r->error : "no result");
  EXPECT_EQ(r->frames, frames);
  for (int i = 0; i < frames; ++i) {
    const std::vector<uint8_t> png = read_bytes(out / sequence_frame_name(i));
    ASSERT_GT(png.size(), 8u) << i;
    int w = 0, h = 0, n = 0;
    uint8_t* px = stbi_load_from_memory(png.data(), static_cast<int>(png.size()), &w, &h, &n, 4);
    ASSERT_NE(px, nullptr) << i;
    const std::vector<uint8_t> want = pixels(i);
    EXPECT_TRUE(w == kW && h == kH && std::equal(want.begin(), want.end(), px)) << "frame " << i;
    stbi_image_free(px);
  }
  EXPECT_FALSE(fs::exists(out / sequence_frame_name(frames)));
}

TEST(ExportJob, ExistingFileIsNotReplacedWithoutForce) {
  const Scratch dir("export-exists");
  const fs::path gif = dir.path / "keep.gif";
  std::ofstream(gif) << "keep";
  ExportJob job;
  std::string err;
  EXPECT_FALSE(job.start(request(ExportKind::Gif, gif.string(), 2), &err));
  EXPECT_NE(err.find("exists"), std::string::npos) << err;
  EXPECT_FALSE(job.active());
  std::ifstream in(gif);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "keep");
  // With force it is replaced, whole.
  ExportRequest r = request(ExportKind::Gif, gif.string(), 2);
  r.force = true;
  ASSERT_TRUE(job.start(r, &err)) << err;
  feed(job, 2);
  ASSERT_TRUE(job.wait(30));
  ASSERT_TRUE(job.take_result()->ok);
  EXPECT_TRUE(test::decode_gif(read_bytes(gif)).ok);
}

TEST(ExportJob, OnlyOneExportAtATime) {
  const Scratch dir("export-one");
  ExportJob job;
  std::string err;
  ASSERT_TRUE(job.start(request(ExportKind::Gif, (dir.path / "a.gif").string(), 3), &err)) << err;
  EXPECT_FALSE(job.start(request(ExportKind::Gif, (dir.path / "b.gif").string(), 3), &err));
  EXPECT_NE(err.find("already running"), std::string::npos) << err;
  feed(job, 3);
  ASSERT_TRUE(job.wait(30));
  ASSERT_TRUE(job.take_result()->ok);
  EXPECT_FALSE(fs::exists(dir.path / "b.gif"));
  // Once its result was taken, the next export may start.
  EXPECT_TRUE(job.start(request(ExportKind::Gif, (dir.path / "b.gif").string(), 1), &err)) << err;
  feed(job, 1);
  ASSERT_TRUE(job.wait(30));
  EXPECT_TRUE(job.take_result()->ok);
}
