#!/bin/sh
# Welder's ablation (issue 14; paper Fig. 13) measured by the simulator's counters: for each
# workload and connect level (none = Welder-none, register = Welder-base, shared = Welder),
# `rtile-opt --connect --lower-to-gpu`, then `rtile-run --sim --profile`; prints the kernels
# launched, the 32-byte global-memory sectors its loads and stores requested (summed over
# kernels; every re-read counts, as if there were no cache) and the distinct sectors read
# and written per kernel, summed (DRAM traffic when the L2 holds each kernel's footprint,
# as it does at these sizes: what the paper's Fig. 13 counts with nvprof).
# Usage: bench/sim/welder_ablation.sh [bin dir, default target/debug] [workload.mlir ...]
set -eu
bin=${1:-target/debug}
shift $(( $# > 0 ? 1 : 0 ))
[ $# -gt 0 ] || set -- bench/models/welder/bert-layer-sim.mlir bench/models/welder/mobilenet-block-sim.mlir
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '| workload | level | kernels | sectors read | sectors written | total | distinct read | distinct written | distinct total |\n|---|---|---|---|---|---|---|---|---|\n'
for w in "$@"; do
  for level in none register shared; do
    "$bin/rtile-opt" "$w" --connect="device=v100 connect-level=$level" --lower-to-gpu -o "$tmp/l.mlir"
    "$bin/rtile-run" --sim --profile "$tmp/l.mlir" > "$tmp/p.txt"
    awk -v w="$(basename "$w" .mlir)" -v l="$level" '
      /^@[^ ]*: grid/ { k++ }
      /^  global loads/ { for (i = 1; i < NF; i++) if ($i == "sectors") { r += $(i + 1); break } }
      /^  global stores/ { for (i = 1; i < NF; i++) if ($i == "sectors") { s += $(i + 1); break } }
      /^  distinct global sectors/ { ur += $5; uw += $7 }
      END { printf "| %s | %s | %d | %d | %d | %d | %d | %d | %d |\n", w, l, k, r, s, r + s, ur, uw, ur + uw }' "$tmp/p.txt"
  done
done
