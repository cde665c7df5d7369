// Written for rtile (not copied from upstream). mlir-opt-22 prints this file in generic form;
// rtile must read that output and print it back byte for byte (trailing blank line included).
// RUN: mlir-opt --allow-unregistered-dialect --mlir-print-op-generic %s > %t.mlir
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic %t.mlir > %t.rtile
// RUN: diff %t.mlir %t.rtile

// Signaling NaNs and NaN payloads in every float type and float container.
func.func @nans() -> (f32, f16, bf16, f64) {
  %0 = arith.constant 0x7F800001 : f32
  %1 = arith.constant 0x7C01 : f16
  %2 = arith.constant 0x7F81 : bf16
  %3 = arith.constant 0x7FF0000000000001 : f64
  %4 = arith.constant 0xFFC00001 : f32
  %5 = arith.constant 0x7D : f8E5M2
  %6 = arith.constant 0x7F : f8E4M3FN
  %7 = arith.constant 0x80 : f8E4M3FNUZ
  %8 = arith.constant dense<[0x7F800001, 1.0, 0xFFA00000]> : tensor<3xf32>
  %9 = arith.constant dense<0x7C01> : tensor<4xf16>
  return %0, %1, %2, %3 : f32, f16, bf16, f64
}
"test.op"() {a = array<f32: 0x7F800001, 2.0>, b = array<f64: 0x7FF4000000000000>, c = 0x4002C000000000000000 : f80, d = 0x40028000000000000000000000000000 : f128} : () -> ()
// Strings whose escapes spell bytes that are not UTF-8 are kept byte for byte.
"test.op"() {s = "ab\FF\00c", t = ["\C3\A9", "\C3"], u = "\80" : i8} : () -> ()
// RUN: mlir-opt --allow-unregistered-dialect --mlir-print-op-generic %S/../../ir/Inputs/non-utf8-strings.mlir > %t.bytes.mlir
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic %S/../../ir/Inputs/non-utf8-strings.mlir > %t.bytes.rtile
// RUN: diff %t.bytes.mlir %t.bytes.rtile
