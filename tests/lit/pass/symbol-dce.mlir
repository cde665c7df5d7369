// --symbol-dce: as mlir-opt-22's on the same input (reprinted by rtile-opt to compare).
// Only registered symbol ops are symbols (builtin.module here; an unregistered op with
// a sym_name is never erased), as in MLIR.
// RUN: rtile-opt %s --allow-unregistered-dialect --symbol-dce > %t.rtile
// RUN: mlir-opt %s --allow-unregistered-dialect --symbol-dce | rtile-opt --allow-unregistered-dialect > %t.mlir
// RUN: diff %t.rtile %t.mlir
// RUN: FileCheck %s < %t.rtile
// RUN: rtile-opt %s --allow-unregistered-dialect --symbol-dce --mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS
// Six: MLIR's count includes @inner_public, erased (post-order) before its dead parent.
// STATS: (S) 6 num-dce'd - Number of symbols DCE'd

// CHECK-LABEL: module {
module {
  // Private and unused: removed.
  // CHECK-NOT: @dead
  module @dead attributes {sym_visibility = "private"} {
  }
  // Public: kept.
  // CHECK: module @public_kept {
  module @public_kept {
  }
  // Private, referenced from an attribute of a live op: kept.
  // CHECK: module @used attributes {sym_visibility = "private"}
  module @used attributes {sym_visibility = "private"} {
  }
  // Referenced from inside an array and a dictionary: kept.
  // CHECK: module @used_deep attributes {sym_visibility = "private"}
  module @used_deep attributes {sym_visibility = "private"} {
  }
  // A nested reference keeps every symbol on its path alive.
  // CHECK: module @path attributes {sym_visibility = "private"} {
  // CHECK-NEXT: module @leaf attributes {sym_visibility = "private"}
  module @path attributes {sym_visibility = "private"} {
    module @leaf attributes {sym_visibility = "private"} {
    }
    // CHECK-NOT: @leaf_dead
    module @leaf_dead attributes {sym_visibility = "private"} {
    }
  }
  // Nested symbol tables get their own DCE.
  // CHECK: module @outer {
  module @outer {
    // CHECK-NOT: @inner_dead
    module @inner_dead attributes {sym_visibility = "private"} {
    }
    // CHECK: module @inner_used attributes {sym_visibility = "private"}
    module @inner_used attributes {sym_visibility = "private"} {
    }
    "t.user"() {ref = @inner_used} : () -> ()
  }
  // A dead private table goes with everything in it, public symbols included.
  // CHECK-NOT: @dead_outer
  // CHECK-NOT: @inner_public
  module @dead_outer attributes {sym_visibility = "private"} {
    module @inner_public {
    }
  }
  // `nested` visibility in a table not visible from outside: removable.
  // CHECK-NOT: @nested_vis
  module @nested_vis attributes {sym_visibility = "nested"} {
  }
  // Unregistered ops are not symbols, whatever their attributes.
  // CHECK: "t.symbol_like"() {sym_name = "x", sym_visibility = "private"}
  "t.symbol_like"() {sym_name = "x", sym_visibility = "private"} : () -> ()
  // CHECK: "t.user"() {callee = @used, list = [1, {k = @used_deep}], path = @path::@leaf}
  "t.user"() {callee = @used, list = [1, {k = @used_deep}], path = @path::@leaf} : () -> ()
}
