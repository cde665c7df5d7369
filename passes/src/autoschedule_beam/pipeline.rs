//! The pipeline the search schedules: the te computes of one function as `--connect`'s
//! operator graph ([`crate::connect::graph`]), with what the placement rules of §4 need
//! per stage (reduction or element-wise, output, how its consumers read it).

use rtile::ir::{Context, OpId};
use rtile_dialects::te::ir::{COMPUTE, compute_from_op};

use super::space::Loc;
use crate::connect::graph::{DimIndex, Graph, Input, build_graph};

/// The graph of one function with per-stage facts.
pub struct Pipeline {
    /// The operator graph (nodes in topological order).
    pub g: Graph,
    /// Per node, its distinct consumers, ascending.
    cons: Vec<Vec<usize>>,
    /// Per node, per input (= access): the read has a pad value (zero padding).
    pub padded: Vec<Vec<bool>>,
    /// Per node: it reads one value through more than one access (a stencil's taps).
    pub repeated: Vec<bool>,
}

/// True when `inp` is read at the identity index over the first `rank` domain axes of its
/// reader, with the reader's parallel shape (§4: "called point-wise").
pub fn is_pointwise(inp: &Input, out_shape: &[u64]) -> bool {
    inp.shape == out_shape
        && inp.index.iter().enumerate().all(|(d, ix)| match ix {
            DimIndex::Affine(a) => a.terms == [(d, 1)] && a.constant == 0 && a.div == 1,
            _ => false,
        })
}

impl Pipeline {
    /// The pipeline of `ops` (one function body). Only te computes are scheduled; a tensor
    /// reshape between them is refused (the search has no placement for a view).
    pub fn build(ctx: &Context, ops: &[OpId]) -> Result<Pipeline, String> {
        let g = build_graph(ctx, ops)?;
        let mut padded = Vec::new();
        for n in &g.nodes {
            if ctx.op_name(n.op) != COMPUTE {
                return Err(format!(
                    "'{}' between te computes: autoschedule-beam schedules te.compute ops only",
                    ctx.op_name(n.op)
                ));
            }
            let (c, _) = compute_from_op(ctx, n.op)?;
            padded.push(c.accesses.iter().map(|a| a.pad.is_some()).collect());
        }
        let cons = (0..g.nodes.len())
            .map(|n| {
                let mut v: Vec<usize> = g.consumers[n].iter().map(|&(c, _)| c).collect();
                v.sort_unstable();
                v.dedup();
                v
            })
            .collect();
        let repeated = g
            .nodes
            .iter()
            .map(|n| {
                let distinct: std::collections::HashSet<_> =
                    n.inputs.iter().map(|i| i.value).collect();
                distinct.len() < n.inputs.len()
            })
            .collect();
        Ok(Pipeline {
            g,
            cons,
            padded,
            repeated,
        })
    }

    /// Number of stages.
    pub fn len(&self) -> usize {
        self.g.nodes.len()
    }

    /// True when there are no stages.
    pub fn is_empty(&self) -> bool {
        self.g.nodes.is_empty()
    }

    /// True when stage `n` has reduction axes (a multi-stage Func in Halide: never inlined).
    pub fn is_reduction(&self, n: usize) -> bool {
        self.g.nodes[n].num_parallel < self.g.nodes[n].domain.len()
    }

    /// True when stage `n`'s result leaves the function (§4: outputs are compute_root).
    pub fn is_output(&self, n: usize) -> bool {
        self.g.external_use[n]
    }

    /// The parallel extents of stage `n`.
    pub fn extents(&self, n: usize) -> &[u64] {
        &self.g.nodes[n].out_shape
    }

    /// The producers of stage `n` in the graph (distinct, ascending).
    pub fn producers(&self, n: usize) -> Vec<usize> {
        let mut v: Vec<usize> = self.g.nodes[n]
            .inputs
            .iter()
            .filter_map(|i| i.producer)
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The consumers of stage `n` (distinct, ascending).
    pub fn consumers(&self, n: usize) -> &[usize] {
        &self.cons[n]
    }

    /// [`Pipeline::kernel_of`] for every stage at once (consumers come later in the
    /// topological order, so one backward sweep).
    pub fn kernels_of(&self, locs: &[Option<Loc>]) -> Vec<Option<usize>> {
        let mut k = vec![None; self.len()];
        for n in (0..self.len()).rev() {
            k[n] = match locs[n].as_ref() {
                None => None,
                Some(Loc::Root(_)) => Some(n),
                Some(_) => self.cons[n].first().and_then(|&c| k[c]),
            };
        }
        k
    }

    /// The released code's forced-inline rule (§4; digest §3.2 [C]): an element-wise stage
    /// with one consumer that reads it point-wise (at the identity index, with the
    /// consumer's own shape: a broadcast read is not point-wise), whose own inputs are all
    /// read point-wise, and whose consumer is element-wise. The search forces it only where
    /// the inlined child is legal (the digest's "inlining produced a legal child").
    pub fn must_inline(&self, n: usize) -> bool {
        let cons = self.consumers(n);
        let [c] = *cons else { return false };
        let node = &self.g.nodes[n];
        !self.is_reduction(n)
            && !self.is_output(n)
            && !self.is_reduction(c)
            && self.g.consumers[n].iter().all(|&(_, i)| {
                let reader = &self.g.nodes[c];
                is_pointwise(&reader.inputs[i], &reader.out_shape)
            })
            && node
                .inputs
                .iter()
                .all(|i| i.producer.is_none() || is_pointwise(i, &node.out_shape))
    }

    /// The kernel (root stage) that stage `n` belongs to under `locs`, `None` while `n`
    /// or a consumer on its way to a root is undecided.
    pub fn kernel_of(&self, locs: &[Option<Loc>], n: usize) -> Option<usize> {
        match locs[n].as_ref()? {
            Loc::Root(_) => Some(n),
            _ => {
                let c = *self.consumers(n).first()?;
                self.kernel_of(locs, c)
            }
        }
    }

    /// The kernel every consumer of `n` is in, when they share one (else fusion has no
    /// place: a tilegraph node is in one kernel, and Halide's compute_at must enclose every
    /// use, digest §3.2 [I]); `None` also when a read of `n` is padded (the fused lowering
    /// does not compute a padded intermediate in registers).
    pub fn fusion_kernel(&self, locs: &[Option<Loc>], n: usize) -> Option<usize> {
        if self.is_output(n) {
            return None;
        }
        if self.g.consumers[n].iter().any(|&(c, i)| self.padded[c][i]) {
            return None;
        }
        let mut k = None;
        for &c in self.consumers(n) {
            let kc = self.kernel_of(locs, c)?;
            if k.is_some_and(|x| x != kc) {
                return None;
            }
            k = Some(kc);
        }
        k
    }

    /// The limit on what may share a kernel (`lowering-limits=true`): no member of a fused
    /// kernel reads a value more than once. The search sizes a fused stencil's shared tile
    /// from one read's region (`--connect`'s propagation), while `--lower-to-gpu` stages the
    /// region of every read, so a searched stencil kernel can need more shared memory than
    /// the search counted and be refused (the 32-stage chain at k = 1). True when fusing `n`
    /// into its consumers' kernel keeps to that.
    pub fn lowerable_fusion(&self, locs: &[Option<Loc>], n: usize) -> bool {
        let Some(k) = self.fusion_kernel(locs, n) else {
            return false;
        };
        let ko = self.kernels_of(locs);
        !self.repeated[n] && (0..self.len()).all(|m| ko[m] != Some(k) || !self.repeated[m])
    }

    /// True when stage `c` and every stage from it to its root is element-wise and stored
    /// in registers or at root: a reduction fused in registers under such a chain is what
    /// the fused lowering recomputes per point (fuse.rs: a reduction may not be read in
    /// registers by another reduction).
    pub fn elementwise_chain(&self, locs: &[Option<Loc>], c: usize) -> bool {
        if self.is_reduction(c) {
            return false;
        }
        match locs[c].as_ref() {
            Some(Loc::Root(_)) => true,
            Some(l) if l.in_registers() => self
                .consumers(c)
                .iter()
                .all(|&d| self.elementwise_chain(locs, d)),
            _ => false,
        }
    }

    /// Whether stage `n` may be fused in registers (inline or thread level) under `locs`:
    /// an element-wise stage anywhere its consumers share a kernel; a reduction only under
    /// an element-wise chain, and only when it is not itself read by a stage fused in
    /// registers with a reduction in between (the fused lowering's limits, fuse.rs).
    pub fn register_fusable(&self, locs: &[Option<Loc>], n: usize) -> bool {
        if self.fusion_kernel(locs, n).is_none() {
            return false;
        }
        let cons = self.consumers(n);
        if self.is_reduction(n) {
            return cons.iter().all(|&c| self.elementwise_chain(locs, c));
        }
        // An element-wise producer inlined into a reduction that is itself recomputed in
        // registers is fine; into a shared-level stage too.
        true
    }
}
