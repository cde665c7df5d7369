// gpu-level IR -> LLVM IR -> PTX. The kernels are in Inputs/ and in the interop corpus;
// this file only holds RUN lines and checks.
// RUN: rtile-translate --to-llvmir %S/../interop/corpus/13-gpu-shared.mlir | FileCheck %s --check-prefix=IR
// RUN: rtile-translate --to-ptx=sm_90 %S/../interop/corpus/13-gpu-shared.mlir | FileCheck %s --check-prefix=PTX
// --max-registers: none leaves .maxnreg out, a number sets it, anything else is refused.
// RUN: rtile-translate --to-ptx=sm_90 --max-registers=none %S/../interop/corpus/13-gpu-shared.mlir | FileCheck %s --check-prefix=NOREG
// RUN: rtile-translate --to-ptx=sm_90 --max-registers=96 %S/../interop/corpus/13-gpu-shared.mlir | FileCheck %s --check-prefix=REG96
// RUN: not rtile-translate --to-ptx=sm_90 --max-registers=7 %S/../interop/corpus/13-gpu-shared.mlir 2>&1 | FileCheck %s --check-prefix=BADREG
// NOREG: .maxntid 64, 1, 1
// NOREG-NOT: .maxnreg
// REG96: .maxntid 64, 1, 1
// REG96-NEXT: .maxnreg 96
// BADREG: invalid value '7' for '--max-registers <block|none|N>'
// RUN: rtile-translate --to-ptx=sm_80 %S/Inputs/matmul-tiled.mlir | FileCheck %s --check-prefix=MM
// RUN: rtile-translate --to-llvmir %S/Inputs/ops.mlir | FileCheck %s --check-prefix=OPS
// RUN: rtile-translate --to-ptx=sm_70 %S/Inputs/ops.mlir | FileCheck %s --check-prefix=OPS70
// RUN: rtile-translate --to-ptx=sm_90a %S/../interop/corpus/23-gpu-shuffle-sync.mlir | FileCheck %s --check-prefix=SHFL
// RUN: rtile-translate --to-ptx=sm_90 --index-bitwidth=32 %S/../interop/corpus/12-gpu-module.mlir | FileCheck %s --check-prefix=I32
// RUN: rtile-translate --to-llvmir --opt-level=3 %S/Inputs/matmul-tiled.mlir | FileCheck %s --check-prefix=O3
// The printed LLVM IR is a standalone module that LLVM's own tools compile.
// RUN: rtile-translate --to-llvmir %S/Inputs/ops.mlir | llc -mcpu=sm_80 -o /dev/null
// RUN: rtile-translate --to-llvmir=amdgpu %S/Inputs/ops.mlir | llc -mcpu=gfx90a -o /dev/null

// Bare-pointer kernel arguments in the global address space, workgroup attributions as
// addrspace(3) globals, the barrier, special registers, known_block_size as maxntid.
// IR: target triple = "nvptx64-nvidia-cuda"
// IR: @__rtile_wg_tile_0 = internal addrspace(3) global [64 x float] undef, align 16
// IR: define ptx_kernel void @tile(ptr addrspace(1) noalias align 16 %arg0, ptr addrspace(1) noalias align 16 %arg1) #[[ATTR:[0-9]+]]
// IR: call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
// IR: call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
// IR: load float, ptr addrspace(1)
// IR: store float %{{.*}}, ptr addrspace(3)
// IR: call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
// IR: attributes #[[ATTR]] = { nounwind "nvvm.maxnreg"="255" "nvvm.maxntid"="64,1,1" }

// PTX: .version
// PTX: .target sm_90
// PTX: .visible .entry tile(
// PTX: .maxntid 64, 1, 1
// PTX-NEXT: .maxnreg 255
// PTX: .shared .align 16 .b8 __rtile_wg_tile_0[256];
// PTX: mov.u32 %r{{[0-9]+}}, %tid.x;
// PTX: ld.global.nc
// PTX: bar.sync 0;
// PTX: ld.shared
// PTX: st.global

// O3 unrolls the 16-step inner loop and vectorises the shared-memory row reads.
// MM: .target sm_80
// MM: .visible .entry matmul(
// MM: .maxntid 16, 16, 1
// MM: .shared .align 16 .b8 __rtile_wg_matmul_0[1024];
// MM: .shared .align 16 .b8 __rtile_wg_matmul_1[1024];
// MM: bar.sync 0;
// MM: ld.shared.v4.b32
// MM: fma.rn.f32
// MM: bar.sync 0;

// OPS: @__rtile_dynamic_shmem = external addrspace(3) global [0 x i8], align 16
// OPS: define ptx_kernel void @ops(
// OPS: alloca [4 x float], align 16
// OPS: load <4 x float>, ptr addrspace(1) %{{.*}}, align 16
// OPS: fmul <4 x float>
// OPS: getelementptr inbounds i8, ptr addrspace(3) @__rtile_dynamic_shmem, i64 0
// OPS: for{{[0-9]+}}.header:
// OPS: phi i64 [ 0, %entry ], [ %{{.*}}, %for{{[0-9]+}}.latch ]
// OPS: icmp slt i64
// OPS: extractelement <4 x float>
// OPS: call float @__rtile_expf(
// OPS: call float @__rtile_tanhf(
// OPS: call float @__rtile_erff(
// OPS: call float @llvm.sqrt.f32(
// OPS: call float @__rtile_logf(
// OPS: fdiv float 1.000000e+00,
// OPS: call float @llvm.maximum.f32(
// OPS: fcmp olt float
// OPS: br i1 %{{.*}}, label %if{{[0-9]+}}.then, label %if{{[0-9]+}}.else
// OPS: fneg float
// OPS: phi float
// OPS: sdiv i32
// OPS: store <4 x float> %{{.*}}, ptr addrspace(1) %{{.*}}, align 16
// OPS: define internal float @__rtile_erff(float %x)
// OPS: define internal float @__rtile_expf(float %x)
// OPS: call float @llvm.exp2.f32(
// OPS: define internal float @__rtile_logf(float %x)
// OPS: call float @llvm.nvvm.lg2.approx.f(
// `rtile.unroll` on the register-filling loop: full-unroll metadata on its back edge.
// OPS: ![[LOOP:[0-9]+]] = distinct !{![[LOOP]], ![[FULL:[0-9]+]]}
// OPS: ![[FULL]] = !{!"llvm.loop.unroll.full"}

// No libdevice: exp is ex2.approx with an exact argument split, log is lg2.approx.
// OPS70: .target sm_70
// OPS70: .extern .shared .align 16 .b8 __rtile_dynamic_shmem[];
// OPS70: ld.global.nc.v4
// OPS70: ex2.approx
// OPS70: lg2.approx
// OPS70: sqrt.rn.f32
// OPS70: st.global.v4
// OPS70-NOT: .extern .func

// SHFL: .target sm_90a
// SHFL: shfl.sync.bfly.b32

// I32: .visible .entry vadd(
// I32: mad.lo.s32
// I32-NEXT: mul.wide.s32 %rd{{[0-9]+}}, %r{{[0-9]+}}, 4;

// O3: define ptx_kernel void @matmul(
// O3-NOT: br label %for
// O3: fmul contract float
