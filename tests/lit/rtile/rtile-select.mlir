// --rtile-select{rank=N}: keep candidate N of rtile.programs (0 = the model's best) as
// rtile.program, drop the list.
// RUN: rtile-opt %S/Inputs/matmul.mlir --allow-unregistered-dialect \
// RUN:   --construct-rtile="device=h100 top-k=3" | FileCheck %s --check-prefix=LIST
// RUN: rtile-opt %S/Inputs/matmul.mlir --allow-unregistered-dialect \
// RUN:   --pass-pipeline="builtin.module(construct-rtile{device=h100 top-k=3},rtile-select)" | FileCheck %s --check-prefix=BEST
// RUN: rtile-opt %S/Inputs/matmul.mlir --allow-unregistered-dialect \
// RUN:   --construct-rtile="device=h100 top-k=3" --rtile-select="rank=1" | FileCheck %s --check-prefix=SECOND
// RUN: not rtile-opt %S/Inputs/matmul.mlir --allow-unregistered-dialect \
// RUN:   --construct-rtile="device=h100 top-k=3" --rtile-select="rank=7" 2>&1 | FileCheck %s --check-prefix=RANGE
// Ops without candidates are left alone.
// RUN: rtile-opt %S/Inputs/matmul.mlir --allow-unregistered-dialect --rtile-select | FileCheck %s --check-prefix=NONE

// LIST: rtile.programs = [#rtile.program<device = "h100", tiles = {{\[\[}}8, 16, 8], [1, 4, 1]]{{.*}}>, #rtile.program<device = "h100", tiles = {{\[\[}}4, 56, 16], [1, 7, 1]]{{.*}}>, #rtile.program<device = "h100", tiles = {{\[\[}}4, 56, 8], [1, 7, 1]]{{.*}}>]

// BEST-NOT: rtile.programs
// BEST: rtile.program = #rtile.program<device = "h100", tiles = {{\[\[}}8, 16, 8], [1, 4, 1]]
// BEST-NOT: rtile.programs

// SECOND-NOT: rtile.programs
// SECOND: rtile.program = #rtile.program<device = "h100", tiles = {{\[\[}}4, 56, 16], [1, 7, 1]]
// SECOND-NOT: rtile.programs

// RANGE: error: 'te.compute' op rtile-select: rank 7 but only 3 rtile.programs

// NONE-NOT: rtile.program
