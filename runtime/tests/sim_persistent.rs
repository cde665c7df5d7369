//! Persistent kernels in the simulator (`sim::concurrent`): hand-written two-block kernels
//! in the shape `--lower-to-gpu` gives a `vdevice.program` (Rammer, OSDI'20 §4.1.3): a
//! producer block writes `out[0..32]`, fences and bumps `step[0]`; a consumer block spins
//! until `step[0] > 0` and copies the producer's values, doubled, into `out[32..64]`.
//! Blocks are interleaved, so the consumer sees the producer's writes whichever runs first;
//! a planted wrong wait order (each block waits for the other) and an over-subscribed grid
//! (the consumer resident, the producer not) are reported as deadlocks, not hangs.

use rtile_runtime::sim::{self, SimErrorKind, compile_kernel, launch_of, run};

/// The kernel: block `p` produces, block `1 - p` consumes; `wait_in_producer` plants a
/// wait on the consumer's step before the producer's work (a cyclic wait); `coresident`
/// is the `rtile.persistent` capacity.
fn kernel(p: u32, wait_in_producer: bool, coresident: u32) -> String {
    kernel_with(p, wait_in_producer, coresident, false)
}

/// [`kernel`], with `dynamic`: each wait marked `rtile.wait = array<i64>` (its pair is
/// data, as a schedule table's: the spin's atomic index and compared order registers).
fn kernel_with(p: u32, wait_in_producer: bool, coresident: u32, dynamic: bool) -> String {
    let c = 1 - p;
    let spin = |v: u32, o: u32| {
        let mark = if dynamic {
            "array<i64>".to_string()
        } else {
            format!("array<i64: {v}, {o}>")
        };
        format!(
            r#"      %is0_{v} = "arith.cmpi"(%t, %c0) <{{predicate = 0 : i64}}> : (index, index) -> i1
      "scf.if"(%is0_{v}) ({{
        "scf.while"() ({{
          %s = "memref.atomic_rmw"(%z, %step, %c{v}) <{{kind = 14 : i64}}> : (i32, memref<2xi32>, index) -> i32
          %again = "arith.cmpi"(%s, %o{o}) <{{predicate = 3 : i64}}> : (i32, i32) -> i1
          "scf.condition"(%again) : (i1) -> ()
        }}, {{
          "scf.yield"() : () -> ()
        }}) {{rtile.wait = {mark}}} : () -> ()
        "llvm.fence"() <{{ordering = 4 : i64, syncscope = "agent"}}> : () -> ()
        "scf.yield"() : () -> ()
      }}, {{
      }}) : (i1) -> ()
      "gpu.barrier"() : () -> ()
"#
        )
    };
    let planted = if wait_in_producer {
        spin(c, 0)
    } else {
        String::new()
    };
    let wait = spin(p, 0);
    format!(
        r#""builtin.module"() ({{
  "gpu.module"() <{{sym_name = "m"}}> ({{
    "gpu.func"() <{{function_type = (memref<2xi32>, memref<32xf32>, memref<64xf32>) -> ()}}> ({{
    ^bb0(%step: memref<2xi32>, %in: memref<32xf32>, %out: memref<64xf32>):
      %b = "gpu.block_id"() <{{dimension = #gpu<dim x>}}> : () -> index
      %t = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
      %c0 = "arith.constant"() <{{value = 0 : index}}> : () -> index
      %c1 = "arith.constant"() <{{value = 1 : index}}> : () -> index
      %c32 = "arith.constant"() <{{value = 32 : index}}> : () -> index
      %z = "arith.constant"() <{{value = 0 : i32}}> : () -> i32
      %o0 = "arith.constant"() <{{value = 0 : i32}}> : () -> i32
      %one = "arith.constant"() <{{value = 1 : i32}}> : () -> i32
      %two = "arith.constant"() <{{value = 2.0 : f32}}> : () -> f32
      %cp = "arith.constant"() <{{value = {p} : index}}> : () -> index
      %cc = "arith.constant"() <{{value = {c} : index}}> : () -> index
      %isp = "arith.cmpi"(%b, %cp) <{{predicate = 0 : i64}}> : (index, index) -> i1
      "scf.if"(%isp) ({{
{planted}        %v = "memref.load"(%in, %t) : (memref<32xf32>, index) -> f32
        "memref.store"(%v, %out, %t) : (f32, memref<64xf32>, index) -> ()
        "gpu.barrier"() : () -> ()
        %is0 = "arith.cmpi"(%t, %c0) <{{predicate = 0 : i64}}> : (index, index) -> i1
        "scf.if"(%is0) ({{
          "llvm.fence"() <{{ordering = 5 : i64, syncscope = "agent"}}> : () -> ()
          %old = "memref.atomic_rmw"(%one, %step, %cp) <{{kind = 1 : i64}}> : (i32, memref<2xi32>, index) -> i32
          "scf.yield"() : () -> ()
        }}, {{
        }}) : (i1) -> ()
        "scf.yield"() : () -> ()
      }}, {{
      }}) : (i1) -> ()
      %isc = "arith.cmpi"(%b, %cc) <{{predicate = 0 : i64}}> : (index, index) -> i1
      "scf.if"(%isc) ({{
{wait}        %w = "memref.load"(%out, %t) : (memref<64xf32>, index) -> f32
        %d = "arith.mulf"(%w, %two) : (f32, f32) -> f32
        %i = "arith.addi"(%t, %c32) : (index, index) -> index
        "memref.store"(%d, %out, %i) : (f32, memref<64xf32>, index) -> ()
        "scf.yield"() : () -> ()
      }}, {{
      }}) : (i1) -> ()
      "gpu.return"() : () -> ()
    }}) {{gpu.kernel, rtile.launch = {{block = array<i32: 32, 1, 1>, dynamic_shared_memory = 0 : i64, grid = array<i32: 2, 1, 1>}}, rtile.persistent = {{coresident = {coresident} : i64}}, sym_name = "k", workgroup_attributions = 0 : i64}} : () -> ()
  }}) : () -> ()
}}) : () -> ()
"#
    )
}

/// Runs the kernel on `in[i] = i + 1`; the output or the error kind and message.
fn run_text(text: &str) -> Result<Vec<f64>, (SimErrorKind, String)> {
    let mut ctx = sim::check::context();
    let m = rtile::parser::parse_str(&mut ctx, "k.mlir", text).expect("parses");
    rtile::verifier::verify(&ctx, m.module).expect("verifies");
    let f = sim::kernels(&ctx, m.module)[0];
    let k = compile_kernel(&ctx, f).expect("compiles");
    let l = launch_of(&ctx, f).expect("launch");
    let mut args = vec![
        vec![0.0; 2],
        (0..32).map(|i| f64::from(i + 1)).collect(),
        vec![f64::NAN; 64],
    ];
    match run(&k, &l, &mut args) {
        Ok(()) => Ok(args.pop().unwrap_or_default()),
        Err(e) => Err((e.kind, sim::to_diagnostic(&ctx, &k, &e).message)),
    }
}

fn want() -> Vec<f64> {
    (0..64)
        .map(|i| f64::from(i % 32 + 1) * if i < 32 { 1.0 } else { 2.0 })
        .collect()
}

#[test]
fn consumer_sees_the_producer_whichever_block_runs_first() {
    // Producer block 0 (runs first) and producer block 1 (the consumer, block 0, spins
    // first and must let block 1 run).
    for p in [0, 1] {
        let out = run_text(&kernel(p, false, 2)).expect("no deadlock");
        assert_eq!(out, want(), "producer block {p}");
    }
}

#[test]
fn cyclic_wait_is_a_deadlock_naming_the_waits() {
    let (kind, msg) = run_text(&kernel(0, true, 2)).expect_err("must deadlock");
    assert_eq!(kind, SimErrorKind::Deadlock, "{msg}");
    assert!(msg.contains("vEU 0 waits for step[1] > 0"), "{msg}");
    assert!(msg.contains("vEU 1 waits for step[0] > 0"), "{msg}");
}

#[test]
fn cyclic_dynamic_wait_is_a_deadlock_naming_the_pairs_from_registers() {
    let (kind, msg) = run_text(&kernel_with(0, true, 2, true)).expect_err("must deadlock");
    assert_eq!(kind, SimErrorKind::Deadlock, "{msg}");
    assert!(msg.contains("vEU 0 waits for step[1] > 0"), "{msg}");
    assert!(msg.contains("vEU 1 waits for step[0] > 0"), "{msg}");
    // Without the planted wait the same kernel runs through.
    assert_eq!(
        run_text(&kernel_with(1, false, 2, true)).expect("runs"),
        want()
    );
}

#[test]
fn over_subscribed_grid_deadlocks_when_the_waiter_holds_the_only_slot() {
    // One block co-resident: block 0 (the consumer) waits for block 1, which cannot start.
    let (kind, msg) = run_text(&kernel(1, false, 1)).expect_err("must deadlock");
    assert_eq!(kind, SimErrorKind::Deadlock, "{msg}");
    assert!(msg.contains("vEU 0 waits for step[1] > 0"), "{msg}");
    assert!(msg.contains("1 more blocks cannot start"), "{msg}");
    // With the producer first, one slot is enough: it ends, then the consumer runs.
    assert_eq!(run_text(&kernel(0, false, 1)).expect("runs"), want());
}
