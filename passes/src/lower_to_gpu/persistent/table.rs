//! The schedule table of a persistent kernel: a `vdevice.program`'s per-vEU rTask lists as
//! data (`i32`s in a host `memref.global constant`, passed to the kernel), so that the
//! kernel holds each rOperator's body once and one loop per vEU walks its list (see the
//! `persistent` module's doc for why a table and not a device function per rOperator).
//!
//! Layout, for `V` vEUs and `E` entries in all:
//! - `[0, V]`: `start[v]`, the index of vEU `v`'s first entry (`start[V] = E`), so vEU `v`
//!   runs entries `start[v] .. start[v + 1]`;
//! - `V + 1 + 3e ..`: entry `e` = `(kind, a, n)`: `kind < ops` is rOperator `kind` (the
//!   kernel's switch order) running rTasks `a .. a + n`; `kind = ops` is a barrier-rTask
//!   over pairs `a .. a + n`;
//! - `V + 1 + 3E + 2p ..`: pair `p` = `(veu, order)`: wait until `step[veu] > order`.

use rtile_dialects::vdevice::{Entry, Program};

/// A program's table and where its parts start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Table {
    pub data: Vec<i32>,
    /// Index of entry 0's first word (`V + 1`).
    pub entries_at: usize,
    /// Index of pair 0's first word.
    pub pairs_at: usize,
}

/// `x` as a table word; an error naming `what` when it does not fit an `i32`.
fn word(x: u64, what: &str) -> Result<i32, String> {
    i32::try_from(x).map_err(|_| format!("{what} {x} does not fit the schedule table (i32)"))
}

/// The table of `program`; `kind(op)` is rOperator `op`'s index in the kernel's switch
/// (`None`: not lowered), `ops` their count (the barrier kind).
pub(crate) fn build(
    program: &Program,
    kind: impl Fn(&str) -> Option<usize>,
    ops: usize,
) -> Result<Table, String> {
    let veus = program.veus.len();
    let mut start = Vec::with_capacity(veus + 1);
    let mut entries = Vec::new();
    let mut pairs = Vec::new();
    for list in &program.veus {
        start.push(word((entries.len() / 3) as u64, "entry index")?);
        for e in list {
            match e {
                Entry::Tasks { op, first, count } => {
                    let k =
                        kind(op).ok_or_else(|| format!("rOperator @{op} has no lowered kernel"))?;
                    entries.extend([
                        word(k as u64, "rOperator index")?,
                        word(*first, "rTask id")?,
                        word(*count, "rTask count")?,
                    ]);
                }
                Entry::Barrier(ps) => {
                    entries.extend([
                        word(ops as u64, "rOperator count")?,
                        word((pairs.len() / 2) as u64, "pair index")?,
                        word(ps.len() as u64, "pair count")?,
                    ]);
                    for &(u, o) in ps {
                        pairs.extend([word(u, "vEU")?, word(o, "barrier order")?]);
                    }
                }
            }
        }
    }
    start.push(word((entries.len() / 3) as u64, "entry index")?);
    let entries_at = start.len();
    let pairs_at = entries_at + entries.len();
    let mut data = start;
    data.extend(entries);
    data.extend(pairs);
    word(data.len() as u64, "table length")?;
    Ok(Table {
        data,
        entries_at,
        pairs_at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads the table back into per-vEU lists, independently of [`build`]'s loop.
    fn decode(t: &Table, names: &[&str]) -> Vec<Vec<Entry>> {
        let veus = t.entries_at - 1;
        (0..veus)
            .map(|v| {
                (t.data[v]..t.data[v + 1])
                    .map(|e| {
                        let at = t.entries_at + 3 * e as usize;
                        let [k, a, n] = [t.data[at], t.data[at + 1], t.data[at + 2]];
                        if (k as usize) < names.len() {
                            Entry::Tasks {
                                op: names[k as usize].to_string(),
                                first: a as u64,
                                count: n as u64,
                            }
                        } else {
                            let p = |i: i32| t.pairs_at + 2 * i as usize;
                            Entry::Barrier(
                                (a..a + n)
                                    .map(|i| (t.data[p(i)] as u64, t.data[p(i) + 1] as u64))
                                    .collect(),
                            )
                        }
                    })
                    .collect()
            })
            .collect()
    }

    fn tasks(op: &str, first: u64, count: u64) -> Entry {
        Entry::Tasks {
            op: op.into(),
            first,
            count,
        }
    }

    #[test]
    fn fig9_like_program_round_trips_with_the_documented_layout() {
        let names = ["a", "b"];
        let program = Program {
            veus: vec![
                vec![tasks("a", 0, 2), tasks("b", 0, 1)],
                vec![],
                vec![Entry::Barrier(vec![(0, 1), (3, 0)]), tasks("b", 1, 3)],
                vec![Entry::Barrier(vec![(2, 0)])],
            ],
        };
        let kind = |o: &str| names.iter().position(|n| *n == o);
        let t = build(&program, kind, 2).unwrap();
        assert_eq!(
            t.data,
            vec![
                0, 2, 2, 4, 5, // starts
                0, 0, 2, 1, 0, 1, // vEU 0
                2, 0, 2, 1, 1, 3, // vEU 2
                2, 2, 1, // vEU 3
                0, 1, 3, 0, 2, 0, // pairs
            ]
        );
        assert_eq!((t.entries_at, t.pairs_at), (5, 20));
        assert_eq!(decode(&t, &names), program.veus);
    }

    #[test]
    fn unknown_operator_and_overflow_are_errors() {
        let program = Program {
            veus: vec![vec![tasks("x", 0, 1)]],
        };
        let e = build(&program, |_| None, 0).unwrap_err();
        assert!(e.contains("@x has no lowered kernel"), "{e}");
        let big = Program {
            veus: vec![vec![tasks("x", 1 << 31, 1)]],
        };
        let e = build(&big, |_| Some(0), 1).unwrap_err();
        assert!(e.contains("rTask id 2147483648 does not fit"), "{e}");
    }
}
