// Cases of invalid.mlir run alone, without --verify-diagnostics: each prints an
// mlir-opt style `file:line:col: error:` line and exits with status 1.
// RUN: split-file %s %t
// RUN: not rtile-opt --allow-unregistered-dialect %t/escape.mlir 2>&1 | FileCheck %s --check-prefix=ESCAPE
// RUN: not rtile-opt --allow-unregistered-dialect %t/tensor.mlir 2>&1 | FileCheck %s --check-prefix=TENSOR
// RUN: not rtile-opt --allow-unregistered-dialect %t/undefined.mlir 2>&1 | FileCheck %s --check-prefix=UNDEF
// RUN: not rtile-opt --allow-unregistered-dialect %t/dense.mlir 2>&1 | FileCheck %s --check-prefix=DENSE
// RUN: not rtile-opt --allow-unregistered-dialect %t/symbol.mlir 2>&1 | FileCheck %s --check-prefix=SYMBOL
// RUN: not rtile-opt --allow-unregistered-dialect %t/alias.mlir 2>&1 | FileCheck %s --check-prefix=ALIAS
// Unregistered dialects need --allow-unregistered-dialect.
// RUN: not rtile-opt %t/unregistered.mlir 2>&1 | FileCheck %s --check-prefix=UNREG
// RUN: rtile-opt --allow-unregistered-dialect %t/unregistered.mlir | FileCheck %s --check-prefix=ALLOWED
// The exit status is 1 (not a crash), for parse and verifier errors alike.
// RUN: bash -c 'rtile-opt --allow-unregistered-dialect %t/escape.mlir 2>/dev/null; echo "exit $?"' | FileCheck %s --check-prefix=EXIT
// RUN: bash -c 'rtile-opt --allow-unregistered-dialect %t/symbol.mlir 2>/dev/null; echo "exit $?"' | FileCheck %s --check-prefix=EXIT
// RUN: bash -c 'rtile-opt %t/unregistered.mlir 2>/dev/null; echo "exit $?"' | FileCheck %s --check-prefix=EXIT
// EXIT: exit 1

// The escape's backslash: line 2, column 19.
// ESCAPE: escape.mlir:2:19: error: unknown escape in string literal
// ESCAPE-NOT: error:

// A missing `>` is reported where it belongs: the end of line 1 (column 31).
// TENSOR: tensor.mlir:1:31: error: expected '>' in tensor type

// UNDEF: undefined.mlir:2:7: error: use of undeclared SSA value name

// DENSE: dense.mlir:1:14: error: inferred shape of elements literal ([3]) does not match type ([2])

// Verifier errors come with their notes.
// SYMBOL: symbol.mlir:4:3: error: redefinition of symbol named 'a'
// SYMBOL: symbol.mlir:2:3: note: see existing symbol definition here

// ALIAS: alias.mlir:1:14: error: undefined symbol alias id 'nope'

// UNREG: unregistered.mlir:1:1: error: operation being parsed with an unregistered dialect. If this is intended, please use -allow-unregistered-dialect with the MLIR tool used
// ALLOWED: "t.op"() : () -> ()

//--- escape.mlir
// A bad escape.
"t.a"() {s = "bad \q escape"} : () -> ()
//--- tensor.mlir
"t.a"() : () -> tensor<4x?xf32
"t.b"() : () -> ()
//--- undefined.mlir
%0 = "t.a"() : () -> i32
"t.b"(%1) : (i32) -> ()
//--- dense.mlir
"t.a"() {d = dense<[1, 2, 3]> : tensor<2xi32>} : () -> ()
//--- symbol.mlir
module {
  module @a {
  }
  module @a {
  }
}
//--- alias.mlir
"t.a"() {a = #nope} : () -> ()
//--- unregistered.mlir
"t.op"() : () -> ()
