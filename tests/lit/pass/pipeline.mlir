// The pass pipeline: textual and flag forms, nesting, IR printing, timing, statistics.

// The flag form and the textual form are the same pipeline.
// RUN: rtile-opt %s --allow-unregistered-dialect --symbol-dce --print-op-stats=json=true > %t.flags 2> %t.flags.err
// RUN: rtile-opt %s --allow-unregistered-dialect --pass-pipeline="builtin.module(symbol-dce,print-op-stats{json=true})" > %t.text 2> %t.text.err
// RUN: diff %t.flags %t.text
// RUN: diff %t.flags.err %t.text.err
// RUN: FileCheck %s --check-prefix=TOP < %t.text
// TOP-NOT: @top_dead
// TOP: module @outer {
// TOP-NOT: @inner_dead
// TOP: module @inner_kept

// A nested pass manager: symbol-dce runs on the modules inside the top one only, as
// mlir-opt-22 does (its output, reprinted by rtile-opt, is the same).
// RUN: rtile-opt %s --allow-unregistered-dialect --pass-pipeline="builtin.module(builtin.module(symbol-dce))" > %t.nested
// RUN: mlir-opt --allow-unregistered-dialect --pass-pipeline="builtin.module(builtin.module(symbol-dce))" %s | rtile-opt --allow-unregistered-dialect > %t.nested.mlir
// RUN: diff %t.nested %t.nested.mlir
// RUN: FileCheck %s --check-prefix=NESTED < %t.nested
// NESTED: module @top_dead attributes {sym_visibility = "private"}
// NESTED: module @outer {
// NESTED-NOT: @inner_dead
// NESTED: module @inner_kept
// Spaces around passes and empty option braces are fine.
// RUN: rtile-opt %s --allow-unregistered-dialect --pass-pipeline=" builtin.module( builtin.module( symbol-dce{} ) ) " | diff - %t.nested

// IR printing: mlir-opt's banners, on stderr, before/after the passes asked for.
// RUN: rtile-opt %s --allow-unregistered-dialect --pass-pipeline="builtin.module(symbol-dce,print-op-stats)" --mlir-print-ir-before=symbol-dce --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=DUMP
// DUMP: // -----// IR Dump Before SymbolDCE (symbol-dce) //----- //
// DUMP-NEXT: module {
// DUMP-NEXT: module @top_dead
// DUMP: // -----// IR Dump After SymbolDCE (symbol-dce) //----- //
// DUMP-NEXT: module {
// DUMP-NOT: @top_dead
// DUMP: // -----// IR Dump After PrintOpStats (print-op-stats) //----- //
// DUMP-NOT: IR Dump Before PrintOpStats
// The dumps interleave with what passes print to stderr, byte for byte as mlir-opt-22's.
// RUN: rtile-opt %s --allow-unregistered-dialect --pass-pipeline="builtin.module(symbol-dce,print-op-stats)" --mlir-print-ir-after-all 2> %t.order > /dev/null
// RUN: mlir-opt %s --allow-unregistered-dialect --pass-pipeline="builtin.module(symbol-dce,print-op-stats)" --mlir-print-ir-after-all 2> %t.order.mlir > /dev/null
// RUN: diff %t.order %t.order.mlir
// RUN: rtile-opt %s --allow-unregistered-dialect --symbol-dce --mlir-print-ir-before-all 2>&1 >/dev/null | FileCheck %s --check-prefix=BEFORE
// BEFORE: // -----// IR Dump Before SymbolDCE (symbol-dce) //----- //
// BEFORE-NOT: IR Dump After
// In the generic form when the output is.
// RUN: rtile-opt %s --allow-unregistered-dialect --symbol-dce --mlir-print-ir-after=symbol-dce --mlir-print-op-generic 2>&1 >/dev/null | FileCheck %s --check-prefix=GENERIC
// GENERIC: // -----// IR Dump After SymbolDCE (symbol-dce) //----- //
// GENERIC-NEXT: "builtin.module"() ({

// Timing: mlir-opt's report (the times vary; the shape does not).
// RUN: rtile-opt %s --allow-unregistered-dialect --symbol-dce --mlir-timing 2>&1 >/dev/null | FileCheck %s --check-prefix=TIME
// TIME: ===-------------------------------------------------------------------------===
// TIME-NEXT: ... Execution time report ...
// TIME-NEXT: ===-------------------------------------------------------------------------===
// TIME-NEXT: Total Execution Time: {{[0-9]+\.[0-9]+}} seconds
// TIME-EMPTY:
// TIME-NEXT: ----Wall Time----  ----Name----
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]+}}%)  Parser
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]+}}%)  SymbolDCE
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]+}}%)  Output
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]+}}%)  Rest
// TIME-NEXT: {{[0-9]+\.[0-9]+}} (100.0%)  Total
// TIME-NOT: {{.}}

// Statistics (mlir-opt-22's release build prints the header only: LLVM statistics are
// compiled out there).
// RUN: rtile-opt %s --allow-unregistered-dialect --symbol-dce --mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS
// STATS: ===-------------------------------------------------------------------------===
// STATS-NEXT: ... Pass statistics report ...
// STATS-NEXT: ===-------------------------------------------------------------------------===
// STATS-NEXT: SymbolDCE
// STATS-NEXT: (S) 2 num-dce'd - Number of symbols DCE'd

module @top_dead attributes {sym_visibility = "private"} {
}
module @outer {
  module @inner_dead attributes {sym_visibility = "private"} {
  }
  module @inner_kept {
  }
}
"t.op"() : () -> ()
