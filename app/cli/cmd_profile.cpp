// cmd_profile.cpp: `bankviz-cli profile FILE.cu --kernel NAME --grid X[xYxZ] --block X[xYxZ]
// [--arg TYPE:VALUE ...] [--shared BYTES] [--timeout S] [--no-counters] [--json] [--lines N]`
//
// A user's own kernel on the present GPU (kernels/profile.h): compiled as the user compiles it
// (nvcc with --nvcc-flags where nvcc is installed, else NVRTC; kernels/nvcc.h) with line info,
// launched on zeroed buffers bankviz allocates, timed, and counted per SASS instruction by the
// hardware (CUPTI's SASS metrics, what Nsight Compute's source page shows), summed per source
// line, most excess wavefronts first. Exit 0 when it ran and was counted (or --no-counters), 1
// when the kernel did not compile, launch or finish, or the counters could not be read, 2 for a
// bad flag or argument.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "bankviz/analysis.h"
#include "bankviz/compiled.h"
#include "bankviz/from_source.h"
#include "bankviz/io.h"
#include "bankviz/nvcc.h"
#include "bankviz/profile.h"
#include "bankviz/record.h"
#include "bankviz/runner.h"
#include "bankviz/sass.h"
#include "bankviz/scenario.h"
#include "bankviz/text.h"
#include "commands.h"
#include "common.h"

namespace bankviz::cli {
namespace {

struct ProfileOptions {
  std::string file;
  std::string kernel;
  std::string grid = "1";
  std::string block;
  std::vector<std::string> args;
  long long shared = 0;
  double timeout_s = 10;
  bool no_counters = false;
  bool json = false;
  long long lines = 20;
  long long scenario_line = 0;  // --scenario-of-line N: print that line as a scenario instead
  bool model = false;           // --model: the model's figures per line, no GPU
  bool record = false;          // --record: the CPU recording's figures per line, no GPU
  bool record_gpu = false;      // --record-gpu: profile, and record block 0 as the GPU ran it
  long long picture_line = 0;   // --line N (with a recording): line N's recorded picture
  std::string save_recording;   // --save-recording FILE: the recording's text (recording.h)
  std::string nvcc_flags;       // --nvcc-flags "FLAGS" (profile.h parse_nvcc_flags())
  bool nvcc_flags_given = false;
  std::string compiler = "auto";  // --compiler auto|nvcc|nvrtc
  GpuFlags gpu;                   // --gpu HOST, --gpu-command CMD
};

// --save-recording: the recording in its one text format, for another process (the app).
void save_recording(const ProfileOptions& o, const Recording& r) {
  if (o.save_recording.empty()) return;
  if (std::string why = write_file_atomic(o.save_recording, recording_text(r), false); !why.empty())
    throw Exit{kExitFailed, why};
}

// The steps' kinds, as profile names ops: "ld,st".
std::string ops_of(const Scenario& s) {
  std::string out;
  for (const Step& st : s.steps) {
    const char* o = st.kind == StepKind::Load     ? "ld"
                    : st.kind == StepKind::Store  ? "st"
                    : st.kind == StepKind::Atomic ? "atom"
                                                  : nullptr;
    if (o == nullptr || out.find(o) != std::string::npos) continue;
    out += (out.empty() ? "" : ",") + std::string(o);
  }
  return out;
}

nlohmann::json model_json(const SourceLine& l) {
  if (!l.scenario) return {{"line", l.line}, {"why", l.why}};
  const ModelFigures m = model_figures(*l.scenario);
  return {{"line", l.line},
          {"ops", ops_of(*l.scenario)},
          {"instructions", m.instructions},
          {"wavefronts", m.wavefronts},
          {"ideal", m.ideal},
          {"wavefronts_per_request", m.per_request()}};
}

// The model's figures for every shared-memory line of the kernel, one block: a table, then the
// lines it cannot follow with the reason.
std::string format_model(const std::vector<SourceLine>& lines, const std::string& source) {
  std::vector<std::string> text;
  {
    size_t b = 0;
    while (b <= source.size()) {
      size_t e = source.find('\n', b);
      if (e == std::string::npos) e = source.size();
      text.push_back(source.substr(b, e - b));
      b = e + 1;
    }
  }
  auto trim = [](std::string t) {
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.erase(0, 1);
    return t.substr(0, 100);
  };
  std::string out;
  char buf[512];
  std::snprintf(buf, sizeof buf, "%6s  %-10s %12s %12s %12s %8s  %s\n", "line", "op", "instr",
                "wavefronts", "ideal", "per req", "source");
  out += buf;
  std::string refused;
  for (const SourceLine& l : lines) {
    const std::string src = l.line - 1 < text.size() ? trim(text[l.line - 1]) : "";
    if (!l.scenario) {
      refused += "  " + l.why + "\n";
      continue;
    }
    const ModelFigures m = model_figures(*l.scenario);
    std::snprintf(buf, sizeof buf, "%6u  %-10s %12lld %12lld %12lld %8.2f  %s\n", l.line,
                  ops_of(*l.scenario).c_str(), static_cast<long long>(m.instructions),
                  static_cast<long long>(m.wavefronts), static_cast<long long>(m.ideal),
                  m.per_request(), src.c_str());
    out += buf;
  }
  if (!refused.empty()) out += "not followed (the hardware's figures only):\n" + refused;
  return out;
}

// The recording's figures per line (recording.h, served by the model's serve()).
std::string format_recorded(const std::vector<RecordedLine>& lines, const std::string& source) {
  std::vector<std::string> text;
  for (size_t b = 0; b <= source.size();) {
    size_t e = source.find('\n', b);
    if (e == std::string::npos) e = source.size();
    std::string t = source.substr(b, e - b);
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.erase(0, 1);
    text.push_back(t.substr(0, 100));
    b = e + 1;
  }
  std::string out;
  char buf[512];
  std::snprintf(buf, sizeof buf, "%6s  %-10s %12s %12s %12s %8s  %s\n", "line", "op", "requests",
                "wavefronts", "ideal", "per req", "source");
  out += buf;
  for (const RecordedLine& l : lines) {
    const std::string src = l.line == 0                ? "(a scalar __shared__ variable's reads)"
                            : l.line - 1 < text.size() ? text[l.line - 1]
                                                       : "";
    std::snprintf(buf, sizeof buf, "%6u  %-10s %12lld %12lld %12lld %8.2f  %s\n", l.line,
                  l.ops.c_str(), static_cast<long long>(l.requests),
                  static_cast<long long>(l.wavefronts), static_cast<long long>(l.ideal),
                  l.per_request(), src.c_str());
    out += buf;
  }
  return out;
}

// The launch the source follower and the recording's picture read: the block, the dynamic
// shared bytes and the integer arguments of the profile's request.
SourceLaunch source_launch(const ProfileRequest& q) {
  SourceLaunch launch;
  launch.block[0] = q.block.x;
  launch.block[1] = q.block.y;
  launch.block[2] = q.block.z;
  launch.dynamic_shared = q.dynamic_shared;
  for (const KernelArg& a : q.args) launch.args.push_back(integer_value(a));
  return launch;
}

// Line `line`'s recorded accesses as a picture (recording.h recorded_picture(), the tiles from
// the kernel's declarations `declared`), titled with what made it and analyzed from its trace by
// analysis.h (wavefronts per warp, races, verdicts); nullopt with *why.
std::optional<Analysis> line_picture(const Recording& r,
                                     const std::vector<RecordedInstruction>& ins,
                                     const std::vector<TileDecl>& declared, const ProfileRequest& q,
                                     uint32_t line, bool gpu, std::string* why) {
  std::optional<RecordedPicture> p = recorded_picture(r, ins, declared, line, default_arch(), why);
  if (!p) return std::nullopt;
  const std::string made = gpu ? "recorded on the GPU (block (0,0,0) as it ran)"
                               : "recorded on the CPU: figures are the model's";
  const std::string shared =
      p->shared_place.empty()
          ? std::string()
          : "; extern arrays " + p->shared_place +
                " share one place and the recording does not say which name an access used: "
                "shown as the first declared";
  p->scenario.title = "line " + std::to_string(line) + " of " + q.kernel + ", " + made + shared;
  p->scenario.description = "Line " + std::to_string(line) + " of " + q.file_name + " (" +
                            q.kernel + "), " + made +
                            ": every warp instruction the block ran for it, each lane at the "
                            "address it used, served by bankviz's bank model." +
                            shared;
  AnalysisResult a = analyze(p->scenario, nullptr, std::move(p->trace));
  if (!a.analysis) *why = "the recorded picture does not analyze";
  return std::move(a.analysis);
}

// A line's picture in --record-gpu --json's row of the line: every warp's wavefronts over the
// line's executed steps, their sum and ideal, the steps; or why the line has no picture.
nlohmann::json picture_summary(const Recording& r, const std::vector<RecordedInstruction>& ins,
                               const std::vector<TileDecl>& declared, const ProfileRequest& q,
                               uint32_t line) {
  std::string why;
  const std::optional<Analysis> a = line_picture(r, ins, declared, q, line, true, &why);
  if (!a) return {{"why", why}};
  std::vector<int64_t> per_warp(static_cast<size_t>(a->warp_count()), 0);
  for (const std::vector<WarpStep>& step : a->warps)
    for (const WarpStep& w : step)
      if (w.warp >= 0 && static_cast<size_t>(w.warp) < per_warp.size())
        per_warp[static_cast<size_t>(w.warp)] += w.result.wavefronts;
  nlohmann::json labels = nlohmann::json::array();
  for (const Step& st : a->scenario.steps) labels.push_back(st.label);
  return {{"wavefronts", a->total_wavefronts()},
          {"ideal", a->total_ideal()},
          {"per_warp", per_warp},
          {"steps", labels},
          {"title", a->scenario.title}};
}

std::vector<TileDecl> declared_arrays(const ProfileRequest& q) {
  std::string ignored;
  return shared_arrays_of_kernel(q.source, q.kernel, source_launch(q), q.file_name, &ignored);
}

// --line N with a recording: the line's picture (line_picture()), as JSON (analyze --json's, with
// what made it), or as analyze's table and the races in words; `differs`: why the hardware
// counted other wavefronts for the line (--record-gpu), said above the picture.
void print_line_picture(const Recording& r, const std::vector<RecordedInstruction>& ins,
                        const ProfileRequest& q, uint32_t line, bool gpu, bool json,
                        nlohmann::json* into = nullptr, const std::string& differs = "") {
  std::string why;
  const std::optional<Analysis> a = line_picture(r, ins, declared_arrays(q), q, line, gpu, &why);
  if (!a) {
    if (into) {
      (*into)["picture"] = {{"line", line}, {"why", why}};
      return;
    }
    throw Exit{kExitFailed, "line " + std::to_string(line) + ": " + why};
  }
  if (json || into) {
    nlohmann::json j = {{"line", line},
                        {"made_by", gpu ? "gpu recording" : "cpu recording"},
                        {"figures", "model"},
                        {"analysis", nlohmann::json::parse(analysis_to_json(*a))}};
    if (!differs.empty()) j["hardware_differs"] = differs;
    if (into) {
      (*into)["picture"] = std::move(j);
      return;
    }
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return;
  }
  if (!differs.empty())
    std::cout << "NOT the hardware's figures for this line: " << differs << "\n";
  std::cout << a->scenario.title << ":\n" << render_table(*a);
  if (a->hazards.racing_accesses == 0) std::cout << "races: none\n";
  for (const Issue& is : a->issues) std::cout << is.message << "\n";
}

std::vector<SassInstruction> file_sass(const ProfileRequest& q, const std::string& sm,
                                       std::string* why, std::string* kernel_function = nullptr,
                                       const ProfileResult* profiled = nullptr,
                                       std::string* compiled_by = nullptr);
std::optional<std::vector<LineAsCompiled>> lines_as_compiled(
    const Recording& r, const std::vector<SassInstruction>& sass, const ProfileRequest& q,
    std::string* why, const std::string& kernel_function = {});

// --record: one block recorded on the CPU (kernels/record.h), its lines served by the model.
void run_record(const ProfileOptions& o, const ProfileRequest& q) {
  RecordRequest r;
  r.source = q.source;
  r.file_name = q.file_name;
  r.kernel = q.kernel;
  r.block[0] = q.block.x;
  r.block[1] = q.block.y;
  r.block[2] = q.block.z;
  r.dynamic_shared = q.dynamic_shared;
  r.timeout_s = o.timeout_s;
  for (const KernelArg& a : q.args) {
    const std::optional<Value> v = integer_value(a);
    r.args.push_back(v ? v->to_int64() : std::nullopt);
  }
  const RecordResult rec = record_on_cpu(r);
  if (!rec.notice.empty()) std::cerr << "bankviz-cli: note: " << rec.notice << "\n";
  if (!rec.recording) throw Exit{kExitFailed, rec.error};
  save_recording(o, *rec.recording);
  std::string why;
  const auto ins = recorded_instructions(*rec.recording, default_arch(), &why);
  if (!ins) throw Exit{kExitFailed, why};
  if (o.picture_line > 0) {
    print_line_picture(*rec.recording, *ins, q, static_cast<uint32_t>(o.picture_line), false,
                       o.json);
    return;
  }
  std::vector<RecordedLine> lines = recorded_lines(*ins);
  // The lines as compiled: the instructions nvcc (with --nvcc-flags) or NVRTC makes for the GPU
  // the rules are of (sm_90 for Hopper; no GPU needed), each line's recorded accesses served by
  // them.
  const std::string sm = "sm_" + std::string(default_arch().sm.substr(0, 1)) +
                         std::string(default_arch().sm.size() > 2 ? default_arch().sm.substr(2, 1)
                                                                  : std::string_view("0"));
  std::string no_sass, no_compiled, kernel_function, compiled_by;
  const std::vector<SassInstruction> sass =
      file_sass(q, sm, &no_sass, &kernel_function, nullptr, &compiled_by);
  const auto compiled = lines_as_compiled(*rec.recording, sass, q, &no_compiled, kernel_function);
  const std::string not_compiled = no_sass.empty() ? no_compiled : no_sass;
  std::map<uint32_t, const LineAsCompiled*> compiled_of;
  if (compiled)
    for (const LineAsCompiled& c : *compiled) compiled_of[c.line] = &c;
  if (o.json) {
    nlohmann::json j;
    j["file"] = q.file_name;
    j["kernel"] = q.kernel;
    j["block"] = {q.block.x, q.block.y, q.block.z};
    j["figures"] = "model";
    j["made_by"] = "cpu recording";
    j["accesses"] = rec.recording->accesses.size();
    if (!compiled_by.empty()) j["compiled_by"] = compiled_by;
    if (compiled)
      j["as_compiled"] =
          "the lines' accesses served by the instructions made for " + sm + " by " + compiled_by;
    else
      j["as_compiled_why"] = not_compiled;
    j["lines"] = nlohmann::json::array();
    for (const RecordedLine& l : lines) {
      nlohmann::json row = {{"line", l.line},         {"ops", l.ops},
                            {"requests", l.requests}, {"wavefronts", l.wavefronts},
                            {"ideal", l.ideal},       {"wavefronts_per_request", l.per_request()}};
      // The figures as compiled where they differ from the source's accesses: the line's own
      // figures become them, the source's kept beside ("as_written").
      const auto c = compiled_of.find(l.line);
      if (c != compiled_of.end() && !c->second->how.empty()) {
        row["as_written"] = {{"requests", l.requests}, {"wavefronts", l.wavefronts}};
        row["requests"] = c->second->requests;
        row["wavefronts"] = c->second->wavefronts;
        row["ideal"] = c->second->ideal;
        row["how"] = c->second->how;
        if (c->second->max_wavefronts > 0)
          row["reason"] = "a range, not one figure: " + c->second->how;
      } else if (!compiled) {
        row["reason"] = "the source's accesses, not the compiled instructions (" + not_compiled +
                        "): the compiler may merge, move or keep some in registers";
      }
      if (c != compiled_of.end() && !c->second->differs.empty())
        row["reason"] = row.contains("reason")
                            ? row["reason"].get<std::string>() + "; " + c->second->differs
                            : c->second->differs;
      j["lines"].push_back(row);
    }
    // The kernel's shared instructions on lines where the source makes no access: issued with
    // no active lane (their figures, how), or why the kernel runs them there (reason).
    if (compiled)
      for (const LineAsCompiled& c : *compiled)
        if (std::none_of(lines.begin(), lines.end(),
                         [&](const RecordedLine& l) { return l.line == c.line; })) {
          nlohmann::json row = {{"line", c.line},
                                {"requests", c.requests},
                                {"wavefronts", c.wavefronts},
                                {"ideal", c.ideal}};
          if (!c.how.empty()) row["how"] = c.how;
          if (!c.differs.empty()) row["reason"] = c.differs;
          j["lines"].push_back(row);
        }
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return;
  }
  if (!compiled)
    std::cout << "(as the source makes the accesses, not as compiled: " << not_compiled << ")\n";
  else
    std::cout << "(the lines as compiled for " << sm << " by " << compiled_by << ")\n";
  if (compiled)
    for (const LineAsCompiled& c : *compiled)
      if (!c.differs.empty() || (c.requests > 0 && c.wavefronts == 0 && !c.how.empty()))
        std::cout << "line " << c.line
                  << " as compiled: " << (c.differs.empty() ? c.how : c.differs) << "\n";
  for (RecordedLine& l : lines) {
    const auto c = compiled_of.find(l.line);
    if (c == compiled_of.end() || c->second->how.empty()) continue;
    std::cout << "line " << l.line << " as compiled: " << c->second->how << " (the source's "
              << l.requests << " requests, " << l.wavefronts << " wavefronts)\n";
    l.requests = c->second->requests;
    l.wavefronts = c->second->wavefronts;
    l.ideal = c->second->ideal;
  }
  std::cout << q.kernel << " (" << o.file.substr(o.file.find_last_of('/') + 1)
            << "): the MODEL's figures, not measured: one block of " << q.block.x << 'x'
            << q.block.y << 'x' << q.block.z
            << " threads recorded on the CPU (no GPU used; the kernel compiled by the host "
               "compiler, pointer arguments zeroed), "
            << rec.recording->accesses.size()
            << " shared accesses, each warp's request served by bankviz's bank model ("
            << default_arch().id << "):\n";
  std::cout << format_recorded(lines, q.source);
  if (lines.empty()) std::cout << "(the block made no shared-memory access)\n";
}

// --record-gpu: each recorded line's model figures beside the hardware's for the line. The
// hardware counts the whole grid, the recording block (0,0,0): with one block they are the same
// launch; with more, the hardware's wavefronts are compared with block 0's times the blocks (as if
// every block did what block 0 did). Wavefronts are what must agree: the hardware's executed
// count also holds predicated instructions that warps without an active lane issued (0
// wavefronts), which no recording of accesses can see.
struct RecordedVsHardware {
  uint32_t line = 0;
  const RecordedLine* recorded = nullptr;
  const ProfileLine* hardware = nullptr;
  // The line as compiled (record.h recorded_lines_as_compiled()), where the SASS is at hand: its
  // recorded accesses served by the instructions the compiler emitted for it.
  const LineAsCompiled* compiled = nullptr;
  std::string reason;  // where the two differ: what the compiler made of the line
  bool equal(uint64_t blocks) const {
    // No lane of the block made an access here and the hardware counted no wavefront: its
    // instructions were issued only by warps with no active lane (idle_issues()).
    if (!recorded) return hardware && hardware->wavefronts == 0 && hardware->executed > 0;
    // Every access of the line in another line's instruction: the hardware counts none here.
    if (!hardware) return compiled && compiled->requests == 0;
    if (compiled && compiled->max_wavefronts > 0) return false;  // a range, not one figure
    const int64_t w = compiled ? compiled->wavefronts : recorded->wavefronts;
    return static_cast<uint64_t>(w) * blocks == static_cast<uint64_t>(hardware->wavefronts);
  }
  // Equal wavefronts, more executed: instructions issued with no active lane.
  int64_t idle_issues(uint64_t blocks) const {
    if (!hardware) return 0;
    const int64_t made = (compiled   ? compiled->requests
                          : recorded ? recorded->requests
                                     : 0) *
                         static_cast<int64_t>(blocks);
    return equal(blocks) && hardware->executed > made ? hardware->executed - made : 0;
  }
};

// Why the hardware's figures for line v differ from its recording's: the SASS's reason, or no
// shared instruction on the GPU at all; empty where they agree.
std::string hardware_differs(const RecordedVsHardware& v) {
  if (v.recorded && !v.hardware)
    return "the GPU ran no shared-memory instruction for this line (the compiler kept it in "
           "registers)";
  return v.reason;
}

std::vector<RecordedVsHardware> recorded_vs_hardware(
    const std::vector<RecordedLine>& rec, const ProfileResult& r,
    const std::optional<std::vector<LineAsCompiled>>& compiled) {
  std::map<uint32_t, RecordedVsHardware> by_line;
  for (const RecordedLine& l : rec) {
    by_line[l.line].line = l.line;
    by_line[l.line].recorded = &l;
  }
  if (compiled)
    for (const LineAsCompiled& c : *compiled)
      if (by_line.count(c.line)) by_line[c.line].compiled = &c;
  for (const ProfileLine& l : r.lines)
    if (l.in_file) {
      by_line[l.line].line = l.line;
      by_line[l.line].hardware = &l;
    }
  std::vector<RecordedVsHardware> out;
  for (auto& [line, v] : by_line) out.push_back(v);
  return out;
}

// The profiled file's shared-memory instructions as compiled, disassembled by the toolkit's
// nvdisasm: the code a profile counted (`profiled`), else the kernel compiled for `sm` as profile
// compiles it (nvcc.h user_build(): nvcc with --nvcc-flags, else NVRTC; no GPU needed); empty
// with *why where the listing cannot be had. *compiled_by gets which compiler made it.
std::vector<SassInstruction> file_sass(const ProfileRequest& q, const std::string& sm,
                                       std::string* why, std::string* kernel_function,
                                       const ProfileResult* profiled, std::string* compiled_by) {
  std::vector<SassInstruction> sass;
  UserBuild built;
  if (profiled && !profiled->cubin.empty()) {
    built.cubin = profiled->cubin;
    built.lowered = profiled->lowered;
    built.compiled_by = profiled->compiled_by;
  } else {
    built = user_build(q, sm);
    *why = built.error;
  }
  if (compiled_by) *compiled_by = built.compiled_by;
  const std::vector<char>& cubin = built.cubin;
  const std::string& lowered = built.lowered;
  if (!cubin.empty()) {
    const std::string listing = disassemble(cubin, why);
    if (!listing.empty()) sass = parse_nvdisasm(listing);
  }
  if (kernel_function) *kernel_function = lowered;
  std::vector<SassInstruction> own;  // the profiled file's lines only
  for (SassInstruction i : sass) {
    const bool at_call = i.file.empty() || same_file(i.file, q.file_name);
    if (!i.own_file.empty() && !same_file(i.own_file, q.file_name)) {
      i.own_line = i.line_in(q.file_name);  // a header's: the user's innermost line calling it
      i.own_file = i.own_line != 0 ? q.file_name : std::string();
    }
    if (at_call || i.own_line != 0) own.push_back(std::move(i));
  }
  if (own.empty() && why->empty())
    *why = "the compiled kernel has no instruction on " + q.file_name;
  return own;
}

// The recording's lines as the kernel compiled for `sm` runs them (record.h
// recorded_lines_as_compiled()); nullopt with *why where the SASS cannot be had. Volatile code
// keeps every load (the compiler must issue each).
std::optional<std::vector<LineAsCompiled>> lines_as_compiled(
    const Recording& r, const std::vector<SassInstruction>& sass, const ProfileRequest& q,
    std::string* why, const std::string& kernel_function) {
  if (sass.empty()) return std::nullopt;
  return recorded_lines_as_compiled(r, sass, default_arch(),
                                    q.source.find("volatile") == std::string::npos, why,
                                    kernel_function);
}

// The reason for each line whose recording (as compiled) and hardware differ, from the profiled
// kernel's SASS (`sass`; `no_sass` why there is none).
void explain_differences(std::vector<RecordedVsHardware>& rows,
                         const std::vector<RecordedInstruction>& ins,
                         const std::vector<SassInstruction>& sass, const std::string& no_sass,
                         uint64_t blocks) {
  for (RecordedVsHardware& v : rows) {
    // A line the hardware counts shared instructions on where the source makes no access: the
    // compiler put other lines' accesses there (an if/else's loads and stores merged, code
    // moved; issue 30: Hillis-Steele's `else` branch on an H200), never silently.
    if (!v.recorded && v.hardware && v.hardware->executed > 0 && v.hardware->wavefronts > 0)
      v.reason = "the source makes no shared-memory access on this line, the compiled kernel " +
                 std::to_string(v.hardware->executed) +
                 " executed instructions: the compiler put accesses of other lines here (their "
                 "lines count fewer)";
    if (v.recorded && !v.hardware && !v.equal(blocks))
      v.reason =
          "the GPU ran no shared-memory instruction for this line: the compiler kept its "
          "values in registers or put its accesses on another line";
  }
  for (RecordedVsHardware& v : rows) {
    if (!v.recorded || !v.hardware || v.equal(blocks)) continue;
    int widest = 0;
    for (const RecordedInstruction& i : ins)
      if (i.line == v.line) widest = std::max(widest, i.width);
    v.reason = sass.empty()
                   ? "the compiled kernel's SASS is not at hand: " + no_sass
                   : recorded_line_reason(v.line, widest,
                                          v.recorded->requests * static_cast<int64_t>(blocks),
                                          v.hardware->executed, sass,
                                          v.recorded->wavefronts * static_cast<int64_t>(blocks),
                                          v.hardware->wavefronts);
    if (v.compiled && (!v.compiled->how.empty() || v.compiled->max_wavefronts > 0))
      v.reason += "; as compiled " + std::to_string(v.compiled->requests) + " requests and " +
                  std::to_string(v.compiled->wavefronts) + " wavefronts: " + v.compiled->how;
  }
}

std::string format_recorded_vs_hardware(const std::vector<RecordedVsHardware>& rows,
                                        uint64_t blocks) {
  std::string out;
  char buf[512];
  std::snprintf(buf, sizeof buf, "%6s  %-9s %10s %10s %8s   %10s %10s %8s  %s\n", "line", "op",
                "requests", "wavefronts", "per req", "hw instr", "hw wavefr", "per req", "");
  out += buf;
  for (const RecordedVsHardware& v : rows) {
    const RecordedLine* a = v.recorded;
    const ProfileLine* h = v.hardware;
    const char* verdict = !a && v.equal(blocks) ? "no active lane: no access, 0 wavefronts"
                          : !a                  ? "not recorded (hardware only)"
                          : !h ? "no shared instruction on the GPU (kept in registers?)"
                          : v.equal(blocks) ? "equal wavefronts"
                                            : "DIFFERS";
    std::snprintf(buf, sizeof buf, "%6u  %-9s %10s %10s %8s   %10s %10s %8s  %s\n", v.line,
                  a ? a->ops.c_str() : "", a ? std::to_string(a->requests).c_str() : "-",
                  a ? std::to_string(a->wavefronts).c_str() : "-",
                  a ? fixed(a->per_request(), 2).c_str() : "-",
                  h ? std::to_string(h->executed).c_str() : "-",
                  h ? std::to_string(h->wavefronts).c_str() : "-",
                  h ? fixed(h->per_request(), 2).c_str() : "-", verdict);
    out += buf;
    if (!v.reason.empty())
      out += "          why: " + v.reason + "\n";
    else if (v.compiled && !v.compiled->how.empty())
      out += "          as compiled (" + std::to_string(v.compiled->requests) + " requests, " +
             std::to_string(v.compiled->wavefronts) + " wavefronts): " + v.compiled->how + "\n";
    if (const int64_t idle = v.idle_issues(blocks); idle > 0)
      out += "          (the hardware also issued " + std::to_string(idle) +
             " of the line's instructions on warps with no active lane: predicated, 0 "
             "wavefronts)\n";
  }
  return out;
}

nlohmann::json to_json(const ProfileRequest& q, const ProfileResult& r,
                       const std::vector<SourceLine>& model, uint32_t picture_line) {
  using nlohmann::json;
  json j;
  j["file"] = q.file_name;
  j["kernel"] = q.kernel;
  j["lowered"] = r.lowered;
  j["grid"] = {q.grid.x, q.grid.y, q.grid.z};
  j["block"] = {q.block.x, q.block.y, q.block.z};
  j["status"] = run_status_name(r.status);
  if (r.status != RunStatus::Ok) j["message"] = r.message;
  j["device"] = {{"name", r.device.name}, {"sm", r.device.sm}};
  j["compile_ms"] = r.compile_ms;
  j["compiled_by"] = r.compiled_by;
  j["kernel_ms"] = r.kernel_ms;
  j["counters"] = counter_status_name(r.counters);
  if (!r.counters_message.empty()) j["counters_message"] = r.counters_message;
  j["total"] = {{"executed", r.executed},
                {"wavefronts", r.wavefronts},
                {"ideal", r.ideal},
                {"excess", r.excess()}};
  json lines = json::array();
  auto model_of = [&](uint32_t n) -> const SourceLine* {
    for (const SourceLine& m : model)
      if (m.line == n) return &m;
    return nullptr;
  };
  for (const ProfileLine& l : r.lines) {
    const SourceLine* m = l.in_file ? model_of(l.line) : nullptr;
    lines.push_back({{"file", l.file},
                     {"line", l.line},
                     {"source", l.text},
                     {"ops", l.ops},
                     {"instructions", l.instructions},
                     {"executed", l.executed},
                     {"wavefronts", l.wavefronts},
                     {"ideal", l.ideal},
                     {"excess", l.excess()},
                     {"wavefronts_per_request", l.per_request()},
                     {"as_scenario", m && m->scenario.has_value()},
                     {"model", m ? model_json(*m)
                                 : json{{"line", l.line},
                                        {"why",
                                         "no shared "
                                         "array on the line"}}}});
  }
  j["lines"] = lines;
  json inst = json::array();
  for (const ProfileInstruction& in : r.instructions)
    inst.push_back({{"function", in.function},
                    {"pc", in.pc},
                    {"line", in.line},
                    {"op", in.op},
                    {"executed", in.executed},
                    {"wavefronts", in.wavefronts},
                    {"ideal", in.ideal}});
  j["instructions"] = inst;
  if (q.record) {
    json rec;
    rec["figures"] = "model";
    rec["made_by"] = "gpu recording";
    if (!r.recording) {
      rec["why"] = r.recording_message;
    } else {
      std::string why;
      const auto ins = recorded_instructions(*r.recording, default_arch(), &why);
      if (!ins) {
        rec["why"] = why;
      } else {
        rec["accesses"] = r.recording->accesses.size();
        const std::vector<RecordedLine> rl = recorded_lines(*ins);
        const uint64_t blocks = q.grid.product();
        json rows = json::array();
        std::string no_sass, no_compiled;
        std::string kernel_function;
        const std::vector<SassInstruction> sass =
            file_sass(q, r.device.sm, &no_sass, &kernel_function, &r);
        const auto compiled =
            lines_as_compiled(*r.recording, sass, q, &no_compiled, kernel_function);
        if (!compiled) rec["as_compiled_why"] = no_sass.empty() ? no_compiled : no_sass;
        std::vector<RecordedVsHardware> table = recorded_vs_hardware(rl, r, compiled);
        explain_differences(table, *ins, sass, no_sass, blocks);
        const std::vector<TileDecl> declared = declared_arrays(q);
        std::string differs;  // of --line N's line
        for (const RecordedVsHardware& v : table) {
          if (v.line == picture_line) differs = hardware_differs(v);
          json row = {{"line", v.line}};
          if (v.recorded)
            row["recorded"] = {{"ops", v.recorded->ops},
                               {"requests", v.recorded->requests},
                               {"wavefronts", v.recorded->wavefronts},
                               {"ideal", v.recorded->ideal}};
          if (v.hardware)
            row["hardware"] = {{"executed", v.hardware->executed},
                               {"wavefronts", v.hardware->wavefronts},
                               {"ideal", v.hardware->ideal}};
          if (v.compiled)
            row["compiled"] = {{"requests", v.compiled->requests},
                               {"wavefronts", v.compiled->wavefronts},
                               {"ideal", v.compiled->ideal},
                               {"how", v.compiled->how}};
          if (v.compiled && v.compiled->max_wavefronts > 0)
            row["compiled"]["most"] = {{"requests", v.compiled->max_requests},
                                       {"wavefronts", v.compiled->max_wavefronts}};
          row["equal"] = v.equal(blocks);
          if (!v.reason.empty()) row["reason"] = v.reason;
          if (v.idle_issues(blocks) > 0) row["idle_issues"] = v.idle_issues(blocks);
          if (v.recorded) row["picture"] = picture_summary(*r.recording, *ins, declared, q, v.line);
          rows.push_back(row);
        }
        rec["lines"] = rows;
        if (picture_line > 0)
          print_line_picture(*r.recording, *ins, q, picture_line, true, true, &rec, differs);
      }
    }
    j["recording"] = rec;
  }
  return j;
}

// --record-gpu's text: block (0,0,0) as the GPU ran it, each line served by the model, beside
// the hardware's counts for the line; or why the kernel could not be recorded.
void print_gpu_recording(const ProfileRequest& q, const ProfileResult& r, uint32_t picture_line) {
  if (!r.recording) {
    std::cout << "not recorded on the GPU: " << r.recording_message
              << "\n(every line keeps the hardware's figures only)\n";
    return;
  }
  std::string why;
  const auto ins = recorded_instructions(*r.recording, default_arch(), &why);
  if (!ins) {
    std::cout << "the GPU's recording cannot be served: " << why << "\n";
    return;
  }
  const uint64_t blocks = q.grid.product();
  std::cout << "block (0,0,0) recorded as the GPU ran it (" << r.recording->accesses.size()
            << " shared accesses), each warp's request served by bankviz's bank model ("
            << default_arch().id << "): the MODEL's figures from the recorded addresses, beside "
            << (blocks == 1 ? std::string("the hardware's for the same launch")
                            : "the hardware's for the whole grid (compared with block 0's "
                              "wavefronts times " +
                                  std::to_string(blocks) + " blocks)")
            << ":\n";
  const std::vector<RecordedLine> lines = recorded_lines(*ins);
  std::string no_sass, no_compiled;
  std::string kernel_function;
  const std::vector<SassInstruction> sass =
      file_sass(q, r.device.sm, &no_sass, &kernel_function, &r);
  const auto compiled = lines_as_compiled(*r.recording, sass, q, &no_compiled, kernel_function);
  if (!compiled)
    std::cout << "(the lines as compiled are not at hand: "
              << (no_sass.empty() ? no_compiled : no_sass) << ")\n";
  std::vector<RecordedVsHardware> table = recorded_vs_hardware(lines, r, compiled);
  explain_differences(table, *ins, sass, no_sass, blocks);
  std::cout << format_recorded_vs_hardware(table, blocks);
  if (picture_line == 0) return;
  std::string differs;
  for (const RecordedVsHardware& v : table)
    if (v.line == picture_line) differs = hardware_differs(v);
  try {
    print_line_picture(*r.recording, *ins, q, picture_line, true, false, nullptr, differs);
  } catch (const Exit& e) {
    std::cout << "no picture of " << e.message << "\n";
  }
}

void run_profile(const ProfileOptions& o) {
  // The model's following of a line needs no GPU: --model and --scenario-of-line stay here.
  if (!o.model && o.scenario_line == 0 && run_on_remote_gpu(o.gpu, "profile", {o.file})) return;
  check_served_input(o.file, "file");
  if (!o.save_recording.empty()) refuse_when_served("--save-recording");
  ProfileRequest q;
  std::string err;
  auto dims = [&](const std::string& text, const char* flag) {
    auto d = parse_dim3(text, &err);
    if (!d) throw Exit{kExitUsage, std::string(flag) + ": " + err};
    return *d;
  };
  q.grid = dims(o.grid, "--grid");
  q.block = dims(o.block, "--block");
  for (const std::string& a : o.args) {
    auto arg = parse_kernel_arg(a, &err);
    if (!arg) throw Exit{kExitUsage, err};
    q.args.push_back(*arg);
  }
  if (o.nvcc_flags_given) {
    auto f = parse_nvcc_flags(o.nvcc_flags, &q.nvcc_arch, &err);
    if (!f) throw Exit{kExitUsage, err};
    q.nvcc_flags = std::move(*f);
    q.nvcc_flags_given = true;
    if (o.compiler == "nvrtc")
      throw Exit{kExitUsage, "--nvcc-flags are nvcc's: leave them out with --compiler nvrtc"};
    for (const std::string& f : q.nvcc_flags)
      if (f.rfind("-I", 0) == 0) refuse_when_served("-I in --nvcc-flags");
  }
  q.compiler = o.compiler == "nvcc"    ? ProfileCompiler::Nvcc
               : o.compiler == "nvrtc" ? ProfileCompiler::Nvrtc
                                       : ProfileCompiler::Auto;
  q.kernel = o.kernel;
  q.dynamic_shared = static_cast<uint32_t>(o.shared);
  q.timeout_ms = o.timeout_s * 1000;
  q.counters = !o.no_counters;
  q.record = o.record_gpu;
  TextRead src = read_text_file(o.file, static_cast<int64_t>(kMaxProfileSourceBytes));
  if (!src.text) throw Exit{kExitFailed, src.error};
  q.source = std::move(*src.text);
  // The path as given: NVRTC's messages and the line table name it, so Nsight Compute, run on
  // this command from the same directory, finds the source too.
  q.file_name = o.file;
  if (auto problems = check_request(q); !problems.empty()) {
    std::string m;
    for (const std::string& p : problems) m += (m.empty() ? "" : "\n") + p;
    throw Exit{kExitUsage, m};
  }

  const SourceLaunch launch = source_launch(q);
  if (o.scenario_line > 0) {
    // The model's side of a line, without a GPU (core/from_source.h).
    const SourceScenario sc = scenario_from_source_line(
        q.source, static_cast<uint32_t>(o.scenario_line), launch, q.file_name);
    if (!sc.scenario) throw Exit{kExitFailed, sc.why};
    std::cout << scenario_to_json(*sc.scenario);
    return;
  }

  if (o.picture_line > 0 && !o.record && !o.record_gpu)
    throw Exit{kExitUsage,
               "--line N shows a line as recorded: give --record (on the CPU) or --record-gpu "
               "(--scenario-of-line N is the followed model's scenario of a line)"};
  if (!o.save_recording.empty()) {
    if (!o.record && !o.record_gpu)
      throw Exit{kExitUsage, "--save-recording FILE needs --record or --record-gpu"};
    std::error_code ec;
    if (std::filesystem::exists(std::filesystem::symlink_status(o.save_recording, ec)))
      throw Exit{kExitFailed, "--save-recording: '" + o.save_recording + "'" +
                                  " exists; the recording is written to a new file only"};
    if (std::string why = output_problem(o.save_recording, false); !why.empty())
      throw Exit{kExitFailed, why};
  }
  if (o.record) {
    run_record(o, q);
    return;
  }

  // The model's side of every shared-memory line (no GPU needed).
  std::string model_why;
  const std::vector<SourceLine> model =
      shared_lines_of_kernel(q.source, q.kernel, launch, q.file_name, &model_why);
  if (o.model) {
    if (!model_why.empty()) throw Exit{kExitFailed, model_why};
    if (o.json) {
      nlohmann::json j;
      j["file"] = q.file_name;
      j["kernel"] = q.kernel;
      j["block"] = {q.block.x, q.block.y, q.block.z};
      j["figures"] = "model";
      j["lines"] = nlohmann::json::array();
      for (const SourceLine& l : model) j["lines"].push_back(model_json(l));
      std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
      return;
    }
    std::cout << q.kernel << " (" << o.file.substr(o.file.find_last_of('/') + 1)
              << "): the MODEL's figures, not measured (bankviz's bank model over one block of "
              << q.block.x << 'x' << q.block.y << 'x' << q.block.z
              << " threads, the kernel followed line by line; no GPU used):\n";
    std::cout << format_model(model, q.source);
    return;
  }

  Runner runner;
  const ProfileResult r = runner.profile(q);
  if (r.recording) save_recording(o, *r.recording);
  // Which profiled lines the model can show as scenarios.
  std::vector<uint32_t> expressible;
  for (const ProfileLine& l : r.lines)
    for (const SourceLine& m : model)
      if (l.line == m.line && l.in_file && m.scenario) expressible.push_back(l.line);
  if (o.json) {
    std::cout << to_json(q, r, model, static_cast<uint32_t>(o.picture_line))
                     .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
              << "\n";
  } else if (r.status == RunStatus::Ok) {
    const DeviceInfo& d = r.device;
    std::cout << q.kernel << " (" << o.file.substr(o.file.find_last_of('/') + 1) << ") on "
              << d.name << " (" << d.sm << "): grid " << q.grid.x << 'x' << q.grid.y << 'x'
              << q.grid.z << ", block " << q.block.x << 'x' << q.block.y << 'x' << q.block.z
              << "\n";
    std::cout << "compile: "
              << (r.compile_ms > 0 ? fixed(r.compile_ms, 1) + " ms" : std::string("cached"))
              << " by " << r.compiled_by << "; one launch: " << fixed(r.kernel_ms * 1000, 1)
              << " us\n";
    if (r.counters == CounterStatus::Ok) {
      std::cout << "shared memory per source line, from the hardware (CUPTI SASS metrics; "
                   "wavefronts beyond the ideal are bank conflicts), most excess first:\n";
      std::cout << format_profile(r, static_cast<size_t>(o.lines));
      if (r.lines.empty()) std::cout << "(the kernel executed no shared-memory instruction)\n";
      // The model's figures beside them: the same lines, one block.
      std::vector<SourceLine> shown;
      for (const SourceLine& m : model)
        for (const ProfileLine& l : r.lines)
          if (l.line == m.line && l.in_file) {
            shown.push_back(m);
            break;
          }
      if (!shown.empty())
        std::cout << "the model's figures for these lines (bankviz's bank model over one block; "
                     "per request comparable with the hardware's):\n"
                  << format_model(shown, q.source);
      if (!expressible.empty()) {
        std::cout << "as bankviz scenarios (the model's picture of the line: add "
                     "--scenario-of-line N, then bankviz --file):";
        for (uint32_t n : expressible) std::cout << ' ' << n;
        std::cout << "\n";
      }
    }
    if (!r.counters_message.empty())
      std::cout << "hardware counters: " << r.counters_message << "\n";
    if (q.record) print_gpu_recording(q, r, static_cast<uint32_t>(o.picture_line));
  }
  if (r.wedged) {
    // The kernel still runs: the Runner's destructor must not wait for it. Ending the process
    // is what stops it.
    if (!o.json)
      std::cerr << "bankviz-cli: " << run_status_name(r.status) << ": " << r.message << "\n";
    end_process_after_fault(kExitFailed);
  }
  if (r.status != RunStatus::Ok)
    throw Exit{kExitFailed,
               o.json ? "" : std::string(run_status_name(r.status)) + ": " + r.message};
  if (q.counters && r.counters != CounterStatus::Ok) throw Exit{kExitFailed, ""};
}

}  // namespace

void add_profile_command(CLI::App& app) {
  auto o = std::make_shared<ProfileOptions>();
  auto* cmd = app.add_subcommand(
      "profile",
      "compile your own kernel (nvcc with --nvcc-flags where installed, else NVRTC; line info), "
      "run it on zeroed buffers, and report per "
      "source line the shared-memory instructions, wavefronts, ideal wavefronts and excess, from "
      "the hardware's per-instruction counters (needs a GPU)");
  cmd->add_option("file", o->file, "the CUDA source file (.cu), at most 1 MB")->required();
  cmd->add_option("--kernel", o->kernel, "the __global__ function to launch (its C++ name)")
      ->required();
  cmd->add_option("--grid", o->grid, "blocks: X, XxY or XxYxZ (default 1)");
  cmd->add_option("--block", o->block, "threads per block: X, XxY or XxYxZ")->required();
  cmd->add_option("--arg", o->args,
                  "one per kernel parameter, in order: buffer:BYTES (zeroed device memory; K, M, "
                  "G suffixes), int:V, uint:V, long:V, ulong:V, float:V, double:V");
  cmd->add_option("--shared", o->shared, "bytes of dynamic (extern) shared memory per block")
      ->check(CLI::Range(0LL, 1LL << 30));
  cmd->add_option("--timeout", o->timeout_s, "seconds a launch may take (default 10)")
      ->check(finite_number())
      ->check(CLI::Range(0.001, 600.0));
  cmd->add_flag("--no-counters", o->no_counters, "compile, launch and time only");
  cmd->add_flag("--json", o->json, "print the result as JSON (every line and instruction)");
  cmd->add_option("--scenario-of-line", o->scenario_line,
                  "print line N's shared accesses as a bankviz scenario (JSON) instead of "
                  "profiling: the kernel followed for one block of this --block (and --shared), "
                  "every time the line executes (no GPU needed)")
      ->check(CLI::Range(1LL, 100000000LL));
  cmd->add_flag("--model", o->model,
                "no GPU: the model's figures for every shared-memory line of the kernel (the "
                "kernel followed for one block of --block threads), and why a line cannot be");
  cmd->add_flag("--record", o->record,
                "no GPU: record one block of --block threads on the CPU (the kernel compiled by "
                "the host compiler against bankviz's CUDA emulation, in a process of its own) and "
                "give every shared-memory line's model figures from what it did");
  auto* record_cpu = cmd->get_option("--record");
  cmd->add_flag("--record-gpu", o->record_gpu,
                "with the profile: record block (0,0,0) as the GPU runs it (the kernel compiled "
                "once more by NVRTC with its __shared__ arrays as recording proxies, launched on "
                "fresh zeroed buffers) and give each line's model figures from the recorded "
                "addresses beside the hardware's")
      ->excludes(record_cpu)
      ->excludes(cmd->get_option("--model"));
  cmd->add_option("--line", o->picture_line,
                  "with --record or --record-gpu: line N's recorded accesses as a picture (the "
                  "model's analysis of the recorded trace: every warp instruction, wavefronts per "
                  "warp, races), as analyze prints it or, with --json, its JSON")
      ->check(CLI::Range(1LL, 100000000LL))
      ->excludes(cmd->get_option("--scenario-of-line"));
  cmd->add_option("--save-recording", o->save_recording,
                  "with --record or --record-gpu: also write the recording (docs/RECORD.md's "
                  "text format) to FILE, which must not exist");
  cmd->add_option("--nvcc-flags", o->nvcc_flags,
                  "the flags you build the kernel with, for nvcc (one quoted argument: \"-O3 "
                  "-use_fast_math -DTILE=32\"; default \"" +
                      std::string(kDefaultNvccFlags) +
                      "\", -lineinfo added where neither it nor -G is given). Only flags that "
                      "shape the kernel's code are taken (-O, -G, -lineinfo, -use_fast_math, "
                      "-ftz/-prec-div/-prec-sqrt/-fmad, -std, -D, -U, -I, -maxrregcount, -arch of "
                      "this GPU, -Xptxas -O/-v, ...)")
      ->each([o](const std::string&) { o->nvcc_flags_given = true; });
  cmd->add_option("--compiler", o->compiler,
                  "who compiles the kernel: auto (nvcc where it is installed, as you build it, "
                  "else NVRTC; the default), nvcc, or nvrtc (bankviz's own compile, as the GPU "
                  "recording's). The output says which")
      ->check(CLI::IsMember({"auto", "nvcc", "nvrtc"}));
  cmd->add_option("--lines", o->lines, "lines shown in the table, most excess first (0: all)")
      ->check(CLI::Range(0LL, 1000000LL));
  add_gpu_options(*cmd, o->gpu);
  cmd->callback([o] { run_profile(*o); });
}

}  // namespace bankviz::cli
