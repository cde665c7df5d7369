//! The schedule space of Anderson et al. (OOPSLA'21, "Efficient Automatic Scheduling of
//! Imaging and Vision Pipelines for the GPU", `../shared/papers/002_27004a065edde578.txt`)
//! on te graphs: per stage a compute location (§4: root, the consumer's block level,
//! the consumer's thread level, inline) and, for a root stage, a block/thread/serial
//! tiling (§4.1–4.3), with the pruning rules of §4.6.
//!
//! Dimensions: te is row-major, so the innermost (fastest) dimension is the *last* one; the
//! paper's "first dimension" (Halide's `x`) is our last. The innermost thread dimension is
//! the first dimension counted from the innermost whose extent is ≥ 16, else the innermost
//! (§4.2; the released code's `vector_dim`).

use std::sync::Arc;

use crate::device::Device;

/// The paper's unroll limit (§4.6 rule 4, §4.7: every serial loop of total extent below 16
/// is unrolled). A search policy of the paper, not a device property.
pub const UNROLL_LIMIT: u64 = 16;
/// Largest extent of a non-innermost thread dimension (§4.2: "powers of two up to 16").
pub const MAX_OUTER_THREADS: u64 = 16;
/// Innermost thread extents (§4.2).
pub const INNER_THREADS: [u64; 3] = [16, 32, 64];
/// Largest ratio of points computed to the stage's own points before a fused placement is
/// pruned as excessive recompute (§4.6 rule 1; the paper gives no number: **[Interp]**).
pub const MAX_RECOMPUTE: f64 = 8.0;
/// Smallest warp-lane utilisation kept in the primary set (§4.6 rule 3; the released
/// code's `max_idle_lane_wastage > 0.5` threshold); below it a tiling is kept only when no
/// other exists.
pub const MIN_LANE_UTILISATION: f64 = 0.5;

/// A root stage's tiling over its parallel dims: serial (per-thread, unrolled) sizes and
/// thread extents; blocks are the rest (`⌈extent / (serial·threads)⌉`, §4.2).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tiling {
    /// Serial tile per dim (§4.1).
    pub serial: Arc<[u64]>,
    /// Threads per dim (§4.2). Shared slices: every child state of the search copies its
    /// parent's locations, so a clone must not allocate (hashes and `Debug` are a
    /// `Vec`'s).
    pub threads: Arc<[u64]>,
}

impl Tiling {
    /// Block tile (what one block computes) per dim.
    pub fn block(&self) -> Vec<u64> {
        self.serial
            .iter()
            .zip(self.threads.iter())
            .map(|(s, t)| s * t)
            .collect()
    }
    /// Blocks per dim over `extents`.
    pub fn blocks(&self, extents: &[u64]) -> Vec<u64> {
        extents
            .iter()
            .zip(self.block())
            .map(|(&e, b)| e.div_ceil(b.max(1)))
            .collect()
    }
    /// Threads per block.
    pub fn num_threads(&self) -> u64 {
        self.threads.iter().product()
    }
    /// Points per thread (the unrolled serial tile).
    pub fn serial_points(&self) -> u64 {
        self.serial.iter().product()
    }
}

/// Where a stage is computed (§4, the digest's table in §3.2).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Loc {
    /// Its own kernel, result in global memory; the tiling is decided in phase 2 (`None`
    /// until then).
    Root(Option<Tiling>),
    /// At the consumer's block level, result in shared memory, with its own serial tile
    /// (its outer loops become thread loops, §4).
    Shared(Vec<u64>),
    /// Inside the consumer's thread level, result in registers; no tiling (§4).
    Register,
    /// Inlined into its consumers: no storage, recomputed per use.
    Inline,
}

impl Loc {
    /// The location's name in the output (`root`, `shared`, `register`, `inline`).
    pub fn name(&self) -> &'static str {
        match self {
            Loc::Root(_) => "root",
            Loc::Shared(_) => "shared",
            Loc::Register => "register",
            Loc::Inline => "inline",
        }
    }
    /// True for the two register placements (inline and thread level).
    pub fn in_registers(&self) -> bool {
        matches!(self, Loc::Register | Loc::Inline)
    }
}

/// The innermost thread dimension of `extents` (see the module doc).
pub fn vector_dim(extents: &[u64]) -> usize {
    let n = extents.len();
    (0..n)
        .rev()
        .find(|&d| extents[d] >= 16)
        .unwrap_or(n.saturating_sub(1))
}

/// Serial sizes for one dim of `extent` (§4.1): 1, 2, 4, 8 (at most the extent), plus 3,
/// 5, 7 when they divide the extent into a multiple of the warp size; an extent of exactly
/// 3, 5 or 7 gives {1, extent} (the released code).
pub fn serial_sizes(extent: u64, warp: u64) -> Vec<u64> {
    if matches!(extent, 3 | 5 | 7) {
        return vec![1, extent];
    }
    let mut v: Vec<u64> = [1, 2, 4, 8].into_iter().filter(|&s| s <= extent).collect();
    for s in [3, 5, 7] {
        if extent.is_multiple_of(s) && (extent / s).is_multiple_of(warp) {
            v.push(s);
        }
    }
    v.sort_unstable();
    v
}

/// Thread extents for one dim of `extent` points left after the serial split (§4.2):
/// the innermost thread dim takes 16, 32 or 64 (the extent itself when under 16); others
/// powers of two up to 16, stopped when more than 1/8 of the work would be padding (the
/// released code's `t·⌈E/t⌉·7 > E·8`), plus the extent itself when it is under 16.
pub fn thread_sizes(extent: u64, innermost: bool) -> Vec<u64> {
    let extent = extent.max(1);
    if innermost {
        if extent < INNER_THREADS[0] {
            return vec![extent];
        }
        let v: Vec<u64> = INNER_THREADS
            .into_iter()
            .filter(|&t| t <= extent.next_power_of_two())
            .collect();
        return v;
    }
    let mut v = Vec::new();
    let mut t = 1;
    while t <= MAX_OUTER_THREADS && t <= extent {
        if t * extent.div_ceil(t) * 7 > extent * 8 {
            break;
        }
        v.push(t);
        t *= 2;
    }
    if extent < MAX_OUTER_THREADS && !v.contains(&extent) {
        v.push(extent);
    }
    v
}

/// The cartesian product of per-dim lists (one enumerator with `--connect`'s tilings).
pub fn product(lists: &[Vec<u64>]) -> Vec<Vec<u64>> {
    crate::connect::tiling::cartesian(lists)
}

/// Why a tiling (or a placement) is pruned (§4.6).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pruned {
    /// Rule 1: points computed over the stage's own points above [`MAX_RECOMPUTE`].
    Recompute,
    /// Rule 2: too few blocks for the SMs.
    IdleCores,
    /// Rule 3: warp-lane utilisation under [`MIN_LANE_UTILISATION`].
    IdleLanes,
    /// Rule 4: a serial tile over [`UNROLL_LIMIT`] points.
    Unroll,
    /// Rule 5: a thread-level allocation over the register layer.
    Registers,
    /// Rule 6: a hardware limit (threads per block, shared memory, grid).
    Hardware(String),
}

/// Warps per block and warp-lane utilisation of `threads` threads (§5, Appendix A
/// `warp_lane_utilization`; a tail warp is partly idle).
pub fn lane_utilisation(threads: u64, warp: u64) -> f64 {
    let warps = threads.div_ceil(warp).max(1);
    threads as f64 / (warps * warp) as f64
}

/// The §4.6 checks a tiling can fail on its own (rules 3, 4, 6): threads within the
/// device's block limit, at most 3 thread dims over 1, the serial tile within the unroll
/// limit, blocks within the grid limits.
pub fn check_tiling(t: &Tiling, extents: &[u64], dev: &Device) -> Result<(), Pruned> {
    let threads = t.num_threads();
    if threads > dev.max_threads_per_block {
        return Err(Pruned::Hardware(format!(
            "{threads} threads per block, over the device's {}",
            dev.max_threads_per_block
        )));
    }
    if t.threads.iter().filter(|&&x| x > 1).count() > 3 {
        return Err(Pruned::Hardware("more than 3 thread dimensions".into()));
    }
    if t.serial_points() > UNROLL_LIMIT {
        return Err(Pruned::Unroll);
    }
    let blocks: u64 = t.blocks(extents).iter().product();
    let max_grid = dev.target().max_grid;
    if blocks > max_grid[0] {
        return Err(Pruned::Hardware(format!(
            "{blocks} blocks, over the grid limit"
        )));
    }
    Ok(())
}

/// Every root tiling of a stage with parallel `extents` (§4.1–4.3): serial sizes first,
/// then thread sizes over the rest, blocks the remainder; those failing [`check_tiling`]
/// dropped. Then the block-parallelism rule (§4.3, rule 2): tilings with at least
/// `2 × cores` blocks are kept, the threshold halved until some qualify; and the lane rule
/// (rule 3): tilings with lane utilisation ≥ [`MIN_LANE_UTILISATION`] kept when any is.
pub fn root_tilings(extents: &[u64], dev: &Device) -> Vec<Tiling> {
    if extents.is_empty() {
        return vec![Tiling {
            serial: Arc::from([]),
            threads: Arc::from([]),
        }];
    }
    let warp = dev.teu_width.max(1);
    let vd = vector_dim(extents);
    let serials = product(
        &extents
            .iter()
            .map(|&e| serial_sizes(e, warp))
            .collect::<Vec<_>>(),
    );
    let mut all = Vec::new();
    for s in serials {
        if s.iter().product::<u64>() > UNROLL_LIMIT {
            continue;
        }
        let rest: Vec<Vec<u64>> = extents
            .iter()
            .zip(&s)
            .enumerate()
            .map(|(d, (&e, &x))| thread_sizes(e.div_ceil(x), d == vd))
            .collect();
        for th in product(&rest) {
            let t = Tiling {
                serial: Arc::from(s.as_slice()),
                threads: Arc::from(th),
            };
            if check_tiling(&t, extents, dev).is_ok() {
                all.push(t);
            }
        }
    }
    let blocks = |t: &Tiling| t.blocks(extents).iter().product::<u64>();
    let mut need = 2 * dev.cores;
    let mut kept: Vec<Tiling> = Vec::new();
    while kept.is_empty() && !all.is_empty() {
        kept = all.iter().filter(|t| blocks(t) >= need).cloned().collect();
        if need <= 1 {
            break;
        }
        need /= 2;
    }
    let good: Vec<Tiling> = kept
        .iter()
        .filter(|t| lane_utilisation(t.num_threads(), warp) >= MIN_LANE_UTILISATION)
        .cloned()
        .collect();
    if good.is_empty() { kept } else { good }
}

/// A default tiling for a root stage whose tiling is not decided yet (phase 1 states are
/// costed with it): serial 1, the innermost thread dim 32 (or its extent), others 1.
pub fn default_tiling(extents: &[u64]) -> Tiling {
    let vd = vector_dim(extents);
    Tiling {
        serial: Arc::from(vec![1; extents.len()]),
        threads: extents
            .iter()
            .enumerate()
            .map(|(d, &e)| if d == vd { e.clamp(1, 32) } else { 1 })
            .collect(),
    }
}
