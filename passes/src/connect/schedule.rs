//! `GraphConnecting` (Welder Fig. 7, lines 1–11): visit the nodes in topological order and
//! each node's out-edges; for each edge try every level from global inward (up to the
//! deepest allowed), tile the sub-graphs it yields with [`best_plan`], and keep the level
//! whose estimate is lowest. The paper profiles on the GPU; here the model decides.
//!
//! What Fig. 7 leaves open, settled here (**[Interp]**, docs/passes/connect.md):
//! - `best_latency`/`best_level` restart for every edge (global = "not connected" first;
//!   a deeper level must be strictly better);
//! - a level is compared on the kernels it touches: at global, the producer's kernel plus
//!   the consumer's kernel; connected, the merged kernel;
//! - a merge that would make a kernel depend on itself through an outside node (not
//!   convex) is not tried; an edge between two nodes already in one kernel cannot be
//!   global, only register or shared;
//! - decisions are never revisited (greedy).

use std::collections::HashMap;

use rtile_dialects::tilegraph::Level;

use super::graph::Graph;
use super::tiling::{Levels, Plan, best_plan};
use crate::device::Device;

/// What `--connect` tried for one edge.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// The level chosen.
    pub level: Level,
    /// Per level tried: the estimate of the kernels it touches (µs), or why it is not
    /// possible.
    pub tried: Vec<(Level, Result<f64, String>)>,
}

/// The scheduling result.
#[derive(Clone, Debug)]
pub struct Schedule {
    /// Edge levels, `[consumer][input]`.
    pub levels: Levels,
    /// Per decided edge `(consumer, input)`, the decision.
    pub decisions: HashMap<(usize, usize), Decision>,
    /// The kernels, in topological order of their first member.
    pub kernels: Vec<Plan>,
}

/// Union-find components over edges not at global.
fn components(g: &Graph, levels: &Levels) -> Vec<usize> {
    let mut c: Vec<usize> = (0..g.nodes.len()).collect();
    fn find(c: &mut [usize], x: usize) -> usize {
        let mut r = x;
        while c[r] != r {
            r = c[r];
        }
        c[x] = r;
        r
    }
    for (n, node) in g.nodes.iter().enumerate() {
        for (i, inp) in node.inputs.iter().enumerate() {
            if let Some(p) = inp.producer
                && levels[n][i] != Level::Global
            {
                let (a, b) = (find(&mut c, n), find(&mut c, p));
                c[a.max(b)] = a.min(b);
            }
        }
    }
    (0..g.nodes.len()).map(|x| find(&mut c, x)).collect()
}

fn members_of(comp: &[usize], root: usize) -> Vec<usize> {
    (0..comp.len()).filter(|&n| comp[n] == root).collect()
}

/// True when no path leaves `set` and comes back (the kernel can be placed as one op).
fn convex(g: &Graph, set: &[usize]) -> bool {
    let inside = |n: usize| set.binary_search(&n).is_ok();
    // Nodes reachable from the set through an outside node.
    let mut tainted = vec![false; g.nodes.len()];
    for n in 0..g.nodes.len() {
        let from = g.nodes[n].inputs.iter().filter_map(|i| i.producer);
        let reached = from
            .clone()
            .any(|p| (inside(p) && !inside(n)) || (tainted[p] && !inside(n)));
        let back = from.clone().any(|p| tainted[p]) && inside(n);
        if back {
            return false;
        }
        tainted[n] = reached;
    }
    true
}

/// An edge whose two ends share a kernel is at least shared.
fn close_levels(g: &Graph, levels: &mut Levels) {
    let comp = components(g, levels);
    for (n, node) in g.nodes.iter().enumerate() {
        for (i, inp) in node.inputs.iter().enumerate() {
            if let Some(p) = inp.producer
                && comp[p] == comp[n]
                && levels[n][i] == Level::Global
            {
                levels[n][i] = Level::Shared;
            }
        }
    }
}

/// Memoised [`best_plan`] per (members, their edges' levels).
struct Planner<'a> {
    g: &'a Graph,
    dev: &'a Device,
    top_k: usize,
    memo: HashMap<(Vec<usize>, Vec<Level>), Result<Plan, String>>,
}

impl Planner<'_> {
    fn plan(&mut self, members: &[usize], levels: &Levels) -> Result<Plan, String> {
        let lv: Vec<Level> = members
            .iter()
            .flat_map(|&n| levels[n].iter().copied())
            .collect();
        let key = (members.to_vec(), lv);
        if let Some(r) = self.memo.get(&key) {
            return r.clone();
        }
        let r = best_plan(self.g, members, levels, self.dev, self.top_k);
        self.memo.insert(key, r.clone());
        r
    }
}

/// Runs Fig. 7's graph-connecting scheduler over `g`, connecting at levels down to
/// `deepest` (`None` = Welder-none, `Register` = Welder-base, `Shared` = Welder, §5.5).
pub fn schedule(
    g: &Graph,
    dev: &Device,
    top_k: usize,
    deepest: Option<Level>,
) -> Result<Schedule, String> {
    let mut levels: Levels = g
        .nodes
        .iter()
        .map(|n| vec![Level::Global; n.inputs.len()])
        .collect();
    let mut planner = Planner {
        g,
        dev,
        top_k,
        memo: HashMap::new(),
    };
    let mut decisions = HashMap::new();
    let tried_levels: Vec<Level> = std::iter::once(Level::Global)
        .chain(
            Level::IN_KERNEL
                .into_iter()
                .filter(|&l| deepest.is_some_and(|d| l <= d)),
        )
        .collect();
    for n in 0..g.nodes.len() {
        for &(c, i) in &g.consumers[n] {
            let mut tried = Vec::new();
            let mut best: Option<(Level, f64)> = None;
            for &lv in &tried_levels {
                let mut trial = levels.clone();
                trial[c][i] = lv;
                let comp = components(g, &trial);
                let cost = if lv == Level::Global {
                    if comp[n] == comp[c] {
                        Err("both ends are already in one kernel".to_string())
                    } else {
                        let a = planner.plan(&members_of(&comp, comp[n]), &trial);
                        let b = planner.plan(&members_of(&comp, comp[c]), &trial);
                        match (a, b) {
                            (Ok(a), Ok(b)) => Ok(a.est_us + b.est_us),
                            (Err(m), _) | (_, Err(m)) => Err(m),
                        }
                    }
                } else {
                    close_levels(g, &mut trial);
                    let set = members_of(&comp, comp[n]);
                    if !convex(g, &set) {
                        Err(
                            "the merged kernel would depend on itself through another kernel"
                                .into(),
                        )
                    } else {
                        planner.plan(&set, &trial).map(|p| p.est_us)
                    }
                };
                if let Ok(t) = &cost
                    && best.is_none_or(|(_, b)| *t < b)
                {
                    best = Some((lv, *t));
                }
                tried.push((lv, cost));
            }
            let (level, _) = best.ok_or_else(|| {
                format!(
                    "no level is possible for the edge into operand #{i} of node {c}: {}",
                    tried
                        .iter()
                        .filter_map(|(l, r)| r.as_ref().err().map(|m| format!("{}: {m}", l.name())))
                        .collect::<Vec<_>>()
                        .join("; ")
                )
            })?;
            levels[c][i] = level;
            close_levels(g, &mut levels);
            decisions.insert((c, i), Decision { level, tried });
        }
    }
    let comp = components(g, &levels);
    let mut kernels = Vec::new();
    for root in 0..g.nodes.len() {
        if comp[root] == root {
            kernels.push(planner.plan(&members_of(&comp, root), &levels)?);
        }
    }
    Ok(Schedule {
        levels,
        decisions,
        kernels,
    })
}
