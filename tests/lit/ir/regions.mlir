// Generic operations with regions, blocks, block arguments, successors, forward references in
// graph-like regions of unregistered ops, empty blocks and multi-result values. Value and block
// naming follows MLIR (CHECK lines are what mlir-opt-22 prints).
// RUN: rtile-opt --allow-unregistered-dialect %s | FileCheck %s
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic %s > %t.g
// RUN: mlir-opt --allow-unregistered-dialect --mlir-print-op-generic %t.g | rtile-opt --allow-unregistered-dialect --mlir-print-op-generic | diff %t.g -

"r.top"() ({
  %0 = "r.def"() : () -> i32
  "r.branch"(%0)[^bb1, ^bb2] : (i32) -> ()
^bb1:
  "r.br"(%0)[^bb3] : (i32) -> ()
^bb2:
  %1 = "r.inner"(%0) ({
  ^bb0(%a: i32, %b: f32):
    %2 = "r.use"(%a, %0) : (i32, i32) -> i32
    "r.yield"(%2) : (i32) -> ()
  }, {
  }) : (i32) -> i32
  "r.br"(%1)[^bb3] : (i32) -> ()
^bb3(%x: i32):
  "r.return"(%x) : (i32) -> ()
}) : () -> ()
"r.graph"() ({
  %a = "r.late_use"(%b) : (i64) -> i64
  %b = "r.early_def"() : () -> i64
}) : () -> ()
"r.empty_block"() ({
^bb0:
}) : () -> ()
%r:3 = "r.multi"() : () -> (i1, i2, i3)
"r.sink"(%r#2, %r#0) {note = "uses of a multi-result op"} : (i3, i1) -> ()

// CHECK: module {
// CHECK-NEXT:   "r.top"() ({
// CHECK-NEXT:     %1 = "r.def"() : () -> i32
// CHECK-NEXT:     "r.branch"(%1)[^bb1, ^bb2] : (i32) -> ()
// CHECK-NEXT:   ^bb1:  // pred: ^bb0
// CHECK-NEXT:     "r.br"(%1)[^bb3] : (i32) -> ()
// CHECK-NEXT:   ^bb2:  // pred: ^bb0
// CHECK-NEXT:     %2 = "r.inner"(%1) ({
// CHECK-NEXT:     ^bb0(%arg0: i32, %arg1: f32):
// CHECK-NEXT:       %4 = "r.use"(%arg0, %1) : (i32, i32) -> i32
// CHECK-NEXT:       "r.yield"(%4) : (i32) -> ()
// CHECK-NEXT:     }, {
// CHECK-NEXT:     }) : (i32) -> i32
// CHECK-NEXT:     "r.br"(%2)[^bb3] : (i32) -> ()
// CHECK-NEXT:   ^bb3(%3: i32):  // 2 preds: ^bb1, ^bb2
// CHECK-NEXT:     "r.return"(%3) : (i32) -> ()
// CHECK-NEXT:   }) : () -> ()
// CHECK-NEXT:   "r.graph"() ({
// CHECK-NEXT:     %1 = "r.late_use"(%2) : (i64) -> i64
// CHECK-NEXT:     %2 = "r.early_def"() : () -> i64
// CHECK-NEXT:   }) : () -> ()
// CHECK-NEXT:   "r.empty_block"() ({
// CHECK-NEXT:   ^bb0:
// CHECK-NEXT:   }) : () -> ()
// CHECK-NEXT:   %0:3 = "r.multi"() : () -> (i1, i2, i3)
// CHECK-NEXT:   "r.sink"(%0#2, %0#0) {note = "uses of a multi-result op"} : (i3, i1) -> ()
// CHECK-NEXT: }
