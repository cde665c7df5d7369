// Builtin types: every form round-trips through rtile-opt in custom and generic form, and the
// generic form parses in mlir-opt-22 and comes back unchanged. CHECK lines are what mlir-opt-22 prints.
// RUN: rtile-opt --allow-unregistered-dialect %s | FileCheck %s
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic %s > %t.g
// RUN: mlir-opt --allow-unregistered-dialect --mlir-print-op-generic %t.g | rtile-opt --allow-unregistered-dialect --mlir-print-op-generic | diff %t.g -
// RUN: rtile-opt --allow-unregistered-dialect %s | rtile-opt --allow-unregistered-dialect | FileCheck %s

"t.ints"() {a = i1, b = i8, c = i32, d = i64, e = si16, f = ui32, g = i128, h = index} : () -> ()
"t.floats"() {a = f16, b = bf16, c = f32, d = f64, e = tf32, f = f8E4M3FN, g = f8E5M2, h = f80, i = f128} : () -> ()
"t.misc"() {a = none, b = complex<f32>, c = tuple<>, d = tuple<i32, f32>, e = tuple<tuple<i1>>} : () -> ()
"t.tensors"() {a = tensor<4x4xf32>, b = tensor<?x4xf16>, c = tensor<*xi8>, d = tensor<f32>, e = tensor<1x?x?xbf16>, f = tensor<0x3xi32>, g = tensor<4xf32, "enc">} : () -> ()
"t.memrefs"() {a = memref<4x4xf32>, b = memref<?xf32, 3>, c = memref<8x8xf32, strided<[8, 1], offset: ?>>, d = memref<*xf32>, e = memref<*xf32, 1>, f = memref<4xf32, affine_map<(d0) -> (d0 * 2)>>, g = memref<16xf32, #gpu.address_space<workgroup>>, h = memref<f32>, i = memref<2x3xf32, strided<[?, ?]>>} : () -> ()
"t.vectors"() {a = vector<4xf32>, b = vector<4x8xf16>, c = vector<[4]xf32>, d = vector<2x[8]xi8>} : () -> ()
"t.functions"() {a = () -> (), b = (i32) -> i32, c = (i32, f32) -> (f32, i32), d = (i32) -> ((i32) -> i32), e = ((i1) -> i1) -> ()} : () -> ()
"t.dialect"() {a = !llvm.ptr, b = !llvm.ptr<1>, c = !foo.bar<"x", [1, 2]>, d = !foo<"opaque body">} : () -> ()
%0 = "t.results"() : () -> tensor<2x?xf32>
%1:2 = "t.pair"(%0) : (tensor<2x?xf32>) -> (i32, memref<4xf32>)
"t.use"(%1#1, %1#0) : (memref<4xf32>, i32) -> ()

// CHECK: #map = affine_map<(d0) -> (d0 * 2)>
// CHECK-NEXT: module {
// CHECK-NEXT:   "t.ints"() {a = i1, b = i8, c = i32, d = i64, e = si16, f = ui32, g = i128, h = index} : () -> ()
// CHECK-NEXT:   "t.floats"() {a = f16, b = bf16, c = f32, d = f64, e = tf32, f = f8E4M3FN, g = f8E5M2, h = f80, i = f128} : () -> ()
// CHECK-NEXT:   "t.misc"() {a = none, b = complex<f32>, c = tuple<>, d = tuple<i32, f32>, e = tuple<tuple<i1>>} : () -> ()
// CHECK-NEXT:   "t.tensors"() {a = tensor<4x4xf32>, b = tensor<?x4xf16>, c = tensor<*xi8>, d = tensor<f32>, e = tensor<1x?x?xbf16>, f = tensor<0x3xi32>, g = tensor<4xf32, "enc">} : () -> ()
// CHECK-NEXT:   "t.memrefs"() {a = memref<4x4xf32>, b = memref<?xf32, 3>, c = memref<8x8xf32, strided<[8, 1], offset: ?>>, d = memref<*xf32>, e = memref<*xf32, 1>, f = memref<4xf32, #map>, g = memref<16xf32, #gpu.address_space<workgroup>>, h = memref<f32>, i = memref<2x3xf32, strided<[?, ?]>>} : () -> ()
// CHECK-NEXT:   "t.vectors"() {a = vector<4xf32>, b = vector<4x8xf16>, c = vector<[4]xf32>, d = vector<2x[8]xi8>} : () -> ()
// CHECK-NEXT:   "t.functions"() {a = () -> (), b = (i32) -> i32, c = (i32, f32) -> (f32, i32), d = (i32) -> ((i32) -> i32), e = ((i1) -> i1) -> ()} : () -> ()
// CHECK-NEXT:   "t.dialect"() {a = !llvm.ptr, b = !llvm.ptr<1>, c = !foo.bar<"x", [1, 2]>, d = !foo<"opaque body">} : () -> ()
// CHECK-NEXT:   %0 = "t.results"() : () -> tensor<2x?xf32>
// CHECK-NEXT:   %1:2 = "t.pair"(%0) : (tensor<2x?xf32>) -> (i32, memref<4xf32>)
// CHECK-NEXT:   "t.use"(%1#1, %1#0) : (memref<4xf32>, i32) -> ()
// CHECK-NEXT: }
