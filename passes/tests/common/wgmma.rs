//! The wgmma tests' programs and kernels: H100 warpgroup programs, the kernel lowered with
//! `tensor-core=wgmma` (its structure checked), and its check in the simulator.

use rtile_dialects::te::model::TeCompute;
use rtile_passes::construct_rtile::RProgram;
use rtile_passes::lower_to_gpu::mma::TensorCoreMode;
use rtile_passes::lower_to_gpu::{LowerOptions, lower_compute_opts};
use rtile_runtime::sim::run_check_text;

use super::{context, count_ops, mma_tolerance as tolerance, module_text};

/// An H100 warpgroup program: block `[bm, bn, 64]`, warpgroup tiles `wg_m × wg_n`.
pub fn wg_program(block: [u64; 2], wg: [u64; 2]) -> RProgram {
    let threads = block[0] / wg[0] * (block[1] / wg[1]) * 128;
    RProgram {
        tensor_core: true,
        mma: Some([64, 8, 16]),
        grid: vec![],
        ..RProgram::manual(
            "h100",
            &[block[0], block[1], 64],
            &[wg[0], wg[1], 16],
            vec![vec![0, 0], vec![0, 0]],
            threads,
        )
    }
}

/// [`wg_program`] over a batch matmul's axes `(b, m, n, k)`: one batch index per block.
pub fn wg_batch_program(block: [u64; 2], wg: [u64; 2]) -> RProgram {
    wg_batches_program(1, block, wg)
}

/// [`wg_program`] over `axes` batch axes before `(m, n, k)`: one index of each per block.
pub fn wg_batches_program(axes: usize, block: [u64; 2], wg: [u64; 2]) -> RProgram {
    let mut p = wg_program(block, wg);
    p.block = vec![1; axes];
    p.block.extend([block[0], block[1], 64]);
    p.thread = vec![1; axes];
    p.thread.extend([wg[0], wg[1], 16]);
    p
}

/// The program of `shape` (`batch` some: a batch matmul) with tiles `block` / `wg`.
pub fn program_for(batch: Option<i64>, block: [u64; 2], wg: [u64; 2]) -> RProgram {
    match batch {
        Some(_) => wg_batch_program(block, wg),
        None => wg_program(block, wg),
    }
}

pub fn wgmma_options(warp_specialize: bool) -> LowerOptions {
    LowerOptions {
        tensor_core: TensorCoreMode::Wgmma,
        warp_specialize,
        ..LowerOptions::default()
    }
}

/// The kernel's module text (generic form, as the simulator reads it), warp-specialised
/// when `ws` asks for it and the block has room (two mbarrier groups then, one otherwise).
pub fn lowered(c: &TeCompute, p: &RProgram, ws: bool) -> Result<String, String> {
    let mut ctx = context();
    let k = lower_compute_opts(&mut ctx, c, p, "k", wgmma_options(ws))
        .map_err(|e| format!("lowering: {e}"))?;
    if count_ops(&ctx, &k, "nvgpu.warpgroup.mma") == 0 {
        return Err("no nvgpu.warpgroup.mma".into());
    }
    let consumers = p.threads as u32;
    let block = k.launch.block.map_or(0, |b| b[0]);
    let specialized = block == consumers + 128;
    let groups = count_ops(&ctx, &k, "nvgpu.mbarrier.create");
    if groups != 1 + specialized as usize || (specialized && !ws) {
        return Err(format!(
            "{groups} mbarrier groups for {block} threads (ws = {ws})"
        ));
    }
    if ws && consumers + 128 <= 1024 && p.threads <= 512 && !specialized {
        return Err("a block of at most 512 threads is not warp-specialised".into());
    }
    Ok(module_text(&mut ctx, &[k]))
}

/// Lowers `c` under `p` with wgmma and checks it in the simulator.
pub fn check(c: &TeCompute, p: &RProgram, seed: u64, ws: bool) -> Result<f64, String> {
    let text = lowered(c, p, ws)?;
    let r = run_check_text("k.mlir", &text, seed).map_err(|e| format!("{e}\n{text}"))?;
    let tol = tolerance(c.result.elem);
    if r.max_rel_err() > tol {
        return Err(format!("error {:e} over {tol:e}", r.max_rel_err()));
    }
    Ok(r.max_rel_err())
}

/// `text` with every TMA load of `coords` coordinates given the index constant 0 the kernel
/// defines as its coordinate `at` (innermost first).
pub fn zero_coordinate(text: &str, coords: usize, at: usize) -> String {
    let zero = text
        .lines()
        .find(|l| l.contains("\"arith.constant\"() <{value = 0 : index}>"))
        .and_then(|l| l.split(" = ").next())
        .expect("an index 0")
        .trim()
        .to_string();
    text.lines()
        .map(|l| {
            let Some(s) = l.find("\"nvgpu.tma.async.load\"(") else {
                return l.to_string();
            };
            let args: Vec<&str> = l[s + 23..]
                .split(')')
                .next()
                .unwrap_or("")
                .split(", ")
                .collect();
            if args.len() != coords + 4 {
                return l.to_string();
            }
            let mut new = args.clone();
            new[3 + at] = &zero;
            l.replacen(&args.join(", "), &new.join(", "), 1)
        })
        .collect::<Vec<_>>()
        .join("\n")
}
