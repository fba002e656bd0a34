// panels.h: one function per panel (one .cpp per panel).
//
// Every panel draws itself into the rectangle it is given; ui.cpp lays the rectangles out. A panel
// takes its feature's state (or a ViewSide: one side of the views) and a Look, edits that state,
// and returns what the user asked of the rest of the app (an *Ask struct) for ui.cpp to do.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include "caption_fit.h"
#include "imgui.h"
#include "platform/cells.h"

#include "shell/app_state.h"

namespace bankviz::gui {

struct Rect {
  ImVec2 pos, size;
};

// What one side of the tile and bank views shows: the app's own scenario (main_view), or a
// comparison's B side (compare.h). The views read only this and the state's look and settings.
struct ViewSide {
  const char* id = "";  // ImGui window id suffix: "" for the main views, "##b" for B
  const Analysis* analysis = nullptr;
  const Frame* frame = nullptr;
  const FrameCells* cells = nullptr;
  int version = 0;                                  // bumped per analysis (cell grid keys)
  bool stale = false;                               // a newer edit is being analyzed
  const std::vector<Diagnostic>* errors = nullptr;  // the edit's errors (the main side)
  bool verdict = true;                              // the bank view prints the verdict below
  // A lesson's question is open (asking()): the views draw the request without counting or
  // judging it: no wavefront counter, race line, per-bank counts or conflict colours.
  bool conceal = false;
  // The GPU on stage: the measured figure for the step on screen, drawn under the verdict
  // ("measured on H100: 32.83 cycles per instruction, model 32"); empty without one, and while a
  // question is open.
  std::string measured;
  bool playing = false;    // the animation runs: the views keep the lit cells in view
  double analyzing_s = 0;  // while stale: how long the newer edit has been analyzing
  GridId tile_grid = GridId::Tile, bank_grid = GridId::Banks;
  GridLayout* tile_layout = nullptr;
  GridLayout* bank_layout = nullptr;
  Box* verdict_box = nullptr;  // where the verdict landed (null: AppState::layout.verdict)
};
ViewSide main_view(AppState& s);

// What a panel draws with, besides its feature's state (look(s)): the colours, the settings, where
// the frame's parts landed (--dump-layout), and whether the frame is an export's slide (which
// shows no buttons).
struct Look {
  const Palette& palette;
  const Settings& settings;
  ScreenLayout& layout;
  bool slide = false;
};
Look look(AppState& s);
// The measured figure for the main side's step on screen (measure.h stage_line), empty without a
// measurement of the scenario on screen or while a question is open.
std::string main_stage_line(const AppState& s);

// panel_compare.cpp: before and after (compare.h) in the views' rectangle, and the toolbar's
// Compare menu. // Each returns what was asked (close, "Measure both", open B) for the caller to do
// (compare.h).
struct CompareAsk {
  bool close = false;
  bool measure_both = false;
};
CompareAsk draw_compare(CompareState& c, const ViewSide& main, const Measurer& measurer,
                        const Look& look, Hover& hover, CellRenderer& cells, Rect r);
// The toolbar's Compare popup over `choices` (compare_choices) and every preset; `comparing`
// adds "Close the comparison".
struct CompareMenuAsk {
  std::optional<CompareChoice> open;
  bool close = false;
};
CompareMenuAsk draw_compare_menu(const std::vector<CompareChoice>& choices,
                                 const std::vector<Preset>& presets, bool comparing);
// The toolbar's GPU popup (measure/panel_gpu.cpp): where the figures come from now (`source`),
// and the choice of this machine's GPU, one over ssh, a command or the recorded figures, edited
// in `menu`; true when "Use" was pressed. In the browser it says that no kernel runs there.
bool draw_gpu_menu(GpuMenu& menu, const std::string& source);

// The toolbar (panel_toolbar.cpp) over what it shows; it edits the settings (speed, loop, theme,
// presenter, views only) and the Export menu's choices itself, and returns the rest for the caller
// to do: a preset picked, play/pause, a jump, a window toggled, the Compare menu's choice.
struct ToolbarView {
  const std::vector<Preset>& presets;
  std::string preset;        // the preset on screen (ticked in the list), empty when none
  std::string preset_label;  // the combo's text: the preset, a lesson scene's name, "(edited)"
  bool playing = false;
  bool comparing = false;
  const Analysis* analysis = nullptr;  // the export menu's frame counts, the Compare choices
  const Playback& playback;
  const Frame& frame;
  // The Lessons menu: the catalog's lessons, the one on screen ("" none) and its scene
  // (0-based), and the place the settings remember in each.
  const std::vector<LessonEntry>& lessons;
  std::string lesson;
  int scene = -1;
  const std::map<std::string, int>& places;
  GpuMenu* gpu_menu = nullptr;  // the GPU menu's choice, edited in place
  std::string gpu_source;       // where the figures come from now (Measurer::source())
};
struct ToolbarAsk {
  std::optional<std::string> preset;
  // A lesson from the Lessons menu: its name and scene (0-based; -1: where it was left).
  std::optional<std::pair<std::string, int>> lesson;
  bool play = false;  // toggle play/pause
  std::optional<std::pair<StepUnit, int>> jump;
  double speed_was = 0;  // > 0: the speed changed from this (keep the beat on screen)
  bool fonts = false;    // theme or presenter mode changed: rebuild the fonts
  bool help = false, sweep = false, experiments = false;  // toggle that window
  bool author = false;     // toggle the "Write a lesson" window (the Lessons menu)
  bool open_file = false;  // the platform's file picker (platform.h pick_file)
  bool use_gpu = false;    // the GPU menu's "Use": measure where gpu_menu says
  CompareMenuAsk compare;
  float height = 0;  // the toolbar's height this frame (its rows wrap)
};
ToolbarAsk draw_toolbar(const ToolbarView& v, Settings& settings, ExportState& exports,
                        ScreenLayout& layout, Rect r);
// The "Write a lesson" window (lesson/panel_author.cpp): the lesson being written and the form for
// the next scene, edited in place; the scenes' order and removal are done here. `step`: the
// executed step on screen; `conceal`: a question is open (the model's answer is not shown).
// Returns what was asked: add the view on screen, save (force: replace the file).
struct AuthorAsk {
  bool add = false, save = false, force = false;
};
AuthorAsk draw_author(AuthorState& a, const Analysis* analysis, int step, bool conceal,
                      const Palette& pal);
// Widths in the bold type at px, as the app draws presenter mode's caption strip (the font loaded
// now, scaled): for the caption fit check of a lesson saved from the app.
std::function<TextWidth(float px)> bold_widths();
// The status line (panel_status.cpp): "edited, not saved", an export's progress and Cancel, the
// last notice, in one fixed strip, so that nothing moves under the mouse when they come and go.
void draw_status(StatusState& st, ExportJob& job, bool unsaved, const Look& look, Rect r);
float status_height();
bool status_has_news(const StatusState& st, const ExportJob& job);
// The scenario panel (editing/panel_controls.cpp, panel_steps.cpp): what it edits (the draft, the
// editing state, the CuTe layout fields) and what it shows beside (the last good scenario's
// description, the draft's errors, the analysis' issues).
struct ScenarioEditor {
  Scenario& draft;
  EditState& edit;
  std::vector<LayoutField>& layouts;
  const Scenario& scenario;
  const std::vector<Diagnostic>& errors;
  const Analysis* analysis = nullptr;
  const Palette& palette;
  Box* padding_field = nullptr;  // where the first tile's padding field was drawn (ScreenLayout)
  bool conceal = false;          // a lesson's question is open: the description waits for it
};
// What the scenario panel asked: undo, redo, reset, or an edit made to the draft (`before`: the
// draft as it was, for the history; `field`: the field typed in, coalesced; `end_field`: a field
// was left, its typing one finished entry).
struct ControlsAsk {
  bool undo = false, redo = false, reset = false;
  std::optional<Scenario> before;
  std::string field;
  bool end_field = false;
};
ControlsAsk draw_controls(ScenarioEditor& s, Rect r);
// The views (views/): each draws one side (the main scenario's, main_view(), or a comparison's B)
// with the look; both write where the pointer is into `hover` (the tooltip reads it).
void draw_tile_view(const ViewSide& v, const Look& look, Hover& hover, CellRenderer& cells, Rect r);
void draw_bank_view(const ViewSide& v, const Look& look, Hover& hover, CellRenderer& cells, Rect r);
// Presenter mode's lane strip (views/panel_lanes.cpp), under the views across their width: bank by
// bank, the lane each serves in the current wavefront, in type at least 2.5% of the window's
// height `window_h`; empty while a question is open. Its height (0 outside presenter mode).
float lane_strip_height(const ViewSide& v, const Look& look, float window_h);
void draw_lane_strip(const ViewSide& v, const Look& look, Rect r);
// The warp timeline of the main side; in presenter mode with the verdict strip on top (when
// v.verdict: the verdict, or while a question is open the step it asks about; `gpu` keeps a line
// for the measured figure). What the user asked of the playhead is returned for the caller to do: a
// beat from the scrubber, or a warp step clicked (seek there).
struct TimelineAsk {
  int beat = -1;
  int step = -1, warp = -1;
};
TimelineAsk draw_timeline(const ViewSide& v, bool gpu, const Look& look, CellRenderer& cells,
                          Rect r);
// Presenter mode's timeline strip for views `width` wide in `h` of height: the verdict (and the
// measured figure: `gpu`, a GPU measures, keeps a line for it), the step labels and a few whole
// warp rows.
float presenter_timeline_height(const ViewSide& v, bool gpu, float width, float h);
// The desk's timeline for views `width` wide in `h` of height: a fifth of it, or more where the
// panel's scrubber, legend and step labels would leave no room for three rows (1280x720 with a
// lesson's caption showed none).
float desk_timeline_height(const ViewSide& v, float width, float h);
// The verdict for the lit warp step, in the big font, in the current window (panel_banks.cpp):
// presenter mode shows it across the timeline's top instead of under the banks. Its height for a
// window `width` wide (0 when there is no verdict to show).
void draw_verdict_text(const ViewSide& v, const Look& look);
float verdict_height(const ViewSide& v, float width);
// The generated kernel of `scenario` (as written or exposed), cached per analysis `version`; or,
// where the scenario is a line of the user's kernel opened from the K window (`opened`, not
// null), the user's source around that line, the line marked. The panel says which it shows.
void draw_source(const Scenario& scenario, int version, Rect r, const OpenedLine* opened);
// The GPU's measurement beside the model's figures (`analysis`); only a note while `asking`.
void draw_measurement(const MeasureState& m, const Analysis* analysis, bool asking,
                      const Palette& pal, Rect r);
void draw_help(bool& open);
// The "Save as" dialog (panel_controls.cpp), opened by its button or Ctrl+S in any layout.
// `save` writes the draft to a path (force: replace a file that exists) and says how it went.
using SaveFn = std::function<SaveResult(const std::string& path, bool force)>;
void draw_save_dialog(EditState& edit, const Scenario& draft, const Palette& palette,
                      const SaveFn& save);
// The lesson's caption strip (panel_lesson.cpp) over the scene on screen (its analysis fills the
// caption's figures; `title` is the scenario's, for a scene without its own); its height for a
// window `width` wide (0 without a lesson). The back/next buttons ask the caller to move the
// lesson (app_state.h clicker): -1, 1, or 0 for no click.
int draw_lesson(const LessonState& l, const Analysis* analysis, const std::string& title,
                const Look& look, Rect r);
float lesson_height(const LessonState& l, const Analysis* analysis, const std::string& title,
                    const Look& look, float width);
// panel_advisor.cpp: the advisor window (key A); the CuTe layout field of a tile's controls (true
// when it changed the tile); the tile view's layout caption and the tooltip's layout lines.
// What the advisor window asks of the scene: advice about the scenario on screen (advisor.h
// start_advice), or a fix made the scenario (apply_advice); the caller does it.
struct AdvisorAsk {
  bool advise = false;
  std::optional<Fix> apply;
};
AdvisorAsk draw_advisor(AdvisorState& a, bool analyzed, int version, const Palette& pal);
// panel_profile.cpp: the "your kernel" window (key K): a .cu file per source line (profiler.h),
// over its own state; a line it asks to open is opened by open_profile_ask (undoable).
ProfileAsk draw_profile(ProfilerState& p, const Palette& pal);
void open_profile_ask(AppState& s, const ProfileAsk& ask);
void open_profile_ask(AppState& s, const ProfileAsk& ask, double now);
// bankviz --kernel-file: the window's form set to `f`, its Profile (or Record) run to the end and
// line `line` opened as the window's "open" does (as recorded where the run recorded it); false
// with *why (the run failed, the line has no shared-memory access, it cannot open).
bool open_kernel_line(AppState& s, const ProfileForm& f, uint32_t line, std::string* why);
// The kernel line the draft shows, while it is the picture opened from the K window unedited;
// null otherwise.
const OpenedLine* opened_line(const AppState& s);
// A tile's CuTe layout field (its text kept in fields[ti] while it does not parse).
bool edit_layout(std::vector<LayoutField>& fields, TileDecl& t, size_t ti, float w,
                 const Palette& palette);
void draw_layout_caption(const TileDecl& t);
void layout_tooltip_lines(const TileDecl& t, int64_t element);

// panel_sweep.cpp: the sweep window (toolbar Sweep, --sweep); panel_experiments.cpp:
// the seeds' experiments window (toolbar Experiments).

// The sweep window over its state; the buttons that need the scene (Sweep: analyze the scenario
// per value; Measure: through the Measurer) are returned for the caller to do (compare.h).
enum class SweepAsk { None, Sweep, Measure };
SweepAsk draw_sweep(SweepState& w, const Measurer& measurer, const Palette& pal);
void draw_experiments(ExperimentsState& x, const Measurer& measurer, const Palette& pal);

// The whole window: layout, panels, keyboard shortcuts (ui.cpp).
void draw_ui(AppState& s, CellRenderer& cells, bool input = true);

// [SECTION] helpers shared by panels (ui.cpp)
// --dump-layout's record of the texts a frame draws (ImGui's log per panel, plus draw_text()):
// on from capture_texts(true) until off; captured_texts() gives the last frame's lines.
void capture_texts(bool on);
std::vector<std::string> captured_texts();
// A text drawn straight into a draw list (counts, labels on the grids), recorded for the capture.
void draw_text(ImDrawList* dl, ImFont* font, float size, ImVec2 pos, ImU32 color,
               const std::string& text);
// A fixed window (titled unless title_bar is false: presenter mode gives the height to the
// pictures); call ImGui::End() after.
bool begin_panel(const char* title, Rect r, bool title_bar = true);
// Row, col, byte, bank, word, lanes of `hover` over side v.
void hover_tooltip(const Hover& hover, const ViewSide& v);
std::string lanes_text(uint32_t lanes);
// A wrapped tooltip for the control just drawn, when it is hovered: what it is, in its words.
void control_tip(const char* text);  // "0, 1, 2 .. 31" compactly: "0-31", "0, 16"
// Map between a panel's grid rows and the current frame: lanes touching each element/word.
ImU32 degree_color(const Palette& p, int wavefronts, int ideal);
// "rules: measured" / "rules: published; 2 of 4 rules extrapolated", in the conflict colour when
// part of the rule set is extrapolated; hovering lists every rule with its provenance.
void arch_rules_label(const Arch& arch, const Palette& p);
// Pixel height of the digit glyph '0' of `font` drawn at `size` px (what a reader sees).
float digit_px(ImFont* font, float size);
// The size to draw a lane number (`text`: "7", "31+") inside a lit cell of `cell` px: presenter
// mode fills the cell, the desk view stays modest.
float lane_label_size(const char* text, float cell, bool presenter);
// `text` centred at `center`, narrowed sideways (to 60% at most) when wider than `width`, with a
// one-pixel shadow unless `shadow` is 0.
void draw_fitted_text(ImDrawList* dl, ImFont* font, float size, ImVec2 center, float width,
                      ImU32 shadow, ImU32 ink, const std::string& text);
// The lane number in a lit cell of `cell` px centred at `center`: the lowest of `lanes`, with a
// small '+' when several lanes share the cell; all of a grid's labels one size. Records the
// digits' pixel height in layout.lane_digit_px (the smallest drawn).
void draw_lane_label(ImDrawList* dl, ImVec2 center, float cell, uint32_t lanes, bool presenter,
                     Rgba chip, ScreenLayout& layout);

}  // namespace bankviz::gui
