// --wavefront-pack on the DFG of the paper's Fig. 9 (Rammer §4.1.2): Matmul (2 rTasks) and
// Relu (4 rTasks) -> Conv (2 rTasks) on a vDevice of 2 vEUs, 1 µs per rTask.
// RUN: rtile-opt %s --wavefront-pack="launch-us=5 expanded=true" | FileCheck %s
// RUN: rtile-opt %s --wavefront-pack="launch-us=5" | FileCheck %s --check-prefix=COMPACT
// RUN: rtile-opt %s --wavefront-pack="launch-us=5 merge=false" | FileCheck %s --check-prefix=BASE
// RUN: rtile-opt %s --wavefront-pack="launch-us=5 barriers=global" | FileCheck %s --check-prefix=GLOBAL
// RUN: rtile-opt %s --wavefront-pack="launch-us=5" --mlir-print-op-generic | mlir-opt-22 --allow-unregistered-dialect --verify-each --mlir-print-op-generic | rtile-opt | FileCheck %s --check-prefix=COMPACT

vdevice.device @fig9 {sms = 1, veus_per_sm = 2, threads = 256, smem = 0, regs = 32, sm_limits = array<i64: 32, 2048, 65536, 98304>}
vdevice.roperator @matmul {kernels = [{rtasks = 2, threads = 256, smem = 0, regs = 32, us = 1.0}]}
vdevice.roperator @relu {kernels = [{rtasks = 4, threads = 128, smem = 0, regs = 16, us = 1.0}]}
vdevice.roperator @conv(@matmul, @relu) {kernels = [{rtasks = 2, threads = 256, smem = 0, regs = 32, us = 1.0}]}

// Wave 1 = {Matmul, Relu}: earliest-available vEU, lowest id on ties, so the rTasks
// alternate (Fig. 9 itself places Matmul on vEU 0 and Relu on vEU 1 by hand; the unit test
// fig9_wait_append and tests/lit/vdevice/ops.mlir pin that placement). Wave 2 = {Conv}:
// each Conv rTask waits, through one barrier-rTask, for the latest predecessor rTask on the
// other vEU only (§3.3 pruning; its own vEU is ordered by program order). Merging costs
// 4 + 5 µs vs (3 + 5) + (1 + 5) µs for two launches: one rProgram.
// CHECK-LABEL: vdevice.program @p0 on @fig9 [
// CHECK-NEXT:    veu 0:
// CHECK-NEXT:      0: @matmul[0],
// CHECK-NEXT:      1: @relu[0],
// CHECK-NEXT:      2: @relu[2],
// CHECK-NEXT:      barrier [<1, 2>],
// CHECK-NEXT:      3: @conv[0]
// CHECK-NEXT:    veu 1:
// CHECK-NEXT:      0: @matmul[1],
// CHECK-NEXT:      1: @relu[1],
// CHECK-NEXT:      2: @relu[3],
// CHECK-NEXT:      barrier [<0, 2>],
// CHECK-NEXT:      3: @conv[1]
// CHECK-NEXT:  ] {expanded, makespan_us = 9.000000e+00 : f64}
// CHECK-NOT: vdevice.program

// COMPACT:      vdevice.roperator @matmul {kernel = 0 : i64,
// COMPACT:      vdevice.program @p0 on @fig9 [
// COMPACT-NEXT:   veu 0: @matmul[0], @relu[0], @relu[2], barrier [<1, 2>], @conv[0]
// COMPACT-NEXT:   veu 1: @matmul[1], @relu[1], @relu[3], barrier [<0, 2>], @conv[1]
// COMPACT-NEXT: ] {makespan_us = 9.000000e+00 : f64}

// RammerBase: one launch per operator, no barrier inside any.
// BASE:      vdevice.program @p0 on @fig9 [
// BASE-NEXT:   veu 0: @matmul[0]
// BASE-NEXT:   veu 1: @matmul[1]
// BASE-NEXT: ] {makespan_us = 6.000000e+00 : f64}
// BASE:      vdevice.program @p1 on @fig9 [
// BASE-NEXT:   veu 0: @relu[0], @relu[2]
// BASE-NEXT:   veu 1: @relu[1], @relu[3]
// BASE-NEXT: ] {makespan_us = 7.000000e+00 : f64}
// BASE:      vdevice.program @p2 on @fig9 [
// BASE-NEXT:   veu 0: @conv[0]
// BASE-NEXT:   veu 1: @conv[1]
// BASE-NEXT: ] {makespan_us = 6.000000e+00 : f64}
// BASE-NOT: barrier

// Global barriers: every vEU waits for every rTask of the earlier waves.
// GLOBAL:      veu 0: @matmul[0], @relu[0], @relu[2], barrier [<1, 2>], @conv[0]
// GLOBAL-NEXT: veu 1: @matmul[1], @relu[1], @relu[3], barrier [<0, 2>], @conv[1]
