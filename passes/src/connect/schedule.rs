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
//! - a node's out-edges are visited from the furthest consumer (topologically) to the
//!   nearest; connecting an edge merges the two kernels and every kernel on a path between
//!   them (a convex closure, so that the kernel can be one op), and the level is compared
//!   on that whole set: at global, the sum of its kernels' estimates; connected, the
//!   merged kernel's; an edge between two nodes already in one kernel cannot be global;
//! - decisions are never revisited (greedy).

use std::collections::HashMap;

use rtile_dialects::tilegraph::Level;

use super::graph::Graph;
use super::profile::ConnectProfile;
use super::tiling::{Levels, Plan, best_plan_profiled};
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
    /// How many distinct sub-graphs `SubGraphTiling` was run on (the scheduler's cost:
    /// one per kernel tried, memoised).
    pub tilings: usize,
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

/// The smallest convex set holding `seed` and closed under components: every node on a
/// path that leaves the set and comes back is pulled in, with its kernel (else the kernel
/// would depend on itself through another one).
fn closure(g: &Graph, comp: &[usize], seed: &[usize]) -> Vec<usize> {
    let n = g.nodes.len();
    let mut inside = vec![false; n];
    for &x in seed {
        for y in 0..n {
            if comp[y] == comp[x] {
                inside[y] = true;
            }
        }
    }
    loop {
        let mut down = vec![false; n];
        for x in 0..n {
            down[x] = g.nodes[x]
                .inputs
                .iter()
                .filter_map(|i| i.producer)
                .any(|p| inside[p] || down[p]);
        }
        let mut up = vec![false; n];
        for x in (0..n).rev() {
            up[x] = g.consumers[x].iter().any(|&(c, _)| inside[c] || up[c]);
        }
        let between: Vec<usize> = (0..n).filter(|&x| !inside[x] && down[x] && up[x]).collect();
        if between.is_empty() {
            return (0..n).filter(|&x| inside[x]).collect();
        }
        for x in between {
            for y in 0..n {
                if comp[y] == comp[x] {
                    inside[y] = true;
                }
            }
        }
    }
}

/// Connects every edge inside `set` still at global at `level`.
fn connect_within(g: &Graph, levels: &mut Levels, set: &[usize], level: Level) {
    for &n in set {
        for (i, inp) in g.nodes[n].inputs.iter().enumerate() {
            if inp.producer.is_some_and(|p| set.binary_search(&p).is_ok())
                && levels[n][i] == Level::Global
            {
                levels[n][i] = level;
            }
        }
    }
}

/// An edge whose two ends share a kernel is connected at `pull` (the outermost level
/// allowed inside a kernel).
fn close_levels(g: &Graph, levels: &mut Levels, pull: Level) {
    let comp = components(g, levels);
    for (n, node) in g.nodes.iter().enumerate() {
        for (i, inp) in node.inputs.iter().enumerate() {
            if let Some(p) = inp.producer
                && comp[p] == comp[n]
                && levels[n][i] == Level::Global
            {
                levels[n][i] = pull;
            }
        }
    }
}

/// Memoised [`best_plan`] per (members, their edges' levels).
struct Planner<'a> {
    g: &'a Graph,
    dev: &'a Device,
    top_k: usize,
    profile: Option<&'a ConnectProfile>,
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
        let r = best_plan_profiled(self.g, members, levels, self.dev, self.top_k, self.profile);
        self.memo.insert(key, r.clone());
        r
    }
}

/// Fig. 7 lines 4–9 for the edge `n → c` (its reads `reads` of `c`'s inputs): every level
/// in `tried_levels`, each costed on the kernels it touches, the best kept.
#[allow(clippy::too_many_arguments)]
fn decide_edge(
    g: &Graph,
    planner: &mut Planner<'_>,
    levels: &Levels,
    tried_levels: &[Level],
    pull: Level,
    n: usize,
    c: usize,
    reads: &[usize],
) -> Result<Decision, String> {
    let comp = components(g, levels);
    // The kernels this decision touches: the producer's, the consumer's, and those on
    // paths between them.
    let set = closure(g, &comp, &[n, c]);
    let mut tried = Vec::new();
    let mut best: Option<(Level, f64)> = None;
    for &lv in tried_levels {
        let mut trial = levels.clone();
        for &i in reads {
            trial[c][i] = lv;
        }
        let cost = if lv == Level::Global {
            if comp[n] == comp[c] {
                Err("both ends are already in one kernel".to_string())
            } else {
                let mut roots: Vec<usize> = set.iter().map(|&x| comp[x]).collect();
                roots.sort_unstable();
                roots.dedup();
                roots.iter().try_fold(0.0, |acc, &r| {
                    planner
                        .plan(&members_of(&comp, r), &trial)
                        .map(|p| acc + p.est_us)
                })
            }
        } else {
            connect_within(g, &mut trial, &set, pull);
            planner.plan(&set, &trial).map(|p| p.est_us)
        };
        if let Ok(t) = &cost
            && best.is_none_or(|(_, b)| *t < b)
        {
            best = Some((lv, *t));
        }
        tried.push((lv, cost));
    }
    // An edge already inside a kernel keeps the level its merge was costed with.
    if best.is_none() && comp[n] == comp[c] {
        best = Some((levels[c][reads[0]], 0.0));
    }
    let (level, _) = best.ok_or_else(|| {
        format!(
            "no level is possible for the edge from node {n} into node {c}: {}",
            tried
                .iter()
                .filter_map(|(l, r)| r.as_ref().err().map(|m| format!("{}: {m}", l.name())))
                .collect::<Vec<_>>()
                .join("; ")
        )
    })?;
    Ok(Decision { level, tried })
}

/// Runs Fig. 7's graph-connecting scheduler over `g`, connecting at levels down to
/// `deepest` (`None` = Welder-none, `Register` = Welder-base, `Shared` = Welder, §5.5).
pub fn schedule(
    g: &Graph,
    dev: &Device,
    top_k: usize,
    deepest: Option<Level>,
) -> Result<Schedule, String> {
    schedule_profiled(g, dev, top_k, deepest, None)
}

/// [`schedule`], ranking the tile configurations `profile` names by their measured times
/// ([`best_plan_profiled`]).
pub fn schedule_profiled(
    g: &Graph,
    dev: &Device,
    top_k: usize,
    deepest: Option<Level>,
    profile: Option<&ConnectProfile>,
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
        profile,
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
    let pull = *tried_levels.last().unwrap_or(&Level::Global);
    for n in 0..g.nodes.len() {
        // The furthest consumer first: a connection that spans the others pulls the nodes
        // between into one kernel, and is compared with them as separate kernels. All the
        // reads of `n` by one consumer are one edge (one tensor between two operators, as
        // in the paper's graph): a 5×5 stencil reads its producer 25 times, and deciding
        // each read alone would cost 25 decisions per edge and could split one tensor
        // across two levels.
        let mut outs: Vec<usize> = g.consumers[n].iter().map(|&(c, _)| c).collect();
        outs.sort_unstable_by(|a, b| b.cmp(a));
        outs.dedup();
        for c in outs {
            let reads: Vec<usize> = g.consumers[n]
                .iter()
                .filter(|&&(x, _)| x == c)
                .map(|&(_, i)| i)
                .collect();
            let decision =
                decide_edge(g, &mut planner, &levels, &tried_levels, pull, n, c, &reads)?;
            for &i in &reads {
                levels[c][i] = decision.level;
            }
            if decision.level != Level::Global {
                let comp = components(g, &levels);
                let set = closure(g, &comp, &[n, c]);
                connect_within(g, &mut levels, &set, pull);
            }
            close_levels(g, &mut levels, pull);
            for &i in &reads {
                decisions.insert((c, i), decision.clone());
            }
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
        tilings: planner.memo.len(),
    })
}
