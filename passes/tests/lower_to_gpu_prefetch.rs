//! Register-prefetch double buffering of the staged k-step tiles (`--lower-to-gpu`
//! `prefetch=true`, the default): the next k-step's global loads are issued into registers
//! before the current step's compute and stored to shared memory after it, between two
//! barriers. Checked against the te interpreter in the simulator (races, uninitialised and
//! out-of-bounds reads are errors there), on its structure, and with a planted missing
//! barrier that the simulator must report.

use rtile::ir::{Attribute, Context, OpId, Rewriter, Type};
use rtile_dialects::te::model::TeCompute;
use rtile_dialects::te::module::parse_computes;
use rtile_passes::construct_rtile::{ConstructOptions, RProgram, construct};
use rtile_passes::device::Device;
use rtile_passes::lower_to_gpu::{
    CrossThread, LowerOptions, LoweredKernel, expr_info, lower_compute_opts,
};
use rtile_runtime::sim::run_check_text;

mod common;
use common::{context, count_ops, entry_args, kernel_text, module_text, ops, shared_buffers};

fn compute(text: &str) -> TeCompute {
    parse_computes("t.mlir", text)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
        .remove(0)
        .compute
}

fn program(block: &[u64], thread: &[u64], pad: Vec<Vec<u64>>, threads: u64) -> RProgram {
    RProgram::manual("v100", block, thread, pad, threads)
}

fn lower(ctx: &mut Context, c: &TeCompute, p: &RProgram, prefetch: bool) -> LoweredKernel {
    let opts = LowerOptions {
        cross: Some(CrossThread::Off),
        prefetch,
        ..LowerOptions::default()
    };
    lower_compute_opts(ctx, c, p, "k", opts).unwrap_or_else(|e| panic!("lowers: {e}"))
}

fn check(ctx: &mut Context, k: LoweredKernel, seed: u64) {
    let text = module_text(ctx, &[k]);
    let r = run_check_text("k.mlir", &text, seed).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert!(r.max_rel_err() < 1e-5, "{}\n{text}", r.text());
}

/// 60x64x48 matmul (m padded by the grid), block [32, 64, 16]: three k-steps.
fn matmul() -> (TeCompute, RProgram) {
    let c = compute(
        "func.func @mm(%A: tensor<60x48xf32>, %B: tensor<48x64xf32>) -> tensor<60x64xf32> {
  %C = te.compute (%m, %n) reduce (%k) in [60, 64, 48] may_pad 0.0
         : (tensor<60x48xf32>, tensor<48x64xf32>) -> tensor<60x64xf32> {
    te.sum(%A[%m, %k] * %B[%k, %n])
  }
  func.return %C : tensor<60x64xf32>
}",
    );
    let p = program(&[32, 64, 16], &[4, 4, 1], vec![vec![0, 1], vec![0, 4]], 128);
    (c, p)
}

/// A 3x3 convolution with zero padding 1 and stride 1 over 2x6x9x9 → 2x5x9x9; the block
/// steps over input channels (3 steps of 2) and filter rows (3 steps of 1): two stepping
/// axes, one linearized loop of 9 k-steps.
fn conv() -> (TeCompute, RProgram) {
    let c = compute(
        "func.func @cv(%D: tensor<2x6x9x9xf32>, %K: tensor<5x6x3x3xf32>) -> tensor<2x5x9x9xf32> {
  %O = te.compute (%n, %f, %y, %x) reduce (%c, %ry, %rx) in [2, 5, 9, 9, 6, 3, 3] may_pad 0.0
         : (tensor<2x6x9x9xf32>, tensor<5x6x3x3xf32>) -> tensor<2x5x9x9xf32> {
    te.sum(%D[%n, %c, %y + %ry - 1, %x + %rx - 1] pad 0.0 * %K[%f, %c, %ry, %rx])
  }
  func.return %O : tensor<2x5x9x9xf32>
}",
    );
    // f padded (5 by blocks of 4), x padded (9 by 4); 2·4·3·4 / (1·2·1·2) = 24 threads.
    let p = program(
        &[2, 4, 3, 4, 2, 1, 3],
        &[1, 2, 1, 2, 1, 1, 3],
        vec![vec![0, 0, 0, 1], vec![0, 0, 0, 0]],
        24,
    );
    (c, p)
}

/// Whether `op` reads global memory: a `memref.load` / `vector.load` of a kernel argument
/// (an entry argument that is not a workgroup attribution) or of a
/// `memref.collapse_shape` view of one.
fn is_global_load(ctx: &Context, k: &LoweredKernel, op: OpId) -> bool {
    if !matches!(ctx.op_name(op), "memref.load" | "vector.load") {
        return false;
    }
    let m = ctx.operands(op)[0];
    let argument = entry_args(ctx, k).contains(&m) && !shared_buffers(ctx, k).contains(&m);
    argument
        || ctx
            .defining_op(m)
            .is_some_and(|d| ctx.op_name(d) == "memref.collapse_shape")
}

/// The structure of the prefetch form: a prologue (global loads, shared stores, barrier)
/// before the k-loop; in the k-loop, one `scf.if` on the next-step condition holding every
/// global load of step k+1, before any multiply of step k; after the compute a barrier, the
/// stores under the same condition, a barrier. Positions are in the kernel's ops in
/// pre-order (their order in print). Returns the stores' `scf.if` and the barrier before it.
fn assert_prefetch_structure(ctx: &Context, k: &LoweredKernel) -> (OpId, OpId) {
    let text = kernel_text(ctx, k);
    let all = ops(ctx, k.func);
    let pos = |pred: &dyn Fn(OpId) -> bool| -> Vec<usize> {
        (0..all.len()).filter(|&i| pred(all[i])).collect()
    };
    let named = |n: &str| pos(&|o| ctx.op_name(o) == n);
    let kloop = *pos(&|o| ctx.op_name(o) == "scf.for" && !ctx.results(o).is_empty())
        .first()
        .expect("a k-loop carrying the register tile");
    let global = pos(&|o| is_global_load(ctx, k, o));
    let mulf = named("arith.mulf");
    let (first_mul, last_mul) = (mulf[0], *mulf.last().expect("multiplies"));
    assert!(
        global.iter().any(|&g| g < kloop),
        "prologue loads before the k-loop:\n{text}"
    );
    let barriers = named("gpu.barrier");
    assert!(
        barriers.iter().any(|&b| b < kloop) && global.iter().all(|&g| g < first_mul),
        "every global load (prologue and step k+1) precedes the compute of step k:\n{text}"
    );
    // The loads' scf.if: the first scf.if with results in the k-loop; its condition is the
    // next-step condition, used by exactly one other scf.if (the stores').
    let load_if = (kloop..all.len())
        .find(|&i| ctx.op_name(all[i]) == "scf.if" && !ctx.results(all[i]).is_empty())
        .expect("the next-step scf.if");
    assert!(load_if < first_mul);
    let cond = ctx.operands(all[load_if])[0];
    let uses = pos(&|o| ctx.op_name(o) == "scf.if" && ctx.operands(o)[0] == cond);
    assert_eq!(
        uses.len(),
        2,
        "two scf.if on the next-step condition:\n{text}"
    );
    let store_if = uses[1];
    assert!(store_if > last_mul);
    let between: Vec<usize> = barriers
        .iter()
        .copied()
        .filter(|&b| b > last_mul && b < store_if)
        .collect();
    assert_eq!(between.len(), 1, "one barrier before the stores:\n{text}");
    let after = barriers.iter().filter(|&&b| b > store_if).count();
    assert_eq!(after, 1, "one barrier after the stores:\n{text}");
    // The stores' region: stores into shared buffers only (and their tail guards).
    let shared = shared_buffers(ctx, k);
    let body = ops(ctx, all[store_if]);
    assert!(
        body.iter().all(|&o| match ctx.op_name(o) {
            "memref.store" | "vector.store" => shared.contains(&ctx.operands(o)[1]),
            "scf.if" | "arith.cmpi" | "scf.yield" => true,
            _ => false,
        }),
        "{:?}\n{text}",
        body.iter().map(|&o| ctx.op_name(o)).collect::<Vec<_>>()
    );
    (all[store_if], all[between[0]])
}

#[test]
fn matmul_and_conv_with_and_without_prefetch_match_the_interpreter() {
    for (name, (c, p)) in [("matmul", matmul()), ("conv", conv())] {
        let mut ctx = context();
        let on = lower(&mut ctx, &c, &p, true);
        let off = lower(&mut ctx, &c, &p, false);
        assert!(on.prefetched, "{name}: prefetched");
        assert!(!off.prefetched, "{name}: not prefetched");
        assert_prefetch_structure(&ctx, &on);
        // Without prefetch: loads, barrier, compute, barrier per k-step; no next-step scf.if.
        assert_eq!(count_ops(&ctx, &off, "gpu.barrier"), 2, "{name}");
        assert_eq!(count_ops(&ctx, &on, "gpu.barrier"), 3, "{name}");
        // The same shared memory either way (the prefetch lives in registers).
        assert_eq!(on.shared_bytes, off.shared_bytes);
        check(&mut ctx, on, 3);
        check(&mut ctx, off, 3);
    }
    // The conv's two stepping axes (c: 3 steps, ry: 3 steps) make one loop of 9 steps.
    let (c, p) = conv();
    let mut ctx = context();
    let on = lower(&mut ctx, &c, &p, true);
    let kloop = ops(&ctx, on.func)
        .into_iter()
        .find(|&o| ctx.op_name(o) == "scf.for" && !ctx.results(o).is_empty())
        .expect("k-loop");
    let ub = ctx
        .defining_op(ctx.operands(kloop)[1])
        .expect("a constant upper bound");
    assert_eq!(ctx.op_name(ub), "arith.constant");
    assert_eq!(
        ctx.inherent_attr(ub, "value"),
        Some(&Attribute::int(9, Type::index())),
        "{}",
        kernel_text(&ctx, &on)
    );
}

/// The tail: a tile whose load units are not a multiple of the threads (A's 10x7 tile over
/// 12 threads: 70 units, 6 per thread, the last guarded by `e < 70`), and a k-extent the
/// block does not divide (k = 20 by 7: the last step padded).
#[test]
fn tail_units_and_padded_k_steps() {
    let c = compute(
        "func.func @mm(%A: tensor<10x20xf32>, %B: tensor<20x12xf32>) -> tensor<10x12xf32> {
  %C = te.compute (%m, %n) reduce (%k) in [10, 12, 20] may_pad 0.0
         : (tensor<10x20xf32>, tensor<20x12xf32>) -> tensor<10x12xf32> {
    te.sum(%A[%m, %k] * %B[%k, %n])
  }
  func.return %C : tensor<10x12xf32>
}",
    );
    let p = program(&[10, 12, 7], &[5, 2, 1], vec![vec![0, 0], vec![0, 0]], 12);
    let mut ctx = context();
    let k = lower(&mut ctx, &c, &p, true);
    assert!(k.prefetched);
    let t = kernel_text(&ctx, &k);
    assert!(t.contains("<{value = 70 : index}>"), "{t}");
    assert_prefetch_structure(&ctx, &k);
    check(&mut ctx, k, 5);
    let off = lower(&mut ctx, &c, &p, false);
    check(&mut ctx, off, 5);
}

/// Planted bug: without the barrier between the compute of step k and the stores of step
/// k+1, a thread overwrites a shared element another thread still has to read; the
/// simulator reports the race (so the suite's clean runs mean the barriers are placed).
#[test]
fn dropping_the_barrier_before_the_stores_is_a_race() {
    let (c, p) = matmul();
    let mut ctx = context();
    let k = lower(&mut ctx, &c, &p, true);
    let (_, barrier) = assert_prefetch_structure(&ctx, &k);
    Rewriter::new(&mut ctx)
        .erase_op(barrier)
        .expect("the barrier is erasable");
    let e = match run_check_text("k.mlir", &module_text(&mut ctx, &[k]), 3) {
        Ok(r) => panic!("the simulator missed the race: {}", r.text()),
        Err(e) => e,
    };
    assert!(e.to_string().contains("data race"), "{e}");
}

/// With a shared capacity small enough that no block holds a whole reduction, the small
/// twins of Table 1 (`bench/ops/roller-table1-small.mlir`) get programs with several
/// k-steps: each of the top 10 programs, lowered with and without prefetch, matches the
/// interpreter, and most of the multi-step kernels take the prefetch form.
#[test]
fn small_twins_with_several_k_steps_match_the_interpreter() {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../bench/ops/roller-table1-small.mlir");
    let found = parse_computes(
        "roller-table1-small.mlir",
        &std::fs::read_to_string(p).expect("suite"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut dev = Device::builtin("v100").expect("v100");
    // 2 KiB of tiles per block (the programs still name v100, whose limits they meet).
    dev.layers[Device::SHARED].capacity_bytes = 2048;
    let (mut kernels, mut multi, mut prefetched) = (0, 0, 0);
    let mut failures = Vec::new();
    for f in &found {
        let info = expr_info(&f.compute);
        let Ok(res) = construct(
            &info,
            &dev,
            &ConstructOptions {
                top_k: 10,
                ..ConstructOptions::default()
            },
        ) else {
            continue;
        };
        for (pi, p) in res.programs.iter().enumerate() {
            for pf in [true, false] {
                let opts = LowerOptions {
                    cross: None,
                    prefetch: pf,
                    ..LowerOptions::default()
                };
                let mut ctx = context();
                let k = match lower_compute_opts(&mut ctx, &f.compute, p, "k", opts) {
                    Ok(k) => k,
                    Err(e) => {
                        failures.push(format!("@{} {pi} prefetch={pf}: {e}", f.func));
                        continue;
                    }
                };
                kernels += 1;
                if pf {
                    multi += usize::from(count_ops(&ctx, &k, "gpu.barrier") > 1);
                    prefetched += usize::from(k.prefetched);
                }
                let text = module_text(&mut ctx, &[k]);
                match run_check_text("k.mlir", &text, 11 + pi as u64) {
                    Ok(r) if r.max_rel_err() < 1e-5 => {}
                    Ok(r) => failures.push(format!(
                        "@{} {pi} prefetch={pf}: max relative error {:e}",
                        f.func,
                        r.max_rel_err()
                    )),
                    Err(e) => failures.push(format!("@{} {pi} prefetch={pf}: {e}", f.func)),
                }
            }
        }
    }
    eprintln!("{kernels} kernels, {multi} multi-barrier (prefetch on), {prefetched} prefetched");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(prefetched >= 40, "only {prefetched} prefetched");
}
