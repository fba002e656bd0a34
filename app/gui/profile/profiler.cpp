// profiler.cpp: the "your kernel" window's worker (profiler.h).
#include "profile/profiler.h"

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bankviz/from_source.h"
#include "bankviz/io.h"
#include "bankviz/printable.h"
#include "bankviz/profile.h"
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
                                      std::string* error) {
  if (f.file.empty() || f.kernel.empty() || f.block.empty() || f.grid.empty()) {
    *error = "give the .cu file, the kernel's name, the grid and the block";
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
  a.push_back("--json");
  return a;
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

void attach_scenarios(ProfileOutcome& o, const std::string& source, const ProfileForm& f) {
  // Which lines the model can show (the CLI checked the block; a bad one means none).
  for (ProfiledLine& l : o.lines) l.scenario.reset();
  std::string why;
  const auto b = parse_dim3(f.block, &why);
  if (!b) return;
  SourceLaunch launch;
  launch.block[0] = b->x;
  launch.block[1] = b->y;
  launch.block[2] = b->z;
  launch.dynamic_shared = f.shared;
  for (const std::string& text : split_args(f.args)) {
    const auto a = parse_kernel_arg(text, &why);
    launch.args.push_back(a ? integer_value(*a) : std::nullopt);
  }
  for (ProfiledLine& l : o.lines) {
    SourceScenario sc = scenario_from_source_line(source, l.line, launch, f.file);
    l.scenario = std::move(sc.scenario);
    l.model_why = std::move(sc.why);
    l.model_per_request = l.scenario ? model_figures(*l.scenario).per_request() : 0;
  }
}

std::vector<uint32_t> openable_lines(const ProfileOutcome& o) {
  std::vector<uint32_t> out;
  for (const ProfiledLine& l : o.lines)
    if (l.scenario) out.push_back(l.line);
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
  std::vector<std::string> argv = profile_argv(cli, p.form, error);
  if (argv.empty()) return false;
  p.cancel = false;
  p.started = now;
  const ProfileForm form = p.form;
  p.job = std::async(std::launch::async, [argv, form, &cancel = p.cancel] {
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
