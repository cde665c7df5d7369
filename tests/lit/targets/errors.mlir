// Errors are diagnostics with a source position, never crashes.
// RUN: not rtile-translate --to-ptx=sm_90 %s 2>&1 | FileCheck %s
// RUN: not rtile-translate --to-ptx=sm_13 %S/../interop/corpus/12-gpu-module.mlir 2>&1 | FileCheck %s --check-prefix=ARCH
// RUN: not rtile-translate --to-amdgpu=sm_90 %S/../interop/corpus/12-gpu-module.mlir 2>&1 | FileCheck %s --check-prefix=GFX
// RUN: not rtile-translate --to-hip %S/../interop/corpus/01-func-arith-int.mlir 2>&1 | FileCheck %s --check-prefix=NOMOD
// RUN: not rtile-translate %S/../interop/corpus/12-gpu-module.mlir 2>&1 | FileCheck %s --check-prefix=NOTO

// scf.while is in the vocabulary (persistent kernels' spin-waits), but only without
// loop-carried values: this one is refused at its position (vocab-refusal.mlir covers ops
// outside the vocabulary).
// CHECK: errors.mlir:{{[0-9]+}}:7: error: scf.while with loop-carried values is not translated
// ARCH: unknown NVIDIA architecture 'sm_13'
// GFX: unknown AMDGPU processor 'sm_90'
// NOMOD: error: the input has no gpu.module to translate
// NOTO: error: the following required arguments were not provided
"builtin.module"() ({
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<4xi32>) -> ()}> ({
    ^bb0(%arg0: memref<4xi32>):
      %c0 = "arith.constant"() <{value = 0 : i32}> : () -> i32
      %r = "scf.while"(%c0) ({
      ^bb0(%x: i32):
        %t = "arith.constant"() <{value = true}> : () -> i1
        "scf.condition"(%t, %x) : (i1, i32) -> ()
      }, {
      ^bb0(%y: i32):
        "scf.yield"(%y) : (i32) -> ()
      }) : (i32) -> i32
      "gpu.return"() : () -> ()
    }) {gpu.kernel, sym_name = "k", workgroup_attributions = 0 : i64} : () -> ()
  }) : () -> ()
}) {gpu.container_module} : () -> ()
