// stb_image_write.cpp: the browser build's PNG writer, Debian's libstb-dev header compiled here
// (the desktop links Debian's libstb, which holds the same code).
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include "stb_image_write.h"
