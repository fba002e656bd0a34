#!/usr/bin/env bash
# The browser build: bankviz compiled to WebAssembly, a static site in build-web/site/.
# usage: scripts/web.sh            install what is missing, build build-web/site/
#        scripts/web.sh --serve [PORT]   ... then serve it on http://127.0.0.1:PORT/ (8080)
#        scripts/web.sh --test     ... then run the browser tests (headless Chromium)
# Everything comes from Debian's packages: Emscripten, and Dear ImGui's sources from Debian's
# source package of the version the desktop build links (fetched here, never committed);
# the tests' driver (puppeteer-core) from npm's registry, with Debian's chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=build
port=8080
case ${1:-} in
  "") ;;
  --serve) mode=serve; port=${2:-8080} ;;
  --test) mode=test ;;
  *) echo "usage: scripts/web.sh [--serve [PORT] | --test]" >&2; exit 2 ;;
esac
out=build-web
jobs=${BANKVIZ_JOBS:-$(nproc)}

# [1] Packages: Emscripten (with Debian's node), the header-only libraries and the fonts the
# desktop uses, a server (python3) and, for --test, Debian's chromium and npm.
pkgs=(emscripten nodejs python3 nlohmann-json3-dev libcli11-dev libstb-dev fonts-dejavu-core
      fonts-jetbrains-mono dpkg-dev xz-utils ninja-build cmake)
# npm: Debian's package only where no npm is on PATH; an image whose node comes from elsewhere
# (NodeSource's nodejs bundles npm) conflicts with Debian's npm, and apt refuses the pair.
[[ $mode == test ]] && pkgs+=(chromium)
[[ $mode == test ]] && ! command -v npm >/dev/null && pkgs+=(npm)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
SUDO=""
[[ $(id -u) -ne 0 ]] && SUDO=sudo
if ((${#missing[@]})); then
  echo "web.sh: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# [2] Dear ImGui's sources: Debian's source package (deb-src added for bookworm if missing).
imgui_version=1.86
imgui_dir=$out/deps/imgui-$imgui_version
if [[ ! -f $imgui_dir/imgui.cpp ]]; then
  if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ &&
     ! grep -qs '^deb-src' /etc/apt/sources.list; then
    echo "web.sh: adding Debian's source packages (deb-src) for bookworm"
    $SUDO tee /etc/apt/sources.list.d/bankviz-deb-src.sources >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    $SUDO apt-get update -qq
  fi
  mkdir -p "$out/deps"
  (cd "$out/deps" && apt-get source --download-only -qq "imgui=$imgui_version+ds-1" 2>&1 |
     grep -v "unsandboxed" || true)
  tar -C "$out/deps" -xf "$out"/deps/imgui_${imgui_version}+ds.orig.tar.xz
  [[ -f $imgui_dir/imgui.cpp ]] || { echo "web.sh: Debian's imgui source has no imgui.cpp" >&2; exit 1; }
fi

# [3] Build. Debian's emcc runs with Debian's node modules (acorn) on NODE_PATH.
export NODE_PATH=${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs
# Emscripten builds the system libraries it lacks (libc++ with WebAssembly exceptions) into its
# cache once: Debian's, when we may write there, else a copy of it under build-web/.
if [[ -z ${EM_CACHE:-} && ! -w /usr/share/emscripten/cache ]]; then
  [[ -d $out/emcache ]] || cp -r /usr/share/emscripten/cache "$out/emcache"
  export EM_CACHE=$PWD/$out/emcache
fi
if [[ ! -f $out/cmake/CMakeCache.txt ]]; then
  emcmake cmake -S . -B "$out/cmake" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=ON \
    -DIMGUI_SOURCE_DIR="$PWD/$imgui_dir" -DBANKVIZ_SITE_DIR="$PWD/$out/site"
fi
cmake --build "$out/cmake" -j "$jobs" --target bankviz
echo "web.sh: the site is in $out/site ($(du -sh "$out/site" | cut -f1))"

case $mode in
  serve) exec python3 scripts/serve_site.py "$out/site" "$port" ;;
  test) exec bash tests/web/run.sh "$out/site" ;;
esac
