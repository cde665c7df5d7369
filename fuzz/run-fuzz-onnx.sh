#!/usr/bin/env bash
# Runs the onnx_import fuzz target for $1 seconds (default 600): arbitrary bytes through
# rtile_onnx::import_model. The corpus (fuzz/corpus/onnx_import) is seeded with the small
# models of tests/lit/onnx/Inputs; crashes land in fuzz/artifacts/onnx_import.
set -eu
cd "$(dirname "$0")"
secs=${1:-600}
mkdir -p corpus/onnx_import
cp ../tests/lit/onnx/Inputs/*.onnx corpus/onnx_import/
RUSTC_BOOTSTRAP=1 exec cargo fuzz run onnx_import --sanitizer none corpus/onnx_import -- \
  -max_total_time="$secs" -timeout=20 -rss_limit_mb=4096 -print_final_stats=1
