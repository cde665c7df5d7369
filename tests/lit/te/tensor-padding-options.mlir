// --tensor-padding options: the tile from the `tile` option (one size per axis, or one
// for all), the op's `rtile.tile` attribute winning over it, the epsilon bound and its
// default (0.25), and bad option values.
// RUN: rtile-opt %s --tensor-padding="tile=8,8,8 epsilon=0.1" | FileCheck %s --check-prefix=EPS
// RUN: rtile-opt %s --tensor-padding="tile=8" | FileCheck %s --check-prefix=DEFAULT
// RUN: rtile-opt %s --pass-pipeline="builtin.module(tensor-padding{tile=8 epsilon=1.0})" | FileCheck %s --check-prefix=ALL
// RUN: rtile-opt %s --tensor-padding="epsilon=1.0" | FileCheck %s --check-prefix=NOTILE
// RUN: not rtile-opt %s --tensor-padding="epsilon=-1" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not rtile-opt %s --tensor-padding="tile=8,8" 2>&1 | FileCheck %s --check-prefix=RANK

// 30 -> 32 costs 2/30 <= 0.1; 17 -> 24 (7/17) and 13 -> 16 (3/13) do not fit 0.1.
// EPS-LABEL: func.func @matmul
// EPS: in [32, 17, 13] padded_from [30, 17, 13]
// With the default epsilon 0.25: 30 -> 32 and 13 -> 16 (3/13 = 0.23) but not 17 -> 24.
// DEFAULT-LABEL: func.func @matmul
// DEFAULT: in [32, 17, 16] padded_from [30, 17, 13]
// ALL-LABEL: func.func @matmul
// ALL: in [32, 24, 16] padded_from [30, 17, 13]
// NOTILE-LABEL: func.func @matmul
// NOTILE: in [30, 17, 13] may_pad
func.func @matmul(%A: tensor<30x13xf32>, %B: tensor<13x17xf32>) -> tensor<30x17xf32> {
  %0 = te.compute (%m, %n) reduce (%k) in [30, 17, 13] may_pad 0.0 : (tensor<30x13xf32>, tensor<13x17xf32>) -> tensor<30x17xf32> {
    te.sum(%A[%m, %k] * %B[%k, %n])
  }
  return %0 : tensor<30x17xf32>
}

// The attribute wins over the option (whose 3 sizes would not even fit these 2 axes);
// with epsilon 0.1 nothing fits (7 -> 8 costs 1/7).
// EPS-LABEL: func.func @own_tile
// EPS: in [7, 6] may_pad 0.0
// ALL-LABEL: func.func @own_tile
// ALL: in [8, 12] padded_from [7, 6]
// NOTILE-LABEL: func.func @own_tile
// NOTILE: in [8, 12] padded_from [7, 6]
func.func @own_tile(%A: tensor<7x6xf32>) -> tensor<7x6xf32> {
  %0 = te.compute (%i, %j) in [7, 6] may_pad 0.0 : (tensor<7x6xf32>) -> tensor<7x6xf32> {
    %A[%i, %j] * 2.0
  } {rtile.tile = #rtile.tile<[4, 12]>}
  return %0 : tensor<7x6xf32>
}

// BAD: error: invalid value for option 'epsilon' of pass 'tensor-padding': epsilon must be a non-negative number, got -1
// RANK: error: 'te.compute' op the rTile has 2 sizes for 3 axes
