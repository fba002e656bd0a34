// panel_controls.cpp: the scenario's knobs: tile, block, steps, architecture.
//
// Every edit goes to the draft and is re-analyzed at once. An index expression that does not
// parse keeps the user's text and shows the error under it; the views keep the last good picture.
#include <algorithm>

#include "panels.h"
// after imgui.h (via panels.h): it needs IMGUI_API
#include "imgui_stdlib.h"
#include "theme.h"

namespace bankviz::gui {

namespace {

void show_error(const AppState& s, const std::string& path) {
  if (const Diagnostic* d = error_for(s, path)) {
    ImGui::PushStyleColor(ImGuiCol_Text, colv(s.palette.conflict));
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(d->format().c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
  }
}

bool input_i64(const char* label, int64_t* v, int64_t lo, int64_t hi) {
  int x = static_cast<int>(*v);
  if (!ImGui::InputInt(label, &x)) return false;
  *v = std::clamp<int64_t>(x, lo, hi);
  return true;
}

// A tooltip for the control just drawn: what it is, in the field's words.
void tip(const char* text) {
  if (!ImGui::IsItemHovered()) return;
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32);
  ImGui::TextUnformatted(text);
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

void section(const std::string& title) {
  ImGui::Spacing();
  ImGui::PushFont(g_fonts.bold);
  ImGui::TextUnformatted(title.c_str());
  ImGui::PopFont();
  ImGui::Separator();
}

}  // namespace

void draw_controls(AppState& s, Rect r) {
  if (!begin_panel("Scenario", r)) return ImGui::End();
  Scenario& d = s.draft;
  bool changed = false;
  const float w = ImGui::GetContentRegionAvail().x * 0.5f;

  if (!s.scenario.description.empty() && s.draft.name == s.scenario.name) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", s.scenario.description.c_str());
    ImGui::PopTextWrapPos();
  }

  // Architecture
  ImGui::SetNextItemWidth(w);
  const Arch* cur = find_arch(d.arch);
  if (ImGui::BeginCombo("architecture", cur ? std::string(cur->name).c_str() : d.arch.c_str())) {
    for (const Arch& a : all_archs()) {
      std::string n(a.name);
      if (ImGui::Selectable(n.c_str(), cur == &a)) {
        d.arch = std::string(a.id);
        changed = true;
      }
    }
    ImGui::EndCombo();
  }
  tip("The GPU generation whose bank rules serve the accesses: bank count and width, how a warp's "
      "request is split (cc 1.x half-warps), Kepler's 4- or 8-byte banks");
  if (cur) arch_rules_label(*cur, s.palette);
  show_error(s, "arch");

  // Tiles
  for (size_t ti = 0; ti < d.tiles.size(); ++ti) {
    TileDecl& t = d.tiles[ti];
    ImGui::PushID(static_cast<int>(ti));
    section(("__shared__ " + t.name).c_str());
    ImGui::SetNextItemWidth(w);
    if (ImGui::BeginCombo("element", t.elem.c_str())) {
      for (const ElemType& e : elem_types()) {
        std::string n(e.name);
        if (ImGui::Selectable(n.c_str(), n == t.elem)) {
          t.elem = n;
          changed = true;
        }
      }
      ImGui::EndCombo();
    }
    tip("The C type of each element: its size decides how many banks one element spans "
        "(float2 and double: two 4-byte banks)");
    static const char* dim_names[] = {"rows", "columns", "depth"};
    // A CuTe-laid-out tile's extents and padding are its layout's (the layout field below).
    for (size_t k = 0; k < t.dims.size() && k < 3 && !t.cute; ++k) {
      ImGui::SetNextItemWidth(w);
      const char* n = t.dims.size() == 1 ? "length" : dim_names[t.dims.size() == 3 ? k : k];
      changed |= input_i64(n, &t.dims[k], 1, 65536);
      tip("An extent of the array as declared: tile[rows][columns]");
    }
    ImGui::SetNextItemWidth(w);
    if (!t.cute) {
      changed |= input_i64("padding", &t.pad, 0, 64);
      tip("Unused elements added to each row (tile[32][32 + pad]): a row then starts pad words "
          "further along the banks, which spreads a column over different banks");
    }
    int sw[3] = {t.swizzle.bits, t.swizzle.base, t.swizzle.shift};
    ImGui::SetNextItemWidth(w);
    if (ImGui::InputInt3("swizzle B,M,S", sw)) {
      t.swizzle.bits = std::clamp(sw[0], 0, 8);
      t.swizzle.base = std::clamp(sw[1], 0, 8);
      t.swizzle.shift = std::clamp(sw[2], 0, 12);
      changed = true;
    }
    tip("CuTe's Swizzle<B,M,S>: the element offset's bits [M, M+B) are XORed with bits "
        "[M+S, M+S+B). B: how many bits are permuted (2^B chunks per row); M: the chunk size, 2^M "
        "elements kept together; S: how far up the row bits are taken from. 0,0,0 = no swizzle. "
        "Swizzle<5,0,5> on a 32x32 int tile XORs the column with the row: a transpose without "
        "padding and without conflicts");
    changed |= edit_layout(s, t, ti, w);
    show_error(s, "tiles[" + std::to_string(ti) + "]");
    ImGui::PopID();
  }

  // Block
  section("Thread block");
  int b[3] = {static_cast<int>(d.block[0]), static_cast<int>(d.block[1]),
              static_cast<int>(d.block[2])};
  ImGui::SetNextItemWidth(w);
  if (ImGui::InputInt3("blockDim", b)) {
    for (int k = 0; k < 3; ++k) d.block[k] = std::clamp(b[k], 1, 1024);
    changed = true;
  }
  tip("blockDim.x, .y, .z: threads are numbered x fastest; each 32 consecutive threads form a "
      "warp, the unit whose accesses the banks serve together");
  show_error(s, "block");

  // Steps
  section("Shared-memory steps");
  for (size_t i = 0; i < d.steps.size(); ++i) {
    Step& st = d.steps[i];
    ImGui::PushID(1000 + static_cast<int>(i));
    std::string p = "steps[" + std::to_string(i) + "]";
    ImGui::TextDisabled("%zu", i);
    ImGui::SameLine();
    ImGui::TextUnformatted(st.kind_text().c_str());  // "ldmatrix.x4.trans" as PTX names it
    if (st.kind != StepKind::Sync) {
      ImGui::SameLine();
      ImGui::SetNextItemWidth(-1);
      ImGui::PushFont(g_fonts.mono);
      const Diagnostic* bad = error_for(s, p + ".index");
      if (bad) ImGui::PushStyleColor(ImGuiCol_FrameBg, ImVec4(0.55f, 0.10f, 0.10f, 0.55f));
      changed |= ImGui::InputText("##index", &st.index);
      tip("The subscript as the kernel writes it, a C expression over threadIdx, blockDim, "
          "blockIdx, the constants and the lets: tile[threadIdx.y][threadIdx.x]");
      if (bad) ImGui::PopStyleColor();
      ImGui::PopFont();
      if (!st.guard.empty()) {
        ImGui::TextDisabled("  if");
        ImGui::SameLine();
        ImGui::SetNextItemWidth(-1);
        ImGui::PushFont(g_fonts.mono);
        changed |= ImGui::InputText("##guard", &st.guard);
        tip("Only threads for which this C condition holds take part in the step");
        ImGui::PopFont();
      }
    }
    show_error(s, p);
    ImGui::PopID();
  }
  // Errors that name no field we show (lets, constants, evaluation).
  for (const Diagnostic& e : s.errors)
    if (e.path.rfind("steps", 0) != 0 && e.path.rfind("tiles", 0) != 0 && e.path != "arch" &&
        e.path != "block") {
      ImGui::PushStyleColor(ImGuiCol_Text, colv(s.palette.conflict));
      ImGui::TextWrapped("%s", e.format().c_str());
      ImGui::PopStyleColor();
    }
  if (s.analysis)
    for (size_t i = 0; i < s.analysis->issues.size() && i < 4; ++i) {
      ImGui::PushStyleColor(ImGuiCol_Text, colv(s.palette.conflict));
      ImGui::TextWrapped("%s", s.analysis->issues[i].message.c_str());
      ImGui::PopStyleColor();
    }

  if (changed) {
    s.preset.clear();
    reanalyze(s);
  }
  ImGui::End();
}

}  // namespace bankviz::gui
