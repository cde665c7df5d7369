// memref.collapse_shape verifier errors.
// RUN: rtile-opt %s --split-input-file --verify-diagnostics

func.func @wrong_size(%a: memref<2x3xf32>) {
  // expected-error @+1 {{expected collapsed dim #0 to be 6, got 5}}
  %0 = memref.collapse_shape %a [[0, 1]] : memref<2x3xf32> into memref<5xf32>
  return
}

// -----

func.func @not_consecutive(%a: memref<2x3x4xf32>) {
  // expected-error @+1 {{expected reassociation indices to be consecutive, covering every source dim in order}}
  %0 = memref.collapse_shape %a [[0, 2], [1]] : memref<2x3x4xf32> into memref<8x3xf32>
  return
}

// -----

func.func @missing_dim(%a: memref<2x3x4xf32>) {
  // expected-error @+1 {{expected reassociation indices to be consecutive, covering every source dim in order}}
  %0 = memref.collapse_shape %a [[0, 1]] : memref<2x3x4xf32> into memref<6xf32>
  return
}

// -----

func.func @rank(%a: memref<2x3x4xf32>) {
  // expected-error @+1 {{expected 2 reassociation groups (the result rank), got 1}}
  %0 = memref.collapse_shape %a [[0, 1, 2]] : memref<2x3x4xf32> into memref<6x4xf32>
  return
}

// -----

func.func @elem(%a: memref<2x3xf32>) {
  // expected-error @+1 {{source and result must have the same element type and memory space}}
  %0 = memref.collapse_shape %a [[0, 1]] : memref<2x3xf32> into memref<6xf16>
  return
}
