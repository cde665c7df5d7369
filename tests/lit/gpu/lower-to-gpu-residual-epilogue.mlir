// A fused kernel's epilogue reading another result from shared memory (issue 14;
// docs/passes/lower-to-gpu.md "An epilogue reading shared stages"): the residual
// `Y = F + L * 0.5` after the matmul `F`, as BERT's last residual, where `L` (a row
// centring) is returned and read by `F` at the shared level. `F` is the kernel's loop and
// `Y` its epilogue: three shared stages (the copy of `X` the row mean reduces, the row
// mean, `L`'s row tile), `L`'s owned rows written out, then the matmul, whose value at
// each point is added to `L` loaded from its shared tile at the same point before the
// store to `Y`. (Before, `F` and a copy of `W` were two more shared stages under an
// element-wise `Y` loop.) The simulator checks the function whole (both outputs) and the
// kernel against its members' chain.
// RUN: rtile-opt %s --connect=device=v100 --lower-to-gpu -o %t.mlir
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: rtile-run --sim --check %t.mlir | FileCheck %s --check-prefix=SIM
// RUN: rtile-opt %t.mlir --mlir-print-op-generic | mlir-opt --verify-each | FileCheck %s --check-prefix=UPSTREAM

// CHECK-LABEL: gpu.func @res_0(%arg0: memref<16x32xf32>, %arg1: memref<32x32xf32>, %arg2: memref<16x32xf32>, %arg3: memref<16x32xf32>) kernel
// CHECK-SAME: rtile.shared_stages = 3
// L's owned rows, from its shared tile to global memory.
// CHECK: memref.store %{{[0-9]+}}, %arg2[{{.*}}] : memref<16x32xf32>
// The matmul's loop over k reads L's tile and W's staged tile.
// CHECK: %[[ACC:[0-9]+]] = scf.for {{.*}} iter_args
// CHECK-NEXT: arith.subi
// CHECK-NEXT: memref.load %[[LT:[0-9]+]][{{.*}}] : memref<4x32xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: memref.load %{{[0-9]+}}[{{.*}}] : memref<32x32xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.addf
// The epilogue: L at the point, from shared memory, then the residual and the store.
// CHECK: %[[R:[0-9]+]] = memref.load %[[LT]][{{.*}}] : memref<4x32xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[H:[0-9]+]] = arith.mulf %[[R]], %{{.*}}
// CHECK-NEXT: %[[S:[0-9]+]] = arith.addf %[[ACC]], %[[H]]
// CHECK: memref.store {{.*}}, %arg3[{{.*}}] : memref<16x32xf32>
// CHECK-NOT: gpu.func
// CHECK: func.func @res(
// CHECK: "gpu.launch_func"({{.*}}, %arg0, %arg1, %arg2, %arg3) <{kernel = @kernels::@res_0
// CHECK-NOT: gpu.launch_func

// SIM: @res_0: 1024 elements, max relative error {{[0-9.]+e-([6-9]|[1-9][0-9])$}}
// SIM: @res: 1 kernels, 0 constants
// SIM: @res output 0: tensor<16x32xf32>, max relative error {{[0-9.]+e-([6-9]|[1-9][0-9])$}}
// SIM: @res output 1: tensor<16x32xf32>, max relative error {{[0-9.]+e-([6-9]|[1-9][0-9])$}}
// UPSTREAM: gpu.func @res_0

func.func @res(%X: tensor<16x32xf32>, %W: tensor<32x32xf32>) -> (tensor<16x32xf32>, tensor<16x32xf32>) {
  %Mu = te.compute (%m) reduce (%k) in [16, 32] : (tensor<16x32xf32>) -> tensor<16xf32> { te.sum(%X[%m, %k] / 32.0) }
  %L = te.compute (%m, %k) in [16, 32] : (tensor<16x32xf32>, tensor<16xf32>) -> tensor<16x32xf32> { %X[%m, %k] - %Mu[%m] }
  %F = te.compute (%m, %n) reduce (%k) in [16, 32, 32] : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32> { te.sum(%L[%m, %k] * %W[%k, %n]) }
  %Y = te.compute (%m, %n) in [16, 32] : (tensor<16x32xf32>, tensor<16x32xf32>) -> tensor<16x32xf32> { %F[%m, %n] + %L[%m, %n] * 0.5 }
  func.return %L, %Y : tensor<16x32xf32>, tensor<16x32xf32>
}
