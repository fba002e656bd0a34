# gpu-env.sh (sourced by run-gpu.sh and run-stage.sh, inside the carry folder; run from the
# repository root): the carried libraries, CUDA and the driver on the loader's path, glvnd pointed
# at NVIDIA's EGL vendor file, the data and font folders, and $OUT. Sets C to the carry folder.
C=${C:-$(dirname "${BASH_SOURCE[0]}")}
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/$C/lib:/usr/local/cuda/lib64:/usr/local/cuda/lib:/usr/local/nvidia/lib64:/usr/local/nvidia/lib:${LD_LIBRARY_PATH:-}
J=$(ls /usr/local/nvidia/share/glvnd/egl_vendor.d/*.json /usr/share/glvnd/egl_vendor.d/*nvidia*.json 2>/dev/null | head -1)
[ -n "$J" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$J
export BANKVIZ_DATA_DIR=$PWD BANKVIZ_FONT_DIR=$PWD/$C/fonts
