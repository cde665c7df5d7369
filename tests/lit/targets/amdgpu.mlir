// The same gpu-level IR through the AMDGPU back end: GCN assembly for gfx90a, then an
// HSA code object (llvm-mc-22 + ld.lld-22).
// RUN: rm -rf %t && mkdir -p %t
// RUN: rtile-translate --to-llvmir=amdgpu %S/../interop/corpus/13-gpu-shared.mlir | FileCheck %s --check-prefix=IR
// RUN: rtile-translate --to-amdgpu=gfx90a %S/../interop/corpus/13-gpu-shared.mlir --code-object=%t/b.hsaco | FileCheck %s --check-prefix=ASM
// RUN: llvm-readelf -h %t/b.hsaco | FileCheck %s --check-prefix=ELF
// RUN: rtile-translate --to-amdgpu=gfx90a %S/Inputs/matmul-tiled.mlir --code-object=%t/mm.hsaco -o %t/mm.s
// RUN: llvm-readelf -h %t/mm.hsaco | FileCheck %s --check-prefix=ELF
// RUN: FileCheck %s --check-prefix=MM --input-file=%t/mm.s
// RUN: rtile-translate --to-amdgpu=gfx90a %S/Inputs/ops.mlir --code-object=%t/ops.hsaco | FileCheck %s --check-prefix=OPS
// RUN: rtile-translate --to-amdgpu=gfx90a %S/../interop/corpus/23-gpu-shuffle-sync.mlir --code-object=%t/sh.hsaco | FileCheck %s --check-prefix=SHFL
// RUN: llvm-readelf -h %t/sh.hsaco | FileCheck %s --check-prefix=ELF
// RUN: rtile-translate --to-amdgpu=gfx90a %S/Inputs/types.mlir --code-object=%t/ty.hsaco -o %t/ty.s
// RUN: llvm-readelf -h %t/ty.hsaco | FileCheck %s --check-prefix=ELF

// IR: target triple = "amdgcn-amd-amdhsa"
// IR: @__rtile_wg_tile_0 = internal addrspace(3) global [64 x float] undef, align 16
// IR: define amdgpu_kernel void @tile(ptr addrspace(1) noalias align 16 %arg0
// IR: call {{.*}}i32 @llvm.amdgcn.workitem.id.x()
// IR: call {{.*}}i32 @llvm.amdgcn.workgroup.id.x()
// IR: fence syncscope("workgroup") release
// IR-NEXT: call void @llvm.amdgcn.s.barrier()
// IR-NEXT: fence syncscope("workgroup") acquire
// IR: "amdgpu-flat-work-group-size"="64,64"

// ASM: .amdgcn_target "amdgcn-amd-amdhsa--gfx90a
// ASM: tile:
// ASM: .amdhsa_kernel tile
// ASM: .amdhsa_group_segment_fixed_size 256

// A 64-thread block is one wave64 on gfx90a, so LLVM drops its barrier; the 256-thread
// matmul keeps it.
// MM: matmul:
// MM: s_barrier
// MM: .amdhsa_group_segment_fixed_size 2048

// ELF: Class: ELF64
// ELF: Type: DYN
// ELF: Machine: EM_AMDGPU

// Private arrays live in addrspace(5); exp/log use the hardware v_exp/v_log lowering.
// OPS: global_load_dwordx4
// OPS: v_exp_f32
// OPS: v_log_f32
// OPS: global_store_dwordx4
// OPS-NOT: scratch_store

// SHFL: ds_bpermute_b32
