//! rtile: rTiles and rPrograms of Roller (OSDI'22 §3.1–§3.3), as attributes on `te.compute`.
//! See `docs/dialects/rtile.md`.
//!
//! - [`attr`]: the data ([`RProgram`]) and the text of `#rtile.program<...>` /
//!   `#rtile.tile<...>` bodies, both directions, without the IR.
//! - [`verify`]: the dialect's attribute verifier (device-independent rules, plus an optional
//!   [`verify::DeviceCheck`] that the passes crate installs for capacities).
//! - this module: typed accessors from and to `AttrKind::Dialect` values and ops.
//!
//! The construction itself (`--construct-rtile`) and the device descriptions live in the
//! passes crate; dependencies point one way (passes → dialects), so the verifier reaches the
//! device checks through [`verify::DeviceCheck`], installed with
//! `DialectRegistry::set_attribute_verifier` (MLIR's dialect extensions).

pub mod attr;
pub mod reads;
pub mod verify;

use rtile::dialect::{AttributeVerifier, Dialect, OpDefinition};
use rtile::ir::attributes::Attribute;
use rtile::ir::{AttrKind, Context, OpId};

pub use attr::RProgram;

/// The dialect namespace.
pub const NAMESPACE: &str = "rtile";
/// The candidates attached by `--construct-rtile`, best first: `[#rtile.program<...>, ...]`.
pub const PROGRAMS: &str = "rtile.programs";
/// The program chosen by `--rtile-select`: `#rtile.program<...>`.
pub const PROGRAM: &str = "rtile.program";
/// A single rTile on an op: `#rtile.tile<...>`.
pub const TILE: &str = "rtile.tile";
/// The launch description `--lower-to-gpu` puts on each kernel `gpu.func`:
/// `{grid = array<i32: ...>, block = array<i32: ...>, dynamic_shared_memory = N : i64}`.
pub const LAUNCH: &str = "rtile.launch";
/// The te reference of a lowered kernel: a string holding a `func.func` with its te.compute.
pub const TE_REFERENCE: &str = "rtile.te";
/// An unroll request on an `scf.for` (unit: fully; an integer: by that factor).
pub const UNROLL: &str = "rtile.unroll";
/// On a `gpu.module`: the name of the device description (`passes/devices/*.toml`) its
/// kernels were lowered for, beside the upstream `targets` (which name only the chip).
pub const DEVICE: &str = "rtile.device";
/// On a lowered host `func.func`: the peak device memory of its intermediates (the
/// arena's size), bytes, as a non-negative `i64`.
pub const PEAK_BYTES: &str = "rtile.peak_bytes";
/// On a lowered `gpu.func` fusing a Welder kernel: how many of its producers it computes
/// into shared memory (shared stages), as a positive `i64`.
pub const SHARED_STAGES: &str = "rtile.shared_stages";
/// On a lowered `gpu.func` fusing a Welder kernel: how many of its shared stages it
/// computes in k-steps (their input copies loaded one reduction step at a time), as a
/// positive `i64`.
pub const STEPPED_STAGES: &str = "rtile.stepped_stages";
/// On a lowered tensor-core `gpu.func`: the stages of its `cp.async` global→shared
/// pipeline, as a positive `i64`.
pub const PIPELINE_STAGES: &str = "rtile.pipeline_stages";
/// On a lowered `gpu.func` computing one result of a `tilegraph.kernel` with several:
/// `array<i64: result, results>` (such a kernel is lowered as one kernel per result,
/// see docs/passes/lower-to-gpu.md, "Kernels with several results").
pub const SPLIT_RESULT: &str = "rtile.split_result";

/// On a kernel `gpu.func` with TMA tensor-map parameters (`!nvgpu.tensormap.descriptor`):
/// `array<i64: i0, i1, ..>`, for each tensor-map parameter in order, the index of the global
/// memref parameter it describes. The runtime builds each map over that memref's whole
/// shape (`cuTensorMapEncodeTiled`) with the box of the map's type; the simulator binds it to
/// that buffer.
pub const TENSOR_MAP_OF: &str = "rtile.tensor_map_of";

/// On a persistent kernel `gpu.func` (a `vdevice.program` lowered by `--lower-to-gpu`):
/// `{coresident = N}`, the blocks that can be co-resident on the device (the simulator runs
/// at most that many at once), and `blocks_per_core = B` when its barriers span vEUs: B
/// blocks must be resident on each SM/CU at once, so the back ends cap the registers to
/// fit them (NVPTX `.maxnreg`, HIP `amdgpu_waves_per_eu`).
pub const PERSISTENT: &str = "rtile.persistent";
/// On an `scf.for` (unit): keep loop-invariant code of its body inside it (LLVM's
/// `llvm.licm.disable`). A persistent kernel's loop over its schedule entries switches to
/// disjoint rOperator bodies: hoisting their invariants into the kernel preamble would
/// keep every rOperator's values live through every entry.
pub const NO_HOIST: &str = "rtile.no_hoist";
/// On a persistent kernel's spin-wait `scf.while`: `array<i64: veu, order>`, the wait for
/// `step[veu] > order` (deadlock reports name it); `array<i64>` for a wait whose pair is
/// data (read from a schedule table): the index of the loop's atomic read of `step` and
/// the value its `arith.cmpi` compares with.
pub const WAIT: &str = "rtile.wait";

/// `rtile`: attributes only.
pub struct RtileDialect;

impl Dialect for RtileDialect {
    fn namespace(&self) -> &'static str {
        NAMESPACE
    }
    fn description(&self) -> &'static str {
        "rTiles and rPrograms (Roller §3.1-3.3): tile shapes per memory layer, attached to te.compute"
    }
    fn ops(&self) -> Vec<Box<dyn OpDefinition>> {
        Vec::new()
    }
    fn attribute_verifier(&self) -> Option<Box<dyn AttributeVerifier>> {
        Some(Box::new(verify::RtileAttrVerifier::default()))
    }
}

/// One rTile: a shape over the compute's axes and the storage padding of each input's data
/// tile (empty: none). The payload of `#rtile.tile`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileAttr {
    pub shape: Vec<u64>,
    pub pad: Vec<Vec<u64>>,
}

impl TileAttr {
    /// `#rtile.tile<...>` as an IR attribute.
    pub fn to_attr(&self) -> Attribute {
        Attribute::new(AttrKind::Dialect {
            dialect: NAMESPACE.into(),
            body: attr::tile_body(&self.shape, &self.pad),
        })
    }
    /// Reads `#rtile.tile<...>`.
    pub fn from_attr(a: &Attribute) -> Result<TileAttr, String> {
        let body = rtile_body(a, "#rtile.tile")?;
        let (shape, pad) = attr::parse_tile_body(body)?;
        Ok(TileAttr { shape, pad })
    }
}

fn rtile_body<'a>(a: &'a Attribute, what: &str) -> Result<&'a str, String> {
    match a.kind() {
        AttrKind::Dialect { dialect, body } if dialect == NAMESPACE => Ok(body),
        _ => Err(format!("expected a {what} attribute")),
    }
}

impl RProgram {
    /// `#rtile.program<...>` as an IR attribute; `axes` is printed when it differs from
    /// `own_axes` (the compute's axis names), i.e. for programs over fused axes.
    pub fn to_attr(&self, own_axes: &[String]) -> Attribute {
        let with_axes = !self.axes.is_empty() && self.axes != own_axes;
        Attribute::new(AttrKind::Dialect {
            dialect: NAMESPACE.into(),
            body: attr::program_body(self, with_axes),
        })
    }
    /// Reads `#rtile.program<...>`.
    pub fn from_attr(a: &Attribute) -> Result<RProgram, String> {
        attr::parse_program_body(rtile_body(a, "#rtile.program")?)
    }
}

/// The programs attached to `op` as `rtile.programs` (empty when there are none).
pub fn programs(ctx: &Context, op: OpId) -> Result<Vec<RProgram>, String> {
    match ctx.attr(op, PROGRAMS) {
        None => Ok(Vec::new()),
        Some(a) => programs_from_attr(a),
    }
}

/// Reads an `rtile.programs` value: an array of `#rtile.program`.
pub fn programs_from_attr(a: &Attribute) -> Result<Vec<RProgram>, String> {
    let items = a
        .as_array()
        .ok_or("'rtile.programs' must be an array of #rtile.program")?;
    items
        .iter()
        .enumerate()
        .map(|(i, x)| RProgram::from_attr(x).map_err(|m| format!("program #{i}: {m}")))
        .collect()
}

/// The program chosen for `op` (`rtile.program`), if any.
pub fn program(ctx: &Context, op: OpId) -> Result<Option<RProgram>, String> {
    ctx.attr(op, PROGRAM).map(RProgram::from_attr).transpose()
}

/// Attaches `progs` (best first) as `rtile.programs`; `own_axes` as in [`RProgram::to_attr`].
pub fn set_programs(ctx: &mut Context, op: OpId, progs: &[RProgram], own_axes: &[String]) {
    let v = progs.iter().map(|p| p.to_attr(own_axes)).collect();
    ctx.set_attr(op, PROGRAMS, Attribute::new(AttrKind::Array(v)));
}

/// Attaches `p` as the chosen `rtile.program`.
pub fn set_program(ctx: &mut Context, op: OpId, p: &RProgram, own_axes: &[String]) {
    ctx.set_attr(op, PROGRAM, p.to_attr(own_axes));
}

#[cfg(test)]
mod tests;
