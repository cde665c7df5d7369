// Bad pipelines: one error each, pointing into the pipeline text (named as mlir-opt
// names it), exit status non-zero, the input untouched.
// RUN: not rtile-opt %s --pass-pipeline="builtin.module(no-such-pass)" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: MLIR Textual PassPipeline Parser:1:16: error: 'no-such-pass' does not refer to a registered pass or pass pipeline
// UNKNOWN: 1 │ builtin.module(no-such-pass)
// UNKNOWN-NEXT: ·                ────────────

// RUN: not rtile-opt %s --pass-pipeline="builtin.module(symbol-dce{bogus=1})" 2>&1 | FileCheck %s --check-prefix=OPTION
// OPTION: MLIR Textual PassPipeline Parser:1:27: error: no such option 'bogus' for pass 'symbol-dce'

// RUN: not rtile-opt %s --pass-pipeline="builtin.module(print-op-stats{json=maybe})" 2>&1 | FileCheck %s --check-prefix=VALUE
// VALUE: MLIR Textual PassPipeline Parser:1:36: error: invalid value for option 'json' of pass 'print-op-stats': 'maybe' is invalid value for boolean argument! Try 0 or 1

// RUN: not rtile-opt %s --pass-pipeline="builtin.module(symbol-dce))" 2>&1 | FileCheck %s --check-prefix=EXTRA
// EXTRA: MLIR Textual PassPipeline Parser:1:26: error: encountered extra closing ')' creating unbalanced parentheses while parsing pipeline

// RUN: not rtile-opt %s --pass-pipeline="builtin.module(symbol-dce{json=true)" 2>&1 | FileCheck %s --check-prefix=BRACE
// BRACE: MLIR Textual PassPipeline Parser:1:26: error: missing closing '}' while processing pass options

// An unclosed anchor and a missing anchor: mlir-opt's message for both.
// RUN: not rtile-opt %s --pass-pipeline="builtin.module(symbol-dce" 2>&1 | FileCheck %s --check-prefix=ANCHOR
// RUN: not rtile-opt %s --pass-pipeline="symbol-dce" 2>&1 | FileCheck %s --check-prefix=ANCHOR
// ANCHOR: MLIR Textual PassPipeline Parser:1:1: error: expected pass pipeline to be wrapped with the anchor operation type, e.g. 'builtin.module(...)'

// RUN: not rtile-opt %s --pass-pipeline="builtin.module(,symbol-dce)" 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: MLIR Textual PassPipeline Parser:1:16: error: '' does not refer to a registered pass or pass pipeline

// A pipeline anchored on another op than the input's top-level one: the error is the
// input's, as mlir-opt reports it.
// RUN: not rtile-opt %s --pass-pipeline="func.func(symbol-dce)" 2>&1 | FileCheck %s --check-prefix=MISNESTED
// MISNESTED: pipeline-errors.mlir:[[@LINE+2]]:1: error: can't run 'func.func' pass manager on 'builtin.module' op

module {
}

// The flag form of a pass cannot be mixed with --pass-pipeline.
// RUN: not rtile-opt %s --symbol-dce --pass-pipeline="builtin.module(symbol-dce)" 2>&1 | FileCheck %s --check-prefix=MIX
// MIX: error: '--pass-pipeline' can't be used with individual pass flags
