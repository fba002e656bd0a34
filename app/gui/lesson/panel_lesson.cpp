// panel_lesson.cpp: the lesson's caption strip, between the toolbar and the views (--lesson).
//
//   Scene 3 of 11 -- setRowReadCol: row write, column read                  [< back] [next >]
//   The transpose: the store walks a row (1 wavefront) and the load walks a column ...
//   Q: How many wavefronts will the column load need per warp?   A: 32 (the model)
//
// It is part of the window, so screenshots, PNG sequences and GIFs carry the caption. The
// question is asked first; the clicker's next (or the button) reveals the model's answer.
#include <algorithm>
#include <cmath>
#include <string>

#include "caption_fit.h"
#include "lesson/notes.h"
#include "platform/theme.h"
#include "shell/panels.h"

namespace bankviz::gui {

namespace {

// The strip's view of the app: the lesson, the scene on screen, the look.
struct Strip {
  const LessonState& l;
  const Analysis* analysis;
  const std::string& title;
  const Look& look;
  bool revealed;  // l.revealed, or the other state (the strip's room is the larger of the two)
};

std::string heading(const Strip& s) {
  const Scene& scene = s.l.file->scenes[s.l.scene];
  const std::string title = !scene.title.empty() ? scene.title : s.title;
  return "Scene " + std::to_string(s.l.scene + 1) + " of " +
         std::to_string(s.l.file->scenes.size()) + "  -  " + title;
}

// The caption as the room sees it now: before the answer, the caption; after, with the reveal
// (lesson.h scene_caption: figures filled from the analysis on screen).
std::string caption_text(const Strip& s) {
  const Scene& scene = s.l.file->scenes[s.l.scene];
  if (!s.analysis) return scene.caption;
  return scene_caption(scene, *s.analysis, s.l.step, s.revealed);
}

std::string question_line(const Strip& s) {
  return question_strip_text(s.l.file->scenes[s.l.scene], s.l.answer, s.revealed);
}

// Presenter mode says it in a few lines (key C: all of it): the scene's number and what to say
// (the caption; after the answer, the reveal) in at most two, then the question and its answer
// in one (caption_fit.h).
bool compact(const Strip& s) {
  return s.look.settings.presenter && !s.l.caption_full;
}

// What to say, in at most two lines beside the buttons (caption_fit.h: `lessons --check` makes
// sure a lesson's texts fit them at the sizes a class uses; a longer text ends "... (C)").
WrappedText compact_caption(const Strip& s, float strip_width) {
  const ImGuiStyle& st = ImGui::GetStyle();
  ImFont* bold = g_fonts.bold;
  const auto width = [bold](std::string_view t) {
    return bold->CalcTextSizeA(bold->FontSize, 1e9f, 0, t.data(), t.data() + t.size()).x;
  };
  const CaptionRoom room =
      presenter_caption_room(strip_width - st.WindowPadding.x * 2, ImGui::GetFontSize());
  const std::string text =
      caption_strip_text(s.l.file->scenes[s.l.scene], s.analysis, s.l.step, s.l.scene,
                         static_cast<int>(s.l.file->scenes.size()), s.revealed);
  return wrap_caption(text, room, kCaptionLines, width);
}

// The question (and its answer) in one line of the whole width.
std::string compact_question(const Strip& s, float width) {
  ImFont* bold = g_fonts.bold;
  const auto measure = [bold](std::string_view t) {
    return bold->CalcTextSizeA(bold->FontSize, 1e9f, 0, t.data(), t.data() + t.size()).x;
  };
  const WrappedText w = wrap_caption(question_line(s), {width, width}, kQuestionLines, measure);
  return w.lines.empty() ? std::string() : w.lines.front();
}

// Back and next (what the clicker keys do), on the right of the heading's line.
int draw_scene_buttons(const Strip& s, Rect r, float bw) {
  int move = 0;
  const Scene& scene = s.l.file->scenes[s.l.scene];
  const float right = r.pos.x + r.size.x - ImGui::GetStyle().WindowPadding.x;
  ImGui::SameLine(right - r.pos.x - bw * 2 - ImGui::GetStyle().ItemSpacing.x);
  ImGui::BeginDisabled(s.l.scene == 0);
  s.look.layout.scene_buttons += 2;
  if (ImGui::Button("< back", ImVec2(bw, 0))) move = -1;
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("The previous scene (PageUp, B)");
  ImGui::SameLine();
  const bool last = s.l.scene + 1 >= static_cast<int>(s.l.file->scenes.size());
  const bool ask = scene.question && !s.l.revealed;
  ImGui::BeginDisabled(last && !ask);
  if (ImGui::Button(ask ? "answer" : "next >", ImVec2(bw, 0))) move = 1;
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip(ask ? "Reveal the model's answer (PageDown, period)"
                          : "The next scene (PageDown, period)");
  return move;
}

}  // namespace

namespace {

// The strip's height for one state of the scene (before or after its answer).
float strip_height(const Strip& s, float width) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const Scene& scene = s.l.file->scenes[s.l.scene];
  if (compact(s) && !s.look.slide) {
    // The buttons are flat (no frame padding) so that the lines are lines of type.
    const float line = std::max(ImGui::GetFontSize(), g_fonts.bold->FontSize);
    const float lines =
        static_cast<float>(std::max<size_t>(1, compact_caption(s, width).lines.size()));
    return std::ceil(st.WindowPadding.y * 2 + line +
                     (lines - 1) * (g_fonts.bold->FontSize + st.ItemSpacing.y) +
                     (scene.question ? st.ItemSpacing.y + g_fonts.bold->FontSize : 0));
  }
  const float wrap = width - st.WindowPadding.x * 2;
  float h = st.WindowPadding.y * 2;
  h += g_fonts.bold->CalcTextSizeA(g_fonts.bold->FontSize, 1e9f, wrap, heading(s).c_str()).y;
  h += ImGui::GetFrameHeight() - ImGui::GetFontSize();  // the buttons beside the heading
  h += st.ItemSpacing.y +
       g_fonts.ui->CalcTextSizeA(g_fonts.ui->FontSize, 1e9f, wrap, caption_text(s).c_str()).y;
  if (scene.question)
    h +=
        st.ItemSpacing.y +
        g_fonts.bold->CalcTextSizeA(g_fonts.bold->FontSize, 1e9f, wrap, question_line(s).c_str()).y;
  return std::ceil(h);
}

}  // namespace

float notes_height(const std::string& notes, float width, float most) {
  if (notes.empty()) return 0;
  const ImGuiStyle& st = ImGui::GetStyle();
  // The title bar, the padding and the wrapped paragraph (a scroll bar's width kept aside).
  const float wrap = width - st.WindowPadding.x * 2 - st.ScrollbarSize;
  const float text = ImGui::CalcTextSize(notes.c_str(), nullptr, false, wrap).y;
  const float title = ImGui::GetFontSize() + st.FramePadding.y * 2;
  return std::floor(std::min(most, title + st.WindowPadding.y * 2 + text + 2));
}

void draw_scene_notes(const std::string& notes, bool conceal, Rect r) {
  if (!begin_panel("Scene notes, for the instructor", r)) return ImGui::End();
  ImGui::PushTextWrapPos(0);
  if (conceal) {
    ImGui::TextDisabled("(the scene's notes, for the instructor, follow the answer)");
  } else {
    ImGui::TextUnformatted(notes.c_str());
  }
  ImGui::PopTextWrapPos();
  ImGui::End();
}

float lesson_height(const LessonState& l, const Analysis* analysis, const std::string& title,
                    const Look& look, float width) {
  if (!l.file || l.scene < 0) return 0;
  // The larger of before and after the answer: nothing under the strip moves when it comes.
  const Strip before{l, analysis, title, look, false}, after{l, analysis, title, look, true};
  const bool asks = l.file->scenes[l.scene].question.has_value();
  return asks ? std::max(strip_height(before, width), strip_height(after, width))
              : strip_height(after, width);
}

int draw_lesson(const LessonState& l, const Analysis* analysis, const std::string& title,
                const Look& look, Rect r) {
  const Strip s{l, analysis, title, look, l.revealed};
  if (!s.l.file || s.l.scene < 0) return 0;
  int move = 0;
  if (!begin_panel("##lesson", r, false)) {
    ImGui::End();
    return 0;
  }
  const Scene& scene = s.l.file->scenes[s.l.scene];
  const ImVec2 top = ImGui::GetCursorScreenPos();
  // Buttons on the right of the heading, except on a slide (s.look.slide: exports show the scene).
  const float fs = ImGui::GetFontSize();
  const float bw = fs * 4.5f;
  const float right = r.pos.x + r.size.x - ImGui::GetStyle().WindowPadding.x;
  if (compact(s) && !s.look.slide) {
    // For a room: what to say in at most two lines beside the buttons, then the question (and
    // its answer once revealed).
    ImGui::PushFont(g_fonts.bold);
    const WrappedText said = compact_caption(s, r.size.x);
    for (size_t i = 0; i < said.lines.size(); ++i) {
      ImGui::TextUnformatted(said.lines[i].c_str());
      if (i > 0) continue;
      ImGui::PopFont();
      ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(ImGui::GetStyle().FramePadding.x, 0));
      move = draw_scene_buttons(s, r, bw);
      ImGui::PopStyleVar();
      ImGui::PushFont(g_fonts.bold);
    }
    ImGui::PopFont();
    if (scene.question) {
      ImGui::PushFont(g_fonts.bold);
      ImGui::PushStyleColor(ImGuiCol_Text,
                            colv(s.l.revealed ? s.look.palette.text : s.look.palette.lit_border));
      ImGui::TextUnformatted(compact_question(s, right - top.x).c_str());
      ImGui::PopStyleColor();
      ImGui::PopFont();
    }
    const ImVec2 end = ImGui::GetItemRectMax();
    s.look.layout.caption = {top.x, top.y, right - top.x, end.y - top.y};
    ImGui::End();
    return move;
  }
  ImGui::PushFont(g_fonts.bold);
  ImGui::PushTextWrapPos(s.look.slide ? right : right - bw * 2 - fs);
  ImGui::TextWrapped("%s", heading(s).c_str());
  ImGui::PopTextWrapPos();
  ImGui::PopFont();
  if (!s.look.slide) move = draw_scene_buttons(s, r, bw);
  ImGui::TextWrapped("%s", caption_text(s).c_str());
  if (scene.question) {
    ImGui::PushFont(g_fonts.bold);
    ImGui::PushStyleColor(ImGuiCol_Text,
                          colv(s.l.revealed ? s.look.palette.text : s.look.palette.lit_border));
    ImGui::TextWrapped("%s", question_line(s).c_str());
    ImGui::PopStyleColor();
    ImGui::PopFont();
  }
  const ImVec2 end = ImGui::GetItemRectMax();
  s.look.layout.caption = {top.x, top.y, right - top.x, end.y - top.y};
  ImGui::End();
  return move;
}

}  // namespace bankviz::gui
