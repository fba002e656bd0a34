#!/usr/bin/env bash
# Lists every function in core/ and kernels/ longer than 150 lines (issue 19: "no function in core/
# or kernels/ longer than 150 lines") and exits 1 if there is one. Universal Ctags finds the
# functions and their last lines (scripts/install-deps.sh --lint installs it); .ci/run runs this
# first. A lambda is part of the function that holds it.
# usage: scripts/function-length.sh [MAX]   (default 150)
set -euo pipefail
cd "$(dirname "$0")/.."
max=${1:-150}
if ! ctags --version 2>/dev/null | grep -q "Universal Ctags"; then
  echo "function-length: Universal Ctags is missing: scripts/install-deps.sh --lint" >&2
  exit 2
fi
# Sources only: the emulation headers the CPU recording compiles with a user's kernel
# (kernels/record/) are not bankviz's own functions.
list() {
  git ls-files 'core/*.cpp' 'core/*.h' 'kernels/*.cpp' 'kernels/*.h' 2>/dev/null ||
    find core kernels -name '*.cpp' -o -name '*.h'
}
mapfile -t files < <(list | grep -v '^kernels/record/' | sort)
long=$(ctags --languages=C++ --c++-kinds=f --fields=+ne -o - "${files[@]}" \
  | perl -ne 'my @f = split /\t/; my ($l) = /\tline:(\d+)/; my ($e) = /\tend:(\d+)/;
              print $e - $l + 1, " lines: $f[1]:$l $f[0]\n" if $l && $e && $e - $l + 1 > '"$max" \
  | sort -rn)
n=$(printf '%s' "$long" | grep -c . || true)
if ((n > 0)); then
  echo "function-length: $n functions longer than $max lines in core/ and kernels/:"
  echo "$long"
  exit 1
fi
echo "function-length: every function of the ${#files[@]} files of core/ and kernels/ is at most $max lines"
