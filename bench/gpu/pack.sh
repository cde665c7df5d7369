#!/usr/bin/env bash
# The build-machine half of bench/gpu/session.sh: writes gpu-carry/bundle.tar.xz with
#   bin/    rtile-run and rtile-run-cuda (release, stripped; they link no LLVM)
#   tcsq/           per operator of bench/ops/tensor-core-square.mlir (mma.sync, sm_90):
#                   Roller's top-TOPK programs and the naive reference
#                   as PTX with manifests (bench/gpu/prepare-ptx.sh)
#   tcwg/ tcsqwg/   the tensor-core suites lowered with tensor-core=wgmma for sm_90a (TMA,
#                   mbarriers, wgmma; the ranks wgmma does not apply to are left out),
#                   warp-specialised where the block has room (the default)
#   tcwgsr/ tcsqwgsr/  the same with warp-specialize=false (every warpgroup computes)
#   wgx/            bench/ops/tensor-core-wgmma-explicit.mlir: wgmma kernels under explicit
#                   programs (ragged edges, several batch axes) and their naive references
#   wgtiles/        bench/ops/tensor-core-wgmma-tiles.mlir: the square matmuls under explicit
#                   block and warpgroup tiles
#   models/ pipes/ small/  whole workloads per system (bench/gpu/prepare-models.sh): the
#                   Welder and Rammer workloads and the Halide pipelines at paper sizes, and
#                   the small Rammer twins for compute-sanitizer
# Usage: [TOPK=5] [BIN=target/release] bench/gpu/pack.sh [sm_90] [h100]
set -uo pipefail
sm=${1:-sm_90}
device=${2:-h100}
export BIN=${BIN:-target/release}
export TOPK=${TOPK:-5}
stage=target/gpu-stage
rm -rf "$stage" && mkdir -p "$stage/bin" gpu-carry
for b in rtile-run rtile-run-cuda; do
  strip -o "$stage/bin/$b" "$BIN/$b" || exit 1
done
LOWER_OPTIONS="tensor-core=mma-sync" bench/gpu/prepare-ptx.sh bench/ops/tensor-core-square.mlir "$stage/tcsq" "$sm" "$device"
LOWER_OPTIONS="tensor-core=wgmma" bench/gpu/prepare-ptx.sh bench/ops/tensor-core-f16.mlir "$stage/tcwg" sm_90a "$device"
LOWER_OPTIONS="tensor-core=wgmma" bench/gpu/prepare-ptx.sh bench/ops/tensor-core-square.mlir "$stage/tcsqwg" sm_90a "$device"
LOWER_OPTIONS="tensor-core=wgmma warp-specialize=false" bench/gpu/prepare-ptx.sh bench/ops/tensor-core-f16.mlir "$stage/tcwgsr" sm_90a "$device"
LOWER_OPTIONS="tensor-core=wgmma warp-specialize=false" bench/gpu/prepare-ptx.sh bench/ops/tensor-core-square.mlir "$stage/tcsqwgsr" sm_90a "$device"
LOWER_OPTIONS="tensor-core=wgmma" bench/gpu/prepare-explicit.sh bench/ops/tensor-core-wgmma-explicit.mlir "$stage/wgx" sm_90a
LOWER_OPTIONS="tensor-core=wgmma" bench/gpu/prepare-explicit.sh bench/ops/tensor-core-wgmma-tiles.mlir "$stage/wgtiles" sm_90a
# The full-size NASNet cell is left out: its packed program inlines every rTask body
# (hundreds of MB of MLIR, minutes to lower), issue 15.
bench/gpu/prepare-models.sh "$stage/models" "$sm" "$device" \
  $(ls bench/models/welder/*.mlir | grep -v -- '-sim\.mlir$') bench/models/lstm.mlir bench/models/inception.mlir
bench/gpu/prepare-models.sh "$stage/pipes" "$sm" "$device" $(ls bench/pipelines/*.mlir | grep -v '_small\.mlir$')
bench/gpu/prepare-models.sh "$stage/small" "$sm" "$device" bench/models/small/*.mlir
tar cJf gpu-carry/bundle.tar.xz -C "$stage" --exclude='*.mlir' --exclude='*.err' .
ls -l gpu-carry/bundle.tar.xz
