// Written for rtile (not copied from upstream). mlir-opt-22 prints this file in generic form;
// rtile must read that output and print it back byte for byte (trailing blank line included).
// RUN: mlir-opt --allow-unregistered-dialect --mlir-print-op-generic %s > %t.mlir
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic %t.mlir > %t.rtile
// RUN: diff %t.mlir %t.rtile
// RUN: mlir-opt --allow-unregistered-dialect --mlir-print-op-generic --mlir-print-debuginfo %s > %t.dbg.mlir
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic --mlir-print-debuginfo %t.dbg.mlir > %t.dbg.rtile
// RUN: diff %t.dbg.mlir %t.dbg.rtile

// Locations used as attributes get `#loc` aliases, numbered with the op locations; an
// alias that a registered dialect attribute names in its text is defined again; aliases
// are ordered by depth, then name (`loc` before `map`, `test...`).
#keep = "alias_test:dot_in_name"
#m = affine_map<(d0) -> (d0 + 1)>
"t.a"() {v = loc(unknown), w = loc("a"), x = loc(callsite("b" at "c":1:2)), y = [loc("d":3:4)], z = #m} : () -> ()
"t.b"() {v = loc("f":1:2), k = #test.conditional_alias<#keep>} : () -> () loc("g":5:6)
"t.c"() ({
^bb0(%a: i32 loc("h":7:8)):
  "t.d"() {l = loc(fused<#m>["i":1:1, "j":2:2])} : () -> ()
}) {z = loc("f":1:2)} : () -> ()
"t.e"() {x = loc("z")} : () -> () loc(fused<loc("m")>["a", "b"])
