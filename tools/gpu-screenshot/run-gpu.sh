#!/bin/bash
# run-gpu.sh (inside the carry folder made by make-carry.sh; run from the repository root):
# renders the default lesson through EGL on the NVIDIA driver (no X), waits for the real kernel's
# measurement, writes $OUT/gpu.png, then times frames of the largest tile and the default scene
# offscreen on the GPU. Log: $OUT/gpu-run.txt.
C=$(dirname "$0")
. "$C/gpu-env.sh"
{
  echo "## device"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
  echo "EGL vendor file: ${J:-none}"; ldd $C/bankviz | grep "not found"
  echo "## screenshot"
  echo "command: env -u DISPLAY bankviz --no-settings --preset row-write-column-read --screenshot \$OUT/gpu.png"
  env -u DISPLAY $C/bankviz --no-settings --preset row-write-column-read --screenshot "$OUT/gpu.png" 2>&1
  echo "exit $?"
  echo "## frame times, largest tile, offscreen on the GPU"
  env -u DISPLAY $C/bankviz --no-settings --scenario assets/scenes/largest-tile.json --frames 300 --frame-times 2>&1
  echo "## frame times, default scene, offscreen on the GPU"
  env -u DISPLAY $C/bankviz --no-settings --preset row-write-column-read --frames 300 --frame-times 2>&1
} 2>&1 | tee "$OUT/gpu-run.txt"
