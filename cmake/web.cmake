# web.cmake: the browser build (scripts/web.sh runs `emcmake cmake`; docs/WEB.md in the project).
# Emscripten's toolchain searches only its own sysroot, so the header-only libraries we use from
# Debian (nlohmann-json, CLI11, stb) are offered through a folder of links to their Debian
# folders, and Dear ImGui is compiled from Debian's source package of the desktop's version
# (fetched by scripts/web.sh into IMGUI_SOURCE_DIR, never committed).
set(BANKVIZ_CUDA OFF CACHE BOOL "" FORCE)
set(BANKVIZ_TESTS OFF CACHE BOOL "" FORCE)
set(BANKVIZ_BENCHMARKS OFF CACHE BOOL "" FORCE)
set(BANKVIZ_FUZZ OFF CACHE BOOL "" FORCE)
set(IMGUI_SOURCE_DIR "" CACHE PATH "Dear ImGui 1.86's sources (Debian's source package 'imgui')")
if(NOT EXISTS "${IMGUI_SOURCE_DIR}/imgui.cpp")
  message(FATAL_ERROR "IMGUI_SOURCE_DIR='${IMGUI_SOURCE_DIR}' holds no imgui.cpp: "
                      "scripts/web.sh fetches Debian's source package and sets it")
endif()

# Threads: the same std::thread workers as the desktop (LatestJob, exports, advise's pool) on Web
# Workers over a SharedArrayBuffer (the page is served cross-origin isolated: site/sw.js).
add_compile_options(-pthread)
add_link_options(-pthread)
# C++ exceptions: the model reports errors by throwing, and Emscripten's default would abort
# instead. Emscripten's own (JavaScript) exceptions: WebAssembly's native ones (-fwasm-exceptions)
# are not caught in a threaded build of Debian's Emscripten 3.1.6 (a parse error thrown and
# caught in one function escaped it; checked with core's parse_expr).
add_compile_options(-fexceptions)
add_link_options(-fexceptions)

set(BANKVIZ_WEB_INCLUDE ${CMAKE_BINARY_DIR}/debian-include)
file(MAKE_DIRECTORY ${BANKVIZ_WEB_INCLUDE})
foreach(dir nlohmann CLI stb)
  if(NOT EXISTS /usr/include/${dir})
    message(FATAL_ERROR "/usr/include/${dir} is missing: scripts/web.sh installs it")
  endif()
  file(CREATE_LINK /usr/include/${dir} ${BANKVIZ_WEB_INCLUDE}/${dir} SYMBOLIC)
endforeach()
add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
target_include_directories(nlohmann_json::nlohmann_json INTERFACE ${BANKVIZ_WEB_INCLUDE})
add_library(CLI11::CLI11 INTERFACE IMPORTED)
target_include_directories(CLI11::CLI11 INTERFACE ${BANKVIZ_WEB_INCLUDE})
set(nlohmann_json_FOUND ON)
set(CLI11_FOUND ON)

# Dear ImGui with its GLFW and OpenGL 3 backends (WebGL2 through Emscripten's GLFW port: the
# backend picks GLSL ES 3.00 by itself under __EMSCRIPTEN__).
add_library(bankviz_imgui STATIC
  ${IMGUI_SOURCE_DIR}/imgui.cpp
  ${IMGUI_SOURCE_DIR}/imgui_draw.cpp
  ${IMGUI_SOURCE_DIR}/imgui_tables.cpp
  ${IMGUI_SOURCE_DIR}/imgui_widgets.cpp
  ${IMGUI_SOURCE_DIR}/backends/imgui_impl_glfw.cpp
  ${IMGUI_SOURCE_DIR}/backends/imgui_impl_opengl3.cpp
  ${IMGUI_SOURCE_DIR}/misc/cpp/imgui_stdlib.cpp)
target_include_directories(bankviz_imgui SYSTEM PUBLIC ${IMGUI_SOURCE_DIR}
                                                       ${IMGUI_SOURCE_DIR}/backends
                                                       ${IMGUI_SOURCE_DIR}/misc/cpp)
target_compile_options(bankviz_imgui PUBLIC -sUSE_GLFW=3)
# PNG writing: Debian's stb_image_write.h (the desktop links libstb, which defines it).
target_sources(bankviz_imgui PRIVATE ${PROJECT_SOURCE_DIR}/app/web/stb_image_write.cpp)
target_include_directories(bankviz_imgui SYSTEM PUBLIC ${BANKVIZ_WEB_INCLUDE}/stb)
target_link_options(bankviz_imgui PUBLIC -sUSE_GLFW=3 -sMIN_WEBGL_VERSION=2 -sMAX_WEBGL_VERSION=2)
# Dear ImGui's own files are never one unity source (scripts/web.sh builds ours that way): they are
# not ours to keep unity-clean, and compile once.
set_target_properties(bankviz_imgui PROPERTIES UNITY_BUILD OFF)
# The desktop links pkg-config's `imgui`; the app names this one target for both.
add_library(PkgConfig::IMGUI ALIAS bankviz_imgui)
set(BANKVIZ_HAVE_GUI ON)
