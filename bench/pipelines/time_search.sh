#!/bin/sh
# Search time and states evaluated of --autoschedule-beam per pipeline (PERF.md table).
# Usage: bench/pipelines/time_search.sh <rtile-opt> <options> <timeout-s> [pipelines...]
# Prints: pipeline, wall seconds of the pass (--mlir-timing), states evaluated, kernels.
opt=$1; opts=$2; limit=$3; shift 3
for p in "$@"; do
  out=$(timeout "$limit" "$opt" "$p" --autoschedule-beam="$opts" --mlir-timing \
        --mlir-pass-statistics -o /dev/null 2>&1)
  if [ $? -ne 0 ]; then
    echo "$(basename "$p" .mlir) timeout(>${limit}s)"
    continue
  fi
  t=$(echo "$out" | grep -i "AutoscheduleBeam" | grep -Eo "[0-9]+\.[0-9]+" | head -1)
  s=$(echo "$out" | grep "states-evaluated" | awk '{print $2}')
  k=$(echo "$out" | grep "kernels " | awk '{print $2}')
  echo "$(basename "$p" .mlir) $t $s $k"
done
