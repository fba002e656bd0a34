// panel_help.cpp: the keyboard shortcuts, over everything (F1 or ?).
#include "platform/theme.h"
#include "shell/panels.h"

namespace bankviz::gui {

void draw_help(bool& open) {
  if (!open) return;
  ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x / 2, io.DisplaySize.y / 2), ImGuiCond_Always,
                          ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowBgAlpha(0.97f);
  ImGui::Begin("Keyboard shortcuts", &open,
               ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse |
                   ImGuiWindowFlags_NoSavedSettings);
  static const char* keys[][2] = {
      {"Space", "play / pause"},
      {"Right / Left", "next / previous wavefront"},
      {"Down / Up", "next / previous step"},
      {"W / Shift+W", "next / previous warp"},
      {"Home", "back to the start"},
      {"+ / -", "faster / slower"},
      {"L", "loop on / off"},
      {"T", "light / dark theme"},
      {"P", "presenter mode (large, high contrast, views only)"},
      {"M", "presenter mode: show or hide the toolbar"},
      {"C", "presenter mode: a lesson's whole caption (else two lines)"},
      {"V", "views only: hide / show the sidebar"},
      {"N", "presenter mode, views only: a lesson scene's notes for you (after its answer)"},
      {"F11", "full screen"},
      {"S", "screenshot (PNG, export scale)"},
      {"E", "export SVG of the tile and bank views"},
      {"PageDown / .", "clicker next: the lesson's answer, then its next scene (no lesson: step)"},
      {"PageUp / B", "clicker back: the lesson's previous scene (no lesson: step)"},
      {"A", "advisor: the paddings and swizzles that fix each step"},
      {"K", "your kernel: a .cu file per source line, from the hardware's counters"},
      {"Ctrl+Z / Ctrl+Shift+Z, Ctrl+Y", "undo / redo an edit"},
      {"Ctrl+S", "save the scenario (Save as... the first time; never replaces silently)"},
      {"F1 or ?", "this help"},
      {"Esc", "close this help; else leave presenter mode"},
      {"Q / Ctrl+Q", "quit"},
  };
  if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_PadOuterX)) {
    for (auto& k : keys) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushFont(g_fonts.bold);
      ImGui::TextUnformatted(k[0]);
      ImGui::PopFont();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(k[1]);
    }
    ImGui::EndTable();
  }
  ImGui::TextDisabled("Hover a cell in either view for its row, column, address, bank and lanes.");
  ImGui::End();
}

}  // namespace bankviz::gui
