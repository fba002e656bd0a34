// panel_measure.cpp: predicted (the model's wavefronts) beside measured (the real kernel's time).
//
// A view over the Measurer: runs happen on its worker thread; this panel only reads its state.
#include <algorithm>

#include "platform/theme.h"
#include "shell/panels.h"

namespace bankviz::gui {

namespace {

// The GPU's own counters beside the model, one row per exposed step and one for the written
// kernel (per lesson block), or why none were read and how to allow them.
void draw_counters(const Measurement& m, const Palette& pal) {
  if (!m.counters_problem.empty()) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(pal.light ? ImVec4(0.55f, 0.35f, 0.0f, 1) : ImVec4(1.0f, 0.8f, 0.4f, 1),
                       "Hardware counters: %s", m.counters_problem.c_str());
    ImGui::PopTextWrapPos();
    return;
  }
  if (m.counters.empty()) return;
  ImGui::TextUnformatted("Hardware counters (CUPTI, as Nsight Compute counts) vs the model:");
  const ImGuiTableFlags flags =
      ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("counters", 5, flags)) return;
  ImGui::TableSetupColumn("per lesson block", ImGuiTableColumnFlags_WidthStretch, 3.0f);
  ImGui::TableSetupColumn("hardware wavefronts");
  ImGui::TableSetupColumn("in instructions");
  ImGui::TableSetupColumn("model");
  ImGui::TableSetupColumn("");
  ImGui::TableHeadersRow();
  const ImVec4 good = pal.light ? ImVec4(0.1f, 0.5f, 0.1f, 1) : ImVec4(0.5f, 0.9f, 0.5f, 1);
  const ImVec4 bad = pal.light ? ImVec4(0.7f, 0.1f, 0.1f, 1) : ImVec4(1.0f, 0.5f, 0.5f, 1);
  for (const Measurement::CounterRow& row : m.counters) {
    const CounterComparison& c = row.hw;
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(row.what.c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%.6g", c.hw_wavefronts);
    ImGui::TableNextColumn();
    ImGui::Text("%.6g", c.hw_instructions);
    ImGui::TableNextColumn();
    if (c.model_instructions != c.hw_instructions)
      ImGui::Text("%.6g in %.6g", c.model_wavefronts, c.model_instructions);
    else
      ImGui::Text("%.6g", c.model_wavefronts);
    ImGui::TableNextColumn();
    if (c.agrees())
      ImGui::TextColored(good, "agrees");
    else
      ImGui::TextColored(bad, c.model_block0_only ? "blocks differ" : "differs: see below");
  }
  ImGui::EndTable();
}

// The written kernel as the compiler made it: the steps that differ from the model as written,
// with the reason (compiled.h), or that every step is as written, or why it is not known.
void draw_compiled(const Measurement& m, const Palette& pal) {
  if (!m.compiled_problem.empty()) {
    ImGui::TextDisabled("As compiled: not modelled (%s)", m.compiled_problem.c_str());
    return;
  }
  if (!m.compiled_read) return;
  if (m.compiled.empty()) {
    ImGui::TextDisabled("As compiled (the cubin's SASS): every step as written");
    return;
  }
  ImGui::TextUnformatted("As compiled (the cubin's SASS), where it differs from as written:");
  const ImGuiTableFlags flags =
      ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("compiled", 4, flags)) return;
  ImGui::TableSetupColumn("per lesson block", ImGuiTableColumnFlags_WidthStretch, 2.0f);
  ImGui::TableSetupColumn("as written");
  ImGui::TableSetupColumn("as compiled");
  ImGui::TableSetupColumn("why", ImGuiTableColumnFlags_WidthStretch, 3.0f);
  ImGui::TableHeadersRow();
  for (const Measurement::CompiledRow& r : m.compiled) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextWrapped("%s", r.what.c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%lld wf in %lld", static_cast<long long>(r.written_wavefronts),
                static_cast<long long>(r.written_instructions));
    ImGui::TableNextColumn();
    ImGui::TextColored(colv(pal.conflict), "%lld wf in %lld", static_cast<long long>(r.wavefronts),
                       static_cast<long long>(r.instructions));
    ImGui::TableNextColumn();
    ImGui::TextWrapped("%s", r.reason.c_str());
  }
  ImGui::EndTable();
}

}  // namespace

void draw_measurement(const MeasureState& ms, const Analysis* analysis, bool asking,
                      const Palette& pal, Rect r) {
  if (!begin_panel("Measurement", r)) return ImGui::End();
  if (asking) {
    // Ask before telling: the model's and the GPU's figures are the answer.
    ImGui::TextWrapped("The model and the GPU's measurement are shown with the answer.");
    return ImGui::End();
  }
  // Every line wraps: a narrow sidebar (1280x800) must never cut a figure off.
  ImGui::PushTextWrapPos(0);
  if (analysis) {
    const Analysis& a = *analysis;
    ImGui::Text("Model: %d wavefronts (ideal %d) on %.*s", a.total_wavefronts(), a.total_ideal(),
                static_cast<int>(a.arch->name.size()), a.arch->name.data());
    if (a.arch->has(Provenance::Extrapolated)) arch_rules_label(*a.arch, pal);
  }
  // Where the figures come from when not this machine's GPU: "GPU: H200 on gpu1", "connecting".
  if (const std::string src = ms.measurer.source(); !src.empty())
    ImGui::TextWrapped("GPU: %s", src.c_str());
  Measurer::State st = ms.measurer.state();
  if (st == Measurer::State::Unavailable) {
    ImGui::PushStyleColor(ImGuiCol_ChildBg, pal.light ? ImVec4(1.0f, 0.95f, 0.80f, 1)
                                                      : ImVec4(0.30f, 0.24f, 0.08f, 1));
    ImGui::BeginChild("banner", ImVec2(0, ImGui::GetFrameHeightWithSpacing() * 2.2f), true);
    ImGui::TextWrapped("%s", ms.measurer.reason().c_str());
    ImGui::EndChild();
    ImGui::PopStyleColor();
    ImGui::PopTextWrapPos();
    return ImGui::End();
  }
  if (st == Measurer::State::Running) {
    static const char* spin = "|/-\\";
    ImGui::Text("measuring on the GPU %c", spin[static_cast<int>(ImGui::GetTime() * 8) % 4]);
  }
  if (auto m = ms.measurer.last()) {
    if (m->ok) {
      // The figure first: a short sidebar (1280x800) shows it before anything else.
      ImGui::PushFont(g_fonts.big);
      ImGui::TextWrapped("%.2f cycles  vs  model %.2f", m->cycles_per_instruction, m->predicted);
      ImGui::PopFont();
      ImGui::TextWrapped("%s", m->device.c_str());
      // A recorded figure says so (and when its rules are older); a figure kept after the
      // connection to the GPU was lost is marked stale.
      if (!m->recorded.empty()) ImGui::TextWrapped("%s (not this machine)", m->recorded.c_str());
      if (!m->recorded_note.empty())
        ImGui::TextColored(colv(pal.conflict), "%s", m->recorded_note.c_str());
      if (!m->stale.empty())
        ImGui::TextColored(colv(pal.conflict), "stale: the last figure measured; %s",
                           m->stale.c_str());
      // This GPU's rule set, and what validate found on this GPU (validation.h): for this
      // machine's GPU only (validate's record is this machine's).
      const bool here = m->recorded.empty() && m->remote.empty();
      const std::string v =
          here ? validation_label(ms.validation, m->device_name, m->sm, m->model_arch) : "";
      if (here && !v.empty()) {
        const bool agrees = ms.validation && ms.validation->agrees;
        const std::string text = m->model_arch + " rules: " + v;
        if (agrees) {
          ImGui::TextDisabled("%s", text.c_str());
        } else {
          ImGui::TextColored(colv(pal.conflict), "%s", text.c_str());
        }
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip(
              "bankviz-cli validate ran every measured suite on this GPU through its "
              "own counters (CUPTI) and compared each count with the model");
      } else if (here && !m->model_arch.empty()) {
        ImGui::TextDisabled("%s rules: not validated on this GPU yet (bankviz-cli validate)",
                            m->model_arch.c_str());
      }

      if (m->partial)
        ImGui::TextWrapped(
            "exposed: cycles per warp-wide shared instruction, summed over the steps; the "
            "lesson's launch, the GPU's counters and the compiled kernel follow");
      else
        ImGui::TextWrapped(
            "exposed: cycles per warp-wide shared instruction, summed over the steps; "
            "as written: %.2f us per launch",
            m->microseconds);
      for (const std::string& l : m->lines) ImGui::BulletText("%s", l.c_str());
      draw_counters(*m, pal);
      draw_compiled(*m, pal);
      if (!m->explanation.empty() &&
          ImGui::CollapsingHeader("Why these numbers", ImGuiTreeNodeFlags_DefaultOpen)) {
        ImGui::PushTextWrapPos(0);
        ImGui::TextUnformatted(m->explanation.c_str());
        ImGui::PopTextWrapPos();
      }
    } else {
      ImGui::TextWrapped("%s", m->error.c_str());
    }
  }
  std::vector<Measurement> h = ms.measurer.history();
  if (h.size() >= 2) {
    std::vector<float> v;
    for (const Measurement& m : h) v.push_back(static_cast<float>(m.cycles_per_instruction));
    ImGui::PlotLines("##hist", v.data(), static_cast<int>(v.size()), 0, "cycles/instr as you edit",
                     0, *std::max_element(v.begin(), v.end()) * 1.1f,
                     ImVec2(-1, ImGui::GetContentRegionAvail().y));
  }
  ImGui::PopTextWrapPos();
  ImGui::End();
}

}  // namespace bankviz::gui
