// nvgpu ops: custom and generic forms, as mlir-opt-22 prints them.
// RUN: rtile-opt %s | FileCheck %s
// RUN: rtile-opt %s | rtile-opt | FileCheck %s
// RUN: rtile-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: rtile-opt %s --mlir-print-op-generic | rtile-opt | FileCheck %s
// Upstream agrees: its custom output reads back to ours, ours reads into upstream, and the
// generic forms are the same text.
// RUN: mlir-opt-22 %s | rtile-opt | FileCheck %s
// RUN: rtile-opt %s | mlir-opt-22 | FileCheck %s --check-prefix=UPSTREAM
// RUN: rtile-opt %s --mlir-print-op-generic -o %t.generic
// RUN: mlir-opt-22 --mlir-print-op-generic %t.generic | rtile-opt --mlir-print-op-generic | diff %t.generic -

// CHECK-LABEL: func.func @mma
// CHECK: nvgpu.mma.sync(%arg0, %arg1, %arg2) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK: nvgpu.mma.sync(%arg3, %arg4, %arg2) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK: nvgpu.mma.sync(%arg5, %arg6, %arg2) {mmaShape = [16, 8, 8]} : (vector<2x2xf16>, vector<1x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// GENERIC: "nvgpu.mma.sync"(%{{.*}}, %{{.*}}, %{{.*}}) <{mmaShape = [16, 8, 16]}> : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// UPSTREAM: nvgpu.mma.sync(%arg0, %arg1, %arg2) {mmaShape = [16, 8, 16]}
func.func @mma(%a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>,
               %ab: vector<4x2xbf16>, %bb: vector<2x2xbf16>,
               %a8: vector<2x2xf16>, %b8: vector<1x2xf16>) -> vector<2x2xf32> {
  %d = nvgpu.mma.sync (%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
  %e = nvgpu.mma.sync (%ab, %bb, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
  %f = nvgpu.mma.sync (%a8, %b8, %c) {mmaShape = [16, 8, 8]} : (vector<2x2xf16>, vector<1x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
  return %d : vector<2x2xf32>
}

// CHECK-LABEL: func.func @ldmatrix
// CHECK: nvgpu.ldmatrix %arg0[%c0, %c8] {numTiles = 4 : i32, transpose = false} : memref<32x32xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: nvgpu.ldmatrix %arg0[%c0, %c0] {numTiles = 2 : i32, transpose = true} : memref<32x32xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
// CHECK: nvgpu.ldmatrix %arg1[%c0] {numTiles = 1 : i32, transpose = false} : memref<64xbf16, 3> -> vector<1x2xbf16>
// GENERIC: "nvgpu.ldmatrix"(%{{.*}}, %{{.*}}, %{{.*}}) <{numTiles = 4 : i32, transpose = false}> : (memref<32x32xf16, #gpu.address_space<workgroup>>, index, index) -> vector<4x2xf16>
func.func @ldmatrix(%sm: memref<32x32xf16, #gpu.address_space<workgroup>>, %s1: memref<64xbf16, 3>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %0 = nvgpu.ldmatrix %sm[%c0, %c8] {numTiles = 4 : i32, transpose = false} : memref<32x32xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
  %1 = nvgpu.ldmatrix %sm[%c0, %c0] {numTiles = 2 : i32, transpose = true} : memref<32x32xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
  %2 = nvgpu.ldmatrix %s1[%c0] {numTiles = 1 : i32, transpose = false} : memref<64xbf16, 3> -> vector<1x2xbf16>
  return
}

// CHECK-LABEL: func.func @async
// CHECK: %[[T0:.*]] = nvgpu.device_async_copy %arg0[%c0, %c8], %arg1[%c0, %c0], 8 : memref<64x64xf16> to memref<32x32xf16, #gpu.address_space<workgroup>>
// CHECK: %[[T1:.*]] = nvgpu.device_async_copy %arg0[%c0, %c0], %arg1[%c8, %c0], 8, %c4 {bypassL1} : memref<64x64xf16> to memref<32x32xf16, #gpu.address_space<workgroup>>
// CHECK: %[[T2:.*]] = nvgpu.device_async_copy %arg2[%c0], %arg3[%c0], 1 : memref<16xf32> to memref<16xf32, 3>
// CHECK: %[[G:.*]] = nvgpu.device_async_create_group %[[T0]], %[[T1]]
// CHECK: nvgpu.device_async_wait %[[G]] {numGroups = 1 : i32}
// CHECK: nvgpu.device_async_wait %[[G]]{{$}}
// GENERIC: "nvgpu.device_async_copy"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{dstElements = 8 : index, operandSegmentSizes = array<i32: 1, 2, 1, 2, 0>}> : (memref<32x32xf16, #gpu.address_space<workgroup>>, index, index, memref<64x64xf16>, index, index) -> !nvgpu.device.async.token
// GENERIC: "nvgpu.device_async_copy"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{bypassL1, dstElements = 8 : index, operandSegmentSizes = array<i32: 1, 2, 1, 2, 1>}>
// GENERIC: "nvgpu.device_async_create_group"(%{{.*}}, %{{.*}}) : (!nvgpu.device.async.token, !nvgpu.device.async.token) -> !nvgpu.device.async.token
// GENERIC: "nvgpu.device_async_wait"(%{{.*}}) <{numGroups = 1 : i32}> : (!nvgpu.device.async.token) -> ()
// UPSTREAM: nvgpu.device_async_copy %arg0[%c0, %c8], %arg1[%c0, %c0], 8 :
// UPSTREAM: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
func.func @async(%g: memref<64x64xf16>, %sm: memref<32x32xf16, #gpu.address_space<workgroup>>,
                 %gf: memref<16xf32>, %sf: memref<16xf32, 3>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %t0 = nvgpu.device_async_copy %g[%c0, %c8], %sm[%c0, %c0], 8 : memref<64x64xf16> to memref<32x32xf16, #gpu.address_space<workgroup>>
  %t1 = nvgpu.device_async_copy %g[%c0, %c0], %sm[%c8, %c0], 8, %c4 {bypassL1} : memref<64x64xf16> to memref<32x32xf16, #gpu.address_space<workgroup>>
  %t2 = nvgpu.device_async_copy %gf[%c0], %sf[%c0], 1 : memref<16xf32> to memref<16xf32, 3>
  %g0 = nvgpu.device_async_create_group %t0, %t1
  nvgpu.device_async_wait %g0 {numGroups = 1 : i32}
  nvgpu.device_async_wait %g0
  return
}
