//! `rtile-bench schedule`'s library function on one small pipeline: every scheduler's
//! result runs in the simulator and matches the f64 oracle, with real counts.

use rtile_tools::schedule_bench::{SCHEDULERS, ScheduleRow, bench_schedule, format_table};

const UNSHARP: &str = include_str!("../../bench/pipelines/unsharp_mask_small.mlir");

fn row<'a>(rows: &'a [ScheduleRow], s: &str) -> &'a ScheduleRow {
    rows.iter()
        .find(|r| r.scheduler == s)
        .expect("a row per scheduler")
}

#[test]
fn four_schedulers_on_unsharp_mask() {
    let inputs = vec![("unsharp_mask_small.mlir".to_string(), UNSHARP.to_string())];
    let r = bench_schedule(&inputs, "v100", 0);
    assert_eq!(r.rows.len(), SCHEDULERS.len());
    // Sectors the input (3x40x48 f32) must be read in and the output (3x32x40 f32)
    // written out with, at least: 32-byte sectors.
    let floor = (3 * 40 * 48 * 4 + 3 * 32 * 40 * 4) / 32;
    for r in &r.rows {
        assert!(r.error.is_none(), "{}: {:?}", r.scheduler, r.error);
        assert!(r.matched, "{}: max err {:?}", r.scheduler, r.max_rel_err);
        assert!(r.max_rel_err.unwrap() < 1e-5);
        assert!(r.schedule_ms.unwrap() >= 0.0);
        let sectors = r.sectors.unwrap();
        assert!(sectors >= floor, "{}: {sectors} < {floor}", r.scheduler);
        // Distinct sectors: at least the floor, at most what the requests touched.
        let dram = r.dram_sectors.unwrap();
        assert!(dram >= floor, "{}: {dram} < {floor}", r.scheduler);
        assert!(dram <= sectors, "{}: {dram} > {sectors}", r.scheduler);
        assert!(r.kernels.unwrap() >= 1);
    }
    // Roller: one kernel per te op (the pipeline has six), each with an estimate.
    let roller = row(&r.rows, "roller");
    assert_eq!(roller.kernels, Some(UNSHARP.matches("te.compute").count()));
    assert_eq!(roller.kernels, Some(6));
    assert!(roller.predicted_us.unwrap() > 0.0);
    assert_eq!(roller.states, None);
    // Welder gives no time estimate and evaluates no states.
    let welder = row(&r.rows, "welder");
    assert_eq!((welder.states, welder.predicted_us), (None, None));
    // The beam (k = 32) evaluates more states than the greedy search (k = 1).
    let greedy = row(&r.rows, "halide-greedy");
    let beam = row(&r.rows, "halide-beam");
    assert!(greedy.states.unwrap() > 0);
    assert!(beam.states.unwrap() > greedy.states.unwrap());
    assert!(beam.predicted_us.unwrap() > 0.0);
    let table = format_table(&r);
    assert!(table.contains("scheduler"));
    assert_eq!(
        table
            .lines()
            .filter(|l| l.starts_with("unsharp_mask_small"))
            .count(),
        4
    );
}

#[test]
fn failures_are_rows_not_panics() {
    let inputs = vec![
        ("bad.mlir".to_string(), "func.func @f( {".to_string()),
        ("unsharp_mask_small.mlir".to_string(), UNSHARP.to_string()),
    ];
    let r = bench_schedule(&inputs, "no-such-gpu", 0);
    assert_eq!(r.rows.len(), 8);
    for r in &r.rows {
        assert!(!r.matched);
        assert!(r.error.is_some(), "{}", r.scheduler);
    }
    let table = format_table(&r);
    assert_eq!(table.matches("failed:").count(), 8);
}
