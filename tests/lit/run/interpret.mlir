// rtile-run --interpret: seeded checksums are stable, the same before and after
// --axis-fusion and --tensor-padding, and after a trip through mlir-opt-22; .npy dumps
// read back as inputs; errors are rendered diagnostics.
// RUN: rtile-run --interpret %s --seed 7 | FileCheck %s
// RUN: rtile-run --interpret %s --seed 7 > %t.base
// RUN: rtile-opt %s --axis-fusion | rtile-run --interpret --seed 7 | diff %t.base -
// RUN: rtile-opt %s --tensor-padding="tile=8 epsilon=0.5" | rtile-run --interpret --seed 7 | diff %t.base -
// RUN: rtile-opt %s --axis-fusion --mlir-print-op-generic | mlir-opt-22 --allow-unregistered-dialect --verify-each | rtile-run --interpret --seed 7 | diff %t.base -
// RUN: rtile-run --interpret %s --seed 8 | FileCheck %s --check-prefix=SEED8
// RUN: rtile-run --interpret %s --seed 7 --f64 | FileCheck %s --check-prefix=F64
// RUN: rm -rf %t.dir && mkdir %t.dir
// RUN: rtile-run --interpret %s --seed 7 --func relu --dump %t.dir | FileCheck %s --check-prefix=RELU
// RUN: rtile-run --interpret %s --func relu --inputs %t.dir/relu.0.npy --dump %t.relu2.npy | FileCheck %s --check-prefix=RELU2
// RUN: not rtile-run --interpret %s --func nope 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK: @matmul result 0: tensor<30x17xf32> sum=1.61515813507139683e0 abs=4.96489467872306705e2 weighted=-1.87345164703205228e3
// CHECK-NEXT: @relu result 0: tensor<17x11x3xf32> sum=
// CHECK-NEXT: @two result 0: tensor<4xf32> sum=
// CHECK-NEXT: @two result 1: tensor<4xf32> sum=
// CHECK-NEXT: @double result 0: tensor<4xf32> sum=
// CHECK-NOT: result
// SEED8-NOT: sum=1.61515813507139683e0
// F64: @matmul result 0: tensor<30x17xf64> sum=
// With --func, the selected function is function 0 (seed 7); relu is idempotent, so its
// dumped output read back as input gives the same checksum.
// RELU: @relu result 0: tensor<17x11x3xf32> sum=1.33967137343424838e2 abs=1.33967137343424838e2 weighted=3.91603887673467398e4
// RELU2: @relu result 0: tensor<17x11x3xf32> sum=1.33967137343424838e2 abs=1.33967137343424838e2 weighted=3.91603887673467398e4
// ERR: error: no function @nope in the module

func.func @matmul(%A: tensor<30x13xf32>, %B: tensor<13x17xf32>) -> tensor<30x17xf32> {
  %0 = te.compute (%m, %n) reduce (%k) in [30, 17, 13] may_pad 0.0 : (tensor<30x13xf32>, tensor<13x17xf32>) -> tensor<30x17xf32> {
    te.sum(%A[%m, %k] * %B[%k, %n])
  }
  return %0 : tensor<30x17xf32>
}

func.func @relu(%I: tensor<17x11x3xf32>) -> tensor<17x11x3xf32> {
  %0 = te.compute (%i, %j, %k) in [17, 11, 3] may_pad 0.0 : (tensor<17x11x3xf32>) -> tensor<17x11x3xf32> {
    max(%I[%i, %j, %k], 0.0)
  }
  return %0 : tensor<17x11x3xf32>
}

// Two results and a call.
func.func @two(%X: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = call @double(%X) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = te.compute (%i) in [4] may_pad 0.0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
    %0[%i] * %X[%i]
  }
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

func.func private @double(%X: tensor<4xf32>) -> tensor<4xf32> {
  %0 = te.compute (%i) in [4] may_pad 0.0 : (tensor<4xf32>) -> tensor<4xf32> {
    %X[%i] + %X[%i]
  }
  return %0 : tensor<4xf32>
}
