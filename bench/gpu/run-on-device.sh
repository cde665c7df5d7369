#!/usr/bin/env bash
# The GPU half of the Table-1 benchmark: everything that needs the GPU, in one command, on a
# machine with PyTorch and a CUDA driver but no Rust or LLVM. Carry there the PTX directory
# from `make gpu-ptx` (bench/gpu/prepare-ptx.sh) and target/release/rtile-run-cuda.
#   bench/gpu/run-on-device.sh [ptx-dir] [bin-dir] [out-dir]
# Writes <out>/bench-gpu.md (the table for PERF.md), <out>/bench-gpu.json, <out>/device.toml.
set -uo pipefail
ptx=${1:-target/gpu-ptx}
bin=${2:-target/release}
out=${3:-${OUT:-target}}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv 2>/dev/null | tee "$out/nvidia-smi.txt"
python3 bench/gpu/bench.py --ptx-dir "$ptx" --bin "$bin" --top-k \
  --markdown "$out/bench-gpu.md" --json "$out/bench-gpu.json" \
  --device-toml "$out/device.toml" ${BENCH_ARGS:-}
