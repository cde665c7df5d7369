// --verify-diagnostics: expected-* comments with line designators, per split chunk.
// RUN: rtile-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect
// Without --verify-diagnostics the same diagnostics are printed, MLIR style, and fail.
// RUN: not rtile-opt %s --split-input-file --allow-unregistered-dialect 2>&1 | FileCheck %s --check-prefix=PRINTED
// PRINTED: verify-diagnostics.mlir:[[@LINE+3]]:{{[0-9]+}}: error: 'builtin.module' op expects no operands and no results

// expected-error @+1 {{'builtin.module' op expects no operands and no results}}
%0 = "builtin.module"() ({
}) : () -> i32

// -----

%1 = "builtin.module"() ({}) : () -> i32
// expected-error @above {{expects no operands}}

// -----

// expected-error @below {{expects no operands and no results}}
%2 = "builtin.module"() ({
}) : () -> i32

// -----

%3 = "builtin.module"() ({ // expected-error {{expects no}}
}) : () -> i32

// -----

// A chunk with no diagnostics and no expectations passes.
"test.fine"() : () -> ()

// -----

// Mismatches: the messages mlir-opt prints, and a non-zero exit.
// RUN: not rtile-opt %S/Inputs/mismatch.mlir --split-input-file --verify-diagnostics --allow-unregistered-dialect 2>&1 | FileCheck %s --check-prefix=MISMATCH
// MISMATCH-DAG: mismatch.mlir:5:{{[0-9]+}}: error: unexpected error: 'builtin.module' op expects no operands and no results
// MISMATCH-DAG: mismatch.mlir:3:{{[0-9]+}}: error: expected error "this message is never produced" was not produced
// MISMATCH-DAG: mismatch.mlir:10:{{[0-9]+}}: error: expected warning "wrong severity" was not produced
// MISMATCH-DAG: mismatch.mlir:11:{{[0-9]+}}: error: unexpected error: 'builtin.module' op expects no operands and no results
"test.also_fine"() : () -> ()
