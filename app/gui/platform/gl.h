// gl.h: the OpenGL API the app draws with, whichever platform it runs on. The desktop loads
// OpenGL 3.3 core through glad (generated at build time); the browser has WebGL2, which is
// OpenGL ES 3.0 (Emscripten's GLES3 header). The app uses only what both have: shaders go
// through shader_source() (platform.h) for their version line.
#pragma once

#ifdef __EMSCRIPTEN__
#include <GLES3/gl3.h>
#else
#include <glad/gl.h>
#endif
