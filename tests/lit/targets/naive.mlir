// The naive reference kernel of each te.compute (one thread per output, the reduction as
// a loop nest, padded reads guarded): gpu-level IR that upstream mlir-opt-22 verifies and
// that every back end compiles. `rtile-run-cuda --reference` checks tuned kernels with it.
// RUN: rm -rf %t && mkdir -p %t
// RUN: rtile-translate --emit-naive-gpu %S/../../../bench/ops/roller-table1-small.mlir -o %t/naive.mlir
// RUN: mlir-opt --verify-each %t/naive.mlir -o /dev/null
// RUN: FileCheck %s --input-file=%t/naive.mlir
// RUN: rtile-translate --to-ptx=sm_80 %t/naive.mlir -o %t/naive.ptx --manifest=%t/naive.json
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/naive.ptx
// RUN: FileCheck %s --check-prefix=MAN --input-file=%t/naive.json
// RUN: rtile-translate --to-amdgpu=gfx90a %t/naive.mlir --code-object=%t/naive.hsaco -o %t/naive.s
// RUN: rtile-translate --to-hip %t/naive.mlir -o %t/naive.hip
// RUN: not rtile-translate --emit-naive-gpu %S/../interop/corpus/12-gpu-module.mlir 2>&1 | FileCheck %s --check-prefix=NONE
// Mixed precision (f16/bf16 inputs, acc(f32)): the loop carries the f32 accumulator and the
// result is rounded to the output type once, at the store (what the interpreter does).
// RUN: rtile-translate --emit-naive-gpu %S/../../../bench/ops/tensor-core-f16.mlir -o %t/mixed.mlir
// RUN: mlir-opt --verify-each %t/mixed.mlir -o /dev/null
// RUN: FileCheck %s --check-prefix=MIXED --input-file=%t/mixed.mlir

// MIXED: ^bb0(%{{.*}}: index, %[[ACC:.*]]: f32):
// MIXED: "arith.extf"(%{{.*}}) : (f16) -> f32
// MIXED: "arith.addf"(%[[ACC]], %{{.*}}) : (f32, f32) -> f32
// MIXED: }) : (index, index, index, f32) -> f32
// MIXED-NEXT: %[[R:.*]] = "arith.truncf"(%{{.*}}) : (f32) -> f16
// MIXED-NEXT: "memref.store"(%[[R]], %arg2, %{{.*}}) : (f16, memref<65536x4096xf16>
// MIXED: "arith.truncf"(%{{.*}}) : (f32) -> bf16

// CHECK: "gpu.module"() <{sym_name = "naive"}>
// CHECK: "gpu.func"() <{function_type = (memref<37x2xf32>, memref<2x16xf32>, memref<37x16xf32>) -> (), known_block_size = array<i32: 256, 1, 1>}>
// CHECK: "arith.cmpi"(%{{.*}}, %{{.*}}) <{predicate = 6 : i64}>
// CHECK: "scf.if"
// CHECK: "arith.remui"
// CHECK: "arith.divui"
// CHECK: "scf.for"
// CHECK: "memref.load"(%arg0
// CHECK: "memref.load"(%arg1
// CHECK: "arith.mulf"
// CHECK: "arith.addf"
// CHECK: "memref.store"(%{{.*}}, %arg2
// CHECK: sym_name = "m0_small_0"
// The conv's padded reads: a bounds check guards the load, the else branch yields 0.0.
// CHECK: sym_name = "m2_small_2"
// CHECK: "arith.andi"
// CHECK: "scf.if"
// CHECK-NEXT: "memref.load"(%arg0
// CHECK: "scf.yield"(%{{.*}}) : (f32) -> ()
// CHECK-NEXT: }, {
// CHECK-NEXT: "scf.yield"(%{{.*}}) : (f32) -> ()
// CHECK: sym_name = "c0_small_3"

// PTX: .visible .entry m0_small_0(
// PTX: .maxntid 256, 1, 1
// PTX: .visible .entry c0_small_3(

// MAN: "name": "m0_small_0",
// MAN: "grid": [
// MAN-NEXT: 3,
// MAN: "block": [
// MAN-NEXT: 256,

// NONE: rtile-translate: the input has no te.compute
