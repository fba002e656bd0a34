// settings.h: the user's settings, persisted as JSON in $XDG_CONFIG_HOME/bankviz/settings.json.
//
// Bad values (wrong type, out of range, unknown theme) are reported and replaced by the default;
// a missing or unreadable file means defaults. Nothing here can stop the app from starting.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace bankviz::gui {

// The lesson a first start opens on (assets/lessons/NAME.json): the data-layout seed's, whose
// first scene asks how many wavefronts a warp's row read needs.
inline constexpr const char* kDefaultLesson = "data-layout";
// The most lesson places kept (names that are file stems, scenes 1 .. kMaxRememberedScene).
inline constexpr size_t kMaxLessonPlaces = 256;
inline constexpr int kMaxRememberedScene = 10000;

struct Settings {
  bool light = false;      // light theme (default dark)
  bool presenter = false;  // large fonts, high contrast
  float ui_scale = 1.0f;   // HiDPI scale, 0.5 .. 4
  double speed = 2.0;      // beats per second, 0.1 .. 60
  bool loop = true;
  int export_scale = 2;  // PNG export scale, 1 .. 4
  // The exports' theme (GIF, sequence, PNG and SVG slides, window PNG, SVG): the window's unless
  // chosen ("export_theme": "app", "light" or "dark").
  enum class ExportTheme { App, Light, Dark } export_theme = ExportTheme::App;
  std::string preset;  // last preset shown
  // The lesson the app opens on ("lesson"): the default lesson until the user leaves lessons for
  // a preset or a file ("" then: the last preset opens). A file written before lessons were
  // remembered has no key: the default lesson.
  std::string lesson = kDefaultLesson;
  // The place in each lesson ("lesson_places": {"histogram": 3}): the 1-based scene last shown,
  // where the Lessons menu and the next start take it up again. At most kMaxLessonPlaces.
  std::map<std::string, int> lesson_places;
  bool show_source = true;   // kernel source panel visible
  bool show_measure = true;  // measurement panel visible
  bool views_only = false;   // sidebar hidden: the tile, bank and timeline views fill the window
  int window_w = 1600;       // window size in screen coordinates, 640 .. 8192 x 400 .. 8192
  int window_h = 1000;
  // Where the measured figures come from (the toolbar's GPU menu; "gpu" in the file): this
  // machine's GPU (and the recorded figures without one), a GPU over ssh (gpu_host), a command
  // speaking bankviz's protocol (gpu_command) or the recorded figures only. --gpu and
  // --gpu-command choose for one session without changing it.
  enum class GpuSource { Here, Ssh, Command, Recorded } gpu_source = GpuSource::Here;
  std::string gpu_host, gpu_command;
};

// "here", "ssh", "command", "recorded": the settings file's words for a GpuSource.
const char* gpu_source_name(Settings::GpuSource g);

// The longest gpu_host and gpu_command kept from the settings file (bankviz-cli's limits).
inline constexpr size_t kMaxGpuHostChars = 1024, kMaxGpuCommandChars = 8192;

// Whether exports draw in the light theme: the window's theme unless the user chose one for them.
// Every export asks this, so a GIF, a PNG slide and an SVG of one session agree.
bool export_light(const Settings& s);

// The most bytes read from the settings file (and ImGui's layout file beside it).
inline constexpr long long kMaxSettingsBytes = 1 << 20;
// The deepest nesting of arrays and objects read (the file itself needs 2): a deeper file is
// reported, kept aside (settings.json.bad) and the defaults used.
inline constexpr size_t kMaxSettingsDepth = 32;

// $XDG_CONFIG_HOME/bankviz (or ~/.config/bankviz); empty when neither is set.
std::string config_dir();

// Parses settings JSON. Every problem is appended to `problems` and the field defaulted.
Settings settings_from_json(const std::string& text, std::vector<std::string>* problems);
std::string settings_to_json(const Settings& s);

// Reads config_dir()/settings.json (defaults when absent). Writes it, creating the directory;
// false with a message on failure.
Settings load_settings(std::vector<std::string>* problems);
bool save_settings(const Settings& s, std::string* error);

}  // namespace bankviz::gui
