#!/usr/bin/env bash
# Measures every case of a suite file with Nsight Compute on the GPU that is present.
# usage: tools/hopper-suite/measure.sh CASES.txt OUTDIR [--atomic]
# Writes OUTDIR/ncu.csv (raw counters) and OUTDIR/launches.txt (launch index -> case name);
# join.py turns them into the measured suite.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cases=$1
out=$2
mkdir -p "$out"
nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -o "$out/probe" "$here/probe.cu"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$out/device.txt"
metrics=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum
if [[ "${3:-}" == "--atomic" ]]; then
  metrics=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,smsp__inst_executed_op_shared_atom.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum
fi
ncu --clock-control none --metrics "$metrics" --csv --log-file "$out/ncu.csv" \
  "$out/probe" "$cases" ${3:-} > "$out/launches.txt"
rm -f "$out/probe"
