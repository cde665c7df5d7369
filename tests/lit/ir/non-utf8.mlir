// Input that is not UTF-8 is reported at the line and column of the first invalid byte
// (columns in bytes, as mlir-opt counts them), with exit status 1, as mlir-opt reports an
// unexpected character there; from a file and from stdin.
// RUN: not rtile-opt --allow-unregistered-dialect %S/Inputs/non-utf8.mlir 2>&1 | FileCheck %s
// RUN: not rtile-opt --allow-unregistered-dialect < %S/Inputs/non-utf8.mlir 2>&1 | FileCheck %s --check-prefix=STDIN
// CHECK: non-utf8.mlir:2:3: error: unexpected character: byte 0xFF is not valid UTF-8
// STDIN: <stdin>:2:3: error: unexpected character: byte 0xFF is not valid UTF-8
