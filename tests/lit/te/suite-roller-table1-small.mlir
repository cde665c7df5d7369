// Every operator of bench/ops/roller-table1-small.mlir parses, verifies, prints and re-parses: custom
// form to a fixed point, generic form back to the same custom form, and the generic form
// through upstream mlir-opt-22 (which verifies every func and arith/math body op).
// RUN: rtile-opt %S/../../../bench/ops/roller-table1-small.mlir -o %t.custom.mlir
// RUN: rtile-opt %t.custom.mlir | diff %t.custom.mlir -
// RUN: rtile-opt %S/../../../bench/ops/roller-table1-small.mlir --mlir-print-op-generic -o %t.generic.mlir
// RUN: rtile-opt %t.generic.mlir | diff %t.custom.mlir -
// RUN: mlir-opt-22 --allow-unregistered-dialect --verify-each --mlir-print-op-generic %t.generic.mlir | rtile-opt | diff %t.custom.mlir -
// The generic form is exactly what mlir-opt-22 prints for it (default properties included).
// RUN: mlir-opt-22 --allow-unregistered-dialect --mlir-print-op-generic %t.generic.mlir | rtile-opt --mlir-print-op-generic | diff %t.generic.mlir -
// RUN: FileCheck %s < %t.custom.mlir
// CHECK-COUNT-34: = te.compute (
// CHECK-NOT: te.compute
