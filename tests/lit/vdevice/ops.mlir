// vdevice: custom form, generic form, and the generic form through upstream mlir-opt-22
// (vdevice is unregistered there). The program is the paper's Fig. 9 (Rammer §4.1.2).
// RUN: rtile-opt %s | FileCheck %s
// RUN: rtile-opt %s | rtile-opt | FileCheck %s
// RUN: rtile-opt %s --mlir-print-op-generic | rtile-opt | FileCheck %s
// RUN: rtile-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: rtile-opt %s --mlir-print-op-generic | mlir-opt-22 --allow-unregistered-dialect --verify-each --mlir-print-op-generic | rtile-opt | FileCheck %s

// CHECK: vdevice.device @fig9 {regs = 32 : i64, sm_limits = array<i64: 32, 2048, 65536, 98304>, smem = 0 : i64, sms = 1 : i64, threads = 256 : i64, veus_per_sm = 2 : i64}
vdevice.device @fig9 {sms = 1, veus_per_sm = 2, threads = 256, smem = 0, regs = 32, sm_limits = array<i64: 32, 2048, 65536, 98304>}
// CHECK: vdevice.roperator @matmul {kernels = [{regs = 32 : i64, rtasks = 2 : i64, smem = 0 : i64, threads = 256 : i64, us = 1.000000e+00 : f64}]}
vdevice.roperator @matmul {kernels = [{rtasks = 2, threads = 256, smem = 0, regs = 32, us = 1.0}]}
vdevice.roperator @relu {kernels = [{rtasks = 4, threads = 128, smem = 0, regs = 16, us = 1.0}]}
// CHECK: vdevice.roperator @conv(@matmul, @relu) {kernels =
vdevice.roperator @conv(@matmul, @relu) {kernels = [{rtasks = 2, threads = 256, smem = 0, regs = 32, us = 1.0}]}

// Compact form: rTask runs as [first:end) ranges.
// CHECK-LABEL: vdevice.program @compact on @fig9 [
// CHECK-NEXT:    veu 0: @matmul[0:2], barrier [<1, 3>], @conv[0]
// CHECK-NEXT:    veu 1: @relu[0:4], barrier [<0, 1>], @conv[1]
// CHECK-NEXT:  ] {makespan_us = 5.000000e+00 : f64}
vdevice.program @compact on @fig9 [
  veu 0: @matmul[0:2], barrier [<1, 3>], @conv[0]
  veu 1: @relu[0], @relu[1:4], barrier [<0, 1>], @conv[1]
] {makespan_us = 5.0 : f64}

// The same program in the expanded form: the paper's Fig. 9 listing, vEU by vEU.
// CHECK-LABEL: vdevice.program @fig9_expanded on @fig9 [
// CHECK-NEXT:    veu 0:
// CHECK-NEXT:      0: @matmul[0],
// CHECK-NEXT:      1: @matmul[1],
// CHECK-NEXT:      barrier [<1, 3>],
// CHECK-NEXT:      2: @conv[0]
// CHECK-NEXT:    veu 1:
// CHECK-NEXT:      0: @relu[0],
// CHECK-NEXT:      1: @relu[1],
// CHECK-NEXT:      2: @relu[2],
// CHECK-NEXT:      3: @relu[3],
// CHECK-NEXT:      barrier [<0, 1>],
// CHECK-NEXT:      4: @conv[1]
// CHECK-NEXT:  ] {expanded}
vdevice.program @fig9_expanded on @fig9 [
  veu 0: @matmul[0:2], barrier [<1, 3>], @conv[0]
  veu 1: @relu[0:4], barrier [<0, 1>], @conv[1]
] {expanded}

vdevice.device @d {sms = 1, veus_per_sm = 2, threads = 256, smem = 0, regs = 32, sm_limits = array<i64: 32, 2048, 65536, 98304>}
vdevice.roperator @a {kernels = [{rtasks = 2, threads = 256, smem = 0, regs = 32, us = 1.0}]}
vdevice.roperator @b(@a) {kernels = [{rtasks = 1, threads = 256, smem = 0, regs = 32, us = 1.0}]}
// The expanded form (Fig. 9's per-vEU branches): one line per rTask with its order.
// CHECK-LABEL: vdevice.program @expanded on @d [
// CHECK-NEXT:    veu 0:
// CHECK-NEXT:      0: @a[0],
// CHECK-NEXT:      barrier [<1, 0>],
// CHECK-NEXT:      1: @b[0]
// CHECK-NEXT:    veu 1:
// CHECK-NEXT:      0: @a[1]
// CHECK-NEXT:  ] {expanded}
// An idle vEU prints as an empty list.
// CHECK-LABEL: vdevice.program @idle on @d [
// CHECK-NEXT:    veu 0: @a[0:2]
// CHECK-NEXT:    veu 1:
// CHECK-NEXT:  ]
vdevice.program @expanded on @d [
  veu 0: 0: @a[0], barrier [<1, 0>], 1: @b[0]
  veu 1: 0: @a[1]
] {expanded}
vdevice.program @idle on @d [veu 0: @a[0:2] veu 1:]

// GENERIC: "vdevice.program"() <{sym_name = "compact"}> {device = @fig9, makespan_us = 5.000000e+00 : f64, schedule = {{\[\[\[}}@matmul, 0, 2], array<i64: 1, 3>, [@conv, 0, 1]], {{\[\[}}@relu, 0, 4], array<i64: 0, 1>, [@conv, 1, 1]]]} : () -> ()
