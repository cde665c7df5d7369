#!/usr/bin/env bash
# Runs the pass_pipelines fuzz target for $1 seconds (default 900): inputs that parse and
# verify go through every rtile-opt pass pipeline (fuzz_targets/pass_pipelines.rs). The
# corpus (fuzz/corpus/pass_pipelines) is seeded with the lit tests' .mlir files and
# bench/'s small ones; crashes land in fuzz/artifacts/pass_pipelines (fork mode: the run goes on after
# one). Built with debug assertions and
# overflow checks (-a), as the debug tools the lit suite runs. `make fuzz-passes` runs it.
set -eu
cd "$(dirname "$0")"
secs=${1:-900}
mkdir -p corpus/pass_pipelines
# One seed per `// -----` chunk: rtile-opt --split-input-file runs each on its own. The
# full-size models and pipelines of bench/ are left out: they take seconds to schedule
# each, and their small versions (bench/models/small, bench/pipelines/*_small) cover them;
# so is the 32-stage stencil chain (--connect alone takes 30 s on its small version).
{ find ../tests/lit ../examples -name '*.mlir'; find ../bench -name '*small*.mlir' ! -name 'stencil_chain*'; } | while read -r f; do
  awk -v out="corpus/pass_pipelines/seed-$(echo "${f#../}" | tr '/' '_')" \
    '/^[ \t]*\/\/ -----/ { close(f); n++; next } { f = out "-" n+0; print > f }' "$f"
done
RUSTC_BOOTSTRAP=1 exec cargo fuzz run pass_pipelines -a --sanitizer none corpus/pass_pipelines -- \
  -dict=mlir.dict -max_total_time="$secs" -timeout=30 -rss_limit_mb=4096 -max_len=65536 \
  -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 -print_final_stats=1
