// An rTask's shared memory is what its kernel declares: PyTorch's MaxPool2d with stride,
// padding and dilation 10 (ONNX's test_MaxPool2d_stride_padding_dilation). Roller counts a
// footprint of 109,924 bytes; the lowered kernel lays its buffers out aligned, 109,936. The
// pack sized the vEU for the first and the persistent lowering refused the kernel ("has ...
// 109936 bytes of shared memory, but its vdevice.device was sized for ... 109924").
// RUN: rtile-opt %s --wavefront-pack=device=h100 | FileCheck %s --check-prefix=PACK
// RUN: rtile-opt %s --wavefront-pack=device=h100 --lower-to-gpu | FileCheck %s

// PACK: vdevice.device @graph_vdevice {{{.*}}smem = 109936 : i64
// CHECK: gpu.func @graph_p0
// CHECK-SAME: dynamic_shared_memory = 109936

func.func @graph(%arg0: tensor<1x1x1000x1000xf32>) -> tensor<1x1x43x25xf32> {
  %0 = te.compute (%d0, %d1, %d2, %d3) reduce (%r0, %r1) in [1, 1, 43, 25, 60, 80] may_pad -inf : (tensor<1x1x1000x1000xf32>) -> tensor<1x1x43x25xf32> {
    te.max(%arg0[%d0, %d1, %d2 * 10 + %r0 * 10 - 10, %d3 * 10 + %r1 * 10 - 20] pad -inf)
  }
  return %0 : tensor<1x1x43x25xf32>
}
