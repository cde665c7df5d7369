#!/bin/sh
# Search time and states evaluated of --autoschedule-beam per pipeline (PERF.md table).
# Usage: bench/pipelines/time_search.sh <rtile-opt> <options> <timeout-s> [pipelines...]
# Prints: pipeline, wall seconds of the pass (--mlir-timing), CPU seconds of the whole
# rtile-opt run (user + sys: parse and print included), states evaluated, kernels.
opt=$1; opts=$2; limit=$3; shift 3
for p in "$@"; do
  out=$( { /usr/bin/time -f "cpu %U %S" timeout "$limit" "$opt" "$p" \
        --autoschedule-beam="$opts" --mlir-timing --mlir-pass-statistics -o /dev/null; } 2>&1)
  if echo "$out" | grep -q "Command exited with non-zero status"; then
    echo "$(basename "$p" .mlir) timeout(>${limit}s)"
    continue
  fi
  t=$(echo "$out" | grep -i "AutoscheduleBeam" | grep -Eo "[0-9]+\.[0-9]+" | head -1)
  c=$(echo "$out" | grep "^cpu" | awk '{printf "%.3f", $2 + $3}')
  s=$(echo "$out" | grep "states-evaluated" | awk '{print $2}')
  k=$(echo "$out" | grep "kernels " | awk '{print $2}')
  echo "$(basename "$p" .mlir) $t $c $s $k"
done
