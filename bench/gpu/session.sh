#!/usr/bin/env bash
# Every GPU measurement of issues 14-17 in one command, for
# a lent GPU machine with PyTorch but no Rust or LLVM. Build here first (bench/gpu/pack.sh
# writes gpu-carry/bundle.tar.xz: stripped rtile-run and rtile-run-cuda, and the PTX, kernel
# manifests and model launch sequences); carry gpu-carry there and run
#   bench/gpu/session.sh [out-dir]
# Each part has its own time limit, so one that hangs costs only its share; the results
# (markdown tables, JSON, logs) land in out-dir (default target/gpu-out), packed after every
# part into $OUT/results.tgz when $OUT is set (the device tool brings back few files).
set -u -o pipefail
out=${1:-target/gpu-out}
mkdir -p "$out"
pack() { [ -n "${OUT:-}" ] && tar czf "$OUT/results.tgz" -C "$out" . 2>/dev/null; }
export PYTHONUNBUFFERED=1
g=/tmp/rtile-gpu
rm -rf "$g" && mkdir -p "$g" && tar xJf gpu-carry/bundle.tar.xz -C "$g" || exit 1
bin=$g/bin
log=$out/session.log
note() { echo "== $(date +%T) $*" | tee -a "$log"; }

note "device"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv | tee -a "$log"
# Smoke test: if the binary cannot run a kernel here, stop before spending the lease.
if ! timeout 60 "$bin/rtile-run-cuda" --profile-device "$out/device.toml" 2>&1 | tee -a "$log"; then
  note "rtile-run-cuda cannot run here; stopping"; exit 1
fi

# The whole script ends within DEADLINE_S seconds (the device call's limit, less a margin):
# each part gets its own limit or what is left, whichever is less.
deadline=${DEADLINE_S:-540}
# ONLY="name ..." runs just those parts (a short follow-up call).
part() { # name, seconds, command...
  local name=$1 secs=$2; shift 2
  if [ -n "${ONLY:-}" ] && ! [[ " $ONLY " == *" $name "* ]]; then return; fi
  local left=$((deadline - SECONDS - 5))
  [ "$left" -lt "$secs" ] && secs=$left
  if [ "$secs" -le 5 ]; then note "$name: skipped, out of time"; return; fi
  note "$name (limit ${secs} s)"
  timeout "$secs" "$@" > "$out/$name.txt" 2> "$out/$name.err"
  note "$name: exit $? ($(tail -c 300 "$out/$name.err" | tr '\n' ' ' | tail -c 200))"
  pack
}

# Issue 16: the sm_90a wgmma + TMA kernels first (never run on hardware before). Small
# explicit programs against the naive reference kernel, one under compute-sanitizer too;
# then the constructed programs of the large suites, checked and timed against cuBLAS
# (torch.matmul), warp-specialised (the default); ncu on the largest where it falls short.
part wgx 30 python3 bench/gpu/bench.py --suite bench/ops/tensor-core-wgmma-explicit.mlir --ptx-dir "$g/wgx" \
  --bin "$bin" --no-torch --iters 10 --markdown "$out/wgx.md" --json "$out/wgx.json"
part sanitize-wgx 25 compute-sanitizer --tool memcheck --error-exitcode 3 "$bin/rtile-run-cuda" "$g/wgx/pv.ptx" \
  --reference "$g/wgx/pv.naive.ptx" --rtol 2e-3 --atol 1e-3
# Explicit block and warpgroup tiles on the same square sizes (which shape approaches cuBLAS).
# The 8192^3 ones take ~10 s each (the naive reference check dominates): on the H200 the
# 70 s and 100 s limits of session 14 stopped tcsqwg after two ops and wgtiles after eight.
part wgtiles 140 python3 bench/gpu/bench.py --suite bench/ops/tensor-core-wgmma-tiles.mlir --ptx-dir "$g/wgtiles" \
  --bin "$bin" --iters 20 --markdown "$out/wgtiles.md" --json "$out/wgtiles.json"
part tcsqwg 110 python3 bench/gpu/bench.py --suite bench/ops/tensor-core-square.mlir --ptx-dir "$g/tcsqwg" --bin "$bin" \
  --top-k --iters 20 --markdown "$out/tcsqwg.md" --json "$out/tcsqwg.json"
part tcwg 50 python3 bench/gpu/bench.py --suite bench/ops/tensor-core-f16.mlir --ptx-dir "$g/tcwg" --bin "$bin" \
  --top-k --iters 30 --markdown "$out/tcwg.md" --json "$out/tcwg.json"
# Where the largest one spends its time (speed of light, occupancy, pipe use).
part ncu-wgmma 40 ncu --clock-control none --launch-count 1 --section SpeedOfLight --section Occupancy \
  --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
  "$bin/rtile-run-cuda" "$g/tcsqwg/sq4096_f16.ptx" --iters 1 --warmup 0

part ncu-wgtiles 40 ncu --clock-control none --launch-count 1 --section SpeedOfLight --section Occupancy \
  --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
  "$bin/rtile-run-cuda" "$g/wgtiles/sq8192_f16__256x128_wg64x128.ptx" --iters 1 --warmup 0

# Issues 14, 15: whole workloads, every system's schedule, PyTorch eager/compile/graph; every
# launch also timed alone (per-kernel profiles) and the persistent grids checked against the
# driver's occupancy.
part models 170 python3 bench/gpu/models.py --dir "$g/models" --bin "$bin" --iters 30 \
  --only bert-layer-128,mobilenet-block-112,lstm,inception,mobilenet-block-14,resnet-bottleneck,conv-bias-relu,layernorm,softmax,bert-layer-512,nerf-mlp \
  --per-kernel-dir "$out/perkernel-models" --markdown "$out/models.md" --json "$out/models.json"
# The full-size Rammer workloads alone, with per-kernel times (no PyTorch: measured above).
part rammer-full 30 python3 bench/gpu/models.py --dir "$g/models" --bin "$bin" --iters 30 --no-torch \
  --only lstm,inception --per-kernel-dir "$out/perkernel-rammer-full" --markdown "$out/rammer-full.md" \
  --json "$out/rammer-full.json"
# Issue 17: the pipelines, every system's schedule, per-kernel times for `rtile-bench retrain`.
part pipes 50 python3 bench/gpu/models.py --dir "$g/pipes" --bin "$bin" --iters 30 --no-torch \
  --per-kernel-dir "$out/perkernel-pipes" --markdown "$out/pipes.md" --json "$out/pipes.json"
part rammer-small 25 python3 bench/gpu/models.py --dir "$g/small" --bin "$bin" --iters 30 --no-torch \
  --per-kernel-dir "$out/perkernel-small" --markdown "$out/rammer-small.md" --json "$out/rammer-small.json"

# Issue 15: the packed persistent programs under compute-sanitizer (small twins: fast).
for tool in racecheck synccheck; do
  for m in "$g"/small/*.rammer.json; do
    part "sanitize-$tool-$(basename "$m" .json)" 15 compute-sanitizer --tool "$tool" --error-exitcode 3 \
      "$bin/rtile-run" cuda --model "$m" "${m%.json}.ptx"
  done
done

# Issue 16 again: single-role warpgroups and mma.sync on the same sizes, for comparison.
part tcsqwgsr 50 python3 bench/gpu/bench.py --suite bench/ops/tensor-core-square.mlir --ptx-dir "$g/tcsqwgsr" --bin "$bin" \
  --top-k --iters 20 --markdown "$out/tcsqwgsr.md" --json "$out/tcsqwgsr.json"
part tcwgsr 40 python3 bench/gpu/bench.py --suite bench/ops/tensor-core-f16.mlir --ptx-dir "$g/tcwgsr" --bin "$bin" \
  --top-k --iters 30 --markdown "$out/tcwgsr.md" --json "$out/tcwgsr.json"
part tcsq 50 python3 bench/gpu/bench.py --suite bench/ops/tensor-core-square.mlir --ptx-dir "$g/tcsq" --bin "$bin" \
  --top-k --iters 20 --markdown "$out/tcsq.md" --json "$out/tcsq.json"
note "done"
pack
for f in wgx wgtiles tcsqwg tcwg models rammer-full pipes rammer-small tcsqwgsr tcwgsr tcsq; do [ -f "$out/$f.md" ] && { echo "### $f"; cat "$out/$f.md"; }; done
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" "$out"/sanitize-*.txt 2>/dev/null | sort | uniq -c
