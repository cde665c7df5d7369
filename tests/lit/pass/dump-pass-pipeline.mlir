// --dump-pass-pipeline prints the pipeline with every option of every pass (defaults
// included, sorted by name, doubles as `%e`, empty lists as nothing), byte for byte as
// mlir-opt-22 prints the passes both tools have.
// RUN: rtile-opt %s --pass-pipeline="builtin.module(symbol-dce,print-op-stats{json=true},builtin.module(symbol-dce))" --dump-pass-pipeline 2> %t.rtile > /dev/null
// RUN: mlir-opt %s --pass-pipeline="builtin.module(symbol-dce,print-op-stats{json=true},builtin.module(symbol-dce))" --dump-pass-pipeline 2> %t.mlir > /dev/null
// RUN: diff %t.rtile %t.mlir
// The flag form, and no pipeline at all.
// RUN: rtile-opt %s --print-op-stats --dump-pass-pipeline 2> %t.flag.rtile > /dev/null
// RUN: mlir-opt %s --print-op-stats --dump-pass-pipeline 2> %t.flag.mlir > /dev/null
// RUN: diff %t.flag.rtile %t.flag.mlir
// RUN: rtile-opt %s --dump-pass-pipeline 2> %t.none.rtile > /dev/null
// RUN: mlir-opt %s --dump-pass-pipeline 2> %t.none.mlir > /dev/null
// RUN: diff %t.none.rtile %t.none.mlir

// rtile's own passes print the same way: the declared defaults with the options given.
// RUN: rtile-opt %s --construct-rtile="device=h100 top-k=3" --rtile-select --tensor-padding=tile=8,4 --lower-to-gpu=thread-mapping=interleaved --dump-pass-pipeline 2>&1 > /dev/null | FileCheck %s --match-full-lines
// CHECK:      Pass Manager with 4 passes:
// CHECK-NEXT: builtin.module(
// CHECK-NEXT:   construct-rtile{device=h100 device-file= epsilon=2.000000e-01 epsilon-max=1.000000e+00 tensor-core=true top-k=3},
// CHECK-NEXT:   rtile-select{rank=0},
// CHECK-NEXT:   tensor-padding{epsilon=2.500000e-01 tile=8,4},
// CHECK-NEXT:   lower-to-gpu{cross-thread=true dedup-kernels=true device= one-kernel-results=true prefetch=true tensor-core=auto thread-mapping=interleaved warp-specialize=true}
// CHECK-NEXT: )

// What --dump-pass-pipeline prints parses back to the same pipeline.
// RUN: rtile-opt %s --pass-pipeline="builtin.module(construct-rtile{device=h100 device-file= epsilon=2.000000e-01 epsilon-max=1.000000e+00 tensor-core=true top-k=3},rtile-select{rank=0})" --dump-pass-pipeline 2>&1 > /dev/null | FileCheck %s --check-prefix=BACK --match-full-lines
// BACK:      construct-rtile{device=h100 device-file= epsilon=2.000000e-01 epsilon-max=1.000000e+00 tensor-core=true top-k=3},
// BACK-NEXT: rtile-select{rank=0}

// IR dump banners name the pass without its options, as mlir-opt's do
// (`IR Dump After Canonicalizer (canonicalize)` for `canonicalize{max-iterations=3}`).
// RUN: rtile-opt %s --pass-pipeline="builtin.module(rtile-select{rank=0},print-op-stats{json=true})" --mlir-print-ir-after-all 2>&1 > /dev/null | FileCheck %s --check-prefix=BANNER
// BANNER: // -----// IR Dump After RTileSelect (rtile-select) //----- //
// BANNER: // -----// IR Dump After PrintOpStats (print-op-stats) //----- //

// Declared statistics are reported even when zero, as MLIR's are.
// RUN: rtile-opt %s --rtile-select --mlir-pass-statistics 2>&1 > /dev/null | FileCheck %s --check-prefix=STATS
// STATS: RTileSelect
// STATS-NEXT: (S) 0 selected - ops given an rtile.program

module {
}
