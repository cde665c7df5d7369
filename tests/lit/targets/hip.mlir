// gpu-level IR -> readable HIP C++.
// RUN: rtile-translate --to-hip %S/../interop/corpus/13-gpu-shared.mlir | FileCheck %s
// RUN: rtile-translate --to-hip %S/Inputs/matmul-tiled.mlir | FileCheck %s --check-prefix=MM
// RUN: rtile-translate --to-hip %S/Inputs/ops.mlir | FileCheck %s --check-prefix=OPS

// CHECK: #include <hip/hip_runtime.h>
// CHECK: // block = (64, 1, 1)
// CHECK-NEXT: extern "C" __global__ void __launch_bounds__(64) tile(const float* __restrict__ arg0, float* __restrict__ arg1) {
// CHECK-NEXT:   __shared__ __attribute__((aligned(16))) float wg0[64];
// CHECK-NEXT:   const int64_t v1 = (int64_t)threadIdx.x;
// CHECK-NEXT:   const int64_t v2 = (int64_t)blockIdx.x;
// CHECK-NEXT:   const int64_t v3 = v2 * (int64_t)64;
// CHECK-NEXT:   const int64_t v4 = v3 + v1;
// CHECK-NEXT:   const float v5 = arg0[v4];
// CHECK-NEXT:   wg0[v1] = v5;
// CHECK-NEXT:   __syncthreads();
// CHECK-NEXT:   const int64_t v6 = (int64_t)63 - v1;
// CHECK-NEXT:   const float v7 = wg0[v6];
// CHECK-NEXT:   arg1[v4] = v7;
// CHECK-NEXT: }

// MM: // block = (16, 16, 1), grid = (4, 4, 1)
// MM-NEXT: // hipLaunchKernelGGL(matmul, dim3(4, 4, 1), dim3(16, 16, 1), 0, 0, arg0, arg1, arg2);
// MM: __global__ void __launch_bounds__(256) matmul(const float* __restrict__ arg0, const float* __restrict__ arg1, float* __restrict__ arg2)
// MM: __shared__ __attribute__((aligned(16))) float wg0[256];
// MM: __shared__ __attribute__((aligned(16))) float wg1[256];
// MM: float [[ACC:v[0-9]+]] = 0e0f;
// MM: for (int64_t [[K:v[0-9]+]] = (int64_t)0; [[K]] < (int64_t)32; [[K]] += (int64_t)16) {
// MM: wg0[v{{[0-9]+}} * 16 + v{{[0-9]+}}] = v{{[0-9]+}};
// MM: __syncthreads();
// MM: for (int64_t
// MM: [[ACC]] = v{{[0-9]+}};
// MM: arg2[v{{[0-9]+}} * 64 + v{{[0-9]+}}] = [[ACC]];

// OPS: typedef float rt_float4 __attribute__((ext_vector_type(4)));
// OPS: extern __shared__ __attribute__((aligned(16))) char rt_dynamic_shmem[];
// OPS: const rt_float4 v7 = *reinterpret_cast<const rt_float4*>(&arg0[v6]);
// OPS: float v10[4];
// OPS: float* v11 = reinterpret_cast<float*>(rt_dynamic_shmem + (int64_t)0);
// OPS: #pragma unroll
// OPS-NEXT: for (int64_t
// OPS: expf(
// OPS: tanhf(
// OPS: erff(
// OPS: rsqrtf(
// OPS: rt_maximumf(
// OPS: if (
// OPS: } else {
// OPS: *reinterpret_cast<rt_float4*>(&arg2[v6]) = v{{[0-9]+}};
