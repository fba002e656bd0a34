// panel_controls.cpp: the scenario's knobs: undo/redo, reset, save; architecture, tiles, block
// (the steps, lets and constants: panel_steps.cpp).
//
// Every edit goes to the draft and is re-analyzed at once. An index expression that does not
// parse keeps the user's text and shows the error under it; the views keep the last good picture.
// Each frame compares nothing: the widgets edit a copy of the draft taken before them, and an
// edit hands that copy to the history (apply_edit), typing in one field coalescing into one entry.
#include <algorithm>

#include "editing/controls.h"
// after imgui.h (via panels.h): it needs IMGUI_API
#include "imgui_stdlib.h"
#include "platform/theme.h"

namespace bankviz::gui {

void show_error(const ScenarioEditor& s, const std::string& path) {
  if (const Diagnostic* d = error_for(s.errors, path)) {
    ImGui::PushStyleColor(ImGuiCol_Text, colv(s.palette.conflict));
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(d->format().c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
  }
}

void section(const std::string& title) {
  ImGui::Spacing();
  ImGui::PushFont(g_fonts.bold);
  ImGui::TextUnformatted(title.c_str());
  ImGui::PopFont();
  ImGui::Separator();
}

namespace {

bool input_i64(const char* label, int64_t* v, int64_t lo, int64_t hi) {
  int x = static_cast<int>(*v);
  if (!ImGui::InputInt(label, &x)) return false;
  *v = std::clamp<int64_t>(x, lo, hi);
  return true;
}

// Undo, Redo, Reset, Save as...: one row over the controls.
void draw_edit_bar(ScenarioEditor& s, ControlsAsk& ask) {
  ImGui::BeginDisabled(!s.edit.history.can_undo());
  if (ImGui::Button("Undo")) ask.undo = true;
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("Undo the last edit (Ctrl+Z); typing in one field is one edit");
  ImGui::SameLine();
  ImGui::BeginDisabled(!s.edit.history.can_redo());
  if (ImGui::Button("Redo")) ask.redo = true;
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("Redo what was undone (Ctrl+Shift+Z or Ctrl+Y)");
  ImGui::SameLine();
  if (ImGui::Button("Reset")) ask.reset = true;
  control_tip(s.edit.loaded_preset.empty() ? "Back to the scenario as it was loaded (undoable)"
                                           : "Back to the preset as its file has it (undoable)");
  ImGui::SameLine();
  if (ImGui::Button("Save as...")) s.edit.open_save = true;
  control_tip(
      "Save this scenario as a JSON file (Ctrl+S) that bankviz --scenario FILE and bankviz-cli "
      "analyze --file FILE read back; an existing file is replaced only after you confirm");
  // "edited, not saved" is the status line's (panel_status.cpp) and the panel's title: a line
  // inserted here pushed every control below it down under the mouse.
}

}  // namespace

// The "Save as" popup: a path field (ImGui has no file dialog; it starts as
// <current directory>/<name>.json), then "Replace?" when the file exists.
void draw_save_dialog(EditState& edit, const Scenario& draft, const Palette& palette,
                      const SaveFn& save) {
  // Ctrl+S while the dialog is open leaves the path being typed alone.
  if (edit.open_save && !ImGui::IsPopupOpen("Save scenario")) {
    edit.save_error.clear();
    if (edit.save_path.empty() || edit.saved_path.empty())
      edit.save_path = !edit.saved_path.empty() ? edit.saved_path : default_save_path(draft);
    ImGui::OpenPopup("Save scenario");
  }
  edit.open_save = false;
  if (ImGui::BeginPopupModal("Save scenario", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
    ImGui::TextUnformatted("Save the scenario as (a JSON file):");
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 30);
    if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
    const bool enter =
        ImGui::InputText("##path", &edit.save_path, ImGuiInputTextFlags_EnterReturnsTrue);
    control_tip("A path, relative to the directory bankviz was started in, or absolute");
    // A path that cannot be written (a directory, a missing directory) is said here, in the
    // conflict colour, and the dialog stays open for another path.
    if (!edit.save_error.empty()) {
      ImGui::PushStyleColor(ImGuiCol_Text, colv(palette.conflict));
      ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
      ImGui::TextUnformatted(edit.save_error.c_str());
      ImGui::PopTextWrapPos();
      ImGui::PopStyleColor();
    }
    if (ImGui::Button("Save") || enter) {
      SaveResult r = save(edit.save_path, false);
      edit.save_error = r.status == SaveResult::Failed ? r.error : std::string();
      if (r.status == SaveResult::Exists) {
        edit.save_path = r.path;
        edit.confirm_replace = true;
      }
      if (r.status == SaveResult::Saved) ImGui::CloseCurrentPopup();
    }
    ImGui::SameLine();
    if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) {
      edit.save_error.clear();
      ImGui::CloseCurrentPopup();
    }
    if (edit.confirm_replace) {
      edit.confirm_replace = false;
      ImGui::OpenPopup("Replace?");
    }
    bool saved = false;
    if (ImGui::BeginPopupModal("Replace?", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
      ImGui::Text("%s already exists.", edit.save_path.c_str());
      ImGui::TextUnformatted("Replace it with this scenario?");
      if (ImGui::Button("Replace")) {
        const SaveResult r = save(edit.save_path, true);
        saved = r.status == SaveResult::Saved;
        edit.save_error = saved ? std::string() : r.error;
        ImGui::CloseCurrentPopup();
      }
      ImGui::SameLine();
      if (ImGui::Button("Keep it")) ImGui::CloseCurrentPopup();  // back to the path field
      control_tip("Leave the file as it is and choose another path");
      ImGui::EndPopup();
    }
    if (saved) ImGui::CloseCurrentPopup();  // the Save dialog too
    ImGui::EndPopup();
  }
}

ControlsAsk draw_controls(ScenarioEditor& s, Rect r) {
  ControlsAsk ask;
  // The same window whether or not the title says the draft is unsaved ("###" keeps its id).
  if (!begin_panel(
          s.edit.unsaved ? "Scenario (edited, not saved)###Scenario" : "Scenario###Scenario", r)) {
    ImGui::End();
    return ask;
  }
  const Scenario before = s.draft;  // what undo goes back to if a widget below edits the draft
  FieldEdits e;
  Scenario& d = s.draft;
  bool changed = false;
  const float w = ImGui::GetContentRegionAvail().x * 0.5f;
  draw_edit_bar(s, ask);

  // The scenario's description tells its point ("... 32 wavefronts where 1 would do"): while a
  // lesson's question is open it waits for the answer.
  // Its room is kept while it waits, so that nothing below moves when the answer brings it.
  if (!s.scenario.description.empty() && s.draft.name == s.scenario.name) {
    const ImVec2 at = ImGui::GetCursorPos();
    const float wrap = ImGui::GetContentRegionAvail().x;
    const float room = ImGui::CalcTextSize(s.scenario.description.c_str(), nullptr, false, wrap).y;
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", s.conceal ? "(the scenario's description follows the answer)"
                                        : s.scenario.description.c_str());
    ImGui::PopTextWrapPos();
    ImGui::SetCursorPosY(
        std::max(ImGui::GetCursorPosY(), at.y + room + ImGui::GetStyle().ItemSpacing.y));
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
  control_tip(
      "The GPU generation whose bank rules serve the accesses: bank count and width, how a warp's "
      "request is split (cc 1.x half-warps), Kepler's 4- or 8-byte banks");
  if (cur) {
    // Red is the conflicts' colour: while a lesson's question is open the rules' provenance
    // ("2 of 4 rules extrapolated") is said in the dim text colour, not red.
    Palette quiet = s.palette;
    if (s.conceal) quiet.conflict = quiet.text_dim;
    arch_rules_label(*cur, quiet);
  }
  show_error(s, "arch");

  // Tiles
  for (size_t ti = 0; ti < d.tiles.size(); ++ti) {
    TileDecl& t = d.tiles[ti];
    ImGui::PushID(static_cast<int>(ti));
    const std::string tp = "tiles[" + std::to_string(ti) + "]";
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
    control_tip(
        "The C type of each element: its size decides how many banks one element spans "
        "(float2 and double: two 4-byte banks)");
    static const char* dim_names[] = {"rows", "columns", "depth"};
    // A CuTe-laid-out tile's extents and padding are its layout's (the layout field below).
    for (size_t k = 0; k < t.dims.size() && k < 3 && !t.cute; ++k) {
      ImGui::SetNextItemWidth(w);
      const char* n = t.dims.size() == 1 ? "length" : dim_names[t.dims.size() == 3 ? k : k];
      e.text(input_i64(n, &t.dims[k], 1, 65536), tp + ".dims");
      control_tip("An extent of the array as declared: tile[rows][columns]");
    }
    ImGui::SetNextItemWidth(w);
    if (!t.cute) {
      e.text(input_i64("padding", &t.pad, 0, 64), tp + ".pad");
      // Where it landed, when whole in view (--dump-layout's padding_field: a test clicks it).
      const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
      const ImVec2 clip_lo = ImGui::GetWindowPos();
      const ImVec2 clip_hi(clip_lo.x + ImGui::GetWindowWidth(),
                           clip_lo.y + ImGui::GetWindowHeight());
      if (s.padding_field && s.padding_field->w == 0 && lo.y >= clip_lo.y && hi.y <= clip_hi.y)
        *s.padding_field = {lo.x, lo.y, hi.x - lo.x, hi.y - lo.y};
      control_tip(
          "Unused elements added to each row (tile[32][32 + pad]): a row then starts pad words "
          "further along the banks, which spreads a column over different banks");
    }
    int sw[3] = {t.swizzle.bits, t.swizzle.base, t.swizzle.shift};
    ImGui::SetNextItemWidth(w);
    const bool swizzled = ImGui::InputInt3("swizzle B,M,S", sw);
    if (swizzled) {
      t.swizzle.bits = std::clamp(sw[0], 0, 8);
      t.swizzle.base = std::clamp(sw[1], 0, 8);
      t.swizzle.shift = std::clamp(sw[2], 0, 12);
    }
    e.text(swizzled, tp + ".swizzle");
    control_tip(
        "CuTe's Swizzle<B,M,S>: the element offset's bits [M, M+B) are XORed with bits "
        "[M+S, M+S+B). B: how many bits are permuted (2^B chunks per row); M: the chunk size, 2^M "
        "elements kept together; S: how far up the row bits are taken from. 0,0,0 = no swizzle. "
        "Swizzle<5,0,5> on a 32x32 int tile XORs the column with the row: a transpose without "
        "padding and without conflicts");
    e.text(edit_layout(s.layouts, t, ti, w, s.palette), tp + ".layout");
    show_error(s, tp);
    ImGui::PopID();
  }

  // Block
  section("Thread block");
  int b[3] = {static_cast<int>(d.block[0]), static_cast<int>(d.block[1]),
              static_cast<int>(d.block[2])};
  ImGui::SetNextItemWidth(w);
  const bool reblocked = ImGui::InputInt3("blockDim", b);
  if (reblocked)
    for (int k = 0; k < 3; ++k) d.block[k] = std::clamp(b[k], 1, 1024);
  e.text(reblocked, "block");
  control_tip(
      "blockDim.x, .y, .z: threads are numbered x fastest; each 32 consecutive threads form a "
      "warp, the unit whose accesses the banks serve together");
  show_error(s, "block");

  draw_steps(s, e, w);
  draw_lets_and_constants(s, e, w);
  // Errors that name no field we show (evaluation, the scenario as a whole).
  for (const Diagnostic& x : s.errors)
    if (x.path.rfind("steps", 0) != 0 && x.path.rfind("tiles", 0) != 0 && x.path != "arch" &&
        x.path != "block" && x.path.rfind("lets", 0) != 0 && x.path.rfind("constants", 0) != 0) {
      ImGui::PushStyleColor(ImGuiCol_Text, colv(s.palette.conflict));
      ImGui::TextWrapped("%s", x.format().c_str());
      ImGui::PopStyleColor();
    }
  // The model's findings (races, out-of-bounds lanes) can be a lesson question's answer ("does
  // the read-out race?"): while one is open they wait for it, in a room of their size, so that
  // nothing below moves when they come.
  if (s.analysis && s.conceal && !s.analysis->issues.empty()) {
    const float wrap = ImGui::GetContentRegionAvail().x, gap = ImGui::GetStyle().ItemSpacing.y;
    float room = -gap;
    for (size_t i = 0; i < s.analysis->issues.size() && i < 4; ++i)
      room +=
          ImGui::CalcTextSize(s.analysis->issues[i].message.c_str(), nullptr, false, wrap).y + gap;
    const float at = ImGui::GetCursorPosY();
    ImGui::TextDisabled("(the model's findings follow the answer)");
    ImGui::SetCursorPosY(std::max(ImGui::GetCursorPosY(), at + room + gap));
  } else if (s.analysis) {
    for (size_t i = 0; i < s.analysis->issues.size() && i < 4; ++i) {
      ImGui::PushStyleColor(ImGuiCol_Text, colv(s.palette.conflict));
      ImGui::TextWrapped("%s", s.analysis->issues[i].message.c_str());
      ImGui::PopStyleColor();
    }
  }

  // The architecture, tile and block fields are numbers and combos: each change its own entry,
  // except typing into one field (coalesced by FieldEdits under its path).
  e.discrete(changed);
  if (e.changed) {
    ask.before = before;
    ask.field = e.field;
  }
  ask.end_field = e.ended;
  ImGui::End();
  return ask;
}

}  // namespace bankviz::gui
