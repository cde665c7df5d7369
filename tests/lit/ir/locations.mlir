// Locations: `--mlir-print-debuginfo` prints them as mlir-opt-22 does. An op or block
// argument written without `loc(...)` is at its source position ("file":line:col, the
// file as named on the command line; the implicit module at line 0, column 0).
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-debuginfo %s | FileCheck %s
// Same text as mlir-opt-22 (which ends with one more empty line), custom and generic:
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-debuginfo %s > %t.r
// RUN: mlir-opt --allow-unregistered-dialect --mlir-print-debuginfo %s | rtile-opt --allow-unregistered-dialect --mlir-print-debuginfo > %t.m
// RUN: diff %t.r %t.m
// Generic form with debuginfo through mlir-opt-22 and back: identical.
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-debuginfo --mlir-print-op-generic %s > %t.1
// RUN: mlir-opt --allow-unregistered-dialect --mlir-print-debuginfo --mlir-print-op-generic %t.1 > %t.2
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-debuginfo --mlir-print-op-generic %t.2 > %t.3
// RUN: diff %t.1 %t.3
// RUN: FileCheck %s --check-prefix=GENERIC < %t.1
// Without the flag, no locations.
// RUN: rtile-opt --allow-unregistered-dialect %s | FileCheck %s --check-prefix=NOLOC
// NOLOC-NOT: loc(

// Argument locations are defined at the top and spelled out inline.
// CHECK: #[[ARG:loc[0-9]*]] = loc("{{.*}}locations.mlir":[[@LINE+12]]:6)
// CHECK: #[[ARGLOC:loc[0-9]*]] = loc("arg.mlir":9:9)
// CHECK: module {
// CHECK-NEXT: "t.f"() ({
// CHECK-NEXT: ^bb0(%arg0: i32 loc("{{.*}}locations.mlir":[[@LINE+8]]:6), %arg1: f32 loc("arg.mlir":9:9)):
// An op is at its name, not at its results.
// CHECK-NEXT: %0 = "t.op"(%arg0) : (i32) -> i32 loc(#[[OP:loc[0-9]*]])
// CHECK-NEXT: %1 = "t.op2"(%0) : (i32) -> i32 loc(#[[NAMED:loc[0-9]*]])
// CHECK-NEXT: "t.op3"() : () -> () loc(#[[FUSED:loc[0-9]*]])
// CHECK-NEXT: "t.op4"() : () -> () loc(#[[CALL:loc[0-9]*]])
// CHECK-NEXT: "t.op5"() : () -> () loc(#[[UNKNOWN:loc[0-9]*]])
"t.f"() ({
^bb0(%a: i32, %b: f32 loc("arg.mlir":9:9)):
  %0 = "t.op"(%a) : (i32) -> i32
    %1 = "t.op2"(%0) : (i32) -> i32 loc(#named)
  "t.op3"() : () -> () loc(fused["a.mlir":1:1, "b.mlir":2:2])
  "t.op4"() : () -> () loc(callsite("callee.mlir":1:1 at "caller.mlir":2:2))
  "t.op5"() : () -> () loc(unknown)
  "t.op6"() : () -> () loc(fused<#t.meta>["a.mlir":1:1])
  "t.br"()[^bb1] : () -> ()
^bb1(%c: i32):
  "t.ret"(%c) : (i32) -> ()
}) : () -> ()
// CHECK: module @m {
// CHECK-NEXT: "t.in"() : () -> () loc(#[[IN:loc[0-9]*]])
// CHECK-NEXT: } loc(#[[M:loc[0-9]*]])
// CHECK-NEXT: } loc(#[[TOP:loc[0-9]*]])
module @m {
  "t.in"() : () -> ()
}
#named = loc("named"("inner.mlir":3:4))

// Location aliases follow the IR, in mlir-opt's order.
// CHECK: #[[TOP]] = loc("{{.*}}locations.mlir":0:0)
// CHECK: #[[OP]] = loc("{{.*}}locations.mlir":33:8)
// CHECK: #[[UNKNOWN]] = loc(unknown)
// CHECK: #[[M]] = loc("{{.*}}locations.mlir":47:1)
// CHECK: #[[IN]] = loc("{{.*}}locations.mlir":48:3)
// CHECK: #[[NAMED]] = loc("named"(#loc{{[0-9]+}}))
// CHECK: #[[FUSED]] = loc(fused[#loc{{[0-9]+}}, #loc{{[0-9]+}}])
// CHECK: #[[CALL]] = loc(callsite(#loc{{[0-9]+}} at #loc{{[0-9]+}}))

// GENERIC: "builtin.module"() ({
// GENERIC: "builtin.module"() <{sym_name = "m"}> ({
// GENERIC: }) : () -> () loc(#loc)
