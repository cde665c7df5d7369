// --print-op-stats: the table (and json=true) on stderr, byte for byte as mlir-opt-22's.
// RUN: rtile-opt %s --allow-unregistered-dialect --print-op-stats 2> %t.rtile.txt | FileCheck %s --check-prefix=IR
// RUN: mlir-opt %s --allow-unregistered-dialect --print-op-stats 2> %t.mlir.txt > /dev/null
// RUN: diff %t.rtile.txt %t.mlir.txt
// RUN: FileCheck %s --check-prefix=TEXT --match-full-lines --strict-whitespace < %t.rtile.txt
// RUN: rtile-opt %s --allow-unregistered-dialect --pass-pipeline="builtin.module(print-op-stats{json=true})" 2> %t.rtile.json > /dev/null
// RUN: mlir-opt %s --allow-unregistered-dialect --pass-pipeline="builtin.module(print-op-stats{json=true})" 2> %t.mlir.json > /dev/null
// RUN: diff %t.rtile.json %t.mlir.json
// RUN: FileCheck %s --check-prefix=JSON --match-full-lines --strict-whitespace < %t.rtile.json
// The flag form takes the option too.
// RUN: rtile-opt %s --allow-unregistered-dialect --print-op-stats=json=true 2>&1 > /dev/null | diff - %t.mlir.json

// The IR is unchanged.
// IR: "t.a"() ({

// Counted by name, nested ops and the implicit module included; names aligned on the
// dot, sorted.
//      TEXT:Operations encountered:
// TEXT-NEXT:-----------------------
// TEXT-NEXT:  builtin.module , 2
// TEXT-NEXT:    other.op     , 1
// TEXT-NEXT:        t.a      , 1
// TEXT-NEXT:        t.b      , 1
// TEXT-NEXT:        t.c      , 2

//      JSON:{
// JSON-NEXT:  "builtin.module" : 2,
// JSON-NEXT:  "other.op" : 1,
// JSON-NEXT:  "t.a" : 1,
// JSON-NEXT:  "t.b" : 1,
// JSON-NEXT:  "t.c" : 2
// JSON-NEXT:}

"t.a"() ({
  %0 = "t.b"() : () -> i32
  "t.c"(%0) : (i32) -> ()
  "t.c"(%0) : (i32) -> ()
}) : () -> ()
module @inner {
  "other.op"() : () -> ()
}
