// Whole-function lowering: a matmul with a constant weight -> bias add -> relu -> reshape
// -> scale becomes one host function: the intermediates are views of one arena, reused
// by liveness (the relu writes where the matmul's result was, dead after the bias add),
// the reshape is a memref.collapse_shape view (no copy), the weight a memref.global of
// its dense_resource blob. A second function returns reshaped results: its computes write
// through the inverse views of the output memrefs. The generic form verifies in
// mlir-opt-22; rtile-run --sim runs both host functions whole against the f64 oracle.
// RUN: rtile-opt %s --construct-rtile=device=h100 --lower-to-gpu --mlir-pass-statistics -o %t.mlir 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: FileCheck %s --input-file=%t.mlir
// RUN: rtile-opt %t.mlir --mlir-print-op-generic | mlir-opt --verify-each | FileCheck %s --check-prefix=UPSTREAM
// RUN: rtile-run --sim --seed 3 %t.mlir | FileCheck %s --check-prefix=SIM
// RUN: rtile-run --sim --func chain %t.mlir --dump %t.out.npy --model-manifest %t.json | FileCheck %s --check-prefix=ONE
// RUN: FileCheck %s --check-prefix=JSON --input-file=%t.json
// --check also runs every kernel alone first.
// RUN: rtile-run --sim --check %t.mlir | FileCheck %s --check-prefix=KERNELS
// Every function of the small Table-1 twins runs whole (softmax and layernorm: 4 kernels,
// intermediates in an arena; the others one kernel, no arena).
// RUN: rtile-opt %S/../../../bench/ops/roller-table1-small.mlir --construct-rtile=device=v100 --lower-to-gpu | rtile-run --sim --seed 1 | FileCheck %s --check-prefix=TABLE1
// A manifest needs one function.
// RUN: not rtile-run --sim %t.mlir --model-manifest %t.json 2>&1 | FileCheck %s --check-prefix=TWO
// Without --sim the manifest is written without running anything (full-size models for the
// GPU): the same file as the simulated run's.
// RUN: rtile-run --func chain %t.mlir --model-manifest %t.only.json | FileCheck %s --check-prefix=ONLY
// RUN: sed -e "s/only[.]bin/bin/" %t.only.json | cmp %t.json -
// RUN: cmp %t.bin %t.only.bin
// RUN: not rtile-run %t.mlir --model-manifest %t.only.json 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not rtile-run %S/../../../bench/ops/roller-table1-small.mlir --model-manifest %t.only.json 2>&1 | FileCheck %s --check-prefix=NOHOST

// ONLY: chain: 4 launches -> {{.*}}only.json
// NOHOST: --model-manifest needs exactly one host function carrying rtile.te, 0 found

// STATS: 1024 peak-bytes - Peak device memory of the intermediates

// CHECK: "memref.global"() <{constant, initial_value = dense_resource<w0> : tensor<16x12xf32>, sym_name = "__constant_w0", sym_visibility = "private", type = memref<16x12xf32>}> : () -> ()
// CHECK: func.func @chain(%[[A:arg0]]: memref<8x16xf32>, %[[B:arg1]]: memref<12xf32>, %[[OUT:arg2]]: memref<96xf32>) attributes {rtile.peak_bytes = 1024 : i64, rtile.te = "func.func @chain(%arg0: tensor<8x16xf32>, %arg1: tensor<12xf32>) -> tensor<96xf32> {\0A  %cst = arith.constant dense_resource<w0> : tensor<16x12xf32>\0A  %0 = te.compute
// CHECK: %[[ARENA:[0-9]+]] = memref.alloc() : memref<1024xi8>
// CHECK: %[[W:[0-9]+]] = "memref.get_global"() <{name = @__constant_w0}> : () -> memref<16x12xf32>
// CHECK: %[[C0:c0]] = arith.constant 0 : index
// CHECK: %[[V0:[0-9]+]] = "memref.view"(%[[ARENA]], %[[C0]]) : (memref<1024xi8>, index) -> memref<8x12xf32>
// CHECK: "gpu.launch_func"({{.*}}, %[[A]], %[[W]], %[[V0]]) <{kernel = @kernels::@chain_0,
// CHECK: %[[C512:c512]] = arith.constant 512 : index
// CHECK: %[[V1:[0-9]+]] = "memref.view"(%[[ARENA]], %[[C512]]) : (memref<1024xi8>, index) -> memref<8x12xf32>
// CHECK: "gpu.launch_func"({{.*}}, %[[V0]], %[[B]], %[[V1]]) <{kernel = @kernels::@chain_1,
// CHECK: %[[V2:[0-9]+]] = "memref.view"(%[[ARENA]], %[[C0]]) : (memref<1024xi8>, index) -> memref<8x12xf32>
// CHECK: "gpu.launch_func"({{.*}}, %[[V1]], %[[V2]]) <{kernel = @kernels::@chain_2,
// CHECK: %[[F:[0-9]+]] = memref.collapse_shape %[[V2]] {{\[\[}}0, 1]] : memref<8x12xf32> into memref<96xf32>
// CHECK: "gpu.launch_func"({{.*}}, %[[F]], %[[OUT]]) <{kernel = @kernels::@chain_3,
// CHECK: "memref.dealloc"(%[[ARENA]]) : (memref<1024xi8>) -> ()
// CHECK: func.func @views(%[[X:arg0]]: memref<6x4xf32>, %[[O0:arg1]]: memref<2x3x4xf32>, %[[O1:arg2]]: memref<24xf32>) attributes {rtile.peak_bytes = 0 : i64
// CHECK-NOT: memref.alloc
// CHECK: %[[IO0:[0-9]+]] = memref.collapse_shape %[[O0]] {{\[\[}}0, 1], [2]] : memref<2x3x4xf32> into memref<6x4xf32>
// CHECK: "gpu.launch_func"({{.*}}, %[[X]], %[[IO0]]) <{kernel = @kernels::@views_4,
// CHECK: %[[IO1:[0-9]+]] = "memref.expand_shape"(%[[O1]]) <{reassociation = {{\[\[}}0, 1]], static_output_shape = array<i64: 6, 4>}> : (memref<24xf32>) -> memref<6x4xf32>
// CHECK: "gpu.launch_func"({{.*}}, %[[IO0]], %[[IO1]]) <{kernel = @kernels::@views_5,
// CHECK-NOT: memref.dealloc
// CHECK: return
// CHECK: dialect_resources

// UPSTREAM: memref.global "private" constant @__constant_w0 : memref<16x12xf32> = dense_resource<w0>
// UPSTREAM: memref.alloc() : memref<1024xi8>
// UPSTREAM: memref.get_global @__constant_w0 : memref<16x12xf32>
// UPSTREAM: memref.view %{{.*}}[%c512{{.*}}][] : memref<1024xi8> to memref<8x12xf32>
// UPSTREAM: memref.collapse_shape %{{.*}} {{\[\[}}0, 1]] : memref<8x12xf32> into memref<96xf32>
// UPSTREAM: memref.expand_shape %arg2 {{\[\[}}0, 1]] output_shape [6, 4] : memref<24xf32> into memref<6x4xf32>

// SIM: @chain: 4 kernels, 1 constants, peak intermediate memory 1024 bytes
// SIM-NEXT: @chain output 0: tensor<96xf32>, max relative error {{[0-9.]+e-?[0-9]+}}
// SIM-NEXT: @views: 2 kernels, 0 constants, peak intermediate memory 0 bytes
// SIM-NEXT: @views output 0: tensor<2x3x4xf32>, max relative error {{[0-9.]+e-?[0-9]+}}
// SIM-NEXT: @views output 1: tensor<24xf32>, max relative error {{[0-9.]+e-?[0-9]+}}
// SIM-NEXT: max relative error

// ONE: @chain: 4 kernels
// ONE-NOT: @views

// JSON: "function": "chain",
// JSON: "arena_bytes": 1024,
// JSON: "name": "__constant_w0",
// JSON: "bytes": 768
// JSON: "constants_file": "{{.*}}.bin",
// JSON: "kernel": "chain_0",
// JSON: "buffer": "arena",
// JSON-NEXT: "offset": 0,
// JSON: "kernel": "chain_3",
// JSON: "buffer": {
// JSON-NEXT: "output": 0

// KERNELS: @chain_0: 96 elements, max relative error
// KERNELS: @views_5: 24 elements, max relative error
// KERNELS: @chain: 4 kernels

// TABLE1: @m0_small: 1 kernels, 0 constants, peak intermediate memory 0 bytes
// TABLE1: @softmax_small: 4 kernels, 0 constants, peak intermediate memory 768 bytes
// TABLE1-NEXT: @softmax_small output 0: tensor<6x13xf32>, max relative error {{[0-9.]+e-?[0-9]+}}
// TABLE1: @layernorm_small: 4 kernels, 0 constants, peak intermediate memory 512 bytes

// TWO: error: --model-manifest needs exactly one host function carrying rtile.te, 2 found (use --func)

func.func @chain(%A: tensor<8x16xf32>, %b: tensor<12xf32>) -> tensor<96xf32> {
  %W = "arith.constant"() <{value = dense_resource<w0> : tensor<16x12xf32>}> : () -> tensor<16x12xf32>
  %C = te.compute (%m, %n) reduce (%k) in [8, 12, 16]
         : (tensor<8x16xf32>, tensor<16x12xf32>) -> tensor<8x12xf32> {
    te.sum(%A[%m, %k] * %W[%k, %n])
  }
  %D = te.compute (%m, %n) in [8, 12] : (tensor<8x12xf32>, tensor<12xf32>) -> tensor<8x12xf32> {
    %C[%m, %n] + %b[%n]
  }
  %E = te.compute (%m, %n) in [8, 12] : (tensor<8x12xf32>) -> tensor<8x12xf32> {
    max(%D[%m, %n], 0.0)
  }
  %F = tensor.collapse_shape %E [[0, 1]] : tensor<8x12xf32> into tensor<96xf32>
  %G = te.compute (%i) in [96] : (tensor<96xf32>) -> tensor<96xf32> {
    %F[%i] * 2.0
  }
  return %G : tensor<96xf32>
}

func.func @views(%A: tensor<6x4xf32>) -> (tensor<2x3x4xf32>, tensor<24xf32>) {
  %C = te.compute (%i, %j) in [6, 4] : (tensor<6x4xf32>) -> tensor<6x4xf32> {
    %A[%i, %j] * 3.0
  }
  %E = tensor.expand_shape %C [[0, 1], [2]] output_shape [2, 3, 4] : tensor<6x4xf32> into tensor<2x3x4xf32>
  %D = te.compute (%i, %j) in [6, 4] : (tensor<6x4xf32>) -> tensor<6x4xf32> {
    %C[%i, %j] + 1.0
  }
  %F = tensor.collapse_shape %D [[0, 1]] : tensor<6x4xf32> into tensor<24xf32>
  return %E, %F : tensor<2x3x4xf32>, tensor<24xf32>
}

{-# dialect_resources: { builtin: { w0: "0x040000009C343BBFD6E2313F780D073F2FCFFABE449515BC75E2CEBD303B9B3E8CD3133FA3F14FBF717C71BF67E92B3F6BB109BE9349063FF5EB7EBFADB1DFBD64DBE23EAEDF0ABF85FA633FE6874D3F825670BFC3F872BF20A0A93D29D8603F314B73BEE21911BF58811FBE912171BF6E7E0EBF9469FEBD773909BC28A908BFDCCB09BFEFFB0FBFD676A5BD7D43D7BE4DFF74BF05D72C3FA63CE73D9DB5913EE5D020BFA62E7C3FE94A383FB61A42BFF451ABBECFCCE23EA842D83E24755F3F5D861FBE70FA283F9564AE3EC459C9BE765D333E4AD4433FCA40313FE6232D3CD146363EA1526EBF96B703BF5F45183F247C2FBE936B27BF36E1C73DEBE9CF3E6AACB23EDA4D80BE5F03FABD410F8A3C08900E3F0B872B3D139D5ABE82DCA8BC8DDB70BF09BC69BF6543D03E6164773F1DD73E3E68E859BEFDC728BFC7B4923BC0D2763F02820A3FE845A23DE777383F362009BF8BA2E13CCEA9673FE2521F3E7C65A7BD0042ECBEC797C43D250B6A3FB1137DBF423B113FBB16243F54B9453F8746F63E96471E3F3303193D6252FB3DC55D17BECF4363BFF9713D3FD05B0F3EA6AE19BF27AE1A3CA9FCF6BCA7A592BEC09D9DBEF19B9D3D0AE87C3E7A4D663E436EABBD43AD71BF36710ABF914425BFD2F92C3E27D6383FFDCC183F2C1D183F1404223F3394FABE2EF92E3FAC44B13E566255BF537477BF988B78BF45DC023FC63900BF1BF147BF3C987F3E9D4F9FBE7B685CBF90452EBFDC4C603DE8E829BF1E89E8BE08ABD83EC98AB9BD2B45B6BE2CDE56BD2BE673BFC05468BE63F521BE50B91FBF635048BF03B54C3F80BDA53C07F214BF505E583E0653223F545775BF76DA76BFF70235BF6816E03EA6F62DBF2384D13EB773B63E9E19B73D8D0D0FBF2081733FAA7A183FB6FB073D48B90DBF1112983EB63F57BE21551B3E570BB7BE3217863EEBE661BF3E3ACEBE06916F3F0646403F9642C6BE338F373F0A30C2BE6AEA603FC0B1F93EE0AD2BBED695FDBE7AA87BBF50E7413F34966CBF3F8A233FA0A56C3F42EF0F3EE92E28BFCD4D3C3FAB92723F71EBD03E3063913C7AEB79BE26BE9CBE" } } #-}
