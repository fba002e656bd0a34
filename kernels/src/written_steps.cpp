// written_steps.cpp: the written kernel step by step from the hardware (written_steps.h).
#include "bankviz/written_steps.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "bankviz/trace.h"
#include "plan.h"

namespace bankviz {

ProfileRequest written_profile_request(const Scenario& s, const KernelSource& k) {
  ProfileRequest r;
  r.source = k.text;
  r.file_name = k.file_name;
  r.kernel = k.kernel_name;
  // bankviz's own kernel, compiled as `run` and the model as compiled compile it (NVRTC): the
  // steps' lines and the SASS's pcs are of that code (a user's nvcc is for a user's kernel).
  r.compiler = ProfileCompiler::Nvrtc;
  r.grid.x = static_cast<uint32_t>(std::max<int64_t>(1, s.grid));
  r.block = {static_cast<uint32_t>(s.block[0]), static_cast<uint32_t>(s.block[1]),
             static_cast<uint32_t>(s.block[2])};
  r.dynamic_shared = static_cast<uint32_t>(k.dynamic_shared_bytes);
  KernelArg out;
  out.kind = KernelArg::Kind::Buffer;
  out.bytes = static_cast<uint64_t>(r.grid.x) * static_cast<uint64_t>(s.threads()) * 4;
  out.text = "out";
  r.args.push_back(out);
  if (k.has_input) {  // reference.h kernel_input(): input_word() for every word
    KernelArg in = out;
    in.bytes = static_cast<uint64_t>(kernel_input_words(s)) * 4;
    in.text = "in";
    r.args.push_back(in);
  }
  return r;
}

std::vector<WrittenStep> written_steps(const Scenario& s, const Analysis& a, const KernelSource& k,
                                       const std::vector<ProfileInstruction>& instructions,
                                       const std::vector<SassInstruction>* sass) {
  // The step whose lines hold `line`: the last step starting at or before it.
  std::vector<std::pair<int, int>> starts;  // (first line, step)
  for (size_t i = 0; i < k.step_line.size(); ++i)
    if (k.step_line[i] > 0) starts.emplace_back(k.step_line[i], static_cast<int>(i));
  std::sort(starts.begin(), starts.end());
  std::map<uint32_t, const SassInstruction*> by_pc;
  if (sass)
    for (const SassInstruction& x : *sass) by_pc[x.pc] = &x;
  auto step_of = [&](const ProfileInstruction& in) {
    std::string file = in.file;
    uint32_t at = in.line;
    if (const auto x = by_pc.find(in.pc); x != by_pc.end() && x->second->line > 0)
      file = x->second->file, at = x->second->line;
    if (!same_file(file, k.file_name) || at == 0) return -1;
    int found = -1;
    for (const auto& [line, step] : starts)
      if (static_cast<int64_t>(line) <= static_cast<int64_t>(at)) found = step;
    return found;
  };
  const int64_t grid = std::max<int64_t>(1, s.grid);
  const detail::LaunchModel launch =
      uses_block_index(s) ? detail::model_of_launch(s, a.arch, grid) : detail::LaunchModel{};

  std::vector<WrittenStep> out;
  std::vector<int> row_of(s.steps.size(), -1);
  for (size_t i = 0; i < s.steps.size(); ++i) {
    if (!s.steps[i].is_memory()) continue;
    WrittenStep w;
    w.step = static_cast<int>(i);
    w.label = s.steps[i].label.empty() ? s.steps[i].kind_text() + " " + s.steps[i].index
                                       : s.steps[i].label;
    if (uses_block_index(s)) {
      if (!launch.steps.empty()) {
        w.model_instructions = launch.steps[i].instructions;
        w.model_wavefronts = launch.steps[i].wavefronts;
      }
    } else {
      const detail::StepModel m = detail::model_of_step(a, static_cast<int>(i));
      w.model_instructions = m.instructions * grid;
      w.model_wavefronts = m.wavefronts * grid;
    }
    row_of[i] = static_cast<int>(out.size());
    out.push_back(std::move(w));
  }
  WrittenStep none;
  for (const ProfileInstruction& in : instructions) {
    const int step = step_of(in);
    const bool known = step >= 0 && row_of[static_cast<size_t>(step)] >= 0;
    WrittenStep& w = known ? out[static_cast<size_t>(row_of[static_cast<size_t>(step)])] : none;
    ++w.sass_instructions;
    if (std::find(w.ops.begin(), w.ops.end(), in.op) == w.ops.end()) w.ops.push_back(in.op);
    w.executed += in.executed;
    w.wavefronts += in.wavefronts;
  }
  if (none.sass_instructions > 0) out.push_back(std::move(none));
  return out;
}

void attach_compiled(std::vector<WrittenStep>& rows, const std::vector<CompiledStep>& launch) {
  for (WrittenStep& w : rows)
    for (const CompiledStep& c : launch)
      if (c.step == w.step && w.step >= 0) {
        w.compiled = true;
        w.compiled_instructions = c.instructions;
        // CUPTI's per-instruction counter: a cp.async's later global passes not counted.
        w.compiled_wavefronts = c.per_instruction_wavefronts();
        w.compiled_reason = c.reason;
      }
}

std::string format_written_steps(const std::vector<WrittenStep>& steps, int64_t grid) {
  const double g = static_cast<double>(std::max<int64_t>(1, grid));
  const bool compiled =
      std::any_of(steps.begin(), steps.end(), [](const WrittenStep& w) { return w.compiled; });
  std::string out =
      compiled
          ? "step  hardware instr  wavefronts   model instr  wavefronts  (per block, the model "
            "as compiled)  SASS\n"
          : "step  hardware instr  wavefronts   model instr  wavefronts  (per block)  SASS\n";
  char line[512];
  for (const WrittenStep& w : steps) {
    std::string ops;
    for (const std::string& op : w.ops) {
      if (!ops.empty()) ops += ',';
      ops += op;
    }
    const bool agrees = w.compiled ? w.agrees_compiled() : w.agrees();
    std::snprintf(line, sizeof line, "%4s  %14.2f  %10.2f  %12.2f  %10.2f  %-11s  %d %s  %s\n",
                  w.step >= 0 ? std::to_string(w.step).c_str() : "-", w.executed / g,
                  w.wavefronts / g,
                  (w.compiled ? w.compiled_instructions : w.model_instructions) / g,
                  (w.compiled ? w.compiled_wavefronts : w.model_wavefronts) / g,
                  w.step < 0 ? "no step"
                  : agrees   ? "agrees"
                             : "differs",
                  w.sass_instructions, ops.c_str(), w.label.c_str());
    out += line;
    if (w.compiled && !w.compiled_reason.empty()) {
      std::snprintf(line, sizeof line, "      as written %.2f instructions, %.2f wavefronts: ",
                    w.model_instructions / g, w.model_wavefronts / g);
      out += line + w.compiled_reason + "\n";
    }
  }
  return out;
}

}  // namespace bankviz
