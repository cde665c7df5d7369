#!/usr/bin/env bash
# Translates every operator of a te suite to PTX here (rtile-translate links LLVM, so it
# stays on the build machine), for bench.py --ptx-dir on the GPU machine:
#   <out>/<op>.ptx + <op>.json            the best constructed program, lowered (rank 0)
#   <out>/<op>.r<i>.ptx + <op>.r<i>.json  the i-th of Roller's top-k programs (i < TOPK)
#   <out>/<op>.naive.ptx + .naive.json    the naive one-thread-per-output reference kernel
#   <out>/ptxas.txt                       ptxas -v of every kernel, when ptxas is here
# Usage: [TOPK=10] [BIN=target/release] [TRANSLATE_FLAGS="--max-registers=none"]
#        [LOWER_OPTIONS="prefetch=false thread-mapping=interleaved"]
#        bench/gpu/prepare-ptx.sh [suite.mlir] [out-dir] [sm] [device]
set -uo pipefail
suite=${1:-bench/ops/roller-table1.mlir}
out=${2:-target/gpu-ptx}
sm=${3:-sm_90}
device=${4:-h100}
bin=${BIN:-target/release}
topk=${TOPK:-10}
ptxas=${PTXAS:-.venv-cuda/lib/python3.11/site-packages/nvidia/cuda_nvcc/bin/ptxas}
mkdir -p "$out"
python3 - "$suite" "$out" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
for m in re.finditer(r"^func\.func @(\w+)\(.*?^}\n", text, re.S | re.M):
    open(f"{sys.argv[2]}/{m.group(1)}.mlir", "w").write(m.group(0))
PY
: > "$out/ptxas.txt"
status=0
for src in "$out"/*.mlir; do
  case "$src" in *.gpu.mlir|*.naive.mlir|*.cands.mlir) continue;; esac
  op=$(basename "$src" .mlir)
  err="$out/$op.err"
  if ! { "$bin/rtile-opt" --construct-rtile="device=$device top-k=$topk" "$src" -o "$out/$op.cands.mlir" &&
         "$bin/rtile-translate" --emit-naive-gpu "$src" -o "$out/$op.naive.mlir" &&
         "$bin/rtile-translate" --to-ptx="$sm" "$out/$op.naive.mlir" -o "$out/$op.naive.ptx" \
           --manifest="$out/$op.naive.json"; } 2> "$err"; then
    echo "$op: FAILED: $(head -1 "$err")"; status=1; continue
  fi
  ranks=0; failed=""
  for ((r = 0; r < topk; r++)); do
    "$bin/rtile-opt" --rtile-select="rank=$r" "$out/$op.cands.mlir" -o /dev/null 2>/dev/null || break
    if "$bin/rtile-opt" --rtile-select="rank=$r" --lower-to-gpu${LOWER_OPTIONS:+="$LOWER_OPTIONS"} --mlir-print-op-generic \
         "$out/$op.cands.mlir" -o "$out/$op.r$r.gpu.mlir" 2>> "$err" &&
       "$bin/rtile-translate" --to-ptx="$sm" ${TRANSLATE_FLAGS:-} "$out/$op.r$r.gpu.mlir" -o "$out/$op.r$r.ptx" \
         --manifest="$out/$op.r$r.json" 2>> "$err"; then
      ranks=$((ranks + 1))
      if [ -x "$ptxas" ]; then
        { echo "== $op.r$r"; "$ptxas" -arch="$sm" -v "$out/$op.r$r.ptx" -o /dev/null 2>&1; } >> "$out/ptxas.txt"
      fi
    else
      failed="$failed $r"
    fi
  done
  if [ -f "$out/$op.r0.ptx" ]; then
    cp "$out/$op.r0.ptx" "$out/$op.ptx"; cp "$out/$op.r0.json" "$out/$op.json"
  fi
  if [ "$ranks" -gt 0 ] && [ -f "$out/$op.r0.ptx" ]; then
    echo "$op: ok ($ranks programs${failed:+; not lowered: ranks$failed})"
    [ -z "$failed" ] && rm -f "$err"
  else
    echo "$op: FAILED: $(head -1 "$err")"; status=1
  fi
done
if [ -s "$out/ptxas.txt" ] && grep -q "error" "$out/ptxas.txt"; then
  echo "ptxas rejected some kernels (see $out/ptxas.txt):"
  grep -B1 "error" "$out/ptxas.txt" | grep "^==" | sort -u
  status=1
fi
exit $status
