#!/bin/bash
# The device run of the atomics sweep (issue 19, ATOMS.CAS): run.sh OUTDIR. Needs nvcc, cuobjdump and ncu.
# One single-warp launch per case of gen.py, Nsight Compute's counters per launch (kernel replay).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$1
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/DEVICE.txt"
ncu --version | tail -1 | tee -a "$out/DEVICE.txt"
nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -o /tmp/atoms "$here/atoms.cu" || exit 1
cuobjdump -sass /tmp/atoms | grep -E "ATOMS|Function|CAS|LDS|BRA|BSSY|BSYNC" > "$out/atoms.sass"
python3 "$here/gen.py" /tmp/atoms_cases.txt
ncu --query-metrics --chip gh100 > /tmp/q.txt 2>&1 || ncu --query-metrics > /tmp/q.txt 2>&1
want="l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum
smsp__inst_executed_op_shared_atom.sum smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom.sum
smsp__sass_inst_executed_op_shared_atom.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
smsp__inst_executed_op_shared_ld.sum smsp__inst_executed_op_shared_st.sum"
m=""
for x in $want; do grep -q "^${x%.sum} " /tmp/q.txt && m="$m${m:+,}$x" || echo "no metric $x" | tee -a "$out/DEVICE.txt"; done
[[ -n $m ]] || m=$(echo $want | tr " " ",")
echo "metrics: $m" | tee -a "$out/DEVICE.txt"
t0=$(date +%s)
timeout "${ATOMS_TIMEOUT:-170}" ncu --clock-control none --cache-control none -k regex:^k_atom --metrics "$m" --csv \
  --log-file "$out/atoms.csv" /tmp/atoms /tmp/atoms_cases.txt > "$out/atoms.launch" 2> "$out/atoms.err"
echo "atoms rc=$? $(grep -c ^case "$out/atoms.launch") launches $(( $(date +%s) - t0 )) s" | tee -a "$out/DEVICE.txt"
