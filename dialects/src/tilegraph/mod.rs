//! tilegraph: Welder's tile-graphs (OSDI'23 §3) on te ops. See `docs/dialects/tilegraph.md`.
//!
//! - `tilegraph.kernel`: a region op whose body holds the te ops (and tensor reshapes) that
//!   run as one kernel, ended by `tilegraph.yield` with the kernel's outputs. It is the
//!   paper's connected sub-graph at the lowest layer (§3.2 "virtual node"): every edge
//!   between two kernels goes through global memory.
//! - on every op of a kernel body, `tilegraph.connect` gives the connect level of each
//!   operand's producer→consumer edge (§3.2 `SetConnect`), and `tilegraph.tiles` the op's
//!   propagated tile per memory layer (§3.1 `Propagate`).
//!
//! The verifier ([`ops`]) checks the structure; the rules that need the device description
//! or the tile propagation (footprint per layer, tiles consistent with propagation) run
//! through a [`verify::KernelCheck`] that the passes crate installs
//! (`rtile_passes::connect::register_dialect_extensions`), as `rtile` does for its
//! device checks: dependencies point one way, passes → dialects.

pub mod ops;
pub mod verify;

use rtile::dialect::{AttributeVerifier, Dialect, OpDefinition};
use rtile::ir::attributes::Attribute;
use rtile::ir::{Context, NamedAttribute, OpId};

/// The dialect namespace.
pub const NAMESPACE: &str = "tilegraph";
/// The kernel op.
pub const KERNEL: &str = "tilegraph.kernel";
/// The kernel body's terminator.
pub const YIELD: &str = "tilegraph.yield";
/// On a kernel: the device (a `passes/devices/*.toml` name) whose layers the tiles live in.
pub const DEVICE: &str = "tilegraph.device";
/// On a kernel body op: one connect level per operand, `["global", "shared", ...]`.
pub const CONNECT: &str = "tilegraph.connect";
/// On a kernel body op: its tile per layer, `{shared = array<i64: ..>, register = ...}`,
/// over the op's iteration domain (te: parallel then reduction axes; reshape: result dims).
pub const TILES: &str = "tilegraph.tiles";
/// On a kernel: the model's traffic into each layer, bytes, `{global = N : i64, ...}`.
pub const TRAFFIC: &str = "tilegraph.traffic";
/// On a kernel: the model's footprint in each layer, bytes, `{shared = N : i64, ...}`.
pub const FOOTPRINT: &str = "tilegraph.footprint";
/// On a kernel: why `--connect` passed over better-ranked tile configurations of it, when it
/// did (a string: how many the lowering's shared-memory plan could not fit in a block, and
/// the last one's bytes against the device's limit).
pub const REFUSED: &str = "tilegraph.refused";
/// On a kernel: the parallelism the model costed it with (Welder §4.1's utilisation of the
/// computing cores): `{blocks = N : i64, threads = T : i64, utilization = U : f64}`, the
/// blocks launched, threads per block and the fraction of the device's cores and lanes
/// they keep busy, in (0, 1].
pub const PARALLELISM: &str = "tilegraph.parallelism";
/// On a kernel body op: per operand, what `--connect` decided for that edge and why (a
/// dictionary; empty for an edge from outside the graph, e.g. a function argument).
pub const DECISIONS: &str = "tilegraph.decisions";
/// On a kernel, and carried by `--lower-to-gpu` to its `gpu.func`s: the key of the tile
/// configuration `--connect` chose (16 hex digits; `passes/src/connect/profile.rs`), what a
/// profile of measured kernel times names it by.
pub const CONFIG: &str = "tilegraph.config";

/// A connect level (§3.2): the memory layer where a producer's tile is handed to its
/// consumer. Ordered innermost first, as the device descriptions list their layers.
/// The paper's Fig. 7 numbers levels from the lowest (0 = global); the names avoid the
/// ambiguity (Fig. 5 numbers the other way round).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Registers: the consumer computes the producer's element in its own loop (§4.2,
    /// TVM's `compute_inline`).
    Register,
    /// Shared memory: the producer writes a tile there, the consumer reads it (§4.2).
    Shared,
    /// Global memory: not connected; the edge is a kernel boundary.
    Global,
}

impl Level {
    /// Every level, innermost first.
    pub const ALL: [Level; 3] = [Level::Register, Level::Shared, Level::Global];
    /// The levels a kernel body has tiles for, innermost first.
    pub const IN_KERNEL: [Level; 2] = [Level::Register, Level::Shared];

    /// The name, as in the device descriptions' `[[layers]]`.
    pub fn name(self) -> &'static str {
        match self {
            Level::Register => "register",
            Level::Shared => "shared",
            Level::Global => "global",
        }
    }
    /// Looks a name up.
    pub fn from_name(s: &str) -> Option<Level> {
        Level::ALL.into_iter().find(|l| l.name() == s)
    }
    /// The index of the layer in a device description (`layers`, top first).
    pub fn layer_index(self) -> usize {
        self as usize
    }
}

/// An op's tile per in-kernel layer (register, shared); `None` where it has none.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LayerTiles {
    /// The register-layer tile (per thread).
    pub register: Option<Vec<u64>>,
    /// The shared-layer tile (per block: the kernel's tile-graph instance).
    pub shared: Option<Vec<u64>>,
}

impl LayerTiles {
    /// The tile at `l` (`None` for global: the whole tensor).
    pub fn get(&self, l: Level) -> Option<&[u64]> {
        match l {
            Level::Register => self.register.as_deref(),
            Level::Shared => self.shared.as_deref(),
            Level::Global => None,
        }
    }
    /// Sets the tile at `l` (ignored for global).
    pub fn set(&mut self, l: Level, t: Vec<u64>) {
        match l {
            Level::Register => self.register = Some(t),
            Level::Shared => self.shared = Some(t),
            Level::Global => {}
        }
    }
    /// As a dictionary attribute.
    pub fn to_attr(&self) -> Attribute {
        let mut v = Vec::new();
        for l in Level::IN_KERNEL {
            if let Some(t) = self.get(l) {
                v.push(NamedAttribute {
                    name: l.name().into(),
                    value: Attribute::dense_i64_array(t.iter().map(|&x| x as i64).collect()),
                });
            }
        }
        Attribute::dictionary(v)
    }
    /// Reads `{register = array<i64: ..>, shared = array<i64: ..>}`.
    pub fn from_attr(a: &Attribute) -> Result<LayerTiles, String> {
        let d = a
            .as_dictionary()
            .ok_or("expected a dictionary from layer name to array<i64: ...>")?;
        let mut t = LayerTiles::default();
        for e in d {
            let l = Level::from_name(&e.name)
                .filter(|l| *l != Level::Global)
                .ok_or_else(|| {
                    format!(
                        "unknown layer '{}' (expected 'register' or 'shared'; global holds whole tensors)",
                        e.name
                    )
                })?;
            let v = e
                .value
                .as_dense_ints()
                .ok_or_else(|| format!("the '{}' tile must be an array<i64: ...>", e.name))?;
            if let Some(x) = v.iter().find(|&&x| x < 1) {
                return Err(format!("the '{}' tile has a size {x} < 1", e.name));
            }
            t.set(l, v.iter().map(|&x| x as u64).collect());
        }
        Ok(t)
    }
}

/// Reads a `["global", "shared", ...]` connect list.
pub fn levels_from_attr(a: &Attribute) -> Result<Vec<Level>, String> {
    let items = a
        .as_array()
        .ok_or("expected an array of connect levels (\"register\", \"shared\", \"global\")")?;
    items
        .iter()
        .enumerate()
        .map(|(i, x)| {
            x.as_str().and_then(Level::from_name).ok_or_else(|| {
                format!("entry #{i} is not a connect level (\"register\", \"shared\", \"global\")")
            })
        })
        .collect()
}

/// The connect levels of `op`'s operands, if it has `tilegraph.connect`.
pub fn connect_levels(ctx: &Context, op: OpId) -> Result<Option<Vec<Level>>, String> {
    ctx.attr(op, CONNECT).map(levels_from_attr).transpose()
}

/// Sets `tilegraph.connect` on `op`.
pub fn set_connect_levels(ctx: &mut Context, op: OpId, levels: &[Level]) {
    let v = levels.iter().map(|l| Attribute::string(l.name())).collect();
    ctx.set_attr(op, CONNECT, Attribute::array(v));
}

/// The tiles of `op`, if it has `tilegraph.tiles`.
pub fn tiles(ctx: &Context, op: OpId) -> Result<Option<LayerTiles>, String> {
    ctx.attr(op, TILES).map(LayerTiles::from_attr).transpose()
}

/// Sets `tilegraph.tiles` on `op`.
pub fn set_tiles(ctx: &mut Context, op: OpId, t: &LayerTiles) {
    ctx.set_attr(op, TILES, t.to_attr());
}

/// The device a kernel names.
pub fn kernel_device(ctx: &Context, kernel: OpId) -> Option<&str> {
    ctx.attr(kernel, DEVICE).and_then(|a| a.as_str())
}

/// A `{layer = N : i64}` dictionary (traffic, footprint) from `(level, bytes)` pairs.
pub fn bytes_per_level_attr(v: &[(Level, u64)]) -> Attribute {
    Attribute::dictionary(
        v.iter()
            .map(|(l, b)| NamedAttribute {
                name: l.name().into(),
                value: Attribute::i64(*b as i64),
            })
            .collect(),
    )
}

/// `tilegraph`: the kernel region op, its terminator, and the connect/tile attributes.
pub struct TilegraphDialect;

impl Dialect for TilegraphDialect {
    fn namespace(&self) -> &'static str {
        NAMESPACE
    }
    fn description(&self) -> &'static str {
        "Welder's tile-graphs (OSDI'23 §3): kernels of connected te ops, connect levels and tiles per layer"
    }
    fn ops(&self) -> Vec<Box<dyn OpDefinition>> {
        vec![ops::KERNEL_OP.boxed(), ops::YIELD_OP.boxed()]
    }
    fn attribute_verifier(&self) -> Option<Box<dyn AttributeVerifier>> {
        Some(Box::new(verify::TilegraphAttrVerifier::default()))
    }
}

#[cfg(test)]
mod tests;
