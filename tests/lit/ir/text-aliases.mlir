// An alias named only inside a dialect attribute's text (`#foo.attr<#a>`) is defined
// again in the output, so that a tool that parses that text (mlir-opt, for a dialect it
// registers) can read what rtile prints.
// RUN: rtile-opt --allow-unregistered-dialect %s | FileCheck %s
// RUN: rtile-opt --allow-unregistered-dialect %s | mlir-opt --allow-unregistered-dialect --mlir-print-op-generic | FileCheck %s --check-prefix=MLIR
// Type aliases first, as MLIR orders them; `#unused` is not printed.
// CHECK: !t = !foo.ty<3>
// CHECK-NEXT: #a = "x"
// CHECK-NEXT: module {
// CHECK: "t.a"() {b = #foo.attr<#a, !t>, c = !foo.box<!t>} : () -> ()
// MLIR: "t.b"() {d = #test.conditional_alias<x>}
#a = "x"
!t = !foo.ty<3>
#unused = "never printed"
"t.a"() {b = #foo.attr<#a, !t>, c = !foo.box<!t>} : () -> ()
"t.b"() {d = #test.conditional_alias<#a>} : () -> ()
