// --lower-to-gpu on tensor-core programs of convolutions (implicit GEMM, Roller §5.1):
// --construct-rtile tiles the view M = n*y*x (output pixels), N = f (filters), K = the
// reduction axes in the weights' order, and the kernel gathers the im2col A operand into
// shared memory (plain loads: the window is not 16-byte contiguous; zero padding by
// select), copies the weights as a collapsed [N, K] matrix with cp.async, then the
// matmul's ldmatrix / mma.sync m16n8k16 / epilogue. @conv3: NCHW f16, 3x3, padding 1;
// @nhwc: NHWC bf16 into f32, HWIO weights, 3x3, stride 2, padding 1, 19 channels.
//
// RUN: rtile-opt %s --construct-rtile="device=a100" --rtile-select --lower-to-gpu | FileCheck %s
// Upstream MLIR verifies the kernels.
// RUN: rtile-opt %s --construct-rtile="device=a100" --rtile-select --lower-to-gpu --mlir-print-op-generic | mlir-opt-22 --verify-each | FileCheck %s --check-prefix=UPSTREAM
// RUN: rtile-opt %s --construct-rtile="device=h100" --rtile-select --lower-to-gpu --mlir-print-op-generic | mlir-opt-22 --verify-each | FileCheck %s --check-prefix=UPSTREAM
// The CPU GPU-simulator runs them against the te interpreter (f64 accumulation, rounded once):
// an f16 result may differ by one f16 ulp (2^-10 ~ 9.8e-4 of the largest element) plus the
// f32 accumulation's ~1e-5 (K = 72 and 171), hence 1.1e-3; the f32 result by the
// accumulation order only.
// RUN: rtile-opt %s --construct-rtile="device=a100" --rtile-select --lower-to-gpu | rtile-run --sim --check --tolerance 1.1e-3 | FileCheck %s --check-prefix=SIM
// RUN: rtile-opt %s --construct-rtile="device=h100" --rtile-select --lower-to-gpu | rtile-run --sim --check --tolerance 1.1e-3 | FileCheck %s --check-prefix=SIM

// The program over the view: 16 pixels x 8 filters x 80 of K = 8*3*3 = 72 per block.
// CHECK-LABEL: gpu.func @conv3_0(%arg0: memref<2x8x9x9xf16>, %arg1: memref<16x8x3x3xf16>, %arg2: memref<2x16x9x9xf16>)
// CHECK-SAME: workgroup(%[[SA:.*]] : memref<1x16x88xf16, #gpu.address_space<workgroup>>, %[[SB:.*]] : memref<1x10x88xf16, #gpu.address_space<workgroup>>)
// The OIHW weights as a [16, 72] matrix.
// CHECK: %[[W:.*]] = memref.collapse_shape %arg1 {{\[\[}}0], [1, 2, 3]] : memref<16x8x3x3xf16> into memref<16x72xf16>
// CHECK: scf.for
// The gather: 40 elements a thread, a loop of 8 unrolled; the window's indices compared
// unsigned (a negative one fails too), clamped, the value replaced by the padding.
// CHECK: scf.for
// CHECK: arith.cmpi ult, %{{.*}}, %c9 : index
// CHECK: memref.load %arg0[{{.*}}] : memref<2x8x9x9xf16>
// CHECK: arith.select %{{.*}}, %{{.*}}, %cst : f16
// CHECK: memref.store %{{.*}}, %[[SA]][{{.*}}] : memref<1x16x88xf16, #gpu.address_space<workgroup>>
// The weights: 16-byte cp.async (72 halves a row).
// CHECK: nvgpu.device_async_copy %[[W]][{{.*}}], %[[SB]][{{.*}}], 8, %{{.*}} {bypassL1}
// CHECK: nvgpu.device_async_create_group
// CHECK: nvgpu.device_async_wait
// CHECK: gpu.barrier
// CHECK: nvgpu.ldmatrix %[[SA]][{{.*}}] {numTiles = 4 : i32, transpose = false}
// CHECK: nvgpu.ldmatrix %[[SB]][{{.*}}] {numTiles = 2 : i32, transpose = false}
// CHECK: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// The epilogue: the pixel delinearised again into n, y, x of the NCHW output.
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: memref.store %{{.*}}, %arg2[{{.*}}] : memref<2x16x9x9xf16>
// CHECK-LABEL: gpu.func @nhwc_1(
// HWIO weights: a [K = 3*3*19, N = 24] matrix, read by ldmatrix .trans.
// CHECK: memref.collapse_shape %arg1 {{\[\[}}0, 1, 2], [3]] : memref<3x3x19x24xbf16> into memref<171x24xbf16>
// CHECK: memref.load %arg0[{{.*}}] : memref<1x11x11x19xbf16>
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 2 : i32, transpose = true}
// CHECK: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
// f32 out, f the output's last dim: pairs of columns as one vector store.
// CHECK: vector.store %{{.*}}, %arg2[{{.*}}] : memref<1x6x6x24xf32>, vector<2xf32>

// UPSTREAM-LABEL: gpu.func @conv3_0
// UPSTREAM: memref.collapse_shape
// UPSTREAM: nvgpu.device_async_copy
// UPSTREAM: nvgpu.ldmatrix
// UPSTREAM: nvgpu.mma.sync
// UPSTREAM-LABEL: gpu.func @nhwc_1
// UPSTREAM: nvgpu.mma.sync

// SIM: @conv3 output 0: tensor<2x16x9x9xf16>, max relative error {{[0-9.]+e-(4|5|6|7)}}
// SIM: @nhwc output 0: tensor<1x6x6x24xf32>, max relative error {{[0-9.]+e-(5|6|7|8)}}

func.func @conv3(%D: tensor<2x8x9x9xf16>, %K: tensor<16x8x3x3xf16>) -> tensor<2x16x9x9xf16> {
  %O = te.compute (%n, %f, %y, %x) reduce (%c, %ry, %rx) in [2, 16, 9, 9, 8, 3, 3] acc(f32) : (tensor<2x8x9x9xf16>, tensor<16x8x3x3xf16>) -> tensor<2x16x9x9xf16> { te.sum(f32(%D[%n, %c, %y + %ry - 1, %x + %rx - 1] pad 0.0) * f32(%K[%f, %c, %ry, %rx])) }
  func.return %O : tensor<2x16x9x9xf16>
}

func.func @nhwc(%D: tensor<1x11x11x19xbf16>, %K: tensor<3x3x19x24xbf16>) -> tensor<1x6x6x24xf32> {
  %O = te.compute (%n, %y, %x, %f) reduce (%c, %ry, %rx) in [1, 6, 6, 24, 19, 3, 3] acc(f32) : (tensor<1x11x11x19xbf16>, tensor<3x3x19x24xbf16>) -> tensor<1x6x6x24xf32> { te.sum(f32(%D[%n, %y * 2 + %ry - 1, %x * 2 + %rx - 1, %c] pad 0.0) * f32(%K[%ry, %rx, %c, %f])) }
  func.return %O : tensor<1x6x6x24xf32>
}
