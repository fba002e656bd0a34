#!/bin/bash
# truth's device batch (issue 30, 2026-11-29 ~18:55): fresh30d (written before measuring) with
# tools/truth30/measure.sh, the GPU tests of item 2, and Nsight Compute's source counters of the
# nvcc -O3 -lineinfo build beside profile's.
set -u
R=$OUT; D=.dev/truth; T0=$(date +%s)
export LD_LIBRARY_PATH=$PWD/$D:${LD_LIBRARY_PATH:-} PATH=/usr/local/cuda/bin:$PATH
el() { echo "$1 $(( $(date +%s) - T0 ))s" | tee -a $R/batch.log; }
# The tests' compiled-in paths (/work/wt-truth/...), and this branch's new data.
mkdir -p /work; [ -e /work/wt-truth ] || ln -s "$PWD" /work/wt-truth
mkdir -p build/app && cp $D/bankviz-cli build/app/
cp -r $D/data/fresh30d tests/data/ && cp $D/data/profile/idle_lanes.cu tests/data/profile/
{ nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv; nvcc --version | tail -2;
  g++ --version | head -1; ncu --version | tail -1; date -u; } > $R/device.txt 2>&1
cat $R/device.txt
# 1. fresh30d: scenarios (written, exposed) and kernels (GPU and CPU recording), one pass.
M=/tmp/m; mkdir -p $M
OUT=$M D=$D KERN=tests/data/fresh30d SCEN=tests/data/fresh30d/scen PROBE=/nonexistent.cu \
  timeout 300 bash tools/truth30/measure.sh > $R/measure.log 2>&1
el "measure rc=$?"
if [ -f $M/all.tgz ]; then cp $M/all.tgz $R/m.tgz; else (cd $M && tar czf $R/m.tgz .); fi
# 2. GPU tests of item 2 (and profile's).
timeout 100 $D/kernel_tests --gtest_filter='Nvcc*:ProfileOnGpu*' > $R/kt.txt 2>&1; el "kernel_tests rc=$?"
timeout 200 $D/cli_tests --gtest_filter='ProfileCli.*' > $R/ct.txt 2>&1; el "cli_tests rc=$?"
# 3. Nsight Compute's source counters for each fresh30d kernel (bankviz-cli profile --no-counters
#    launches it as profile does; the first launch is captured), then its source page as CSV.
mkdir -p /tmp/n
left=$(( 520 - ($(date +%s) - T0) ))
el "ncu gets ${left}s"
timeout $left bash -c '
grep -v "^#" tests/data/fresh30d/cases.txt | while read tag file kernel block shared args; do
  a=(); for x in $args; do a+=(--arg $x); done
  ncu --section SourceCounters --launch-count 1 -k regex:^$kernel -f -o /tmp/n/$kernel \
    '$D'/bankviz-cli profile tests/data/fresh30d/$file --kernel $kernel --block $block --shared $shared "${a[@]}" --no-counters > /tmp/n/$kernel.log 2>&1
  ncu -i /tmp/n/$kernel.ncu-rep --page source --csv --print-source sass > /tmp/n/$kernel.csv 2>&1
  echo "$kernel $(wc -l < /tmp/n/$kernel.csv)"
done' > $R/ncu.log 2>&1
el "ncu rc=$?"
(cd /tmp && tar czf $R/n.tgz n/*.csv n/*.log) 2>/dev/null
ls -la $R
