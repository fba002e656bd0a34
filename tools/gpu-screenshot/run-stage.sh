#!/bin/bash
# run-stage.sh (inside the carry folder made by make-carry.sh; run from the repository root): the
# GPU on stage. Renders, through EGL on the NVIDIA driver, what a class sees in presenter mode with
# the real kernel measured: a lesson scene before and after its reveal, and the before/after
# comparison (both sides measured), at 1280x720 and 1920x1080. Each screenshot's --dump-layout
# texts are appended to the log, so the measured lines can be read without the pictures.
# Writes $OUT/stage-*.png and $OUT/stage-run.txt.
C=$(dirname "$0")
. "$C/gpu-env.sh"
shot() {  # NAME ARGS...
  local name=$1; shift
  echo "## $name: bankviz $*"
  env -u DISPLAY $C/bankviz --no-settings "$@" --screenshot "$OUT/$name.png" \
    --dump-layout "/tmp/$name.json" --force 2>&1
  echo "exit $?"
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('texts:'); [print('  ', t) for t in d['texts']]; print('cells', d['tile']['cell'], d['banks']['cell'], 'lane', round(d['lane_digit_px'],1), 'counts', round(d['bank_count_px'],1))" "/tmp/$name.json" 2>&1
}
{
  echo "## device"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
  shot stage-ask-720 --presenter --lesson data-layout --scene 3 --size 1280x720
  shot stage-told-720 --presenter --lesson data-layout --scene 3 --reveal --size 1280x720
  shot stage-told-1080 --presenter --lesson data-layout --scene 6 --reveal --size 1920x1080
  shot stage-compare-720 --presenter --compare row-write-column-read row-write-column-read-padded --size 1280x720
  shot stage-compare-1080 --presenter --compare kepler-filter-float2-4byte kepler-filter-float --size 1920x1080
  shot desk-1280x800 --preset row-write-column-read --size 1280x800
  shot desk-compiled --preset matmul-tile32 --size 1600x1000
} 2>&1 | tee "$OUT/stage-run.txt"
