// caption_fit.h: the presenter's caption strip in lines of type, for both programs: the app draws
// it (app/gui/lesson/panel_lesson.cpp) and `bankviz-cli lessons --check` measures every lesson's
// texts against it at the sizes a class uses.
//
//   3/7  The transpose: the store walks a row (one wavefront) and the       [< back] [answer]
//   load walks a column of the same tile.
//   Q: How many wavefronts will the column load need per warp?    A: 32 (the model)
//
// In presenter mode the strip holds what to say (the scene's number, then the caption; after the
// answer, the reveal) in at most kCaptionLines lines, the first beside the back/next buttons,
// then the question (and its answer once revealed) in kQuestionLines. A text longer than that is
// cut with " ... (C)" (key C shows the whole caption): `lessons --check` refuses a lesson whose
// texts would be cut at any of kClassSizes.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "bankviz/analysis.h"
#include "bankviz/lesson.h"

namespace bankviz {

inline constexpr int kCaptionLines = 2;   // what to say
inline constexpr int kQuestionLines = 1;  // the question, with its answer once revealed

// The window sizes a class uses, the tightest first (the type grows with the height, so a 4:3
// projector has the fewest characters a line): what `lessons --check` fits the captions to.
struct ClassSize {
  int w = 0, h = 0;
};
inline constexpr ClassSize kClassSizes[] = {{1024, 768}, {1280, 720}, {1920, 1080}, {3840, 2160}};

// Presenter mode's type for a window `window_px_h` pixels high at UI scale `scale`: at least
// 20 px x scale, else a 40th of the height (so a 4K projector shows it as large as a 1080p one).
float presenter_type_px(float scale, float window_px_h);

// The widths of the strip's lines, in pixels, for a strip whose text spans `inner_width` (the
// window less the panel's padding) in type of `font_px`.
struct CaptionRoom {
  float first = 0;  // the first line: beside the back/next buttons (each 4.5 ems, one em apart)
  float rest = 0;   // the lines under it: the whole width
};
CaptionRoom presenter_caption_room(float inner_width, float font_px);
// The strip at a window size as the app lays it out in presenter mode (the panel's padding is
// half an em each side: theme.cpp apply_style).
CaptionRoom presenter_caption_room_at(ClassSize size, float* font_px);

// A text's width in pixels in the strip's type.
using TextWidth = std::function<float(std::string_view)>;

// `text` broken at spaces into at most `max_lines` lines, the first at most room.first wide and
// the others room.rest (a word wider than a line is broken between characters). When the text is
// longer, `cut` is set and the last line ends with " ... (C)" (whole UTF-8 characters).
struct WrappedText {
  std::vector<std::string> lines;
  bool cut = false;
};
WrappedText wrap_caption(std::string_view text, const CaptionRoom& room, int max_lines,
                         const TextWidth& width);

// What the strip says, as the room reads it. The first: "3/7  " and the caption (after the
// answer, or in a scene without a question, the reveal when it has one), its figures filled from
// the analysis at `step` (lesson.h fill_scene_text; as written when they do not fill).
std::string caption_strip_text(const Scene& scene, const Analysis* a, int step, int index,
                               int count, bool revealed);
// The second: "Q: ..." and, once revealed, "    A: 32 (the model)"; empty without a question.
std::string question_strip_text(const Scene& scene, int64_t answer, bool revealed);

// Where a lesson's texts do not fit the presenter's strip at one of kClassSizes, before or after
// the answer: paths as check_lesson()'s ("scenes[2].reveal"), each saying the size, the room and
// about how many characters to take out. `width_at(px)` measures in the strip's type at px.
// Scenes that do not analyze are left to check_lesson().
std::vector<Diagnostic> check_caption_fit(const Lesson& lesson, const std::string& presets_dir,
                                          const std::function<TextWidth(float px)>& width_at);

}  // namespace bankviz
