//! rProgram model: Append merging, barrier checks, timing, deadlock and dependency checks.

use super::{Entry, Program, VDevice};

/// Fig. 9 of the paper: Matmul (2 rTasks) on vEU 0, Relu (4) on vEU 1, then Conv (2) on both.
fn fig9() -> Program {
    let mut p = Program::new(2);
    p.append("matmul", 0, 0);
    p.append("matmul", 1, 0);
    for i in 0..4 {
        p.append("relu", i, 1);
    }
    p.barrier(0, vec![(1, 3)]);
    p.append("conv", 0, 0);
    p.barrier(1, vec![(0, 1)]);
    p.append("conv", 1, 1);
    p
}

#[test]
fn append_merges_consecutive_ids_into_one_range() {
    let p = fig9();
    assert_eq!(
        p.veus[1][0],
        Entry::Tasks {
            op: "relu".into(),
            first: 0,
            count: 4
        }
    );
    assert_eq!(p.len_of(0), 3);
    assert_eq!(p.len_of(1), 5);
    // Orders count compute rTasks only: Conv 1 is order 4 on vEU 1.
    let place = p.placements().unwrap();
    assert_eq!(place[&("conv".to_string(), 1)].order, 4);
    assert_eq!(place[&("conv".to_string(), 0)].order, 2);
}

#[test]
fn attribute_round_trip() {
    let p = fig9();
    assert_eq!(Program::from_attr(&p.to_attr()).unwrap(), p);
}

#[test]
fn fig9_timing_and_dependencies() {
    let p = fig9();
    // 1 µs per rTask: Matmul ends at 2 on vEU 0, Relu at 4 on vEU 1; both Convs start at 4.
    let (starts, makespan) = p.simulate(&|_| 1.0).unwrap();
    assert_eq!(starts[&("conv".to_string(), 0)], 4.0);
    assert_eq!(starts[&("conv".to_string(), 1)], 4.0);
    assert_eq!(makespan, 5.0);
    let deps = [
        ("matmul".to_string(), "conv".to_string()),
        ("relu".to_string(), "conv".to_string()),
    ];
    p.check_dependencies(&deps).unwrap();
    p.check_barriers().unwrap();
}

#[test]
fn a_missing_barrier_breaks_a_dependency() {
    let mut p = Program::new(2);
    p.append("a", 0, 0);
    p.append("b", 0, 1);
    let e = p
        .check_dependencies(&[("a".into(), "b".into())])
        .unwrap_err();
    assert!(
        e.contains("not ordered after rTask 0 of its predecessor @a"),
        "{e}"
    );
    // A barrier on an earlier order than the producer's is not enough either.
    let mut q = Program::new(2);
    q.append("x", 0, 0);
    q.append("a", 0, 0);
    q.barrier(1, vec![(0, 0)]);
    q.append("b", 0, 1);
    assert!(q.check_dependencies(&[("a".into(), "b".into())]).is_err());
}

#[test]
fn cyclic_barriers_are_a_deadlock() {
    let mut p = Program::new(2);
    p.barrier(0, vec![(1, 0)]);
    p.append("a", 0, 0);
    p.barrier(1, vec![(0, 0)]);
    p.append("b", 0, 1);
    let e = p.simulate(&|_| 1.0).unwrap_err();
    assert!(e.contains("deadlock"), "{e}");
}

#[test]
fn barrier_rules() {
    let mut p = Program::new(2);
    p.append("a", 0, 0);
    p.barrier(1, vec![(0, 1)]);
    assert!(
        p.check_barriers()
            .unwrap_err()
            .contains("vEU 0 runs 1 rTasks")
    );
    let mut q = Program::new(2);
    q.append("a", 0, 0);
    q.barrier(0, vec![(0, 0)]);
    assert!(q.check_barriers().unwrap_err().contains("its own vEU"));
    let mut r = Program::new(3);
    r.append("a", 0, 0);
    r.append("a", 1, 0);
    r.barrier(1, vec![(0, 0), (0, 1)]);
    assert!(r.check_barriers().unwrap_err().contains("twice"));
}

#[test]
fn occupancy_is_the_tightest_sm_limit() {
    // V100: 32 blocks, 2048 threads, 64 K registers, 96 KB shared memory per SM.
    let mut d = VDevice {
        sms: 80,
        veus_per_sm: 1,
        threads: 256,
        smem: 0,
        regs: 32,
        sm_limits: [32, 2048, 65536, 98304],
    };
    assert_eq!(d.occupancy(), 8); // threads and registers: 2048 / 256, 65536 / (256 · 32)
    d.regs = 64;
    assert_eq!(d.occupancy(), 4); // registers
    d.smem = 40000;
    assert_eq!(d.occupancy(), 2); // shared memory
    assert_eq!(d.capacity(), 160);
}
