//! Beam search over the schedule space (OOPSLA'21 §4): stages from the outputs toward the
//! inputs (consumers before producers), two phases per stage (location, then the tiling
//! of a root stage), a beam of `k` states; hierarchical sampling by structural hash
//! (§3.1, §4.4), freezing after a root/inline pre-pass (§3.2), memoization of the
//! per-kernel featurization (§3.3), and the coarse-to-fine penalties of §4.5.
//!
//! Conventions (digest §4.2 leaves them open; **[Interp]**): full passes are numbered from
//! 1 and bucket by the structural hash at depth = the pass number (the paper's "we use
//! the pass index as the depth", up to 5 for 5 passes; greedy, 1 pass, reaches depth 1 =
//! the block level); the pre-pass is pass 0 and buckets every child of a parent together
//! (the released code's negative depth). Penalties use depth pass + 1; the permitted set
//! of pass p holds the depth-p hashes of the ancestors of the states within 1.2× of its
//! best, checked in pass p + 1.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::rc::Rc;

use super::cost::{Coefficients, stage_cost};
use super::features::{StageFeatures, featurize};
use super::kernel::{KernelPlan, levels, plan_kernel};
use super::pipeline::Pipeline;
use super::space::{
    Loc, MAX_RECOMPUTE, Pruned, Tiling, UNROLL_LIMIT, product, root_tilings, serial_sizes,
};
use crate::device::Device;

/// The deepest fusion the search may choose.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Fusion {
    /// Root and inline only.
    None,
    /// Also the consumer's thread level (registers).
    Register,
    /// Also the consumer's block level (shared memory).
    Shared,
}

/// Search options (the pass's options).
#[derive(Clone, Debug)]
pub struct SearchOptions {
    /// Beam size (1 = greedy: one pass, no pre-pass, no penalties).
    pub beam: usize,
    /// Seed of the sampler.
    pub seed: u64,
    /// Hierarchical sampling (§3.1).
    pub sampling: bool,
    /// Freezing after the root/inline pre-pass (§3.2; beam > 1 only).
    pub freezing: bool,
    /// Memoization of featurization (§3.3).
    pub memoize: bool,
    /// Deepest fusion allowed.
    pub fusion: Fusion,
    /// Keep to what `--lower-to-gpu` lowers today ([`Pipeline::lowerable_fusion`]).
    pub lowering_limits: bool,
    /// The cost model's coefficients (`None`: [`Coefficients::from_device`]).
    pub coefficients: Option<Coefficients>,
    /// Which schedule of the final beam to return: 1 = the best, `r` = the `r`-th best
    /// distinct one (at most `beam`), so that a GPU session can time the top few.
    pub rank: usize,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            beam: 32,
            seed: 0,
            sampling: true,
            freezing: true,
            memoize: true,
            fusion: Fusion::Shared,
            lowering_limits: true,
            coefficients: None,
            rank: 1,
        }
    }
}

/// The result.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Every stage's location (root tilings decided).
    pub locs: Vec<Loc>,
    /// Predicted cost, seconds.
    pub cost: f64,
    /// Children featurized and costed.
    pub states_evaluated: u64,
    /// Kernel featurizations served from the memo / computed.
    pub memo_hits: u64,
    /// Kernel featurizations computed.
    pub memo_misses: u64,
    /// Stages frozen after the pre-pass.
    pub frozen: usize,
    /// The rank of the returned schedule (the options' `rank`), and the predicted costs of
    /// the final beam's distinct schedules, best first (at most `beam`).
    pub rank: usize,
    /// See `rank`.
    pub beam_costs: Vec<f64>,
}

/// splitmix64: a small deterministic generator for the sampler.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = (self.next() % (i as u64 + 1)) as usize;
            v.swap(i, j);
        }
    }
}

/// A partial schedule.
#[derive(Clone, Debug)]
struct State {
    locs: Vec<Option<Loc>>,
    cost: f64,
    /// Per root stage, its kernel's cost (0 elsewhere); `cost` is their sum.
    kcost: Vec<f64>,
    penalized: bool,
}

/// The structural hash of `locs` at `depth` (§4.4, digest §4.2 [C]): depth < 0 the number
/// of decisions; depth 0 the root and inlined stages; depth 1 adds what is fused at each
/// kernel's block and thread levels and which tile sizes are > 1; depth ≥ 2 the exact
/// tile sizes.
pub fn structural_hash(p: &Pipeline, locs: &[Option<Loc>], depth: i32) -> u64 {
    let mut h = DefaultHasher::new();
    if depth < 0 {
        let decisions = locs
            .iter()
            .map(|l| match l {
                None => 0,
                Some(Loc::Root(None)) => 1,
                Some(_) => 2,
            })
            .sum::<usize>();
        decisions.hash(&mut h);
        return h.finish();
    }
    for (n, l) in locs.iter().enumerate() {
        let Some(l) = l else { continue };
        match l {
            Loc::Root(t) => {
                (n, 0u8).hash(&mut h);
                if let Some(t) = t
                    && depth >= 1
                {
                    if depth >= 2 {
                        t.hash(&mut h);
                    } else {
                        for (&s, &x) in t.serial.iter().zip(t.threads.iter()) {
                            (s > 1, x > 1).hash(&mut h);
                        }
                    }
                }
            }
            Loc::Inline => (n, 1u8).hash(&mut h),
            Loc::Shared(s) if depth >= 1 => {
                (n, 2u8, p.kernel_of(locs, n)).hash(&mut h);
                if depth >= 2 {
                    s.hash(&mut h);
                } else {
                    s.iter().map(|&x| x > 1).collect::<Vec<_>>().hash(&mut h);
                }
            }
            Loc::Register if depth >= 1 => (n, 3u8, p.kernel_of(locs, n)).hash(&mut h),
            _ => {}
        }
    }
    h.finish()
}

/// Featurization memo (§3.3): per kernel (its members' locations and the root tiling).
type MemoKey = Vec<(usize, Loc)>;
/// A kernel's plan and features, or why it is pruned (shared by the memo).
type Featurized = Rc<Result<(KernelPlan, Vec<StageFeatures>), Pruned>>;

/// The search's shared state.
struct Searcher<'a> {
    p: &'a Pipeline,
    dev: &'a Device,
    coef: Coefficients,
    opts: SearchOptions,
    memo: HashMap<MemoKey, Featurized>,
    /// Per stage, its root tilings (they depend on the stage's extents and the device
    /// only: computed once instead of once per popped state).
    tilings: Vec<Option<Rc<Vec<Tiling>>>>,
    evaluated: u64,
    hits: u64,
    misses: u64,
}

impl Searcher<'_> {
    /// Features of every kernel of `locs` (roots decided), or why one is pruned.
    fn kernels(&mut self, locs: &[Option<Loc>]) -> Vec<Featurized> {
        let ko = self.p.kernels_of(locs);
        (0..self.p.len())
            .filter(|&r| matches!(locs[r], Some(Loc::Root(_))))
            .map(|r| self.kernel(locs, &ko, r))
            .collect()
    }

    /// The plan and features of the kernel rooted at `r` (memoized, §3.3). The connect
    /// levels are computed on a miss only (a hit needs the key alone).
    fn kernel(&mut self, locs: &[Option<Loc>], ko: &[Option<usize>], r: usize) -> Featurized {
        let key: MemoKey = (0..=r)
            .filter(|&n| ko[n] == Some(r))
            .map(|n| (n, locs[n].clone().unwrap_or(Loc::Inline)))
            .collect();
        if self.opts.memoize
            && let Some(f) = self.memo.get(&key)
        {
            self.hits += 1;
            return f.clone();
        }
        self.misses += 1;
        let lv = &levels(self.p, locs);
        let f = Rc::new(plan_kernel(self.p, locs, lv, r, self.dev).and_then(|k| {
            let f = featurize(self.p, &k, lv, self.dev);
            // §4.6 rule 1: excessive recompute of a fused stage.
            for sf in &f {
                if !sf.root && sf.points_computed > MAX_RECOMPUTE * sf.num_scalars.max(1.0) {
                    return Err(Pruned::Recompute);
                }
            }
            Ok((k, f))
        }));
        if self.opts.memoize {
            self.memo.insert(key, f.clone());
        }
        f
    }

    /// The child `locs` of `parent` that decided stage `n`, costed, or `None` if pruned.
    /// A decision changes one kernel (the one `n` joins or roots; consumers of an undecided
    /// stage already read it from global memory), so that kernel is featurized (through
    /// the memo) and the model re-run on it; the others keep the parent's costs, which are
    /// what the model gives them (their features do not depend on other kernels here).
    fn cost_child(&mut self, parent: &State, locs: Vec<Option<Loc>>, n: usize) -> Option<State> {
        self.evaluated += 1;
        let ko = self.p.kernels_of(&locs);
        let r = ko[n]?;
        let k = self.kernel(&locs, &ko, r);
        let (_, f) = k.as_ref().as_ref().ok()?;
        let c: f64 = f
            .iter()
            .map(|sf| stage_cost(sf, &self.coef, self.dev).total())
            .sum();
        let mut kcost = parent.kcost.clone();
        kcost[r] = c;
        Some(State {
            cost: kcost.iter().sum(),
            kcost,
            locs,
            penalized: false,
        })
    }

    /// Per-stage costs of a complete schedule (for freezing).
    fn stage_costs(&mut self, locs: &[Option<Loc>]) -> Vec<f64> {
        let mut c = vec![0.0; self.p.len()];
        for k in self.kernels(locs) {
            if let Ok((plan, f)) = k.as_ref() {
                for (&n, sf) in plan.members.iter().zip(f) {
                    c[n] = stage_cost(sf, &self.coef, self.dev).total();
                }
            }
        }
        c
    }

    /// The location children of `s` for stage `n` (phase 1).
    fn locations(
        &mut self,
        s: &State,
        n: usize,
        pre: bool,
        frozen: &[Option<Loc>],
    ) -> Vec<Vec<Option<Loc>>> {
        let p = self.p;
        let with = |l: Loc| {
            let mut v = s.locs.clone();
            v[n] = Some(l);
            v
        };
        if p.is_output(n) {
            return vec![with(Loc::Root(None))];
        }
        let lowerable = !self.opts.lowering_limits || p.lowerable_fusion(&s.locs, n);
        let reg = lowerable && p.register_fusable(&s.locs, n);
        if let Some(f) = &frozen[n] {
            let legal = match f {
                Loc::Root(_) => true,
                _ => reg,
            };
            if legal {
                return vec![with(f.clone())];
            }
        }
        if reg && p.must_inline(n) && self.legal(&with(Loc::Inline), n) {
            return vec![with(Loc::Inline)];
        }
        let mut out = Vec::new();
        if reg && !p.is_reduction(n) {
            out.push(with(Loc::Inline));
        }
        out.push(with(Loc::Root(None)));
        if pre {
            return out;
        }
        if reg && self.opts.fusion >= Fusion::Register {
            out.push(with(Loc::Register));
        }
        if self.opts.fusion >= Fusion::Shared && lowerable && p.fusion_kernel(&s.locs, n).is_some()
        {
            out.extend(self.shared_children(s, n));
        }
        out
    }

    /// Whether the kernel that `n` joins under `locs` passes the §4.6 pruning rules
    /// (through the memo: the child is costed from it next).
    fn legal(&mut self, locs: &[Option<Loc>], n: usize) -> bool {
        let ko = self.p.kernels_of(locs);
        ko[n].is_some_and(|r| self.kernel(locs, &ko, r).is_ok())
    }

    /// Block-level placements of `n` with every serial tiling of its region (§4: serial
    /// sizes only, the outer loops become thread loops).
    fn shared_children(&mut self, s: &State, n: usize) -> Vec<Vec<Option<Loc>>> {
        let p = self.p;
        let np = p.g.nodes[n].num_parallel;
        let mut probe = s.locs.clone();
        probe[n] = Some(Loc::Shared(vec![1; np]));
        let lv = levels(p, &probe);
        let Some(k) = p.kernel_of(&probe, n) else {
            return Vec::new();
        };
        let Ok(plan) = plan_kernel(p, &probe, &lv, k, self.dev) else {
            return Vec::new();
        };
        let Some(region) = plan.pos(n).and_then(|i| plan.tiles[i].shared.clone()) else {
            return Vec::new();
        };
        let warp = self.dev.teu_width;
        let lists: Vec<Vec<u64>> = region[..np]
            .iter()
            .map(|&e| serial_sizes(e, warp))
            .collect();
        product(&lists)
            .into_iter()
            .filter(|sz| {
                let threads: u64 = region
                    .iter()
                    .zip(sz)
                    .map(|(&r, &x)| r.div_ceil(x))
                    .product();
                sz.iter().product::<u64>() <= UNROLL_LIMIT
                    && threads <= self.dev.max_threads_per_block
            })
            .map(|sz| {
                let mut v = s.locs.clone();
                v[n] = Some(Loc::Shared(sz));
                v
            })
            .collect()
    }

    /// The tiling children of `s` for stage `n` (phase 2; `None`: nothing to decide).
    fn tilings(
        &mut self,
        s: &State,
        n: usize,
        frozen: &[Option<Loc>],
    ) -> Option<Vec<Vec<Option<Loc>>>> {
        if !matches!(s.locs[n], Some(Loc::Root(None))) {
            return None;
        }
        if let Some(Loc::Root(Some(t))) = &frozen[n] {
            let mut v = s.locs.clone();
            v[n] = Some(Loc::Root(Some(t.clone())));
            return Some(vec![v]);
        }
        let (p, dev) = (self.p, self.dev);
        let ts = self.tilings[n]
            .get_or_insert_with(|| Rc::new(root_tilings(p.extents(n), dev)))
            .clone();
        Some(
            ts.iter()
                .map(|t| {
                    let mut v = s.locs.clone();
                    v[n] = Some(Loc::Root(Some(t.clone())));
                    v
                })
                .collect(),
        )
    }
}

/// Cost-ordered insertion (ties by insertion order: deterministic).
fn sort_states(v: &mut [State]) {
    v.sort_by(|a, b| a.cost.total_cmp(&b.cost));
}

/// Runs the search on `p`.
pub fn search(p: &Pipeline, dev: &Device, opts: &SearchOptions) -> Result<Outcome, String> {
    if p.is_empty() {
        return Err("no te.compute to schedule".into());
    }
    let mut s = Searcher {
        p,
        dev,
        coef: opts
            .coefficients
            .clone()
            .unwrap_or_else(|| Coefficients::from_device(dev)),
        opts: opts.clone(),
        memo: HashMap::new(),
        tilings: vec![None; p.len()],
        evaluated: 0,
        hits: 0,
        misses: 0,
    };
    let k = opts.beam.max(1);
    let mut rng = Rng(opts.seed ^ 0x5EED);
    let mut frozen: Vec<Option<Loc>> = vec![None; p.len()];
    let mut passes = if k > 1 { 5 } else { 1 };
    let mut nfrozen = 0;
    if opts.freezing && k > 1 {
        let pre = beam_pass(&mut s, &mut rng, 0, &frozen, &HashSet::new())?;
        let pre = &pre.1[0];
        let costs = s.stage_costs(&pre.locs);
        let nst = p.len();
        let count = (nst as f64 - (nst as f64).log2()) as usize;
        let mut order: Vec<usize> = (0..nst).collect();
        order.sort_by(|&a, &b| costs[a].total_cmp(&costs[b]).then(a.cmp(&b)));
        for &n in order.iter().take(count) {
            frozen[n] = pre.locs[n].clone();
        }
        nfrozen = count;
        passes -= 1;
    }
    // The complete schedules the passes end with, in pass order (each pass's sorted).
    let mut finals: Vec<State> = Vec::new();
    let mut permitted = HashSet::new();
    for pass in 1..=passes {
        let (good, last) = beam_pass(&mut s, &mut rng, pass, &frozen, &permitted)?;
        permitted = HashSet::new();
        for st in good {
            for h in ancestor_hashes(p, &st.locs, pass) {
                permitted.insert(h);
            }
        }
        finals.extend(distinct_prefix(last, k));
    }
    // The final beam: the k cheapest distinct schedules (a stable sort: on equal costs
    // the earlier pass's first, so rank 1 is the best pass's winner).
    sort_states(&mut finals);
    let mut finals = distinct_prefix(finals, k);
    let rank = opts.rank.max(1);
    if rank > finals.len() {
        return Err(format!(
            "rank={rank}: the final beam holds {} distinct schedule{} (beam-size={k})",
            finals.len(),
            if finals.len() == 1 { "" } else { "s" }
        ));
    }
    let beam_costs = finals.iter().map(|st| st.cost).collect();
    let pick = finals.swap_remove(rank - 1);
    Ok(Outcome {
        locs: pick
            .locs
            .into_iter()
            .map(|l| l.unwrap_or(Loc::Inline))
            .collect(),
        cost: pick.cost,
        states_evaluated: s.evaluated,
        memo_hits: s.hits,
        memo_misses: s.misses,
        frozen: nfrozen,
        rank,
        beam_costs,
    })
}

/// The first `k` states of `v` with distinct locations, in order. Each pass keeps its
/// own (sorted) first k: a schedule among the k best of all passes is among the k best
/// of its pass, so the final beam needs no more (and hashing every state's locations of
/// a large last step would cost as much as the search's own hashing).
fn distinct_prefix(v: Vec<State>, k: usize) -> Vec<State> {
    let mut seen: HashSet<Vec<Option<Loc>>> = HashSet::new();
    let mut out = Vec::with_capacity(k);
    for st in v {
        if out.len() >= k {
            break;
        }
        if seen.insert(st.locs.clone()) {
            out.push(st);
        }
    }
    out
}

/// The depth-`depth` hashes of every prefix of `locs`' decisions (its ancestors).
fn ancestor_hashes(p: &Pipeline, locs: &[Option<Loc>], depth: i32) -> Vec<u64> {
    let mut out = Vec::new();
    let mut cur: Vec<Option<Loc>> = vec![None; locs.len()];
    for n in (0..locs.len()).rev() {
        if let Some(Loc::Root(Some(_))) = &locs[n] {
            cur[n] = Some(Loc::Root(None));
            out.push(structural_hash(p, &cur, depth));
        }
        cur[n] = locs[n].clone();
        out.push(structural_hash(p, &cur, depth));
    }
    out
}

/// One pass of the beam search; returns the complete states within 1.2× of the best (at
/// most k), and every complete state it ends with, cheapest first.
fn beam_pass(
    s: &mut Searcher<'_>,
    rng: &mut Rng,
    pass: i32,
    frozen: &[Option<Loc>],
    permitted: &HashSet<u64>,
) -> Result<(Vec<State>, Vec<State>), String> {
    let p = s.p;
    let k = s.opts.beam.max(1);
    let pre = pass == 0;
    let mut beam = vec![State {
        locs: vec![None; p.len()],
        cost: 0.0,
        kcost: vec![0.0; p.len()],
        penalized: false,
    }];
    let mut seen: HashMap<u64, u32> = HashMap::new();
    for n in (0..p.len()).rev() {
        for phase in 0..2 {
            let mut pending = beam;
            sort_states(&mut pending);
            pending.reverse();
            let mut next = Vec::new();
            let mut expanded = 0;
            while expanded < k {
                let Some(mut st) = pending.pop() else { break };
                if k > 1 && !pre {
                    let mut pen = {
                        let c = seen
                            .entry(structural_hash(p, &st.locs, pass + 1))
                            .or_insert(0);
                        *c += 1;
                        f64::from(*c)
                    };
                    if pass > 1 && !permitted.contains(&structural_hash(p, &st.locs, pass - 1)) {
                        pen += 10.0;
                    }
                    if pen > 1.0 && !st.penalized {
                        st.cost *= pen;
                        st.penalized = true;
                        if pending.last().is_some_and(|m| st.cost > m.cost) {
                            let at = pending.partition_point(|x| x.cost > st.cost);
                            pending.insert(at, st);
                            continue;
                        }
                    }
                }
                expanded += 1;
                let kids = if phase == 0 {
                    s.locations(&st, n, pre, frozen)
                } else {
                    match s.tilings(&st, n, frozen) {
                        Some(v) => v,
                        None => {
                            next.push(State {
                                penalized: false,
                                cost: st.kcost.iter().sum(),
                                ..st
                            });
                            continue;
                        }
                    }
                };
                let depth = if pre { -1 } else { pass };
                for kid in sample(s, rng, &st, n, kids, depth) {
                    next.push(kid);
                }
            }
            if next.is_empty() {
                return Err(format!(
                    "every placement of stage {n} is pruned (§4.6): no schedule fits the device"
                ));
            }
            beam = next;
        }
    }
    sort_states(&mut beam);
    let best = beam[0].cost;
    let good: Vec<State> = beam
        .iter()
        .filter(|x| x.cost <= best * 1.2)
        .take(k)
        .cloned()
        .collect();
    Ok((good, beam))
}

/// Costs the children, all of them or (sampling) ⌊log2 B⌋ survivors per bucket of B by
/// structural hash (§3.1, §4.4), in a seeded random order.
fn sample(
    s: &mut Searcher<'_>,
    rng: &mut Rng,
    parent: &State,
    n: usize,
    kids: Vec<Vec<Option<Loc>>>,
    depth: i32,
) -> Vec<State> {
    let mut out = Vec::new();
    let cost = |s: &mut Searcher<'_>, locs: Vec<Option<Loc>>, out: &mut Vec<State>| match s
        .cost_child(parent, locs, n)
    {
        Some(st) => {
            out.push(st);
            true
        }
        None => false,
    };
    if !s.opts.sampling {
        for kid in kids {
            cost(s, kid, &mut out);
        }
        return out;
    }
    let mut buckets: BTreeMap<u64, Vec<Vec<Option<Loc>>>> = BTreeMap::new();
    for kid in kids {
        buckets
            .entry(structural_hash(s.p, &kid, depth))
            .or_default()
            .push(kid);
    }
    for (_, mut b) in buckets {
        let want = if b.len() > 1 {
            (b.len() as f64).log2() as usize
        } else {
            1
        };
        rng.shuffle(&mut b);
        let mut got = 0;
        for kid in b {
            if got >= want {
                break;
            }
            if cost(s, kid, &mut out) {
                got += 1;
            }
        }
    }
    out
}
