// platform_glfw.cpp: what the desktop and the browser share: the GLFW window (Emscripten's GLFW
// port in the browser), Dear ImGui's backends, dropped files, offscreen framebuffers and reading
// pixels. The rest is platform_desktop.cpp's or platform_web.cpp's (platform_impl.h).
#include "platform/platform.h"

#include "platform/gl.h"
// The GL header first: GLFW must not pull in the system's.
#include <GLFW/glfw3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <utility>

#include "backends/imgui_impl_glfw.h"
#include "backends/imgui_impl_opengl3.h"
#include "imgui.h"
#include "platform/key_queue.h"
#include "platform/platform_impl.h"

namespace bankviz::gui {

static void glfw_error(int code, const char* text) {
  std::fprintf(stderr, "bankviz: GLFW error %d: %s\n", code, text);
}

// Files dropped on the window, until take_dropped(): GLFW calls back on the main thread, during
// glfwPollEvents / glfwWaitEvents.
static std::vector<std::string> g_dropped;

// [SECTION] keys: ImGui 1.86 reads keys as state once a frame, so a tap shorter than a frame (a
// clicker at 10 fps under a software rasterizer, a quick key in the browser) was lost. Key events
// are queued as they come and handed to ImGui before each frame, in order, one change of a key per
// frame (key_queue.h): every press and every release is seen by a frame of its own.
namespace {
struct KeyEvent {
  int key, scancode, action, mods;
};
std::deque<KeyEvent> g_keys;  // the main thread's (GLFW calls back there)
constexpr size_t kMaxQueuedKeys = 256;

void queue_key(GLFWwindow*, int key, int scancode, int action, int mods) {
  if (g_keys.size() < kMaxQueuedKeys) g_keys.push_back({key, scancode, action, mods});
}

void replay_keys(GLFWwindow* window) {
  const size_t n =
      keys_for_this_frame(g_keys, [](const KeyEvent& e) { return e.action != GLFW_REPEAT; });
  for (size_t i = 0; i < n; ++i) {
    const KeyEvent e = g_keys.front();
    g_keys.pop_front();
    ImGui_ImplGlfw_KeyCallback(window, e.key, e.scancode, e.action, e.mods);
  }
}
}  // namespace

void impl::queue_dropped(const char* path) {
  if (path && g_dropped.size() < Platform::kMaxDropped) g_dropped.emplace_back(path);
}

static void glfw_drop(GLFWwindow*, int count, const char** paths) {
  for (int i = 0; i < count && paths && paths[i]; ++i) impl::queue_dropped(paths[i]);
}

std::vector<std::string> Platform::take_dropped() {
  std::vector<std::string> out;
  out.swap(g_dropped);
  return out;
}

bool Platform::open_window(int width, int height, bool visible, std::string* error) {
  glfwSetErrorCallback(glfw_error);
  if (!glfwInit()) {
    *error = "cannot open a window: GLFW could not initialise (is DISPLAY set and reachable?)";
    return false;
  }
  impl::window_hints(visible);
  window = glfwCreateWindow(width, height, "bankviz: shared-memory banks", nullptr, nullptr);
  if (!window) {
    *error = std::string("cannot open a window with ") + impl::kContextName;
    glfwTerminate();
    return false;
  }
  glfwMakeContextCurrent(window);
  glfwSetDropCallback(window, glfw_drop);
  glfwSwapInterval(visible ? 1 : 0);
  return impl::load_gl(error);
}

bool Platform::start_imgui(std::string* error) {
  if (const GLubyte* r = glGetString(GL_RENDERER)) gl_renderer = reinterpret_cast<const char*>(r);
  if (window && !ImGui_ImplGlfw_InitForOpenGL(window, true)) {
    *error = "ImGui GLFW backend failed to start";
    return false;
  }
  // Keys go through our queue (replay_keys); ImGui's other callbacks stay its own.
  if (window) glfwSetKeyCallback(window, queue_key);
  if (!window) {
    ImGuiIO& io = ImGui::GetIO();
    io.BackendPlatformName = "bankviz_headless";
  }
  if (!ImGui_ImplOpenGL3_Init(impl::kGlslVersion)) {
    // ImGui 1.86's own GL loader dlopens libGL.so.1 even under EGL (seen on a GPU host without
    // glvnd's libGL: "Failed to initialize OpenGL loader!").
    *error = "ImGui OpenGL3 backend failed to start (its loader needs libGL.so.1: glvnd's libgl1)";
    return false;
  }
  return true;
}

void Platform::new_frame(int width, int height, double dt, bool input) {
  ImGui_ImplOpenGL3_NewFrame();
  if (window && input) replay_keys(window);
  if (window) {
    ImGui_ImplGlfw_NewFrame();
  } else {
    ImGuiIO& io = ImGui::GetIO();
    io.DeltaTime = dt > 0 ? static_cast<float>(dt) : 1.0f / 60.0f;
  }
  // The logical display is the render target in pixels: the UI scale lives in the fonts and the
  // style, so an offscreen 2x render lays out exactly like a 2x window.
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(static_cast<float>(width), static_cast<float>(height));
  io.DisplayFramebufferScale = ImVec2(1, 1);
}

void Platform::present(bool timed, double* finish_ms, double* swap_ms) {
  impl::frame_presented();
  if (!timed) {
    glfwSwapBuffers(window);
    return;
  }
  auto ms_since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
  };
  auto t = std::chrono::steady_clock::now();
  glFinish();
  *finish_ms = ms_since(t);
  t = std::chrono::steady_clock::now();
  glfwSwapBuffers(window);
  glFinish();
  *swap_ms = ms_since(t);
}

void Platform::close() {
  ImGui_ImplOpenGL3_Shutdown();
  if (window) {
    ImGui_ImplGlfw_Shutdown();
    glfwDestroyWindow(window);
    glfwTerminate();
    window = nullptr;
  }
  impl::close_context(*this);
}

bool Offscreen::ensure(int w, int h, std::string* error) {
  if (fbo && w == width && h == height) return true;
  destroy();
  GLint max_size = 0;
  glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &max_size);
  if (w > max_size || h > max_size) {
    *error = "image " + std::to_string(w) + "x" + std::to_string(h) +
             " is larger than this OpenGL allows (" + std::to_string(max_size) + ")";
    return false;
  }
  glGenFramebuffers(1, &fbo);
  glGenRenderbuffers(1, &color);
  glBindRenderbuffer(GL_RENDERBUFFER, color);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color);
  bool ok = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  if (!ok) {
    *error = "offscreen framebuffer is incomplete";
    destroy();
    return false;
  }
  width = w;
  height = h;
  return true;
}

void Offscreen::bind() const {
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glViewport(0, 0, width, height);
}

void Offscreen::unbind() {
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

std::vector<uint8_t> read_pixels(int width, int height) {
  std::vector<uint8_t> px(static_cast<size_t>(width) * height * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
  // GL's rows run bottom-up; images run top-down.
  size_t row = static_cast<size_t>(width) * 4;
  std::vector<uint8_t> tmp(row);
  for (int y = 0; y < height / 2; ++y) {
    uint8_t* a = px.data() + y * row;
    uint8_t* b = px.data() + (height - 1 - y) * row;
    std::copy(a, a + row, tmp.begin());
    std::copy(b, b + row, a);
    std::copy(tmp.begin(), tmp.end(), b);
  }
  return px;
}

std::vector<uint8_t> Offscreen::read_rgba() const {
  glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
  auto px = read_pixels(width, height);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  return px;
}

void Offscreen::destroy() {
  if (color) glDeleteRenderbuffers(1, &color);
  if (fbo) glDeleteFramebuffers(1, &fbo);
  fbo = color = 0;
  width = height = 0;
}

void Platform::framebuffer_size(int* width, int* height) const {
  *width = *height = 0;
  if (window) glfwGetFramebufferSize(window, width, height);
}

void Platform::window_size(int* width, int* height) const {
  *width = *height = 0;
  if (window) glfwGetWindowSize(window, width, height);
}

bool Platform::should_close() const {
  return window && glfwWindowShouldClose(window);
}

void Platform::poll_events() {
  glfwPollEvents();
}

void Platform::set_swap_interval(int interval) {
  if (window) glfwSwapInterval(interval);
}

}  // namespace bankviz::gui
