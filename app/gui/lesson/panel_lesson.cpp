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
  return scene_caption(scene, *s.analysis, s.l.step, s.l.revealed);
}

std::string question_line(const Strip& s) {
  const Scene& scene = s.l.file->scenes[s.l.scene];
  if (!scene.question) return {};
  std::string q = "Q: " + scene.question->ask;
  if (s.l.revealed)
    q += "    A: " + answer_words(scene.question->quantity, s.l.answer) + " (the model)";
  return q;
}

// Presenter mode says it in two lines (key C: all of it): the scene's number and what to say
// (the caption; after the answer, the reveal), then the question and its answer.
bool compact(const Strip& s) {
  return s.look.settings.presenter && !s.l.caption_full;
}

std::string compact_first_line(const Strip& s) {
  const Scene& scene = s.l.file->scenes[s.l.scene];
  std::string text = scene.caption;
  if (s.analysis) {
    const bool told = s.l.revealed || !scene.question;
    text = told && !scene.reveal.empty()
               ? fill_scene_text(scene.reveal, *s.analysis, s.l.step).value_or(scene.reveal)
               : fill_scene_text(scene.caption, *s.analysis, s.l.step).value_or(scene.caption);
  }
  return std::to_string(s.l.scene + 1) + "/" + std::to_string(s.l.file->scenes.size()) + "  " +
         text;
}

// `text` cut to `width` pixels of `font` with "..." (and a hint that C shows it all).
std::string elide(ImFont* font, const std::string& text, float width) {
  auto w = [&](const std::string& t) {
    return font->CalcTextSizeA(font->FontSize, 1e9f, 0, t.c_str()).x;
  };
  if (w(text) <= width) return text;
  const std::string more = " ... (C)";
  size_t lo = 0, hi = text.size();
  while (lo < hi) {  // the longest prefix that fits with the hint
    const size_t mid = (lo + hi + 1) / 2;
    if (w(text.substr(0, mid) + more) <= width) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  while (lo > 0 && (static_cast<unsigned char>(text[lo]) & 0xC0) == 0x80) --lo;  // whole UTF-8
  return text.substr(0, lo) + more;
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

float lesson_height(const LessonState& l, const Analysis* analysis, const std::string& title,
                    const Look& look, float width) {
  const Strip s{l, analysis, title, look};
  if (!s.l.file || s.l.scene < 0) return 0;
  const ImGuiStyle& st = ImGui::GetStyle();
  if (compact(s) && !s.look.slide) {
    const Scene& scene = s.l.file->scenes[s.l.scene];
    // The buttons are flat (no frame padding) so that the two lines are two lines of type.
    const float line = std::max(ImGui::GetFontSize(), g_fonts.bold->FontSize);
    return std::ceil(st.WindowPadding.y * 2 + line +
                     (scene.question ? st.ItemSpacing.y + g_fonts.bold->FontSize : 0));
  }
  const float wrap = width - st.WindowPadding.x * 2;
  const Scene& scene = s.l.file->scenes[s.l.scene];
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

int draw_lesson(const LessonState& l, const Analysis* analysis, const std::string& title,
                const Look& look, Rect r) {
  const Strip s{l, analysis, title, look};
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
    // Two lines for a room: what to say, then the question (and its answer once revealed).
    ImGui::PushFont(g_fonts.bold);
    const float room = right - top.x - bw * 2 - fs;
    ImGui::TextUnformatted(elide(g_fonts.bold, compact_first_line(s), room).c_str());
    ImGui::PopFont();
    ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(ImGui::GetStyle().FramePadding.x, 0));
    move = draw_scene_buttons(s, r, bw);
    ImGui::PopStyleVar();
    if (scene.question) {
      ImGui::PushFont(g_fonts.bold);
      ImGui::PushStyleColor(ImGuiCol_Text,
                            colv(s.l.revealed ? s.look.palette.text : s.look.palette.lit_border));
      ImGui::TextUnformatted(elide(g_fonts.bold, question_line(s), right - top.x).c_str());
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
