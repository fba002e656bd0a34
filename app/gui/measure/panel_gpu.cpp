// panel_gpu.cpp: the toolbar's GPU menu: where the measured figures come from (this machine's
// GPU, one over ssh, a command speaking bankviz's protocol, the recorded figures) and which is
// used now, in words (Measurer::source()).
#include "imgui.h"
#include "imgui_stdlib.h"  // after imgui.h
#include "platform/platform.h"
#include "platform/theme.h"
#include "shell/panels.h"

namespace bankviz::gui {

bool draw_gpu_menu(GpuMenu& menu, const std::string& source) {
  if (!ImGui::BeginPopup("gpu")) return false;
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 34);
  if (!capabilities().processes) {
    ImGui::TextWrapped("%s", kBrowserCannotRunKernels);
    ImGui::TextWrapped("Now: %s", source.c_str());  // the recorded figures, or that none loaded
    ImGui::PopTextWrapPos();
    ImGui::EndPopup();
    return false;
  }
  ImGui::TextWrapped("Now: %s", source.empty() ? "this machine's GPU" : source.c_str());
  if (menu.session_only)
    ImGui::TextDisabled("(chosen with --gpu or --gpu-command for this session)");
  ImGui::Separator();
  using G = Settings::GpuSource;
  auto choice = [&](const char* label, G g, const char* tip) {
    if (ImGui::RadioButton(label, menu.source == g)) menu.source = g;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
  };
  choice("This machine's GPU", G::Here,
         "Measure here; without a GPU, the recorded figures where the scenario was recorded");
  choice("A GPU over ssh", G::Ssh,
         "ssh HOST bankviz-cli serve, in batch mode: your ssh config, keys and agent; never a "
         "password prompt");
  if (menu.source == G::Ssh) {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 20);
    ImGui::InputTextWithHint("##gpu_host", "user@host or a Host of ~/.ssh/config", &menu.host);
  }
  choice("A command", G::Command,
         "Any command speaking bankviz's protocol: bankviz-cli serve, srun ... bankviz-cli serve, "
         "a container");
  if (menu.source == G::Command) {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 20);
    ImGui::InputTextWithHint("##gpu_command", "srun -p gpu bankviz-cli serve", &menu.command);
  }
  choice("Recorded figures only", G::Recorded,
         "The figures measured on a GPU and shipped with bankviz (assets/recorded), even where "
         "this machine has a GPU");
  const bool use = ImGui::Button("Use");
  if (!menu.problem.empty())
    ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.45f, 1), "%s", menu.problem.c_str());
  ImGui::PopTextWrapPos();
  ImGui::EndPopup();
  return use;
}

}  // namespace bankviz::gui
