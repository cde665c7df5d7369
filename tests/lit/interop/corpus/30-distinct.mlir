// Written for rtile (not copied from upstream). mlir-opt-22 prints this file in generic form;
// rtile must read that output and print it back byte for byte (trailing blank line included).
// RUN: mlir-opt --allow-unregistered-dialect --mlir-print-op-generic %s > %t.mlir
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic %t.mlir > %t.rtile
// RUN: diff %t.mlir %t.rtile
// RUN: mlir-opt --allow-unregistered-dialect --mlir-print-op-generic --mlir-print-debuginfo %s > %t.dbg.mlir
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic --mlir-print-debuginfo %t.dbg.mlir > %t.dbg.rtile
// RUN: diff %t.dbg.mlir %t.dbg.rtile

// distinct attributes: renumbered in print order, aliased #distinct unless unit-valued,
// the same input ID is the same attribute.
"t.a"() {a = [distinct[7]<1 : i32>], b = distinct[3]<unit>, c = {k = distinct[9]<"s">}, d = distinct[3]<unit>} : () -> ()
"t.b"() {x = [distinct[1]<unit>], y = distinct[2]<[distinct[4]<unit>]>} : () -> ()
"t.c"() {distinct.attr = distinct[42]<42 : i32>, other = distinct[7]<1 : i32>} : () -> ()
