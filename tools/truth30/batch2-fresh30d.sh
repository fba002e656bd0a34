#!/bin/bash
# truth's second, short device call (issue 30, ~19:10): fresh30d's written steps with the fixed
# binary (written mode back on NVRTC), its kernels' GPU route (header lines at their call site) and,
# beside them on the CPU cores, the CPU route; no exposed runs (measured in the first call).
set -u
R=$OUT; D=.dev/truth; T0=$(date +%s); CLI=$D/bankviz-cli
export LD_LIBRARY_PATH=$PWD/$D:${LD_LIBRARY_PATH:-} PATH=/usr/local/cuda/bin:$PATH
K=$D/data/fresh30d; M=/tmp/m; mkdir -p $M/w $M/k $M/e
while read tag file kernel block shared args; do
  a=(); for x in $args; do a+=(--arg $x); done
  ( timeout 60 $CLI profile $K/$file --kernel "$kernel" --grid 1 --block $block --shared $shared "${a[@]}" --record --json > $M/k/$kernel.cpu.json 2> $M/k/$kernel.cpu.err ) &
done < <(grep -v '^#' $K/cases.txt)
for f in $K/scen/*.json; do
  n=$(basename $f .json)
  timeout 30 $CLI run --mode written --steps --json --file $f > $M/w/$n.json 2> $M/w/$n.err
done
echo "written $(( $(date +%s) - T0 ))s" | tee $R/batch.log
grep -v '^#' $K/cases.txt | while read tag file kernel block shared args; do
  a=(); for x in $args; do a+=(--arg $x); done
  timeout 30 $CLI profile $K/$file --kernel "$kernel" --grid 1 --block $block --shared $shared "${a[@]}" --record-gpu --json > $M/k/$kernel.gpu.json 2> $M/k/$kernel.gpu.err
done
echo "gpu $(( $(date +%s) - T0 ))s" | tee -a $R/batch.log
wait
echo "all $(( $(date +%s) - T0 ))s" | tee -a $R/batch.log
(cd $M && tar czf $R/m2.tgz w k)
