//! Verification of `rtile.*` attributes (MLIR's `verifyOperationAttribute`).
//!
//! Two levels, because dependencies point one way (passes → dialects):
//! - here, the rules that need only the `te.compute` the programs sit on: one size per axis,
//!   positive sizes, lower-layer tiles dividing upper ones, padding within ε, the grid, the
//!   storage padding's shape;
//! - through a [`DeviceCheck`] installed by the passes crate
//!   (`rtile_passes::register_dialect_extensions`), the rules that need the device
//!   description: known device, thread count and TEU alignment, register and shared-memory
//!   capacities, tensor-core eligibility.

use rtile::diagnostics::Diagnostic;
use rtile::dialect::AttributeVerifier;
use rtile::ir::attributes::Attribute;
use rtile::ir::{AttrKind, Context, OpId, TypeKind};

use super::reads::read_groups;
use super::{
    DEVICE, LAUNCH, NO_HOIST, PEAK_BYTES, PERSISTENT, PIPELINE_STAGES, PROGRAM, PROGRAMS, RProgram,
    SHARED_STAGES, SPLIT_RESULT, STEPPED_STAGES, TE_REFERENCE, TENSOR_MAP_OF, TILE, TileAttr,
    UNROLL, WAIT, programs_from_attr,
};
use crate::te::ir::{COMPUTE, compute_from_op};
use crate::te::model::{AxisKind, TeCompute};

/// The device-dependent half of the verification (implemented in the passes crate).
pub trait DeviceCheck: Send + Sync {
    /// Checks `p` (already structurally valid for `compute`) against its device; the message
    /// is reported on `op`.
    fn check(&self, compute: &TeCompute, p: &RProgram) -> Result<(), String>;
}

/// The `rtile` dialect's attribute verifier.
#[derive(Default)]
pub struct RtileAttrVerifier {
    device: Option<Box<dyn DeviceCheck>>,
}

impl RtileAttrVerifier {
    /// A verifier that also runs `check` on every program.
    pub fn with_device_check(check: Box<dyn DeviceCheck>) -> Self {
        RtileAttrVerifier {
            device: Some(check),
        }
    }

    fn check_program(&self, c: &TeCompute, p: &RProgram) -> Result<(), String> {
        check_structure(c, p)?;
        match &self.device {
            Some(d) => d.check(c, p),
            None => Ok(()),
        }
    }
}

impl AttributeVerifier for RtileAttrVerifier {
    fn verify_operation_attribute(
        &self,
        ctx: &Context,
        op: OpId,
        name: &str,
        attr: &Attribute,
    ) -> Result<(), Diagnostic> {
        let err = |m: String| Diagnostic::op_error(ctx, op, format!("attribute '{name}': {m}"));
        if name == TILE {
            return TileAttr::from_attr(attr).map(|_| ()).map_err(err);
        }
        if name == LAUNCH {
            return verify_launch(attr).map_err(err);
        }
        if name == TE_REFERENCE {
            return match attr.kind() {
                AttrKind::String { .. } => Ok(()),
                _ => Err(err("expected a string holding the te reference".into())),
            };
        }
        if name == UNROLL {
            return match attr.kind() {
                AttrKind::Unit => Ok(()),
                AttrKind::Integer { value, .. } if *value >= 1 => Ok(()),
                _ => Err(err(
                    "expected a unit attribute or a positive unroll factor".into()
                )),
            };
        }
        if name == NO_HOIST {
            if ctx.op_name(op) != "scf.for" {
                return Err(err("only valid on 'scf.for'".into()));
            }
            return match attr.kind() {
                AttrKind::Unit => Ok(()),
                _ => Err(err("expected a unit attribute".into())),
            };
        }
        if name == PEAK_BYTES {
            if ctx.op_name(op) != "func.func" {
                return Err(err("only valid on 'func.func'".into()));
            }
            return match attr.kind() {
                AttrKind::Integer { value, .. } if *value >= 0 => Ok(()),
                _ => Err(err("expected a non-negative byte count".into())),
            };
        }
        if name == PIPELINE_STAGES {
            if ctx.op_name(op) != "gpu.func" {
                return Err(err("only valid on 'gpu.func'".into()));
            }
            return match attr.kind() {
                AttrKind::Integer { value, .. } if *value >= 1 => Ok(()),
                _ => Err(err("expected a positive count of pipeline stages".into())),
            };
        }
        if name == TENSOR_MAP_OF {
            if ctx.op_name(op) != "gpu.func" {
                return Err(err("only valid on 'gpu.func'".into()));
            }
            return tensor_map_sources(ctx, op, attr).map_err(err);
        }
        if name == SHARED_STAGES || name == STEPPED_STAGES {
            if ctx.op_name(op) != "gpu.func" {
                return Err(err("only valid on 'gpu.func'".into()));
            }
            return match attr.kind() {
                AttrKind::Integer { value, .. } if *value >= 1 => Ok(()),
                _ => Err(err("expected a positive count of shared stages".into())),
            };
        }
        if name == SPLIT_RESULT {
            if ctx.op_name(op) != "gpu.func" {
                return Err(err("only valid on 'gpu.func'".into()));
            }
            return match attr.as_dense_ints() {
                Some([i, n]) if *n >= 2 && (0..*n).contains(i) => Ok(()),
                _ => Err(err(
                    "expected array<i64: result, results> with 0 <= result < results and results >= 2".into(),
                )),
            };
        }
        if name == DEVICE {
            if ctx.op_name(op) != "gpu.module" {
                return Err(err("only valid on 'gpu.module'".into()));
            }
            return match attr.kind() {
                AttrKind::String { .. } => Ok(()),
                _ => Err(err("expected a string naming a device".into())),
            };
        }
        if name == PERSISTENT {
            if ctx.op_name(op) != "gpu.func" {
                return Err(err("only valid on 'gpu.func'".into()));
            }
            let per_core = attr.dict_get("blocks_per_core").map(|a| a.as_int());
            return match (
                attr.dict_get("coresident").and_then(|a| a.as_int()),
                per_core,
            ) {
                (Some(n), None | Some(Some(1..))) if n >= 1 => Ok(()),
                _ => Err(err(
                    "expected {coresident = N} with N >= 1 (and blocks_per_core = B >= 1)".into(),
                )),
            };
        }
        if name == WAIT {
            if ctx.op_name(op) != "scf.while" {
                return Err(err("only valid on 'scf.while'".into()));
            }
            return match attr.as_dense_ints() {
                Some([v, o]) if *v >= 0 && *o >= 0 => Ok(()),
                Some([]) => Ok(()),
                _ => Err(err(
                    "expected array<i64: veu, order> or array<i64> (a dynamic wait)".into(),
                )),
            };
        }
        if name != PROGRAMS && name != PROGRAM {
            return Err(err(format!(
                "unknown rtile attribute (expected {PROGRAMS}, {PROGRAM}, {TILE}, {LAUNCH}, {TE_REFERENCE}, {UNROLL}, {DEVICE}, {PEAK_BYTES}, {SHARED_STAGES}, {STEPPED_STAGES}, {SPLIT_RESULT}, {PIPELINE_STAGES}, {TENSOR_MAP_OF}, {PERSISTENT}, {WAIT} or {NO_HOIST})"
            )));
        }
        if ctx.op_name(op) != COMPUTE {
            return Err(err(format!("only valid on '{COMPUTE}'")));
        }
        // A broken compute is reported by its own verifier.
        let Ok((c, _)) = compute_from_op(ctx, op) else {
            return Ok(());
        };
        if name == PROGRAM {
            let p = RProgram::from_attr(attr).map_err(err)?;
            return self.check_program(&c, &p).map_err(err);
        }
        let progs = programs_from_attr(attr).map_err(err)?;
        for (i, p) in progs.iter().enumerate() {
            self.check_program(&c, p)
                .map_err(|m| err(format!("program #{i}: {m}")))?;
        }
        Ok(())
    }
}

/// The axes a program tiles: `(name, extent, reduction)`. Its own `axes` when present, else
/// the compute's. Own axes merge compute axes of one kind (`a*b`, the extents multiplied),
/// every compute axis in exactly one: the construction's axis fusion (adjacent axes) or a
/// convolution's implicit GEMM view (`n*y*x`, `f`, `c*ry*rx`); which of the two a program
/// really tiles is the device check's to say (it knows the forms).
pub fn program_axes(c: &TeCompute, p: &RProgram) -> Result<Vec<(String, u64, bool)>, String> {
    let own: Vec<(String, u64, bool)> = c
        .axes
        .iter()
        .map(|a| {
            (
                a.name.clone(),
                a.extent.max(0) as u64,
                a.kind == AxisKind::Reduction,
            )
        })
        .collect();
    if p.axes.is_empty() || p.axes.iter().eq(own.iter().map(|a| &a.0)) {
        return Ok(own);
    }
    let mut out = Vec::new();
    let mut used = vec![false; own.len()];
    for name in &p.axes {
        let mut extent = 1u64;
        let mut kind = None;
        for part in name.split('*') {
            let i = own.iter().position(|a| a.0 == part);
            let Some(i) = i.filter(|&i| !used[i] && kind.is_none_or(|k| k == own[i].2)) else {
                return Err(format!(
                    "axis '{name}' is not a merge of unused compute axes of one kind"
                ));
            };
            used[i] = true;
            kind = Some(own[i].2);
            extent = extent.saturating_mul(own[i].1);
        }
        out.push((name.clone(), extent, kind.unwrap_or(false)));
    }
    if used.contains(&false) {
        return Err("'axes' does not cover every axis of the compute".into());
    }
    Ok(out)
}

/// The reads a program stages, in order of their first access: the first access of each
/// [`read_groups`] group (one input read through maps that agree but for constant offsets,
/// the taps of a stencil; identical reads always share one). What `pad` has one list for.
pub fn distinct_reads(c: &TeCompute) -> Vec<usize> {
    read_groups(c).iter().map(|g| g.first()).collect()
}

fn padding_ok(n: u64, s: u64, epsilon: f64) -> bool {
    // u128: `s` comes from the attribute text and may be huge.
    let waste = u128::from(n.div_ceil(s)) * u128::from(s) - u128::from(n);
    waste as f64 <= (epsilon + 1e-12) * n as f64
}

/// The largest ε a program may declare: ε bounds padding as a fraction of each extent, and
/// Roller's construction never goes beyond 1 (§3.2, Figure 17 uses 0.4–1.0).
pub const MAX_EPSILON: f64 = 1.0;

/// The device-independent rules for one program on compute `c`.
pub fn check_structure(c: &TeCompute, p: &RProgram) -> Result<(), String> {
    let axes = program_axes(c, p)?;
    let n = axes.len();
    if p.block.len() != n || p.thread.len() != n {
        return Err(format!(
            "tiles must have {n} sizes each, one per axis (got {} and {})",
            p.block.len(),
            p.thread.len()
        ));
    }
    if p.block.contains(&0) || p.thread.contains(&0) {
        return Err("tile sizes must be positive".into());
    }
    if !(p.epsilon.is_finite() && (0.0..=MAX_EPSILON).contains(&p.epsilon)) {
        return Err(format!("epsilon must be a number in [0, {MAX_EPSILON}]"));
    }
    for (i, (name, extent, _)) in axes.iter().enumerate() {
        let (b, t) = (p.block[i], p.thread[i]);
        if b % t != 0 {
            return Err(format!(
                "axis {name}: register tile {t} does not divide block tile {b}"
            ));
        }
        if !padding_ok(*extent, b, p.epsilon) {
            return Err(format!(
                "axis {name}: block tile {b} pads extent {extent} by more than epsilon = {}",
                p.epsilon
            ));
        }
    }
    let grid: Vec<u64> = axes
        .iter()
        .zip(&p.block)
        .filter(|(a, _)| !a.2)
        .map(|(a, &b)| a.1.div_ceil(b))
        .collect();
    if p.grid != grid {
        return Err(format!(
            "grid {:?} does not match the block tile (expected {grid:?})",
            p.grid
        ));
    }
    if p.threads == 0 {
        return Err("threads must be positive".into());
    }
    let fused = axes.len() != c.axes.len();
    if !p.staged && p.pad.iter().flatten().any(|&x| x != 0) {
        return Err("an unstaged program cannot pad shared-memory tiles".into());
    }
    // Fused programs pad the fused tensors, whose ranks the device check knows.
    if !p.pad.is_empty() && !fused {
        let reads = distinct_reads(c);
        if p.pad.len() != reads.len() {
            return Err(format!(
                "pad needs one list per input read ({}), got {}",
                reads.len(),
                p.pad.len()
            ));
        }
        for (k, (&r, pad)) in reads.iter().zip(&p.pad).enumerate() {
            let rank = c.accesses[r].map.results.len();
            if pad.len() != rank {
                return Err(format!(
                    "pad of input read #{k} needs {rank} entries, got {}",
                    pad.len()
                ));
            }
        }
    }
    if !(p.est_us.is_finite() && p.est_us > 0.0) {
        return Err("est_us must be a positive number".into());
    }
    Ok(())
}

/// `rtile.launch`: grid and block as three positive i32 extents, and the dynamic shared
/// memory in bytes.
fn verify_launch(attr: &Attribute) -> Result<(), String> {
    if attr.as_dictionary().is_none() {
        return Err("expected a dictionary {grid, block, dynamic_shared_memory}".into());
    }
    for key in ["grid", "block"] {
        match attr.dict_get(key).and_then(|a| a.as_dense_ints()) {
            Some(v) if v.len() == 3 && v.iter().all(|&x| x >= 1) => {}
            _ => {
                return Err(format!(
                    "'{key}' must be array<i32: x, y, z> of positive extents"
                ));
            }
        }
    }
    match attr
        .dict_get("dynamic_shared_memory")
        .and_then(|a| a.as_int())
    {
        Some(b) if b >= 0 => Ok(()),
        _ => Err("'dynamic_shared_memory' must be a non-negative integer".into()),
    }
}

/// `rtile.tensor_map_of` on a `gpu.func`: one index per tensor-map parameter, each naming a
/// statically shaped memref parameter of the map's element type and rank.
fn tensor_map_sources(ctx: &Context, op: OpId, attr: &Attribute) -> Result<(), String> {
    use crate::nvgpu::sm90_types::TensorMapType;
    let inputs = match ctx.inherent_attr(op, "function_type").map(|a| a.kind()) {
        Some(AttrKind::Type(t)) => match t.kind() {
            TypeKind::Function { inputs, .. } => inputs.clone(),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    };
    let maps: Vec<TensorMapType> = inputs
        .iter()
        .filter_map(TensorMapType::of)
        .collect::<Result<_, _>>()?;
    let idx = attr
        .as_dense_ints()
        .ok_or("expected array<i64: ..>, one memref parameter index per tensor-map parameter")?;
    if idx.len() != maps.len() {
        return Err(format!(
            "has {} indices for {} tensor-map parameters",
            idx.len(),
            maps.len()
        ));
    }
    for (&i, map) in idx.iter().zip(&maps) {
        let t = usize::try_from(i).ok().and_then(|i| inputs.get(i));
        let ok = match t.map(|t| t.kind()) {
            Some(TypeKind::MemRef {
                shape,
                elem,
                layout: None,
                memory_space: None,
            }) => {
                shape.len() == map.box_shape.len()
                    && shape.iter().all(|&d| d > 0)
                    && *elem == map.elem
            }
            _ => false,
        };
        if !ok {
            return Err(format!(
                "index {i} must name a statically shaped, identity-layout global memref parameter of the tensor map's rank and element type"
            ));
        }
    }
    Ok(())
}
