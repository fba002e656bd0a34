// profiler.h: the app's "your kernel" window (panel_profile.cpp, key K): a user's .cu file
// profiled per source line by the hardware, in a bankviz-cli process of its own.
//
// `bankviz-cli profile FILE --json` (kernels/profile.h, docs/PROFILE.md) runs on a worker thread
// through run_process(): a kernel that never ends, faults or crashes its process leaves the app as
// it was (CUDA cannot recover in the process that ran it; the driver frees the GPU when that
// process ends). The app reads the JSON it prints; nothing of the user's text becomes code here.
#pragma once

#include <atomic>
#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bankviz/recording.h"
#include "bankviz/scenario.h"
#include "jobs/analyzer.h"

namespace bankviz::gui {

// What the window's fields hold (the launch, as the CLI's flags write it).
struct ProfileForm {
  std::string file;    // the .cu file
  std::string kernel;  // the __global__ function
  std::string grid = "1", block = "32";
  std::string args;  // "--arg"s, space-separated: "buffer:4K int:3"
  int shared = 0;    // dynamic shared memory, bytes
  double timeout_s = 10;
  bool model = false;   // the model's figures only (--model): no GPU, no compiler
  bool record = false;  // one block recorded on the CPU (--record): no GPU, the host compiler
  // With Profile: block (0,0,0) recorded as the GPU ran it (--record-gpu), each line's model
  // figures from the recorded addresses beside the hardware's.
  bool record_gpu = true;
};

// One source line as the hardware counted it (bankviz-cli profile --json's "lines").
struct ProfiledLine {
  uint32_t line = 0;
  std::string source, ops;
  int64_t executed = 0, wavefronts = 0, ideal = 0, excess = 0;
  double per_request = 0;
  // The line's access as a bankviz scenario (core/from_source.h), when it can be one: the
  // window's "open" shows the model's picture of it.
  std::optional<Scenario> scenario;
  double model_per_request = 0;  // the model's wavefronts per request over one block (scenario)
  std::string model_why;         // why the line has no scenario
  // --record-gpu: the line as recorded on the GPU, served by the model (block (0,0,0)).
  bool recorded = false;
  int64_t recorded_requests = 0, recorded_wavefronts = 0;
  bool recorded_equal = false;  // the hardware's wavefronts (block 0's times the blocks)
  std::string recorded_reason;  // where they differ: what the compiler made of the line
};

struct ProfilerState;

// A recording bankviz-cli made (--record on the CPU, --record-gpu on the GPU) and wrote for the
// app (--save-recording), read back and served (recording.h): its lines open as pictures of what
// the kernel did (recorded_picture()), not of the followed model's scenario.
struct KernelRecording {
  Recording recording;
  std::vector<RecordedInstruction> instructions;
  std::vector<TileDecl> declared;  // the kernel's __shared__ declarations (from_source.h)
  bool gpu = false;
  bool saved = false;  // opened from a file (--save-recording): where it was recorded is not known
  std::string kernel, file;
  bool has_line(uint32_t line) const;
  // How it was recorded, in words: "recorded on the GPU" (`full`: "... (block (0,0,0) as it
  // ran)"), "recorded on the CPU" (": figures are the model's"), or a saved recording's.
  std::string origin(bool full) const;
};

// A recording bankviz-cli profile --save-recording wrote (recording.h's text), opened from the
// user's disk (dropped, or "Open a file..."; in the browser too, which records nothing itself):
// the window lists its lines with the model's figures for what the block did, each opening as a
// picture. The file holds no source: the arrays are one-dimensional, the lines have no text.
// False with *why (in words) when the file is not such a recording or does not serve.
bool open_saved_recording(ProfilerState& p, const std::string& path, std::string* why);

// True when `text` begins as a saved recording does (its `block X Y Z` line).
bool looks_like_recording(std::string_view text);

// The recording's text as bankviz-cli wrote it, parsed and checked (recording.h), with the
// declarations of the form's kernel in `source`; nullptr with *why.
std::shared_ptr<const KernelRecording> read_recorded_run(const std::string& text,
                                                         const std::string& source,
                                                         const ProfileForm& f, bool gpu,
                                                         std::string* why);

// Line `line` of a recorded run as a picture, its title and description saying how it was
// recorded ("recorded on the CPU: figures are the model's" / "recorded on the GPU"); nullopt
// with *why.
std::optional<RecordedPicture> recorded_line_picture(const KernelRecording& run, uint32_t line,
                                                     std::string* why);

// The analysis of a draft that is a recorded picture: the window keeps the last pictures it
// opened (remember_picture), and a draft equal to one of them analyzes from that picture's trace
// (analysis.h analyze(scenario, arch, trace)), any other as analyze_draft() does (a picture's
// indexes name the recording, which check() refuses: an edited picture says so). The Analyzer's
// function once a picture has been opened; safe to call from its worker.
void remember_picture(const RecordedPicture& p);
AnalysisOutcome analyze_draft_or_picture(const Scenario& s);

struct ProfileOutcome {
  bool ok = false;                  // it ran and was counted (or, model, was followed)
  bool model = false;               // the figures are the model's (--model), not the hardware's
  std::string error;                // why not: the CLI's words (compile error, no GPU, timeout...)
  bool usage = false;               // bankviz-cli refused its command line (exit 2): a bad value
  std::string header;               // "setRowReadCol on NVIDIA H100 (sm_90): one launch 7.9 us"
  std::string counters_note;        // why counters are missing, when they are
  std::vector<ProfiledLine> lines;  // most excess first
  int64_t wavefronts = 0, ideal = 0, excess = 0;
  std::string recording_note;  // --record-gpu: what was recorded, or why the kernel could not be
  std::vector<std::string> source;  // the file's lines, for the window (read by the app)
  // The recording itself (--record, --record-gpu), whose lines open as pictures; or why not.
  std::shared_ptr<const KernelRecording> recorded;
  std::string recorded_why;
  double seconds = 0;  // the whole profile, process included
};

// The command line for a form: bankviz-cli profile FILE --kernel K --grid G --block B [--arg A]...
// --shared N --timeout S --json. Empty with *error when a field is empty or the args hold a
// character the shell would treat specially (there is no shell, but a stray quote is a typo).
// With a recording, `save_recording` (a path that does not exist yet) is given to
// --save-recording, for the window to read the recording back.
std::vector<std::string> profile_argv(const std::string& cli, const ProfileForm& f,
                                      std::string* error, const std::string& save_recording = {});

// Why the form's launch shape cannot run, in words (empty when it can): the grid and the block
// as X, XxY or XxYxZ (kernels/profile.h parse_dim3), at most 1024 threads and a z of 64 in a
// block, a grid's y and z at most 65535 (CUDA's limits).
std::string launch_problem(const std::string& grid, const std::string& block);

// The launch shapes the window offers to pick (typed ones are checked by launch_problem).
struct LaunchPreset {
  const char* grid;
  const char* block;
  const char* what;
};
const std::vector<LaunchPreset>& launch_presets();

// The outcome from what the process printed and how it ended (pure: tested with recorded output).
ProfileOutcome read_profile_output(int exit_code, bool timed_out, const std::string& out,
                                   const std::string& err);

// Gives each profiled line of `source` its scenario where it can have one (core/from_source.h),
// for the form's block.
void attach_scenarios(ProfileOutcome& o, const std::string& source, const ProfileForm& f);

// The lines of an outcome that open as pictures (a recorded line, or a followed scenario), in
// source order: what "previous line" and "next line" step through, as a lesson steps through its
// scenes.
std::vector<uint32_t> openable_lines(const ProfileOutcome& o);
// The line after (dir > 0) or before (dir < 0) `current` among `lines` (the first or the last
// when `current` is not one of them); 0 when there is none that way.
uint32_t step_line(const std::vector<uint32_t>& lines, uint32_t current, int dir);

// The __global__ functions of the form's file, read again when the path changes (at most 1 MB;
// empty when it cannot be read or has none).
struct KernelList {
  std::string path;                  // the file they were read from
  std::vector<std::string> kernels;  // kernels_in_source() (core/from_source.h)
};
void refresh_kernels(KernelList& k, const std::string& path);

// The kernel line last opened in the main views, for the views to say what they show: the
// toolbar's scenario name ("histogram.cu:16" while the draft is that picture unedited) and the
// kernel-source panel (the user's source around the line, the line marked, instead of the
// generated kernel's).
struct OpenedLine {
  std::string label;          // "histogram.cu:16" (opened_label())
  std::string scenario_name;  // the opened scenario's name: the draft is still it while equal
  std::string how;            // "recorded on the GPU", "recorded on the CPU", "followed"
  uint32_t line = 0;
  uint32_t first = 0;                // the excerpt's first line
  std::vector<std::string> excerpt;  // source_excerpt()
};
// "FILE:LINE" with the file's name without its directories.
std::string opened_label(const std::string& file, uint32_t line);
// Lines `line - context` to `line + context` of `source` (1-based, clipped to the file), each
// "NNN  text" with the line itself marked "NNN >text"; *first: the first line's number.
std::vector<std::string> source_excerpt(const std::vector<std::string>& source, uint32_t line,
                                        uint32_t context, uint32_t* first);

struct ProfilerState;

// A file dropped on the window (GLFW's drop callback, platform.h): a .cu file opens in this
// window, its kernels listed, the first picked when the form's kernel is not one of them, the
// window opened. False with *why (in words) for anything else: not a .cu file, unreadable, or a
// file without a __global__ function. The text is only read, never run.
bool open_dropped_source(ProfilerState& p, const std::string& path, std::string* why);

struct ProfilerState {
  bool open = false;  // the window (key K, toolbar)
  ProfileForm form;
  KernelList kernels;
  uint32_t shown_line = 0;       // the line last opened in the main views (0: none)
  OpenedLine opened;             // that line, for the toolbar and the kernel-source panel
  bool scroll_to_shown = false;  // the source list scrolls to shown_line on its next frame
  // What the source list showed on its last frame (--dump-layout's "kernel_window"): the first
  // and last line numbers visible, and the line drawn highlighted (0: none).
  uint32_t visible_first = 0, visible_last = 0, highlighted = 0;
  // For the screenshot tests: the source list's left and right ends, and each visible line's
  // number text (its top and height) in window pixels.
  float rows_left = 0, rows_right = 0;
  struct RowText {
    uint32_t line = 0;
    float y = 0, h = 0;
  };
  std::vector<RowText> row_texts;
  std::future<ProfileOutcome> job;  // running while valid()
  std::atomic<bool> cancel{false};
  double started = 0;
  std::optional<ProfileOutcome> outcome;
  std::string start_error;  // why the last Profile did not start, shown in the window
};

// What the window asks of the scene (panels.h open_profile_ask does it): a line to open in the
// main views, its picture as recorded (the trace remembered: remember_picture) or as followed.
struct ProfileAsk {
  std::optional<Scenario> open;
  std::string notice;  // what was opened, in words
};

// Starts a profile of the form (false with a message when the form is incomplete or one runs).
bool start_profile(ProfilerState& p, std::string* error, double now);
// Takes a finished profile (true when it did).
bool poll_profile(ProfilerState& p);

}  // namespace bankviz::gui
