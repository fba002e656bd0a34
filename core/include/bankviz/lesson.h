// lesson.h: a guided lesson: a seed's story told as ordered scenes.
//
// A lesson file (assets/lessons/NAME.json, docs/LESSONS.md) holds scenes in the order a lecture
// shows them. Each scene is a scenario -- a preset by name or one embedded whole -- the step it
// opens on, a caption, and optionally a question asked before its answer is revealed ("how many
// wavefronts will this load need?"). The answer is written in the file and must equal the model's:
// check_lesson() analyzes every scene and says where a file and the model disagree.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bankviz/analysis.h"
#include "bankviz/scenario.h"

namespace bankviz {

// What one lesson file may hold (the reader says so with the limit).
inline constexpr int64_t kMaxLessonBytes = int64_t{4} << 20;  // the file
inline constexpr size_t kMaxScenes = 64;
inline constexpr size_t kMaxCaptionChars = 2048;  // caption, question, title
// A lecture's time: a lesson's scenes add up to at most this (check_lesson; "minutes").
inline constexpr int kMaxLessonMinutes = 45;

// What a question asks about, each a number the model gives for the scene's opening step.
enum class Quantity {
  Wavefronts,      // wavefronts of the worst warp's request at the opening step
  Ideal,           // the fewest wavefronts that request could take
  StepWavefronts,  // wavefronts of the opening step summed over every warp
  RacingAccesses,  // racing lanes over the whole scenario (hazard.h)
  OutOfBounds,     // lanes left inactive because out of bounds, over the whole scenario
  Warps,           // warps that issue the opening step (an active lane): what the timeline shows
  Races,           // 1 when the hazard model finds a race anywhere in the scenario, else 0 (yes/no)
};
const char* quantity_name(Quantity q);  // "wavefronts", "ideal", "step_wavefronts", ...
std::optional<Quantity> parse_quantity(std::string_view s);
std::string quantity_names();  // "wavefronts, ideal, ..." for messages
// A yes/no question (Races): its answer is written true/false (or 1/0) and said "yes"/"no".
bool yes_no(Quantity q);
// The answer as the room hears it: "32", or "yes"/"no" for a yes/no question.
std::string answer_words(Quantity q, int64_t answer);

struct Question {
  std::string ask;  // "How many wavefronts will this column load need?"
  Quantity quantity = Quantity::Wavefronts;
  int64_t answer = 0;  // what the file says; check_lesson() compares it with the model
};

struct Scene {
  std::string title;                 // one line; empty = the scenario's title
  std::string preset;                // a preset's name, or empty when `scenario` is given
  std::optional<Scenario> scenario;  // embedded
  int open_step = -1;  // index into the scenario's steps; -1 = the scenario's own open_step
  // A step in a loop: the loop variable's value to open at (the tap i=1); absent = the first.
  std::optional<int64_t> open_iteration;
  // What to say while it is on screen (shown, and part of exports). With a question this is what
  // the room sees before the answer: it must not state the answer (check_lesson refuses the
  // question's own placeholder in it).
  std::string caption;
  // Said with the answer, after the reveal (or at once without a question); may be empty.
  std::string reveal;
  std::optional<Question> question;
  // How long the scene takes in a lecture (1 to 45); absent: scene_minutes()'s estimate.
  std::optional<int> minutes;
  // The instructor's notes: the path through the scene's minutes after its answer (what to edit,
  // compare or sweep live, what to ask the room). One paragraph, at the desk after the answer only
  // (never on stage); `bankviz-cli lessons NAME` prints them as written, with their minutes.
  std::string notes;
};

// A scene's minutes: its own, else 4 with a question (ask, wait, reveal, discuss), 2 without.
int scene_minutes(const Scene& scene);

struct Lesson {
  std::string name;    // file stem: "data-layout"
  std::string title;   // one line
  std::string source;  // the seed it tells: "data-layout-in-shared-memory.txt"
  std::string description;
  std::vector<Scene> scenes;
};

// The lesson's minutes, summed over its scenes: at most kMaxLessonMinutes (check_lesson).
int lesson_minutes(const Lesson& lesson);

struct LessonLoad {
  std::optional<Lesson> lesson;
  std::vector<Diagnostic> errors;  // non-empty iff !lesson; paths like "scenes[2].question.answer"
};

// Strict, like scenario files: unknown keys, wrong types, duplicate keys, nesting past 32 levels,
// more than kMaxScenes scenes or an over-long text are errors with the path. An embedded scenario
// is read by scenario_from_json(), its errors prefixed with "scenes[i].scenario.".
LessonLoad lesson_from_json(std::string_view json_text);
// Reads through read_text_file (kMaxLessonBytes); a lesson without "name" is named after its stem.
LessonLoad load_lesson_file(const std::string& path);

// The lesson as a file lesson_from_json() reads back (pretty JSON; an embedded scenario whole,
// a preset by name; yes/no answers as true/false).
std::string lesson_to_json(const Lesson& lesson);

// The scene's scenario: the embedded one, or presets_dir/PRESET.json; the scene's open_step, when
// given, replaces the scenario's (and is checked with it).
ScenarioLoad scene_scenario(const Scene& scene, const std::string& presets_dir);

// The executed step the picture opens on: the first execution of the scenario's open_step, else
// the worst step (Analysis::worst_step); -1 when nothing touches shared memory.
int opening_step(const Analysis& a);

// The executed step a scene opens on: opening_step(), or with open_iteration that step's
// execution with the loop variable at that value; -1 when there is none.
int scene_step(const Analysis& a, const Scene& scene);

// The model's value of `q` for this analysis at executed step `step`.
int64_t model_answer(const Analysis& a, Quantity q, int step);

// The warp the scene's picture is about at executed step `step`: the worst warp of that step (the
// one model_answer() reads, the first of equals), -1 when the step has none with an active lane.
int scene_warp(const Analysis& a, int step);

// [SECTION] Figures in a scene's words
// A caption, reveal or question may name the model's figures instead of writing them:
//   {wavefronts} {ideal} {ways} {bank_passes} {step_wavefronts} {warps} {racing_accesses}
//   {out_of_bounds} {warp}
// ({ways}: the conflict's degree, as the verdict words it; {bank_passes}: the busiest bank's
// passes, what its per-bank count reads; {warps}: the warps that issue the step; {warp}:
// scene_warp()), filled from the
// scene's Analysis at its step, so a caption can never disagree with the picture. "{{" is a brace.
// The figure names, for messages: "{wavefronts}, {ideal}, ...".
std::string placeholder_names();
// The text with its placeholders filled; nullopt with *error set ("unknown figure {foo}", "an
// unclosed '{'") when one is not a figure.
std::optional<std::string> fill_scene_text(std::string_view text, const Analysis& a, int step,
                                           std::string* error = nullptr);
// What the room sees of a scene before (revealed = false) and after its answer: the caption, then
// with revealed the reveal. Placeholders filled (a text that does not fill is shown as written:
// check_lesson() has refused such a lesson before it is opened).
std::string scene_caption(const Scene& scene, const Analysis& a, int step, bool revealed);

// Every scene resolved, analyzed and its answer compared with the model's; its texts' placeholders
// filled; a caption or question that states the answer before it is revealed (the question's own
// figure as a placeholder), a figure of the model written as digits ("32-way", "4 wavefronts":
// write {ways}, {wavefronts}), an empty text, a scene that repeats an earlier one's picture and
// question (the same warp access asked the same thing), and a lesson longer than
// kMaxLessonMinutes refused. An empty list when the lesson is sound. Paths name the scene:
// "scenes[3].preset", "scenes[1].question.answer", "scenes[2].caption".
std::vector<Diagnostic> check_lesson(const Lesson& lesson, const std::string& presets_dir);

}  // namespace bankviz
