#!/usr/bin/env bash
# Runs the parse_roundtrip fuzz target for $1 seconds (default 2400), seeded corpus in
# fuzz/corpus/parse_roundtrip, crashes in fuzz/artifacts/ (`make fuzz` runs it).
set -eu
cd "$(dirname "$0")"
secs=${1:-2400}
mkdir -p corpus/parse_roundtrip
RUSTC_BOOTSTRAP=1 exec cargo fuzz run parse_roundtrip --sanitizer none corpus/parse_roundtrip -- \
  -dict=mlir.dict -max_total_time="$secs" -timeout=20 -print_final_stats=1
