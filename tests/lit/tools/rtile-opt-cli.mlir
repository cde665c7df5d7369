// rtile-opt's command line: help, output file, stdin, --split-input-file, bad flags.

// --help lists the static flags and every registered pass with its description.
// RUN: rtile-opt --help | FileCheck %s --check-prefix=HELP
// HELP: Usage: rtile-opt
// HELP-DAG: --split-input-file
// HELP-DAG: --verify-diagnostics
// HELP-DAG: --allow-unregistered-dialect
// HELP-DAG: --mlir-print-op-generic
// HELP-DAG: --pass-pipeline=<pipeline>
// HELP-DAG: --mlir-print-ir-after-all
// HELP-DAG: --mlir-timing
// HELP-DAG: --verify-each
// HELP: Passes:
// HELP: --symbol-dce {{ *}}- {{.+}}

// -o writes the file; nothing goes to stdout.
// RUN: rtile-opt %s --split-input-file --allow-unregistered-dialect --mlir-print-op-generic -o %t.out | count 0
// RUN: FileCheck %s --check-prefix=SPLIT --input-file=%t.out

// stdin, both implicit and as `-`, gives the same output as the file.
// RUN: rtile-opt --split-input-file --allow-unregistered-dialect --mlir-print-op-generic < %s > %t.stdin
// RUN: diff %t.out %t.stdin
// RUN: rtile-opt - --split-input-file --allow-unregistered-dialect --mlir-print-op-generic < %s > %t.dash
// RUN: diff %t.out %t.dash

// Each chunk is its own module, ended by a blank line as mlir-opt prints it; outputs
// are joined with `// -----`.
// SPLIT:      "builtin.module"() ({
// SPLIT-NEXT:   "test.first"() : () -> ()
// SPLIT-NEXT: }) : () -> ()
// SPLIT-EMPTY:
// SPLIT-NEXT: // -----
// SPLIT-NEXT: "builtin.module"() ({
// SPLIT-NEXT:   "test.second"() {n = 2 : i64} : () -> ()
// SPLIT-NEXT: }) : () -> ()
// SPLIT-EMPTY:
// SPLIT-NEXT: // -----
// SPLIT-NEXT: "builtin.module"() ({
// SPLIT-NEXT:   "test.third"() : () -> ()
// SPLIT-NEXT: }) : () -> ()
// SPLIT-NOT: test.

// Without --split-input-file it is one module with all three ops.
// RUN: rtile-opt %s --allow-unregistered-dialect --mlir-print-op-generic | FileCheck %s --check-prefix=WHOLE
// WHOLE:      "builtin.module"() ({
// WHOLE-NEXT:   "test.first"() : () -> ()
// WHOLE-NEXT:   "test.second"() {n = 2 : i64} : () -> ()
// WHOLE-NEXT:   "test.third"() : () -> ()
// WHOLE-NEXT: }) : () -> ()

// Pass flags run; the flag form and --pass-pipeline give the same result.
// RUN: rtile-opt %s --allow-unregistered-dialect --symbol-dce > %t.flag
// RUN: rtile-opt %s --allow-unregistered-dialect --pass-pipeline="builtin.module(symbol-dce)" > %t.pipeline
// RUN: diff %t.flag %t.pipeline

// Errors: exit code 1, an MLIR-style `error:` line, never an internal error.
// RUN: not rtile-opt --no-such-flag %s 2>&1 | FileCheck %s --check-prefix=BADFLAG --implicit-check-not="internal error"
// BADFLAG: error: unexpected argument '--no-such-flag'
// RUN: not rtile-opt %t.does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=NOFILE --implicit-check-not="internal error"
// NOFILE: error: could not open input file
// RUN: not rtile-opt %s --allow-unregistered-dialect --pass-pipeline="builtin.module(no-such-pass)" 2>&1 | FileCheck %s --check-prefix=BADPASS
// BADPASS: error: 'no-such-pass' does not refer to a registered pass or pass pipeline
// RUN: not rtile-opt %s --allow-unregistered-dialect --symbol-dce --pass-pipeline="builtin.module(symbol-dce)" 2>&1 | FileCheck %s --check-prefix=MIX
// MIX: error: '--pass-pipeline' can't be used with individual pass flags
// A parse error points at the file, line and column.
// RUN: not rtile-opt %S/Inputs/parse-error.mlir --allow-unregistered-dialect 2>&1 | FileCheck %s --check-prefix=PARSE --implicit-check-not="internal error"
// PARSE: parse-error.mlir:3:{{[0-9]+}}: error:
// Ops of unregistered dialects need --allow-unregistered-dialect.
// RUN: not rtile-opt %s 2>&1 | FileCheck %s --check-prefix=UNREG
// UNREG: rtile-opt-cli.mlir:{{[0-9]+}}:{{[0-9]+}}: error:

"test.first"() : () -> ()

// -----

"test.second"() {n = 2 : i64} : () -> ()

// -----

"test.third"() : () -> ()
