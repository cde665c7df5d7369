// SelectRKernels (Rammer §3.3) on the two-variant case of §5.2.4 (LSTM-TC Matmul: 1,024
// rTasks in 4.28 µs alone vs 16 rTasks in 7.46 µs), 80 vEUs, no launch cost.
// RUN: rtile-opt %s --split-input-file --wavefront-pack="launch-us=0" | FileCheck %s
// RUN: rtile-opt %s --split-input-file --wavefront-pack="launch-us=0 kernels=fast" | FileCheck %s --check-prefix=FAST

// A wide wave of four matmuls: the fastest kernels take ⌈4096 / 80⌉ = 52 rounds of
// 0.33 µs (17.1 µs); the most efficient ones 64 rTasks in one round (7.46 µs): selected.
// CHECK-LABEL: vdevice.device @v
// CHECK-COUNT-4: vdevice.roperator @mm{{[0-3]}} {kernel = 1 : i64,
// CHECK: vdevice.program @p0 on @v [
// CHECK-NEXT: veu 0: @mm0[0]
// CHECK: ] {makespan_us = 7.460000e+00 : f64}
// FAST-COUNT-4: vdevice.roperator @mm{{[0-3]}} {kernel = 0 : i64,
// FAST: {makespan_us = 1.707200e+01 : f64}
vdevice.device @v {sms = 80, veus_per_sm = 1, threads = 256, smem = 0, regs = 32, sm_limits = array<i64: 32, 2048, 65536, 98304>}
vdevice.roperator @mm0 {kernels = [{rtasks = 1024, threads = 256, smem = 0, regs = 32, us = 0.3283}, {rtasks = 16, threads = 256, smem = 0, regs = 32, us = 7.46}]}
vdevice.roperator @mm1 {kernels = [{rtasks = 1024, threads = 256, smem = 0, regs = 32, us = 0.3283}, {rtasks = 16, threads = 256, smem = 0, regs = 32, us = 7.46}]}
vdevice.roperator @mm2 {kernels = [{rtasks = 1024, threads = 256, smem = 0, regs = 32, us = 0.3283}, {rtasks = 16, threads = 256, smem = 0, regs = 32, us = 7.46}]}
vdevice.roperator @mm3 {kernels = [{rtasks = 1024, threads = 256, smem = 0, regs = 32, us = 0.3283}, {rtasks = 16, threads = 256, smem = 0, regs = 32, us = 7.46}]}

// -----

// One matmul alone: the fastest kernel (13 rounds, 4.27 µs) beats the efficient one.
// CHECK-LABEL: vdevice.device @v
// CHECK: vdevice.roperator @mm0 {kernel = 0 : i64,
// CHECK: {makespan_us = 4.268000e+00 : f64}
vdevice.device @v {sms = 80, veus_per_sm = 1, threads = 256, smem = 0, regs = 32, sm_limits = array<i64: 32, 2048, 65536, 98304>}
vdevice.roperator @mm0 {kernels = [{rtasks = 1024, threads = 256, smem = 0, regs = 32, us = 0.3283}, {rtasks = 16, threads = 256, smem = 0, regs = 32, us = 7.46}]}
