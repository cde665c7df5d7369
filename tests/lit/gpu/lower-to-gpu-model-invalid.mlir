// Functions --lower-to-gpu cannot turn into host code are refused at the op at fault,
// and the module is left as it was. (Results that are arguments, constants or a result
// returned twice are copied: lower-to-gpu-copies.mlir.)
// RUN: rtile-opt %s --split-input-file --verify-diagnostics --construct-rtile=device=h100 --lower-to-gpu

func.func @scalar_constant(%A: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{only tensor constants (dense or dense_resource elements of a static tensor type) are lowered in a function lowered to the GPU}}
  %s = "arith.constant"() <{value = 2.0 : f32}> : () -> f32
  %C = te.compute (%i) in [4] : (tensor<4xf32>) -> tensor<4xf32> {
    %A[%i] * 3.0
  }
  return %C : tensor<4xf32>
}
