// platform.h: the OpenGL context: a GLFW window, or Mesa's EGL surfaceless context when there is
// no display; and an offscreen framebuffer for screenshots at any scale.
#pragma once

#include <cstdint>
#include <string>
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
  void new_frame(int width, int height, double dt);
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
  // The paths of files dropped on the window since the last call (GLFW's drop callback), oldest
  // first; at most kMaxDropped are kept until taken.
  std::vector<std::string> take_dropped();
  static constexpr size_t kMaxDropped = 16;
  void close();

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

}  // namespace bankviz::gui
