//! Tile propagation (Welder §3.1, Fig. 6 `Propagate`): from the output tile of a connected
//! sub-graph back to every operator's tile and to the input tiles, through each
//! operator's index maps ("a chain of shape inferences").
//!
//! - An access `%A[y * 2 + ry - 1]` over a tile of `t_y` outputs and `t_ry` window points
//!   touches `2·(t_y − 1) + (t_ry − 1) + 1` rows: the halo of strided convolution and
//!   pooling windows (construct_rtile's [`AffineIndex::span`]).
//! - A dimension the access does not use (broadcast) has a tile of 1; a transposed access
//!   permutes the sizes; reshapes read through `floordiv`/`mod` (collapse) or a strided
//!   sum (expand), see [`super::graph`].
//! - Reduction axes (§3.1 "optional reduction axes in input tiles"): an axis that indexes
//!   a connected input is taken whole (the producer's tile is the reuse-tile and is not
//!   recomputed per step) **[Interp]**; over boundary inputs it may be split into steps,
//!   which lowers the footprint but not the traffic (§2: "k can be replaced as 64").
//! - Irregular accesses (`mod` by a constant, non-affine forms): a conservative upper
//!   bound, the whole dimension at worst (§3.1).
//! - Several outputs (§3.1): the first output (the last in topological order) takes the
//!   given tile; another output with no connected consumer is aligned with it (same tile
//!   when its shape is the same); when two propagations disagree on a tile, the result is
//!   [`PropagateError::Inconsistent`] and the scheduler does not connect that edge.

use rtile::ir::Value;

use super::graph::{DimIndex, Graph, Input, Node};
use crate::construct_rtile::expr_info::AffineIndex;

/// Extent touched by an affine index over a tile starting at an aligned offset: exact for
/// `axis floordiv d` when the tile size and `d` divide one another, else the general bound.
fn aligned_span(a: &AffineIndex, dt: &[u64]) -> u64 {
    if a.div > 1
        && let [(x, 1)] = a.terms.as_slice()
        && a.constant == 0
    {
        let (t, d) = (dt[*x], a.div);
        if t.is_multiple_of(d) {
            return t / d;
        }
        if d.is_multiple_of(t) {
            return 1;
        }
    }
    a.span(dt)
}

/// Extent of one input dimension (of size `full`) touched by the domain tile `dt`.
pub fn dim_span(ix: &DimIndex, dt: &[u64], full: u64) -> u64 {
    match ix {
        DimIndex::Affine(a) => aligned_span(a, dt).min(full),
        DimIndex::Mod(a, m) => aligned_span(a, dt).min(*m).min(full),
        DimIndex::Unknown => full,
    }
}

/// The tile of input `inp` that a domain tile `dt` reads.
pub fn input_tile(inp: &Input, dt: &[u64]) -> Vec<u64> {
    inp.index
        .iter()
        .zip(&inp.shape)
        .map(|(ix, &full)| dim_span(ix, dt, full))
        .collect()
}

/// The tile of `value` that all of `node`'s reads of it touch together over the domain
/// tile `dt`: per dimension, the bounding box of the reads' ranges when every read is
/// `Σ c·axis + k` (a stencil's 25 shifted reads of a 1×32 tile touch 5×36, §3.1's halo)
/// or such a sum `floordiv d` whose step per tile instance `d` divides ([`Moving::of`]),
/// else the largest single read (the general bound of [`dim_span`]). Reads that move
/// differently with the tile (`%P[y]` beside `%P[2y]`: per tile instance along `y` one
/// moves by `t_y`, the other by `2·t_y`) get the span that covers them all in every
/// instance ([`covering_span`]), which is what `--lower-to-gpu` allocates for them
/// (`shared_stage.rs`'s `union`); the bounding box of the first instance under-counts it.
pub fn value_tile(node: &Node, value: Value, dt: &[u64]) -> Vec<u64> {
    let reads: Vec<&Input> = node.inputs.iter().filter(|i| i.value == value).collect();
    let Some(first) = reads.first() else {
        return Vec::new();
    };
    (0..first.shape.len())
        .map(|d| {
            let full = first.shape[d];
            let moving: Option<Vec<Moving>> = reads
                .iter()
                .map(|inp| match &inp.index[d] {
                    DimIndex::Affine(a) => Moving::of(a, dt, &node.domain),
                    _ => None,
                })
                .collect();
            let widest = reads
                .iter()
                .map(|i| dim_span(&i.index[d], dt, full))
                .max()
                .unwrap_or(full);
            match moving {
                Some(m) if !m.is_empty() => {
                    covering_span(&m, dt, &node.domain).min(full).max(widest)
                }
                _ => widest,
            }
        })
        .collect()
}

/// One read of a dim over a domain tile, as it moves from tile instance to instance:
/// instance `b` (`b_x` along each tiled axis `x`, starting at `b_x·dt[x]`) touches
/// `lo + Σ motion[x]·b_x ..= hi + Σ motion[x]·b_x`.
struct Moving {
    motion: Vec<i64>,
    lo: i64,
    hi: i64,
}

impl Moving {
    /// `(Σ c·x + k) floordiv d` over `dt`: `None` when a tiled axis's step `c·dt[x]` is not
    /// a multiple of `d` (the start is then not affine in the instance: the caller falls
    /// back to the single reads' bound). A multiple moves by `c·dt[x] / d` per instance,
    /// exactly: `⌊(c·dt·b + k + i) / d⌋ = (c·dt/d)·b + ⌊(k + i) / d⌋`.
    fn of(a: &AffineIndex, dt: &[u64], domain: &[u64]) -> Option<Moving> {
        let d = a.div.max(1) as i64;
        let mut motion = vec![0i64; dt.len()];
        let (mut lo, mut hi) = (a.constant, a.constant);
        for &(x, c) in &a.terms {
            let t = *dt.get(x)? as i64;
            let reach = c * (t - 1);
            lo += reach.min(0);
            hi += reach.max(0);
            if (domain.get(x).copied().unwrap_or(0) as i64) > t {
                let step = c * t;
                if step % d != 0 {
                    return None;
                }
                motion[x] += step / d;
            }
        }
        Some(Moving {
            motion,
            lo: lo.div_euclid(d),
            hi: hi.div_euclid(d),
        })
    }
}

/// The extent covering the reads `reads` (over a node's domain tile `dt`, its domain
/// `domain`) in every tile instance ([`Moving`]). Relative to a start moving as one read's
/// does, each read's start and end are affine in the instance `b`, so their extremes are at
/// the grid's corners (`b_x ∈ {0, ⌈domain[x] / dt[x]⌉ − 1}`); the smallest cover over the
/// reads' motions. Reads that move alike give their bounding box.
fn covering_span(reads: &[Moving], dt: &[u64], domain: &[u64]) -> u64 {
    let last: Vec<i64> = (0..dt.len())
        .map(|x| {
            let t = dt[x].max(1);
            domain
                .get(x)
                .map_or(0, |&e| e.div_ceil(t).saturating_sub(1)) as i64
        })
        .collect();
    reads
        .iter()
        .map(|m| {
            let spans = reads.iter().map(|r| (r.lo, r.hi, &r.motion[..]));
            let (lo, hi) = cover_moving(spans, &m.motion, &last);
            (hi - lo + 1).max(1) as u64
        })
        .min()
        .unwrap_or(1)
}

/// The interval `lo ..= hi` that covers every span in every instance of a grid, relative
/// to a start moving by `motion` per instance: span `(lo_r, hi_r, motion_r)` touches
/// `lo_r + Σ motion_r[x]·b_x ..= hi_r + Σ motion_r[x]·b_x` in instance `b`
/// (`0 ≤ b_x ≤ last[x]`). Relative to the moving start each end is affine in `b`, so its
/// extremes are at the grid's corners, taken per column. Shared by `--connect`'s tile
/// sizes ([`value_tile`]) and the lowering's shared regions (`shared_stage.rs`), so that
/// what the model counts is what the kernel allocates.
pub(crate) fn cover_moving<'a>(
    spans: impl Iterator<Item = (i64, i64, &'a [i64])>,
    motion: &[i64],
    last: &[i64],
) -> (i64, i64) {
    let (mut lo, mut hi) = (i64::MAX, i64::MIN);
    for (slo, shi, smotion) in spans {
        let (mut down, mut up) = (0, 0);
        for ((&c, &m), &n) in smotion.iter().zip(motion).zip(last) {
            let far = (c - m) * n;
            down += far.min(0);
            up += far.max(0);
        }
        lo = lo.min(slo + down);
        hi = hi.max(shi + up);
    }
    (lo, hi)
}

/// True when input `inp` is indexed by domain dim `d`.
pub fn uses_dim(inp: &Input, d: usize) -> bool {
    inp.index.iter().any(|ix| match ix {
        DimIndex::Affine(a) | DimIndex::Mod(a, _) => a.terms.iter().any(|&(x, _)| x == d),
        DimIndex::Unknown => true,
    })
}

/// The domain tile of `node` for an output tile `out`: each reduction dim whole when it
/// indexes an input for which `whole(input)` holds, else `step` (capped at the extent).
pub fn domain_tile(
    node: &Node,
    out: &[u64],
    step: Option<u64>,
    whole: &dyn Fn(usize) -> bool,
) -> Vec<u64> {
    let mut t = out.to_vec();
    for r in node.reduction_dims() {
        let forced = node
            .inputs
            .iter()
            .enumerate()
            .any(|(i, inp)| whole(i) && uses_dim(inp, r));
        t.push(match step {
            Some(s) if !forced => s.clamp(1, node.domain[r]),
            _ => node.domain[r],
        });
    }
    t
}

/// `tile` with its reduction dims replaced by their whole extents (what traffic counts).
pub fn with_whole_reductions(node: &Node, tile: &[u64]) -> Vec<u64> {
    let mut t = tile.to_vec();
    for r in node.reduction_dims() {
        t[r] = node.domain[r];
    }
    t
}

/// Why a propagation failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PropagateError {
    /// Two consumers (or two outputs) ask different tiles of node `node`.
    Inconsistent {
        node: usize,
        first: Vec<u64>,
        second: Vec<u64>,
    },
    /// An output that no connected consumer reaches has a shape the first output's tile
    /// cannot be aligned with.
    Unaligned { node: usize },
    /// The output tile has the wrong rank or a zero size.
    BadTile,
}

impl std::fmt::Display for PropagateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PropagateError::Inconsistent {
                node,
                first,
                second,
            } => write!(
                f,
                "inconsistent tiles for node {node}: {first:?} and {second:?}"
            ),
            PropagateError::Unaligned { node } => {
                write!(
                    f,
                    "output node {node} cannot be aligned with the first output"
                )
            }
            PropagateError::BadTile => write!(f, "the output tile does not fit the output"),
        }
    }
}

/// A sub-graph of a [`Graph`]: its members (topological order) and which of their edges
/// are connected at the layer considered.
pub struct SubGraph<'a> {
    /// The graph.
    pub graph: &'a Graph,
    /// Member nodes, ascending (= topological).
    pub members: Vec<usize>,
    /// `connected(consumer, input)`: the edge into input `input` of `consumer` is connected
    /// at this layer (its producer is then a member).
    pub connected: &'a dyn Fn(usize, usize) -> bool,
}

impl SubGraph<'_> {
    /// True when `n` is a member.
    pub fn has(&self, n: usize) -> bool {
        self.members.binary_search(&n).is_ok()
    }
    /// True when the edge into input `i` of member `n` is connected inside the sub-graph.
    pub fn inner_edge(&self, n: usize, i: usize) -> bool {
        self.has(n)
            && self.graph.nodes[n].inputs[i]
                .producer
                .is_some_and(|p| self.has(p))
            && (self.connected)(n, i)
    }
    /// True when member `n`'s result leaves the sub-graph (a function result, a consumer
    /// outside, or an edge not connected at this layer).
    pub fn is_output(&self, n: usize) -> bool {
        self.graph.external_use[n]
            || self.graph.consumers[n]
                .iter()
                .any(|&(c, i)| !self.inner_edge(c, i))
    }
    /// The outputs, the first (last in topological order) first.
    pub fn outputs(&self) -> Vec<usize> {
        let mut v: Vec<usize> = self
            .members
            .iter()
            .copied()
            .filter(|&n| self.is_output(n))
            .collect();
        v.reverse();
        v
    }
}

/// Propagates `out_tile` (over the first output's result dims) through `sg`; returns the
/// domain tile of every member (indexed like `sg.members`). `step`: the reduction step of
/// reductions over boundary inputs (`None`: whole).
pub fn propagate(
    sg: &SubGraph<'_>,
    out_tile: &[u64],
    step: Option<u64>,
) -> Result<Vec<Vec<u64>>, PropagateError> {
    let g = sg.graph;
    let outs = sg.outputs();
    let first = *outs.first().ok_or(PropagateError::BadTile)?;
    let fnode = &g.nodes[first];
    if out_tile.len() != fnode.out_shape.len() || out_tile.contains(&0) {
        return Err(PropagateError::BadTile);
    }
    let pos = |n: usize| sg.members.binary_search(&n).ok();
    let mut par: Vec<Option<Vec<u64>>> = vec![None; sg.members.len()];
    let clamp = |t: &[u64], shape: &[u64]| -> Vec<u64> {
        t.iter().zip(shape).map(|(&a, &b)| a.min(b)).collect()
    };
    par[pos(first).unwrap_or(0)] = Some(clamp(out_tile, &fnode.out_shape));
    let mut dom = vec![Vec::new(); sg.members.len()];
    for (k, &n) in sg.members.iter().enumerate().rev() {
        let node = &g.nodes[n];
        let out = match &par[k] {
            Some(t) => t.clone(),
            // Another output, reached by no connected consumer: aligned with the first.
            None if node.out_shape == fnode.out_shape => clamp(out_tile, &node.out_shape),
            None => return Err(PropagateError::Unaligned { node: n }),
        };
        let dt = domain_tile(node, &out, step, &|i| sg.inner_edge(n, i));
        for (i, inp) in node.inputs.iter().enumerate() {
            // One region per tensor: a later read of the same one is in it already.
            if !sg.inner_edge(n, i) || node.inputs[..i].iter().any(|o| o.value == inp.value) {
                continue;
            }
            let p = inp.producer.and_then(pos).ok_or(PropagateError::BadTile)?;
            // All of this node's reads of the producer together (a stencil's halo).
            let region = value_tile(node, inp.value, &dt);
            match &par[p] {
                Some(t) if *t != region => {
                    return Err(PropagateError::Inconsistent {
                        node: sg.members[p],
                        first: t.clone(),
                        second: region,
                    });
                }
                _ => par[p] = Some(region),
            }
        }
        par[k] = Some(out);
        dom[k] = dt;
    }
    Ok(dom)
}
