// Type and attribute aliases are expanded where used; MLIR re-aliases only affine maps and sets on
// printing. CHECK lines are what mlir-opt-22 prints.
// RUN: rtile-opt --allow-unregistered-dialect %s | FileCheck %s
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic %s > %t.g
// RUN: mlir-opt --allow-unregistered-dialect --mlir-print-op-generic %t.g | rtile-opt --allow-unregistered-dialect --mlir-print-op-generic | diff %t.g -

!f32t = tensor<4x4xf32>
!pair = tuple<!f32t, i32>
#perm = affine_map<(d0, d1) -> (d1, d0)>
#cfg = {tile = [128, 128, 32], device = "h100"}
#str = "aliased string"
"x.op"() {a = #cfg, b = #str, c = !pair, d = #perm} : () -> ()
%0 = "x.val"() : () -> !f32t
"x.use"(%0) {m = #perm} : (!f32t) -> ()

// CHECK: #map = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-NEXT: module {
// CHECK-NEXT:   "x.op"() {a = {device = "h100", tile = [128, 128, 32]}, b = "aliased string", c = tuple<tensor<4x4xf32>, i32>, d = #map} : () -> ()
// CHECK-NEXT:   %0 = "x.val"() : () -> tensor<4x4xf32>
// CHECK-NEXT:   "x.use"(%0) {m = #map} : (tensor<4x4xf32>) -> ()
// CHECK-NEXT: }
