// vdevice verifier (docs/dialects/vdevice.md, "Verification").
// RUN: rtile-opt %s --split-input-file --verify-diagnostics

// A planted over-subscribed program: 3 vEUs with a barrier across vEUs on a device where
// only 2 blocks of this shape fit (1 SM, 1024-thread vEUs, 2048 threads per SM). The
// device declares 4 vEU slots, which its own verifier would refuse; the program check
// recomputes the co-resident capacity from the SM limits.
// expected-error @+1 {{'vdevice.device' op 4 vEUs per SM, but only 2 blocks of 1024 threads, 0 bytes of shared memory and 32 registers per thread fit on one SM}}
vdevice.device @d {sms = 1, veus_per_sm = 4, threads = 1024, smem = 0, regs = 32, sm_limits = array<i64: 32, 2048, 65536, 98304>}
vdevice.roperator @a {kernels = [{rtasks = 3, threads = 256, smem = 0, regs = 32, us = 1.0}]}
vdevice.roperator @b(@a) {kernels = [{rtasks = 1, threads = 256, smem = 0, regs = 32, us = 1.0}]}
// expected-error @+1 {{'vdevice.program' op has barriers across vEUs but launches 3 vEUs, more than the 2 blocks that can be co-resident (1 SMs × 2 per SM)}}
vdevice.program @p on @d [
  veu 0: @a[0], barrier [<1, 0>, <2, 0>], @b[0]
  veu 1: @a[1]
  veu 2: @a[2]
]

// -----

vdevice.device @d {sms = 1, veus_per_sm = 2, threads = 256, smem = 0, regs = 32, sm_limits = array<i64: 32, 2048, 65536, 98304>}
vdevice.roperator @a {kernels = [{rtasks = 2, threads = 256, smem = 0, regs = 32, us = 1.0}]}
vdevice.roperator @b(@a) {kernels = [{rtasks = 1, threads = 256, smem = 0, regs = 32, us = 1.0}]}
// A missing barrier: @b on vEU 0 does not wait for @a's rTask on vEU 1.
// expected-error @+1 {{rTask 0 of @b at <0, 1> is not ordered after rTask 1 of its predecessor @a at <1, 0>}}
vdevice.program @p on @d [
  veu 0: @a[0], @b[0]
  veu 1: @a[1]
]

// -----

vdevice.device @d {sms = 1, veus_per_sm = 2, threads = 256, smem = 0, regs = 32, sm_limits = array<i64: 32, 2048, 65536, 98304>}
vdevice.roperator @a {kernels = [{rtasks = 2, threads = 256, smem = 0, regs = 32, us = 1.0}]}
// A planted wrong barrier order: each vEU waits for the other's first rTask before running it.
// expected-error @+1 {{the barriers wait in a cycle (the launch would deadlock)}}
vdevice.program @p on @d [
  veu 0: barrier [<1, 0>], @a[0]
  veu 1: barrier [<0, 0>], @a[1]
]

// -----

vdevice.device @d {sms = 1, veus_per_sm = 2, threads = 256, smem = 0, regs = 32, sm_limits = array<i64: 32, 2048, 65536, 98304>}
vdevice.roperator @a {kernels = [{rtasks = 3, threads = 256, smem = 0, regs = 32, us = 1.0}]}
// expected-error @+1 {{rTask 2 of @a is not scheduled (2 of its 3 rTasks are)}}
vdevice.program @p on @d [veu 0: @a[0:2]]

// -----

vdevice.device @d {sms = 1, veus_per_sm = 2, threads = 256, smem = 0, regs = 32, sm_limits = array<i64: 32, 2048, 65536, 98304>}
vdevice.roperator @a {kernels = [{rtasks = 2, threads = 256, smem = 0, regs = 32, us = 1.0}]}
// expected-error @+1 {{rTask 1 of @a is scheduled twice: <0, 1> and <1, 0>}}
vdevice.program @p on @d [veu 0: @a[0:2] veu 1: @a[1]]

// -----

vdevice.device @d {sms = 1, veus_per_sm = 2, threads = 256, smem = 0, regs = 32, sm_limits = array<i64: 32, 2048, 65536, 98304>}
vdevice.roperator @a {kernels = [{rtasks = 2, threads = 512, smem = 0, regs = 32, us = 1.0}]}
// expected-error @+1 {{@a's rTasks need 512 threads, 0 bytes of shared memory and 32 registers per thread, more than a vEU of @d has (256, 0, 32)}}
vdevice.program @p on @d [veu 0: @a[0:2]]

// -----

vdevice.device @d {sms = 1, veus_per_sm = 2, threads = 256, smem = 0, regs = 32, sm_limits = array<i64: 32, 2048, 65536, 98304>}
vdevice.roperator @a {kernels = [{rtasks = 2, threads = 256, smem = 0, regs = 32, us = 1.0}]}
// expected-error @+1 {{vEU 1: barrier waits on <0, 2>, but vEU 0 runs 2 rTasks}}
vdevice.program @p on @d [veu 0: @a[0:2] veu 1: barrier [<0, 2>]]

// -----

vdevice.device @d {sms = 1, veus_per_sm = 2, threads = 256, smem = 0, regs = 32, sm_limits = array<i64: 32, 2048, 65536, 98304>}
vdevice.roperator @a {kernels = [{rtasks = 1, threads = 256, smem = 0, regs = 32, us = 1.0}]}
// expected-error @+1 {{lists 3 vEUs, but @d has 2 (1 SMs × 2)}}
vdevice.program @p on @d [veu 0: @a[0] veu 1: veu 2:]

// -----

vdevice.device @d {sms = 1, veus_per_sm = 2, threads = 256, smem = 0, regs = 32, sm_limits = array<i64: 32, 2048, 65536, 98304>}
// expected-error @+1 {{depends on @nope, which is not a vdevice.roperator here}}
vdevice.roperator @a(@nope) {kernels = [{rtasks = 1, threads = 256, smem = 0, regs = 32, us = 1.0}]}

// -----

// expected-error @+1 {{kernel #0: 'rtasks' must be an integer of at least 1}}
vdevice.roperator @a {kernels = [{rtasks = 0, threads = 256, smem = 0, regs = 32, us = 1.0}]}

// -----

vdevice.device @d {sms = 1, veus_per_sm = 2, threads = 256, smem = 0, regs = 32, sm_limits = array<i64: 32, 2048, 65536, 98304>}
vdevice.roperator @a {kernels = [{rtasks = 1, threads = 256, smem = 0, regs = 32, us = 1.0}]}
vdevice.program @p on @d [
  // expected-error @+1 {{order label 1 does not match the rTask's order 0}}
  veu 0: 1: @a[0]
]
