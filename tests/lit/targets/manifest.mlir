// The launch manifest rtile-run reads: kernel name, grid, block, shared memory, and the
// arguments (shape, dtype, role) in launch order.
// RUN: rm -rf %t && mkdir -p %t
// RUN: rtile-translate --to-ptx=sm_90 %S/Inputs/matmul-tiled.mlir -o %t/mm.ptx --manifest=%t/mm.json
// RUN: FileCheck %s --input-file=%t/mm.json
// RUN: rtile-translate --to-hip %S/../interop/corpus/12-gpu-module.mlir --manifest=%t/v.json -o %t/v.hip
// RUN: FileCheck %s --check-prefix=NOLAUNCH --input-file=%t/v.json

// CHECK: "version": 1,
// CHECK: "target": "sm_90",
// CHECK: "module": "mm",
// CHECK: "name": "matmul",
// CHECK: "grid": [
// CHECK-NEXT: 4,
// CHECK-NEXT: 4,
// CHECK-NEXT: 1
// CHECK: "block": [
// CHECK-NEXT: 16,
// CHECK-NEXT: 16,
// CHECK-NEXT: 1
// CHECK: "dynamic_shared_memory": 0,
// CHECK: "static_shared_memory": 2048,
// CHECK: "name": "arg0",
// CHECK: "kind": "memref",
// CHECK: "shape": [
// CHECK-NEXT: 64,
// CHECK-NEXT: 32
// CHECK: "dtype": "f32",
// CHECK: "role": "input"
// CHECK: "name": "arg2",
// CHECK: "role": "output"

// NOLAUNCH: "target": "hip",
// NOLAUNCH: "name": "vadd",
// NOLAUNCH: "grid": null,
// NOLAUNCH: "block": null,
