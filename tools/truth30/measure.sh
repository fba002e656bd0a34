#!/bin/bash
# measure.sh: issue 30's measurements in one device call (run from the checkout's root with the
# binaries and data in $D): the dynamic shared memory's base, every scenario of tests/data/scen30
# in written mode step by step (hardware beside the model as compiled) and in exposed mode, their
# SASS listings, and the kernels of tests/data/truth30 profiled with the GPU and the CPU recording.
set -u
D=${D:-.dev/truth}
OUT=${OUT:-/tmp/truth-out}
CLI=$D/bankviz-cli
SCEN=${SCEN:-$D/scen30}   # the scenarios (tests/data/scen30, tests/data/fresh30/scen)
KERN=${KERN:-$D/truth30}  # the kernels and their cases.txt (tests/data/truth30, tests/data/fresh30)
PROBE=${PROBE:-$D/dynbase.cu}
ONLY=${ONLY:-all}          # "kernels": the kernels alone (no probe, no scenarios)
export LD_LIBRARY_PATH=$D:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p $OUT/w $OUT/e $OUT/sass $OUT/k
{ nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv; date -u; } > $OUT/device.txt 2>&1
cat $OUT/device.txt
[ $ONLY = kernels ] || { nvcc -arch=sm_90 -o /tmp/dynbase $PROBE > $OUT/dynbase.txt 2>&1 && /tmp/dynbase >> $OUT/dynbase.txt 2>&1; }; touch $OUT/dynbase.txt
cat $OUT/dynbase.txt
T0=$(date +%s)
for f in $( [ $ONLY = kernels ] || ls $SCEN/*.json); do
  n=$(basename $f .json)
  rm -f /tmp/$n.cubin; $CLI source --file $f --cubin /tmp/$n.cubin --force > /dev/null 2> $OUT/sass/$n.err && nvdisasm -gi -c /tmp/$n.cubin > $OUT/sass/$n.sass 2>> $OUT/sass/$n.err
  timeout 45 $CLI run --mode written --steps --json --file $f > $OUT/w/$n.json 2> $OUT/w/$n.err
  echo "$n written rc=$? $(( $(date +%s) - T0 ))s"
done
grep -v '^#' $KERN/cases.txt | while read tag file kernel block shared args; do
  a=(); for x in $args; do a+=(--arg $x); done
  k=$(echo $kernel | tr -c 'A-Za-z0-9_\n' '_')
  timeout 45 $CLI profile $KERN/$file --kernel "$kernel" --grid 1 --block $block --shared $shared "${a[@]}" --record-gpu --json > $OUT/k/$k.gpu.json 2> $OUT/k/$k.gpu.err
  timeout 45 $CLI profile $KERN/$file --kernel "$kernel" --grid 1 --block $block --shared $shared "${a[@]}" --record --json > $OUT/k/$k.cpu.json 2> $OUT/k/$k.cpu.err
  echo "$kernel profiled $(( $(date +%s) - T0 ))s"
done
for f in $( [ $ONLY = kernels ] || ls $SCEN/*.json); do
  n=$(basename $f .json)
  timeout 45 $CLI run --mode exposed --json --file $f > $OUT/e/$n.json 2> $OUT/e/$n.err
  echo "$n exposed rc=$? $(( $(date +%s) - T0 ))s"
done
# The outputs as one archive (the device returns a limited number of files).
cd $OUT && tar czf /tmp/truth-all.tgz device.txt dynbase.txt w e sass k && rm -rf w e sass k && mv /tmp/truth-all.tgz $OUT/all.tgz
ls -la $OUT
