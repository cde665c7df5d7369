// An f16 matmul accumulated in f32, bias and tanh rounded back to f16 (tools/tests/scheduler_zoo.rs).
func.func @f16_mlp(%X: tensor<37x64xf16>, %W: tensor<64x96xf16>, %b: tensor<96xf32>) -> tensor<37x96xf16> {
  %H = te.compute (%m, %n) reduce (%k) in [37, 96, 64] : (tensor<37x64xf16>, tensor<64x96xf16>) -> tensor<37x96xf32> { te.sum(f32(%X[%m, %k]) * f32(%W[%k, %n])) }
  %Y = te.compute (%m, %n) in [37, 96] : (tensor<37x96xf32>, tensor<96xf32>) -> tensor<37x96xf16> { f16(tanh(%H[%m, %n] + %b[%n])) }
  func.return %Y : tensor<37x96xf16>
}
