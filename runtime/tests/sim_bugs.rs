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

/// The kernel above with its shared buffer a `memref.view` at byte `off` of dynamic shared
/// memory (the launch gives `dsm` bytes), read back through a second view of the same
/// storage at byte `read_off` with element type `read_ty` (the output's type).
fn dyn_kernel(barrier: bool, off: i64, dsm: u64, read_off: i64, read_ty: &str) -> String {
    let barrier = if barrier {
        r#"      "gpu.barrier"() : () -> ()"#
    } else {
        ""
    };
    let base = "memref<?xi8, #gpu.address_space<workgroup>>";
    format!(
        r#""builtin.module"() ({{
  "gpu.module"() <{{sym_name = "m"}}> ({{
    "gpu.func"() <{{function_type = (memref<32xf32>, memref<32x{read_ty}>) -> ()}}> ({{
    ^bb0(%in: memref<32xf32>, %out: memref<32x{read_ty}>):
      %base = "gpu.dynamic_shared_memory"() : () -> {base}
      %off = "arith.constant"() <{{value = {off} : index}}> : () -> index
      %roff = "arith.constant"() <{{value = {read_off} : index}}> : () -> index
      %sh = "memref.view"(%base, %off) {{loc = "the-view"}} : ({base}, index) -> memref<32xf32, #gpu.address_space<workgroup>>
      %rd = "memref.view"(%base, %roff) : ({base}, index) -> memref<32x{read_ty}, #gpu.address_space<workgroup>>
      %t = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
      %c1 = "arith.constant"() <{{value = 1 : index}}> : () -> index
      %c32 = "arith.constant"() <{{value = 32 : index}}> : () -> index
      %t1 = "arith.addi"(%t, %c1) : (index, index) -> index
      %n = "arith.remui"(%t1, %c32) : (index, index) -> index
      %v = "memref.load"(%in, %t) : (memref<32xf32>, index) -> f32
      "memref.store"(%v, %sh, %t) : (f32, memref<32xf32, #gpu.address_space<workgroup>>, index) -> ()
{barrier}
      %w = "memref.load"(%rd, %n) : (memref<32x{read_ty}, #gpu.address_space<workgroup>>, index) -> {read_ty}
      "memref.store"(%w, %out, %t) : ({read_ty}, memref<32x{read_ty}>, index) -> ()
      "gpu.return"() : () -> ()
    }}) {{gpu.kernel, rtile.launch = {{block = array<i32: 32, 1, 1>, dynamic_shared_memory = {dsm} : i64, grid = array<i32: 2, 1, 1>}}, sym_name = "k", workgroup_attributions = 0 : i64}} : () -> ()
  }}) : () -> ()
}}) : () -> ()
"#
    )
}

#[test]
fn dynamic_shared_memory_views_run_clean() {
    // The buffer at byte 144 of 304 (ends at 272), read back through a second view.
    let (r, _) = run_text(&dyn_kernel(true, 144, 304, 144, "f32"));
    let out = r.expect("no simulator error");
    let want: Vec<f64> = (0..32).map(|i| ((i + 1) % 32) as f64).collect();
    assert_eq!(out, want);
}

#[test]
fn views_of_one_base_alias_the_same_bytes() {
    // Written as f32, read as i32 through another view of the same bytes: the floats' bits.
    let (r, _) = run_text(&dyn_kernel(true, 0, 128, 0, "i32"));
    let out = r.expect("no simulator error");
    let bits: Vec<f64> = (0..32)
        .map(|i| f64::from((((i + 1) % 32) as f32).to_bits() as i32))
        .collect();
    assert_eq!(out, bits);
    // Through an f16 view: thread t reads half t+1, so an odd t reads the low half of float
    // (t+1)/2 and an even t the high half of float t/2 (little-endian). 1.0f32 = 0x3F800000:
    // high half 0x3F80 = 1.875 as f16, low half 0; 2.0f32 = 0x40000000: high half 2.0.
    let (r, _) = run_text(&dyn_kernel(true, 0, 128, 0, "f16"));
    let out = r.expect("no simulator error");
    assert_eq!(out[2], 1.875, "high half of 1.0f32 as f16");
    assert_eq!(out[1], 0.0, "low half of 1.0f32");
    assert_eq!(out[4], 2.0, "high half of 2.0f32 as f16");
}

#[test]
fn race_through_aliasing_views_is_caught() {
    // No barrier: thread 0 reads bytes 4..8 through the second view before thread 1 writes
    // them through the first.
    let (r, _) = run_text(&dyn_kernel(false, 0, 128, 0, "i32"));
    let (kind, msg, span) = r.expect_err("race must be caught");
    assert_eq!(kind, SimErrorKind::DataRace, "{msg}");
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
fn uninitialised_read_through_a_view_is_caught() {
    // The second view starts where the written bytes end.
    let (r, _) = run_text(&dyn_kernel(true, 0, 256, 128, "f32"));
    let (kind, msg, span) = r.expect_err("uninitialised read must be caught");
    assert_eq!(kind, SimErrorKind::UninitializedRead, "{msg}");
    assert!(msg.contains("uninitialised shared memory"), "{msg}");
    assert!(span.contains("%rd"), "{span}");
}

#[test]
fn view_outside_dynamic_shared_memory_is_reported_at_the_view() {
    // 128 bytes at byte 16 end at 144, past the launch's 128.
    let (r, _) = run_text(&dyn_kernel(true, 16, 128, 16, "f32"));
    let (kind, msg, span) = r.expect_err("out-of-range view must be caught");
    assert_eq!(kind, SimErrorKind::OutOfBounds, "{msg}");
    assert!(
        msg.contains("view of 128 bytes at byte offset 16 lies outside the launch's 128 bytes of dynamic shared memory"),
        "{msg}"
    );
    assert!(
        span.contains("the-view") && span.contains("memref.view"),
        "{span}"
    );
    // A launch with no dynamic shared memory at all.
    let (r, _) = run_text(&dyn_kernel(true, 0, 0, 0, "f32"));
    let (kind, msg, _) = r.expect_err("view of nothing must be caught");
    assert_eq!(kind, SimErrorKind::OutOfBounds, "{msg}");
    // A misaligned view (f32 elements at byte 2).
    let (r, _) = run_text(&dyn_kernel(true, 2, 256, 0, "f32"));
    let (kind, msg, _) = r.expect_err("misaligned view must be caught");
    assert_eq!(kind, SimErrorKind::OutOfBounds, "{msg}");
    assert!(
        msg.contains("is not aligned to its 4-byte elements"),
        "{msg}"
    );
}
