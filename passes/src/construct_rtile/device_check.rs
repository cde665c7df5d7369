//! The device-dependent half of `rtile` attribute verification
//! ([`rtile_dialects::rtile::verify::DeviceCheck`]): a program must be runnable on the device it
//! names. These are legality rules, not the construction's preferences (transaction alignment,
//! bank padding and ε steps are what `--construct-rtile` aims for; a hand-written program may
//! ignore them).

use std::path::Path;

use rtile::dialect::DialectRegistry;
use rtile_dialects::rtile::verify::{DeviceCheck, RtileAttrVerifier};
use rtile_dialects::rtile::{NAMESPACE, RProgram};
use rtile_dialects::te::model::TeCompute;

use super::align::{Aligner, tensor_core_map_for};
use super::expr_info::TensorExprInfo;
use super::implicit_gemm::implicit_gemm;
use super::rtile::{register_bytes, shared_bytes, thread_registers};
use super::te_adapter::expr_from_compute;
use crate::device::Device;

/// Installs the device checks into the `rtile` dialect's attribute verifier (call after
/// `rtile_dialects::register_all`).
pub fn register_dialect_extensions(reg: &mut DialectRegistry) {
    reg.set_attribute_verifier(
        NAMESPACE,
        Box::new(RtileAttrVerifier::with_device_check(Box::new(
            DeviceChecker,
        ))),
    );
}

/// Checks programs against their device description.
pub struct DeviceChecker;

/// The device a program names: its `device_file`, else a built-in device.
pub fn program_device(p: &RProgram) -> Result<Device, String> {
    let dev = match &p.device_file {
        Some(f) => Device::from_file(Path::new(f)).map_err(|e| e.message)?,
        None => Device::builtin(&p.device).map_err(|e| e.message)?,
    };
    if !dev.name.eq_ignore_ascii_case(&p.device) {
        return Err(format!(
            "device file describes '{}', not '{}'",
            dev.name, p.device
        ));
    }
    Ok(dev)
}

/// The expression in the form the program tiles: fused by the construction's axis fusion when
/// the program's axes are fused ones, the implicit GEMM view of a convolution when they are
/// that view's (tensor-core programs, [`implicit_gemm`]).
pub fn program_expr(c: &TeCompute, p: &RProgram) -> Result<TensorExprInfo, String> {
    program_form(expr_from_compute(c)?, &p.axes)
}

/// The form of `e` whose axes are named `axes` (empty: `e`'s own).
pub fn program_form(e: TensorExprInfo, axes: &[String]) -> Result<TensorExprInfo, String> {
    if axes.is_empty() || axes.iter().eq(e.axes.iter().map(|a| &a.name)) {
        return Ok(e);
    }
    if let Some(g) = implicit_gemm(&e)
        && axes.iter().eq(g.expr.axes.iter().map(|a| &a.name))
    {
        return Ok(g.expr);
    }
    match e.fuse_axes() {
        Some((f, _)) if axes.iter().eq(f.axes.iter().map(|a| &a.name)) => Ok(f),
        _ => Err(format!(
            "axes {axes:?} are neither the axis fusion nor the implicit GEMM view of this compute"
        )),
    }
}

/// Whether `p` can run on `dev`: thread count and TEU alignment, tensor-core eligibility,
/// register and shared-memory capacity, threads and registers per core; the recorded
/// footprint, when present, must be the tiles'.
pub fn check_legal(e: &TensorExprInfo, dev: &Device, p: &RProgram) -> Result<(), String> {
    let tc = if p.tensor_core {
        Some(tensor_core_map_for(e, dev, p.mma).ok_or_else(|| {
            let what = match p.mma {
                Some(m) => format!(" with an MMA of shape {}x{}x{}", m[0], m[1], m[2]),
                None => String::new(),
            };
            format!(
                "tensor cores requested{what}, but '{}' has none for this {} operator (tensor cores take f16/bf16 inputs with an f32 accumulator, acc(f32))",
                dev.name,
                e.mma_inputs.as_deref().unwrap_or(&e.dtype)
            )
        })?)
    } else {
        None
    };
    let al = Aligner::new(e, dev, p.epsilon, tc);
    let threads = al.threads(&p.block, &p.thread);
    if p.threads != threads {
        return Err(format!(
            "threads = {} but the tiles give {threads} threads per block",
            p.threads
        ));
    }
    check_block_threads(threads, dev)?;
    if !al.teu_aligned(&p.block, &p.thread) {
        return Err(format!(
            "{threads} threads are not aligned with the execution unit ({} lanes x {} per core)",
            dev.teu_width, dev.teus_per_core
        ));
    }
    let reg = register_bytes(e, &p.thread, al.lanes());
    let reg_cap = dev.layers[Device::REGISTER].capacity_bytes;
    if reg > reg_cap {
        return Err(format!(
            "register tile needs {reg} bytes per thread, the device allows {reg_cap}"
        ));
    }
    let pad: Vec<Vec<u64>> = if p.pad.is_empty() {
        e.inputs.iter().map(|t| vec![0; t.shape.len()]).collect()
    } else {
        p.pad.clone()
    };
    let ranks_ok = pad.len() == e.inputs.len()
        && pad
            .iter()
            .zip(&e.inputs)
            .all(|(x, t)| x.len() == t.shape.len());
    if !ranks_ok {
        return Err(format!(
            "pad needs one list per input read ({}), each of the input's rank",
            e.inputs.len()
        ));
    }
    let sh = if p.staged {
        shared_bytes(e, &p.block, &pad)
    } else {
        0
    };
    let sh_cap = dev.layers[Device::SHARED].capacity_bytes;
    if sh > sh_cap {
        return Err(format!(
            "block tile needs {sh} bytes of shared memory, the device has {sh_cap} per block"
        ));
    }
    let regs = threads * thread_registers(reg);
    if regs > dev.regs_per_core {
        return Err(format!(
            "block needs {regs} registers, a core has {}",
            dev.regs_per_core
        ));
    }
    if p.footprint[..2] != [0, 0] && p.footprint[..2] != [reg, sh] {
        return Err(format!(
            "footprint {:?} does not match the tiles (registers {reg}, shared {sh})",
            &p.footprint[..2]
        ));
    }
    Ok(())
}

impl DeviceCheck for DeviceChecker {
    fn check(&self, c: &TeCompute, p: &RProgram) -> Result<(), String> {
        let dev = program_device(p)?;
        match expr_from_compute(c) {
            Ok(e) => check_legal(&program_form(e, &p.axes)?, &dev, p),
            // Reads beyond the rTile model (`mod`, a `floordiv` inside a sum): a program
            // from `--connect`'s tiles (`--lower-to-gpu` and `--wavefront-pack` give such
            // an op the tiles it has alone), whose capacities the model cannot count; the
            // lowering checks its staging. The block's threads are checked here.
            Err(_) => check_block_threads(p.threads, &dev),
        }
    }
}

/// A block of `threads` threads is within the device's limit.
fn check_block_threads(threads: u64, dev: &Device) -> Result<(), String> {
    if threads > dev.max_threads_per_block {
        return Err(format!(
            "{threads} threads per block exceed the device's {}",
            dev.max_threads_per_block
        ));
    }
    Ok(())
}
