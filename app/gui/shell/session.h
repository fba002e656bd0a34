// session.h: the steps main() runs, each one call: set up the state, set the look, render a
// frame (to the window or offscreen), export, run headless, measure frame times.
#pragma once

#include <optional>
#include <string>

#include "platform/cells.h"
#include "platform/platform.h"
#include "shell/app_state.h"
#include "shell/options.h"

namespace bankviz::gui {

// ui.cpp: the name the toolbar gives the draft (and --dump-layout's "toolbar_scenario"): the
// preset's, an unedited lesson scene's, an unedited kernel line's ("transpose.cu:42",
// panels.h opened_line()), else "(edited)".
std::string toolbar_scenario_name(const AppState& s);

// Settings (unless --no-settings or headless), presets, the scenario from flags. Returns kExitOk,
// or with a message kExitUsage (an unknown --preset, no beat at --step) or kExitFailed (a scenario
// or preset file that does not load or analyze).
int setup_state(AppState& s, const Options& o, std::string* error);

// Palette, ImGui style and fonts for this scale and the state's theme/presenter settings.
void apply_look(AppState& s, float scale);

// True when presenter mode's type was sized for another window height than px_h (apply_look
// again, with s.view_px_h = px_h).
bool look_outdated(const AppState& s, float scale, int px_h);

// On exit: keep_place (app_state.h) and the windowed size go into the settings file. False (the
// reason on stderr) when it cannot be written.
bool remember_session(AppState& s, const Platform& p);

// Dear ImGui's layout file (imgui.ini beside the settings), read and written by us instead of
// ImGui (io.IniFilename = nullptr): read like the settings (a regular file of at most 1 MB; a
// problem is reported and the default layout used), written through write_file_atomic.
void load_imgui_ini(AppState& s, const std::string& path);
bool save_imgui_ini(const std::string& path);  // false with the reason on stderr

// Where one frame's time went, in milliseconds. ui: our thread building the frame (ImGui, the
// panels, cell instances) -- the CPU cost a real GPU cannot take away. submit: handing the draw
// lists to OpenGL (on llvmpipe this includes vertex shading and binning, on a GPU it is small).
// finish: waiting for the rasterizer (glFinish). swap: presenting (Xvfb copies the window).
// exports: a running GIF or sequence export's frames rendered after this one (handle_export_jobs),
// part of the total: how long the window waits for its next frame.
struct FrameTiming {
  double ui = 0, submit = 0, finish = 0, swap = 0, exports = 0, total = 0;
};

// An export's framebuffer between its frames. Consecutive beats differ in a few cells, lane
// digits and words, and a software rasterizer spent most of a GIF's time drawing the unchanged
// rest of every frame again (BENCHMARKS.md). So after a job's first frame, a frame is drawn only
// inside the rectangles where its draw data differs from the previous frame's: ImGui's triangles
// that changed (their old and new corners) and each cell grid's changed cells. Every command
// still runs, clipped to each rectangle, and each pixel is computed on its own, so the pixels
// are those a whole frame would have drawn; the framebuffer keeps the rest. Draw lists are matched
// by their window; a label that gains or loses glyphs is dirty between the triangles both frames
// share at its start and end. Anything that could change more (size, clear colour, fonts) draws
// the whole frame, and so do more than a few rectangles or half the frame.
class ExportCanvas {
 public:
  ExportCanvas();
  ~ExportCanvas();
  ExportCanvas(const ExportCanvas&) = delete;
  ExportCanvas& operator=(const ExportCanvas&) = delete;
  // Draws the frame ImGui::Render() built into the bound framebuffer (w x h, holding the previous
  // frame this canvas drew), cleared to bg where drawn.
  void draw(ImDrawData* dd, const Rgba& bg, int w, int h);
  // The next frame is drawn whole (a new job, or a framebuffer that lost its pixels).
  void reset();
  // Frames drawn, of them whole, and rectangles drawn (for --frame-times and tests).
  int frames() const { return frames_; }
  int whole_frames() const { return whole_frames_; }
  int rects() const { return static_cast<int>(rects_); }

 private:
  struct List;
  std::vector<ImVec4> changed(const ImDrawData* dd, const Rgba& bg, int w, int h) const;
  std::vector<List> lists_;
  bool valid_ = false;
  int width_ = 0, height_ = 0;
  uint32_t bg_ = 0;
  ImTextureID font_tex_{};
  float font_px_ = 0;
  int frames_ = 0, whole_frames_ = 0;
  size_t rects_ = 0;
};

// One frame: new frame, panels, render into the bound framebuffer of width x height pixels.
// input false: an export's frame, which the mouse does not hover (no tooltips in a file); with a
// canvas, drawn where it changed since the canvas's last frame. draw false: laid out only (the
// panels run and ImGui renders its lists), nothing drawn into the framebuffer.
FrameTiming render_frame(AppState& s, Platform& p, CellRenderer& cells, int width, int height,
                         double dt, bool input = true, ExportCanvas* canvas = nullptr,
                         bool draw = true);

// Renders the UI offscreen at `scale` (light theme when asked) and writes a PNG.
bool export_png(AppState& s, Platform& p, CellRenderer& cells, int logical_w, int logical_h,
                float scale, bool light, const std::string& path, bool force, std::string* error);
// The current frame's tile and bank views as SVG.
bool export_svg(const AppState& s, bool light, const std::string& path, bool force,
                std::string* error);

// The current frame as the landscape 16:9 SVG slide `width` units wide (svg.h render_slide_svg),
// with the open lesson scene's caption.
bool export_slide_svg(const AppState& s, bool light, double width, const std::string& path,
                      bool force, std::string* error);

// The slide's size, kSlideWidth x kSlideHeight: export_job.h.

// Starts a GIF or PNG-sequence export job (export_job.h) of `scope`, width x height pixels, the
// views-only slide or the window's layout. False with the reason (another export running, no
// frames, an existing file without force).
bool start_export(AppState& s, ExportKind kind, const std::string& path, ExportScope scope,
                  bool slide, bool light, int width, int height, bool force, std::string* error);
// Renders the running job's next frames offscreen for about budget_ms (at least one frame) and
// hands them to its worker; an edit of the scenario cancels it. The outcome once it is done.
std::optional<ExportResult> pump_export(AppState& s, Platform& p, CellRenderer& cells,
                                        float ui_scale, double budget_ms);
// "/full/path/x.gif (412 KB, 24 frames)": what the notice says after "saved".
std::string export_saved_text(const ExportResult& r, ExportKind kind);

// After a frame: renders a few frames of a running GIF or sequence export (and reports it when
// done), starts the ones the Export menu asked for, writes a PNG slide.
// How long a window frame may spend rendering a running export's frames (at least one is
// rendered), given what the window's own last frame cost (`window_ms`: building it, handing it to
// OpenGL and presenting it). The window's frame is overhead to an export (on llvmpipe a 1600x1000
// window costs more than a 1280x720 slide frame drawn where it changed), so the export gets
// kExportShare times the window's frame, between kExportMinMs and kExportMaxMs: a whole animation
// is made in about the time a headless export takes, and the window still redraws (its progress,
// Cancel) several times a second (BENCHMARKS.md).
inline constexpr double kExportShare = 8, kExportMinMs = 12, kExportMaxMs = 200;
double export_budget_ms(double window_ms);
void handle_export_jobs(AppState& s, Platform& p, CellRenderer& cells, float ui_scale,
                        double window_ms);

// Handles the UI's other export requests (keys S/E, the Export menu) after a frame.
void handle_requests(AppState& s, Platform& p, CellRenderer& cells, float ui_scale);

// Waits (at most minutes) until the figures on stage are measured: the Measurer's run, and while
// comparing both sides. The headless pictures show them as the window does.
void wait_for_figures(AppState& s);

// --screenshot / --sequence / --frames without a window: returns the exit code.
int run_headless(AppState& s, const Options& o, Platform& p, CellRenderer& cells);

// Where the measured figures come from at the start (the window and the headless pictures;
// --frames alone measures nothing): --gpu / --gpu-command for this session, else the GPU setting.
// The recorded figures stand in for a missing GPU, in the window and in the headless pictures
// alike. The browser runs no kernel.
void start_gpu(AppState& s, const Options& o);
// The GPU menu's "Use" (s.measure.gpu_menu): measure there from now on and keep it in the
// settings, or say in the menu why not.
void use_gpu_menu(AppState& s);

// Prints frame-time statistics (--frame-times): total per frame, and the mean of each part.
void print_frame_times(const std::vector<FrameTiming>& t, const std::string& renderer, int w,
                       int h);

// Writes where the views drew their grids (for screenshot tests).
bool write_layout(const AppState& s, const std::string& path, float scale, bool force,
                  std::string* error);
// The same JSON for a frame drawn now at w x h (scale 1), as --screenshot --dump-layout would
// write it: the browser's &dump-layout (link.h).
bool layout_of_first_frame(AppState& s, Platform& p, CellRenderer& cells, int w, int h,
                           std::string* json, std::string* error);

// A file the user gave (dropped on the window, or picked in the browser), opened where it
// belongs: a kernel (.cu) in the "your kernel" window, a lesson (its scenes) from its first
// scene, any other .json as a scenario (a preset is one). What happened is the status line's
// notice; nothing is lost (the draft it replaces is undoable).
void open_user_file(AppState& s, const std::string& path, double now);

// The link (link.h) to what is on screen: an unedited lesson scene of the catalog's, else the
// unedited preset, else the scenario itself; presenter mode and a light theme.
// `size`: the size the opening link fixed ("1280x720"), kept in the link; "" for none.
std::string current_link(const AppState& s, const std::string& size = {});

}  // namespace bankviz::gui
