// platform.cpp: GLFW window or EGL surfaceless context, plus offscreen framebuffers.
#include "platform.h"

#include <glad/gl.h>
// glad first: GLFW must not pull in the system GL header.
#include <GLFW/glfw3.h>

#include <cstdio>

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
  glfwSwapInterval(visible ? 1 : 0);
  if (!gladLoadGL(glfwGetProcAddress)) {
    *error = "cannot load OpenGL 3.3 functions";
    return false;
  }
  return true;
}

bool Platform::open_egl(std::string* error) {
#if BANKVIZ_HAVE_EGL
  auto get_display = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(
      eglGetProcAddress("eglGetPlatformDisplayEXT"));
  EGLDisplay dpy = EGL_NO_DISPLAY;
  if (get_display) dpy = get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
  if (dpy == EGL_NO_DISPLAY) {
    *error =
        "no display, and EGL has no surfaceless platform (Mesa's EGL_MESA_platform_surfaceless)";
    return false;
  }
  EGLint major = 0, minor = 0;
  if (!eglInitialize(dpy, &major, &minor)) {
    *error = "no display, and EGL surfaceless could not initialise (error 0x" +
             std::to_string(eglGetError()) + ")";
    return false;
  }
  if (!eglBindAPI(EGL_OPENGL_API)) {
    *error = "EGL surfaceless: desktop OpenGL is not available";
    return false;
  }
  EGLint config_attrs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
  EGLConfig config = nullptr;
  EGLint n = 0;
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
    *error = "ImGui OpenGL3 backend failed to start";
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

}  // namespace bankviz::gui
