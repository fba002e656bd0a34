// platform_desktop.cpp: the desktop platform (Linux): OpenGL 3.3 core through glad, a GLFW
// window or Mesa's EGL surfaceless context without a display, a blocking main loop that sleeps
// while nothing moves, full screen on the primary monitor, the clipboard through GLFW.
#include <glad/gl.h>
// glad first: GLFW must not pull in the system GL header.
#include <GLFW/glfw3.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "platform/platform.h"
#include "platform/platform_impl.h"

#if BANKVIZ_HAVE_EGL
#include <EGL/egl.h>
#include <EGL/eglext.h>
#endif

namespace bankviz::gui {

namespace impl {

const char* const kContextName = "an OpenGL 3.3 core context";
const char* const kGlslVersion = "#version 330 core";

void window_hints(bool visible) {
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_VISIBLE, visible ? GLFW_TRUE : GLFW_FALSE);
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
}

bool load_gl(std::string* error) {
  if (!gladLoadGL(glfwGetProcAddress)) {
    *error = "cannot load OpenGL 3.3 functions";
    return false;
  }
  return true;
}

void frame_presented() {}

void close_context(Platform& p) {
#if BANKVIZ_HAVE_EGL
  if (p.egl_display) {
    eglMakeCurrent(p.egl_display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(p.egl_display, p.egl_context);
    eglTerminate(p.egl_display);
    p.egl_display = p.egl_context = nullptr;
  }
#else
  (void)p;
#endif
}

}  // namespace impl

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

bool Platform::wait_events(double timeout) {
  auto before = std::chrono::steady_clock::now();
  glfwWaitEventsTimeout(timeout);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - before).count() <
         timeout * 0.9;
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

float Platform::content_scale() const {
  float sx = 1, sy = 1;
  if (window) glfwGetWindowContentScale(window, &sx, &sy);
  return sx > 0 ? sx : 1;
}

void Platform::windowed_size(int* width, int* height) const {
  if (fullscreen_) {
    *width = windowed_[2];
    *height = windowed_[3];
  } else if (window) {
    glfwGetWindowSize(window, width, height);
  }
}

// [SECTION] services

void run_main_loop(std::function<bool()> frame) {
  while (frame()) {
  }
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string shader_source(std::string_view glsl_330) {
  return std::string(glsl_330);
}

bool copy_to_clipboard(const std::string& text) {
  // GLFW needs an initialised window system; a headless run has none.
  if (!glfwGetCurrentContext()) return false;
  glfwSetClipboardString(nullptr, text.c_str());
  return true;
}

void deliver_file(const std::string&) {}

void persist_settings(const std::string&) {}

void show_link(const std::string&) {}

void pick_file() {}

std::string link_for(const std::string& fragment) {
  return "#" + fragment;
}

bool can_open_window() {
  const char* display = std::getenv("DISPLAY");
  return display && *display;
}

void publish_layout(const std::string&) {}

bool layout_asked() {
  return false;
}

const Capabilities& capabilities() {
  static const Capabilities c{"desktop", true, true, true, false, true};
  return c;
}

}  // namespace bankviz::gui
