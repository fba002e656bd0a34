// settings.cpp: settings file (see settings.h).
#include "shell/settings.h"

#include "validation.h"

#include "bankviz/io.h"

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

namespace bankviz::gui {

using nlohmann::json;

std::string config_dir() {
  return bankviz::config_dir();  // app/shared/validation.h: one home for both programs
}

namespace {

// A value as a message quotes it: JSON, ASCII only (no terminal control gets through), and at most
// kMaxShownChars of it (a 900 KB theme string is named by its start and its length).
constexpr size_t kMaxShownChars = 80;
std::string shown(const json& v) {
  std::string s = v.dump(-1, ' ', true);
  if (s.size() <= kMaxShownChars) return s;
  return s.substr(0, kMaxShownChars - 20) + "... (" + std::to_string(s.size()) + " characters)";
}

// The deepest nesting of arrays and objects in a JSON text, strings skipped. Checked before the
// parse: printing or destroying a value nested 300,000 deep recurses as deep, and the stack ends.
size_t json_depth(const std::string& t) {
  size_t depth = 0, most = 0;
  bool in_string = false;
  for (size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      most = std::max(most, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return most;
}

template <typename T>
void read(const json& j, const char* key, T* out, std::vector<std::string>* problems, T lo = T{},
          T hi = T{}) {
  if (!j.contains(key)) return;
  const json& v = j[key];
  const T def = *out;
  auto wrong_type = [&] {
    problems->push_back(std::string("settings: ") + key + " = " + shown(v) +
                        " has the wrong type; using " + shown(json(def)));
  };
  if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
    // Checked as a double before any conversion: 1e300 must not become a float infinity or a
    // 4294967936 wrap to 640 in an int (both undefined or wrong), and 2.5 is not an integer.
    if (!v.is_number()) return wrong_type();
    const double d = v.get<double>();
    if (std::is_integral_v<T> && v.is_number_float() && d != std::floor(d)) return wrong_type();
    if (!(d >= static_cast<double>(lo) && d <= static_cast<double>(hi))) {  // NaN fails too
      problems->push_back(std::string("settings: ") + key + " = " + shown(v) +
                          " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) +
                          "]; using " + shown(json(def)));
      return;
    }
    *out = static_cast<T>(d);
  } else {
    try {
      *out = v.get<T>();
    } catch (const json::exception&) {
      wrong_type();
    }
  }
}

// "gpu": {"source": "here" | "ssh" | "command" | "recorded", "host": "...", "command": "..."}.
// A source that needs a host or command it lacks is reported and this machine's GPU used.
void read_gpu(const json& j, Settings& s, std::vector<std::string>* problems) {
  if (!j.contains("gpu")) return;
  const json& g = j["gpu"];
  if (!g.is_object()) {
    problems->push_back("settings: gpu = " + shown(g) +
                        " is not an object; measuring on this machine's GPU");
    return;
  }
  for (const char* key : {"host", "command"}) {
    if (!g.contains(key)) continue;
    const size_t most = std::string(key) == "host" ? kMaxGpuHostChars : kMaxGpuCommandChars;
    if (!g[key].is_string() || g[key].get<std::string>().size() > most) {
      problems->push_back(std::string("settings: gpu.") + key + " is not a string of at most " +
                          std::to_string(most) + " characters; left out");
      continue;
    }
    (std::string(key) == "host" ? s.gpu_host : s.gpu_command) = g[key].get<std::string>();
  }
  if (!g.contains("source")) return;
  using G = Settings::GpuSource;
  const json& src = g["source"];
  bool named = false;
  for (G k : {G::Here, G::Ssh, G::Command, G::Recorded})
    if (src.is_string() && src.get<std::string>() == gpu_source_name(k)) {
      s.gpu_source = k;
      named = true;
    }
  if (!named)
    problems->push_back("settings: gpu.source = " + shown(src) +
                        " is not \"here\", \"ssh\", \"command\" or \"recorded\"; measuring on "
                        "this machine's GPU");
  if ((s.gpu_source == G::Ssh && s.gpu_host.empty()) ||
      (s.gpu_source == G::Command && s.gpu_command.empty())) {
    problems->push_back(std::string("settings: gpu.source = \"") + gpu_source_name(s.gpu_source) +
                        "\" without its " + (s.gpu_source == G::Ssh ? "host" : "command") +
                        "; measuring on this machine's GPU");
    s.gpu_source = G::Here;
  }
}

// A preset's name: a file stem (at most 255 bytes, no '/', no control character), or "" for none.
bool preset_name_ok(const std::string& n) {
  if (n.size() > 255) return false;
  for (char c : n)
    if (c == '/' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  return true;
}

// A lesson name as the catalog names them: a file stem of letters, digits, '-', '_' and '.'
// (never a path, never empty).
bool lesson_name_ok(const std::string& n) {
  if (n.empty() || n.size() > 100 || n.front() == '.') return false;
  for (char c : n)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
      return false;
  return true;
}

// "lesson" (a name, or "" for none) and "lesson_places" ({name: scene}); a bad entry is
// reported and left out, the rest kept.
void read_lesson(const json& j, Settings* s, std::vector<std::string>* problems) {
  if (j.contains("lesson")) {
    const json& v = j["lesson"];
    if (v.is_string() && (v.get<std::string>().empty() || lesson_name_ok(v.get<std::string>()))) {
      s->lesson = v.get<std::string>();
    } else {
      problems->push_back("settings: lesson = " + shown(v) + " is not a lesson's name; using \"" +
                          s->lesson + "\"");
    }
  }
  if (!j.contains("lesson_places")) return;
  const json& places = j["lesson_places"];
  if (!places.is_object()) {
    problems->push_back(
        "settings: lesson_places is not an object of {\"lesson\": scene}; "
        "every lesson opens on its first scene");
    return;
  }
  for (const auto& [name, scene] : places.items()) {
    const bool number = scene.is_number_integer() || scene.is_number_unsigned();
    const double d = number ? scene.get<double>() : 0;
    if (!lesson_name_ok(name) || !number || d < 1 || d > kMaxRememberedScene) {
      problems->push_back("settings: lesson_places[" + shown(json(name)) + "] = " + shown(scene) +
                          " is not a lesson and a scene from 1 to " +
                          std::to_string(kMaxRememberedScene) + "; left out");
      continue;
    }
    if (s->lesson_places.size() >= kMaxLessonPlaces) {
      problems->push_back("settings: lesson_places holds more than " +
                          std::to_string(kMaxLessonPlaces) + " lessons; the rest are left out");
      break;
    }
    s->lesson_places[name] = static_cast<int>(d);
  }
}

}  // namespace

const char* gpu_source_name(Settings::GpuSource g) {
  switch (g) {
    case Settings::GpuSource::Ssh:
      return "ssh";
    case Settings::GpuSource::Command:
      return "command";
    case Settings::GpuSource::Recorded:
      return "recorded";
    case Settings::GpuSource::Here:
      break;
  }
  return "here";
}

Settings settings_from_json(const std::string& text, std::vector<std::string>* problems) {
  Settings s;
  if (json_depth(text) > kMaxSettingsDepth) {
    problems->push_back("settings: values nested deeper than " + std::to_string(kMaxSettingsDepth) +
                        " levels; using the defaults");
    return s;
  }
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    problems->push_back("settings: not a JSON object; using defaults");
    return s;
  }
  if (j.contains("theme")) {
    if (j["theme"] == "light") {
      s.light = true;
    } else if (j["theme"] == "dark") {
      s.light = false;
    } else {
      problems->push_back("settings: theme = " + shown(j["theme"]) +
                          " is not \"light\" or \"dark\"; using \"dark\"");
    }
  }
  read(j, "presenter", &s.presenter, problems);
  read(j, "ui_scale", &s.ui_scale, problems, 0.5f, 4.0f);
  read(j, "speed", &s.speed, problems, 0.1, 60.0);
  read(j, "loop", &s.loop, problems);
  read(j, "export_scale", &s.export_scale, problems, 1, 4);
  if (j.contains("export_theme")) {
    const json& t = j["export_theme"];
    if (t == "app") {
      s.export_theme = Settings::ExportTheme::App;
    } else if (t == "light") {
      s.export_theme = Settings::ExportTheme::Light;
    } else if (t == "dark") {
      s.export_theme = Settings::ExportTheme::Dark;
    } else {
      problems->push_back("settings: export_theme = " + shown(t) +
                          " is not \"app\", \"light\" or \"dark\"; using \"app\" (the "
                          "window's theme)");
    }
  } else if (j.contains("export_light")) {
    // Settings written before export_theme: false was a choice (dark); true was the default,
    // which is now the window's theme.
    bool light = true;
    read(j, "export_light", &light, problems);
    if (!light) s.export_theme = Settings::ExportTheme::Dark;
  }
  read(j, "preset", &s.preset, problems);
  if (!preset_name_ok(s.preset)) {
    problems->push_back("settings: preset = " + shown(json(s.preset)) +
                        " is not a preset's name; left out");
    s.preset.clear();
  }
  read_lesson(j, &s, problems);
  read(j, "show_source", &s.show_source, problems);
  read(j, "show_measure", &s.show_measure, problems);
  read(j, "views_only", &s.views_only, problems);
  read(j, "window_w", &s.window_w, problems, 640, 8192);
  read(j, "window_h", &s.window_h, problems, 400, 8192);
  read_gpu(j, s, problems);
  return s;
}

std::string settings_to_json(const Settings& s) {
  json j = {{"theme", s.light ? "light" : "dark"},
            {"presenter", s.presenter},
            {"ui_scale", s.ui_scale},
            {"speed", s.speed},
            {"loop", s.loop},
            {"export_scale", s.export_scale},
            {"export_theme", s.export_theme == Settings::ExportTheme::Light  ? "light"
                             : s.export_theme == Settings::ExportTheme::Dark ? "dark"
                                                                             : "app"},
            {"preset", s.preset},
            {"lesson", s.lesson},
            {"lesson_places", s.lesson_places},
            {"show_source", s.show_source},
            {"show_measure", s.show_measure},
            {"views_only", s.views_only},
            {"window_w", s.window_w},
            {"window_h", s.window_h},
            {"gpu",
             {{"source", gpu_source_name(s.gpu_source)},
              {"host", s.gpu_host},
              {"command", s.gpu_command}}}};
  return j.dump(2) + "\n";
}

bool export_light(const Settings& s) {
  switch (s.export_theme) {
    case Settings::ExportTheme::Light:
      return true;
    case Settings::ExportTheme::Dark:
      return false;
    case Settings::ExportTheme::App:
      break;
  }
  return s.light;
}

namespace {

// A settings text the app cannot read as settings (not JSON, not an object, nested too deep):
// saving the defaults over it would lose every value the user wrote in it.
bool unusable_settings(const std::string& text) {
  if (json_depth(text) > kMaxSettingsDepth) return true;
  const json j = json::parse(text, nullptr, false);
  return j.is_discarded() || !j.is_object();
}

// Moves the user's settings file aside under a name no other file has (link() never replaces
// one): "; the file is kept as <path>.bad[.N]", or, when it cannot be, why the app leaves it
// where it is (save_settings() then refuses to replace it).
std::string keep_aside(const std::string& path) {
  for (int n = 0; n < 100; ++n) {
    const std::string aside = path + ".bad" + (n == 0 ? std::string() : "." + std::to_string(n));
    if (::link(path.c_str(), aside.c_str()) == 0) {
      ::unlink(path.c_str());
      return "; the file is kept as " + aside;
    }
    if (errno != EEXIST)
      return std::string("; it cannot be kept aside (") + std::strerror(errno) +
             "), so the settings will not be saved over it";
  }
  return "; it cannot be kept aside (" + path +
         ".bad to .bad.99 exist), so the settings will not be saved over it";
}

// Empty when save_settings() may replace `path`: there is no file, or one the app reads as
// settings, or a special file (write_file_atomic() refuses that in its own words). Otherwise why
// not: the file holds what the user made, which a save must not replace.
std::string replace_problem(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(std::filesystem::symlink_status(path, ec))) return {};
  const TextRead text = read_text_file(path, kMaxSettingsBytes);
  if (!text.text) return text.error;
  if (unusable_settings(*text.text)) return '\'' + path + "' is not a settings file bankviz reads";
  return {};
}

}  // namespace

Settings load_settings(std::vector<std::string>* problems) {
  std::string dir = config_dir();
  if (dir.empty()) return {};
  const std::string path = dir + "/settings.json";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return {};  // first start: defaults
  // Regular files of at most 1 MB only: settings.json as /dev/zero or a FIFO must not hang or
  // exhaust the app; it is reported and the defaults are used.
  TextRead text = read_text_file(path, kMaxSettingsBytes);
  // A file that cannot be read (larger than 1 MB, unreadable), is not JSON (a typo in a hand
  // edit) or is nested too deep would be replaced whole by the defaults when the app saves at its
  // end, and every value the user wrote in it lost: it is moved aside first, and the message says
  // where. A special file is only reported (saving refuses to replace it).
  if (!text.text) {
    std::string why = "settings: " + text.error + "; using the defaults";
    if (std::filesystem::is_regular_file(std::filesystem::symlink_status(path, ec)))
      why += keep_aside(path);
    if (problems) problems->push_back(std::move(why));
    return {};
  }
  std::vector<std::string> found;
  Settings out = settings_from_json(*text.text, &found);
  if (unusable_settings(*text.text)) found.front() += keep_aside(path);
  if (problems) problems->insert(problems->end(), found.begin(), found.end());
  return out;
}

bool save_settings(const Settings& s, std::string* error) {
  std::string dir = config_dir();
  if (dir.empty()) {
    *error = "cannot save settings: neither XDG_CONFIG_HOME nor HOME is set";
    return false;
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    *error = "cannot create " + dir + ": " + ec.message();
    return false;
  }
  // Replaced whole (temporary file, then rename): a full disk leaves the old settings intact. A
  // settings.json that is a device, FIFO or directory is refused, never written into; one the app
  // cannot read as settings (load_settings() could not keep it aside) is left as it is.
  const std::string path = dir + "/settings.json";
  if (const std::string why = replace_problem(path); !why.empty()) {
    *error = "cannot save settings: " + why + "; it is left as it is (move it away to save them)";
    return false;
  }
  *error = write_file_atomic(path, settings_to_json(s), true);
  if (!error->empty()) *error = "cannot save settings: " + *error;
  return error->empty();
}

}  // namespace bankviz::gui
