// Narrow float formats: decimal literals round to nearest even into each format with its
// overflow rule (infinity, NaN for FN/FNUZ, saturation for the MX formats), and hex NaN
// payloads (signalling ones included) come back bit for bit. CHECK lines are what
// mlir-opt-22 prints for the same input.
// RUN: rtile-opt --allow-unregistered-dialect %s | FileCheck %s
// RUN: rtile-opt --allow-unregistered-dialect --mlir-print-op-generic %s | rtile-opt --allow-unregistered-dialect | FileCheck %s
// RUN: mlir-opt --allow-unregistered-dialect %s | FileCheck %s

"a.f16"() {a = 65519.0 : f16, b = 65520.0 : f16, c = 5.9604644775390625e-8 : f16, d = 2.98023223876953125e-8 : f16, e = 1.00048828125 : f16, f = 1.00146484375 : f16, g = 0x7C01 : f16, h = 0xFE2A : f16, i = -0.0 : f16} : () -> ()
"a.bf16"() {a = 1.00390625 : bf16, b = 1.01171875 : bf16, c = 0x7F81 : bf16, d = 3.0e38 : bf16} : () -> ()
"a.f8"() {a = 464.0 : f8E4M3FN, b = 500.0 : f8E4M3FN, c = 0x7E : f8E4M3FN, d = 1.0e9 : f8E5M2FNUZ, e = 240.0 : f8E4M3FNUZ, f = 1.0e-30 : f8E4M3FNUZ, g = 61440.0 : f8E5M2, h = 0x7D : f8E5M2, i = 30.0 : f8E4M3B11FNUZ, j = 0.2 : f8E3M4, k = 0.3 : f8E4M3} : () -> ()
"a.mx"() {a = 3.0 : f8E8M0FNU, b = 1.0e-50 : f8E8M0FNU, c = 7.0 : f4E2M1FN, d = 0.75 : f4E2M1FN, e = 100.0 : f6E2M3FN, f = 1.0e6 : f6E3M2FN, g = 0.3 : tf32} : () -> ()

// CHECK: "a.f16"() {a = 6.550400e+04 : f16, b = 0x7C00 : f16, c = 5.960460e-08 : f16, d = 0.000000e+00 : f16, e = 1.000000e+00 : f16, f = 1.001950e+00 : f16, g = 0x7C01 : f16, h = 0xFE2A : f16, i = -0.000000e+00 : f16} : () -> ()
// CHECK-NEXT: "a.bf16"() {a = 1.000000e+00 : bf16, b = 1.015630e+00 : bf16, c = 0x7F81 : bf16, d = 3.004060e+38 : bf16} : () -> ()
// CHECK-NEXT: "a.f8"() {a = 4.480000e+02 : f8E4M3FN, b = 0x7F : f8E4M3FN, c = 4.480000e+02 : f8E4M3FN, d = 0x80 : f8E5M2FNUZ, e = 2.400000e+02 : f8E4M3FNUZ, f = 0.000000e+00 : f8E4M3FNUZ, g = 0x7C : f8E5M2, h = 0x7D : f8E5M2, i = 3.000000e+01 : f8E4M3B11FNUZ, j = 2.031250e-01 : f8E3M4, k = 3.125000e-01 : f8E4M3} : () -> ()
// CHECK-NEXT: "a.mx"() {a = 4.000000e+00 : f8E8M0FNU, b = 5.877470e-39 : f8E8M0FNU, c = 6.000000e+00 : f4E2M1FN, d = 1.000000e+00 : f4E2M1FN, e = 7.500000e+00 : f6E2M3FN, f = 2.800000e+01 : f6E3M2FN, g = 3.000490e-01 : tf32} : () -> ()
