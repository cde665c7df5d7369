//! Algorithm 1's parts (digest `rammer.md` §7) and a property test over random
//! NASBench-like graphs (§5.2.5: at most 9 ops and 7 edges).

use proptest::prelude::*;
use rtile_dialects::vdevice::{Entry, RKernel};

use super::schedule::{
    BarrierPolicy, KernelPolicy, Op, Plan, Policy, merges, schedule, schedule_wave, wavefronts,
};

fn k(rtasks: u64, us: f64) -> RKernel {
    RKernel {
        rtasks,
        threads: 256,
        smem: 0,
        regs: 32,
        us,
    }
}

fn op(name: &str, deps: &[usize], kernels: Vec<RKernel>) -> Op {
    Op {
        name: name.into(),
        deps: deps.to_vec(),
        kernels,
    }
}

fn pol(veus: usize, launch_us: f64) -> Policy {
    Policy {
        veus,
        merge: true,
        kernels: KernelPolicy::Select,
        barriers: BarrierPolicy::Fine,
        launch_us,
    }
}

/// Fig. 9 through `Wait`/`Append` with the placement given explicitly (digest §7.6): the
/// pruned barriers are exactly the figure's `{<1, 3>}` and `{<0, 1>}`.
#[test]
fn fig9_wait_append() {
    let mut p = Plan::new(2);
    p.wait_append(0, "matmul", 0, 0, 1.0, &[]);
    p.wait_append(0, "matmul", 1, 0, 1.0, &[]);
    for i in 0..4 {
        p.wait_append(1, "relu", i, 1, 1.0, &[]);
    }
    let preds: Vec<(usize, u64, f64)> = vec![
        (0, 0, 1.0),
        (0, 1, 2.0),
        (1, 0, 1.0),
        (1, 1, 2.0),
        (1, 2, 3.0),
        (1, 3, 4.0),
    ];
    p.wait_append(2, "conv", 0, 0, 1.0, &preds);
    p.wait_append(2, "conv", 1, 1, 1.0, &preds);
    assert_eq!(p.prog.veus[0][1], Entry::Barrier(vec![(1, 3)]));
    assert_eq!(p.prog.veus[1][1], Entry::Barrier(vec![(0, 1)]));
    assert_eq!(p.prog.veus[0].len(), 3);
    assert_eq!(p.makespan(), 5.0);
}

/// Pruning: waiting on consecutive rTasks of one vEU keeps only the last (§3.3); a second
/// rTask on the same vEU needs no barrier for pairs already waited on.
#[test]
fn wait_list_pruning() {
    let mut p = Plan::new(3);
    for i in 0..3 {
        p.wait_append(0, "a", i, 1, 1.0, &[]);
    }
    let waits = [(1, 0, 1.0), (1, 1, 2.0), (1, 2, 3.0)];
    p.wait_append(1, "b", 0, 0, 1.0, &waits);
    p.wait_append(1, "b", 1, 0, 1.0, &waits);
    assert_eq!(p.prog.veus[0][0], Entry::Barrier(vec![(1, 2)]));
    // b[1] follows b[0] on vEU 0 with no second barrier.
    assert_eq!(p.prog.veus[0].len(), 2);
    // Waiting on its own vEU needs no barrier at all.
    p.wait_append(1, "b", 2, 1, 1.0, &waits);
    assert!(
        !p.prog.veus[1]
            .iter()
            .any(|e| matches!(e, Entry::Barrier(_)))
    );
}

/// SelectvEU: earliest available, lowest id on ties (digest §7.10): 8 equal rTasks on 4 idle
/// vEUs land 0,1,2,3,0,1,2,3.
#[test]
fn earliest_veu_tie_break() {
    let ops = vec![op("a", &[], vec![k(8, 1.0)])];
    let p = schedule_wave(&ops, &[0], &Plan::new(4), &pol(4, 0.0));
    for v in 0..4 {
        assert_eq!(
            p.prog.veus[v],
            vec![
                Entry::Tasks {
                    op: "a".into(),
                    first: v as u64,
                    count: 1
                },
                Entry::Tasks {
                    op: "a".into(),
                    first: v as u64 + 4,
                    count: 1
                }
            ]
        );
    }
    // Uneven times: the vEU that frees first gets the next rTask.
    let ops = vec![
        op("long", &[], vec![k(1, 5.0)]),
        op("short", &[], vec![k(3, 1.0)]),
    ];
    let p = schedule_wave(&ops, &[0, 1], &Plan::new(2), &pol(2, 0.0));
    assert_eq!(p.prog.len_of(0), 1);
    assert_eq!(p.prog.len_of(1), 3);
    assert_eq!(p.makespan(), 5.0);
}

/// The two-variant case of §5.2.4 / digest §7.11 (LSTM-TC Matmul: 1,024 rTasks in 4.28 µs
/// vs 16 rTasks in 7.46 µs alone), on 80 vEUs.
#[test]
fn select_rkernels_two_variants() {
    // 1024 rTasks in ⌈1024/80⌉ = 13 rounds: 4.28 µs alone.
    let fast = k(1024, 4.28 / 13.0);
    let eff = k(16, 7.46);
    let mm = |i: usize| op(&format!("mm{i}"), &[], vec![fast.clone(), eff.clone()]);
    // A wide wave (8 matmuls, as the LSTM's gates): 103 rounds of the fast kernel (33.9 µs)
    // vs 2 rounds of the efficient one (14.9 µs): the 16-rTask variant wins.
    let ops: Vec<Op> = (0..8).map(mm).collect();
    let w: Vec<usize> = (0..8).collect();
    let p = schedule_wave(&ops, &w, &Plan::new(80), &pol(80, 0.0));
    assert!(p.ops.iter().all(|&(_, k)| k == 1), "{:?}", p.ops);
    assert!((p.makespan() - 2.0 * 7.46).abs() < 1e-9);
    // Alone, the fast kernel is faster: profiling keeps it.
    let p = schedule_wave(&ops, &[0], &Plan::new(80), &pol(80, 0.0));
    assert_eq!(p.ops, vec![(0, 0)]);
    // RAMMER-fast never switches.
    let mut f = pol(80, 0.0);
    f.kernels = KernelPolicy::Fast;
    let p = schedule_wave(&ops, &w, &Plan::new(80), &f);
    assert!(p.ops.iter().all(|&(_, k)| k == 0));
    // When the fastest kernels cannot fill the vEUs, they are taken without profiling.
    let ops = vec![op("x", &[], vec![k(16, 1.0), k(4, 2.0)])];
    let p = schedule_wave(&ops, &[0], &Plan::new(80), &pol(80, 0.0));
    assert_eq!(p.ops, vec![(0, 0)]);
}

/// The merge rule `time(P1) ≤ time(Pcurr) + time(P2)` (line 6).
#[test]
fn merge_rule() {
    // A chain of tiny ops and a launch cost: one program.
    let chain: Vec<Op> = (0..5)
        .map(|i| {
            let deps: Vec<usize> = if i == 0 { vec![] } else { vec![i - 1] };
            op(&format!("c{i}"), &deps, vec![k(4, 1.0)])
        })
        .collect();
    let plans = schedule(&chain, &pol(8, 5.0)).unwrap();
    assert_eq!(plans.len(), 1);
    assert_eq!(plans[0].time(5.0), 5.0 + 5.0);
    // Saturating ops and no launch cost: merged = separate, so still merged (≤) ...
    let plans = schedule(&chain, &pol(4, 0.0)).unwrap();
    assert_eq!(plans.len(), 1);
    // ... but a program where merging is slower splits: a long op on vEU 0 and a dependent
    // op whose barrier must wait for it, vs. a fresh program on all vEUs.
    let a = Plan::new(2);
    let mut cur = a.clone();
    cur.wait_append(0, "x", 0, 0, 10.0, &[]);
    let mut p1 = cur.clone();
    p1.wait_append(1, "y", 0, 1, 1.0, &[(0, 0, 10.0)]);
    let mut p2 = a.clone();
    p2.wait_append(1, "y", 0, 0, 1.0, &[]);
    // 11 + L vs (10 + L) + (1 + L): merge for any L ≥ 0; equal at L = 0.
    assert!(merges(&p1, &cur, &p2, 0.0));
    // A merged program slower than the two launches is refused.
    let mut slow = p1.clone();
    slow.wait_append(1, "y", 1, 0, 5.0, &[]);
    assert!(!merges(&slow, &cur, &p2, 0.0));
    // RammerBase: one launch per op.
    let mut base = pol(8, 5.0);
    base.merge = false;
    assert_eq!(schedule(&chain, &base).unwrap().len(), 5);
}

/// Waves are Kahn levels: every predecessor in an earlier wave.
#[test]
fn waves_are_bfs_levels() {
    // 0 -> 1 -> 3, 0 -> 3, 2 alone: waves {0, 2}, {1}, {3}.
    let ops = vec![
        op("a", &[], vec![k(1, 1.0)]),
        op("b", &[0], vec![k(1, 1.0)]),
        op("c", &[], vec![k(1, 1.0)]),
        op("d", &[1, 0], vec![k(1, 1.0)]),
    ];
    assert_eq!(
        wavefronts(&ops).unwrap(),
        vec![vec![0, 2], vec![1], vec![3]]
    );
    let cyc = vec![
        op("a", &[1], vec![k(1, 1.0)]),
        op("b", &[0], vec![k(1, 1.0)]),
    ];
    assert!(wavefronts(&cyc).is_err());
}

/// Global barriers never beat fine ones (digest §7.16) on a Fig. 18-like DAG: two long ops
/// in consecutive waves on disjoint vEUs.
#[test]
fn fine_barriers_overlap_waves() {
    let ops = vec![
        op("stem1", &[], vec![k(1, 10.0)]),
        op("short", &[], vec![k(1, 1.0)]),
        op("stem2", &[1], vec![k(1, 10.0)]),
    ];
    let fine = schedule(&ops, &pol(2, 0.0)).unwrap();
    let mut g = pol(2, 0.0);
    g.barriers = BarrierPolicy::Global;
    let global = schedule(&ops, &g).unwrap();
    let t = |ps: &[Plan]| ps.iter().map(|p| p.time(0.0)).sum::<f64>();
    assert_eq!(t(&fine), 11.0);
    assert!(t(&global) > t(&fine), "{} vs {}", t(&global), t(&fine));
}

/// A random NASBench-like DAG (§5.2.5): up to 9 ops, up to 7 edges, random variants.
fn arb_graph() -> impl Strategy<Value = Vec<Op>> {
    (2usize..=9)
        .prop_flat_map(|n| {
            let edges = proptest::collection::vec((0..n, 0..n), 0..=7);
            let kernels =
                proptest::collection::vec(proptest::collection::vec((1u64..40, 1u32..20), 1..3), n);
            (Just(n), edges, kernels)
        })
        .prop_map(|(n, edges, kernels)| {
            (0..n)
                .map(|i| {
                    let mut deps: Vec<usize> = edges
                        .iter()
                        .filter(|&&(a, b)| a.max(b) == i && a != b)
                        .map(|&(a, b)| a.min(b))
                        .collect();
                    deps.sort();
                    deps.dedup();
                    let ks = kernels[i]
                        .iter()
                        .map(|&(r, t)| k(r, t as f64 / 4.0))
                        .collect();
                    op(&format!("op{i}"), &deps, ks)
                })
                .collect()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    /// Every schedule is valid: each rTask exactly once over all programs, every dependency
    /// ordered by a barrier or program order inside a program or by a program boundary,
    /// no cyclic waits, and the model's timing agrees with a replay of the program.
    #[test]
    fn schedules_are_valid(ops in arb_graph(), veus in 1usize..12, launch in 0u32..10,
                           merge in any::<bool>(), fine in any::<bool>(), select in any::<bool>()) {
        let p = Policy {
            veus,
            merge,
            kernels: if select { KernelPolicy::Select } else { KernelPolicy::Fast },
            barriers: if fine { BarrierPolicy::Fine } else { BarrierPolicy::Global },
            launch_us: launch as f64,
        };
        let plans = schedule(&ops, &p).unwrap();
        let mut program_of = vec![usize::MAX; ops.len()];
        for (i, plan) in plans.iter().enumerate() {
            prop_assert!(plan.prog.veus.len() <= veus);
            plan.prog.check_barriers().map_err(TestCaseError::fail)?;
            let place = plan.prog.placements().map_err(TestCaseError::fail)?;
            for &(o, kk) in &plan.ops {
                prop_assert_eq!(program_of[o], usize::MAX, "op scheduled twice");
                program_of[o] = i;
                let n = place.keys().filter(|x| x.0 == ops[o].name).count() as u64;
                prop_assert_eq!(n, ops[o].kernels[kk].rtasks);
            }
            prop_assert_eq!(place.len() as u64,
                plan.ops.iter().map(|&(o, kk)| ops[o].kernels[kk].rtasks).sum::<u64>());
            let deps: Vec<(String, String)> = plan.ops.iter().flat_map(|&(o, _)| {
                ops[o].deps.iter().map(move |&d| (d, o))
            }).map(|(d, o)| (ops[d].name.clone(), ops[o].name.clone())).collect();
            plan.prog.check_dependencies(&deps).map_err(TestCaseError::fail)?;
            let us = |name: &str| {
                let (o, kk) = plan.ops.iter().copied()
                    .find(|&(o, _)| ops[o].name == name).unwrap();
                ops[o].kernels[kk].us
            };
            let (_, makespan) = plan.prog.simulate(&us).map_err(TestCaseError::fail)?;
            prop_assert!((makespan - plan.makespan()).abs() < 1e-6,
                "replay {} vs model {}", makespan, plan.makespan());
        }
        for (o, x) in ops.iter().enumerate() {
            prop_assert!(program_of[o] != usize::MAX, "op {} never scheduled", o);
            for &d in &x.deps {
                prop_assert!(program_of[d] <= program_of[o], "dependency in a later program");
            }
        }
        if !merge {
            prop_assert_eq!(plans.len(), ops.len());
        }
    }
}

/// The te path's vDevice shape: many small vEUs for the best variants, or fewer large ones
/// that admit every variant, whichever the model says is faster.
#[test]
fn vdevice_shape_follows_the_faster_schedule() {
    let dev = crate::device::Device::builtin("v100").unwrap();
    let mut small = k(2560, 10.0);
    small.threads = 32;
    let mut big = k(80, 1.0);
    big.threads = 1024;
    let policy = |v: u64| {
        let mut p = pol(v as usize, 5.0);
        p.kernels = KernelPolicy::Fast;
        p
    };
    // Best-variant shape: 32-thread vEUs, 32 per SM (the block limit), 2560 vEUs: 10 µs.
    // Every-variant shape: 1024-thread vEUs, 2 per SM, 160 vEUs: the 80-rTask variant
    // becomes the fastest, 1 µs. The second wins.
    let ops = vec![op("a", &[], vec![small.clone(), big.clone()])];
    let (kept, vd, plans, launch) = super::pass::pack(&ops, &dev, policy).unwrap();
    assert_eq!((vd.threads, vd.veus_per_sm, vd.veus()), (1024, 2, 160));
    assert_eq!(kept[0].kernels.len(), 2);
    assert_eq!(plans[0].ops, vec![(0, 1)]);
    assert_eq!(plans[0].time(launch), 1.0 + 5.0);
    // With the big variant slow, the many small vEUs win and it is dropped.
    big.us = 100.0;
    let ops = vec![op("a", &[], vec![small, big])];
    let (kept, vd, plans, launch) = super::pass::pack(&ops, &dev, policy).unwrap();
    assert_eq!((vd.threads, vd.veus()), (32, 2560));
    assert_eq!(kept[0].kernels.len(), 1);
    assert_eq!(plans[0].time(launch), 10.0 + 5.0);
}

/// The threads of one op's best variant and the registers of another's can together
/// exceed an SM's register file (640 × 120 = 76,800 > v100's 65,536): neither shape of
/// best or every variant fits, so vEUs are capped at a variant's thread count and each op
/// takes its best variant under the cap. Found on a conv -> relu -> strided max-pool.
#[test]
fn variants_that_do_not_fit_one_vdevice_together_are_capped() {
    let dev = crate::device::Device::builtin("v100").unwrap();
    let kernel = |threads, regs, us| RKernel {
        threads,
        regs,
        ..k(40, us)
    };
    let policy = |v: u64| pol(v as usize, 5.0);
    let wide = op(
        "wide",
        &[],
        vec![kernel(640, 40, 1.0), kernel(128, 40, 2.0)],
    );
    let heavy = op("heavy", &[0], vec![kernel(64, 120, 1.0)]);
    let (kept, vd, _, _) = super::pass::pack(&[wide.clone(), heavy.clone()], &dev, policy)
        .expect("a shape under a cap fits");
    assert!(dev.blocks_that_fit(vd.threads, vd.smem, Some(vd.regs)) >= 1);
    assert_eq!((vd.threads, vd.regs, vd.veus_per_sm), (128, 120, 4));
    assert_eq!(kept[0].kernels, vec![kernel(128, 40, 2.0)]);
    // Nothing fits: the only variant needs 1024 threads at 120 registers.
    let huge = op("huge", &[], vec![kernel(1024, 120, 1.0)]);
    let e = super::pass::pack(&[huge], &dev, policy).unwrap_err();
    assert_eq!(
        e,
        "no vEU shape fits on one SM of 'v100': @huge needs 1024 threads per rTask and @huge 120 registers per thread, which one vEU (one block of the persistent kernel) cannot hold together; more rKernel variants (top-k) may fit"
    );
}

/// A profiled launch time becomes the rTask time over the variant's waves: 10,000 one-warp
/// rTasks on h100 run 132 SMs × 32 blocks (the block limit; 48 registers × 32 threads leave
/// room for 42) = 4,224 per wave, 3 waves; unprofiled variants keep the model's time.
#[test]
fn profiled_time_is_split_over_the_waves() {
    use super::pass::apply_profile;
    use super::profile::Profile;
    use rtile_dialects::rtile::attr::parse_program_body;
    let dev = crate::device::Device::builtin("h100").unwrap();
    let prog = |tiles: &str| {
        parse_program_body(&format!(
            "program<device = \"h100\", tiles = {tiles}, pad = [[0, 0], [0, 0]], grid = [100, 100], threads = 32, est_us = 9.0, epsilon = 0.2>"
        ))
        .unwrap()
    };
    let progs = [
        prog("[[8, 8, 4], [1, 2, 1]]"),
        prog("[[8, 8, 8], [1, 2, 1]]"),
    ];
    let k = RKernel {
        rtasks: 10_000,
        threads: 32,
        smem: 0,
        regs: 48,
        us: 3.0,
    };
    let mut ks = [k.clone(), k];
    let p = Profile::parse(
        "device = \"h100\"\n[[rkernel]]\nop = \"g_2\"\nblock = [8, 8, 4]\nthread = [1, 2, 1]\nus = 90.0\n",
        "p.toml",
    )
    .unwrap();
    assert_eq!(apply_profile(&p, "g_1", &mut ks, &progs, &dev), 0);
    assert_eq!(ks[0].us, 3.0);
    assert_eq!(apply_profile(&p, "g_2", &mut ks, &progs, &dev), 1);
    assert_eq!(ks[0].us, 30.0);
    assert_eq!(ks[1].us, 3.0);
}

/// `[1×K]·[K×N]`, the LSTM gates' shape (`lower_to_gpu/persistent/rtask.rs`'s tests).
fn gemv(k: u64, n: u64) -> rtile_dialects::te::model::TeCompute {
    let text = format!(
        "func.func @g(%x: tensor<1x{k}xf32>, %w: tensor<{k}x{n}xf32>) -> tensor<1x{n}xf32> {{
  %y = te.compute (%b, %n) reduce (%k) in [1, {n}, {k}] : (tensor<1x{k}xf32>, tensor<{k}x{n}xf32>) -> tensor<1x{n}xf32> {{ te.sum(%x[%b, %k] * %w[%k, %n]) }}
  func.return %y : tensor<1x{n}xf32>
}}"
    );
    rtile_dialects::te::module::parse_computes("g.mlir", &text)
        .unwrap_or_else(|e| panic!("{e}"))
        .remove(0)
        .compute
}

/// A GEMV's split rTasks are timed as they run, split (issue 15, session 19): the variant's
/// rTask time is the micro-performance model's estimate of the split block
/// (`construct_rtile::construct::estimate_program`) over the split kernel's waves (the
/// estimate's own), and it is below the unsplit program's rTask time; unsplit variants
/// keep Roller's `est_us` over their waves exactly.
#[test]
fn split_rtasks_are_timed_split() {
    use super::pass::{compute_variants, waves};
    use crate::construct_rtile::construct::estimate_program;
    use crate::construct_rtile::perf_model::Split;
    use crate::construct_rtile::te_adapter::expr_from_compute;
    use crate::lower_to_gpu::persistent::RTaskShape;
    use rtile_dialects::rtile::attr::round_estimate;
    // h100 has the load term (warp_load_gbps); v100 only the latency term.
    for (kk, n, device) in [(2048, 64, "h100"), (256, 256, "h200"), (2048, 64, "v100")] {
        let dev = crate::device::Device::builtin(device).unwrap();
        let c = gemv(kk, n);
        let e = expr_from_compute(&c).unwrap();
        let (ks, (progs, _)) = compute_variants(&c, &dev, 10).unwrap();
        let mut split = 0;
        for (k, p) in ks.iter().zip(&progs) {
            let at = format!("K={kk} N={n} on {device}: {p:?} {k:?}");
            let shape = RTaskShape::of(&c, p);
            let w = waves(k, &dev) as f64;
            if shape.split == 1 {
                assert_eq!(k.us, p.est_us / w, "{at}");
                continue;
            }
            split += 1;
            let est = estimate_program(
                &e,
                &dev,
                p,
                Split {
                    lanes: shape.split,
                    tree_bytes: shape.tree,
                },
            )
            .unwrap();
            assert_eq!(est.waves as f64, w, "{at}");
            assert!(est.tree_s > 0.0, "{at}");
            assert_eq!(k.us, round_estimate(est.total_s * 1e6) / w, "{at}");
            let unsplit = RKernel {
                threads: p.threads,
                smem: p.footprint[1],
                ..k.clone()
            };
            let unsplit_us = p.est_us / waves(&unsplit, &dev) as f64;
            assert!(k.us < unsplit_us, "{at}: unsplit {unsplit_us}");
        }
        assert!(split > 0, "K={kk} N={n} on {device}: no split variant");
    }
}
