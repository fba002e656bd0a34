// platform_web.cpp: the browser platform (Emscripten): WebGL2 through Emscripten's GLFW port on
// the page's canvas, the main loop driven by the browser's animation frames, the clock from
// performance.now(), the clipboard, downloads, the settings kept in localStorage and the address
// bar's link (the page's JavaScript: app/web/).
#include <GLFW/glfw3.h>
#include <emscripten.h>
#include <emscripten/html5.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <utility>

#include "platform/platform.h"
#include "platform/platform_impl.h"

namespace {
// clang-format off
// The page's count of shown frames and when the first was shown (performance.now(), ms): the
// browser tests and benchmarks read them (first frame, frames per second).
EM_JS(void, js_frame_presented, (), {
  Module.bankvizFrames = (Module.bankvizFrames || 0) + 1;
  if (Module.bankvizFrames === 1) Module.bankvizFirstFrameMs = performance.now();
});
// clang-format on
}  // namespace

namespace bankviz::gui {

namespace impl {

const char* const kContextName = "WebGL2";
const char* const kGlslVersion = "#version 300 es";

void window_hints(bool) {
  glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
}

bool load_gl(std::string*) {
  return true;  // WebGL2's functions are Emscripten's: nothing to load
}

void close_context(Platform&) {}

void frame_presented() {
  js_frame_presented();
}

}  // namespace impl

bool Platform::open_egl(std::string* error) {
  *error = "the browser draws on its canvas only";
  return false;
}

// The browser cannot sleep inside a frame: its loop calls us once per animation frame anyway.
bool Platform::wait_events(double) {
  return false;
}

void Platform::set_fullscreen(bool on) {
  if (on == fullscreen_) return;
  // The browser grants full screen only inside a user's gesture; a refusal leaves the page as is.
  const EMSCRIPTEN_RESULT r =
      on ? emscripten_request_fullscreen("#canvas", false) : emscripten_exit_fullscreen();
  if (r == EMSCRIPTEN_RESULT_SUCCESS || r == EMSCRIPTEN_RESULT_DEFERRED) fullscreen_ = on;
}

void Platform::windowed_size(int* width, int* height) const {
  window_size(width, height);
}

// Emscripten's GLFW draws the canvas at CSS pixels (no HiDPI framebuffer): the UI at scale 1
// lays out as the desktop's at the same size.
float Platform::content_scale() const {
  return 1;
}

// [SECTION] services

namespace {

std::function<bool()>& loop_frame() {
  static std::function<bool()> f;
  return f;
}

void loop_once() {
  if (!loop_frame()()) emscripten_cancel_main_loop();
}

// clang-format off
EM_JS(int, js_copy_to_clipboard, (const char* text), {
  if (!navigator.clipboard || !navigator.clipboard.writeText) return 0;
  navigator.clipboard.writeText(UTF8ToString(text)).catch(function(e) {
    console.warn('bankviz: the clipboard refused: ' + e);
  });
  return 1;
});

EM_JS(void, js_deliver_file, (const char* path), {
  var p = UTF8ToString(path);
  var data;
  try { data = FS.readFile(p); } catch (e) { console.warn('bankviz: no file ' + p); return; }
  var name = p.substring(p.lastIndexOf('/') + 1);
  var types = {png: 'image/png', svg: 'image/svg+xml', gif: 'image/gif', json: 'application/json'};
  var ext = name.substring(name.lastIndexOf('.') + 1).toLowerCase();
  var blob = new Blob([data.slice()], {type: types[ext] || 'application/octet-stream'});
  if (Module.bankvizDownload) Module.bankvizDownload(name, blob);
  try { FS.unlink(p); } catch (e) {}
});

EM_JS(void, js_persist_settings, (const char* path), {
  var p = UTF8ToString(path);
  try {
    localStorage.setItem('bankviz:' + p, FS.readFile(p, {encoding: 'utf8'}));
  } catch (e) {
    console.warn('bankviz: the settings could not be kept in this browser: ' + e);
  }
});

EM_JS(void, js_show_link, (const char* fragment), {
  var f = '#' + UTF8ToString(fragment);
  if (f === '#') f = '';
  if (location.hash !== f) history.replaceState(null, '', location.pathname + location.search + f);
});
EM_JS(int, js_layout_asked, (), {
  var asked = Module.bankvizAskLayout ? 1 : 0;
  Module.bankvizAskLayout = false;
  return asked;
});
EM_JS(void, js_publish_layout, (const char* json), {
  var pre = document.getElementById('bankviz-layout');
  if (!pre) {
    pre = document.createElement('pre');
    pre.id = 'bankviz-layout';
    pre.style.display = 'none';
    document.body.appendChild(pre);
  }
  pre.textContent = UTF8ToString(json);
});
EM_JS(void, js_pick_file, (), {
  if (Module.bankvizPickFile) Module.bankvizPickFile();
});

EM_JS(char*, js_page_address, (), {
  var base = location.origin + location.pathname + location.search;
  var n = lengthBytesUTF8(base) + 1;
  var p = _malloc(n);
  stringToUTF8(base, p, n);
  return p;
});
// clang-format on

}  // namespace

void run_main_loop(std::function<bool()> frame) {
  loop_frame() = std::move(frame);
  // 0: the browser's animation frames; true: main's stack is left here, never returned to.
  emscripten_set_main_loop(loop_once, 0, true);
}

double now_seconds() {
  return emscripten_get_now() / 1000.0;
}

std::string shader_source(std::string_view glsl_330) {
  // WebGL2 is GLSL ES 3.00: its own version line and default precisions (the integer texture
  // the cell grids read needs one too); the rest of our shaders is the common subset.
  constexpr std::string_view kDesktop = "#version 330 core";
  std::string_view body = glsl_330;
  if (body.substr(0, kDesktop.size()) == kDesktop) body.remove_prefix(kDesktop.size());
  return "#version 300 es\nprecision highp float;\nprecision highp int;\n"
         "precision highp usampler2D;\n" +
         std::string(body);
}

bool copy_to_clipboard(const std::string& text) {
  return js_copy_to_clipboard(text.c_str()) != 0;
}

void deliver_file(const std::string& path) {
  js_deliver_file(path.c_str());
}

void persist_settings(const std::string& path) {
  js_persist_settings(path.c_str());
}

void show_link(const std::string& fragment) {
  js_show_link(fragment.c_str());
}

void pick_file() {
  js_pick_file();
}

std::string link_for(const std::string& fragment) {
  char* base = js_page_address();
  std::string link = std::string(base ? base : "") + "#" + fragment;
  std::free(base);
  return link;
}

bool can_open_window() {
  return true;
}

void publish_layout(const std::string& json) {
  js_publish_layout(json.c_str());
}

bool layout_asked() {
  return js_layout_asked() != 0;
}

const Capabilities& capabilities() {
  static const Capabilities c{"browser", false, false, false, true, false};
  return c;
}

}  // namespace bankviz::gui

// The page's file picker hands a chosen file here, after copying it into the page's memory
// (app/web/bankviz.js): it joins the files dropped on the canvas.
extern "C" EMSCRIPTEN_KEEPALIVE void bankviz_web_open_file(const char* path) {
  bankviz::gui::impl::queue_dropped(path);
}
