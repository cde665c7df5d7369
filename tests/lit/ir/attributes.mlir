// Builtin attributes: scalars, floats (MLIR float printing), strings and escapes, collections,
// dense arrays and elements, symbol references, strided layouts, dialect attributes, properties.
// CHECK lines are what mlir-opt-22 prints for the same input.
// RUN: rtile-opt --allow-unregistered-dialect %s | FileCheck %s
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic %s > %t.g
// RUN: mlir-opt --allow-unregistered-dialect --mlir-print-op-generic %t.g | rtile-opt --allow-unregistered-dialect --mlir-print-op-generic | diff %t.g -
// RUN: rtile-opt --allow-unregistered-dialect %s | rtile-opt --allow-unregistered-dialect | FileCheck %s

"a.scalars"() {b1 = true, b2 = false, i1 = 42, i2 = 42 : i32, i3 = -1 : i8, i4 = 7 : index, i5 = 255 : ui8, i6 = -3 : si4, i7 = 0x10 : i64, u = unit, flag} : () -> ()
"a.floats"() {f1 = 1.0, f2 = 1.5 : f32, f3 = -0.0 : f64, f4 = 0.1 : f32, f5 = 3.14159265358979 : f64, f6 = 1.0e-10 : f64, f7 = 0x7FC00000 : f32, f8 = 0x7FF0000000000000 : f64, f9 = 2.5 : f16, f10 = 0.1 : bf16, f11 = 1.0e+20 : f32, f12 = 123456789.0 : f64} : () -> ()
"a.strings"() {s1 = "plain", s2 = "with \"quotes\" and \\ backslash", s3 = "tab\tnewline\n", s4 = "", s5 = "typed" : i32} : () -> ()
"a.collections"() {arr = [1, "two", 3.0 : f32, [4, [5]], []], d = {z = 1, a = "x", m}, nested = {inner = {deep = [true]}}} : () -> ()
"a.dense_arrays"() {a = array<i64: 1, 2, 3>, b = array<i32>, c = array<i1: true, false>, d = array<f32: 1.0, 2.5>, e = array<f64: -1.0>, f = array<i8: -128, 127>, g = array<i16: 0>} : () -> ()
"a.symbols"() {s1 = @foo, s2 = @"with space", s3 = @a::@b::@c, s4 = @"q"::@r} : () -> ()
"a.dense"() {d1 = dense<[1, 2, 3]> : tensor<3xi32>, d2 = dense<1.0> : tensor<2x2xf32>, d3 = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf64>, d4 = dense<true> : tensor<4xi1>, d5 = dense<[(1.0, 2.0)]> : tensor<1xcomplex<f32>>, d6 = dense<[]> : tensor<0xf32>, d7 = dense<5> : vector<4xi8>} : () -> ()
"a.types_as_attrs"() {t1 = i32, t2 = tensor<?xf32>, t3 = (i32) -> f32, t4 = !llvm.ptr} : () -> ()
"a.strided"() {s1 = strided<[1]>, s2 = strided<[4, 1], offset: 8>, s3 = strided<[?, 1], offset: ?>} : () -> ()
"a.dialect_attrs"() {x = #gpu.address_space<workgroup>, y = #foo.bar<1, [2, 3], "s">, z = #foo<"opaque">, w = #arith.fastmath<fast>} : () -> ()
"a.properties"() <{p = 1 : i32, q = "s"}> {r = 2} : () -> ()

// CHECK: module {
// CHECK-NEXT:   "a.scalars"() {b1 = true, b2 = false, flag, i1 = 42 : i64, i2 = 42 : i32, i3 = -1 : i8, i4 = 7 : index, i5 = 255 : ui8, i6 = -3 : si4, i7 = 16 : i64, u} : () -> ()
// CHECK-NEXT:   "a.floats"() {f1 = 1.000000e+00 : f64, f10 = 1.000980e-01 : bf16, f11 = 1.000000e+20 : f32, f12 = 0x419D6F3454000000 : f64, f2 = 1.500000e+00 : f32, f3 = -0.000000e+00 : f64, f4 = 1.000000e-01 : f32, f5 = 3.14159265358979 : f64, f6 = 1.000000e-10 : f64, f7 = 0x7FC00000 : f32, f8 = 0x7FF0000000000000 : f64, f9 = 2.500000e+00 : f16} : () -> ()
// CHECK-NEXT:   "a.strings"() {s1 = "plain", s2 = "with \22quotes\22 and \\ backslash", s3 = "tab\09newline\0A", s4 = "", s5 = "typed" : i32} : () -> ()
// CHECK-NEXT:   "a.collections"() {arr = [1, "two", 3.000000e+00 : f32, [4, [5]], []], d = {a = "x", m, z = 1 : i64}, nested = {inner = {deep = [true]}}} : () -> ()
// CHECK-NEXT:   "a.dense_arrays"() {a = array<i64: 1, 2, 3>, b = array<i32>, c = array<i1: true, false>, d = array<f32: 1.000000e+00, 2.500000e+00>, e = array<f64: -1.000000e+00>, f = array<i8: -128, 127>, g = array<i16: 0>} : () -> ()
// CHECK-NEXT:   "a.symbols"() {s1 = @foo, s2 = @"with space", s3 = @a::@b::@c, s4 = @q::@r} : () -> ()
// CHECK-NEXT:   "a.dense"() {d1 = dense<[1, 2, 3]> : tensor<3xi32>, d2 = dense<1.000000e+00> : tensor<2x2xf32>, d3 = dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf64>, d4 = dense<true> : tensor<4xi1>, d5 = dense<(1.000000e+00,2.000000e+00)> : tensor<1xcomplex<f32>>, d6 = dense<> : tensor<0xf32>, d7 = dense<5> : vector<4xi8>} : () -> ()
// CHECK-NEXT:   "a.types_as_attrs"() {t1 = i32, t2 = tensor<?xf32>, t3 = (i32) -> f32, t4 = !llvm.ptr} : () -> ()
// CHECK-NEXT:   "a.strided"() {s1 = strided<[1]>, s2 = strided<[4, 1], offset: 8>, s3 = strided<[?, 1], offset: ?>} : () -> ()
// CHECK-NEXT:   "a.dialect_attrs"() {w = #arith.fastmath<fast>, x = #gpu.address_space<workgroup>, y = #foo.bar<1, [2, 3], "s">, z = #foo<"opaque">} : () -> ()
// CHECK-NEXT:   "a.properties"() <{p = 1 : i32, q = "s"}> {r = 2 : i64} : () -> ()
// CHECK-NEXT: }
