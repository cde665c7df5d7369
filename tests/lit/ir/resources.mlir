// The `{-# dialect_resources ..., external_resources ... #-}` section is read and printed
// back after the module (and its location aliases) as mlir-opt prints it: builtin blobs
// that a `dense_resource` names, in print order, then external entries as read.
// RUN: rtile-opt --allow-unregistered-dialect %s | FileCheck %s
// RUN: rtile-opt --allow-unregistered-dialect %s | mlir-opt --allow-unregistered-dialect | FileCheck %s --check-prefix=MLIR
// CHECK:      "t.a"() {w = dense_resource<w1> : tensor<2xf32>} : () -> ()
// CHECK:      }
// CHECK-EMPTY:
// CHECK-NEXT: {-#
// CHECK-NEXT:   dialect_resources: {
// CHECK-NEXT:     builtin: {
// CHECK-NEXT:       w1: "0x04000000000080BF0000803F"
// CHECK-NEXT:     }
// CHECK-NEXT:   },
// CHECK-NEXT:   external_resources: {
// CHECK-NEXT:     importer: {
// CHECK-NEXT:       version: "1.2",
// CHECK-NEXT:       strict: true
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: #-}
// CHECK-NOT: dropped
// MLIR: dense_resource<w1>
// MLIR: w1: "0x04000000000080BF0000803F"
"t.a"() {w = dense_resource<w1> : tensor<2xf32>} : () -> ()
{-#
  dialect_resources: {
    builtin: {
      w1: "0x04000000000080bf0000803f",
      dropped: "0x0400000001000000"
    }
  },
  external_resources: {
    importer: { version: "1.2", strict: true }
  }
#-}
