// export_job.h: a GIF or PNG-sequence export that runs while the window keeps drawing.
//
// Rendering needs the OpenGL context, which lives on the UI thread; quantizing, LZW and PNG
// encoding and writing do not. So the work is split:
//
//   UI thread, a few frames per UI frame:  next_beat() -> render offscreen -> submit(pixels)
//   worker thread:                          pixels -> GIF palette/LZW (gif.h) or PNG (capture.h)
//                                           -> at the end one write_file_atomic (io.h)
//
// A GIF is written once, whole, at the end: a cancel or a failure leaves no file. A sequence
// writes its frames as they come (each one atomically) and removes them again when cancelled or
// failed, with the directory when the job created it. Only one job runs at a time; the queue
// between the threads holds a few frames, so memory stays bounded whatever the frame count.
// Nothing here touches OpenGL or ImGui: tests drive it with synthetic frames.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bankviz/analysis.h"
#include "bankviz/frame.h"
#include "bankviz/svg.h"

namespace bankviz::gui {

enum class ExportKind { Gif, Sequence };

// What a GIF or a sequence holds: the current step of the current warp (its wavefronts, the
// default), or the whole animation.
enum class ExportScope { Step, Animation };

// The most frames one export renders (a whole animation of a large block is refused).
inline constexpr int kMaxExportFrames = 2000;

// The slide's size (16:9) unless asked for another: the Export menu's 1280x720, headless --gif
// and --sequence without --size.
inline constexpr int kSlideWidth = 1280, kSlideHeight = 720;

// The largest image an export renders, in pixels (--size times --scale, or the window times the
// export scale): a PNG 8K UHD, 7680x4320 (8192x8192 took 35 s and 1.4 GB under llvmpipe); a frame
// of a GIF or a PNG sequence 4K UHD, 3840x2160, the largest screen or projector it serves.
inline constexpr int64_t kMaxImagePixels = int64_t{7680} * 4320;
inline constexpr int64_t kMaxFramePixels = int64_t{3840} * 2160;
// "" when an image (frames false) or every frame (true) of w x h pixels is within those limits,
// else why, in words: "an image of 8192x8192 pixels is larger than an export may be: at most
// 33177600 pixels (7680x4320)".
std::string export_size_problem(int64_t w, int64_t h, bool frames);

// The beats (frame.h) an export of `scope` renders, in order: for Step the beats of the current
// frame's step and warp, for Animation every beat. Empty with a reason when there is nothing to
// export or more than kMaxExportFrames beats.
std::vector<int> export_beats(const Analysis& a, const Playback& p, const Frame& current,
                              ExportScope scope, std::string* why);

// A GIF frame's delay for this speed (beats per second), in hundredths of a second, shortened
// so that `frames` frames play in at most `most_s` seconds (a step's GIF in kGifStepSeconds, a
// whole animation in kGifAnimationSeconds: a 1056-beat animation at 2 beats a second would
// otherwise play 8.8 minutes); never under 2 (browsers play less as 10).
int gif_delay_cs(double speed, size_t frames = 0, double most_s = 0);
inline constexpr double kGifStepSeconds = 10;
inline constexpr double kGifAnimationSeconds = 60;

// "frame-0001.png": the name of a sequence's frame i (from 0).
std::string sequence_frame_name(int i);

struct ExportRequest {
  ExportKind kind = ExportKind::Gif;
  std::string path;        // the GIF file, or the sequence's directory
  std::vector<int> beats;  // one frame per beat, in order
  Playback playback;       // the timing the beats were counted with
  int width = 0, height = 0;
  int delay_cs = 50;  // GIF: each frame's delay
  bool loop = true;   // GIF: repeat
  bool force = false;
  std::vector<Rgba> palette_seed;  // GIF: the theme's colours (gif.h)
  int version = 0;                 // the analysis the frames show (AppState::version)
  // How the UI renders the frames (the job itself only encodes them): the views-only 16:9
  // slide or the window's layout, in the light or the dark theme.
  bool slide = true;
  bool light = true;
};

struct ExportResult {
  bool ok = false;
  bool cancelled = false;
  std::string path;    // as requested
  std::string error;   // when not ok
  uint64_t bytes = 0;  // what was written (all frames for a sequence)
  int frames = 0;
  double seconds = 0;  // from start to the file written
};

struct ExportProgress {
  int rendered = 0, encoded = 0, total = 0;
  double seconds = 0;
};

class ExportJob {
 public:
  ExportJob() = default;
  ExportJob(const ExportJob&) = delete;
  ExportJob& operator=(const ExportJob&) = delete;
  ~ExportJob();  // cancels a running job and waits for its worker

  // Checks the target (and, for a sequence, every frame's name) before anything is rendered, then
  // starts the worker. False with the reason: another export is running, no frames, an existing
  // file without force, a directory that cannot be created.
  bool start(ExportRequest r, std::string* error);
  // True from start() until its result was taken.
  bool active() const { return active_; }
  const ExportRequest& request() const { return req_; }
  // UI thread: the beat to render next, or -1 when every frame was handed over, the job was
  // cancelled, or the worker is a few frames behind (render later).
  int next_beat() const;
  // UI thread: the pixels (width * height * 4, RGBA, top row first) of next_beat()'s frame.
  void submit(std::vector<uint8_t> rgba);
  // Stops the job; whatever it wrote is removed. The result says cancelled (and why, if given).
  void cancel(const std::string& why = "");
  ExportProgress progress() const;
  // The outcome once the worker is done (once; the job is then free for the next export).
  std::optional<ExportResult> take_result();
  // Waits up to `seconds` for the worker to finish; true when it has.
  bool wait(double seconds);
  // UI thread: waits up to `seconds` until the worker has room for another frame (once every
  // frame was handed over: until it is done), or the job was cancelled; true when so. Headless
  // exports render the next frame then, not after a fixed sleep.
  bool wait_for_room(double seconds);

 private:
  void work();
  bool cancelled() const;

  ExportRequest req_;
  bool active_ = false;
  int rendered_ = 0;  // UI side: frames submitted
  std::thread worker_;
  mutable std::mutex m_;
  std::condition_variable cv_;     // a frame arrived, or cancel
  std::condition_variable space_;  // a frame was taken from the queue, or the worker is done
  std::deque<std::vector<uint8_t>> queue_;
  bool cancel_ = false;
  std::string cancel_why_;
  bool done_ = false;
  int encoded_ = 0;
  ExportResult result_;
  double started_ = 0;  // steady clock seconds
  double finished_ = 0;
  bool created_dir_ = false;
};

}  // namespace bankviz::gui
