#!/bin/bash
# make-carry.sh BUILD_DIR: gathers what the desktop app needs on a GPU host that has the NVIDIA
# driver and CUDA but no Debian packages (no GLFW, no glvnd, no fonts) into BUILD_DIR/carry:
# the stripped app, the shared libraries it loads (glvnd's libEGL/libGL/libGLX/libGLdispatch, GLFW
# and X11 client libraries it is linked against, libstb), the TTF fonts, and run-gpu.sh.
# BUILD_DIR is git-ignored (/build*/), so the folder can travel as a `carry` path. About 7 MiB.
set -euo pipefail
B=${1:?usage: make-carry.sh BUILD_DIR}
C=$B/carry
rm -rf "$C"
mkdir -p "$C/lib" "$C/fonts"
strip -o "$C/bankviz" "$B/app/gui/bankviz"
L=/lib/x86_64-linux-gnu
for l in libglfw.so.3 libEGL.so.1 libGL.so.1 libGLX.so.0 libGLdispatch.so.0 libstb.so.0 \
         libX11.so.6 libxcb.so.1 libXau.so.6 libXdmcp.so.6 libbsd.so.0 libmd.so.0; do
  cp -L "$L/$l" "$C/lib/"
done
F=/usr/share/fonts/truetype
cp "$F/dejavu/DejaVuSans.ttf" "$F/dejavu/DejaVuSans-Bold.ttf" "$F/dejavu/DejaVuSansMono.ttf" "$C/fonts/"
cp "$F/jetbrains-mono/JetBrainsMono-Regular.ttf" "$C/fonts/" 2>/dev/null || true
cp "$(dirname "$0")/run-gpu.sh" "$(dirname "$0")/run-stage.sh" "$(dirname "$0")/gpu-env.sh" "$C/"
du -sh "$C"
