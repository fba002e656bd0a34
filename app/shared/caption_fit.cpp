// caption_fit.cpp: the presenter's caption strip in lines (see caption_fit.h).
#include "caption_fit.h"

#include <algorithm>
#include <cmath>

namespace bankviz {

namespace {

const char kMore[] = " ... (C)";

bool continuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// The longest prefix of `text` (whole UTF-8 characters, at least one) no wider than `room`.
size_t chars_that_fit(std::string_view text, float room, const TextWidth& width) {
  size_t lo = 0, hi = text.size();
  while (lo < hi) {
    const size_t mid = (lo + hi + 1) / 2;
    if (width(text.substr(0, mid)) <= room) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  while (lo > 0 && lo < text.size() && continuation(text[lo])) --lo;
  if (lo == 0 && !text.empty()) {  // not even one character: one anyway
    lo = 1;
    while (lo < text.size() && continuation(text[lo])) ++lo;
  }
  return lo;
}

// The end of the line that starts `text` (no leading space): the last word that fits `room`.
size_t line_end(std::string_view text, float room, const TextWidth& width) {
  size_t end = 0;
  for (size_t at = 0; at <= text.size();) {
    const size_t space = std::min(text.find(' ', at), text.size());
    if (width(text.substr(0, space)) > room) break;
    end = space;
    at = space + 1;
  }
  return end > 0 ? end : chars_that_fit(text, room, width);
}

std::string_view skip_spaces(std::string_view t) {
  while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
  return t;
}

}  // namespace

float presenter_type_px(float scale, float window_px_h) {
  return std::max(20.0f * scale, std::floor(window_px_h / 40.0f));
}

CaptionRoom presenter_caption_room(float inner_width, float font_px) {
  return {inner_width - font_px * 10, inner_width};
}

CaptionRoom presenter_caption_room_at(ClassSize size, float* font_px) {
  const float px = presenter_type_px(1.0f, static_cast<float>(size.h));
  if (font_px) *font_px = px;
  return presenter_caption_room(static_cast<float>(size.w) - px, px);
}

WrappedText wrap_caption(std::string_view text, const CaptionRoom& room, int max_lines,
                         const TextWidth& width) {
  WrappedText out;
  std::string_view rest = skip_spaces(text);
  while (!rest.empty() && static_cast<int>(out.lines.size()) < max_lines) {
    const float w = out.lines.empty() ? room.first : room.rest;
    const size_t end = line_end(rest, w, width);
    out.lines.emplace_back(rest.substr(0, end));
    rest = skip_spaces(rest.substr(end));
  }
  if (rest.empty() || out.lines.empty()) return out;
  // Longer than the lines: the last one runs on into the rest, cut where the hint still fits.
  out.cut = true;
  std::string last = out.lines.back() + " " + std::string(rest);
  const float w = out.lines.size() == 1 ? room.first : room.rest;
  const float hint = width(kMore);
  const size_t keep = w > hint ? chars_that_fit(last, w - hint, width) : 0;
  // At a word's end where the kept part has a space (a word is not cut in two), no space left.
  size_t end = keep;
  if (end < last.size() && last[end] != ' ') {
    const size_t space = last.rfind(' ', end);
    if (space != std::string::npos && space > 0) end = space;
  }
  while (end > 0 && last[end - 1] == ' ') --end;
  out.lines.back() = last.substr(0, end) + kMore;
  return out;
}

std::string caption_strip_text(const Scene& scene, const Analysis* a, int step, int index,
                               int count, bool revealed) {
  const bool told = revealed || !scene.question;
  const std::string& text = told && !scene.reveal.empty() ? scene.reveal : scene.caption;
  const std::string filled = a ? fill_scene_text(text, *a, step).value_or(text) : text;
  return std::to_string(index + 1) + "/" + std::to_string(count) + "  " + filled;
}

std::string question_strip_text(const Scene& scene, int64_t answer, bool revealed) {
  if (!scene.question) return {};
  std::string q = "Q: " + scene.question->ask;
  if (revealed) q += "    A: " + answer_words(scene.question->quantity, answer) + " (the model)";
  return q;
}

namespace {

// One text of one scene at one size: a problem when it would be cut.
void fit_one(const std::string& path, const std::string& text, const CaptionRoom& room, int lines,
             ClassSize size, const TextWidth& width, std::vector<Diagnostic>* out) {
  const WrappedText w = wrap_caption(text, room, lines, width);
  if (!w.cut) return;
  // About how much to take out: the overflow in the type's average character width.
  const float all = width(text), per = text.empty() ? 1 : all / static_cast<float>(text.size());
  const float room_px = room.first + room.rest * static_cast<float>(lines - 1);
  const int over = static_cast<int>(std::ceil((all - room_px) / std::max(per, 1.0f))) + 1;
  out->push_back({path, 0,
                  "does not fit " + std::to_string(lines) + (lines == 1 ? " line" : " lines") +
                      " of presenter type at " + std::to_string(size.w) + "x" +
                      std::to_string(size.h) + " (the strip would cut it: \"" + w.lines.back() +
                      "\"); take out about " + std::to_string(std::max(over, 1)) + " characters"});
}

}  // namespace

std::vector<Diagnostic> check_caption_fit(const Lesson& lesson, const std::string& presets_dir,
                                          const std::function<TextWidth(float px)>& width_at) {
  std::vector<Diagnostic> out;
  const int count = static_cast<int>(lesson.scenes.size());
  // Consecutive scenes often show one scenario at different steps: analyzed once for the run.
  std::string last_key;
  AnalysisResult r;
  for (int i = 0; i < count; ++i) {
    const Scene& scene = lesson.scenes[static_cast<size_t>(i)];
    const ScenarioLoad sl = scene_scenario(scene, presets_dir);
    if (!sl.scenario) continue;
    Scenario unopened = *sl.scenario;
    unopened.open_step = -1;
    const std::string key = scenario_to_json(unopened);
    if (key != last_key || !r.analysis) {
      r = analyze(*sl.scenario);
      last_key = key;
    }
    if (!r.analysis) continue;
    r.analysis->scenario.open_step = sl.scenario->open_step;  // the scene's own opening
    const int step = scene_step(*r.analysis, scene);
    if (step < 0) continue;
    const int64_t answer =
        scene.question ? model_answer(*r.analysis, scene.question->quantity, step) : 0;
    const std::string at = "scenes[" + std::to_string(i) + "].";
    for (const ClassSize size : kClassSizes) {
      float px = 0;
      const CaptionRoom room = presenter_caption_room_at(size, &px);
      const TextWidth width = width_at(px);
      const size_t before = out.size();
      for (const bool revealed : {false, true}) {
        const bool told = revealed || !scene.question;
        const char* which = told && !scene.reveal.empty() ? "reveal" : "caption";
        fit_one(at + which, caption_strip_text(scene, &*r.analysis, step, i, count, revealed), room,
                kCaptionLines, size, width, &out);
        if (scene.question)
          fit_one(at + "question.ask", question_strip_text(scene, answer, revealed),
                  {room.rest, room.rest}, kQuestionLines, size, width, &out);
      }
      // The tightest size that cuts says it: the larger ones would repeat it.
      if (out.size() > before) break;
    }
  }
  // A text cut both before and after the answer (a scene without a reveal) is said once.
  std::vector<Diagnostic> once;
  for (const Diagnostic& d : out)
    if (std::none_of(once.begin(), once.end(),
                     [&](const Diagnostic& o) { return o.path == d.path; }))
      once.push_back(d);
  return once;
}

}  // namespace bankviz
