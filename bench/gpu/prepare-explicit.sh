#!/usr/bin/env bash
# Like prepare-ptx.sh, for a suite whose computes already carry their rtile.program (no
# construction): each function lowered with --lower-to-gpu${LOWER_OPTIONS}, translated to
# PTX for <sm>, and the naive reference kernel beside it, for bench/gpu/bench.py to check.
#   [LOWER_OPTIONS=...] [BIN=target/release] bench/gpu/prepare-explicit.sh suite.mlir out-dir [sm]
set -uo pipefail
suite=$1
out=$2
sm=${3:-sm_90a}
bin=${BIN:-target/release}
mkdir -p "$out"
python3 - "$suite" "$out" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
for m in re.finditer(r"^func\.func @(\w+)\(.*?^}\n", text, re.S | re.M):
    open(f"{sys.argv[2]}/{m.group(1)}.mlir", "w").write(m.group(0))
PY
status=0
for src in "$out"/*.mlir; do
  case "$src" in *.gpu.mlir|*.naive.mlir) continue;; esac
  op=$(basename "$src" .mlir)
  if "$bin/rtile-opt" --lower-to-gpu${LOWER_OPTIONS:+="$LOWER_OPTIONS"} --mlir-print-op-generic "$src" -o "$out/$op.gpu.mlir" 2> "$out/$op.err" &&
     "$bin/rtile-translate" --to-ptx="$sm" "$out/$op.gpu.mlir" -o "$out/$op.ptx" --manifest="$out/$op.json" 2>> "$out/$op.err" &&
     "$bin/rtile-translate" --emit-naive-gpu "$src" -o "$out/$op.naive.mlir" 2>> "$out/$op.err" &&
     "$bin/rtile-translate" --to-ptx=sm_90 "$out/$op.naive.mlir" -o "$out/$op.naive.ptx" --manifest="$out/$op.naive.json" 2>> "$out/$op.err"; then
    echo "$op: ok"; rm -f "$out/$op.err"
  else
    echo "$op: FAILED: $(head -1 "$out/$op.err")"; status=1
  fi
done
exit $status
