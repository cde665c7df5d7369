// Input that is not UTF-8 is reported at the line and column of the first invalid byte
// outside strings and comments (columns in bytes, as mlir-opt counts them), with exit
// status 1, as mlir-opt reports an unexpected character there; from a file and from
// stdin. Inside a string such a byte is kept (printed `\XX`, as mlir-opt prints it);
// inside a comment it is ignored.
// RUN: not rtile-opt --allow-unregistered-dialect %S/Inputs/non-utf8.mlir 2>&1 | FileCheck %s
// RUN: not rtile-opt --allow-unregistered-dialect < %S/Inputs/non-utf8.mlir 2>&1 | FileCheck %s --check-prefix=STDIN
// RUN: not rtile-opt --allow-unregistered-dialect %S/Inputs/non-utf8-after-string.mlir 2>&1 | FileCheck %s --check-prefix=AFTER
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic %S/Inputs/non-utf8-strings.mlir | FileCheck %s --check-prefix=STRINGS
// CHECK: non-utf8.mlir:2:3: error: unexpected character: byte 0xFF is not valid UTF-8
// STDIN: <stdin>:2:3: error: unexpected character: byte 0xFF is not valid UTF-8
// AFTER: non-utf8-after-string.mlir:1:30: error: unexpected character: byte 0xFE is not valid UTF-8
// STRINGS: "t.a"() {s = "ab\FF\22\C3", t = "\E9t\E9"} : () -> ()
