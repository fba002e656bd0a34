// panel_profile.cpp: the "your kernel" window (key K, toolbar): a user's .cu file profiled per
// source line by the hardware (profiler.h), its source shown with each line coloured by its
// excess wavefronts (the bank conflicts), the figures beside the lines that touch shared memory.
#include <algorithm>
#include <map>

#include "shell/panels.h"
// after imgui.h (via panels.h): it needs IMGUI_API
#include "imgui_stdlib.h"
#include "platform/theme.h"
#include "profile/profiler.h"

namespace bankviz::gui {

namespace {

void form(AppState& s, ProfilerState& p, bool running) {
  ProfileForm& f = p.form;
  const float w = ImGui::GetFontSize() * 22;
  ImGui::SetNextItemWidth(w);
  ImGui::InputText(".cu file", &f.file);
  control_tip(
      "The CUDA source file (at most 1 MB). It is compiled by NVRTC with line info, for this GPU.");
  ImGui::SetNextItemWidth(w);
  ImGui::InputText("kernel", &f.kernel);
  control_tip("The __global__ function to launch: its C++ name (ns::name is fine).");
  // The file's kernels to pick from (read again when the path changes).
  refresh_kernels(p.kernels, f.file);
  if (!p.kernels.kernels.empty()) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
    if (ImGui::BeginCombo("##pick", "pick", ImGuiComboFlags_None)) {
      for (const std::string& k : p.kernels.kernels)
        if (ImGui::Selectable(k.c_str(), k == f.kernel)) f.kernel = k;
      ImGui::EndCombo();
    }
    control_tip("The __global__ functions of this file");
  }
  ImGui::SetNextItemWidth(w * 0.45f);
  ImGui::InputText("grid", &f.grid);
  control_tip("Blocks: X, XxY or XxYxZ");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(w * 0.45f);
  ImGui::InputText("block", &f.block);
  control_tip("Threads per block: X, XxY or XxYxZ (at most 1024)");
  ImGui::SetNextItemWidth(w);
  ImGui::InputText("arguments", &f.args);
  control_tip(
      "One per kernel parameter, in order, separated by spaces: buffer:BYTES (zeroed device "
      "memory bankviz allocates; K, M, G), int:V, uint:V, long:V, ulong:V, float:V, double:V. "
      "Example: buffer:4K int:3");
  ImGui::SetNextItemWidth(w * 0.45f);
  ImGui::InputInt("dynamic shared bytes", &f.shared, 1024, 4096);
  f.shared = std::clamp(f.shared, 0, 1 << 30);
  control_tip("Bytes of extern __shared__ memory per block (the launch's third parameter)");
  ImGui::SetNextItemWidth(w * 0.45f);
  ImGui::InputDouble("timeout s", &f.timeout_s, 1, 10, "%.1f");
  f.timeout_s = std::clamp(f.timeout_s, 0.1, 600.0);
  control_tip(
      "Seconds one launch may take; past it the profile is stopped (its process ends, so the "
      "GPU is free again)");
  if (running) {
    if (ImGui::Button("Cancel")) p.cancel = true;
    control_tip("Stop the profile: its bankviz-cli process is ended, and the GPU with it");
    ImGui::SameLine();
    ImGui::TextDisabled("profiling ... %.0f s", ImGui::GetTime() - p.started);
  } else {
    if (ImGui::Button("Profile")) {
      p.start_error.clear();
      start_profile(p, &p.start_error, ImGui::GetTime());
    }
    control_tip(
        "Compile, run on zeroed buffers and count every shared-memory instruction with the "
        "hardware's per-instruction counters (CUPTI SASS metrics), in a bankviz-cli of its own");
    ImGui::SameLine();
    ImGui::Checkbox("record", &p.form.record_gpu);
    control_tip(
        "With Profile: also record block (0,0,0) as the GPU runs it (the kernel compiled once "
        "more with its __shared__ arrays as recording proxies) and give each line the model's "
        "figures from the recorded addresses beside the hardware's (bankviz-cli profile "
        "--record-gpu, docs/RECORD.md)");
    ImGui::SameLine();
    if (ImGui::Button("Model (no GPU)")) {
      p.start_error.clear();
      p.form.model = true;
      start_profile(p, &p.start_error, ImGui::GetTime());
      p.form.model = false;
    }
    control_tip(
        "The model's figures for every shared-memory line, without a GPU: the kernel followed "
        "for one block of this launch (bankviz-cli profile --model); lines it cannot follow say "
        "why");
    ImGui::SameLine();
    if (ImGui::Button("Record (no GPU)")) {
      p.start_error.clear();
      p.form.record = true;
      start_profile(p, &p.start_error, ImGui::GetTime());
      p.form.record = false;
    }
    control_tip(
        "Run one block of this launch on the CPU (the kernel compiled by the host compiler, in "
        "a process of its own) and give every shared-memory line the model's figures from what "
        "it did: data-dependent indexes included (bankviz-cli profile --record, docs/RECORD.md)");
  }
  // The window's own problems stay in the window (issue 18), not in the main window's notice.
  if (!p.start_error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, colv(s.palette.conflict));
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(p.start_error.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
  }
}

// The line's scenario on screen, like a file opened over the draft (undoable).
void open_line(AppState& s, const ProfiledLine& l, bool model) {
  s.profiler.shown_line = l.line;
  s.open_pending = true;
  set_draft(s, *l.scenario, false);
  mark_loaded(s);
  s.preset.clear();
  s.edit.loaded_preset.clear();
  set_notice(s,
             "line " + std::to_string(l.line) + " opened as a scenario: " +
                 (model ? "the model counts " : "the hardware counted ") +
                 std::to_string(l.wavefronts) + " wavefronts in " + std::to_string(l.executed) +
                 " instructions (Ctrl+Z goes back)",
             ImGui::GetTime(), 8);
}

void result(AppState& s, const ProfileOutcome& o) {
  const Palette& pal = s.palette;
  if (!o.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, colv(pal.conflict));
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(o.error.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
  }
  if (o.header.empty()) return;
  ImGui::TextUnformatted(o.header.c_str());
  ImGui::Text(o.model ? "the model: %lld wavefronts, ideal %lld, excess %lld (%.1f s)"
                      : "shared memory: %lld wavefronts, ideal %lld, excess %lld (%.1f s)",
              static_cast<long long>(o.wavefronts), static_cast<long long>(o.ideal),
              static_cast<long long>(o.excess), o.seconds);
  control_tip(o.model ? "Wavefronts beyond the ideal are bank conflicts: the model's count over "
                        "one block, not measured (docs/PROFILE.md)"
                      : "Wavefronts beyond the ideal are bank conflicts: the hardware's count, "
                        "equal to Nsight Compute's source page (docs/PROFILE.md)");
  if (!o.recording_note.empty()) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", o.recording_note.c_str());
    ImGui::PopTextWrapPos();
  }
  std::map<uint32_t, const ProfiledLine*> by_line;
  int64_t worst = 0;
  for (const ProfiledLine& l : o.lines) {
    by_line[l.line] = &l;
    worst = std::max(worst, l.excess);
  }
  // Through the kernel's lines as a lesson goes through its scenes: each opens in the main views.
  const std::vector<uint32_t> openable = openable_lines(o);
  if (!openable.empty()) {
    const uint32_t cur = s.profiler.shown_line;
    const uint32_t prev = step_line(openable, cur, -1), next = step_line(openable, cur, +1);
    ImGui::BeginDisabled(prev == 0);
    if (ImGui::Button("< previous line")) open_line(s, *by_line.at(prev), o.model);
    ImGui::EndDisabled();
    control_tip("Open the previous shared-memory line of the kernel as a scenario");
    ImGui::SameLine();
    ImGui::BeginDisabled(next == 0);
    if (ImGui::Button("next line >")) open_line(s, *by_line.at(next), o.model);
    ImGui::EndDisabled();
    control_tip(
        "Open the next shared-memory line of the kernel as a scenario: step through the kernel's "
        "lines, each one's picture in the main views");
    ImGui::SameLine();
    const auto at = std::find(openable.begin(), openable.end(), cur);
    if (at == openable.end())
      ImGui::TextDisabled("%zu lines open as pictures", openable.size());
    else
      ImGui::Text("line %u: %zu of %zu", cur, static_cast<size_t>(at - openable.begin()) + 1,
                  openable.size());
  }
  const ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_Resizable;
  if (!ImGui::BeginTable("source", 8, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("line", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("op", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("wavefronts", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("ideal", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("per request", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("model", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("recorded", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("source", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  for (size_t i = 0; i < o.source.size(); ++i) {
    const uint32_t n = static_cast<uint32_t>(i + 1);
    auto it = by_line.find(n);
    const ProfiledLine* l = it == by_line.end() ? nullptr : it->second;
    ImGui::TableNextRow();
    if (l && l->excess > 0 && worst > 0) {
      // The conflict colour, stronger for more excess: the expensive lines stand out.
      const float a = 0.25f + 0.55f * static_cast<float>(l->excess) / static_cast<float>(worst);
      ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1, col(pal.conflict, a));
    }
    ImGui::TableNextColumn();
    ImGui::TextDisabled("%u", n);
    ImGui::TableNextColumn();
    if (l) ImGui::TextUnformatted(l->ops.c_str());
    ImGui::TableNextColumn();
    if (l) ImGui::Text("%lld", static_cast<long long>(l->wavefronts));
    ImGui::TableNextColumn();
    if (l) ImGui::Text("%lld", static_cast<long long>(l->ideal));
    ImGui::TableNextColumn();
    if (l) ImGui::Text("%.2f", l->per_request);
    ImGui::TableNextColumn();
    if (l && l->scenario) {
      ImGui::PushID(static_cast<int>(n));
      if (ImGui::SmallButton("open")) open_line(s, *l, o.model);
      control_tip(
          "Open this line's accesses as a bankviz scenario: the model's picture of every time "
          "it runs in one block, beside the hardware's count (Ctrl+Z goes back)");
      ImGui::SameLine();
      ImGui::Text("%.2f", l->model_per_request);
      control_tip("The model's wavefronts per request for this line over one block");
      ImGui::PopID();
    } else if (l && !l->model_why.empty()) {
      ImGui::TextDisabled("why?");
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", l->model_why.c_str());
    }
    ImGui::TableNextColumn();
    if (l && l->recorded) {
      const double per = l->recorded_requests > 0 ? static_cast<double>(l->recorded_wavefronts) /
                                                        static_cast<double>(l->recorded_requests)
                                                  : 0;
      if (l->executed == 0)
        ImGui::TextDisabled("%.2f", per);
      else if (l->recorded_equal)
        ImGui::Text("%.2f =", per);
      else
        ImGui::TextColored(colv(pal.conflict), "%.2f !=", per);
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip(
            "recorded on the GPU (block 0), served by the model: %lld wavefronts in %lld "
            "requests; %s",
            static_cast<long long>(l->recorded_wavefronts),
            static_cast<long long>(l->recorded_requests),
            l->executed == 0              ? "the hardware ran no shared instruction for this line"
            : l->recorded_equal           ? "the hardware counted the same wavefronts"
            : !l->recorded_reason.empty() ? l->recorded_reason.c_str()
                                          : "the hardware counted otherwise");
    }
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(o.source[i].c_str());
    if (l && ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "line %u: %lld warp instructions, %lld wavefronts (ideal %lld): %lld "
          "excess, %.2f per request",
          n, static_cast<long long>(l->executed), static_cast<long long>(l->wavefronts),
          static_cast<long long>(l->ideal), static_cast<long long>(l->excess), l->per_request);
  }
  ImGui::EndTable();
}

}  // namespace

void draw_profile(AppState& s) {
  ProfilerState& p = s.profiler;
  poll_profile(p);
  if (!p.open) return;
  const float fs = ImGui::GetFontSize();
  ImGui::SetNextWindowSize(ImVec2(fs * 52, fs * 34), ImGuiCond_FirstUseEver);
  if (!ImGui::Begin("Your kernel: shared memory per source line", &p.open)) return ImGui::End();
  form(s, p, p.job.valid());
  if (p.outcome) {
    ImGui::Separator();
    result(s, *p.outcome);
  }
  ImGui::End();
}

}  // namespace bankviz::gui
