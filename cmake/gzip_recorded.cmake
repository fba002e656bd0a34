# gzip_recorded.cmake: the recorded measurements (assets/recorded/*.json, app/shared/recorded.h)
# for the browser's site, gzipped (about a tenth of their size) with their list in index.json;
# the page unpacks them with the browser's own DecompressionStream (app/web/bankviz-page.js)
# where the app reads them. Run by app/web/site.cmake:
#   cmake -DIN_DIR=assets/recorded -DOUT_DIR=site/recorded -P gzip_recorded.cmake
file(GLOB sets RELATIVE ${IN_DIR} ${IN_DIR}/*.json)
list(SORT sets)
file(REMOVE_RECURSE ${OUT_DIR})
file(MAKE_DIRECTORY ${OUT_DIR})
set(names "")
foreach(set ${sets})
  file(ARCHIVE_CREATE OUTPUT ${OUT_DIR}/${set}.gz PATHS ${IN_DIR}/${set} FORMAT raw
       COMPRESSION GZip COMPRESSION_LEVEL 9)
  list(APPEND names "\"${set}\"")
endforeach()
list(JOIN names ", " joined)
file(WRITE ${OUT_DIR}/index.json "[${joined}]\n")
