// Hand-connected PWConv -> DWConv (Welder §5.2's bottom-layer order) whose pointwise conv
// is a shared stage with a 256-channel reduction too large to stage whole (over the
// lowering's 48 KB copy limit): the lowering computes it in k-steps
// (lower_to_gpu/shared_steps.rs). Whole 8-wide rows, 4 of 8 per block plus the halo.
module {
  func.func @pw_dw(%arg0: tensor<1x256x8x8xf32>, %arg1: tensor<256x256xf32>, %arg2: tensor<256x3x3xf32>) -> tensor<1x256x8x8xf32> {
    %0 = tilegraph.kernel -> (tensor<1x256x8x8xf32>) {
      %1 = te.compute (%n, %f, %y, %x) reduce (%c) in [1, 256, 8, 8, 256] : (tensor<1x256x8x8xf32>, tensor<256x256xf32>) -> tensor<1x256x8x8xf32> {
        te.sum(%arg0[%n, %c, %y, %x] * %arg1[%f, %c])
      } {tilegraph.connect = ["global", "global"], tilegraph.tiles = {shared = array<i64: 1, 8, 6, 8, 32>}}
      %2 = te.compute (%n, %c, %y, %x) reduce (%ry, %rx) in [1, 256, 8, 8, 3, 3] : (tensor<1x256x8x8xf32>, tensor<256x3x3xf32>) -> tensor<1x256x8x8xf32> {
        te.sum(%1[%n, %c, %y + %ry - 1, %x + %rx - 1] pad 0.0 * %arg2[%c, %ry, %rx])
      } {tilegraph.connect = ["shared", "global"], tilegraph.tiles = {register = array<i64: 1, 1, 1, 1, 3, 3>, shared = array<i64: 1, 8, 4, 8, 3, 3>}}
      tilegraph.yield %2 : tensor<1x256x8x8xf32>
    } {tilegraph.device = "v100"}
    return %0 : tensor<1x256x8x8xf32>
  }
}
