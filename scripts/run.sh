#!/usr/bin/env bash
# Quick start: installs what is missing, builds, and starts bankviz on its default lesson.
# With no display it says so and writes a screenshot instead (bankviz-default.png, or a new
# numbered name if that file exists: nothing is overwritten).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --gui
bash scripts/build.sh
build=${BANKVIZ_BUILD_DIR:-build}
app="$build/app/gui/bankviz"
if [[ ! -x "$app" ]]; then
  echo "run: the desktop app was not built (GLFW/ImGui missing?); showing the default lesson in the terminal"
  exec "$build/app/bankviz-cli" analyze
fi
if [[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]]; then
  exec "$app" "$@"
fi
out=bankviz-default.png
n=1
while [[ -e "$out" ]]; do out="bankviz-default-$n.png"; n=$((n + 1)); done
echo "run: no display (DISPLAY is not set): writing a screenshot of the default lesson to $out instead"
exec "$app" --screenshot "$out" "$@"
