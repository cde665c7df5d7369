#!/usr/bin/env bash
# Every GPU measurement of issues 14-17 (and the Table-1 suite of issue 6) in one command, for
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
part() { # name, seconds, command...
  local name=$1 secs=$2; shift 2
  local left=$((deadline - SECONDS - 5))
  [ "$left" -lt "$secs" ] && secs=$left
  if [ "$secs" -le 5 ]; then note "$name: skipped, out of time"; return; fi
  note "$name (limit ${secs} s)"
  timeout "$secs" "$@" > "$out/$name.txt" 2> "$out/$name.err"
  note "$name: exit $? ($(tail -c 300 "$out/$name.err" | tr '\n' ' ' | tail -c 200))"
  pack
}

# Issue 16: the sm_90a wgmma + TMA kernels first (never run on hardware before: checked
# against the naive reference kernel; warp-specialised where the block has room, then
# single-role), then mma.sync (sm_90), against cuBLAS (torch.matmul).
part tcsqwg 80 python3 bench/gpu/bench.py --suite bench/ops/tensor-core-square.mlir --ptx-dir "$g/tcsqwg" --bin "$bin" \
  --top-k --iters 20 --markdown "$out/tcsqwg.md" --json "$out/tcsqwg.json"
part tcwg 60 python3 bench/gpu/bench.py --suite bench/ops/tensor-core-f16.mlir --ptx-dir "$g/tcwg" --bin "$bin" \
  --top-k --iters 30 --markdown "$out/tcwg.md" --json "$out/tcwg.json"
# The same suites with warp-specialize=false (single-role: every warpgroup computes), to
# compare with the warp-specialised default above rank by rank.
part tcwgsr 60 python3 bench/gpu/bench.py --suite bench/ops/tensor-core-f16.mlir --ptx-dir "$g/tcwgsr" --bin "$bin" \
  --top-k --iters 30 --markdown "$out/tcwgsr.md" --json "$out/tcwgsr.json"
part tcsqwgsr 80 python3 bench/gpu/bench.py --suite bench/ops/tensor-core-square.mlir --ptx-dir "$g/tcsqwgsr" --bin "$bin" \
  --top-k --iters 20 --markdown "$out/tcsqwgsr.md" --json "$out/tcsqwgsr.json"
part ncu-wgmma 45 ncu --clock-control none --launch-count 1 --section SpeedOfLight --section Occupancy \
  --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
  "$bin/rtile-run-cuda" "$g/tcsqwg/sq4096_f16.ptx" --iters 1 --warmup 0
part tc 90 python3 bench/gpu/bench.py --suite bench/ops/tensor-core-f16.mlir --ptx-dir "$g/tc" --bin "$bin" \
  --top-k --iters 30 --markdown "$out/tc.md" --json "$out/tc.json"
part tcsq 80 python3 bench/gpu/bench.py --suite bench/ops/tensor-core-square.mlir --ptx-dir "$g/tcsq" --bin "$bin" \
  --top-k --iters 20 --markdown "$out/tcsq.md" --json "$out/tcsq.json"
# Where the largest one spends its time (speed of light, occupancy, pipe use).
part ncu 45 ncu --clock-control none --launch-count 1 --section SpeedOfLight --section Occupancy \
  --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
  "$bin/rtile-run-cuda" "$g/tcsq/sq4096_f16.ptx" --iters 1 --warmup 0

# Issues 14, 15, 17: whole workloads, every system's schedule, PyTorch eager/compile/graph.
part models 200 python3 bench/gpu/models.py --dir "$g/models" --bin "$bin" --iters 30 \
  --only bert-layer-128,mobilenet-block-112,lstm,inception,mobilenet-block-14,resnet-bottleneck,conv-bias-relu,layernorm,softmax,bert-layer-512,nerf-mlp \
  --markdown "$out/models.md" --json "$out/models.json"
part rammer-small 40 python3 bench/gpu/models.py --dir "$g/small" --bin "$bin" --iters 30 --no-torch \
  --markdown "$out/rammer-small.md" --json "$out/rammer-small.json"
part pipes 60 python3 bench/gpu/models.py --dir "$g/pipes" --bin "$bin" --iters 30 --no-torch \
  --markdown "$out/pipes.md" --json "$out/pipes.json"

# Issue 15: the packed persistent programs under compute-sanitizer (small twins: fast).
for tool in racecheck synccheck memcheck; do
  for m in "$g"/small/*.rammer.json; do
    part "sanitize-$tool-$(basename "$m" .json)" 20 compute-sanitizer --tool "$tool" --error-exitcode 3 \
      "$bin/rtile-run" cuda --model "$m" "${m%.json}.ptx"
  done
done

# Issue 6: Roller's Table-1 suite (f32), best of top-k, against PyTorch.
part table1 150 python3 bench/gpu/bench.py --ptx-dir "$g/t1" --bin "$bin" --top-k --iters 20 \
  --markdown "$out/table1.md" --json "$out/table1.json"
note "done"
pack
for f in tcsqwg tcwg tc tcsq models rammer-small pipes table1; do [ -f "$out/$f.md" ] && { echo "### $f"; cat "$out/$f.md"; }; done
grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" "$out"/sanitize-*.txt 2>/dev/null | sort | uniq -c
