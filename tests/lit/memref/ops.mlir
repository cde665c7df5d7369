// memref.collapse_shape: custom and generic forms, as mlir-opt-22 prints them.
// RUN: rtile-opt %s | FileCheck %s
// RUN: rtile-opt %s | rtile-opt | FileCheck %s
// RUN: rtile-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: rtile-opt %s --mlir-print-op-generic | rtile-opt | FileCheck %s
// Upstream agrees: its custom output reads back to ours, its generic output too.
// RUN: mlir-opt-22 %s | rtile-opt | FileCheck %s
// RUN: rtile-opt %s --mlir-print-op-generic -o %t.generic
// RUN: mlir-opt-22 --mlir-print-op-generic %t.generic | rtile-opt --mlir-print-op-generic | diff %t.generic -

// CHECK-LABEL: func.func @collapse
// CHECK: %{{.*}} = memref.collapse_shape %arg0 {{\[\[}}0, 1, 2, 3]] : memref<2x3x4x5xf32> into memref<120xf32>
// CHECK: %{{.*}} = memref.collapse_shape %arg0 {{\[\[}}0], [1, 2], [3]] : memref<2x3x4x5xf32> into memref<2x12x5xf32>
// CHECK: %{{.*}} = memref.collapse_shape %arg1 {{\[\[}}0, 1]] {tag} : memref<?x4xi8, #gpu.address_space<workgroup>> into memref<?xi8, #gpu.address_space<workgroup>>
// GENERIC: "memref.collapse_shape"(%arg0) <{reassociation = {{\[\[}}0, 1, 2, 3]]}> : (memref<2x3x4x5xf32>) -> memref<120xf32>
// GENERIC: "memref.collapse_shape"(%arg0) <{reassociation = {{\[\[}}0], [1, 2], [3]]}> : (memref<2x3x4x5xf32>) -> memref<2x12x5xf32>
func.func @collapse(%a: memref<2x3x4x5xf32>, %b: memref<?x4xi8, #gpu.address_space<workgroup>>) -> f32 {
  %c7 = arith.constant 7 : index
  %0 = memref.collapse_shape %a [[0, 1, 2, 3]] : memref<2x3x4x5xf32> into memref<120xf32>
  %1 = memref.collapse_shape %a [[0], [1, 2], [3]] : memref<2x3x4x5xf32> into memref<2x12x5xf32>
  %2 = memref.collapse_shape %b [[0, 1]] {tag} : memref<?x4xi8, #gpu.address_space<workgroup>> into memref<?xi8, #gpu.address_space<workgroup>>
  %v = memref.load %0[%c7] : memref<120xf32>
  return %v : f32
}
