// --tensor-padding: padding applied, bounded by epsilon, and refused with a diagnostic.
// RUN: rtile-opt %s --split-input-file --verify-diagnostics --tensor-padding="epsilon=0.5" | FileCheck %s

// The rTile shape comes from the `rtile.tile` attribute (or the pass's `tile=` option).
// 30 -> 32 (2/30 <= 0.5), 17 -> 24 (7/17 <= 0.5), 13 -> 16.
// CHECK-LABEL: func.func @matmul
// CHECK: te.compute (%m, %n) reduce (%k) in [32, 24, 16] padded_from [30, 17, 13] may_pad 0.0 : (tensor<30x13xf32>, tensor<13x17xf32>) -> tensor<30x17xf32>
func.func @matmul(%A: tensor<30x13xf32>, %B: tensor<13x17xf32>) -> tensor<30x17xf32> {
  %0 = te.compute (%m, %n) reduce (%k) in [30, 17, 13] may_pad 0.0 : (tensor<30x13xf32>, tensor<13x17xf32>) -> tensor<30x17xf32> {
    te.sum(%A[%m, %k] * %B[%k, %n])
  } {rtile.tile = #rtile.tile<[8, 8, 8]>}
  func.return %0 : tensor<30x17xf32>
}

// -----

// Too much waste: 5 -> 8 is 3/5 > 0.5, so that axis stays.
// CHECK-LABEL: func.func @bounded
// CHECK: in [8, 5] padded_from [7, 5]
func.func @bounded(%A: tensor<7x5xf32>) -> tensor<7x5xf32> {
  %0 = te.compute (%i, %j) in [7, 5] may_pad 0.0 : (tensor<7x5xf32>) -> tensor<7x5xf32> {
    %A[%i, %j] * 2.0
  } {rtile.tile = #rtile.tile<[4, 8]>}
  func.return %0 : tensor<7x5xf32>
}

// -----

func.func @no_permission(%A: tensor<30x13xf32>, %B: tensor<13x17xf32>) -> tensor<30x17xf32> {
  // expected-error @+1 {{the compute does not allow padding}}
  %0 = te.compute (%m, %n) reduce (%k) in [30, 17, 13] : (tensor<30x13xf32>, tensor<13x17xf32>) -> tensor<30x17xf32> {
    te.sum(%A[%m, %k] * %B[%k, %n])
  } {rtile.tile = #rtile.tile<[8, 8, 8]>}
  func.return %0 : tensor<30x17xf32>
}

// -----

func.func @not_neutral(%A: tensor<4x13xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{not te.sum's identity}}
  %0 = te.compute (%i) reduce (%k) in [4, 13] may_pad 0.0 : (tensor<4x13xf32>) -> tensor<4xf32> {
    te.sum(exp(%A[%i, %k]))
  } {rtile.tile = #rtile.tile<[4, 8]>}
  func.return %0 : tensor<4xf32>
}
