// Computes whose reads Roller's rTile model cannot express (a grouped convolution's
// `f floordiv 6 * 4 + c`, a head merge's `e floordiv 12` and `e mod 12`) get one rKernel:
// the tiles --connect gives the op alone, as --lower-to-gpu gives such an op after
// --construct-rtile leaves it unchanged, timed by connect's model. Before, the pack
// refused the function ("index 1 of input read #0 is not of the form ..."). The packed
// functions lower to persistent kernels and run in the simulator against the f64 oracle.
// RUN: rtile-opt %s --wavefront-pack=device=h100 | FileCheck %s
// RUN: rtile-opt %s --wavefront-pack=device=h100 --lower-to-gpu | rtile-run --sim | FileCheck %s --check-prefix=SIM
// RUN: rtile-opt %s --wavefront-pack=device=v100 --lower-to-gpu | rtile-run --sim | FileCheck %s --check-prefix=SIM
// --check on a module with host functions checks alone the kernels that carry a te
// reference; a persistent program and its step reset have none (they were refused).
// RUN: rtile-opt %s --wavefront-pack=device=h100 --lower-to-gpu | rtile-run --sim --check | FileCheck %s --check-prefixes=SIM,ALONE

// CHECK: vdevice.roperator @group_swish_0 {kernel = 0 : i64, kernels = [{regs = {{[0-9]+}} : i64, rtasks = {{[0-9]+}} : i64, smem = {{[0-9]+}} : i64, threads = {{[0-9]+}} : i64, us = {{.*}} : f64}]}
// CHECK: vdevice.roperator @group_swish_1(@group_swish_0)
// CHECK: vdevice.roperator @merge_heads_1(@merge_heads_0) {kernel = 0 : i64, kernels = [{regs = {{[0-9]+}} : i64, rtasks = {{[0-9]+}} : i64, smem = {{[0-9]+}} : i64, threads = {{[0-9]+}} : i64, us = {{.*}} : f64}]}

// ALONE: @group_swish_steps_reset: not checked alone (no te reference; its host function runs it)
// ALONE: @group_swish_p0: not checked alone
// SIM: @group_swish output 0: tensor<1x12x10x10xf32>, max relative error
// SIM: @merge_heads output 0: tensor<24x36xf32>, max relative error
// SIM-NOT: error:

func.func @group_swish(%X: tensor<1x8x10x10xf32>, %W: tensor<12x4x3x3xf32>, %b: tensor<12xf32>) -> tensor<1x12x10x10xf32> {
  %C = te.compute (%n, %f, %y, %x) reduce (%c, %ry, %rx) in [1, 12, 10, 10, 4, 3, 3] : (tensor<1x8x10x10xf32>, tensor<12x4x3x3xf32>) -> tensor<1x12x10x10xf32> { te.sum(%X[%n, %f floordiv 6 * 4 + %c, %y + 2 * %ry - 2, %x + 2 * %rx - 2] pad 0.0 * %W[%f, %c, %ry, %rx]) }
  %Z = te.compute (%n, %c, %y, %x) in [1, 12, 10, 10] : (tensor<1x12x10x10xf32>, tensor<12xf32>) -> tensor<1x12x10x10xf32> { (%C[%n, %c, %y, %x] + %b[%c]) / (1.0 + exp(neg(%C[%n, %c, %y, %x] + %b[%c]))) }
  func.return %Z : tensor<1x12x10x10xf32>
}

func.func @merge_heads(%A: tensor<3x24x12xf32>, %V: tensor<3x12x12xf32>) -> tensor<24x36xf32> {
  %O = te.compute (%h, %i, %d) reduce (%j) in [3, 24, 12, 12] : (tensor<3x24x12xf32>, tensor<3x12x12xf32>) -> tensor<3x24x12xf32> { te.sum(%A[%h, %i, %j] * %V[%h, %j, %d]) }
  %T = te.compute (%i, %e) in [24, 36] : (tensor<3x24x12xf32>) -> tensor<24x36xf32> { %O[%e floordiv 12, %i, %e mod 12] }
  func.return %T : tensor<24x36xf32>
}
