// panel_source.cpp: the kernel the scenario describes, with a copy button.
//
// The kernels library generates exactly the source that NVRTC compiles and the GPU runs; the
// panel shows it in either run mode. If generation fails, the scenario is sketched as C instead.
#include <sstream>

#include "bankviz/codegen.h"

#include "platform/theme.h"
#include "profile/profiler.h"
#include "shell/panels.h"

namespace bankviz::gui {

namespace {

std::string sketch(const Scenario& sc) {
  std::ostringstream o;
  for (const Constant& c : sc.constants) o << "#define " << c.name << " " << c.value << "\n";
  o << "__global__ void kernel(int* out) {\n";
  o << "  int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);\n";
  o << "  int sum = 0;\n";
  for (const TileDecl& t : sc.tiles) o << "  " << t.declaration() << "\n";
  for (const Let& l : sc.lets) o << "  unsigned int " << l.name << " = " << l.expr << ";\n";
  for (const Step& st : sc.steps) {
    std::string ind = "  ";
    if (!st.loop_var.empty()) {
      o << "  for (int " << st.loop_var << " = " << st.loop_from << "; " << st.loop_var << " < "
        << st.loop_to << "; " << st.loop_var << " += " << st.loop_step << ")\n";
      ind = "    ";
    }
    if (!st.guard.empty()) {
      o << ind << "if (" << st.guard << ")\n";
      ind += "  ";
    }
    std::string idx = st.index;
    if (!idx.empty() && idx[0] == '[') idx = (st.tile.empty() ? sc.tiles[0].name : st.tile) + idx;
    // The statement as the step kinds' table writes it (kinds.h); the PTX instructions by name
    // (the generated kernel has their inline PTX).
    const StepKindInfo& k = st.info();
    const std::string value = !st.value.empty()             ? st.value
                              : k.access == StepAccess::Add ? "1"
                                                            : "tid";
    if (k.written.empty())
      o << ind << st.kind_text() << " &" << idx << ";\n";
    else
      o << ind << written_statement(k, idx, value, "sum") << "\n";
  }
  o << "  out[tid] = sum;\n}\n";
  return o.str();
}

}  // namespace

void draw_source(const Scenario& scenario, int version, Rect r, const OpenedLine* opened) {
  if (!begin_panel("Kernel source", r)) return ImGui::End();
  if (opened) {
    // The user's own kernel around the line the views show: what was recorded (or followed),
    // not a kernel bankviz generated.
    std::string text;
    for (const std::string& l : opened->excerpt) text += l + '\n';
    if (ImGui::SmallButton("Copy")) ImGui::SetClipboardText(text.c_str());
    control_tip("Copy these lines of your kernel to the clipboard");
    ImGui::SameLine();
    ImGui::TextDisabled("your kernel, %s: line %u marked, %s", opened->label.c_str(), opened->line,
                        opened->how.c_str());
    ImGui::BeginChild("src", ImGui::GetContentRegionAvail(), false,
                      ImGuiWindowFlags_HorizontalScrollbar);
    ImGui::PushFont(g_fonts.mono);
    for (size_t i = 0; i < opened->excerpt.size(); ++i) {
      if (opened->first + i == opened->line) {
        ImGui::TextColored(ImGui::GetStyleColorVec4(ImGuiCol_PlotHistogram), "%s",
                           opened->excerpt[i].c_str());
        if (ImGui::IsWindowAppearing()) ImGui::SetScrollHereY(0.4f);
      } else {
        ImGui::TextUnformatted(opened->excerpt[i].c_str());
      }
    }
    ImGui::PopFont();
    ImGui::EndChild();
    return ImGui::End();
  }
  static int mode = 0;  // 0: as written, 1: exposed (the kernel built to time the conflict)
  static int cached_version = -1, cached_mode = -1;
  static std::string src, note;
  if (cached_version != version || cached_mode != mode) {
    GenerateResult g = generate_kernel(scenario, mode ? RunMode::Exposed : RunMode::Written);
    if (g.kernel) {
      src = g.kernel->text;
      note = "generated from the scenario: " + g.kernel->file_name + ", what runs on the GPU";
    } else {
      src = sketch(scenario);
      note = "generated sketch, not a runnable kernel: " +
             (g.errors.empty() ? "" : g.errors[0].format());
    }
    cached_version = version;
    cached_mode = mode;
  }
  if (ImGui::SmallButton("Copy")) ImGui::SetClipboardText(src.c_str());
  control_tip("Copy this kernel's source to the clipboard (it compiles with nvcc as it is)");
  ImGui::SameLine();
  ImGui::RadioButton("as written", &mode, 0);
  control_tip(
      "The kernel a student would write for this scenario: what the GPU runs in written "
      "mode");
  ImGui::SameLine();
  ImGui::RadioButton("exposed", &mode, 1);
  control_tip(
      "The kernel that measures: each memory step repeated until the banks are the "
      "bottleneck, so cycles per instruction show the wavefronts");
  ImGui::SameLine();
  ImGui::TextDisabled("%s", note.c_str());
  ImGui::BeginChild("src", ImGui::GetContentRegionAvail(), false,
                    ImGuiWindowFlags_HorizontalScrollbar);
  ImGui::PushFont(g_fonts.mono);
  ImGui::TextUnformatted(src.c_str());
  ImGui::PopFont();
  ImGui::EndChild();
  ImGui::End();
}

}  // namespace bankviz::gui
