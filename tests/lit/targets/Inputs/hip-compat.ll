; Test-environment shim for compiling HIP with clang-22 against Debian's HIP 5.2 headers
; and ROCm device libraries (SETUP-NOTES.md §6): those headers implement __syncthreads()
; with __atomic_work_item_fence, which lives in ROCm's OpenCL library (not packaged),
; and Debian's ocml still reads __oclc_daz_opt, which clang-22 no longer links.
; Linked with `-Xclang -mlink-builtin-bitcode`; not part of the generated code.
target datalayout = "e-m:e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128:128:48-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@__oclc_daz_opt = linkonce_odr hidden local_unnamed_addr addrspace(4) constant i8 0

; __syncthreads passes the work-group scope; a work-group seq_cst fence is what the
; ROCm library does for it.
define linkonce_odr hidden void @__atomic_work_item_fence(i32 %flags, i32 %order, i32 %scope) alwaysinline {
  fence syncscope("workgroup") seq_cst
  ret void
}
