// app_state.h: everything the panels look at, owned by main and passed by reference.
//
// Panels are views over this state (imgui_club's MemoryEditor style): they read it, and write
// the user's edits into it; none of them owns data. Editing works on a draft Scenario whose text
// is kept even when it does not parse; the last scenario that analyzed cleanly keeps drawing.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "advisor/advisor.h"
#include "bankviz/analysis.h"
#include "bankviz/frame.h"
#include "bankviz/lesson.h"
#include "bankviz/scenario.h"
#include "bankviz/svg.h"
#include "compare/compare.h"
#include "export/export_job.h"
#include "jobs/analyzer.h"
#include "lesson/author.h"
#include "measure/measure.h"
#include "profile/profiler.h"
#include "shell/settings.h"
#include "validation.h"

// Editing: the undo history and the edits the scenario panel makes.
#include "editing/edit.h"
#include "editing/history.h"

namespace bankviz::gui {

struct Preset {
  std::string name;  // file stem: "row-write-column-read"
  std::string path;
  // One line for the menu (the file's title, else the name), read the first time it is asked for
  // (preset_title): a start with thousands of presets reads none of their files.
  mutable std::optional<std::string> title;
};

// What the mouse is over, in either view (both views fill this; the tooltip reads it).
struct Hover {
  bool active = false;
  int64_t element = -1;  // element of the tile, -1 over a bank word with no element
  uint32_t word = 0;
  bool has_word = false;
};

// Where each view put its cells on the last frame (for tests: --dump-layout).
struct GridLayout {
  float x = 0, y = 0, cell = 0;  // top-left of cell (0,0) in window pixels, cell size
  int64_t rows = 0, cols = 0;
  uint32_t first_line = 0;  // bank view: line of the top row
  // Tile view: the grid in bands (views/tile_bands.h): how many, each one's columns, and the rows
  // of cells from one band's top to the next's (0: one band, the grid as it is).
  int64_t bands = 1, band_cols = 0, band_stride = 0;
};

// Where one frame put the parts a room must see, in window pixels (render_frame fills it; the
// screenshot tests read it through --dump-layout).
struct Box {
  float x = 0, y = 0, w = 0, h = 0;
};
struct ScreenLayout {
  float width = 0, height = 0;  // the window (framebuffer) size
  float font_px = 0;            // the UI font
  Box toolbar;                  // the toolbar's items, all rows
  int toolbar_rows = 1;
  Box verdict;        // the verdict text under the bank picture (h = 0 when none)
  Box timeline;       // the timeline panel
  Box timeline_rows;  // its visible warp rows
  int timeline_rows_visible = 0;
  float lane_digit_px = 0;  // pixel height of a lane number's digit glyph in the views
  float bank_count_px = 0;  // pixel height of a per-bank count's digit glyph
  Box bank_counts;          // the per-bank counts' row (under the bank grid)
  // The lane strip under the views (views/panel_lanes.cpp), on stage and at the desk: its
  // digits' pixel height (0 without the strip) and where its chips are.
  float lane_label_px = 0;
  Box lane_strip;
  Box caption;              // the lesson's caption (h = 0 without a lesson)
  Box padding_field;        // the first tile's padding field where drawn whole (browser tests)
  Box timeline_legend;      // the timeline's colour legend (h = 0 when not drawn)
  int scene_buttons = 0;    // a lesson's back/next buttons drawn (none on a slide)
  int compare_buttons = 0;  // the comparison's close button drawn (none on a slide)
  Box status;               // the status line (h = 0 when not drawn)
  bool timeline_row_cut = false;  // a timeline row is partly in view
  bool tile_header_cut = false;   // a text of the tile view's header runs past its right edge
  bool timeline_current_visible = false;  // the current step and warp's box wholly in view
};

// Before and after (compare.h): side A is the app's own scenario, so the controls, the timeline
// and the keys drive it; side B follows A's playhead (the same step, warp and wavefront where B
// has them). panel_compare.cpp draws both.
struct CompareState {
  bool open = false;
  std::string b_name;  // what B is: a preset, a file, "padding +1"
  Scenario b;          // B, checked and analyzed
  std::optional<Analysis> b_analysis;
  int b_version = 0;  // bumped per B analysis (its cell grids' keys)
  Frame b_frame;      // follow_playhead(): set each frame
  FrameCells b_cells;
  // "Measure both": A then B through the app's Measurer (one runner, one at a time).
  enum class Measuring { Idle, A, B } measuring = Measuring::Idle;
  std::optional<Measurement> measured_a, measured_b;
  int measured_version = -1;  // A's analysis version both were last measured for (AppState)
  std::string measure_note;   // why there is no measurement, or the last failure
  // Where B's grids and each side's verdict landed (--dump-layout).
  GridLayout b_tile_layout, b_bank_layout;
  Box a_verdict, b_verdict, ratio;
};

// The toolbar's one-line status: a saved file (Info) or a problem (Error, in the conflict colour).
enum class Notice { Info, Error };

// Editing: the undo history, what Reset and "unsaved" compare with, and the scenario panel's own
// state (panel_controls.cpp, panel_steps.cpp).
struct EditState {
  History history;                // undo/redo snapshots (history.h)
  Scenario loaded;                // the scenario as last loaded (preset, file, lesson scene)
  std::string loaded_preset;      // its preset's name (empty for a user's file)
  std::string clean_json;         // scenario_to_json of what was last loaded or saved
  bool unsaved = false;           // the draft differs from clean_json: "edited, not saved"
  std::string saved_path;         // where this scenario was last saved (Ctrl+S saves there again)
  int step = -1;                  // the selected step (its buttons and fields shown), -1 none
  std::string add_kind = "load";  // the kind "Add step" inserts
  std::string save_path;          // the "Save as" field; empty until the dialog first opens
  bool open_save = false;         // open the "Save as" popup on the next frame (button, Ctrl+S)
  bool confirm_replace = false;   // the file exists: ask "Replace?" before saving with force
  std::string save_error;         // why the last Save did not write (shown in the dialog)
  double quit_warned = -1;        // when Q warned about unsaved edits (Q again within 4 s quits)
};

// A lesson (--lesson NAME): its scenes in order; the clicker walks them (panel_lesson.cpp).
struct LessonState {
  std::optional<Lesson> file;  // the lesson as loaded, none without one
  int scene = -1;              // current scene, -1 without a lesson
  bool revealed = false;       // the current scene's answer is shown (its question is asked first)
  int64_t answer = 0;          // the model's answer to the current scene's question
  int step = -1;               // the executed step the scene opened on (its question's)
  int warp = -1;               // the warp its question is about (lesson.h scene_warp)
  std::string presets_dir;     // where its scenes' presets are
  bool caption_full = false;   // presenter mode: the whole caption, else two lines (key C)
  // The catalog's name when the lesson came from assets/lessons (the Lessons menu, --lesson, a
  // link): its place is remembered in the settings. Empty for a lesson file of the user's.
  std::string catalog;
};

// One lesson of the catalog as the Lessons menu lists it: its name, title and scenes' titles.
struct LessonEntry {
  std::string name;
  std::string title;                // the lesson's title, else why it does not load
  std::vector<std::string> scenes;  // each scene's title (else its preset's name)
  bool ok = false;                  // the file loads
};

// The GPU's measurement (measure.h) and what `bankviz-cli validate` found on this machine
// (validation.h), read at start-up: the measurement panel labels this GPU's rule set "validated on
// this GPU" when it agreed.
// The toolbar's GPU menu (measure/panel_gpu.cpp): the choice being edited, used with "Use" (then
// saved with the settings), and why the last choice was refused.
struct GpuMenu {
  Settings::GpuSource source = Settings::GpuSource::Here;
  std::string host, command;
  std::string problem;
  bool session_only = false;  // --gpu or --gpu-command chose for this session
};

struct MeasureState {
  Measurer measurer;
  std::optional<ValidationRecord> validation;
  GpuMenu gpu_menu;
};

// The one-line status (panel_status.cpp): a saved file (Info) or a problem (Error, in the conflict
// colour), shown until `until`.
struct StatusState {
  std::string text;
  Notice kind = Notice::Info;
  double until = 0;
};

// What the UI asked to export this frame (keys S/E, the Export menu, --export-gif); main's loop
// handles them after the UI pass (session.cpp handle_requests, handle_export_jobs).
// Link: "Copy link" (the link to this view, link.h, on the clipboard).
enum class ExportAsk { Screenshot, Svg, Sequence, Gif, SlidePng, SlideSvg, Link };

// Exports: the running GIF or sequence job and the Export menu's choices.
struct ExportState {
  ExportJob job;                          // one GIF or PNG sequence at a time (export_job.h)
  ExportScope scope = ExportScope::Step;  // the current step of the current warp, or all
  bool full_hd = false;                   // slide size: 1920x1080, else 1280x720
  std::string gif_path;                   // --export-gif: the path the first GIF export uses
  bool gif_force = false;                 // --export-gif --force: it may replace a file
  std::optional<ExportResult> last;       // the last GIF or sequence export's outcome
  uint32_t asked = 0;                     // ExportAsk bits not yet handled

  void ask(ExportAsk a) { asked |= bit(a); }
  bool wants(ExportAsk a) const { return (asked & bit(a)) != 0; }
  // True (and forgotten) when `a` was asked.
  bool take(ExportAsk a) {
    const bool was = wants(a);
    asked &= ~bit(a);
    return was;
  }

 private:
  static uint32_t bit(ExportAsk a) { return 1u << static_cast<unsigned>(a); }
};

struct AppState {
  // [SECTION] the scene: the scenario being edited and its analysis
  Scenario draft;                    // what the controls show (may not analyze)
  Scenario scenario;                 // last scenario that analyzed cleanly
  std::optional<Analysis> analysis;  // of `scenario`
  int version = 0;                   // bumped on every new analysis (panel caches)
  std::vector<Diagnostic> errors;    // of the last draft analyzed; empty when it analyzed
  Analyzer analyzer;                 // analyzes drafts on a worker (jobs/analyzer.h)
  std::vector<Preset> presets;
  std::string preset;                               // current preset's name, empty when edited
  std::optional<std::vector<LessonEntry>> lessons;  // the Lessons menu's, read when first asked

  // [SECTION] animation: the frame is a pure function of t (frame.h)
  Playback playback;
  double t = 0;
  // A preset or file just loaded opens on its open_step, else its worst step (lesson.h
  // opening_step), when its analysis arrives; an edit instead keeps the step, warp and wavefront on
  // screen where they still exist (poll_analysis).
  bool open_pending = false;
  bool playing = false;
  Frame frame;       // frame_at(analysis, t, playback), set each frame
  FrameCells cells;  // frame_cells(analysis, frame)

  // [SECTION] the features, each in its own state (and folder)
  EditState edit;                // editing/
  LessonState lesson;            // lesson/
  AuthorState author;            // lesson/author.h: the "Write a lesson" window
  MeasureState measure;          // measure/
  CompareState compare;          // compare/: before and after
  SweepState sweep;              // compare/: the sweep window
  ExperimentsState experiments;  // compare/: the seeds' experiments
  AdvisorState advisor;          // advisor/: the advisor window and the layout fields
  ProfilerState profiler;        // profile/: the "your kernel" window (key K)
  ExportState exports;           // export/
  StatusState status;            // shell/panel_status.cpp

  // [SECTION] view
  Settings settings;
  Palette palette = dark_palette();
  Hover hover;
  bool show_help = false;
  bool fullscreen = false;
  bool show_toolbar = false;  // presenter mode: the toolbar, collapsed until key M
  // Key N: a lesson scene's instructor's notes where no sidebar shows them (presenter mode,
  // views only), over the views' lower right corner; after the answer only, as in the sidebar.
  bool show_notes = false;
  GridLayout tile_layout, bank_layout;
  ScreenLayout layout;    // this frame's (draw_ui)
  float toolbar_h = 0;    // the toolbar's height on the last frame (its rows wrap)
  float view_px_h = 0;    // the window height presenter mode's type is sized for (apply_look)
  int failed_frames = 0;  // frames a panel threw in (render_frame); exports refuse such a frame
  bool slide = false;     // draw_ui lays out the slide (views only, no toolbar) for an export frame
  bool want_quit = false;
  bool want_fonts = false;  // presenter mode/scale changed: rebuild fonts
};

// [SECTION] operations on the state (app_state.cpp)

// How long an edit waits for its analysis before the frame goes on without it (the views then
// show the last good picture, marked stale, until the worker is done). Small scenarios analyze
// well within it, so an edit shows in the same frame.
inline constexpr double kEditWaitSeconds = 0.05;

// Scans the preset directory; empty with a notice when it is missing.
void load_presets(AppState& s, const std::string& dir);
bool has_preset(const AppState& s, const std::string& name);
// The preset's title for the menu, its file read on the first call.
const std::string& preset_title(const Preset& p);
// "no preset named 'x'; presets: a, b, ..." (catalog.h's one wording, for both programs).
std::string unknown_preset_message(const AppState& s, const std::string& name);
// Loads a preset by name; false with a message when unknown or invalid. wait: as in set_draft.
bool select_preset(AppState& s, const std::string& name, std::string* error, bool wait = true);
// Sets the draft and re-analyzes it. wait: until the analysis is done (start-up, headless runs),
// else at most kEditWaitSeconds (the UI). The old analysis stays when the draft has errors, when
// the analysis fails (an exception, out of memory: reported in errors and the notice) and while
// it runs.
void set_draft(AppState& s, const Scenario& draft, bool wait = true);
// Loads a scenario file (a preset's or the user's) into the draft. False with a message naming
// `what` when the file does not load or (wait) its scenario does not analyze.
bool load_draft_file(AppState& s, const std::string& path, const std::string& what,
                     std::string* error, bool wait = true);
// The same for a scenario already read (a link's #scenario=, a file the browser was given).
bool load_draft(AppState& s, ScenarioLoad load, const std::string& what, std::string* error,
                bool wait = true);
// Re-analyzes the current draft after an edit through the controls (waits kEditWaitSeconds).
void reanalyze(AppState& s, bool wait = false);
// Takes the analyzer's outcome when it is ready: a new analysis replaces the old one, errors and
// failures are kept for the controls and the old analysis stays. True when something changed.
bool poll_analysis(AppState& s);
// True while the views show an analysis older than the draft being analyzed.
bool analysis_stale(const AppState& s);
// Advances time, takes a finished analysis, recomputes frame and cells.
void update_frame(AppState& s, double dt);
// Ask before telling: a lesson scene's question is open (not yet revealed). While it is, nothing
// on screen states or implies the answer: the frame's cells are concealed (frame.h
// conceal_answer), and the verdict, counts, conflict colours, races, measurement and ratios are
// not drawn (each panel asks this).
bool asking(const AppState& s);
// Reveals the open question's answer and plays it: the asked warp's wavefronts from the first.
void reveal_answer(AppState& s);
// A presentation clicker's next (dir > 0) or back. With a lesson: next reveals the scene's answer
// when its question is still open, else opens the next scene; back opens the previous scene.
// Without a lesson: the next or previous step.
void clicker(AppState& s, int dir);

// Loads a lesson file and checks every scene against the model (lesson.h check_lesson), then
// opens scene `first`. False with a message naming the file and the problem's path.
bool open_lesson(AppState& s, const std::string& path, const std::string& presets_dir, int first,
                 std::string* error);
// Opens the catalog's lesson `name` (assets/lessons) on scene `first` (0-based), or with first < 0
// where the settings remember the room left it (its first scene when they do not). Its place is
// kept in s.settings from then on (lesson_places, lesson).
bool open_catalog_lesson(AppState& s, const std::string& name, int first, std::string* error);
// The 0-based scene the settings remember for lesson `name` of `scenes` scenes (0 when none, or
// when the remembered one is past the lesson's end).
int remembered_scene(const Settings& settings, const std::string& name, size_t scenes);
// The Lessons menu's entries (the catalog's lessons, each file read once).
const std::vector<LessonEntry>& lesson_catalog(AppState& s);
// What a start with nothing named opens (`bankviz`, the desktop entry, the browser's page
// without a link): the lesson the settings name (a first start: kDefaultLesson's first scene)
// where the room left it; else (the user left lessons, or it does not open: said in the notice)
// the last preset, else the first. False with *error when no preset opens either.
bool open_first_view(AppState& s, std::string* error);
// What the next start opens, into the settings: the last preset, and the catalog lesson on
// screen ("" when none is: the next start opens that preset).
void keep_place(AppState& s);
// Leaves the lesson (its caption, its clicker): a preset or a file is shown instead. The next
// start opens the preset (settings: lesson "").
void close_lesson(AppState& s);
// The preset menu's choice: the lesson closes and the preset opens (wait: as in set_draft).
bool choose_preset(AppState& s, const std::string& name, std::string* error, bool wait = false);
// Opens scene i of the open lesson (its scenario, on its step, the question not yet answered).
bool go_to_scene(AppState& s, int i, std::string* error, bool wait = true);
// Jumps to a (step, warp, wavefront) beat; false when there is no such beat.
bool seek(AppState& s, int step, int warp, int wavefront);
void set_notice(AppState& s, std::string text, double now, double seconds = 4.0,
                Notice kind = Notice::Info);
// An export's result in the notice: "saved PATH" (Info) or the error (Error).
void report_export(AppState& s, bool ok, const std::string& saved, const std::string& error,
                   double now);

// The first error of the draft at `prefix` ("steps[1]") or a field under it ("steps[1].index",
// "steps[1].loop.var"; not "steps[10]"), or null.
const Diagnostic* error_for(const std::vector<Diagnostic>& errors, const std::string& prefix);

// [SECTION] editing (history.h, edit.h)
// The controls changed the draft from `before`: records it for undo (typing into one `field`
// coalesces; empty = its own entry), marks the scenario edited and re-analyzes it (the place on
// screen is kept where it still exists).
void apply_edit(AppState& s, const Scenario& before, std::string_view field = {});
// Undo / redo the last edit: the draft is restored and re-analyzed. False when there is none.
bool undo_edit(AppState& s);
bool redo_edit(AppState& s);
// Back to the scenario as loaded (the preset file's, the lesson scene's); undoable.
void reset_draft(AppState& s);
// A scenario was loaded: Reset goes back to it, nothing is unsaved (the draft it replaced stays
// one undo away: set_draft recorded it).
void mark_loaded(AppState& s);
// Saves the draft (edit.h save_scenario); a saved file makes the draft clean and is named in
// the notice; Exists leaves everything as it was (the caller asks before forcing).
SaveResult save_draft(AppState& s, const std::string& path, bool force, double now);

}  // namespace bankviz::gui
