// platform_impl.h: what platform_glfw.cpp asks of the platform it is built for
// (platform_desktop.cpp or platform_web.cpp). Not for the features: they include platform.h.
#pragma once

#include <string>

#include "platform/platform.h"

namespace bankviz::gui::impl {

// The context asked for, in messages ("an OpenGL 3.3 core context", "WebGL2").
extern const char* const kContextName;
// Dear ImGui's OpenGL backend's version line ("#version 330 core", "#version 300 es").
extern const char* const kGlslVersion;
// GLFW's window hints before the window is made.
void window_hints(bool visible);
// Loads the GL functions for the current context (glad on the desktop; nothing in the browser).
bool load_gl(std::string* error);
// Ends a context that is not the window's (the desktop's EGL one).
void close_context(Platform& p);
// A frame was shown (the browser counts them for the page: first frame, frames per second).
void frame_presented();
// A file the user gave (dropped, or picked in the browser): Platform::take_dropped() returns it.
void queue_dropped(const char* path);

}  // namespace bankviz::gui::impl
