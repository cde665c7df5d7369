// Ops of upstream dialects that rtile models only in part (tensor, gpu, memref, vector,
// arith, func, ...) pass through opaquely, in generic form and unverified, under
// --allow-unregistered-dialect, as mlir-opt keeps them; without the flag each is refused
// with its name, its location, and the flag that lets it through.
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic %s | FileCheck %s
// RUN: not rtile-opt --mlir-print-op-generic %s 2>&1 | FileCheck %s --check-prefix=REFUSED
// RUN: not rtile-opt --allow-unregistered-dialect %S/Inputs/partial-custom.mlir 2>&1 | FileCheck %s --check-prefix=CUSTOM

// CUSTOM: partial-custom.mlir:2:8: error: custom op 'tensor.empty' of registered dialect 'tensor' is not modelled by rtile; write it in generic form with --allow-unregistered-dialect to pass it through unverified

// CHECK: %0 = "tensor.cast"(%arg0) : (tensor<?x4xf32>) -> tensor<2x4xf32>
// CHECK: "tensor.dim"(%0, %arg1) : (tensor<2x4xf32>, index) -> index
// CHECK: "arith.ceildivui"
// CHECK: "memref.atomic_rmw"
// CHECK: "func.call_indirect"
// REFUSED: partial-dialects.mlir:[[@LINE+3]]:8: error: operation 'tensor.cast' of registered dialect 'tensor' is not modelled by rtile; use --allow-unregistered-dialect to pass it through unverified
"func.func"() <{function_type = (tensor<?x4xf32>, index, i32, memref<4xf32>, f32, () -> ()) -> (), sym_name = "f"}> ({
^bb0(%arg0: tensor<?x4xf32>, %arg1: index, %arg2: i32, %arg3: memref<4xf32>, %arg4: f32, %arg5: () -> ()):
  %0 = "tensor.cast"(%arg0) : (tensor<?x4xf32>) -> tensor<2x4xf32>
  %1 = "tensor.dim"(%0, %arg1) : (tensor<2x4xf32>, index) -> index
  %2 = "arith.ceildivui"(%arg2, %arg2) : (i32, i32) -> i32
  %3 = "memref.atomic_rmw"(%arg4, %arg3, %arg1) <{kind = 0 : i64}> : (f32, memref<4xf32>, index) -> f32
  "func.call_indirect"(%arg5) : (() -> ()) -> ()
  "func.return"() : () -> ()
}) : () -> ()
