#!/usr/bin/env bash
# An installed bankviz-cli (and bankviz, when built) run from another directory, with no
# BANKVIZ_* variables set, finds the presets and shaders of its own install: installs the build
# into a temporary prefix (cmake --install BUILD --prefix TMP) and runs the installed programs.
# Usage: installed_programs.sh CMAKE BUILD_DIR BUILD_TREE_CLI [--gui [XVFB_RUN]]
set -euo pipefail
cmake=$1 build=$2 build_cli=$3 gui=${4:-} xvfb_run=${5:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
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

# --version: one line, "NAME VERSION".
"$cli" --version >version.txt || fail "bankviz-cli --version failed"
grep -Eq '^bankviz-cli [0-9]+\.[0-9]+\.[0-9]+$' version.txt ||
  fail "bankviz-cli --version: $(cat version.txt)"

# Shell completion: installed where bash-completion and zsh look, and naming every subcommand and
# every flag the program's own help lists (so a new flag without completion fails here).
bash_comp=$tmp/prefix/share/bash-completion/completions/bankviz-cli
zsh_comp=$tmp/prefix/share/zsh/vendor-completions/_bankviz-cli
[[ -f $bash_comp ]] || fail "no bash completion in share/bash-completion/completions"
[[ -f $zsh_comp ]] || fail "no zsh completion in share/zsh/vendor-completions"
bash -n "$bash_comp" || fail "the bash completion is not valid bash"
head -1 "$zsh_comp" | grep -q '^#compdef bankviz-cli$' || fail "the zsh completion has no #compdef"
if command -v zsh >/dev/null; then
  zsh -n "$zsh_comp" || fail "the zsh completion is not valid zsh"
fi
"$cli" --help >help.txt
subcommands=$(sed -n '/^Subcommands:/,$p' help.txt | awk 'NR > 1 && /^  [a-z]/ {print $1}')
[[ $(wc -w <<<"$subcommands") -ge 10 ]] || fail "no subcommands in --help: $(cat help.txt)"
# Matched in bash (as grep -w and grep '\b' would), not with a grep per word: a few hundred
# processes made this test one of the suite's slowest on a loaded machine.
declare -A comp_text
for comp in "$bash_comp" "$zsh_comp"; do
  comp_text[$comp]=$(<"$comp")
done
not_word='[^A-Za-z0-9_]'
for sub in $subcommands; do
  for comp in "$bash_comp" "$zsh_comp"; do
    [[ ${comp_text[$comp]} =~ (^|$not_word)$sub($not_word|$) ]] ||
      fail "$(basename "$comp") lacks the subcommand $sub"
  done
  for flag in $("$cli" "$sub" --help | grep -oE '(^|[ ,])--[a-z][a-z0-9-]*' | tr -d ' ,' | sort -u); do
    for comp in "$bash_comp" "$zsh_comp"; do
      [[ ${comp_text[$comp]} =~ $flag($not_word|$) ]] ||
        fail "$(basename "$comp") lacks $sub's flag $flag"
    done
  done
done

# The bash completion at work (with the installed program): a subcommand, a flag, a preset, a
# lesson and an architecture, each completed from its first letters.
complete_sh=$here/complete.sh
completes() {  # completes WANT WORD...: the completion of WORD... offers WANT
  local want=$1
  shift
  bash "$complete_sh" "$bash_comp" "$cli" "$@" | grep -qx -- "$want" ||
    fail "bash completion of '$*' does not offer $want: $(bash "$complete_sh" "$bash_comp" "$cli" "$@")"
}
completes analyze ana
completes --preset analyze --pre
completes only-in-install analyze --preset only-in
completes data-layout lessons data-l
completes hopper wavefronts --arch hop
completes --no-counters run --no-c

# Man pages, generated from the programs' own --help at build time.
if [[ ${BANKVIZ_MAN_PAGES:-OFF} == ON ]]; then
  # Compressed, as Debian policy wants (gzip -9n: no name or time stamp), and nothing else there.
  gz=$tmp/prefix/share/man/man1/bankviz-cli.1.gz
  [[ -f $gz ]] || fail "no share/man/man1/bankviz-cli.1.gz"
  [[ ! -e ${gz%.gz} ]] || fail "share/man/man1/bankviz-cli.1 is installed uncompressed too"
  gzip -t "$gz" || fail "bankviz-cli.1.gz is not a whole gzip file"
  [[ $(od -An -tu1 -j4 -N4 "$gz" | tr -s ' ') == " 0 0 0 0" ]] ||
    fail "bankviz-cli.1.gz holds a time stamp (not gzip -n)"
  page=man-bankviz-cli.1
  gzip -dc "$gz" >"$page"
  grep -q '^\.TH BANKVIZ-CLI "1"' "$page" || fail "bankviz-cli.1 has no .TH header"
  grep -qF "$(cat version.txt)" "$page" || fail "bankviz-cli.1 is not of this version"
  for sub in $subcommands; do
    grep -qw -- "$sub" "$page" || fail "bankviz-cli.1 lacks the subcommand $sub"
  done
else
  echo "install test: man pages not checked (built without help2man)"
fi

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

  # The desktop's files: a menu entry and an icon, AppStream metadata, each valid.
  id=org.bankviz.bankviz
  desktop=$tmp/prefix/share/applications/$id.desktop
  [[ -f $desktop ]] || fail "no share/applications/$id.desktop"
  [[ -f $tmp/prefix/share/icons/hicolor/scalable/apps/$id.svg ]] || fail "no scalable icon $id.svg"
  grep -qx "Icon=$id" "$desktop" || fail "$id.desktop names another icon"
  grep -qx "Exec=bankviz" "$desktop" || fail "$id.desktop does not run bankviz"
  command -v desktop-file-validate >/dev/null ||
    fail "desktop-file-validate is missing (scripts/install-deps.sh --gui installs it)"
  desktop-file-validate "$desktop" >validate-desktop.txt 2>&1 ||
    fail "desktop-file-validate: $(cat validate-desktop.txt)"
  grep -q 'error' validate-desktop.txt && fail "desktop-file-validate: $(cat validate-desktop.txt)"
  metainfo=$tmp/prefix/share/metainfo/$id.metainfo.xml
  [[ -f $metainfo ]] || fail "no share/metainfo/$id.metainfo.xml"
  command -v appstreamcli >/dev/null ||
    fail "appstreamcli is missing (scripts/install-deps.sh --gui installs it)"
  appstreamcli validate --no-net --pedantic "$metainfo" >validate-appstream.txt 2>&1 ||
    fail "appstreamcli validate: $(cat validate-appstream.txt)"
  grep -qF "<release version=\"$(cut -d' ' -f2 version.txt)\"" "$metainfo" ||
    fail "$id.metainfo.xml does not name this release"
  "$tmp/prefix/bin/bankviz" --version >gui-version.txt || fail "bankviz --version failed"
  grep -Eq '^bankviz [0-9]+\.[0-9]+\.[0-9]+$' gui-version.txt ||
    fail "bankviz --version: $(cat gui-version.txt)"
  if [[ ${BANKVIZ_MAN_PAGES:-OFF} == ON ]]; then
    gzip -dc "$tmp/prefix/share/man/man1/bankviz.1.gz" 2>/dev/null | grep -q '^\.TH BANKVIZ "1"' ||
      fail "no share/man/man1/bankviz.1.gz"
  fi
fi
echo "install test: bankviz-cli${gui:+ and bankviz} ran from $tmp/prefix"
