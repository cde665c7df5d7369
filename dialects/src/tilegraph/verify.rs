//! Verification of `tilegraph.*` attributes, in two halves as for `rtile` (passes →
//! dialects): the shape of each attribute and where it may appear, here; the rules that
//! need the device description and tile propagation, through a [`KernelCheck`] installed
//! by the passes crate.

use rtile::diagnostics::Diagnostic;
use rtile::dialect::AttributeVerifier;
use rtile::ir::attributes::Attribute;
use rtile::ir::{Context, OpId};

use super::{
    CONFIG, CONNECT, DECISIONS, DEVICE, FOOTPRINT, KERNEL, LayerTiles, Level, PARALLELISM, REFUSED,
    TILES, TRAFFIC, levels_from_attr,
};

/// The device- and propagation-dependent rules of a kernel (implemented in the passes
/// crate: tiles consistent with propagation, footprint within each layer's capacity).
pub trait KernelCheck: Send + Sync {
    /// Checks `kernel` (structurally valid) against the device it names; the message is
    /// reported on the kernel.
    fn check(&self, ctx: &Context, kernel: OpId, device: &str) -> Result<(), String>;
}

/// The `tilegraph` dialect's attribute verifier.
#[derive(Default)]
pub struct TilegraphAttrVerifier {
    kernel_check: Option<Box<dyn KernelCheck>>,
}

impl TilegraphAttrVerifier {
    /// A verifier that also runs `check` on every kernel.
    pub fn with_kernel_check(check: Box<dyn KernelCheck>) -> Self {
        TilegraphAttrVerifier {
            kernel_check: Some(check),
        }
    }
}

/// `{layer = N : i64, ...}` with non-negative integers and known layer names.
fn check_bytes_per_level(a: &Attribute) -> Result<(), String> {
    let d = a
        .as_dictionary()
        .ok_or("expected a dictionary from layer name to a byte count")?;
    for e in d {
        if Level::from_name(&e.name).is_none() {
            return Err(format!("unknown layer '{}'", e.name));
        }
        if e.value.as_int().is_none_or(|v| v < 0) {
            return Err(format!("'{}' must be a non-negative integer", e.name));
        }
    }
    Ok(())
}

/// `{blocks = N : i64, threads = T : i64, utilization = U : f64}`: positive counts and a
/// utilisation in (0, 1].
fn check_parallelism(a: &Attribute) -> Result<(), String> {
    let d = a
        .as_dictionary()
        .ok_or("expected a dictionary with blocks, threads and utilization")?;
    let get = |k: &str| d.iter().find(|e| e.name == k).map(|e| &e.value);
    for k in ["blocks", "threads"] {
        if get(k).and_then(|v| v.as_int()).is_none_or(|v| v < 1) {
            return Err(format!("'{k}' must be a positive integer"));
        }
    }
    match get("utilization").and_then(|v| v.as_float()) {
        Some(u) if u > 0.0 && u <= 1.0 => {}
        _ => return Err("'utilization' must be a float in (0, 1]".into()),
    }
    match d
        .iter()
        .find(|e| !["blocks", "threads", "utilization"].contains(&e.name.as_str()))
    {
        Some(e) => Err(format!("unknown entry '{}'", e.name)),
        None => Ok(()),
    }
}

impl AttributeVerifier for TilegraphAttrVerifier {
    fn verify_operation_attribute(
        &self,
        ctx: &Context,
        op: OpId,
        name: &str,
        attr: &Attribute,
    ) -> Result<(), Diagnostic> {
        let err = |m: String| Diagnostic::op_error(ctx, op, format!("attribute '{name}': {m}"));
        let on_kernel = ctx.op_name(op) == KERNEL;
        let in_kernel = ctx.parent_op(op).is_some_and(|p| ctx.op_name(p) == KERNEL);
        match name {
            DEVICE | TRAFFIC | FOOTPRINT | PARALLELISM if !on_kernel => {
                Err(err(format!("only valid on '{KERNEL}'")))
            }
            CONNECT | TILES | DECISIONS if !in_kernel => Err(err(format!(
                "only valid on an op directly inside '{KERNEL}'"
            ))),
            DEVICE => {
                let Some(dev) = attr.as_str() else {
                    return Err(err("expected a string naming a device".into()));
                };
                // A kernel that breaks the structural rules is reported by its own
                // verifier; the device rules would only repeat it.
                let Some(check) = &self.kernel_check else {
                    return Ok(());
                };
                if ctx.op_def(op).is_some_and(|d| d.verify(ctx, op).is_err()) {
                    return Ok(());
                }
                check
                    .check(ctx, op, dev)
                    .map_err(|m| Diagnostic::op_error(ctx, op, m))
            }
            TRAFFIC | FOOTPRINT => check_bytes_per_level(attr).map_err(err),
            CONNECT => levels_from_attr(attr).map(|_| ()).map_err(err),
            TILES => LayerTiles::from_attr(attr).map(|_| ()).map_err(err),
            DECISIONS => match attr.as_array() {
                Some(v) if v.len() == ctx.operands(op).len() => {
                    match v.iter().position(|x| x.as_dictionary().is_none()) {
                        Some(i) => Err(err(format!("entry #{i} is not a dictionary"))),
                        None => Ok(()),
                    }
                }
                _ => Err(err("expected one dictionary per operand".into())),
            },
            PARALLELISM => check_parallelism(attr).map_err(err),
            REFUSED => match attr.as_str() {
                Some(_) => Ok(()),
                None => Err(err("expected a string".into())),
            },
            // On the kernel, and on the gpu.funcs --lower-to-gpu makes of it.
            CONFIG if !on_kernel && ctx.op_name(op) != "gpu.func" => Err(err(format!(
                "only valid on '{KERNEL}' or a 'gpu.func' lowered from one"
            ))),
            CONFIG => match attr.as_str() {
                Some(s) if s.len() == 16 && s.chars().all(|c| c.is_ascii_hexdigit()) => Ok(()),
                _ => Err(err("expected a string of 16 hex digits".into())),
            },
            _ => Err(err(format!(
                "unknown tilegraph attribute (expected {DEVICE}, {CONNECT}, {TILES}, {TRAFFIC}, {FOOTPRINT}, {PARALLELISM}, {REFUSED}, {DECISIONS} or {CONFIG})"
            ))),
        }
    }
}
