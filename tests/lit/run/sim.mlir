// rtile-run --sim --check: te -> --construct-rtile -> --rtile-select -> --lower-to-gpu, then
// the kernel runs in the CPU GPU-simulator (every block and thread, shared memory,
// barriers) and is compared with the te interpreter's f64 oracle.
// RUN: rtile-opt %s --construct-rtile="device=v100" --rtile-select --lower-to-gpu -o %t.mlir
// RUN: rtile-run --sim --check --seed 3 %t.mlir | FileCheck %s
// A tolerance below any f32 rounding error must fail the check with exit status 1.
// RUN: not rtile-run --sim --check --tolerance 1e-30 %t.mlir 2>&1 | FileCheck %s --check-prefix=TIGHT
// A module with no lowered kernel is an error, not a silent success.
// RUN: not rtile-run --sim --check %s 2>&1 | FileCheck %s --check-prefix=NOKERNEL

// CHECK: @mm_0: 1110 elements, max relative error {{[0-9.]+e-[0-9]+}}
// CHECK: max relative error
// TIGHT: error: max relative error {{.*}} exceeds the tolerance 1e-30
// NOKERNEL: error: {{.*}}sim.mlir holds no lowered kernel

func.func @mm(%A: tensor<30x13xf32>, %B: tensor<13x37xf32>) -> tensor<30x37xf32> {
  %C = te.compute (%m, %n) reduce (%k) in [30, 37, 13] may_pad 0.0
         : (tensor<30x13xf32>, tensor<13x37xf32>) -> tensor<30x37xf32> {
    te.sum(%A[%m, %k] * %B[%k, %n])
  }
  return %C : tensor<30x37xf32>
}
