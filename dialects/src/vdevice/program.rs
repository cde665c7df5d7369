//! An rProgram `prog[vEU][order]` (Rammer §3.2) as data: its entries, their attribute
//! encoding, and the checks and timing every consumer shares (the verifier, the scheduler's
//! tests, the lowering).
//!
//! Conventions (the paper leaves them open, digest §2.6 and §4.4):
//! - `order` counts the compute rTasks of one vEU from 0; a barrier-rTask takes no order
//!   slot. So `step[v] > o` (§4.1.3) holds exactly when the `o`-th compute rTask of vEU `v`
//!   has finished, as Fig. 9's comments number them.
//! - A barrier holds at most one pair per vEU (the §3.3 pruning, generalised: a vEU runs in
//!   order, so waiting on its latest awaited rTask covers the earlier ones) and none for its
//!   own vEU (program order already covers it).

use std::collections::HashMap;

use rtile::ir::attributes::Attribute;

/// The start time of every rTask, by `(rOperator, rTask id)`.
pub type StartTimes = HashMap<(String, u64), f64>;

/// One entry of a vEU's list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    /// rTasks `first .. first + count` of rOperator `op`, one after another.
    Tasks {
        /// The rOperator's symbol name.
        op: String,
        /// The first rTask id.
        first: u64,
        /// How many consecutive rTask ids.
        count: u64,
    },
    /// A barrier-rTask: waits until `step[veu] > order` for every pair (§3.2, §4.1.3).
    Barrier(Vec<(u64, u64)>),
}

/// One rProgram: one list of entries per vEU.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Program {
    /// `prog[vEU]`, in execution order.
    pub veus: Vec<Vec<Entry>>,
}

/// Where one rTask runs: its vEU, its order there, and its position in the vEU's list of
/// single entries (rTask ranges expanded).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// The vEU.
    pub veu: usize,
    /// Its order on the vEU (compute rTasks only).
    pub order: u64,
}

impl Program {
    /// An empty program on `n` vEUs.
    pub fn new(n: usize) -> Program {
        Program {
            veus: vec![Vec::new(); n],
        }
    }

    /// `Append(r, v)` (§3.3): rTask `id` of `op` at the end of `prog[v]`, merged into the
    /// last range when it continues it (the compact form).
    pub fn append(&mut self, op: &str, id: u64, v: usize) {
        let list = &mut self.veus[v];
        if let Some(Entry::Tasks {
            op: o,
            first,
            count,
        }) = list.last_mut()
            && o == op
            && *first + *count == id
        {
            *count += 1;
            return;
        }
        list.push(Entry::Tasks {
            op: op.to_string(),
            first: id,
            count: 1,
        });
    }

    /// Appends a barrier-rTask to `prog[v]` (what `Wait` does right before the waiting
    /// rTask is appended, §3.3).
    pub fn barrier(&mut self, v: usize, pairs: Vec<(u64, u64)>) {
        self.veus[v].push(Entry::Barrier(pairs));
    }

    /// Compute rTasks on vEU `v`.
    pub fn len_of(&self, v: usize) -> u64 {
        self.veus[v]
            .iter()
            .map(|e| match e {
                Entry::Tasks { count, .. } => *count,
                Entry::Barrier(_) => 0,
            })
            .sum()
    }

    /// vEUs with at least one entry.
    pub fn used_veus(&self) -> usize {
        self.veus.iter().filter(|l| !l.is_empty()).count()
    }

    /// True when some barrier waits on a vEU other than its own.
    pub fn has_cross_veu_barrier(&self) -> bool {
        self.veus.iter().enumerate().any(|(v, l)| {
            l.iter().any(|e| match e {
                Entry::Barrier(p) => p.iter().any(|&(u, _)| u as usize != v),
                Entry::Tasks { .. } => false,
            })
        })
    }

    /// Every rTask's placement, by `(op, id)`; an error names an rTask placed twice.
    pub fn placements(&self) -> Result<HashMap<(String, u64), Placement>, String> {
        let mut m = HashMap::new();
        for (v, list) in self.veus.iter().enumerate() {
            let mut order = 0;
            for e in list {
                let Entry::Tasks { op, first, count } = e else {
                    continue;
                };
                for id in *first..first + count {
                    let p = Placement { veu: v, order };
                    if let Some(q) = m.insert((op.clone(), id), p) {
                        return Err(format!(
                            "rTask {id} of @{op} is scheduled twice: <{}, {}> and <{v}, {order}>",
                            q.veu, q.order
                        ));
                    }
                    order += 1;
                }
            }
        }
        Ok(m)
    }

    /// The barriers' pairs refer to existing rTasks, name no vEU twice and not their own.
    pub fn check_barriers(&self) -> Result<(), String> {
        for (v, list) in self.veus.iter().enumerate() {
            for e in list {
                let Entry::Barrier(pairs) = e else { continue };
                if pairs.is_empty() {
                    return Err(format!(
                        "vEU {v}: a barrier-rTask with no <veu, order> pair"
                    ));
                }
                let mut seen = vec![false; self.veus.len()];
                for &(u, o) in pairs {
                    let ui = u as usize;
                    if ui >= self.veus.len() {
                        return Err(format!(
                            "vEU {v}: barrier waits on vEU {u}, but the program has {} vEUs",
                            self.veus.len()
                        ));
                    }
                    if ui == v {
                        return Err(format!(
                            "vEU {v}: barrier waits on its own vEU (program order already covers it)"
                        ));
                    }
                    if std::mem::replace(&mut seen[ui], true) {
                        return Err(format!(
                            "vEU {v}: barrier names vEU {u} twice (keep only the latest order, §3.3)"
                        ));
                    }
                    if o >= self.len_of(ui) {
                        return Err(format!(
                            "vEU {v}: barrier waits on <{u}, {o}>, but vEU {u} runs {} rTasks",
                            self.len_of(ui)
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// Runs the program with every vEU co-resident and rTask `(op, id)` taking `time(op)`
    /// (barriers take none): the start of each rTask, and the makespan. An error when some
    /// barrier can never pass (a cyclic wait: the launch would deadlock), naming it.
    pub fn simulate(&self, time: &dyn Fn(&str) -> f64) -> Result<(StartTimes, f64), String> {
        let n = self.veus.len();
        // Per vEU: index of the next entry, rTask within that entry, clock, ends by order.
        let mut pos = vec![(0usize, 0u64); n];
        let mut clock = vec![0f64; n];
        let mut ends: Vec<Vec<f64>> = vec![Vec::new(); n];
        let mut starts = HashMap::new();
        loop {
            let mut progressed = false;
            let mut done = true;
            for v in 0..n {
                while let Some(e) = self.veus[v].get(pos[v].0) {
                    match e {
                        Entry::Tasks { op, first, count } => {
                            let id = first + pos[v].1;
                            starts.insert((op.clone(), id), clock[v]);
                            clock[v] += time(op);
                            ends[v].push(clock[v]);
                            pos[v].1 += 1;
                            if pos[v].1 == *count {
                                pos[v] = (pos[v].0 + 1, 0);
                            }
                        }
                        Entry::Barrier(pairs) => {
                            let ready = pairs.iter().all(|&(u, o)| {
                                ends.get(u as usize).is_some_and(|l| (o as usize) < l.len())
                            });
                            if !ready {
                                done = false;
                                break;
                            }
                            for &(u, o) in pairs {
                                clock[v] = clock[v].max(ends[u as usize][o as usize]);
                            }
                            pos[v] = (pos[v].0 + 1, 0);
                        }
                    }
                    progressed = true;
                }
            }
            if done {
                let makespan = clock.iter().copied().fold(0.0, f64::max);
                return Ok((starts, makespan));
            }
            if !progressed {
                let v = (0..n).find(|&v| pos[v].0 < self.veus[v].len()).unwrap_or(0);
                return Err(format!(
                    "the barriers wait in a cycle (the launch would deadlock): vEU {v} waits at entry {} after {} rTasks, and no vEU can progress",
                    pos[v].0,
                    ends[v].len()
                ));
            }
        }
    }

    /// Every rTask of `op` ordered before every rTask of its successor: for each dependency
    /// `(pred, succ)` with both in this program, each rTask of `succ` runs after every rTask
    /// of `pred` on its own vEU, or after a barrier on its vEU that waits on an order at or
    /// past the predecessor's rTask on that vEU.
    pub fn check_dependencies(&self, deps: &[(String, String)]) -> Result<(), String> {
        let place = self.placements()?;
        // covered[v][k]: per vEU u, the highest order waited on by vEU v before its k-th rTask.
        let mut covered: Vec<Vec<Vec<Option<u64>>>> = Vec::new();
        for list in &self.veus {
            let mut cur = vec![None; self.veus.len()];
            let mut per = Vec::new();
            for e in list {
                match e {
                    Entry::Barrier(p) => {
                        for &(u, o) in p {
                            let c: &mut Option<u64> = &mut cur[u as usize];
                            *c = Some(c.map_or(o, |x| x.max(o)));
                        }
                    }
                    Entry::Tasks { count, .. } => {
                        per.extend((0..*count).map(|_| cur.clone()));
                    }
                }
            }
            covered.push(per);
        }
        for (pred, succ) in deps {
            let ps: Vec<_> = place.iter().filter(|(k, _)| &k.0 == pred).collect();
            for ((_, sid), s) in place.iter().filter(|(k, _)| &k.0 == succ) {
                for ((_, pid), p) in &ps {
                    let ok = if p.veu == s.veu {
                        p.order < s.order
                    } else {
                        covered[s.veu][s.order as usize][p.veu].is_some_and(|o| o >= p.order)
                    };
                    if !ok {
                        return Err(format!(
                            "rTask {sid} of @{succ} at <{}, {}> is not ordered after rTask {pid} of its predecessor @{pred} at <{}, {}>",
                            s.veu, s.order, p.veu, p.order
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// The `schedule` attribute: per vEU, an array whose entries are `[@op, first, count]`
    /// for rTasks and `array<i64: veu, order, ...>` for a barrier.
    pub fn to_attr(&self) -> Attribute {
        Attribute::array(
            self.veus
                .iter()
                .map(|l| {
                    Attribute::array(
                        l.iter()
                            .map(|e| match e {
                                Entry::Tasks { op, first, count } => Attribute::array(vec![
                                    Attribute::symbol(op.clone()),
                                    Attribute::i64(*first as i64),
                                    Attribute::i64(*count as i64),
                                ]),
                                Entry::Barrier(p) => Attribute::dense_i64_array(
                                    p.iter().flat_map(|&(u, o)| [u as i64, o as i64]).collect(),
                                ),
                            })
                            .collect(),
                    )
                })
                .collect(),
        )
    }

    /// Reads the `schedule` attribute.
    pub fn from_attr(a: &Attribute) -> Result<Program, String> {
        let lists = a
            .as_array()
            .ok_or("'schedule' must be an array with one array per vEU")?;
        let mut p = Program::default();
        for (v, l) in lists.iter().enumerate() {
            let items = l
                .as_array()
                .ok_or_else(|| format!("vEU {v}: expected an array of entries"))?;
            let mut list = Vec::new();
            for (i, e) in items.iter().enumerate() {
                list.push(entry_from_attr(e).map_err(|m| format!("vEU {v}, entry #{i}: {m}"))?);
            }
            p.veus.push(list);
        }
        Ok(p)
    }
}

fn entry_from_attr(e: &Attribute) -> Result<Entry, String> {
    if let Some(v) = e.as_dense_ints() {
        if v.is_empty() || v.len() % 2 != 0 || v.iter().any(|&x| x < 0) {
            return Err("a barrier is array<i64: veu, order, ...> with non-negative pairs".into());
        }
        return Ok(Entry::Barrier(
            v.chunks(2).map(|c| (c[0] as u64, c[1] as u64)).collect(),
        ));
    }
    match e.as_array() {
        Some([s, f, c]) => {
            let op = s
                .as_flat_symbol()
                .ok_or("rTasks start with an @rOperator")?;
            let (Some(f), Some(c)) = (f.as_int(), c.as_int()) else {
                return Err("rTasks are [@op, first, count] with integers".into());
            };
            if f < 0 || c < 1 {
                return Err("rTasks need first >= 0 and count >= 1".into());
            }
            Ok(Entry::Tasks {
                op: op.to_string(),
                first: f as u64,
                count: c as u64,
            })
        }
        _ => Err("expected [@op, first, count] or array<i64: veu, order, ...>".into()),
    }
}
