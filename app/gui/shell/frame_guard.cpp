// frame_guard.cpp: unwinding an ImGui frame after an exception (see frame_guard.h). Dear ImGui
// 1.86's own ErrorCheckEndFrameRecover() leaves the font stack alone, and End() then asserts;
// this does what it does, window by window, fonts and disabled blocks included.
#include "shell/frame_guard.h"

#include "imgui.h"
#include "imgui_internal.h"

namespace bankviz::gui {

void recover_imgui_frame() {
  ImGuiContext& g = *ImGui::GetCurrentContext();
  while (g.CurrentWindowStack.Size > 0) {
    ImGuiWindow* window = g.CurrentWindow;
    while (g.CurrentTable &&
           (g.CurrentTable->OuterWindow == window || g.CurrentTable->InnerWindow == window))
      ImGui::EndTable();
    while (g.CurrentTabBar != nullptr) ImGui::EndTabBar();
    while (window->DC.TreeDepth > 0) ImGui::TreePop();
    const ImGuiStackSizes& at = g.CurrentWindowStack.back().StackSizesOnBegin;
    while (g.GroupStack.Size > at.SizeOfGroupStack) ImGui::EndGroup();
    while (window->IDStack.Size > 1) ImGui::PopID();
    while (g.DisabledStackSize > at.SizeOfDisabledStack) ImGui::EndDisabled();
    while (g.ColorStack.Size > at.SizeOfColorStack) ImGui::PopStyleColor();
    while (g.StyleVarStack.Size > at.SizeOfStyleVarStack) ImGui::PopStyleVar();
    while (g.FontStack.Size > at.SizeOfFontStack) ImGui::PopFont();
    while (g.ItemFlagsStack.Size > at.SizeOfItemFlagsStack) ImGui::PopItemFlag();
    while (g.FocusScopeStack.Size > at.SizeOfFocusScopeStack) ImGui::PopFocusScope();
    if (g.CurrentWindowStack.Size == 1) break;  // ImGui's implicit "Debug" window stays open
    if (window->Flags & ImGuiWindowFlags_ChildWindow) {
      ImGui::EndChild();
    } else {
      ImGui::End();
    }
  }
  while (g.FontStack.Size > 0) ImGui::PopFont();  // pushed outside every window
}

}  // namespace bankviz::gui
