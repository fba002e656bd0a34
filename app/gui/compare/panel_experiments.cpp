// panel_experiments.cpp: the seeds' own comparisons (kernels/experiments.h), one row each: what
// the seed published, what the model predicts, and with a GPU the ratio measured here ("Run", on
// a worker thread: compare.h start_experiment), with the reason the three differ.
#include <cstdio>

#include "platform/theme.h"
#include "shell/panels.h"

namespace bankviz::gui {

void draw_experiments(ExperimentsState& x, const Measurer& measurer, const Palette& pal) {
  if (!x.open) return;
  const ImVec2 disp = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowSize(ImVec2(disp.x * 0.7f, disp.y * 0.6f), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowPos(ImVec2(disp.x * 0.15f, disp.y * 0.15f), ImGuiCond_FirstUseEver);
  if (!ImGui::Begin("The seeds' experiments", &x.open)) return ImGui::End();
  const std::vector<Experiment>& all = experiments();
  x.results.resize(all.size());
  const float fs = ImGui::GetFontSize();
  const bool no_gpu = measurer.state() == Measurer::State::Unavailable;
  if (no_gpu) {
    ImGui::PushStyleColor(ImGuiCol_Text, colv(pal.text_dim));
    ImGui::TextWrapped("no GPU: %s", measurer.reason().c_str());
    ImGui::PopStyleColor();
  }
  if (!x.note.empty()) ImGui::TextColored(colv(pal.conflict), "%s", x.note.c_str());
  for (size_t i = 0; i < all.size(); ++i) {
    const Experiment& e = all[i];
    ImGui::PushID(static_cast<int>(i));
    ImGui::Separator();
    ImGui::PushFont(g_fonts.bold);
    ImGui::TextWrapped("%s", e.title.c_str());
    ImGui::PopFont();
    ImGui::TextDisabled("%s  (%s vs %s; seed %s)", e.name.c_str(), e.baseline.c_str(),
                        e.improved.c_str(), e.seed.c_str());
    // Both texts carry their ratio in words (Experiment::published_ratio, model_ratio).
    ImGui::TextWrapped("published: %s", e.published.c_str());
    ImGui::TextWrapped("model: %s", e.model.c_str());
    if (x.running == static_cast<int>(i)) {
      ImGui::TextDisabled("running on the GPU...");
    } else if (ImGui::Button("Run")) {
      std::string why;
      x.note.clear();
      if (!start_experiment(x, static_cast<int>(i), &why)) x.note = why;
    }
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "Compile, run, check against the CPU and time both variants as the seed "
          "ran them (on a worker thread)");
    if (const std::optional<ExperimentRun>& r = x.results[i]) {
      ImGui::SameLine();
      if (r->status != RunStatus::Ok) {
        ImGui::TextColored(
            colv(pal.conflict), "%s%s",
            r->status == RunStatus::NoCuda ? "no GPU: " : "not run: ", r->message.c_str());
      } else {
        ImGui::Text("measured on %s: %.2fx (%s / %s)", r->device.name.c_str(), r->ratio,
                    e.baseline.c_str(), e.improved.c_str());
        for (const VariantTiming& v : r->variants) {
          const Rgba& c = v.verified ? pal.text : pal.conflict;
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
