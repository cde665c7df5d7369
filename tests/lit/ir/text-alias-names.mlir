// A text alias (one named inside a dialect attribute's text) keeps the name it was read
// with; the generated `#mapN` / `#setN` aliases go around it. Found by the fuzz target:
// `#map` named inside a quoted dialect body, on the map that is also aliased `#map`,
// printed `#map = #map` (a second definition of `#map`), which did not parse again.
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic --split-input-file %s > %t.1
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic --split-input-file %t.1 > %t.2
// RUN: diff %t.1 %t.2
// RUN: FileCheck %s < %t.1
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic --mlir-print-debuginfo --split-input-file %s > %t.3
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic --mlir-print-debuginfo --split-input-file %t.3 > %t.4
// RUN: diff %t.3 %t.4
// RUN: FileCheck %s --check-prefix=DBG < %t.3

// The text alias stands for the very map the generated alias defines: one definition.
// CHECK: #map = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-NOT: #map =
// CHECK: "t.same"() {a = #map, b = #foo<"x #map y">}
#map = affine_map<(d0, d1) -> (d1, d0)>
"t.same"() {a = #map, b = #foo<"x #map y">} : () -> ()

// -----

// The text alias names another map: the generated alias skips its name.
// CHECK-DAG: #map1 = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #map = affine_map<(d0) -> (d0)>
// CHECK: "t.other"() {a = #map1, b = #foo<"x #map y">}
#map = affine_map<(d0) -> (d0)>
"t.other"() {a = affine_map<(d0, d1) -> (d1, d0)>, b = #foo<"x #map y">} : () -> ()

// -----

// The same for integer sets.
// CHECK: #set1 = affine_set<(d0) : (d0 >= 0)>
// CHECK: #set = affine_set<(d0) : (d0 - 1 >= 0)>
// CHECK: "t.sets"() {a = #set1, b = #foo.x<#set>}
#set = affine_set<(d0) : (d0 - 1 >= 0)>
"t.sets"() {a = affine_set<(d0) : (d0 >= 0)>, b = #foo.x<#set>} : () -> ()

// -----

// The same for distinct attributes (the fuzz target found `#distinct = #distinct`).
// CHECK: #distinct = distinct[0]<42 : i32>
// CHECK-NOT: #distinct =
// CHECK: "t.dsame"() {b = #foo<"x #distinct y">, x = #distinct}
#distinct = distinct[3]<42 : i32>
"t.dsame"() {x = #distinct, b = #foo<"x #distinct y">} : () -> ()

// -----

// CHECK: #distinct1 = distinct[0]<42 : i32>
// CHECK: #distinct = distinct[1]<1 : i32>
// CHECK: "t.dother"() {b = #foo<"x #distinct y">, x = #distinct1}
#distinct = distinct[3]<1 : i32>
"t.dother"() {x = distinct[4]<42 : i32>, b = #foo<"x #distinct y">} : () -> ()

// -----

// A text alias that is a location is written out: through `#locN` it named an op
// location's alias, which is defined only after the op (found by the fuzz target).
// DBG: #named = loc("n"("inner.mlir":3:4))
// DBG: "t.l"() {b = #foo<"x #named y">} : () -> () loc(#loc{{[0-9]+}})
#named = loc("n"("inner.mlir":3:4))
"t.l"() {b = #foo<"x #named y">} : () -> () loc(#named)
