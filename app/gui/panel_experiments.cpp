// panel_experiments.cpp: the seeds' own comparisons (kernels/experiments.h), one row each: what
// the seed published, what the model predicts, and with a GPU the ratio measured here ("Run", on
// a worker thread: compare.h start_experiment), with the reason the three differ.
#include <cstdio>

#include "panels.h"
#include "theme.h"

namespace bankviz::gui {

void draw_experiments(AppState& s) {
  ExperimentsState& x = s.experiments;
  if (!x.open) return;
  const ImVec2 disp = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowSize(ImVec2(disp.x * 0.7f, disp.y * 0.6f), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowPos(ImVec2(disp.x * 0.15f, disp.y * 0.15f), ImGuiCond_FirstUseEver);
  if (!ImGui::Begin("The seeds' experiments", &x.open)) return ImGui::End();
  const std::vector<Experiment>& all = experiments();
  x.results.resize(all.size());
  const float fs = ImGui::GetFontSize();
  const bool no_gpu = s.measurer.state() == Measurer::State::Unavailable;
  if (no_gpu) ImGui::TextDisabled("no GPU: %s", s.measurer.reason().c_str());
  for (size_t i = 0; i < all.size(); ++i) {
    const Experiment& e = all[i];
    ImGui::PushID(static_cast<int>(i));
    ImGui::Separator();
    ImGui::PushFont(g_fonts.bold);
    ImGui::TextWrapped("%s", e.title.c_str());
    ImGui::PopFont();
    ImGui::TextDisabled("%s  (%s vs %s; seed %s)", e.name.c_str(), e.baseline.c_str(),
                        e.improved.c_str(), e.seed.c_str());
    ImGui::TextWrapped("published: %s (%.2fx)", e.published.c_str(), e.published_ratio);
    if (e.model_ratio > 0) {
      ImGui::TextWrapped("model: %s (%.2fx)", e.model.c_str(), e.model_ratio);
    } else {
      ImGui::TextWrapped("model: %s", e.model.c_str());
    }
    if (x.running == static_cast<int>(i)) {
      ImGui::TextDisabled("running on the GPU...");
    } else if (ImGui::Button("Run")) {
      std::string why;
      if (!start_experiment(s, static_cast<int>(i), &why))
        set_notice(s, why, ImGui::GetTime(), 6, Notice::Error);
    }
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "Compile, run, check against the CPU and time both variants as the seed "
          "ran them (on a worker thread)");
    if (const std::optional<ExperimentRun>& r = x.results[i]) {
      ImGui::SameLine();
      if (r->status != RunStatus::Ok) {
        ImGui::TextColored(
            colv(s.palette.conflict), "%s%s",
            r->status == RunStatus::NoCuda ? "no GPU: " : "not run: ", r->message.c_str());
      } else {
        ImGui::Text("measured on %s: %.2fx (%s / %s)", r->device.name.c_str(), r->ratio,
                    e.baseline.c_str(), e.improved.c_str());
        for (const VariantTiming& v : r->variants) {
          const Rgba& c = v.verified ? s.palette.text : s.palette.conflict;
          ImGui::TextColored(colv(c), "  %-14s %9.4f ms  %s: %s", v.name.c_str(), v.ms,
                             v.verified ? "verified" : "MISMATCH", v.check.c_str());
        }
        ImGui::PushTextWrapPos(ImGui::GetContentRegionMax().x - fs);
        ImGui::TextWrapped("%s", r->why.c_str());
        ImGui::PopTextWrapPos();
      }
    }
    ImGui::PopID();
  }
  ImGui::End();
}

}  // namespace bankviz::gui
