#!/usr/bin/env bash
# cpack -G DEB builds a package of the build; its contents are checked (programs, data, desktop
# entry, icon, metainfo, man pages, completion), its control file names Debian dependencies and no
# BANKVIZ paths, and the unpacked bankviz-cli runs (from the package's own share/bankviz).
# The CUDA toolkit's and the driver's libraries are no Debian packages: Depends names none, and
# no program of the package needs one to start (NVRTC, libcuda and CUPTI are opened at run time),
# so a package built with CUDA installs and runs on any Debian 12 machine; every Depends is a
# package apt knows (where apt's lists are present); the unpacked app draws a screenshot.
# Usage: debian_package.sh CPACK BUILD_DIR MAN_PAGES(ON|OFF) GUI(1|0) [XVFB_RUN]
set -euo pipefail
cpack=$1 build=$2 man=$3 gui=$4 xvfb_run=${5:-}
fail() {
  echo "package test: $*" >&2
  exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/out" >"$tmp/cpack.log" 2>&1 ||
  fail "cpack -G DEB failed: $(cat "$tmp/cpack.log")"
debs=("$tmp"/out/bankviz_*.deb)
[[ -f ${debs[0]} ]] || fail "no bankviz_*.deb: $(ls "$tmp/out")"
deb=${debs[0]}

dpkg-deb --contents "$deb" | awk '{print $6}' | sed 's|^\./|/|' >"$tmp/contents"
want=(/usr/bin/bankviz-cli /usr/share/bankviz/assets/presets/row-write-column-read.json
      /usr/share/bankviz/suites/hopper/atomic.txt
      /usr/share/bash-completion/completions/bankviz-cli /usr/share/zsh/vendor-completions/_bankviz-cli)
[[ $man == ON ]] && want+=(/usr/share/man/man1/bankviz-cli.1.gz)
if [[ $gui == 1 ]]; then
  want+=(/usr/bin/bankviz /usr/share/bankviz/shaders/cells.frag
         /usr/share/applications/org.bankviz.bankviz.desktop
         /usr/share/icons/hicolor/scalable/apps/org.bankviz.bankviz.svg
         /usr/share/metainfo/org.bankviz.bankviz.metainfo.xml)
  [[ $man == ON ]] && want+=(/usr/share/man/man1/bankviz.1.gz)
fi
for f in "${want[@]}"; do
  grep -qx -- "$f" "$tmp/contents" || fail "the package lacks $f"
done
# Nothing of the build machine: no build tree, no /usr/local.
grep -E '^/usr/local|/build/' "$tmp/contents" && fail "the package holds build-machine paths"

dpkg-deb --field "$deb" Package Version Architecture Depends >"$tmp/control"
grep -qx 'Package: bankviz' "$tmp/control" || fail "not package bankviz: $(cat "$tmp/control")"
grep -q '^Depends: .*libc6' "$tmp/control" || fail "no Debian dependencies: $(cat "$tmp/control")"
if [[ $gui == 1 ]]; then
  grep -q '^Depends: .*libglfw3' "$tmp/control" || fail "the app's libglfw3 is not a dependency"
  # The fonts the app reads by path (theme.cpp): no shared library, so no shlibdeps.
  grep -q '^Depends: .*fonts-dejavu-core' "$tmp/control" ||
    fail "the app's font (fonts-dejavu-core) is not a dependency"
fi

grep -Eiq '^Depends: .*(nvrtc|libcuda|cupti|cudart)' "$tmp/control" &&
  fail "Depends names a CUDA library, which no Debian 12 machine can install: $(cat "$tmp/control")"
# One apt-cache for all of them (each call reads apt's whole cache: seconds apiece).
depends=$(sed -n 's/^Depends: //p' "$tmp/control" | tr ',|' '\n\n' | sed 's/(.*//; s/ //g')
if command -v apt-cache >/dev/null && apt-cache show libc6 >/dev/null 2>&1; then
  # shellcheck disable=SC2086 # one word per package name
  known=$(apt-cache show --no-all-versions $depends 2>/dev/null | sed -n 's/^Package: //p')
  for d in $depends; do
    grep -qx -- "$d" <<<"$known" || fail "Depends: $d is no package apt knows"
  done
else
  echo "package test: apt's package lists are absent: the Depends were not looked up" >&2
fi

# Unpacked anywhere, the program finds its own data (share/bankviz beside bin/).
dpkg-deb -x "$deb" "$tmp/root"
unset BANKVIZ_ASSETS BANKVIZ_DATA_DIR
cd "$tmp"
"$tmp/root/usr/bin/bankviz-cli" --version | grep -q '^bankviz-cli ' || fail "--version failed"
"$tmp/root/usr/bin/bankviz-cli" analyze --preset row-write-column-read --no-pictures >out.txt ||
  fail "the packaged bankviz-cli failed: $(cat out.txt)"
grep -q 'row-write-column-read' out.txt || fail "the packaged analyze printed: $(cat out.txt)"
# No program links a CUDA library: each starts where the toolkit and the driver are absent.
for p in "$tmp"/root/usr/bin/*; do
  if readelf -d "$p" | grep -Ei 'NEEDED.*(nvrtc|libcuda|cupti|cudart)'; then
    fail "$(basename "$p") needs a CUDA library to start"
  fi
done
if [[ $gui == 1 ]]; then
  run=("$tmp/root/usr/bin/bankviz" --preset row-write-column-read --screenshot "$tmp/shot.png")
  if [[ -n $xvfb_run ]]; then
    "$xvfb_run" -a -s "-screen 0 1600x1000x24" "${run[@]}" >gui.log 2>&1 ||
      fail "the packaged bankviz failed: $(cat gui.log)"
  else
    "${run[@]}" --egl >gui.log 2>&1 || fail "the packaged bankviz failed: $(cat gui.log)"
  fi
  [[ -s $tmp/shot.png ]] || fail "the packaged bankviz wrote no screenshot: $(cat gui.log)"
fi
echo "package test: $(basename "$deb"): $(grep '^Depends' "$tmp/control")"
