// platform.h: the app's one platform layer. Everything that differs between the desktop and the
// browser lives behind it: the window and its OpenGL context (a GLFW window or Mesa's EGL
// surfaceless context on the desktop; a canvas with WebGL2 through Emscripten's GLFW in the
// browser), the main loop, the clock, shaders' version line, the clipboard, handing a written
// file to the user (a download in the browser), keeping the settings, and what the platform can
// run at all (processes, kernels). The features in app/gui never include GLFW, glad or
// Emscripten: they call these. Implementations: platform_glfw.cpp (both), platform_desktop.cpp,
// platform_web.cpp (docs/WEB.md).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

struct GLFWwindow;

namespace bankviz::gui {

struct Platform {
  GLFWwindow* window = nullptr;  // null on the EGL path
  void* egl_display = nullptr;
  void* egl_context = nullptr;
  std::string gl_renderer;   // "llvmpipe (LLVM 15.0.6, 256 bits)"
  std::string egl_platform;  // EGL path: "surfaceless", "device" or "default"

  // A GLFW window with an OpenGL 3.3 core context; visible=false for headless rendering.
  bool open_window(int width, int height, bool visible, std::string* error);
  // A surfaceless EGL context (no display needed); only for offscreen rendering.
  bool open_egl(std::string* error);
  // Loads GL (glad) and starts the ImGui platform/renderer backends.
  bool start_imgui(std::string* error);
  // ImGui platform new-frame: GLFW's, or a fixed display size on the EGL path.
  // input false: an export's frame, which takes no queued key (the window's next frame does).
  void new_frame(int width, int height, double dt, bool input = true);
  // Sleeps until an input event or `timeout` seconds (nothing moves on screen meanwhile); true
  // when an event ended the wait.
  bool wait_events(double timeout);
  // Shows the frame. timed: first waits for the GPU, and returns the waits in milliseconds (the
  // rasterizer's, then the swap's) in *finish_ms and *swap_ms.
  void present(bool timed, double* finish_ms, double* swap_ms);
  // F11: full screen on the primary monitor, or back to the window's last windowed place.
  void set_fullscreen(bool on);
  bool fullscreen() const { return fullscreen_; }
  // The window's size when not full screen (what the settings remember).
  void windowed_size(int* width, int* height) const;
  // The paths of files dropped on the window since the last call (GLFW's drop callback; in the
  // browser also the file picker's, copied into the page's memory first), oldest first; at most
  // kMaxDropped are kept until taken.
  std::vector<std::string> take_dropped();
  static constexpr size_t kMaxDropped = 16;
  void close();

  bool has_window() const { return window != nullptr; }
  // The drawable's size in pixels, and the window's in screen units (they differ on HiDPI).
  void framebuffer_size(int* width, int* height) const;
  void window_size(int* width, int* height) const;
  // The monitor's (or the browser's devicePixelRatio) scale for the UI; 1 without a window.
  float content_scale() const;
  // The user closed the window (never in the browser: a tab is closed without asking).
  bool should_close() const;
  // Handles pending input without waiting.
  void poll_events();
  // 0: present as fast as possible (timed frames); 1: with the display.
  void set_swap_interval(int interval);

 private:
  bool fullscreen_ = false;
  int windowed_[4] = {0, 0, 0, 0};  // x, y, width, height before going full screen
};

// A framebuffer object to render the UI into at any size (screenshots, scaled exports).
struct Offscreen {
  unsigned fbo = 0, color = 0;
  int width = 0, height = 0;
  bool ensure(int w, int h, std::string* error);  // (re)allocates; binds nothing
  void bind() const;                              // draw into it
  static void unbind();                           // back to the window
  std::vector<uint8_t> read_rgba() const;         // top row first
  void destroy();
};

// Reads the bound framebuffer's pixels (top row first).
std::vector<uint8_t> read_pixels(int width, int height);

// [SECTION] services: the same call on every platform.

// Runs frame() once per display refresh until it returns false. The desktop returns then; the
// browser's page never ends its loop (a tab is closed, not quit), so there this call does not
// return and what frame() uses must outlive the caller's stack (main keeps it on the heap).
void run_main_loop(std::function<bool()> frame);

// Seconds on a monotonic clock (steady_clock; the browser's performance.now()).
double now_seconds();

// A GLSL 3.30 core shader's text as this platform compiles it: "#version 330 core" on the
// desktop; "#version 300 es" with high precision for WebGL2. The shaders exist once, in shaders/.
std::string shader_source(std::string_view glsl_330);

// Puts text on the system clipboard ("Copy link"); false where the platform refused.
bool copy_to_clipboard(const std::string& text);

// A file the app has just written for the user (an export). The desktop has it in place already;
// the browser offers it as a download named as the file, then removes it from the page's memory.
void deliver_file(const std::string& path);

// Called after the settings file was written: the browser keeps it in its storage (the page's
// file system is memory only); the desktop's file is already on disk.
void persist_settings(const std::string& path);

// A window can be opened (a display on the desktop; the browser always has its canvas).
bool can_open_window();

// The first frame's layout JSON (a link's &dump-layout) for the page: the browser writes it into
// <pre id="bankviz-layout">; nothing on the desktop (--dump-layout writes a file).
void publish_layout(const std::string& json);
// True once each time the page asks for the layout of the frame on screen (the browser tests set
// `Module.bankvizAskLayout`, then read the layout as `&dump-layout`'s); the desktop never asks.
bool layout_asked();

// The link to what the app shows now, kept in the address bar (browser); nothing on the desktop.
void show_link(const std::string& fragment);

// What the platform can do. In the browser no process can be started (the "your kernel" window's
// compile, the CPU recording) and no CUDA kernel can run: the app says so in one line, with the
// way to get it (kWebOnlyDesktop).
struct Capabilities {
  const char* name;     // "desktop" or "browser"
  bool processes;       // can start bankviz-cli and compilers
  bool files_in_place;  // exports land on disk where named (else: downloads)
  bool exits;           // a usage error ends the program (a page shows it over the default view)
  bool file_picker;     // pick_file() asks the user for a file
  // The UI's thread may start a thread and wait for it (the browser's page thread may not: a
  // Web Worker starts through its event loop; core's bankviz/threads.h).
  bool ui_may_wait_for_threads;
};

// Asks the user for a file (the browser's picker); it arrives through Platform::take_dropped().
void pick_file();

// The link to a view for the clipboard: the page's address with `fragment` in the browser, the
// fragment itself on the desktop (for bankviz --link).
std::string link_for(const std::string& fragment);
const Capabilities& capabilities();
inline constexpr const char* kBrowserCannotRunKernels =
    "real kernels need an NVIDIA GPU: the browser cannot run them (run the desktop app with a "
    "GPU, or measure on one: bankviz-cli run --gpu HOST)";
inline constexpr const char* kBrowserCannotCompile =
    "the browser cannot compile or record a kernel: record it with bankviz-cli profile --record "
    "(or --record-gpu) --save-recording FILE, then open FILE here (drop it, or Open a file...)";

}  // namespace bankviz::gui
