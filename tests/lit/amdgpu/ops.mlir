// amdgpu.mfma round-trips in upstream's custom form (default-valued properties elided), and
// upstream MLIR (mlir-opt-22) accepts rtile's output, custom and generic.
// RUN: rtile-opt %s | FileCheck %s
// RUN: rtile-opt %s | rtile-opt | FileCheck %s
// RUN: rtile-opt %s | mlir-opt-22 | FileCheck %s --check-prefix=UPSTREAM
// RUN: rtile-opt --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: rtile-opt --mlir-print-op-generic %s | mlir-opt-22 | FileCheck %s --check-prefix=UPSTREAM

// CHECK-LABEL: func.func @mfma_f16
// CHECK: amdgpu.mfma 32x32x8 %{{.*}} * %{{.*}} + %{{.*}} blgp = none : vector<4xf16>, vector<4xf16>, vector<16xf32>
// CHECK: amdgpu.mfma 16x16x16 %{{.*}} * %{{.*}} + %{{.*}} blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
// GENERIC: "amdgpu.mfma"(%{{.*}}, %{{.*}}, %{{.*}}) <{abid = 0 : i32, blgp = #amdgpu<mfma_perm_b none>, blocks = 1 : i32, cbsz = 0 : i32, k = 8 : i32, m = 32 : i32, n = 32 : i32}>
// UPSTREAM: amdgpu.mfma 32x32x8
// UPSTREAM: amdgpu.mfma 16x16x16
func.func @mfma_f16(%a: vector<4xf16>, %b: vector<4xf16>, %c: vector<16xf32>, %c4: vector<4xf32>) -> (vector<16xf32>, vector<4xf32>) {
  %d = amdgpu.mfma 32x32x8 %a * %b + %c blgp = none : vector<4xf16>, vector<4xf16>, vector<16xf32>
  %e = amdgpu.mfma 16x16x16 %a * %b + %c4 { blocks = 1 : i32 } blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
  return %d, %e : vector<16xf32>, vector<4xf32>
}

// CHECK-LABEL: func.func @mfma_bf16
// CHECK: amdgpu.mfma 32x32x8 %{{.*}} {abid = 1 : i32, cbsz = 1 : i32} blgp = bcast_second_32 : vector<4xbf16>, vector<4xbf16>, vector<16xf32>
// CHECK: amdgpu.mfma 16x16x16 %{{.*}} {reducePrecision} blgp = none : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
// UPSTREAM-LABEL: func.func @mfma_bf16
func.func @mfma_bf16(%a: vector<4xbf16>, %b: vector<4xbf16>, %c: vector<16xf32>, %c4: vector<4xf32>) -> (vector<16xf32>, vector<4xf32>) {
  %d = amdgpu.mfma 32x32x8 %a * %b + %c { abid = 1 : i32, cbsz = 1 : i32 } blgp = bcast_second_32 : vector<4xbf16>, vector<4xbf16>, vector<16xf32>
  %e = amdgpu.mfma 16x16x16 %a * %b + %c4 { reducePrecision } blgp = none : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
  return %d, %e : vector<16xf32>, vector<4xf32>
}

// Generic form with the properties spelled out parses as well.
// CHECK-LABEL: func.func @mfma_generic
// CHECK: amdgpu.mfma 16x16x1 %{{.*}} {blocks = 4 : i32} blgp = none : f32, f32, vector<16xf32>
func.func @mfma_generic(%a: f32, %b: f32, %c: vector<16xf32>) -> vector<16xf32> {
  %d = "amdgpu.mfma"(%a, %b, %c) <{abid = 0 : i32, blgp = #amdgpu<mfma_perm_b none>, blocks = 4 : i32, cbsz = 0 : i32, k = 1 : i32, m = 16 : i32, n = 16 : i32}> : (f32, f32, vector<16xf32>) -> vector<16xf32>
  return %d : vector<16xf32>
}
