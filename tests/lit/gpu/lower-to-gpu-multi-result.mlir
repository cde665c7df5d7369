// A tilegraph.kernel with several results lowered as ONE kernel writing both (issue 14;
// Welder §3.1's output nodes, lower_to_gpu/results.rs): a LayerNorm-like centring `L`
// (a row mean and its element-wise consumer) is returned and read by the matmul `F` at the
// shared level. `F` (the last result) is the anchor; `L` is a shared stage of its kernel:
// each block computes its [4 x 32] row tile into shared memory, a barrier, then writes the
// rows it owns (its tile moves by 4 rows per block: rows 4b .. 4b + 3, guarded by the
// extent) from shared memory to `L`'s output, before the matmul's loop reads the same
// tile. One launch, four memrefs (two inputs, two outputs); the split wrote `L` from a
// kernel of its own and recomputed it in `F`'s. The simulator checks the function whole
// (both outputs) and the kernel against its members' chain returning both results.
// RUN: rtile-opt %s --connect=device=v100 --lower-to-gpu -o %t.mlir
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: rtile-run --sim --check %t.mlir | FileCheck %s --check-prefix=SIM
// RUN: rtile-opt %t.mlir --mlir-print-op-generic | mlir-opt --verify-each | FileCheck %s --check-prefix=UPSTREAM
// RUN: rtile-opt %s --connect=device=v100 --lower-to-gpu=one-kernel-results=false | rtile-run --sim | FileCheck %s --check-prefix=SPLIT

// CHECK-LABEL: gpu.func @ln_0(%arg0: memref<16x32xf32>, %arg1: memref<32x24xf32>, %arg2: memref<16x32xf32>, %arg3: memref<16x24xf32>) kernel
// CHECK-NOT: rtile.split_result
// CHECK-SAME: rtile.shared_stages = 3
// CHECK-SAME: rtile.te = "func.func @ref({{.*}}) -> (tensor<16x32xf32>, tensor<16x24xf32>) {{.*}}func.return %m1, %m2 : tensor<16x32xf32>, tensor<16x24xf32> }"
// The stages, each ending with a barrier; the last is L's row tile.
// CHECK-COUNT-3: gpu.barrier
// L's owned rows: from its shared tile to global memory, inside the block's extent.
// CHECK: scf.for
// CHECK: arith.cmpi slt, {{.*}}, %c16
// CHECK: scf.if
// CHECK: memref.load {{.*}} : memref<4x32xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: memref.store {{.*}}, %arg2[{{.*}}] : memref<16x32xf32>
// The matmul reads L's tile from shared memory and stores F.
// CHECK: memref.load {{.*}} : memref<4x32xf32, #gpu.address_space<workgroup>>
// CHECK: memref.store {{.*}}, %arg3[{{.*}}] : memref<16x24xf32>
// CHECK-NOT: gpu.func
// CHECK: func.func @ln(
// CHECK: "gpu.launch_func"({{.*}}, %arg0, %arg1, %arg2, %arg3) <{kernel = @kernels::@ln_0
// CHECK-NOT: gpu.launch_func

// SIM: @ln_0: 896 elements, max relative error {{[0-9.]+e-([6-9]|[1-9][0-9])$}}
// SIM: @ln: 1 kernels, 0 constants
// SIM: @ln output 0: tensor<16x32xf32>, max relative error {{[0-9.]+e-([6-9]|[1-9][0-9])$}}
// SIM: @ln output 1: tensor<16x24xf32>, max relative error {{[0-9.]+e-([6-9]|[1-9][0-9])$}}
// UPSTREAM: gpu.func @ln_0
// SPLIT: @ln: 2 kernels, 0 constants

func.func @ln(%X: tensor<16x32xf32>, %W: tensor<32x24xf32>) -> (tensor<16x32xf32>, tensor<16x24xf32>) {
  %Mu = te.compute (%m) reduce (%k) in [16, 32] : (tensor<16x32xf32>) -> tensor<16xf32> { te.sum(%X[%m, %k] / 32.0) }
  %L = te.compute (%m, %k) in [16, 32] : (tensor<16x32xf32>, tensor<16xf32>) -> tensor<16x32xf32> { %X[%m, %k] - %Mu[%m] }
  %F = te.compute (%m, %n) reduce (%k) in [16, 24, 32] : (tensor<16x32xf32>, tensor<32x24xf32>) -> tensor<16x24xf32> { te.sum(%L[%m, %k] * %W[%k, %n]) }
  func.return %L, %F : tensor<16x32xf32>, tensor<16x24xf32>
}
