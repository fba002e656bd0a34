# site.cmake: the browser build's link and its static site (included by app/gui/CMakeLists.txt
# when EMSCRIPTEN). BANKVIZ_SITE_DIR gets index.html and what it loads: bankviz.js, .wasm,
# .worker.js (threads), .data (the assets, shaders and the fonts the desktop reads from Debian's
# packages, at the same paths) and the page's own bankviz-page.js and sw.js.
set(BANKVIZ_SITE_DIR ${CMAKE_BINARY_DIR}/site CACHE PATH "where the browser build's site goes")
set(font_dejavu /usr/share/fonts/truetype/dejavu)
set(font_mono /usr/share/fonts/truetype/jetbrains-mono)
foreach(f ${font_dejavu}/DejaVuSans.ttf ${font_dejavu}/DejaVuSans-Bold.ttf
          ${font_mono}/JetBrainsMono-Regular.ttf)
  if(NOT EXISTS ${f})
    message(FATAL_ERROR "${f} is missing: scripts/web.sh installs fonts-dejavu-core and "
                        "fonts-jetbrains-mono")
  endif()
endforeach()
# The benchmark entry (tests/web/bench.mjs): the presets' analysis, timed in the page.
target_sources(bankviz PRIVATE ${CMAKE_CURRENT_LIST_DIR}/bench_export.cpp
                               ${PROJECT_SOURCE_DIR}/bench/preset_times.cpp)
target_include_directories(bankviz PRIVATE ${PROJECT_SOURCE_DIR}/bench)
set_target_properties(bankviz PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${BANKVIZ_SITE_DIR}
                                         SUFFIX ".js")
target_link_options(bankviz PRIVATE
  # WebGL2 only (GLSL ES 3.00), through Emscripten's GLFW port.
  -sUSE_GLFW=3 -sMIN_WEBGL_VERSION=2 -sMAX_WEBGL_VERSION=2
  # The model's workers (LatestJob, advise's and sweep's pools) are Web Workers started with the
  # page, so that a thread the UI starts and waits for never waits for the page's event loop.
  -sPTHREAD_POOL_SIZE=12
  # ...loaded beside main(), not before it: the first frame waits for no worker (its analysis
  # runs on the page's thread: latest_job.h run_here); by the first edit they are there.
  -sPTHREAD_POOL_DELAY_LOAD=1
  # The model's stack (app/shared/stack.h: an index nested 200 deep) on the page's thread, and
  # room for each worker's.
  -sTOTAL_STACK=16MB -sDEFAULT_PTHREAD_STACK_SIZE=4MB
  -sINITIAL_MEMORY=256MB -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=2GB
  -sEXIT_RUNTIME=0 -sFORCE_FILESYSTEM=1 -sENVIRONMENT=web,worker
  -sEXPORTED_RUNTIME_METHODS=FS,ccall,ENV,UTF8ToString,stringToUTF8,lengthBytesUTF8,addRunDependency,removeRunDependency
  # The recorded measurements (assets/recorded, 6.5 MB of JSON) are not packed: the site has
  # them gzipped in recorded/ (below), which the page unpacks into /bankviz/assets/recorded.
  # The presets, lessons and scenes go in.
  "SHELL:--exclude-file ${PROJECT_SOURCE_DIR}/assets/recorded"
  "SHELL:--preload-file ${PROJECT_SOURCE_DIR}/assets@/bankviz/assets"
  "SHELL:--preload-file ${PROJECT_SOURCE_DIR}/shaders@/bankviz/shaders"
  "SHELL:--preload-file ${font_dejavu}/DejaVuSans.ttf@${font_dejavu}/DejaVuSans.ttf"
  "SHELL:--preload-file ${font_dejavu}/DejaVuSans-Bold.ttf@${font_dejavu}/DejaVuSans-Bold.ttf"
  "SHELL:--preload-file ${font_mono}/JetBrainsMono-Regular.ttf@${font_mono}/JetBrainsMono-Regular.ttf")
# The assets are packed at link time: a changed preset or lesson links the site again.
file(GLOB_RECURSE bankviz_site_inputs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/assets/*
     ${PROJECT_SOURCE_DIR}/shaders/*)
set_property(TARGET bankviz APPEND PROPERTY LINK_DEPENDS ${bankviz_site_inputs})
# The recorded measurements, gzipped (6.5 MB of JSON -> about 0.65 MB), with their list
# (recorded/index.json): bankviz-page.js fetches and unpacks them before the app starts.
file(GLOB bankviz_recorded_sets CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/assets/recorded/*.json)
add_custom_command(
  OUTPUT ${BANKVIZ_SITE_DIR}/recorded/index.json
  COMMAND ${CMAKE_COMMAND} -DIN_DIR=${PROJECT_SOURCE_DIR}/assets/recorded
          -DOUT_DIR=${BANKVIZ_SITE_DIR}/recorded -P ${PROJECT_SOURCE_DIR}/cmake/gzip_recorded.cmake
  DEPENDS ${bankviz_recorded_sets} ${PROJECT_SOURCE_DIR}/cmake/gzip_recorded.cmake
  COMMENT "gzipping the recorded measurements for the site"
  VERBATIM)
add_custom_target(bankviz_site_recorded DEPENDS ${BANKVIZ_SITE_DIR}/recorded/index.json)
add_dependencies(bankviz bankviz_site_recorded)
# The page itself: copied beside what emcc writes.
foreach(f index.html bankviz-page.js sw.js)
  add_custom_command(TARGET bankviz POST_BUILD
    COMMAND ${CMAKE_COMMAND} -E copy_if_different ${CMAKE_CURRENT_LIST_DIR}/${f}
            ${BANKVIZ_SITE_DIR}/${f}
    VERBATIM)
endforeach()
