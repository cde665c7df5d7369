//! Planted bugs: hand-written kernels (generic MLIR) with a missing barrier, an off-by-one
//! store and an uninitialised shared read are each caught by the simulator with the right
//! error at the right op; the correct kernel runs clean and computes the right values.

use rtile_runtime::sim::{self, SimErrorKind, compile_kernel, launch_of, run};

/// `out[t] = sh[(t + 1) % 32]` after `sh[t] = in[t]`, one block of 32 threads. `{store}`
/// writes to shared memory (guarded by `{guard}`), `{barrier}` separates the phases, and
/// `{out_idx}` is the output index.
fn kernel(barrier: bool, out_off_by_one: bool, skip_last_write: bool) -> String {
    let barrier = if barrier {
        r#"      "gpu.barrier"() {loc = "the-barrier"} : () -> ()"#
    } else {
        ""
    };
    let out_idx = if out_off_by_one { "%t1" } else { "%t" };
    let limit = if skip_last_write { "%c31" } else { "%c32" };
    format!(
        r#""builtin.module"() ({{
  "gpu.module"() <{{sym_name = "m"}}> ({{
    "gpu.func"() <{{function_type = (memref<32xf32>, memref<32xf32>) -> ()}}> ({{
    ^bb0(%in: memref<32xf32>, %out: memref<32xf32>, %sh: memref<32xf32, #gpu.address_space<workgroup>>):
      %t = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
      %c1 = "arith.constant"() <{{value = 1 : index}}> : () -> index
      %c31 = "arith.constant"() <{{value = 31 : index}}> : () -> index
      %c32 = "arith.constant"() <{{value = 32 : index}}> : () -> index
      %t1 = "arith.addi"(%t, %c1) : (index, index) -> index
      %n = "arith.remui"(%t1, %c32) : (index, index) -> index
      %ok = "arith.cmpi"(%t, {limit}) <{{predicate = 6 : i64}}> : (index, index) -> i1
      "scf.if"(%ok) ({{
        %v = "memref.load"(%in, %t) : (memref<32xf32>, index) -> f32
        "memref.store"(%v, %sh, %t) : (f32, memref<32xf32, #gpu.address_space<workgroup>>, index) -> ()
        "scf.yield"() : () -> ()
      }}, {{
      }}) : (i1) -> ()
{barrier}
      %w = "memref.load"(%sh, %n) : (memref<32xf32, #gpu.address_space<workgroup>>, index) -> f32
      "memref.store"(%w, %out, {out_idx}) : (f32, memref<32xf32>, index) -> ()
      "gpu.return"() : () -> ()
    }}) {{gpu.kernel, rtile.launch = {{block = array<i32: 32, 1, 1>, dynamic_shared_memory = 0 : i64, grid = array<i32: 2, 1, 1>}}, sym_name = "k", workgroup_attributions = 1 : i64}} : () -> ()
  }}) : () -> ()
}}) : () -> ()
"#
    )
}

/// The output, or the error kind, message and source line of the failing op.
type Outcome = Result<Vec<f64>, (SimErrorKind, String, String)>;

fn run_text(text: &str) -> (Outcome, rtile::ir::Context) {
    let mut ctx = sim::check::context();
    let m = rtile::parser::parse_str(&mut ctx, "k.mlir", text).expect("parses");
    rtile::verifier::verify(&ctx, m.module).expect("verifies");
    let f = sim::kernels(&ctx, m.module)[0];
    let k = compile_kernel(&ctx, f).expect("compiles");
    let l = launch_of(&ctx, f).expect("launch");
    let mut args = vec![(0..32).map(|i| i as f64).collect(), vec![f64::NAN; 32]];
    let r = match run(&k, &l, &mut args) {
        Ok(()) => Ok(args.pop().unwrap_or_default()),
        Err(e) => {
            let d = sim::to_diagnostic(&ctx, &k, &e);
            // The whole source line of the op the error points at.
            let span = d.span.map(|s| {
                let text = &ctx.sources[s.file as usize].text;
                let start = text[..s.start as usize].rfind('\n').map_or(0, |i| i + 1);
                let end = text[s.start as usize..]
                    .find('\n')
                    .map_or(text.len(), |i| i + s.start as usize);
                text[start..end].to_string()
            });
            Err((e.kind, d.message, span.unwrap_or_default()))
        }
    };
    (r, ctx)
}

#[test]
fn correct_kernel_runs_clean() {
    let (r, _) = run_text(&kernel(true, false, false));
    let out = r.expect("no simulator error");
    let want: Vec<f64> = (0..32).map(|i| ((i + 1) % 32) as f64).collect();
    assert_eq!(out, want);
}

#[test]
fn missing_barrier_is_a_race() {
    let (r, _) = run_text(&kernel(false, false, false));
    let (kind, msg, span) = r.expect_err("race must be caught");
    assert_eq!(kind, SimErrorKind::DataRace, "{msg}");
    assert!(msg.contains("data race"), "{msg}");
    // Threads run one after another: thread 0 reads sh[1] before thread 1 writes it, so the
    // race is reported at the write, naming the reader.
    assert!(
        msg.contains("thread [1, 0, 0] writes where thread [0, 0, 0] read"),
        "{msg}"
    );
    assert!(
        span.contains("memref.store") && span.contains("%sh"),
        "{span}"
    );
}

#[test]
fn off_by_one_store_is_out_of_bounds() {
    let (r, _) = run_text(&kernel(true, true, false));
    let (kind, msg, span) = r.expect_err("OOB must be caught");
    assert_eq!(kind, SimErrorKind::OutOfBounds, "{msg}");
    assert!(
        msg.contains("out-of-bounds store of memref<32xf32> at [32]"),
        "{msg}"
    );
    assert!(msg.contains("thread (31, 0, 0)"), "{msg}");
    assert!(
        span.contains("memref.store") && span.contains("%out"),
        "{span}"
    );
}

#[test]
fn uninitialised_shared_read_is_caught() {
    let (r, _) = run_text(&kernel(true, false, true));
    let (kind, msg, span) = r.expect_err("uninitialised read must be caught");
    assert_eq!(kind, SimErrorKind::UninitializedRead, "{msg}");
    assert!(
        msg.contains("uninitialised shared memory") && msg.contains("at [31]"),
        "{msg}"
    );
    assert!(msg.contains("thread (30, 0, 0)"), "{msg}");
    assert!(span.contains("%sh"), "{span}");
}

#[test]
fn divergent_barrier_is_caught() {
    // Threads below 31 wait at a barrier inside the scf.if; thread 31 at the one after it.
    let text = kernel(true, false, true).replace(
        "        \"scf.yield\"() : () -> ()\n      }, {",
        "        \"gpu.barrier\"() : () -> ()\n        \"scf.yield\"() : () -> ()\n      }, {",
    );
    let (r, _) = run_text(&text);
    let (kind, msg, _) = r.expect_err("divergence must be caught");
    assert_eq!(kind, SimErrorKind::BarrierDivergence, "{msg}");
}
