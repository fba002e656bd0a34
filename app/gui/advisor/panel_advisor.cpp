// panel_advisor.cpp: the advisor window and the CuTe layout field of the tile controls.
//
// [SECTION] Layout field (tile controls) and captions (tile view, tooltip)
// [SECTION] Advisor window
//
// Views over AppState (advisor.h): the advice is core's advise() (every candidate analyzed by
// analyze()), the layout is core's parse_layout(); nothing is computed here but what to show.
#include "shell/panels.h"
// after imgui.h (via panels.h): it needs IMGUI_API
#include "imgui_stdlib.h"
#include "platform/theme.h"

namespace bankviz::gui {

// [SECTION] Layout field (tile controls) and captions (tile view, tooltip) ======================

bool edit_layout(std::vector<LayoutField>& fields, TileDecl& t, size_t ti, float w,
                 const Palette& palette) {
  if (fields.size() <= ti) fields.resize(ti + 1);
  LayoutField& f = fields[ti];
  const std::string now = t.layout_text();
  if (now != f.shown) f = {now, now, {}, t.elem, {}, {}};  // a preset, a file or a fix changed it
  bool changed = false;
  if (t.elem != f.elem && f.error.empty() && t.cute) {
    // A new element type: a byte-unit swizzle (SW128, Sw<..,bytes>) is another element swizzle.
    f.elem = t.elem;
    if (std::string err = t.set_layout(f.text); !err.empty())
      f.error = err;  // e.g. a byte swizzle finer than the new element
    else if (t.layout_text() != now)
      changed = true;
    f.shown = t.layout_text();
  }
  ImGui::SetNextItemWidth(w);
  ImGui::PushFont(g_fonts.mono);
  const bool edited =
      ImGui::InputTextWithHint("CuTe layout", "((8,4),64):((64,512),1) or SW128 o ...", &f.text);
  ImGui::PopFont();
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "(shape):(stride), modes nested in parentheses, one subscript per top-level mode;\n"
        "Sw<B,M,S> o ... composes CuTe's swizzle on element offsets, Sw<B,M,S,bytes> on bytes,\n"
        "SW32 / SW64 / SW128 the TMA/GMMA modes. Empty: the row-major array above.");
  if (edited) {
    if (f.text.find_first_not_of(" \t") == std::string::npos) {
      f.error.clear();
      if (t.cute) t.cute.reset(), changed = true;
    } else if (std::string err = t.set_layout(f.text); !err.empty()) {
      f.error = err;  // the tile keeps its last good layout
    } else {
      f.error.clear();
      changed = true;
    }
    f.shown = t.layout_text();
    f.elem = t.elem;
  }
  // The TMA/GMMA swizzle modes by name, converted to this element's units.
  const Swizzle on_bytes = swizzle_elements_to_bytes(t.swizzle, t.elem_bytes());
  const char* current = t.swizzle.identity() ? "none" : "other";
  for (const NamedSwizzle& n : named_swizzles())
    if (n.bytes == on_bytes && t.swizzle_on_address) current = n.name.data();
  ImGui::SetNextItemWidth(w);
  if (ImGui::BeginCombo("TMA swizzle", current)) {
    if (ImGui::Selectable("none", t.swizzle.identity())) {
      t.swizzle = {};
      t.swizzle_on_address = false;
      changed = true;
    }
    // TMA swizzles the shared-memory address (tile.h): the tile's base enters it.
    for (const NamedSwizzle& n : named_swizzles()) {
      std::optional<Swizzle> z = swizzle_bytes_to_elements(n.bytes, t.elem_bytes());
      if (z && ImGui::Selectable(n.name.data(), *z == t.swizzle && t.swizzle_on_address)) {
        t.swizzle = *z;
        t.swizzle_on_address = true;
        changed = true;
      }
    }
    ImGui::EndCombo();
  }
  control_tip(
      "The Hopper TMA's swizzle modes (32, 64, 128 bytes) as CuTe's Swizzle<B,M,S> for "
      "this element size, on the shared-memory address (the tile's base enters it): what a "
      "TMA copy into this tile would store");
  if (!f.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, colv(palette.conflict));
    ImGui::TextWrapped("layout: %s", f.error.c_str());
    ImGui::PopStyleColor();
  }
  if (!t.swizzle.identity())
    ImGui::TextDisabled("%s", swizzle_units_text(t.swizzle, t.elem_bytes()).c_str());
  // The broadcast note walks every coordinate: only when the layout changes.
  const std::string key = t.layout_text() + ' ' + t.elem + ' ' + std::to_string(t.base);
  if (f.note_for != key) f.note = t.layout_note(), f.note_for = key;
  if (!f.note.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, colv(palette.conflict));
    ImGui::TextWrapped("%s", f.note.c_str());
    ImGui::PopStyleColor();
  }
  return changed;
}

void draw_layout_caption(const TileDecl& t) {
  if (!t.cute) return;
  ImGui::TextDisabled("layout %s: a cell is a coordinate (row = mode 0, column = mode %zu)",
                      t.layout_text().c_str(), t.cute->modes.size() - 1);
}

void layout_tooltip_lines(const TileDecl& t, int64_t element) {
  if (!t.cute) return;
  const int64_t off = t.storage(element);
  ImGui::Text("CuTe %s -> offset %lld", coordinate_text(*t.cute, t.unlinear(element)).c_str(),
              static_cast<long long>(off));
  if (!t.swizzle.identity())
    ImGui::Text("%s%s -> %lld", t.swizzle.text().c_str(),
                t.swizzle_on_address ? " on the address" : "",
                static_cast<long long>(t.swizzled_offset(off)));
}

// [SECTION] Advisor window =======================================================================

namespace {

// current: the advice is about the scenario on screen; else no fix is offered (it would undo the
// edits made since).
void tile_advice(const AdvisorState& a, const Palette& pal, const Advice& adv, const TileAdvice& ta,
                 bool current, AdvisorAsk& ask) {
  const Scenario& sc = a.asked;
  const TileDecl& t = sc.tiles[static_cast<size_t>(ta.tile)];
  ImGui::PushFont(g_fonts.mono);
  ImGui::TextUnformatted(t.declaration().c_str());
  ImGui::PopFont();
  for (const int& i : ta.steps) {  // by reference: &i gives the position
    const StepAdvice& st = adv.steps[static_cast<size_t>(i)];
    const std::string line = "step " + std::to_string(st.step) + " " + st.label + ": now " +
                             std::to_string(st.wavefronts) + "/" + std::to_string(st.ideal);
    if (st.conflict_free_now()) {
      ImGui::TextDisabled("%s, conflict-free", line.c_str());
      continue;
    }
    ImGui::PushStyleColor(ImGuiCol_Text, colv(pal.conflict));
    ImGui::TextWrapped("%s", line.c_str());
    ImGui::PopStyleColor();
    // The fixes that reach this step's fewest wavefronts, cheapest first (as the CLI lists them).
    const Fix& best = adv.fixes[static_cast<size_t>(st.best.front())];
    const size_t at = static_cast<size_t>(&i - ta.steps.data());
    std::string fixes = best.wavefronts[at] == st.ideal
                            ? "conflict-free with: "
                            : "fewest (" + std::to_string(best.wavefronts[at]) + ") with: ";
    for (size_t b = 0; b < st.best.size() && b < 4; ++b) {
      const Fix& f = adv.fixes[static_cast<size_t>(st.best[b])];
      fixes += (b ? ", " : "") + f.name;
      if (f.extra_bytes) fixes += " (+" + std::to_string(f.extra_bytes) + " B)";
    }
    if (st.best.size() > 4) fixes += ", ...";
    ImGui::TextWrapped("  %s", fixes.c_str());
  }
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
  const float rows = static_cast<float>(std::min<size_t>(ta.ranked.size(), 12) + 1);
  if (!ImGui::BeginTable("ranked", 5, flags, ImVec2(0, ImGui::GetFrameHeightWithSpacing() * rows)))
    return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("");
  ImGui::TableSetupColumn("fix");
  ImGui::TableSetupColumn("wavefronts / ideal");
  ImGui::TableSetupColumn("shared memory");
  ImGui::TableSetupColumn("steps conflict-free");
  ImGui::TableHeadersRow();
  for (int i : ta.ranked) {
    const Fix& f = adv.fixes[static_cast<size_t>(i)];
    ImGui::PushID(i);
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    if (current && f.kind != FixKind::Baseline && ImGui::SmallButton("apply")) ask.apply = f;
    control_tip("Make this fix the scenario (an edit: Ctrl+Z undoes it)");
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(f.name.c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%lld / %lld", static_cast<long long>(f.total_wavefronts),
                static_cast<long long>(f.total_ideal));
    ImGui::TableNextColumn();
    ImGui::Text("%+lld B", static_cast<long long>(f.extra_bytes));
    ImGui::TableNextColumn();
    ImGui::Text("%d of %zu", f.conflict_free_steps, f.ideal.size());
    ImGui::PopID();
  }
  ImGui::EndTable();
}

}  // namespace

AdvisorAsk draw_advisor(AdvisorState& a, bool analyzed, int version, const Palette& pal) {
  AdvisorAsk ask;
  poll_advice(a);
  if (!a.open) return ask;
  const float fs = ImGui::GetFontSize();
  ImGui::SetNextWindowSize(ImVec2(fs * 44, fs * 30), ImGuiCond_FirstUseEver);
  if (!ImGui::Begin("Advisor: paddings and swizzles", &a.open)) {
    ImGui::End();
    return ask;
  }
  const bool running = a.job.busy();
  if (!analyzed) {
    ImGui::TextDisabled("No analysis yet: fix the errors in the controls.");
  } else if (running) {
    ImGui::TextDisabled("analyzing every candidate ...");
  } else if (ImGui::Button(a.advice ? "Advise again" : "Advise")) {
    ask.advise = true;
  }
  control_tip(
      "Analyze every padding (1 to 32) and swizzle of each tile with the model and rank "
      "them by wavefronts, then shared memory");
  ImGui::SameLine();
  ImGui::TextDisabled(
      "each padding and swizzle analyzed by the model; ranked by wavefronts, "
      "then shared memory");
  if (!a.failure.empty()) ImGui::TextWrapped("the advice failed: %s", a.failure.c_str());
  if (a.advice) {
    const Advice& adv = *a.advice;
    if (a.asked_version != version)
      ImGui::TextDisabled("(for the scenario as it was: press Advise again for the current one)");
    if (!adv.errors.empty())
      ImGui::TextWrapped("the scenario does not analyze: %s", adv.errors[0].format().c_str());
    ImGui::TextDisabled("%d analyses%s", adv.analyses,
                        adv.truncated ? ", stopped at the bound" : "");
    for (size_t k = 0; k < adv.tiles.size(); ++k) {
      ImGui::PushID(static_cast<int>(k));
      ImGui::Separator();
      tile_advice(a, pal, adv, adv.tiles[k], a.asked_version == version, ask);
      ImGui::PopID();
    }
  }
  ImGui::End();
  return ask;
}

}  // namespace bankviz::gui
