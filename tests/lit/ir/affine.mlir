// Affine maps and integer sets: the affine expression language (lalrpop), MLIR precedence and
// printing, and the #map/#set aliases MLIR prints for them. CHECK lines are what mlir-opt-22 prints.
// RUN: rtile-opt --allow-unregistered-dialect %s | FileCheck %s
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic %s > %t.g
// RUN: mlir-opt --allow-unregistered-dialect --mlir-print-op-generic %t.g | rtile-opt --allow-unregistered-dialect --mlir-print-op-generic | diff %t.g -

#id = affine_map<(d0, d1) -> (d0, d1)>
"m.maps"() {a = #id, b = affine_map<(d0, d1) -> (d1, d0)>, c = affine_map<(d0)[s0, s1] -> (d0 * 2 + s0 - 1, s1)>, d = affine_map<() -> (0)>, e = affine_map<(d0, d1) -> (d0 floordiv 4, d1 ceildiv 8, (d0 + d1) mod 3)>, f = affine_map<(d0) -> (-d0)>, g = affine_map<(d0, d1) -> (d0 - d1 * 3)>, h = affine_map<(d0, d1) -> ((d0 + 1) * 4)>, i = affine_map<(d0)[s0] -> (d0 * s0)>, j = affine_map<(d0, d1, d2) -> (d0 + d1 + d2 - 5)>} : () -> ()
"m.sets"() {s1 = affine_set<(d0) : (d0 - 1 >= 0)>, s2 = affine_set<(d0, d1)[s0] : (d0 - s0 >= 0, d1 == 0, -d0 + 10 >= 0)>} : () -> ()
"m.reuse"() {again = affine_map<(d0, d1) -> (d1, d0)>, layout = memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>} : () -> ()

// CHECK: #map = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-NEXT: #map1 = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-NEXT: #map2 = affine_map<(d0)[s0, s1] -> (d0 * 2 + s0 - 1, s1)>
// CHECK-NEXT: #map3 = affine_map<() -> (0)>
// CHECK-NEXT: #map4 = affine_map<(d0, d1) -> (d0 floordiv 4, d1 ceildiv 8, (d0 + d1) mod 3)>
// CHECK-NEXT: #map5 = affine_map<(d0) -> (-d0)>
// CHECK-NEXT: #map6 = affine_map<(d0, d1) -> (d0 - d1 * 3)>
// CHECK-NEXT: #map7 = affine_map<(d0, d1) -> ((d0 + 1) * 4)>
// CHECK-NEXT: #map8 = affine_map<(d0)[s0] -> (d0 * s0)>
// CHECK-NEXT: #map9 = affine_map<(d0, d1, d2) -> (d0 + d1 + d2 - 5)>
// CHECK-NEXT: #set = affine_set<(d0) : (d0 - 1 >= 0)>
// CHECK-NEXT: #set1 = affine_set<(d0, d1)[s0] : (d0 - s0 >= 0, d1 == 0, -d0 + 10 >= 0)>
// CHECK-NEXT: module {
// CHECK-NEXT:   "m.maps"() {a = #map, b = #map1, c = #map2, d = #map3, e = #map4, f = #map5, g = #map6, h = #map7, i = #map8, j = #map9} : () -> ()
// CHECK-NEXT:   "m.sets"() {s1 = #set, s2 = #set1} : () -> ()
// CHECK-NEXT:   "m.reuse"() {again = #map1, layout = memref<4x4xf32, #map1>} : () -> ()
// CHECK-NEXT: }
