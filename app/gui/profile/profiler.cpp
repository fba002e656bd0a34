// profiler.cpp: the "your kernel" window's worker (profiler.h).
#include "profile/profiler.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bankviz/analysis.h"
#include "bankviz/from_source.h"
#include "bankviz/io.h"
#include "bankviz/printable.h"
#include "bankviz/profile.h"
#include "exit_status.h"
#include "profile/subprocess.h"

namespace bankviz::gui {

namespace {

constexpr size_t kMaxOutput = size_t{16} << 20;  // the JSON of a 1 MB kernel is far smaller

std::vector<std::string> split_args(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string a; in >> a;) out.push_back(a);
  return out;
}

}  // namespace

std::vector<std::string> profile_argv(const std::string& cli, const ProfileForm& f,
                                      std::string* error, const std::string& save_recording) {
  if (f.file.empty() || f.kernel.empty() || f.block.empty() || f.grid.empty()) {
    *error = "give the .cu file, the kernel's name, the grid and the block";
    return {};
  }
  if (std::string why = launch_problem(f.grid, f.block); !why.empty()) {
    *error = why;
    return {};
  }
  for (char c : f.args)
    if (c == '\'' || c == '"' || c == '\\' || c == ';' || c == '\n') {
      *error = std::string("--arg values are TYPE:VALUE separated by spaces; no '") + c + "'";
      return {};
    }
  std::vector<std::string> a = {cli,      "profile", f.file,    "--kernel", f.kernel,
                                "--grid", f.grid,    "--block", f.block};
  for (const std::string& x : split_args(f.args)) {
    a.push_back("--arg");
    a.push_back(x);
  }
  a.push_back("--shared");
  a.push_back(std::to_string(f.shared));
  char t[32];
  std::snprintf(t, sizeof t, "%g", f.timeout_s);
  a.push_back("--timeout");
  a.push_back(t);
  if (f.model) a.push_back("--model");
  if (f.record) a.push_back("--record");
  if (f.record_gpu && !f.model && !f.record) a.push_back("--record-gpu");
  if (!save_recording.empty() && !f.model && (f.record || f.record_gpu)) {
    a.push_back("--save-recording");
    a.push_back(save_recording);
  }
  a.push_back("--json");
  return a;
}

std::string launch_problem(const std::string& grid, const std::string& block) {
  std::string why;
  const auto g = parse_dim3(grid, &why);
  if (!g) return "grid '" + replace_controls(grid.substr(0, 40), '?') + "': " + why;
  const auto b = parse_dim3(block, &why);
  if (!b) return "block '" + replace_controls(block.substr(0, 40), '?') + "': " + why;
  if (b->product() > 1024)
    return "a block has at most 1024 threads; " + block + " is " + std::to_string(b->product());
  if (b->z > 64) return "a block's z is at most 64 (" + std::to_string(b->z) + " given)";
  if (g->y > 65535 || g->z > 65535)
    return "a grid's y and z are at most 65535 (" + grid + " given)";
  return {};
}

const std::vector<LaunchPreset>& launch_presets() {
  static const std::vector<LaunchPreset> p = {
      {"1", "32", "one warp"},
      {"1", "256", "one block of 256 (8 warps)"},
      {"1", "1024", "one block of 1024 (32 warps)"},
      {"1", "16x16", "a 16x16 tile"},
      {"1", "32x8", "a 32-wide tile, 8 rows"},
      {"1", "32x32", "a 32x32 tile"},
      {"64", "256", "64 blocks of 256"},
      {"16x16", "16x16", "a 16x16 grid of 16x16 tiles"},
  };
  return p;
}

ProfileOutcome read_profile_output(int exit_code, bool timed_out, const std::string& out,
                                   const std::string& err) {
  ProfileOutcome o;
  auto trimmed = [](std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    const std::string prefix = "bankviz-cli: ";
    if (s.rfind(prefix, 0) == 0) s.erase(0, prefix.size());
    return s;
  };
  if (timed_out) {
    o.error = "bankviz-cli did not answer in time and was stopped (the GPU is free again)";
    return o;
  }
  nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    // Usage errors and problems before the run are words on standard error.
    o.error =
        trimmed(err.empty() ? "bankviz-cli ended with status " + std::to_string(exit_code) : err);
    o.usage = exit_code == kExitUsage;
    return o;
  }
  try {
    if (j.value("figures", "") == "model") {
      // --model: the kernel followed for one block, no GPU (from_source.h).
      // --record: one block recorded on the CPU, its requests served by the model (record.h).
      const bool recorded = j.value("made_by", "") == "cpu recording";
      o.model = o.ok = true;
      o.header = j.value("kernel", "") +
                 (recorded ? ": the MODEL's figures, not measured (one block recorded on the CPU, "
                             "every access as the kernel made it; no GPU)"
                           : ": the MODEL's figures, not measured (one block, the kernel followed "
                             "line by line; no GPU)");
      for (const auto& l : j.at("lines")) {
        ProfiledLine p;
        p.line = l.value("line", 0u);
        if (l.contains("why")) {
          p.model_why = l.value("why", "");
        } else {
          p.ops = l.value("ops", "");
          p.executed = l.value(recorded ? "requests" : "instructions", int64_t{0});
          p.wavefronts = l.value("wavefronts", int64_t{0});
          p.ideal = l.value("ideal", int64_t{0});
          p.excess = p.wavefronts > p.ideal ? p.wavefronts - p.ideal : 0;
          p.per_request = l.value("wavefronts_per_request", 0.0);
        }
        o.wavefronts += p.wavefronts;
        o.ideal += p.ideal;
        o.lines.push_back(std::move(p));
      }
      o.excess = o.wavefronts > o.ideal ? o.wavefronts - o.ideal : 0;
      return o;
    }
    const std::string status = j.value("status", "");
    if (status != "ok") {
      o.error = status + ": " + j.value("message", trimmed(err));
      return o;
    }
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s on %s (%s): one launch %.1f us",
                  j.value("kernel", "").c_str(), j["device"].value("name", "").c_str(),
                  j["device"].value("sm", "").c_str(), j.value("kernel_ms", 0.0) * 1000);
    o.header = buf;
    if (j.value("counters", "") != "ok")
      o.counters_note = j.value("counters_message", std::string("no hardware counters"));
    for (const auto& l : j.at("lines")) {
      ProfiledLine p;
      p.line = l.value("line", 0u);
      p.source = l.value("source", "");
      for (const auto& op : l.at("ops")) {
        if (!p.ops.empty()) p.ops += ',';
        p.ops += op.get<std::string>();
      }
      p.executed = l.value("executed", int64_t{0});
      p.wavefronts = l.value("wavefronts", int64_t{0});
      p.ideal = l.value("ideal", int64_t{0});
      p.excess = l.value("excess", int64_t{0});
      p.per_request = l.value("wavefronts_per_request", 0.0);
      o.lines.push_back(std::move(p));
    }
    if (j.contains("recording")) {
      const auto& rec = j["recording"];
      if (!rec.contains("lines")) {
        o.recording_note = "not recorded on the GPU: " + rec.value("why", std::string("?")) +
                           " (the lines keep the hardware's figures only)";
      } else {
        o.recording_note = "block (0,0,0) recorded as the GPU ran it (" +
                           std::to_string(rec.value("accesses", int64_t{0})) +
                           " shared accesses): the 'recorded' column is the model's figures "
                           "from the recorded addresses";
        for (const auto& l : rec.at("lines")) {
          if (!l.contains("recorded")) continue;
          const uint32_t n = l.value("line", 0u);
          auto it = std::find_if(o.lines.begin(), o.lines.end(),
                                 [&](const ProfiledLine& p) { return p.line == n; });
          if (it == o.lines.end()) {
            ProfiledLine p;  // recorded, but no shared instruction on the GPU
            p.line = n;
            o.lines.push_back(std::move(p));
            it = o.lines.end() - 1;
          }
          it->recorded = true;
          it->recorded_requests = l["recorded"].value("requests", int64_t{0});
          it->recorded_wavefronts = l["recorded"].value("wavefronts", int64_t{0});
          it->recorded_equal = l.value("equal", false);
          it->recorded_reason = l.value("reason", std::string());
        }
      }
    }
    o.wavefronts = j["total"].value("wavefronts", int64_t{0});
    o.ideal = j["total"].value("ideal", int64_t{0});
    o.excess = j["total"].value("excess", int64_t{0});
    o.ok = o.counters_note.empty();
    if (!o.ok && o.error.empty()) o.error = o.counters_note;
  } catch (const std::exception& e) {
    o.error = std::string("bankviz-cli's JSON was not as expected: ") + e.what();
  }
  return o;
}

namespace {

// The form's launch as from_source.h takes it (the CLI checked the block: a bad one gives none).
std::optional<SourceLaunch> form_launch(const ProfileForm& f) {
  std::string why;
  const auto b = parse_dim3(f.block, &why);
  if (!b) return std::nullopt;
  SourceLaunch launch;
  launch.block[0] = b->x;
  launch.block[1] = b->y;
  launch.block[2] = b->z;
  launch.dynamic_shared = f.shared;
  for (const std::string& text : split_args(f.args)) {
    const auto a = parse_kernel_arg(text, &why);
    launch.args.push_back(a ? integer_value(*a) : std::nullopt);
  }
  return launch;
}

}  // namespace

std::string KernelRecording::origin(bool full) const {
  if (saved)
    return full ? "from a saved recording: figures are the model's" : "from a saved recording";
  if (gpu) return full ? "recorded on the GPU (block (0,0,0) as it ran)" : "recorded on the GPU";
  return full ? "recorded on the CPU: figures are the model's" : "recorded on the CPU";
}

bool KernelRecording::has_line(uint32_t line) const {
  return std::any_of(instructions.begin(), instructions.end(),
                     [&](const RecordedInstruction& i) { return i.line == line; });
}

namespace {

// A recording's text parsed and checked (recording.h), with the warp instructions the model
// serves: the one reading of a recording, the window's own and a saved one; nullptr with *why.
std::shared_ptr<KernelRecording> parse_recorded_run(const std::string& text, std::string* why) {
  std::optional<Recording> r = parse_recording(text, why);
  if (!r) return nullptr;
  auto ins = recorded_instructions(*r, default_arch(), why);
  if (!ins) return nullptr;
  auto run = std::make_shared<KernelRecording>();
  run->recording = std::move(*r);
  run->instructions = std::move(*ins);
  return run;
}

}  // namespace

std::shared_ptr<const KernelRecording> read_recorded_run(const std::string& text,
                                                         const std::string& source,
                                                         const ProfileForm& f, bool gpu,
                                                         std::string* why) {
  std::shared_ptr<KernelRecording> run = parse_recorded_run(text, why);
  if (!run) return nullptr;
  run->gpu = gpu;
  run->kernel = f.kernel;
  run->file = f.file;
  if (const auto launch = form_launch(f)) {
    std::string ignored;  // without declarations the arrays are one-dimensional
    run->declared = shared_arrays_of_kernel(source, f.kernel, *launch, f.file, &ignored);
  }
  return run;
}

std::optional<RecordedPicture> recorded_line_picture(const KernelRecording& run, uint32_t line,
                                                     std::string* why) {
  std::optional<RecordedPicture> p =
      recorded_picture(run.recording, run.instructions, run.declared, line, default_arch(), why);
  if (!p) return p;
  const std::string made = run.origin(true);
  const std::string file = run.file.substr(run.file.find_last_of('/') + 1);
  const std::string shared = p->shared_place.empty() ? std::string()
                                                     : "; extern arrays " + p->shared_place +
                                                           " share one place (shown as the first)";
  p->scenario.name = "recorded";
  p->scenario.title = replace_controls(
      "line " + std::to_string(line) + " of " + run.kernel + " (" + file + "), " + made + shared,
      '?');
  p->scenario.description = replace_controls(
      "Line " + std::to_string(line) + " of " + run.kernel + ", " + made +
          ": every warp instruction the block ran for the line, each lane at the address it "
          "used, served by bankviz's bank model. A recording: its steps cannot be edited as "
          "expressions.",
      '?');
  return p;
}

namespace {

// The pictures the window opened, newest last (a few: undo goes back to them).
struct Pictures {
  std::mutex mutex;
  std::deque<std::pair<std::string, std::shared_ptr<const RecordedPicture>>> kept;
};
Pictures& pictures() {
  static Pictures p;
  return p;
}

}  // namespace

void remember_picture(const RecordedPicture& p) {
  auto kept = std::make_shared<const RecordedPicture>(p);
  const std::string key = scenario_to_json(p.scenario);
  std::lock_guard<std::mutex> lock(pictures().mutex);
  auto& k = pictures().kept;
  k.erase(std::remove_if(k.begin(), k.end(), [&](const auto& e) { return e.first == key; }),
          k.end());
  k.emplace_back(key, std::move(kept));
  if (k.size() > 8) k.pop_front();
}

AnalysisOutcome analyze_draft_or_picture(const Scenario& s) {
  std::shared_ptr<const RecordedPicture> found;
  if (s.name == "recorded") {
    const std::string key = scenario_to_json(s);
    std::lock_guard<std::mutex> lock(pictures().mutex);
    for (const auto& [k, p] : pictures().kept)
      if (k == key) found = p;
  }
  if (!found) return analyze_draft(s);
  AnalysisOutcome o;
  o.scenario = s;
  AnalysisResult r = analyze(s, nullptr, found->trace);
  o.analysis = std::move(r.analysis);
  o.errors = std::move(r.errors);
  return o;
}

void attach_scenarios(ProfileOutcome& o, const std::string& source, const ProfileForm& f) {
  // Which lines the model can show (the CLI checked the block; a bad one means none).
  for (ProfiledLine& l : o.lines) l.scenario.reset();
  const std::optional<SourceLaunch> form = form_launch(f);
  if (!form) return;
  const SourceLaunch& launch = *form;
  for (ProfiledLine& l : o.lines) {
    SourceScenario sc = scenario_from_source_line(source, l.line, launch, f.file);
    l.scenario = std::move(sc.scenario);
    l.model_why = std::move(sc.why);
    l.model_per_request = l.scenario ? model_figures(*l.scenario).per_request() : 0;
  }
}

std::string opened_label(const std::string& file, uint32_t line) {
  const size_t slash = file.find_last_of('/');
  return (slash == std::string::npos ? file : file.substr(slash + 1)) + ':' + std::to_string(line);
}

std::vector<std::string> source_excerpt(const std::vector<std::string>& source, uint32_t line,
                                        uint32_t context, uint32_t* first) {
  std::vector<std::string> out;
  *first = 0;
  if (line == 0 || line > source.size()) return out;
  const uint32_t b = line > context ? line - context : 1;
  const uint32_t e =
      static_cast<uint32_t>(std::min<uint64_t>(source.size(), uint64_t{line} + context));
  *first = b;
  for (uint32_t n = b; n <= e; ++n) {
    std::string num = std::to_string(n);
    num.insert(0, num.size() < 4 ? 4 - num.size() : 0, ' ');
    out.push_back(num + (n == line ? " >" : "  ") + source[n - 1]);
  }
  return out;
}

std::vector<uint32_t> openable_lines(const ProfileOutcome& o) {
  std::vector<uint32_t> out;
  for (const ProfiledLine& l : o.lines)
    if (l.scenario || (o.recorded && o.recorded->has_line(l.line))) out.push_back(l.line);
  std::sort(out.begin(), out.end());
  return out;
}

uint32_t step_line(const std::vector<uint32_t>& lines, uint32_t current, int dir) {
  if (lines.empty()) return 0;
  const auto it = std::find(lines.begin(), lines.end(), current);
  if (it == lines.end()) return dir > 0 ? lines.front() : lines.back();
  if (dir > 0) return it + 1 == lines.end() ? 0 : *(it + 1);
  return it == lines.begin() ? 0 : *(it - 1);
}

void refresh_kernels(KernelList& k, const std::string& path) {
  if (path == k.path) return;
  k.path = path;
  k.kernels.clear();
  if (path.empty()) return;
  TextRead src = read_text_file(path, static_cast<int64_t>(kMaxSourceBytes));
  if (src.text) k.kernels = kernels_in_source(*src.text);
}

bool open_dropped_source(ProfilerState& p, const std::string& path, std::string* why) {
  const std::string shown = replace_controls(path.substr(0, 300), '?');
  const size_t dot = path.find_last_of('.');
  const std::string ext = dot == std::string::npos ? "" : path.substr(dot);
  if (ext != ".cu" && ext != ".cuh") {
    *why = shown + ": bankviz opens a dropped CUDA source (.cu) in the 'your kernel' window";
    return false;
  }
  TextRead src = read_text_file(path, static_cast<int64_t>(kMaxSourceBytes));
  if (!src.text) {
    *why = replace_controls(src.error, '?');
    return false;
  }
  const std::vector<std::string> kernels = kernels_in_source(*src.text);
  if (kernels.empty()) {
    *why = shown + " has no __global__ function to profile";
    return false;
  }
  p.form.file = path;
  p.kernels.path = path;
  p.kernels.kernels = kernels;
  if (std::find(kernels.begin(), kernels.end(), p.form.kernel) == kernels.end())
    p.form.kernel = kernels.front();
  p.shown_line = 0;
  p.outcome.reset();
  p.start_error.clear();
  p.open = true;
  return true;
}

bool looks_like_recording(std::string_view text) {
  const size_t at = text.find_first_not_of(" \t\r\n");
  return at != std::string_view::npos && text.substr(at, 6) == "block ";
}

bool open_saved_recording(ProfilerState& p, const std::string& path, std::string* why) {
  const std::string shown = replace_controls(path.substr(path.find_last_of('/') + 1, 300), '?');
  // At most what the recording's bound of accesses writes (as for the window's own recordings).
  const TextRead rec = read_text_file(path, int64_t{256} << 20);
  if (!rec.text) {
    *why = replace_controls(rec.error, '?');
    return false;
  }
  if (!looks_like_recording(*rec.text)) {
    *why = shown +
           ": open a scenario, preset or lesson (.json), a kernel (.cu) or a recording "
           "(bankviz-cli profile --save-recording)";
    return false;
  }
  std::shared_ptr<KernelRecording> run = parse_recorded_run(*rec.text, why);
  if (!run) {
    *why = shown + ": " + replace_controls(*why, '?');
    return false;
  }
  const auto& block = run->recording.block;
  ProfileOutcome o;
  o.ok = o.model = true;
  o.header = shown + ": a saved recording, one block of " + std::to_string(block[0]) + "x" +
             std::to_string(block[1]) + "x" + std::to_string(block[2]) +
             " threads: the MODEL's figures for the addresses it holds, not measured";
  for (const RecordedLine& l : recorded_lines(run->instructions)) {
    ProfiledLine pl;
    pl.line = l.line;
    pl.ops = l.ops;
    pl.executed = l.requests;
    pl.wavefronts = l.wavefronts;
    pl.ideal = l.ideal;
    pl.excess = l.wavefronts > l.ideal ? l.wavefronts - l.ideal : 0;
    pl.per_request = l.per_request();
    o.wavefronts += pl.wavefronts;
    o.ideal += pl.ideal;
    o.lines.push_back(std::move(pl));
  }
  o.excess = o.wavefronts > o.ideal ? o.wavefronts - o.ideal : 0;
  std::stable_sort(
      o.lines.begin(), o.lines.end(),
      [](const ProfiledLine& a, const ProfiledLine& b) { return a.excess > b.excess; });
  run->saved = true;
  run->file = path;
  run->kernel = "the saved recording";
  o.recorded = std::move(run);
  p.outcome = std::move(o);
  p.shown_line = 0;
  p.start_error.clear();
  p.open = true;
  return true;
}

bool start_profile(ProfilerState& p, std::string* error, double now) {
  if (p.job.valid()) {
    *error = "a profile is running";
    return false;
  }
  std::string tried;
  const std::string cli = find_cli(&tried);
  if (cli.empty()) {
    *error = "bankviz-cli was not found (looked for " + tried + "); set BANKVIZ_CLI to its path";
    return false;
  }
  // With a recording, bankviz-cli writes it into a directory of this profile's own, read back
  // when it ends (its lines then open as pictures of what the kernel did).
  std::string saved;
  const bool recording = !p.form.model && (p.form.record || p.form.record_gpu);
  if (recording) {
    std::error_code ec;
    std::string dir = (std::filesystem::temp_directory_path(ec) / "bankviz-recording-XXXXXX");
    if (!ec && mkdtemp(dir.data())) saved = dir + "/recording.txt";
  }
  std::vector<std::string> argv = profile_argv(cli, p.form, error, saved);
  if (argv.empty()) {
    if (!saved.empty()) std::filesystem::remove_all(std::filesystem::path(saved).parent_path());
    return false;
  }
  p.cancel = false;
  p.started = now;
  const ProfileForm form = p.form;
  p.job = std::async(std::launch::async, [argv, form, saved, &cancel = p.cancel] {
    const auto t0 = std::chrono::steady_clock::now();
    // The CLI's own timeout bounds each launch; compiling and the three launches get a margin.
    const ProcessResult r = run_process(argv, form.timeout_s * 3 + 60, kMaxOutput, &cancel);
    ProfileOutcome o;
    if (!r.started) {
      o.error = r.error;
    } else if (r.canceled) {
      o.error = "canceled (the GPU is free again)";
    } else if (r.signal) {
      o.error = "bankviz-cli ended by signal " + std::to_string(r.signal) + ": " + r.err;
    } else {
      o = read_profile_output(r.exit_code, r.timed_out, r.out, r.err);
    }
    TextRead src = read_text_file(form.file, int64_t{1} << 20);
    if (src.text) {
      std::istringstream in(*src.text);
      for (std::string line; std::getline(in, line);) o.source.push_back(line);
      attach_scenarios(o, *src.text, form);
    }
    if (!saved.empty()) {
      // At most what the recording's bound of accesses writes.
      TextRead rec = read_text_file(saved, int64_t{256} << 20);
      if (rec.text && src.text)
        o.recorded = read_recorded_run(*rec.text, *src.text, form, !form.record, &o.recorded_why);
      else if (o.ok)
        o.recorded_why = rec.text ? src.error : "no recording came back";
      std::error_code ec;
      std::filesystem::remove_all(std::filesystem::path(saved).parent_path(), ec);
    }
    o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return o;
  });
  return true;
}

bool poll_profile(ProfilerState& p) {
  if (!p.job.valid() || p.job.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
    return false;
  p.outcome = p.job.get();
  p.shown_line = 0;
  return true;
}

}  // namespace bankviz::gui
