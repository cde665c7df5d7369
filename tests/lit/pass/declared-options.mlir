// Options of rtile's passes are parsed from their declarations (rtile::declare_pass!):
// an ill-typed value, a value its check refuses, an unknown option and a missing value
// each get one error pointing at the option text, in pipelines and in pass flags.

// RUN: not rtile-opt %s --pass-pipeline="builtin.module(construct-rtile{top-k=abc})" 2>&1 | FileCheck %s --check-prefix=INT
// INT: MLIR Textual PassPipeline Parser:1:38: error: invalid value for option 'top-k' of pass 'construct-rtile': 'abc' value invalid for integer argument!

// RUN: not rtile-opt %s --pass-pipeline="builtin.module(tensor-padding{tile=1,x})" 2>&1 | FileCheck %s --check-prefix=LIST
// LIST: MLIR Textual PassPipeline Parser:1:36: error: invalid value for option 'tile' of pass 'tensor-padding': 'x' value invalid for integer argument!

// RUN: not rtile-opt %s --pass-pipeline="builtin.module(rtile-select{rank=-1})" 2>&1 | FileCheck %s --check-prefix=CHECKED
// CHECKED: MLIR Textual PassPipeline Parser:1:34: error: invalid value for option 'rank' of pass 'rtile-select': rank must be non-negative

// RUN: not rtile-opt %s --pass-pipeline="builtin.module(construct-rtile{device=h100 topk=3})" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: MLIR Textual PassPipeline Parser:1:44: error: no such option 'topk' for pass 'construct-rtile'

// RUN: not rtile-opt %s --pass-pipeline="builtin.module(construct-rtile{top-k})" 2>&1 | FileCheck %s --check-prefix=NOVALUE
// NOVALUE: MLIR Textual PassPipeline Parser:1:32: error: option 'top-k' of pass 'construct-rtile' requires a value

// The flag form names the flag as the source.
// RUN: not rtile-opt %s --rtile-select=rank=x 2>&1 | FileCheck %s --check-prefix=FLAG
// FLAG: --rtile-select:1:6: error: invalid value for option 'rank' of pass 'rtile-select': 'x' value invalid for integer argument!

// A bare boolean option is true; the value lands in the typed field.
// RUN: rtile-opt %s --print-op-stats=json --dump-pass-pipeline 2>&1 >/dev/null | FileCheck %s --check-prefix=BOOL
// BOOL: print-op-stats{json=true}

module {
}
