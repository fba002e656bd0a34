#!/usr/bin/env bash
# An installed bankviz-cli (and bankviz, when built) run from another directory, with no
# BANKVIZ_* variables set, finds the presets and shaders of its own install: installs the build
# into a temporary prefix (cmake --install BUILD --prefix TMP) and runs the installed programs.
# Usage: installed_programs.sh CMAKE BUILD_DIR BUILD_TREE_CLI [--gui [XVFB_RUN]]
set -euo pipefail
cmake=$1 build=$2 build_cli=$3 gui=${4:-} xvfb_run=${5:-}
fail() {
  echo "install test: $*" >&2
  exit 1
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$cmake" --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" ||
  fail "cmake --install failed: $(cat "$tmp/install.log")"
unset BANKVIZ_ASSETS BANKVIZ_DATA_DIR
cli=$tmp/prefix/bin/bankviz-cli
data=$tmp/prefix/share/bankviz
[[ -x $cli ]] || fail "no bin/bankviz-cli in the install"
[[ -f $data/assets/presets/row-write-column-read.json ]] || fail "no presets in share/bankviz/assets"

# A preset only the install has: seeing it proves the program reads its install, not the
# source tree it was built from.
cp "$data/assets/presets/row-write-column-read.json" "$data/assets/presets/only-in-install.json"
mkdir "$tmp/elsewhere"
cd "$tmp/elsewhere"

"$cli" presets >presets.txt || fail "bankviz-cli presets failed"
grep -q '^only-in-install\b' presets.txt || fail "presets does not list the install's presets:
$(cat presets.txt)"
"$cli" analyze --preset row-write-column-read >installed.txt ||
  fail "analyze --preset row-write-column-read failed"
"$build_cli" analyze --preset row-write-column-read >build-tree.txt
cmp -s installed.txt build-tree.txt || fail "the installed analyze differs from the build tree's"
"$cli" analyze --preset only-in-install --no-pictures >/dev/null ||
  fail "analyze --preset only-in-install failed"

# validate's suites come with the install (share/bankviz/suites/hopper): without a GPU it gets as
# far as the counters (exit 1, "cannot validate on this machine"), on one it runs them.
[[ -f $data/suites/hopper/atomic.txt && -f $data/suites/hopper/atomic.expected ]] ||
  fail "no suites in share/bankviz/suites/hopper"
status=0
"$cli" validate --suite atomic >validate.txt 2>&1 || status=$?
grep -q 'no suites directory' validate.txt && fail "the installed validate finds no suites"
[[ $status -le 1 ]] || fail "the installed validate failed: $(cat validate.txt)"

if [[ $gui == --gui ]]; then
  [[ -x $tmp/prefix/bin/bankviz ]] || fail "no bin/bankviz in the install"
  [[ -f $data/shaders/cells.vert && -f $data/shaders/cells.frag ]] ||
    fail "no shaders in share/bankviz/shaders"
  # The shaders and the preset both come from data_dir(): a picture of the install-only preset
  # needs both from the install.
  run=("$tmp/prefix/bin/bankviz" --preset only-in-install --screenshot shot.png)
  if [[ -n $xvfb_run ]]; then
    "$xvfb_run" -a -s "-screen 0 1600x1000x24" "${run[@]}" >gui.log 2>&1 ||
      fail "the installed bankviz failed: $(cat gui.log)"
  else
    "${run[@]}" --egl >gui.log 2>&1 || fail "the installed bankviz failed: $(cat gui.log)"
  fi
  [[ $(head -c 8 shot.png | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] ||
    fail "the installed bankviz wrote no PNG"
fi
echo "install test: bankviz-cli${gui:+ and bankviz} ran from $tmp/prefix"
