// panel_steps.cpp: the draft's shared-memory steps, lets and constants, in the scenario panel.
//
// A step's row: its number (click to select it), its kind (a combo of every kind parse_step_op
// knows) and its index. The selected step also shows its tile, guard, stored value and loop, and
// the buttons that move, duplicate and remove it; "Add step" inserts after it. The structural
// edits are edit.h's pure functions; every field's error shows under it (error_for).
#include <algorithm>

#include "editing/controls.h"
// after imgui.h (via panels.h): it needs IMGUI_API
#include "imgui_stdlib.h"
#include "platform/theme.h"

namespace bankviz::gui {

namespace {

// A text field in the monospace font, red when the draft has an error at `path`.
bool code_field(const ScenarioEditor& s, const char* id, std::string* text, const std::string& path,
                float width) {
  ImGui::SetNextItemWidth(width);
  ImGui::PushFont(g_fonts.mono);
  const bool bad = error_for(s.errors, path) != nullptr;
  if (bad) ImGui::PushStyleColor(ImGuiCol_FrameBg, ImVec4(0.55f, 0.10f, 0.10f, 0.55f));
  const bool changed = ImGui::InputText(id, text);
  if (bad) ImGui::PopStyleColor();
  ImGui::PopFont();
  return changed;
}

bool input_s64(const char* id, int64_t* v, float width) {
  ImGui::SetNextItemWidth(width);
  return ImGui::InputScalar(id, ImGuiDataType_S64, v);
}

// The kind combo (as wide as its text: "store" leaves the index room, "ldmatrix.x4.trans" is
// not cut): every kind a step can take; true when one was picked.
bool kind_combo(Scenario& d, size_t i) {
  const std::string cur = d.steps[i].kind_text();
  bool picked = false;
  ImGui::SetNextItemWidth(ImGui::CalcTextSize(cur.c_str()).x + ImGui::GetFrameHeight() +
                          ImGui::GetStyle().FramePadding.x * 2);
  if (ImGui::BeginCombo("##kind", cur.c_str(), ImGuiComboFlags_HeightLarge)) {
    for (const std::string& k : step_kind_choices())
      if (ImGui::Selectable(k.c_str(), k == cur) && k != cur) picked = set_step_kind(d, i, k);
    ImGui::EndCombo();
  }
  static const std::string tip = [] {
    std::string t = "What the step does:";
    for (const StepKindInfo& k : step_kinds()) {
      t += '\n';  // not "\n" + std::string: GCC 12's false -Wrestrict at -O3 (CMakeLists.txt)
      t += k.help;
    }
    return t;
  }();
  control_tip(tip.c_str());
  return picked;
}

// The selected step's tile, guard, value and loop, and its buttons.
void step_details(ScenarioEditor& s, FieldEdits& e, size_t i, const std::string& p, float w) {
  Scenario& d = s.draft;
  Step& st = d.steps[i];
  const float fs = ImGui::GetFontSize();
  if (st.is_memory()) {
    if (d.tiles.size() > 1) {
      ImGui::SetNextItemWidth(w);
      const TileDecl* cur = d.find_tile(st.tile);
      if (ImGui::BeginCombo("tile", cur ? cur->name.c_str() : st.tile.c_str())) {
        for (const TileDecl& t : d.tiles)
          if (ImGui::Selectable(t.name.c_str(), cur == &t)) {
            st.tile = t.name;
            e.discrete(true);
          }
        ImGui::EndCombo();
      }
      control_tip("The __shared__ array the step accesses");
    }
    ImGui::TextDisabled("  if");
    ImGui::SameLine();
    e.text(code_field(s, "##guard", &st.guard, p + ".guard", -1), p + ".guard");
    control_tip(
        "Only threads for which this C condition holds take part in the step; empty: every "
        "thread. Example: threadIdx.x < 16");
    show_error(s, p + ".guard");
    if (st.kind == StepKind::Store || st.kind == StepKind::Atomic ||
        st.kind == StepKind::StMatrix) {
      ImGui::TextDisabled("  = ");
      ImGui::SameLine();
      e.text(code_field(s, "##value", &st.value, p + ".value", -1), p + ".value");
      control_tip(
          "The value stored (a C expression per thread); empty: the thread's linear index. The "
          "generated kernel writes it and a GPU run checks it");
      show_error(s, p + ".value");
    }
    if (st.kind == StepKind::CpAsync) {
      ImGui::TextDisabled("  from");
      ImGui::SameLine();
      e.text(code_field(s, "##source", &st.source, p + ".source", -1), p + ".source");
      control_tip(
          "The global chunk the thread copies (a C expression per thread, in copies of this "
          "size); empty: the thread's linear index, a coalesced read. The source paces the "
          "shared write (docs/CPASYNC_SOURCE.md)");
      show_error(s, p + ".source");
    }
  }
  ImGui::TextDisabled("  label");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(-1);
  e.text(ImGui::InputText("##label", &st.label), p + ".label");
  control_tip("The step's name on the timeline; empty: made from its index");
  show_error(s, p + ".label");
  // for (int var = from; var < to; var += step)
  bool looped = !st.loop_var.empty();
  if (ImGui::Checkbox("loop", &looped)) {
    if (looped) {
      // char assignments: GCC 12 -O3 warns falsely (-Wrestrict) on a 1-character literal
      st.loop_var = 'i';
      for (const Let& l : d.lets)
        if (l.name == st.loop_var) st.loop_var = 'k';
      st.loop_from = 0;
      st.loop_to = 2;
      st.loop_step = 1;
    } else {
      st.loop_var.clear();
    }
    e.discrete(true);
  }
  control_tip(
      "Repeat the step in a C loop, for (int var = from; var < to; var += step) (var > to when "
      "step is negative); the index, guard and value may use var");
  if (looped) {
    // loop [i] = [0] to [2] step [1]
    const float nw = fs * 2.6f;
    ImGui::SameLine();
    e.text(code_field(s, "##var", &st.loop_var, p + ".loop.var", nw), p + ".loop.var");
    control_tip("The loop variable's name (an int)");
    ImGui::SameLine();
    ImGui::TextDisabled("=");
    ImGui::SameLine();
    e.text(input_s64("##from", &st.loop_from, nw), p + ".loop.from");
    control_tip("from: the first value");
    ImGui::SameLine();
    ImGui::TextDisabled("to");
    ImGui::SameLine();
    e.text(input_s64("##to", &st.loop_to, nw), p + ".loop.to");
    control_tip("to: the loop runs while var < to (var > to for a negative step)");
    ImGui::SameLine();
    ImGui::TextDisabled("step");
    ImGui::SameLine();
    e.text(input_s64("##step", &st.loop_step, nw), p + ".loop.step");
    control_tip("step: added to var after each iteration; not 0");
    show_error(s, p + ".loop");
  }
  // Move, duplicate, remove (applied after the list is drawn: the loop walks the steps).
  if (ImGui::ArrowButton("##up", ImGuiDir_Up) && move_step(d, i, -1)) {
    s.edit.step = static_cast<int>(i) - 1;
    e.discrete(true);
  }
  control_tip("Move the step one place earlier");
  ImGui::SameLine();
  if (ImGui::ArrowButton("##down", ImGuiDir_Down) && move_step(d, i, 1)) {
    s.edit.step = static_cast<int>(i) + 1;
    e.discrete(true);
  }
  control_tip("Move the step one place later");
  ImGui::SameLine();
  if (ImGui::Button("Duplicate")) {
    s.edit.step = static_cast<int>(duplicate_step(d, i));
    e.discrete(true);
  }
  control_tip("Insert a copy of the step after it");
  ImGui::SameLine();
  if (ImGui::Button("Remove")) {
    remove_step(d, i);
    s.edit.step = std::min(static_cast<int>(i), static_cast<int>(d.steps.size()) - 1);
    e.discrete(true);
  }
  control_tip("Remove the step");
}

}  // namespace

void draw_steps(ScenarioEditor& s, FieldEdits& e, float w) {
  Scenario& d = s.draft;
  const float fs = ImGui::GetFontSize();
  section("Shared-memory steps");
  for (size_t i = 0; i < d.steps.size(); ++i) {
    const std::string p = "steps[" + std::to_string(i) + "]";
    ImGui::PushID(p.c_str());
    const bool selected = s.edit.step == static_cast<int>(i);
    const std::string num = std::to_string(i);
    if (ImGui::Selectable(num.c_str(), selected, 0, ImVec2(ImGui::CalcTextSize("0000").x, 0)))
      s.edit.step = selected ? -1 : static_cast<int>(i);
    control_tip(
        "Select the step: its guard, value and loop, and the buttons that move, duplicate and "
        "remove it; Add step inserts after it");
    ImGui::SameLine();
    e.discrete(kind_combo(d, i));
    if (d.steps[i].is_memory()) {
      ImGui::SameLine();
      e.text(code_field(s, "##index", &d.steps[i].index, p + ".index", -1), p + ".index");
      control_tip(
          "The subscript as the kernel writes it, a C expression over threadIdx, blockDim, "
          "blockIdx, the constants, the lets and the loop variable: "
          "tile[threadIdx.y][threadIdx.x]");
    }
    const size_t count = d.steps.size();
    if (selected) {
      ImGui::Indent();
      step_details(s, e, i, p, w);
      ImGui::Unindent();
    } else {
      if (!d.steps[i].guard.empty()) ImGui::TextDisabled("  if %s", d.steps[i].guard.c_str());
      if (!d.steps[i].loop_var.empty())
        ImGui::TextDisabled("  for %s = %lld .. %lld step %lld", d.steps[i].loop_var.c_str(),
                            static_cast<long long>(d.steps[i].loop_from),
                            static_cast<long long>(d.steps[i].loop_to),
                            static_cast<long long>(d.steps[i].loop_step));
    }
    // The step's own errors not shown under a field above (kind, tile, evaluation).
    show_error(s, p);
    ImGui::PopID();
    if (d.steps.size() != count) break;  // removed or inserted: the next frame draws the list
  }
  // Add a step of the chosen kind after the selected one (or at the end).
  ImGui::SetNextItemWidth(fs * 8.5f);
  if (ImGui::BeginCombo("##addkind", s.edit.add_kind.c_str(), ImGuiComboFlags_HeightLarge)) {
    for (const std::string& k : step_kind_choices())
      if (ImGui::Selectable(k.c_str(), k == s.edit.add_kind)) s.edit.add_kind = k;
    ImGui::EndCombo();
  }
  control_tip("The kind of step Add step inserts");
  ImGui::SameLine();
  if (ImGui::Button("Add step")) {
    const size_t after = s.edit.step >= 0 ? static_cast<size_t>(s.edit.step) : d.steps.size();
    s.edit.step = static_cast<int>(add_step(d, after, s.edit.add_kind));
    e.discrete(true);
  }
  control_tip(
      "Insert a step of that kind after the selected step (at the end when none is selected); "
      "it starts with the index of the step before it");
}

void draw_lets_and_constants(ScenarioEditor& s, FieldEdits& e, float w) {
  Scenario& d = s.draft;
  const float fs = ImGui::GetFontSize();
  section("Per-thread variables (lets)");
  for (size_t i = 0; i < d.lets.size(); ++i) {
    const std::string p = "lets[" + std::to_string(i) + "]";
    ImGui::PushID(p.c_str());
    Let& l = d.lets[i];
    e.text(code_field(s, "##type", &l.type, p + ".type", fs * 5), p + ".type");
    control_tip(
        "The C type the kernel declares it with: int, unsigned int, long long, unsigned long long "
        "(or a spelling such as unsigned, size_t); empty: the expression's own type");
    ImGui::SameLine();
    e.text(code_field(s, "##name", &l.name, p + ".name", fs * 4), p + ".name");
    control_tip("Its name, used by the expressions after it (a C identifier)");
    ImGui::SameLine();
    ImGui::TextUnformatted("=");
    ImGui::SameLine();
    e.text(code_field(s, "##expr", &l.expr, p + ".expr", -ImGui::GetFrameHeight() - fs * 0.5f),
           p + ".expr");
    control_tip(
        "Evaluated per thread, in order: a C expression over threadIdx, blockDim, blockIdx, the "
        "constants and the lets before it");
    ImGui::SameLine();
    const bool removed = ImGui::Button("x", ImVec2(ImGui::GetFrameHeight(), 0));
    control_tip("Remove this let");
    show_error(s, p);
    ImGui::PopID();
    if (removed) {
      remove_let(d, i);
      e.discrete(true);
      break;
    }
  }
  if (ImGui::Button("Add let")) {
    add_let(d);
    e.discrete(true);
  }
  control_tip("Add a per-thread variable: TYPE NAME = EXPR; (int v1 = threadIdx.x; to start)");

  section("Constants (#define)");
  for (size_t i = 0; i < d.constants.size(); ++i) {
    const std::string p = "constants[" + std::to_string(i) + "]";
    ImGui::PushID(p.c_str());
    Constant& c = d.constants[i];
    e.text(code_field(s, "##name", &c.name, p + ".name", fs * 6), p + ".name");
    control_tip("The macro's name (a C identifier)");
    ImGui::SameLine();
    e.text(input_s64("##value", &c.value, w * 0.6f), p + ".value");
    control_tip("Its value, an integer");
    ImGui::SameLine();
    ImGui::TextDisabled("%s", ctype_name(c.type()));
    control_tip("The C type of the literal: int within [-INT_MAX, INT_MAX], else long long");
    ImGui::SameLine();
    const bool removed = ImGui::Button("x", ImVec2(ImGui::GetFrameHeight(), 0));
    control_tip("Remove this constant");
    show_error(s, p);
    ImGui::PopID();
    if (removed) {
      remove_constant(d, i);
      e.discrete(true);
      break;
    }
  }
  if (ImGui::Button("Add constant")) {
    add_constant(d);
    e.discrete(true);
  }
  control_tip("Add a named constant: #define NAME VALUE");
}

}  // namespace bankviz::gui
