// panel_author.cpp: the "Write a lesson" window (Lessons menu): the lesson's title and name, the
// form for the next scene (caption, reveal, question), "Add this view as a scene", the scenes so
// far (move up, down, remove), and "Save" with what `lessons --check` says of it (author.h).
#include <string>

#include "platform/theme.h"
#include "shell/panels.h"
// After imgui.h (theme.h's): Dear ImGui's std::string fields.
#include "imgui_stdlib.h"

namespace bankviz::gui {

namespace {

// A part of the window: a rule, then its name (ImGui 1.86 has no SeparatorText).
void part(const char* name) {
  ImGui::Separator();
  ImGui::TextDisabled("%s", name);
}

void lesson_fields(AuthorState& a) {
  ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 6);
  ImGui::InputText("title##lesson", &a.lesson.title);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("The lesson's title, one line");
  ImGui::SetNextItemWidth(-ImGui::GetFontSize() * 6);
  ImGui::InputText("name", &a.lesson.name);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("The file's stem: letters, digits, '-' and '_' (\"my-lesson\")");
}

void scene_form(SceneForm& f, const Analysis* analysis, int step, bool conceal) {
  const float fs = ImGui::GetFontSize();
  part("This view as the next scene");
  if (analysis && step >= 0 && step < static_cast<int>(analysis->steps.size()))
    ImGui::TextWrapped("Opens on: %s", analysis->steps[static_cast<size_t>(step)].label.c_str());
  ImGui::SetNextItemWidth(-fs * 6);
  ImGui::InputText("scene title", &f.title);
  ImGui::InputTextMultiline("caption", &f.caption, ImVec2(-fs * 6, fs * 3.2f));
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "What to say while the scene is on screen, before its answer: no figure of the model "
        "(the check refuses one); about 125 characters fit presenter mode's two lines");
  ImGui::InputTextMultiline("reveal", &f.reveal, ImVec2(-fs * 6, fs * 3.2f));
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "Said with the answer; the model's figures as {wavefronts}, {ideal}, {ways}, "
        "{bank_passes}, {warps}...: filled from the picture, never out of date");
  ImGui::Checkbox("ask a question", &f.ask);
  if (!f.ask) return;
  ImGui::SetNextItemWidth(-fs * 6);
  ImGui::InputText("question", &f.question);
  ImGui::SetNextItemWidth(fs * 10);
  if (ImGui::BeginCombo("answered by", quantity_name(f.quantity))) {
    for (Quantity q :
         {Quantity::Wavefronts, Quantity::Ideal, Quantity::StepWavefronts, Quantity::Warps,
          Quantity::Races, Quantity::RacingAccesses, Quantity::OutOfBounds})
      if (ImGui::Selectable(quantity_name(q), q == f.quantity)) f.quantity = q;
    ImGui::EndCombo();
  }
  if (analysis && step >= 0 && !conceal) {
    ImGui::SameLine();
    ImGui::TextDisabled(
        "the model: %s",
        answer_words(f.quantity, model_answer(*analysis, f.quantity, step)).c_str());
  }
}

// The scenes so far, each with up, down and remove; returns nothing (edits in place).
void scene_list(Lesson& l) {
  part("Scenes");
  if (l.scenes.empty()) ImGui::TextDisabled("none yet");
  for (size_t i = 0; i < l.scenes.size(); ++i) {
    const Scene& sc = l.scenes[i];
    ImGui::PushID(static_cast<int>(i));
    if (ImGui::SmallButton("^")) move_scene(l, i, -1);
    ImGui::SameLine();
    if (ImGui::SmallButton("v")) move_scene(l, i, 1);
    ImGui::SameLine();
    const bool remove = ImGui::SmallButton("x");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Remove this scene");
    ImGui::SameLine();
    const std::string title = sc.title.empty() && sc.scenario ? sc.scenario->title : sc.title;
    ImGui::TextWrapped("%zu. %s%s", i + 1, title.c_str(),
                       sc.question ? ("  Q: " + sc.question->ask).c_str() : "");
    ImGui::PopID();
    if (remove) {
      remove_scene(l, i);
      break;
    }
  }
}

}  // namespace

std::function<TextWidth(float px)> bold_widths() {
  ImFont* bold = g_fonts.bold;
  if (!bold) return {};
  return [bold](float px) -> TextWidth {
    return [bold, px](std::string_view t) {
      return bold->CalcTextSizeA(px, 1e9f, 0, t.data(), t.data() + t.size()).x;
    };
  };
}

AuthorAsk draw_author(AuthorState& a, const Analysis* analysis, int step, bool conceal,
                      const Palette& pal) {
  AuthorAsk ask;
  if (!a.open) return ask;
  const float fs = ImGui::GetFontSize();
  ImGui::SetNextWindowSize(ImVec2(fs * 34, fs * 36), ImGuiCond_FirstUseEver);
  if (!ImGui::Begin("Write a lesson", &a.open)) {
    ImGui::End();
    return ask;
  }
  lesson_fields(a);
  scene_form(a.form, analysis, step, conceal);
  ImGui::BeginDisabled(!analysis);
  if (ImGui::Button("Add this view as a scene")) ask.add = true;
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip(
        "The scenario on screen, embedded whole, opened on the step on screen, with the texts "
        "above; the question's answer is the model's");
  scene_list(a.lesson);
  part("Save");
  if (a.path.empty()) a.path = default_lesson_path(a.lesson);
  ImGui::SetNextItemWidth(-fs * 6);
  ImGui::InputText("file", &a.path);
  if (ImGui::Button("Save")) ask.save = true;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Checks the lesson as `bankviz-cli lessons --check` does, then writes it");
  if (a.confirm_replace) {
    ImGui::SameLine();
    if (ImGui::Button("Replace it")) ask.save = ask.force = true;
  }
  if (!a.note.empty()) ImGui::TextWrapped("%s", a.note.c_str());
  ImGui::PushStyleColor(ImGuiCol_Text, colv(pal.conflict));
  for (const Diagnostic& d : a.problems) ImGui::TextWrapped("%s", d.format().c_str());
  ImGui::PopStyleColor();
  ImGui::End();
  return ask;
}

}  // namespace bankviz::gui
