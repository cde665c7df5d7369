#!/usr/bin/env bash
# Translates every operator of a te suite to PTX here (rtile-translate links LLVM, so it
# stays on the build machine), for bench.py --ptx-dir and check.sh on the GPU machine:
#   <out>/<op>.ptx + <op>.json        the constructed, lowered kernel
#   <out>/<op>.naive.ptx + .naive.json  the naive one-thread-per-output reference kernel
# Usage: bench/gpu/prepare-ptx.sh [suite.mlir] [out-dir] [sm] [device]
set -uo pipefail
suite=${1:-bench/ops/roller-table1.mlir}
out=${2:-target/gpu-ptx}
sm=${3:-sm_90}
device=${4:-h100}
bin=${BIN:-target/release}
mkdir -p "$out"
python3 - "$suite" "$out" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
for m in re.finditer(r"^func\.func @(\w+)\(.*?^}\n", text, re.S | re.M):
    open(f"{sys.argv[2]}/{m.group(1)}.mlir", "w").write(m.group(0))
PY
for src in "$out"/*.mlir; do
  case "$src" in *.gpu.mlir|*.naive.mlir) continue;; esac
  op=$(basename "$src" .mlir)
  if "$bin/rtile-opt" --construct-rtile="device=$device" --rtile-select --lower-to-gpu \
       --mlir-print-op-generic "$src" -o "$out/$op.gpu.mlir" 2> "$out/$op.err" &&
     "$bin/rtile-translate" --to-ptx="$sm" "$out/$op.gpu.mlir" -o "$out/$op.ptx" \
       --manifest="$out/$op.json" 2>> "$out/$op.err" &&
     "$bin/rtile-translate" --emit-naive-gpu "$src" -o "$out/$op.naive.mlir" 2>> "$out/$op.err" &&
     "$bin/rtile-translate" --to-ptx="$sm" "$out/$op.naive.mlir" -o "$out/$op.naive.ptx" \
       --manifest="$out/$op.naive.json" 2>> "$out/$op.err"; then
    echo "$op: ok"; rm -f "$out/$op.err"
  else
    echo "$op: FAILED: $(head -1 "$out/$op.err")"
  fi
done
