// Tensor-core (f16/bf16 with acc(f32)) twins of Roller Table 1's M2 and of BERT-Large's
// matmuls, for --construct-rtile + --lower-to-gpu on sm_80 (mma.sync) and the PERF.md
// tensor-core table. Sizes as in roller-table1.mlir (M2: M=65536, K=1024, N=4096) and
// BERT-Large (hidden 1024, FFN 4096, 512 tokens, 16 heads of 64).

// M2 in f16: MatMul M=65536, K=1024, N=4096.
func.func @m2_f16(%A: tensor<65536x1024xf16>, %B: tensor<1024x4096xf16>) -> tensor<65536x4096xf16> {
  %C = te.compute (%m, %n) reduce (%k) in [65536, 4096, 1024] acc(f32) : (tensor<65536x1024xf16>, tensor<1024x4096xf16>) -> tensor<65536x4096xf16> { te.sum(f32(%A[%m, %k]) * f32(%B[%k, %n])) }
  func.return %C : tensor<65536x4096xf16>
}

// BERT-Large FFN up-projection: 512 tokens x 1024 -> 4096.
func.func @bert_ffn1(%X: tensor<512x1024xf16>, %W: tensor<1024x4096xf16>) -> tensor<512x4096xf16> {
  %C = te.compute (%m, %n) reduce (%k) in [512, 4096, 1024] acc(f32) : (tensor<512x1024xf16>, tensor<1024x4096xf16>) -> tensor<512x4096xf16> { te.sum(f32(%X[%m, %k]) * f32(%W[%k, %n])) }
  func.return %C : tensor<512x4096xf16>
}

// BERT-Large FFN down-projection: 512 tokens x 4096 -> 1024, bf16.
func.func @bert_ffn2(%X: tensor<512x4096xbf16>, %W: tensor<4096x1024xbf16>) -> tensor<512x1024xbf16> {
  %C = te.compute (%m, %n) reduce (%k) in [512, 1024, 4096] acc(f32) : (tensor<512x4096xbf16>, tensor<4096x1024xbf16>) -> tensor<512x1024xbf16> { te.sum(f32(%X[%m, %k]) * f32(%W[%k, %n])) }
  func.return %C : tensor<512x1024xbf16>
}

// BERT-Large attention scores: 16 heads, Q (512x64) times K^T (stored 512x64: k-contiguous).
func.func @bert_scores(%Q: tensor<16x512x64xf16>, %K: tensor<16x512x64xf16>) -> tensor<16x512x512xf32> {
  %S = te.compute (%b, %m, %n) reduce (%k) in [16, 512, 512, 64] acc(f32) : (tensor<16x512x64xf16>, tensor<16x512x64xf16>) -> tensor<16x512x512xf32> { te.sum(f32(%Q[%b, %m, %k]) * f32(%K[%b, %n, %k])) }
  func.return %S : tensor<16x512x512xf32>
}
