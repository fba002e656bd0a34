// options.cpp: command-line parsing with CLI11 (see options.h).
//
// Every flag is checked here, before any work: a value CLI11 cannot convert, one out of range
// (NaN and infinities included: CLI::Range lets NaN through), an empty value, and flags that make
// no sense together are usage errors (exit 2) with a message naming the flag.
#include "shell/options.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string_view>
#include <utility>

#include "bankviz/io.h"
#include "export/export_job.h"
#include "shell/link.h"

namespace bankviz::gui {

namespace {

// "" when the images the flags ask for are within export_job.h's limits (--size, else the
// window's 1600x1000 for --screenshot and the slide's 1280x720 for --gif and --sequence, times
// --scale), else why.
std::string export_sizes_problem(const Options& o, const std::string& size) {
  const float scale = o.scale > 0 ? o.scale : 1.0f;
  const auto px = [&](int l) { return static_cast<int64_t>(static_cast<float>(l) * scale); };
  const std::string at = o.size_given ? " at --size " + size : std::string();
  if (!o.screenshot.empty())
    if (std::string why = export_size_problem(px(o.width), px(o.height), false); !why.empty())
      return "--screenshot" + at + ": " + why + "; a smaller --size or --scale";
  const int fw = o.size_given ? o.width : kSlideWidth, fh = o.size_given ? o.height : kSlideHeight;
  for (const auto& [flag, path] : {std::pair{"--gif", &o.gif}, {"--sequence", &o.sequence}})
    if (!path->empty())
      if (std::string why = export_size_problem(px(fw), px(fh), true); !why.empty())
        return flag + at + ": " + why + "; a smaller --size or --scale";
  return {};
}

// "" when every output the flags name is a path of its own, else which two name the same one:
// `--screenshot x.png --sequence x.png` would write a PNG where the sequence's folder goes. With
// --sizes, the files --screenshot and its companions write are the names with -WxH.
std::string same_outputs_problem(const Options& o) {
  const std::vector<ScreenshotFile> shots = screenshot_files(o);
  std::vector<std::pair<const char*, const std::string*>> outs;
  for (const ScreenshotFile& f : shots) {
    outs.push_back({f.told ? "--answer-screenshot" : "--screenshot", &f.png});
    outs.push_back({f.told ? "--answer-dump-layout" : "--dump-layout", &f.json});
  }
  for (const auto& out : {std::pair{"--svg", &o.svg},
                          {"--sequence", &o.sequence},
                          {"--gif", &o.gif},
                          {"--export-gif", &o.export_gif}})
    outs.push_back(out);
  if (shots.empty()) {  // flags that need --screenshot: refused below, named here all the same
    outs.push_back({"--dump-layout", &o.dump_layout});
    outs.push_back({"--answer-screenshot", &o.answer_screenshot});
    outs.push_back({"--answer-dump-layout", &o.answer_dump_layout});
  }
  namespace fs = std::filesystem;
  auto where = [](const std::string& p) {
    std::error_code ec;
    const fs::path w = fs::weakly_canonical(fs::absolute(p, ec), ec);
    return ec ? fs::path(p).lexically_normal() : w;
  };
  for (size_t i = 0; i < outs.size(); ++i) {
    if (outs[i].second->empty()) continue;
    const fs::path a = where(*outs[i].second);
    for (size_t j = i + 1; j < outs.size(); ++j) {
      if (outs[j].second->empty()) continue;
      const fs::path b = where(*outs[j].second);
      // a file named as one of the sequence's frames, in its folder
      auto frame_in = [](const fs::path& file, const fs::path& dir) {
        const std::string n = file.filename().string();
        return file.parent_path() == dir && n.size() >= 14 && n.rfind("frame-", 0) == 0 &&
               n.ends_with(".png") &&
               std::all_of(n.begin() + 6, n.end() - 4, [](char c) { return c >= '0' && c <= '9'; });
      };
      const bool seq_i = std::string(outs[i].first) == "--sequence";
      const bool seq_j = std::string(outs[j].first) == "--sequence";
      if (a == b)
        return std::string(outs[i].first) + " and " + outs[j].first + " name the same file ('" +
               *outs[j].second + "'): give each output a name of its own";
      if ((seq_i && frame_in(b, a)) || (seq_j && frame_in(a, b))) {
        const auto& file = seq_i ? outs[j] : outs[i];
        return std::string(file.first) + " '" + *file.second +
               "' is one of --sequence's frames: give each output a name of its own";
      }
    }
  }
  return {};
}

// "1600x1000" -> true with both extents; anything else (signs, spaces, trailing text, overflow)
// -> false.
bool parse_size(const std::string& text, int* w, int* h) {
  const size_t x = text.find('x');
  if (x == std::string::npos) return false;
  auto number = [](const char* first, const char* last, int* out) {
    if (first == last || *first < '0' || *first > '9') return false;
    auto [end, ec] = std::from_chars(first, last, *out);
    return ec == std::errc() && end == last;
  };
  const char* s = text.data();
  return number(s, s + x, w) && number(s + x + 1, s + text.size(), h);
}

// --sizes' list, "1024x768,1280x720": "" with every size in *out (in the order given), else why
// not. Each size as --size's, and each picture within export_job.h's limits at --scale.
std::string parse_sizes(const Options& o, const std::string& text,
                        std::vector<std::pair<int, int>>* out) {
  constexpr size_t kMostSizes = 8;
  const float scale = o.scale > 0 ? o.scale : 1.0f;
  const auto px = [&](int l) { return static_cast<int64_t>(static_cast<float>(l) * scale); };
  for (size_t from = 0;;) {
    const size_t comma = std::min(text.find(',', from), text.size());
    const std::string one = text.substr(from, comma - from);
    int w = 0, h = 0;
    if (!parse_size(one, &w, &h) || w < 640 || h < 400 || w > 8192 || h > 8192)
      return "--sizes: '" + one.substr(0, 40) + (one.size() > 40 ? "...'" : "'") +
             ": expected WxH between 640x400 and 8192x8192, comma-separated";
    if (std::find(out->begin(), out->end(), std::pair{w, h}) != out->end())
      return "--sizes: " + one + " is named twice";
    if (out->size() == kMostSizes)
      return "--sizes: at most " + std::to_string(kMostSizes) + " sizes in one run";
    if (std::string why = export_size_problem(px(w), px(h), false); !why.empty())
      return "--sizes " + one + ": " + why + "; a smaller size or --scale";
    out->push_back({w, h});
    if (comma == text.size()) return {};
    from = comma + 1;
  }
}

// Where usage errors go: standard error, or the caller's string (parse_options' `message`).
thread_local std::string* t_message = nullptr;

std::optional<Options> usage(int* exit_code, const std::string& message) {
  if (t_message)
    *t_message = message;
  else
    std::fprintf(stderr, "bankviz: %s\nRun with --help for more information.\n", message.c_str());
  *exit_code = kExitUsage;
  return std::nullopt;
}

// `--link FRAGMENT` (or --link=FRAGMENT) replaced by the flags the link stands for (link.h), so
// that both are checked by the same code below. False with *error on a link that does not parse.
bool expand_link(std::vector<std::string>* args, Options* o, std::string* error) {
  std::vector<std::string> out;
  for (size_t i = 0; i < args->size(); ++i) {
    const std::string& a = (*args)[i];
    std::string fragment;
    if (i > 0 && a == "--link" && i + 1 < args->size()) {
      fragment = (*args)[++i];
    } else if (i > 0 && a.rfind("--link=", 0) == 0) {
      fragment = a.substr(7);
    } else {
      out.push_back(a);
      continue;
    }
    if (!o->link.empty()) {
      *error = "give one link";
      return false;
    }
    std::optional<LinkRequest> r = parse_link(fragment, error);
    if (!r) return false;
    o->link = fragment.empty() ? "#" : fragment;
    o->scenario_text = std::move(r->scenario_json);
    o->link_dump_layout = r->dump_layout;
    out.insert(out.end(), r->args.begin(), r->args.end());
  }
  *args = std::move(out);
  return true;
}

}  // namespace

std::vector<ScreenshotFile> screenshot_files(const Options& o) {
  std::vector<ScreenshotFile> out;
  if (o.screenshot.empty()) return out;
  std::vector<std::pair<int, int>> sizes = o.sizes;
  if (sizes.empty()) sizes.push_back({o.width, o.height});
  // NAME.png -> NAME-WxH.png with --sizes (the folder and the extension kept).
  auto at = [&](const std::string& path, const std::pair<int, int>& z) {
    if (path.empty() || o.sizes.empty()) return path;
    std::filesystem::path p(path);
    p.replace_filename(p.stem().string() + "-" + std::to_string(z.first) + "x" +
                       std::to_string(z.second) + p.extension().string());
    return p.string();
  };
  for (const auto& z : sizes)
    out.push_back({z.first, z.second, false, at(o.screenshot, z), at(o.dump_layout, z)});
  if (!o.answer_screenshot.empty())
    for (const auto& z : sizes)
      out.push_back(
          {z.first, z.second, true, at(o.answer_screenshot, z), at(o.answer_dump_layout, z)});
  return out;
}

std::optional<Options> parse_options(int argc, char** argv, int* exit_code, std::string* message) {
  struct Sink {
    explicit Sink(std::string* m) { t_message = m; }
    ~Sink() { t_message = nullptr; }
  } sink(message);
  Options o;
  std::vector<std::string> words(argv, argv + argc);
  if (std::string why; !expand_link(&words, &o, &why)) return usage(exit_code, "--link: " + why);
  CLI::App app{"bankviz: see CUDA shared-memory bank conflicts, warp by warp"};
  // An empty value ("--preset ''") is a usage error, never "flag not given".
  const CLI::Validator non_empty(
      [](std::string& v) { return v.empty() ? std::string("must not be empty") : std::string(); },
      "", "non-empty");
  std::string theme, size;
  // "NAME VERSION" on one line, as GNU programs print it (help2man reads it for the man page).
  app.set_version_flag("--version", std::string("bankviz ") + BANKVIZ_VERSION,
                       "print the version and exit");
  app.add_option("--preset", o.preset, "preset name (assets/presets/NAME.json)")->check(non_empty);
  // A missing or unreadable file is reported when it is loaded (exit 1, as bankviz-cli --file).
  app.add_option("--scenario", o.scenario, "scenario JSON file")->check(non_empty);
  app.add_option("--lesson", o.lesson, "open a guided lesson (assets/lessons/NAME.json)")
      ->check(non_empty);
  app.add_flag("--reveal", o.reveal,
               "with --lesson: open the scene with its question answered (what the room sees "
               "after the reveal)");
  CLI::Option* scene =
      app.add_option("--scene", o.scene, "with --lesson: the scene to open (1-based)")
          ->check(CLI::Range(1, 1000));
  app.add_option("--compare", o.compare,
                 "before and after: A and B (preset names or scenario files) side by side")
      ->expected(2)
      ->check(non_empty);
  app.add_option("--sweep", o.sweep, "open the sweep window on PARAM=VALUES (e.g. pad=0..32)")
      ->check(non_empty);
  app.add_option("--theme", theme, "light or dark")->check(CLI::IsMember({"light", "dark"}));
  app.add_flag("--presenter", o.presenter, "large fonts, high contrast, views only");
  app.add_flag("--views-only", o.views_only, "hide the sidebar: the views fill the window (key V)");
  CLI::Option* scale = app.add_option("--scale", o.scale, "UI / export scale, 0.5 to 4");
  app.add_option("--screenshot", o.screenshot, "render, write this PNG and exit")->check(non_empty);
  app.add_option("--answer-screenshot", o.answer_screenshot,
                 "with --lesson and --screenshot: then reveal the scene's answer as the clicker "
                 "does and write this PNG too (the question's slide and its answer's)")
      ->check(non_empty);
  app.add_option("--answer-dump-layout", o.answer_dump_layout,
                 "with --answer-screenshot: the revealed frame's layout (JSON), as --dump-layout")
      ->check(non_empty);
  app.add_option("--svg", o.svg, "write an SVG of the tile and bank views and exit")
      ->check(non_empty);
  app.add_option("--sequence", o.sequence,
                 "write the 16:9 slide as one PNG per beat into this directory and exit (the "
                 "--step's wavefronts, else the whole animation)")
      ->check(non_empty);
  app.add_option("--gif", o.gif,
                 "write the 16:9 slide animated as a GIF and exit (the --step's wavefronts, else "
                 "the whole animation; 1280x720 unless --size, at most 3840x2160)")
      ->check(non_empty);
  app.add_flag("--whole-animation", o.whole_animation,
               "with --gif, --sequence or --export-gif: every beat of the animation, also with "
               "--step (the Export menu's \"whole animation\")");
  app.add_option("--export-gif", o.export_gif,
                 "with the window open: export the current step as a slide-size GIF in the "
                 "background, as the Export menu does, and exit when it is written")
      ->check(non_empty);
  app.add_flag("--slide", o.slide,
               "with --screenshot or --svg: the 16:9 slide the Export menu's slides and GIF draw "
               "(tile, banks, verdict, a lesson's caption; no toolbar, sidebar or timeline)");
  app.add_option("--dump-layout", o.dump_layout, "with --screenshot: write grid positions (JSON)")
      ->check(non_empty);
  app.add_flag("--force", o.force, "overwrite existing output files");
  app.add_option("--frames", o.frames, "render N frames and exit")->check(CLI::Range(1, 100000));
  app.add_flag("--frame-times", o.frame_times, "print frame-time statistics");
  app.add_option("--size", size, "window size, WxH (default 1600x1000)");
  std::string sizes;
  CLI::Option* sizes_opt = app.add_option(
      "--sizes", sizes,
      "with --screenshot: its pictures at each of these window sizes in one run, e.g. "
      "1024x768,1280x720,1920x1080,3840x2160: NAME-WxH.png (--dump-layout's, "
      "--answer-screenshot's and --answer-dump-layout's names too)");
  CLI::Option* step = app.add_option("--step", o.step, "executed step to show (0-based)")
                          ->check(CLI::Range(0, INT_MAX));
  CLI::Option* warp =
      app.add_option("--warp", o.warp, "with --step: warp to show")->check(CLI::Range(0, INT_MAX));
  CLI::Option* wavefront =
      app.add_option("--wavefront", o.wavefront, "with --step: wavefront to show (0-based)")
          ->check(CLI::Range(0, INT_MAX));
  app.add_flag("--no-settings", o.no_settings, "do not read or write the settings file");
  app.add_option("--gpu", o.gpu,
                 "measure on the GPU of this ssh destination (user@host, a Host of "
                 "~/.ssh/config): `ssh HOST bankviz-cli serve` in batch mode")
      ->check(non_empty);
  app.add_option("--gpu-command", o.gpu_command,
                 "measure through this shell command speaking bankviz's protocol "
                 "(`bankviz-cli serve`, `srun ... bankviz-cli serve`)")
      ->check(non_empty);
  app.add_flag("--egl", o.egl, "render headless through EGL even when a display exists");
  app.add_option("--kernel-file", o.kernel_file,
                 "a .cu file for the 'your kernel' window: profile it (with --kernel, --line) and "
                 "open --line as recorded")
      ->check(non_empty);
  CLI::Option* kernel = app.add_option("--kernel", o.kernel, "with --kernel-file: the kernel");
  CLI::Option* line =
      app.add_option("--line", o.line, "with --kernel-file: the source line to open")
          ->check(CLI::Range(1, INT_MAX));
  CLI::Option* block =
      app.add_option("--block", o.block, "with --kernel-file: the block (default 32)");
  CLI::Option* args = app.add_option("--args", o.kernel_args,
                                     "with --kernel-file: the kernel's arguments, as bankviz-cli "
                                     "profile's --arg values, space-separated");
  CLI::Option* shared =
      app.add_option("--shared", o.shared, "with --kernel-file: dynamic shared memory, bytes")
          ->check(CLI::Range(0, 232448));
  CLI::Option* cpu = app.add_flag("--record-cpu", o.record_cpu,
                                  "with --kernel-file: record one block on the CPU (no GPU; "
                                  "figures are the model's) instead of profiling on the GPU");
  CLI::Option* window = app.add_flag(
      "--kernel-window", o.kernel_window,
      "with --kernel-file: keep the 'your kernel' window open over the views (also in a "
      "--screenshot), its source list at --line");
  // Never seen by CLI11 with a value (expand_link() replaced it): listed for --help.
  std::string link_help;
  app.add_option("--link", link_help,
                 "open what a browser link opens: '#lesson=NAME&scene=N&reveal', '#preset=NAME', "
                 "'#scenario=BASE64URL', with '&presenter', '&theme=light', '&size=WxH'");
  try {
    // As parse(argc, argv) does: the program's name, then the words in reverse order.
    if (!words.empty()) app.name(words.front());
    std::vector<std::string> reversed(words.rbegin(), words.rend() - (words.empty() ? 0 : 1));
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    // --help exits 0; every other parse problem is a usage error. CLI11's message quotes the
    // user's words: printed through stdout/stderr, which the app filters (printable_output.h).
    std::ostringstream out, err;
    *exit_code = app.exit(e, out, err) == 0 ? kExitOk : kExitUsage;
    std::fputs(out.str().c_str(), stdout);
    if (message && *exit_code != kExitOk)
      *message = err.str();
    else
      std::fputs(err.str().c_str(), stderr);
    return std::nullopt;
  }
  if (!theme.empty()) o.theme = theme;
  // Written so that NaN fails too (every comparison with NaN is false).
  if (scale->count() > 0 && !(std::isfinite(o.scale) && o.scale >= 0.5f && o.scale <= 4.0f))
    return usage(exit_code, "--scale " + scale->as<std::string>() + ": expected 0.5 to 4");
  if (!size.empty() || app.count("--size") > 0) {
    int w = 0, h = 0;
    if (!parse_size(size, &w, &h) || w < 640 || h < 400 || w > 8192 || h > 8192)
      return usage(exit_code, "--size '" + size + "': expected WxH between 640x400 and 8192x8192");
    o.width = w;
    o.height = h;
    o.size_given = true;
  }
  if (sizes_opt->count() > 0) {
    if (app.count("--size") > 0) return usage(exit_code, "give --size or --sizes, not both");
    if (o.screenshot.empty()) return usage(exit_code, "--sizes works with --screenshot");
    if (!o.svg.empty() || !o.gif.empty() || !o.sequence.empty() || o.frames > 0)
      return usage(exit_code,
                   "--sizes draws --screenshot's pictures: give --svg, --gif, --sequence and "
                   "--frames a --size in a run of their own");
    if (std::string why = parse_sizes(o, sizes, &o.sizes); !why.empty())
      return usage(exit_code, why);
    o.width = o.sizes.front().first;  // the window opens at the first
    o.height = o.sizes.front().second;
    o.size_given = true;
  }
  // The images' sizes, --size times --scale (export_job.h): a GIF holds every frame whole (at
  // 8192x8192 an animation ran for minutes at 1.3 GB), a sequence writes hundreds of them, a PNG
  // of 8192x8192 took 35 s and 1.4 GB.
  if (std::string why = export_sizes_problem(o, size); !why.empty()) return usage(exit_code, why);
  if (std::string why = same_outputs_problem(o); !why.empty()) return usage(exit_code, why);
  // A name whose extension says another format (`--screenshot x.svg`) is a usage error that
  // names the right one, as bankviz-cli export's --svg does (io.h).
  const std::pair<const std::string*, std::string_view> formats[] = {
      {&o.screenshot, "png"},         {&o.svg, "svg"},          {&o.gif, "gif"},
      {&o.export_gif, "gif"},         {&o.dump_layout, "json"}, {&o.answer_screenshot, "png"},
      {&o.answer_dump_layout, "json"}};
  for (const auto& [path, format] : formats)
    if (!path->empty())
      if (std::string why = bankviz::extension_problem(*path, format); !why.empty())
        return usage(exit_code, why);
  if (!o.preset.empty() + !o.scenario.empty() + !o.lesson.empty() + !o.compare.empty() +
          !o.scenario_text.empty() >
      1)
    return usage(exit_code, o.link.empty()
                                ? "give one of --preset, --scenario, --lesson and --compare"
                                : "a link opens one of lesson, preset and scenario");
  if (o.reveal && o.lesson.empty()) return usage(exit_code, "--reveal answers a --lesson's scene");
  if (scene->count() > 0 && o.lesson.empty())
    return usage(exit_code, "--scene picks a scene of a --lesson");
  if ((warp->count() > 0 || wavefront->count() > 0) && step->count() == 0)
    return usage(exit_code, "--warp and --wavefront pick a beat together with --step");
  const bool kernel_part = kernel->count() + line->count() + block->count() + args->count() +
                               shared->count() + cpu->count() + window->count() >
                           0;
  if (kernel_part && o.kernel_file.empty())
    return usage(exit_code,
                 "--kernel, --line, --block, --args, --shared, --record-cpu and --kernel-window "
                 "go with --kernel-file");
  if (!o.kernel_file.empty() && (o.kernel.empty() || o.line == 0))
    return usage(exit_code, "--kernel-file needs --kernel and --line");
  if (!o.dump_layout.empty() && o.screenshot.empty())
    return usage(exit_code, "--dump-layout works with --screenshot");
  if (!o.answer_screenshot.empty() && (o.lesson.empty() || o.screenshot.empty() || o.reveal))
    return usage(exit_code,
                 "--answer-screenshot works with --lesson and --screenshot (the scene as asked, "
                 "then answered), not with --reveal");
  if (!o.answer_dump_layout.empty() && o.answer_screenshot.empty())
    return usage(exit_code, "--answer-dump-layout works with --answer-screenshot");
  if (!o.gpu.empty() && !o.gpu_command.empty())
    return usage(exit_code, "give --gpu HOST or --gpu-command CMD, not both");
  if (o.whole_animation && o.gif.empty() && o.sequence.empty() && o.export_gif.empty())
    return usage(exit_code, "--whole-animation works with --gif, --sequence or --export-gif");
  if (o.slide && o.screenshot.empty() && o.svg.empty())
    return usage(exit_code, "--slide works with --screenshot or --svg");
  if (!o.export_gif.empty() && (o.headless() || o.egl))
    return usage(exit_code,
                 "--export-gif runs in the window: not with --screenshot, --svg, --sequence, "
                 "--gif or --egl");
  if (o.egl && !o.headless() && o.frames == 0 && !o.frame_times)
    return usage(exit_code,
                 "--egl renders offscreen: give --screenshot, --sequence, --gif or "
                 "--frames");
  // With --gif or --sequence, --frame-times reports the export (session.cpp), not 120 frames.
  if (o.frame_times && o.frames == 0 && o.gif.empty() && o.sequence.empty()) o.frames = 120;
  *exit_code = kExitOk;
  return o;
}

}  // namespace bankviz::gui
