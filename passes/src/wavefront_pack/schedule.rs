//! Algorithm 1 of Rammer (OSDI'20 §3.3), the wavefront scheduling policy, on the data model
//! of `rtile_dialects::vdevice` (digest `rammer.md` §3.2 gives the expanded pseudo-code this
//! follows; every choice the paper leaves open is marked "[Interp]").

use std::collections::{BTreeMap, HashMap};

use rtile_dialects::vdevice::{Program, RKernel};

/// One rOperator of the DFG.
#[derive(Clone, Debug)]
pub struct Op {
    /// Its symbol name.
    pub name: String,
    /// Indices of its DFG predecessors.
    pub deps: Vec<usize>,
    /// Its rKernel variants (§3.1).
    pub kernels: Vec<RKernel>,
}

/// Which rKernels a wave uses (§5.2.4's RAMMER-fast vs RAMMER-select).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelPolicy {
    /// Always the fastest variant of each op.
    Fast,
    /// `SelectRKernels` (§3.3).
    Select,
}

/// How an rTask waits for its predecessors inside one rProgram (§5.2.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarrierPolicy {
    /// barrier-rTasks on exactly the vEUs that ran predecessor rTasks (§3.2).
    Fine,
    /// A global barrier between consecutive waves of a program: every vEU waits for every
    /// rTask of the earlier waves (the IPU backend's only option, §4.2.2).
    Global,
}

/// The policy's switches and its cost model.
#[derive(Clone, Copy, Debug)]
pub struct Policy {
    /// vEUs of the vDevice.
    pub veus: usize,
    /// Merge waves into one rProgram (Algorithm 1); off: RammerBase, one launch per op.
    pub merge: bool,
    /// Kernel selection.
    pub kernels: KernelPolicy,
    /// Barrier kind.
    pub barriers: BarrierPolicy,
    /// Cost of one launch, µs, added to every non-empty rProgram's time.
    pub launch_us: f64,
}

/// One rProgram under construction, with the timing state `SelectvEU` needs.
#[derive(Clone, Debug)]
pub struct Plan {
    /// `prog[vEU][order]`.
    pub prog: Program,
    /// When each vEU finishes its last entry (µs from the launch).
    free: Vec<f64>,
    /// Per op in this program: `(vEU, order, end)` of each rTask.
    tasks: HashMap<usize, Vec<(usize, u64, f64)>>,
    /// `covered[(v, u)]`: the latest order of vEU `u` some barrier on `v` already waited
    /// on. Sparse: a dense `vEUs × vEUs` table made every clone of a plan (two per wave,
    /// `ScheduleWave` tries each kernel choice on a copy) cost O(vEUs²).
    covered: HashMap<(usize, usize), u64>,
    /// The ops in this program, in scheduling order, with their chosen rKernel.
    pub ops: Vec<(usize, usize)>,
}

impl Plan {
    /// An empty program on `veus` vEUs.
    pub fn new(veus: usize) -> Plan {
        Plan {
            prog: Program::new(veus),
            free: vec![0.0; veus],
            tasks: HashMap::new(),
            covered: HashMap::new(),
            ops: Vec::new(),
        }
    }
    /// True when nothing is scheduled.
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }
    /// The model's makespan of the program's rTasks, µs, without the launch.
    pub fn makespan(&self) -> f64 {
        self.free.iter().copied().fold(0.0, f64::max)
    }
    /// `time(P)` of Algorithm 1: the makespan plus one launch; 0 for the empty program
    /// ([Interp]: so the first wave always merges).
    pub fn time(&self, launch_us: f64) -> f64 {
        if self.is_empty() {
            0.0
        } else {
            self.makespan() + launch_us
        }
    }

    /// `SelectvEU` (§3.3): the vEU that can run the next rTask earliest. The rTask's own
    /// readiness is the same on every vEU, so that is the vEU free first; ties go to the
    /// lowest id ([Interp]).
    pub fn select_veu(&self) -> usize {
        let mut best = 0;
        for v in 1..self.free.len() {
            if self.free[v] < self.free[best] {
                best = v;
            }
        }
        best
    }

    /// `Wait(r, waits)` then `Append(r, v)` (§3.3) for rTask `id` of op `op`, taking `us`.
    /// `waits` are `(vEU, order, end)` of the rTasks to wait for; the barrier keeps one pair
    /// per vEU (the latest order: §3.3's pruning, generalised since a vEU runs in order),
    /// none for `v` itself (program order) and none already waited on by an earlier barrier
    /// on `v`; no barrier when nothing is left.
    pub fn wait_append(
        &mut self,
        op: usize,
        name: &str,
        id: u64,
        v: usize,
        us: f64,
        waits: &[(usize, u64, f64)],
    ) {
        // Per waited vEU, in vEU order, the latest order (sparse: few vEUs are waited on).
        let mut latest: BTreeMap<usize, u64> = BTreeMap::new();
        let mut ready = 0f64;
        for &(u, o, end) in waits {
            ready = ready.max(end);
            if u != v {
                let l = latest.entry(u).or_insert(o);
                *l = (*l).max(o);
            }
        }
        let pairs: Vec<(u64, u64)> = latest
            .into_iter()
            .filter(|&(u, o)| self.covered.get(&(v, u)).is_none_or(|&c| c < o))
            .map(|(u, o)| (u as u64, o))
            .collect();
        if !pairs.is_empty() {
            for &(u, o) in &pairs {
                self.covered.insert((v, u as usize), o);
            }
            self.prog.barrier(v, pairs);
        }
        let order = self.prog.len_of(v);
        let end = self.free[v].max(ready) + us;
        self.free[v] = end;
        self.prog.append(name, id, v);
        self.tasks.entry(op).or_default().push((v, order, end));
    }

    /// Every rTask of the ops in `preds` that this program holds.
    fn rtasks_of(&self, preds: &[usize]) -> Vec<(usize, u64, f64)> {
        preds
            .iter()
            .filter_map(|p| self.tasks.get(p))
            .flatten()
            .copied()
            .collect()
    }

    /// The last rTask of every vEU, for a global barrier.
    fn all_last(&self) -> Vec<(usize, u64, f64)> {
        (0..self.free.len())
            .filter_map(|u| {
                let n = self.prog.len_of(u);
                (n > 0).then(|| (u, n - 1, self.free[u]))
            })
            .collect()
    }
}

/// `Wavefront(G)`: the BFS fringes of the DFG, read as Kahn levels ([Interp], digest §3.2:
/// level 0 = ops without predecessors, else 1 + the deepest predecessor), so every
/// predecessor of an op is in an earlier wave. An error on a cycle.
pub fn wavefronts(ops: &[Op]) -> Result<Vec<Vec<usize>>, String> {
    let mut level: Vec<Option<usize>> = vec![None; ops.len()];
    let mut left = ops.len();
    while left > 0 {
        let before = left;
        for i in 0..ops.len() {
            if level[i].is_some() {
                continue;
            }
            let pl: Option<Vec<usize>> = ops[i].deps.iter().map(|&d| level[d]).collect();
            if let Some(pl) = pl {
                level[i] = Some(pl.into_iter().map(|l| l + 1).max().unwrap_or(0));
                left -= 1;
            }
        }
        if left == before {
            return Err("the rOperator graph has a cycle".into());
        }
    }
    let n = level.iter().flatten().copied().max().map_or(0, |m| m + 1);
    let mut waves = vec![Vec::new(); n];
    for (i, l) in level.iter().enumerate() {
        waves[l.unwrap_or(0)].push(i);
    }
    Ok(waves)
}

/// The fastest variant: the smallest standalone time on `veus` vEUs (§3.3 "fastest").
pub fn fastest(op: &Op, veus: usize) -> usize {
    argmin(&op.kernels, |k| k.alone_us(veus as u64))
}

/// The most efficient variant: the smallest runtime × #rTasks (§3.3 "most efficient").
pub fn most_efficient(op: &Op, veus: usize) -> usize {
    argmin(&op.kernels, |k| k.alone_us(veus as u64) * k.rtasks as f64)
}

fn argmin(ks: &[RKernel], f: impl Fn(&RKernel) -> f64) -> usize {
    let mut best = 0;
    for i in 1..ks.len() {
        if f(&ks[i]) < f(&ks[best]) {
            best = i;
        }
    }
    best
}

/// Schedules wave `w` into `p` with rKernel `choice[i]` for op `w[i]` (lines 14–18).
fn place_wave(ops: &[Op], w: &[usize], mut p: Plan, choice: &[usize], pol: &Policy) -> Plan {
    let global = pol.barriers == BarrierPolicy::Global && !p.is_empty();
    let before = if global { p.all_last() } else { Vec::new() };
    for (&o, &k) in w.iter().zip(choice) {
        let kern = &ops[o].kernels[k];
        let preds = p.rtasks_of(&ops[o].deps);
        for r in 0..kern.rtasks {
            let v = p.select_veu();
            let waits = if global { &before } else { &preds };
            p.wait_append(o, &ops[o].name, r, v, kern.us, waits);
        }
        p.ops.push((o, k));
    }
    p
}

/// `ScheduleWave(W, P, D)` (lines 12–19) with `SelectRKernels` (line 13): the fastest
/// kernels when their rTasks cannot fill the vEUs; otherwise the most efficient ones if the
/// model's `time()` of the wave scheduled with them is lower ("perform a profiling").
pub fn schedule_wave(ops: &[Op], w: &[usize], p: &Plan, pol: &Policy) -> Plan {
    let fast: Vec<usize> = w.iter().map(|&o| fastest(&ops[o], pol.veus)).collect();
    let with_fast = place_wave(ops, w, p.clone(), &fast, pol);
    let demand: u64 = w
        .iter()
        .zip(&fast)
        .map(|(&o, &k)| ops[o].kernels[k].rtasks)
        .sum();
    if pol.kernels == KernelPolicy::Fast || demand < pol.veus as u64 {
        return with_fast;
    }
    let eff: Vec<usize> = w
        .iter()
        .map(|&o| most_efficient(&ops[o], pol.veus))
        .collect();
    if eff == fast {
        return with_fast;
    }
    let with_eff = place_wave(ops, w, p.clone(), &eff, pol);
    if with_eff.time(pol.launch_us) < with_fast.time(pol.launch_us) {
        with_eff
    } else {
        with_fast
    }
}

/// `Schedule(G, D)` (lines 1–11): the rPrograms, in launch order. With merge off, each op
/// is its own program (RammerBase).
pub fn schedule(ops: &[Op], pol: &Policy) -> Result<Vec<Plan>, String> {
    if pol.veus == 0 {
        return Err("the vDevice has no vEU".into());
    }
    let waves = wavefronts(ops)?;
    let mut plans = Vec::new();
    if !pol.merge {
        for w in &waves {
            for &o in w {
                plans.push(schedule_wave(ops, &[o], &Plan::new(pol.veus), pol));
            }
        }
        return Ok(plans);
    }
    let mut cur = Plan::new(pol.veus);
    for w in &waves {
        let p1 = schedule_wave(ops, w, &cur, pol);
        let p2 = schedule_wave(ops, w, &Plan::new(pol.veus), pol);
        if merges(&p1, &cur, &p2, pol.launch_us) {
            cur = p1;
        } else {
            plans.push(std::mem::replace(&mut cur, p2));
        }
    }
    // [Interp] Algorithm 1 as printed never pushes the last program.
    if !cur.is_empty() {
        plans.push(cur);
    }
    Ok(plans)
}

/// The merge rule of line 6: `time(P1) ≤ time(Pcurr) + time(P2)`.
pub fn merges(p1: &Plan, cur: &Plan, p2: &Plan, launch_us: f64) -> bool {
    p1.time(launch_us) <= cur.time(launch_us) + p2.time(launch_us)
}
