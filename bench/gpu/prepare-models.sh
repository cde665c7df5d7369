#!/usr/bin/env bash
# The build-machine half of the whole-workload GPU comparison (issues 14, 15, 17): each
# workload scheduled by each system, lowered, translated to PTX, and its launch sequence
# written without simulating it (`rtile-run --model-manifest`), for bench/gpu/models.py on
# the GPU machine. Per workload W and variant V:
#   <out>/W.V.ptx  <out>/W.V.json  [<out>/W.V.bin: constants]  <out>/W.V.gpu.mlir (lowered)
# Variants:
#   Welder workloads (bench/models/welder/*.mlir, paper sizes):  none, register, shared
#     (--connect connect-level=..., the ablation of Welder §5.5)
#   Rammer workloads (bench/models/{lstm,nasnet-cell,inception}.mlir):  rammer, rammerbase
#     (--wavefront-pack, merge=true / merge=false: Rammer §5.2.3)
#   Halide pipelines (bench/pipelines/*.mlir, paper sizes):  roller, welder, halide-greedy,
#     halide-beam (construction vs search, issue 17)
# Usage: [BIN=target/release] bench/gpu/prepare-models.sh [out-dir] [sm] [device] [workload.mlir ...]
# A variant that fails is logged in <out>/prepare.log and left out; the exit status is 1 then.
set -uo pipefail
out=${1:-target/gpu-models}
sm=${2:-sm_90}
device=${3:-h100}
shift $(( $# > 3 ? 3 : $# ))
bin=${BIN:-target/release}
limit=${LIMIT_S:-600}
mkdir -p "$out"
: > "$out/prepare.log"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

variants_of() {
  case "$1" in
    */welder/*) echo "none register shared" ;;
    */lstm.mlir|*/nasnet-cell.mlir|*/inception.mlir) echo "rammer rammerbase" ;;
    */pipelines/*) echo "roller welder halide-greedy halide-beam" ;;
  esac
}

# One flag per line (a flag's options stay one argument).
passes_of() {
  case "$1" in
    none|register|shared) echo "--connect=device=$device connect-level=$1" ;;
    rammer) echo "--wavefront-pack=device=$device" ;;
    rammerbase) echo "--wavefront-pack=device=$device merge=false" ;;
    roller) printf '%s\n' "--construct-rtile=device=$device" --rtile-select ;;
    welder) echo "--connect=device=$device" ;;
    halide-greedy) echo "--autoschedule-beam=device=$device beam-size=1" ;;
    halide-beam) echo "--autoschedule-beam=device=$device" ;;
  esac
}

if [ $# -eq 0 ]; then
  set -- $(ls bench/models/welder/*.mlir | grep -v -- '-sim\.mlir$') \
    bench/models/lstm.mlir bench/models/nasnet-cell.mlir bench/models/inception.mlir \
    $(ls bench/pipelines/*.mlir | grep -v '_small\.mlir$')
fi
status=0
for f in "$@"; do
  w=$(basename "$f" .mlir)
  for v in $(variants_of "$f"); do
    mapfile -t pass < <(passes_of "$v")
    start=$(date +%s%N)
    if timeout "$limit" "$bin/rtile-opt" "$f" "${pass[@]}" --lower-to-gpu -o "$tmp/l.mlir" 2> "$tmp/err" &&
       timeout "$limit" "$bin/rtile-translate" --to-ptx="$sm" "$tmp/l.mlir" -o "$out/$w.$v.ptx" 2>> "$tmp/err" &&
       "$bin/rtile-run" --model-manifest "$out/$w.$v.json" "$tmp/l.mlir" > /dev/null 2>> "$tmp/err"; then
      ms=$(( ($(date +%s%N) - start) / 1000000 ))
      cp "$tmp/l.mlir" "$out/$w.$v.gpu.mlir"  # kept here (pack.sh leaves .mlir out of the bundle)
      printf '%s.%s: ok (%s ms, %s launches, PTX %s bytes)\n' "$w" "$v" "$ms" \
        "$(grep -o '"kernel"' "$out/$w.$v.json" | wc -l)" "$(stat -c %s "$out/$w.$v.ptx")" | tee -a "$out/prepare.log"
    else
      echo "$w.$v: FAILED: $(grep -m1 -i 'error' "$tmp/err" || head -1 "$tmp/err")" | tee -a "$out/prepare.log"
      rm -f "$out/$w.$v.ptx" "$out/$w.$v.json" "$out/$w.$v.bin" "$out/$w.$v.gpu.mlir"
      status=1
    fi
  done
done
exit $status
