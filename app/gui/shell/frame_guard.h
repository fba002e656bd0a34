// frame_guard.h: what keeps the app running when a panel throws half way through a frame.
//
// Dear ImGui asserts (aborts) when a frame ends with windows still open or pushed styles, fonts or
// IDs not popped, which is where an exception thrown inside a panel leaves it. After catching,
// recover_imgui_frame() ends every open window and pops what each pushed, so that ImGui::Render()
// and the next frame work; the app reports the exception and keeps its state.
#pragma once

namespace bankviz::gui {

// Call between ImGui::NewFrame() and ImGui::Render(), after an exception left the frame unbalanced.
void recover_imgui_frame();

}  // namespace bankviz::gui
