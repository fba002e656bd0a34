// platform.cpp: GLFW window or EGL surfaceless context, plus offscreen framebuffers.
#include "platform/platform.h"

#include <glad/gl.h>
// glad first: GLFW must not pull in the system GL header.
#include <GLFW/glfw3.h>

#include <chrono>
#include <cstdio>
#include <utility>

#include "backends/imgui_impl_glfw.h"
#include "backends/imgui_impl_opengl3.h"
#include "imgui.h"

#if BANKVIZ_HAVE_EGL
#include <EGL/egl.h>
#include <EGL/eglext.h>
#endif

namespace bankviz::gui {

static void glfw_error(int code, const char* text) {
  std::fprintf(stderr, "bankviz: GLFW error %d: %s\n", code, text);
}

// Files dropped on the window, until take_dropped(): GLFW calls back on the main thread, during
// glfwPollEvents / glfwWaitEvents.
static std::vector<std::string> g_dropped;

static void glfw_drop(GLFWwindow*, int count, const char** paths) {
  for (int i = 0; i < count && paths && paths[i]; ++i)
    if (g_dropped.size() < Platform::kMaxDropped) g_dropped.emplace_back(paths[i]);
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
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_VISIBLE, visible ? GLFW_TRUE : GLFW_FALSE);
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
  window = glfwCreateWindow(width, height, "bankviz: shared-memory banks", nullptr, nullptr);
  if (!window) {
    *error = "cannot open a window with an OpenGL 3.3 core context";
    glfwTerminate();
    return false;
  }
  glfwMakeContextCurrent(window);
  glfwSetDropCallback(window, glfw_drop);
  glfwSwapInterval(visible ? 1 : 0);
  if (!gladLoadGL(glfwGetProcAddress)) {
    *error = "cannot load OpenGL 3.3 functions";
    return false;
  }
  return true;
}

bool Platform::open_egl(std::string* error) {
#if BANKVIZ_HAVE_EGL
  // Three ways to a display-less context, in order: Mesa's surfaceless platform (llvmpipe here),
  // the first GPU through EGL_EXT_platform_device (NVIDIA's driver on a headless GPU host), and
  // the default display. Each must initialise; the first that does is used.
  auto get_display = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(
      eglGetProcAddress("eglGetPlatformDisplayEXT"));
  auto query_devices =
      reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
  std::vector<std::pair<const char*, EGLDisplay>> candidates;
  if (get_display)
    candidates.push_back(
        {"surfaceless", get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr)});
  if (get_display && query_devices) {
    EGLDeviceEXT devices[8];
    EGLint count = 0;
    if (query_devices(8, devices, &count) && count > 0)
      candidates.push_back({"device", get_display(EGL_PLATFORM_DEVICE_EXT, devices[0], nullptr)});
  }
  candidates.push_back({"default", eglGetDisplay(EGL_DEFAULT_DISPLAY)});
  EGLDisplay dpy = EGL_NO_DISPLAY;
  std::string tried;
  for (auto& [name, d] : candidates) {
    EGLint major = 0, minor = 0;
    if (d != EGL_NO_DISPLAY && eglInitialize(d, &major, &minor)) {
      dpy = d;
      egl_platform = name;
      break;
    }
    tried += std::string(tried.empty() ? "" : ", ") + name;
  }
  if (dpy == EGL_NO_DISPLAY) {
    *error = "no display, and no EGL platform without one initialised (tried " + tried +
             "; Mesa's EGL_MESA_platform_surfaceless or a GPU's EGL_EXT_platform_device)";
    return false;
  }
  if (!eglBindAPI(EGL_OPENGL_API)) {
    *error = "EGL surfaceless: desktop OpenGL is not available";
    return false;
  }
  // We draw into our own framebuffer object, so any config will do; a device display has no
  // window configs (the default surface type), so ask for pbuffer ones, then for anything.
  EGLint pbuffer_attrs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                            EGL_NONE};
  EGLint config_attrs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
  EGLConfig config = nullptr;
  EGLint n = 0;
  if (!eglChooseConfig(dpy, pbuffer_attrs, &config, 1, &n) || n == 0)
    eglChooseConfig(dpy, config_attrs, &config, 1, &n);
  EGLint ctx_attrs[] = {EGL_CONTEXT_MAJOR_VERSION,
                        3,
                        EGL_CONTEXT_MINOR_VERSION,
                        3,
                        EGL_CONTEXT_OPENGL_PROFILE_MASK,
                        EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                        EGL_NONE};
  EGLContext ctx =
      eglCreateContext(dpy, n > 0 ? config : EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, ctx_attrs);
  if (ctx == EGL_NO_CONTEXT) {
    *error = "EGL surfaceless: cannot create an OpenGL 3.3 core context";
    return false;
  }
  if (!eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
    *error = "EGL surfaceless: cannot make the context current (EGL_KHR_surfaceless_context?)";
    return false;
  }
  if (!gladLoadGL(reinterpret_cast<GLADloadfunc>(eglGetProcAddress))) {
    *error = "EGL surfaceless: cannot load OpenGL 3.3 functions";
    return false;
  }
  egl_display = dpy;
  egl_context = ctx;
  return true;
#else
  *error = "no display, and this build has no EGL (install libegl-dev and rebuild)";
  return false;
#endif
}

bool Platform::start_imgui(std::string* error) {
  if (const GLubyte* r = glGetString(GL_RENDERER)) gl_renderer = reinterpret_cast<const char*>(r);
  if (window && !ImGui_ImplGlfw_InitForOpenGL(window, true)) {
    *error = "ImGui GLFW backend failed to start";
    return false;
  }
  if (!window) {
    ImGuiIO& io = ImGui::GetIO();
    io.BackendPlatformName = "bankviz_headless";
  }
  if (!ImGui_ImplOpenGL3_Init("#version 330 core")) {
    // ImGui 1.86's own GL loader dlopens libGL.so.1 even under EGL (seen on a GPU host without
    // glvnd's libGL: "Failed to initialize OpenGL loader!").
    *error = "ImGui OpenGL3 backend failed to start (its loader needs libGL.so.1: glvnd's libgl1)";
    return false;
  }
  return true;
}

void Platform::new_frame(int width, int height, double dt) {
  ImGui_ImplOpenGL3_NewFrame();
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

bool Platform::wait_events(double timeout) {
  auto before = std::chrono::steady_clock::now();
  glfwWaitEventsTimeout(timeout);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - before).count() <
         timeout * 0.9;
}

void Platform::present(bool timed, double* finish_ms, double* swap_ms) {
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
#if BANKVIZ_HAVE_EGL
  if (egl_display) {
    eglMakeCurrent(egl_display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(egl_display, egl_context);
    eglTerminate(egl_display);
    egl_display = egl_context = nullptr;
  }
#endif
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

void Platform::set_fullscreen(bool on) {
  if (!window || on == fullscreen_) return;
  GLFWmonitor* mon = glfwGetPrimaryMonitor();
  if (on && mon) {
    glfwGetWindowPos(window, &windowed_[0], &windowed_[1]);
    glfwGetWindowSize(window, &windowed_[2], &windowed_[3]);
    const GLFWvidmode* mode = glfwGetVideoMode(mon);
    glfwSetWindowMonitor(window, mon, 0, 0, mode->width, mode->height, mode->refreshRate);
    fullscreen_ = true;
  } else if (!on) {
    glfwSetWindowMonitor(window, nullptr, windowed_[0], windowed_[1], windowed_[2], windowed_[3],
                         0);
    fullscreen_ = false;
  }
}

void Platform::windowed_size(int* width, int* height) const {
  if (fullscreen_) {
    *width = windowed_[2];
    *height = windowed_[3];
  } else if (window) {
    glfwGetWindowSize(window, width, height);
  }
}

}  // namespace bankviz::gui
