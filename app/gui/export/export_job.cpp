// export_job.cpp: the export worker (see export_job.h).
#include "export/export_job.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <future>

#include "bankviz/io.h"
#include "export/gif.h"
#include "jobs/analyzer.h"
#include "platform/capture.h"

namespace bankviz::gui {

namespace fs = std::filesystem;

namespace {

constexpr size_t kQueuedFrames = 3;  // frames between the threads (a 1080p frame is 8 MB)

// A sequence's frames encoded at once, each on a thread of its own (PNG encoding is most of a
// sequence's time: BENCHMARKS.md, "PNG through libpng"): what the queue holds when the worker
// looks, at most the queue's bound and the machine's cores. One in the browser, whose threads
// come from a fixed pool.
size_t sequence_encoders() {
#ifdef __EMSCRIPTEN__
  return 1;
#else
  return std::clamp<size_t>(std::thread::hardware_concurrency(), 1, kQueuedFrames);
#endif
}

// The frames' PNGs, encoded side by side; an empty one where the encoder failed.
std::vector<std::string> encode_pngs(const std::vector<std::vector<uint8_t>>& frames, int width,
                                     int height) {
  std::vector<std::future<std::string>> jobs;
  for (size_t k = 1; k < frames.size(); ++k)
    jobs.push_back(std::async(std::launch::async, [&frames, k, width, height] {
      return png_bytes(width, height, frames[k]);
    }));
  std::vector<std::string> out;
  out.push_back(png_bytes(width, height, frames[0]));
  for (auto& j : jobs) out.push_back(j.get());
  return out;
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

std::vector<int> export_beats(const Analysis& a, const Playback& p, const Frame& current,
                              ExportScope scope, std::string* why) {
  const int beats = beat_count(a, p);
  if (beats == 0) {
    *why = "nothing to animate: no step of this scenario touches shared memory";
    return {};
  }
  std::vector<int> out;
  if (scope == ExportScope::Animation) {
    if (beats > kMaxExportFrames) {
      *why = "the animation has " + std::to_string(beats) + " beats; an export is limited to " +
             std::to_string(kMaxExportFrames) + " (export the current step, or a smaller block)";
      return {};
    }
    for (int b = 0; b < beats; ++b) out.push_back(b);
    return out;
  }
  if (current.step < 0 || current.warp < 0) {
    *why = "no current step: pick a step that touches shared memory";
    return {};
  }
  // The step's first beat: frame.h places the beats of (step, warp) one after another.
  const double t = time_of(a, p, current.step, current.warp, 0);
  const Frame first = t >= 0 ? frame_at(a, t, p) : Frame{};
  if (first.beat < 0) {
    *why = "the current step has no wavefront to show";
    return {};
  }
  for (int w = 0; w < first.wavefronts && first.beat + w < beats; ++w)
    out.push_back(first.beat + w);
  return out;
}

std::string export_size_problem(int64_t w, int64_t h, bool frames) {
  const int64_t most = frames ? kMaxFramePixels : kMaxImagePixels;
  if (w > 0 && h > 0 && w <= most && h <= most / w) return {};
  return std::string(frames ? "frames of " : "an image of ") + std::to_string(w) + "x" +
         std::to_string(h) + " pixels " + (frames ? "are" : "is") +
         " larger than an export may be: at most " + std::to_string(most) + " pixels (" +
         (frames ? "3840x2160" : "7680x4320") + (frames ? " a frame)" : ")");
}

int gif_delay_cs(double speed, size_t frames, double most_s) {
  // GIF delays are in hundredths of a second; browsers treat less than 2 as 10.
  const double s = speed > 0 ? speed : 1.0;
  int cs = std::clamp(static_cast<int>(std::lround(100.0 / s)), 2, 65535);
  if (frames > 0 && most_s > 0)
    cs = std::min(cs, static_cast<int>(std::floor(most_s * 100.0 / static_cast<double>(frames))));
  return std::max(cs, 2);
}

std::string sequence_frame_name(int i) {
  char name[32];
  std::snprintf(name, sizeof name, "frame-%04d.png", i + 1);
  return name;
}

ExportJob::~ExportJob() {
  cancel();
  if (worker_.joinable()) worker_.join();
}

bool ExportJob::start(ExportRequest r, std::string* error) {
  if (active_) {
    *error = "an export is already running (" + std::to_string(progress().encoded) + " of " +
             std::to_string(req_.beats.size()) + " frames): cancel it or wait";
    return false;
  }
  if (r.beats.empty()) {
    *error = "nothing to export: no frames";
    return false;
  }
  if (r.width <= 0 || r.height <= 0) {
    *error = "nothing to export: an empty picture";
    return false;
  }
  bool created = false;
  if (r.kind == ExportKind::Gif) {
    if (std::string why = output_problem(r.path, r.force); !why.empty()) {
      *error = why;
      return false;
    }
  } else {
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(r.path, ec))) {
      fs::create_directories(r.path, ec);
      created = fs::is_directory(r.path, ec);
    }
    if (!fs::is_directory(r.path, ec)) {
      *error = "cannot create the directory '" + r.path + "'" + (ec ? ": " + ec.message() : "");
      return false;
    }
    // Every frame's name before the first is written: an existing frame (without force) or a
    // special file stops the sequence before it starts, not half way.
    for (size_t i = 0; i < r.beats.size(); ++i)
      if (std::string why = output_problem(
              (fs::path(r.path) / sequence_frame_name(static_cast<int>(i))).string(), r.force);
          !why.empty()) {
        if (created) fs::remove(r.path, ec);
        *error = why;
        return false;
      }
  }
  if (worker_.joinable()) worker_.join();  // the previous job's worker, already done
  req_ = std::move(r);
  rendered_ = 0;
  queue_.clear();
  cancel_ = false;
  cancel_why_.clear();
  done_ = false;
  encoded_ = 0;
  result_ = {};
  result_.path = req_.path;
  created_dir_ = created;
  started_ = now_seconds();
  finished_ = 0;
  active_ = true;
  worker_ = std::thread([this] { work(); });
  return true;
}

int ExportJob::next_beat() const {
  if (!active_ || rendered_ >= static_cast<int>(req_.beats.size())) return -1;
  std::lock_guard<std::mutex> lock(m_);
  if (cancel_ || done_ || queue_.size() >= kQueuedFrames) return -1;
  return req_.beats[static_cast<size_t>(rendered_)];
}

void ExportJob::submit(std::vector<uint8_t> rgba) {
  if (!active_ || rendered_ >= static_cast<int>(req_.beats.size())) return;
  {
    std::lock_guard<std::mutex> lock(m_);
    queue_.push_back(std::move(rgba));
  }
  ++rendered_;
  cv_.notify_one();
}

void ExportJob::cancel(const std::string& why) {
  {
    std::lock_guard<std::mutex> lock(m_);
    if (done_ || !active_) return;
    cancel_ = true;
    cancel_why_ = why;
  }
  cv_.notify_one();
}

bool ExportJob::cancelled() const {
  std::lock_guard<std::mutex> lock(m_);
  return cancel_;
}

ExportProgress ExportJob::progress() const {
  ExportProgress p;
  p.total = static_cast<int>(req_.beats.size());
  p.rendered = rendered_;
  std::lock_guard<std::mutex> lock(m_);
  p.encoded = encoded_;
  p.seconds = (done_ ? finished_ : now_seconds()) - started_;
  return p;
}

std::optional<ExportResult> ExportJob::take_result() {
  if (!active_) return std::nullopt;
  {
    std::lock_guard<std::mutex> lock(m_);
    if (!done_) return std::nullopt;
  }
  if (worker_.joinable()) worker_.join();
  active_ = false;
  return result_;
}

bool ExportJob::wait_for_room(double seconds) {
  // rendered_ is the UI thread's, which is the one waiting here.
  const bool all_handed = rendered_ >= static_cast<int>(req_.beats.size());
  std::unique_lock<std::mutex> lock(m_);
  return space_.wait_for(lock, std::chrono::duration<double>(seconds), [&] {
    return done_ || cancel_ || (!all_handed && queue_.size() < kQueuedFrames);
  });
}

bool ExportJob::wait(double seconds) {
  std::unique_lock<std::mutex> lock(m_);
  return space_.wait_for(lock, std::chrono::duration<double>(seconds), [&] { return done_; });
}

void ExportJob::work() {
  const ExportRequest& r = req_;
  const int total = static_cast<int>(r.beats.size());
  const size_t frame_bytes = static_cast<size_t>(r.width) * static_cast<size_t>(r.height) * 4;
  std::vector<std::string> written;  // a sequence's frames, removed again on cancel or failure
  ExportResult out;
  out.path = r.path;
  try {
    std::optional<GifWriter> gif;
    for (int i = 0; i < total; ++i) {
      std::vector<uint8_t> px;
      {
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [&] { return cancel_ || !queue_.empty(); });
        if (cancel_) break;
        px = std::move(queue_.front());
        queue_.pop_front();
      }
      space_.notify_all();  // room for the UI's next frame (wait_for_room)
      if (px.size() != frame_bytes)
        throw std::runtime_error("frame " + std::to_string(i + 1) + " has the wrong size");
      if (r.kind == ExportKind::Gif) {
        // The palette: the theme's colours first, then the first frame's most frequent others.
        if (!gif)
          gif.emplace(r.width, r.height, gif_palette({&px}, r.palette_seed), r.delay_cs, r.loop);
        gif->add_frame(std::move(px));
      } else {
        // With this frame, the others already queued (up to sequence_encoders()), encoded side by
        // side and written in order.
        std::vector<std::vector<uint8_t>> batch;
        batch.push_back(std::move(px));
        {
          std::lock_guard<std::mutex> lock(m_);
          while (!queue_.empty() && batch.size() < sequence_encoders() &&
                 i + static_cast<int>(batch.size()) < total) {
            batch.push_back(std::move(queue_.front()));
            queue_.pop_front();
          }
        }
        space_.notify_all();
        for (size_t k = 1; k < batch.size(); ++k)
          if (batch[k].size() != frame_bytes)
            throw std::runtime_error("frame " + std::to_string(i + 1 + static_cast<int>(k)) +
                                     " has the wrong size");
        const std::vector<std::string> pngs = encode_pngs(batch, r.width, r.height);
        for (size_t k = 0; k < pngs.size(); ++k, ++i) {
          const std::string path = (fs::path(r.path) / sequence_frame_name(i)).string();
          if (pngs[k].empty())
            throw std::runtime_error("cannot write '" + path + "': the PNG encoder failed");
          if (std::string err = write_file_atomic(path, pngs[k], r.force); !err.empty())
            throw std::runtime_error(err);
          written.push_back(path);
          out.bytes += pngs[k].size();
          std::lock_guard<std::mutex> lock(m_);
          ++encoded_;
        }
        --i;  // i is the batch's last frame now: the loop's ++i goes to the next
        continue;
      }
      std::lock_guard<std::mutex> lock(m_);
      ++encoded_;
    }
    if (!cancelled()) {
      if (gif) {
        std::vector<uint8_t> bytes = gif->finish();
        std::string err;
        if (!write_binary(r.path, bytes, r.force, &err)) throw std::runtime_error(err);
        out.bytes = bytes.size();
      }
      out.ok = true;
      out.frames = total;
    }
  } catch (...) {
    out.ok = false;
    out.error = "export failed: " + current_exception_text();
    if (r.kind == ExportKind::Sequence && !written.empty())
      out.error += " (the " + std::to_string(written.size()) + " frames written were removed)";
  }
  std::lock_guard<std::mutex> lock(m_);
  if (!out.ok) {
    // Nothing half done stays behind: a GIF was never written; a sequence's frames go.
    std::error_code ec;
    for (const std::string& f : written) fs::remove(f, ec);
    if (created_dir_) fs::remove(r.path, ec);  // only when empty
    if (cancel_ && out.error.empty()) {
      out.cancelled = true;
      out.error = "export cancelled" + (cancel_why_.empty() ? "" : ": " + cancel_why_) +
                  "; nothing was written";
    }
  }
  finished_ = now_seconds();
  out.seconds = finished_ - started_;
  result_ = std::move(out);
  done_ = true;
  space_.notify_all();
}

}  // namespace bankviz::gui
