//! The launch side of a kernel: the `gpu.func` around its body (carrying its launch
//! description, a [`Launch`], which writes itself), the layout of its shared buffers
//! (static workgroup attributions or views into dynamic shared memory) and the device
//! limits a block must respect.

use rtile::ir::{Attribute, BlockId, Context, OpId, Type};
use rtile_gpu_vocab::Launch;

use super::context::Lowering;
use super::kernel::LoweredKernel;
use super::plan::{KernelPlan, SharedBuffer};
use super::types::dynamic_shared_bytes;
use crate::construct_rtile::RProgram;
use crate::construct_rtile::device_check::program_device;
use crate::device::{Device, KernelLimits};

/// Shared memory a kernel can declare statically on NVIDIA devices (48 KiB per block); a
/// kernel whose buffers need more gets them from dynamic shared memory instead. The
/// lowering takes the limit of the program's device ([`kernel_limits`]): this is its value
/// on every built-in NVIDIA device and on a device the lowering cannot read.
pub const STATIC_SHARED_LIMIT: u64 = 48 * 1024;

/// The limits assumed for a device the lowering cannot read (a hand-written program
/// naming an unknown device): NVIDIA's.
pub fn fallback_limits() -> KernelLimits {
    KernelLimits {
        threads_per_block: 1024,
        static_shared_bytes: STATIC_SHARED_LIMIT,
        registers_per_thread: 255,
    }
}

/// The per-kernel limits of the program's device (threads per block, static shared memory,
/// registers: `passes/devices/*.toml`'s `[target]`), or NVIDIA's when the device cannot be
/// read (a hand-written program naming an unknown device).
pub fn kernel_limits(p: &RProgram) -> KernelLimits {
    match program_device(p) {
        Ok(d) => d.kernel_limits(),
        Err(_) => fallback_limits(),
    }
}

/// Shared memory one block may use on the program's device: the per-block capacity of its
/// description's shared layer (§3.3; the opt-in maximum, e.g. 227 KiB on H100, 163 KiB on
/// A100). The device is the one the program names (`device`, or `device_file`).
pub fn device_shared_limit(p: &RProgram) -> Result<u64, String> {
    shared_limit_of(&program_device(p), p)
}

/// [`device_shared_limit`] of a device already read (`device`: what reading the program's
/// device gave).
pub(super) fn shared_limit_of(
    device: &Result<Device, String>,
    p: &RProgram,
) -> Result<u64, String> {
    match device {
        Ok(dev) => Ok(dev.layers[Device::SHARED].capacity_bytes),
        Err(e) => Err(format!(
            "cannot tell how much shared memory a block of device '{}' may use: {e}",
            p.device
        )),
    }
}

/// Refuses a kernel whose shared memory exceeds what a block of the device may use.
pub(super) fn check_shared_limit(
    k: &LoweredKernel,
    p: &RProgram,
    limit: u64,
) -> Result<(), String> {
    if k.shared_bytes > limit {
        let split = if k.rsplit > 1 {
            format!(" (with a {}-lane cross-thread reduction buffer)", k.rsplit)
        } else {
            String::new()
        };
        return Err(format!(
            "the kernel needs {} bytes of shared memory per block{split}, more than the {limit} a block of device '{}' may use",
            k.shared_bytes, p.device
        ));
    }
    Ok(())
}

/// Threads of blocks of `threads` threads and `shared` bytes that one core holds at once
/// (its thread, block and shared-memory limits). Registers are left out: a split lane keeps
/// the same register tile, so registers bound every split alike (up to block granularity,
/// which the construction's conservative register count would distort).
pub(super) fn resident_threads(dev: &Device, threads: u64, shared: u64) -> u64 {
    threads * dev.resident_blocks(threads, shared, None)
}

/// Alignment of each shared buffer in dynamic shared memory: the widest shared access is a
/// 16-byte `vector<4xf32>`, and CUDA/HIP guarantee the dynamic allocation itself 16 bytes.
pub const DYNAMIC_SHARED_ALIGN: u64 = 16;

/// Byte offsets of shared buffers of `sizes` bytes laid out one after another in declaration
/// order, each [`DYNAMIC_SHARED_ALIGN`]-aligned (so they never overlap), and the total bytes
/// (the end of the last buffer, rounded up to the alignment).
pub fn shared_layout(sizes: &[u64]) -> (Vec<u64>, u64) {
    let mut offsets = Vec::with_capacity(sizes.len());
    let mut end = 0u64;
    for &n in sizes {
        offsets.push(end);
        end = (end + n).next_multiple_of(DYNAMIC_SHARED_ALIGN);
    }
    (offsets, end)
}

/// How the kernel's shared buffers were declared.
pub(super) struct SharedDecl {
    /// Workgroup attributions (entry block arguments after the memrefs); 0 when dynamic.
    pub attributions: usize,
    /// The launch's dynamic shared memory, bytes (0 when the buffers are static).
    pub dynamic_bytes: u64,
    /// The ops viewing the dynamic shared memory, built at the kernel's entry.
    pub prologue: Vec<OpId>,
}

/// The layout [`declare_shared`] gives `plan`'s shared buffers: their offsets, the bytes
/// they span, and whether they are dynamic shared memory (a planned layout, or more than
/// the device's static limit).
fn shared_declaration(plan: &KernelPlan) -> (Vec<u64>, u64, bool) {
    let sizes: Vec<u64> = plan.shared_buffers.iter().map(|b| b.bytes).collect();
    let planned = plan.shared_layout.clone();
    let (offsets, laid_out) = planned.clone().unwrap_or_else(|| shared_layout(&sizes));
    let dynamic = planned.is_some() || laid_out > plan.limits.static_shared_bytes;
    (offsets, laid_out, dynamic)
}

/// Shared memory per block of the kernel of `plan` (the `LoweredKernel::shared_bytes` the
/// limit is checked on): the dynamic layout's span, or the static buffers' bytes.
pub(super) fn declared_shared_bytes(plan: &KernelPlan) -> u64 {
    match shared_declaration(plan) {
        (_, laid_out, true) => laid_out,
        _ => plan.shared_bytes,
    }
}

/// Makes the shared `buffers`: static workgroup attributions while they fit the device's
/// static limit ([`KernelLimits::static_shared_bytes`], [`STATIC_SHARED_LIMIT`] on NVIDIA),
/// else views into the launch's dynamic shared memory, built at the kernel's entry.
pub(super) fn declare_shared(cx: &mut Lowering, buffers: &[SharedBuffer]) -> SharedDecl {
    // `buffers` are the plan's (`plan.shared_buffers`): one layout rule for both.
    let (offsets, laid_out, dynamic) = shared_declaration(cx.plan);
    if !dynamic {
        let entry = cx.em.entry();
        for buffer in buffers {
            let v = cx
                .em
                .builder()
                .ctx_mut()
                .add_block_argument(entry, buffer.ty, None);
            cx.shared.push((buffer.slot, v));
        }
        return SharedDecl {
            attributions: buffers.len(),
            dynamic_bytes: 0,
            prologue: Vec::new(),
        };
    }
    // Each buffer is a `memref.view` of `gpu.dynamic_shared_memory` at its byte offset, so
    // the body addresses it exactly as it would a workgroup attribution.
    let (base_op, base) = cx.em.at_entry(
        "gpu.dynamic_shared_memory",
        &[],
        &[],
        dynamic_shared_bytes(),
    );
    let mut ops = vec![base_op];
    for (buffer, &off) in buffers.iter().zip(&offsets) {
        let value = Attribute::int(off as i64, Type::index());
        let (c_op, c) = cx
            .em
            .at_entry("arith.constant", &[], &[("value", value)], Type::index());
        let (v_op, v) = cx.em.at_entry("memref.view", &[base, c], &[], buffer.ty);
        ops.extend([c_op, v_op]);
        cx.shared.push((buffer.slot, v));
    }
    SharedDecl {
        attributions: 0,
        dynamic_bytes: laid_out,
        prologue: ops,
    }
}

/// Wraps `entry` (the kernel's body) in a detached `gpu.func` named `name` with
/// `attributions` workgroup attributions (the entry block's last arguments), its `launch`
/// (the signature over [`Launch::args`], `known_*_size` and `rtile.launch`, written by
/// [`Launch::write`]) and the `rtile.te` (`reference`) attribute.
pub(super) fn build_gpu_func(
    ctx: &mut Context,
    entry: BlockId,
    name: &str,
    launch: &Launch,
    (attributions, reference): (usize, String),
) -> OpId {
    let region = ctx.create_region();
    ctx.append_block(region, entry);
    let mut b = rtile::ir::Builder::new(ctx);
    launch
        .write(b.op("gpu.func"))
        .region(region)
        .attr("gpu.kernel", Attribute::unit())
        .attr("rtile.te", Attribute::string(reference))
        .attr("sym_name", Attribute::string(name))
        .attr(
            "workgroup_attributions",
            Attribute::i64(attributions as i64),
        )
        .build()
}
