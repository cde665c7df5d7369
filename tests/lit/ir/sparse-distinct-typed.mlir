// Builtin attribute syntax read and printed as mlir-opt-22 prints it: sparse elements,
// distinct attributes (renumbered in print order, aliased unless unit-valued) and
// dialect attributes followed by `: type`.
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// CHECK:      #distinct = distinct[0]<42 : i32>
// CHECK-NEXT: "builtin.module"() ({
// CHECK-NEXT:   "t.a"() {a = sparse<{{\[\[}}0, 0], [1, 2]], [1, 5]> : tensor<3x4xi32>, b = sparse<> : tensor<0xf32>, c = sparse<1, 0x7F800001> : tensor<4xf32>} : () -> ()
// CHECK-NEXT:   "t.b"() {x = #distinct, y = distinct[1]<>, z = #distinct} : () -> ()
// CHECK-NEXT:   "t.c"() {e = #foo.bar : i32, f = #foo<"x"> : i64, g = #foo.baz<1> : tensor<2xf32>} : () -> ()
// CHECK-NEXT: }) : () -> ()
// CHECK-EMPTY:
// CHECK-NOT: {{.}}
"t.a"() {a = sparse<[[0, 0], [1, 2]], [1, 5]> : tensor<3x4xi32>, b = sparse<[], []> : tensor<0xf32>, c = sparse<[[1]], [0x7F800001]> : tensor<4xf32>} : () -> ()
"t.b"() {x = distinct[7]<42 : i32>, y = distinct[3]<>, z = distinct[7]<42 : i32>} : () -> ()
"t.c"() {e = #foo.bar : i32, f = #foo<"x"> : i64, g = #foo.baz<1> : tensor<2 x f32>} : () -> ()
