// Functions --lower-to-gpu cannot turn into host code are refused at the op at fault,
// and the module is left as it was.
// RUN: rtile-opt %s --split-input-file --verify-diagnostics --construct-rtile=device=h100 --lower-to-gpu

func.func @returns_an_argument(%A: tensor<4xf32>) -> tensor<4xf32> {
  %C = te.compute (%i) in [4] : (tensor<4xf32>) -> tensor<4xf32> {
    %A[%i] * 3.0
  }
  // expected-error @+1 {{result 0 is an argument or a constant (or a reshape of one): only values computed by a te.compute can be written to an output memref}}
  return %A : tensor<4xf32>
}

// -----

func.func @returns_a_constant(%A: tensor<4xf32>) -> (tensor<4xf32>, tensor<2x2xf32>) {
  %W = "arith.constant"() <{value = dense<1.0> : tensor<4xf32>}> : () -> tensor<4xf32>
  %C = te.compute (%i) in [4] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
    %A[%i] * %W[%i]
  }
  %E = tensor.expand_shape %W [[0, 1]] output_shape [2, 2] : tensor<4xf32> into tensor<2x2xf32>
  // expected-error @+1 {{result 1 is an argument or a constant (or a reshape of one)}}
  return %C, %E : tensor<4xf32>, tensor<2x2xf32>
}

// -----

func.func @one_result_twice(%A: tensor<4xf32>) -> (tensor<4xf32>, tensor<2x2xf32>) {
  %C = te.compute (%i) in [4] : (tensor<4xf32>) -> tensor<4xf32> {
    %A[%i] * 3.0
  }
  %E = tensor.expand_shape %C [[0, 1]] output_shape [2, 2] : tensor<4xf32> into tensor<2x2xf32>
  // expected-error @+1 {{result 1 shares its storage with an earlier result (the same te.compute result, possibly reshaped): each result needs its own compute}}
  return %C, %E : tensor<4xf32>, tensor<2x2xf32>
}

// -----

func.func @scalar_constant(%A: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{only tensor constants (dense or dense_resource elements of a static tensor type) are lowered in a function lowered to the GPU}}
  %s = "arith.constant"() <{value = 2.0 : f32}> : () -> f32
  %C = te.compute (%i) in [4] : (tensor<4xf32>) -> tensor<4xf32> {
    %A[%i] * 3.0
  }
  return %C : tensor<4xf32>
}
