// Results no kernel writes: an argument returned as-is, a constant (reshaped), one
// compute's result returned twice (once through a view), and functions without any
// compute. The host function copies each into its output memref with upstream's
// gpu.memcpy after the launches (a view copies from its base buffer: the manifest's copy
// step points at the base's bytes); the generic form verifies in mlir-opt-22 and
// rtile-run --sim runs every function whole against the f64 oracle.
// RUN: rtile-opt %s --construct-rtile=device=h100 --lower-to-gpu -o %t.mlir
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: rtile-opt %t.mlir --mlir-print-op-generic | mlir-opt --verify-each | FileCheck %s --check-prefix=UPSTREAM
// RUN: rtile-run --sim --seed 5 %t.mlir | FileCheck %s --check-prefix=SIM
// RUN: rtile-run --sim --func twice %t.mlir --model-manifest %t.json | FileCheck %s --check-prefix=ONE
// RUN: FileCheck %s --check-prefix=JSON --input-file=%t.json
// A module whose functions launch nothing: no device is needed, and no gpu.module made.
// RUN: rtile-opt %S/Inputs/copies-only.mlir --lower-to-gpu -o %t.only.mlir
// RUN: FileCheck %s --check-prefix=ONLY --input-file=%t.only.mlir
// RUN: rtile-opt %t.only.mlir --mlir-print-op-generic | mlir-opt --verify-each > /dev/null
// RUN: rtile-run --sim --seed 2 %t.only.mlir | FileCheck %s --check-prefix=ONLYSIM
// Without --sim the manifest is written as it is (the constant's bytes in the .bin).
// RUN: rtile-run --func folded %t.only.mlir --model-manifest %t.folded.json | FileCheck %s --check-prefix=NOSIM
// RUN: FileCheck %s --check-prefix=FOLDED --input-file=%t.folded.json
// RUN: od -An -tx1 %t.folded.bin | FileCheck %s --check-prefix=BIN

// CHECK: func.func @returns_an_argument(%[[A:arg0]]: memref<4xf32>, %[[O0:arg1]]: memref<4xf32>, %[[O1:arg2]]: memref<4xf32>)
// CHECK: "gpu.launch_func"({{.*}}, %[[A]], %[[O0]]) <{kernel = @kernels::@returns_an_argument_0,
// CHECK-NEXT: "gpu.memcpy"(%[[O1]], %[[A]]) : (memref<4xf32>, memref<4xf32>) -> ()
// CHECK-NEXT: return

// CHECK: func.func @returns_a_constant(%[[A:arg0]]: memref<4xf32>, %[[O0:arg1]]: memref<4xf32>, %[[O1:arg2]]: memref<2x2xf32>)
// CHECK: %[[W:[0-9]+]] = "memref.get_global"() <{name = @__constant_{{[0-9a-z_]+}}}> : () -> memref<4xf32>
// CHECK: "gpu.launch_func"({{.*}}, %[[A]], %[[W]], %[[O0]])
// CHECK-NEXT: %[[WV:[0-9]+]] = "memref.expand_shape"(%[[W]]) <{reassociation = {{\[\[}}0, 1]], static_output_shape = array<i64: 2, 2>}> : (memref<4xf32>) -> memref<2x2xf32>
// CHECK-NEXT: "gpu.memcpy"(%[[O1]], %[[WV]]) : (memref<2x2xf32>, memref<2x2xf32>) -> ()
// CHECK-NEXT: return

// CHECK: func.func @twice(%[[A:arg0]]: memref<4xf32>, %[[O0:arg1]]: memref<4xf32>, %[[O1:arg2]]: memref<2x2xf32>, %[[O2:arg3]]: memref<4xf32>)
// CHECK: "gpu.launch_func"({{.*}}, %[[A]], %[[O0]]) <{kernel = @kernels::@returns_an_argument_0,
// CHECK-NEXT: %[[V:[0-9]+]] = "memref.expand_shape"(%[[O0]])
// CHECK-NEXT: "gpu.memcpy"(%[[O1]], %[[V]]) : (memref<2x2xf32>, memref<2x2xf32>) -> ()
// CHECK-NEXT: "gpu.memcpy"(%[[O2]], %[[O0]]) : (memref<4xf32>, memref<4xf32>) -> ()
// CHECK-NEXT: return

// UPSTREAM-LABEL: func.func @returns_an_argument
// UPSTREAM: gpu.memcpy %arg2, %arg0 : memref<4xf32>, memref<4xf32>
// UPSTREAM-LABEL: func.func @returns_a_constant
// UPSTREAM: gpu.memcpy %arg2, %{{.*}} : memref<2x2xf32>, memref<2x2xf32>
// UPSTREAM-LABEL: func.func @twice
// UPSTREAM: gpu.memcpy %arg2, %{{.*}} : memref<2x2xf32>, memref<2x2xf32>
// UPSTREAM: gpu.memcpy %arg3, %arg1 : memref<4xf32>, memref<4xf32>

// SIM: @returns_an_argument: 1 kernels, 1 copies, 0 constants, peak intermediate memory 0 bytes
// SIM-NEXT: @returns_an_argument output 0: tensor<4xf32>, max relative error {{[0-9.]+e-?[0-9]+}}
// SIM-NEXT: @returns_an_argument output 1: tensor<4xf32>, max relative error 0.000e0
// SIM-NEXT: @returns_a_constant: 1 kernels, 1 copies, 1 constants, peak intermediate memory 0 bytes
// SIM-NEXT: @returns_a_constant output 0: tensor<4xf32>, max relative error {{[0-9.]+e-?[0-9]+}}
// SIM-NEXT: @returns_a_constant output 1: tensor<2x2xf32>, max relative error 0.000e0
// SIM-NEXT: @twice: 1 kernels, 2 copies, 0 constants, peak intermediate memory 0 bytes
// SIM-NEXT: @twice output 0: tensor<4xf32>, max relative error {{[0-9.]+e-?[0-9]+}}
// SIM-NEXT: @twice output 1: tensor<2x2xf32>, max relative error {{[0-9.]+e-?[0-9]+}}
// SIM-NEXT: @twice output 2: tensor<4xf32>, max relative error {{[0-9.]+e-?[0-9]+}}
// SIM-NEXT: max relative error

// ONE: @twice: 1 kernels, 2 copies

// JSON: "kernel": "returns_an_argument_0",
// JSON: "copy": {
// JSON-NEXT: "src": {
// JSON-NEXT: "buffer": {
// JSON-NEXT: "output": 0
// JSON-NEXT: },
// JSON-NEXT: "offset": 0
// JSON-NEXT: },
// JSON-NEXT: "dst": {
// JSON-NEXT: "buffer": {
// JSON-NEXT: "output": 1
// JSON-NEXT: },
// JSON-NEXT: "offset": 0
// JSON-NEXT: },
// JSON-NEXT: "bytes": 16
// JSON: "copy": {
// JSON: "output": 2
// JSON: "bytes": 16

// ONLY-NOT: gpu.module
// ONLY: func.func @views_only(%[[A:arg0]]: memref<2x3xf32>, %[[O0:arg1]]: memref<6xf32>, %[[O1:arg2]]: memref<3x2xf32>, %[[O2:arg3]]: memref<2x3xf32>)
// ONLY-NOT: gpu.launch_func
// ONLY: %[[F:[0-9]+]] = memref.collapse_shape %[[A]]
// ONLY-NEXT: "gpu.memcpy"(%[[O0]], %[[F]]) : (memref<6xf32>, memref<6xf32>) -> ()
// ONLY-NEXT: %[[E:[0-9]+]] = "memref.expand_shape"(%[[F]])
// ONLY-NEXT: "gpu.memcpy"(%[[O1]], %[[E]]) : (memref<3x2xf32>, memref<3x2xf32>) -> ()
// ONLY-NEXT: "gpu.memcpy"(%[[O2]], %[[A]]) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
// ONLY: func.func @folded(%[[O:arg0]]: memref<2x2xi8>)
// ONLY-NEXT: %[[W:[0-9]+]] = "memref.get_global"() <{name = @__constant_{{.*}}}> : () -> memref<2x2xi8>
// ONLY-NEXT: "gpu.memcpy"(%[[O]], %[[W]]) : (memref<2x2xi8>, memref<2x2xi8>) -> ()
// ONLY-NEXT: return

// NOSIM: folded: 0 launches, 1 copies -> {{.*}}folded.json
// FOLDED: "constants_file": "{{.*}}folded.bin",
// FOLDED: "copy": {
// FOLDED-NEXT: "src": {
// FOLDED-NEXT: "buffer": {
// FOLDED-NEXT: "constant": 0
// FOLDED: "output": 0
// FOLDED: "bytes": 4
// BIN: 01 fe 03 7f

// ONLYSIM: @views_only: 0 kernels, 3 copies, 0 constants, peak intermediate memory 0 bytes
// ONLYSIM-NEXT: @views_only output 0: tensor<6xf32>, max relative error 0.000e0
// ONLYSIM-NEXT: @views_only output 1: tensor<3x2xf32>, max relative error 0.000e0
// ONLYSIM-NEXT: @views_only output 2: tensor<2x3xf32>, max relative error 0.000e0
// ONLYSIM-NEXT: @folded: 0 kernels, 1 copies, 1 constants, peak intermediate memory 0 bytes
// ONLYSIM-NEXT: @folded output 0: tensor<2x2xi8>, max relative error 0.000e0

func.func @returns_an_argument(%A: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %C = te.compute (%i) in [4] : (tensor<4xf32>) -> tensor<4xf32> {
    %A[%i] * 3.0
  }
  return %C, %A : tensor<4xf32>, tensor<4xf32>
}

func.func @returns_a_constant(%A: tensor<4xf32>) -> (tensor<4xf32>, tensor<2x2xf32>) {
  %W = "arith.constant"() <{value = dense<[1.0, 2.0, -3.0, 0.5]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %C = te.compute (%i) in [4] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
    %A[%i] * %W[%i]
  }
  %E = tensor.expand_shape %W [[0, 1]] output_shape [2, 2] : tensor<4xf32> into tensor<2x2xf32>
  return %C, %E : tensor<4xf32>, tensor<2x2xf32>
}

func.func @twice(%A: tensor<4xf32>) -> (tensor<4xf32>, tensor<2x2xf32>, tensor<4xf32>) {
  %C = te.compute (%i) in [4] : (tensor<4xf32>) -> tensor<4xf32> {
    %A[%i] * 3.0
  }
  %E = tensor.expand_shape %C [[0, 1]] output_shape [2, 2] : tensor<4xf32> into tensor<2x2xf32>
  return %C, %E, %C : tensor<4xf32>, tensor<2x2xf32>, tensor<4xf32>
}
