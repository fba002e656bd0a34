#!/bin/bash
# semantics_check.sh: the GPU agrees with the model's CUDA C semantics (issue 7). Every scenario in
# tests/data/semantics runs through `bankviz-cli run` in both modes on the present GPU; the
# generated kernel pastes the same expression text the model evaluated, and the run compares every
# thread's loaded sum with the CPU reference (built from the same trace). A file named *race*
# must report a race (the hazard model's racing lanes are left out of the comparison); every
# other file must verify. Prints one line per run and a closing "N passed, M failed".
set -u
CLI=${CLI:-build-dev/app/bankviz-cli}
cd "$(dirname "$0")/../.."
pass=0 fail=0
for f in tests/data/semantics/*.json; do
  name=$(basename "$f" .json)
  want=verified
  case "$name" in *race*) want=race ;; esac
  for mode in written exposed; do
    got=$("$CLI" run --file "$f" --mode "$mode" 2>&1 | grep -E '^check: ' | head -1)
    status=$(echo "$got" | sed -E 's/^check: ([a-z ]+):.*/\1/')
    if [ "$status" = "$want" ]; then ok=PASS; pass=$((pass + 1)); else ok=FAIL; fail=$((fail + 1)); fi
    printf '%-28s %-8s %s  %s\n' "$name" "$mode" "$ok" "$got"
  done
done
echo "semantics: $pass passed, $fail failed"
