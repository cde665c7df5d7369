//! The plan of a tensor-core kernel: which axes play m, n, k and batch, how the block's warps
//! tile the block tile, each operand's shared-memory tile (layout, ldmatrix padding, cp.async
//! chunk) and the number of pipeline stages. Decided here, before any IR is built.

use rtile::ir::affine::AffineExpr;
use rtile_dialects::te::model::{AxisKind, BinOp, Combiner, ElemType, Expr, TeCompute};

use crate::construct_rtile::RProgram;
use crate::device::Device;

/// Most pipeline stages tried (CUTLASS's sm_80 GEMMs use 3 to 5; more buys nothing once the
/// copies of one k-step hide behind the MMAs of the others).
pub const MAX_STAGES: i64 = 4;

/// The MMA instruction every warp issues: `mma.sync.aligned.m16n8k16` (PTX ISA §9.7.14.5).
pub const MMA: [i64; 3] = [16, 8, 16];

/// One operand (A: m×k, B: k×n) of the tensor-core kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperandPlan {
    /// The te access it is.
    pub access: usize,
    /// The compute axis indexing each tensor dim.
    pub dims: Vec<usize>,
    /// The tensor's shape.
    pub shape: Vec<i64>,
    /// The GEMM axis of the tensor's last (contiguous) dim: the shared tile's columns.
    pub inner: usize,
    /// The operand's other GEMM axis: the shared tile's rows.
    pub outer: usize,
    /// Columns of the shared tile (the block tile along `inner`) and rows.
    pub cols: i64,
    pub rows: i64,
    /// Padding of each shared row, elements: a row stride of an odd number of 16-byte units
    /// keeps the 8 rows one ldmatrix phase reads in 8 distinct groups of 4 banks.
    pub pad: i64,
    /// Elements one `cp.async` moves (8, 4 or 2: 16, 8 or 4 bytes); 1: the tensor's rows are
    /// not 4-byte aligned, so the tile is copied with ordinary loads and stores.
    pub chunk: i64,
    /// Rows allocated per stage: the batch slices' tiles one after the other (`slices ×
    /// rows`), or more so that every thread issues the same number of copies (the surplus
    /// ones zero-fill rows past the tiles).
    pub alloc_rows: i64,
    /// Copies each thread issues per stage.
    pub copies_per_thread: i64,
    /// Whether ldmatrix reads the tile transposed (`.trans`): A stored k-major, B n-major.
    pub trans: bool,
}

impl OperandPlan {
    /// Elements of the shared row (with padding).
    pub fn stride(&self) -> i64 {
        self.cols + self.pad
    }
}

/// The plan of one tensor-core kernel (Roller §5.1: a warp tile of whole MMA instructions).
#[derive(Clone, Debug)]
pub struct MmaPlan {
    /// The compute axes playing m, n and k.
    pub m: usize,
    pub n: usize,
    pub k: usize,
    /// The other spatial axes (batch), in compute order.
    pub batch: Vec<usize>,
    pub extents: Vec<i64>,
    /// The block tile per compute axis; along k, the pipeline's k-step (the program's
    /// k-tile, or a shallower step for a deep one: [`pipeline`]).
    pub block: Vec<i64>,
    /// The tile of one warp along m and n (a warpgroup's `wgmma` tile split over its 4 warps
    /// by rows on sm_90 programs).
    pub warp_m: i64,
    pub warp_n: i64,
    /// Warps along the batch slices, m and n.
    pub warps: [i64; 3],
    /// Batch slices of the block tile (the product of its batch axes' tiles).
    pub slices: i64,
    /// A (reads m) then B (reads n).
    pub ops: [OperandPlan; 2],
    /// Pipeline stages of the global→shared copies.
    pub stages: i64,
    /// k-steps (block tiles along k covering its extent).
    pub k_steps: i64,
    /// The operands' element type (f16 or bf16) and the result's.
    pub input: ElemType,
    pub output: ElemType,
    /// Blocks per spatial axis (compute order) and in all.
    pub grid: Vec<i64>,
    pub blocks: i64,
    pub threads: i64,
    /// Bytes of all stages of both operands' tiles.
    pub shared_bytes: u64,
    /// Static shared memory a kernel may declare on the device.
    pub static_limit: u64,
}

/// The `[m, n, k]` axes of `c` when it is a plain f16/bf16 contraction into f32
/// (`te.sum(f32(A[..]) * f32(B[..]))`, each tensor dim indexed by one axis), else why not.
fn gemm_axes(c: &TeCompute) -> Result<([usize; 3], [usize; 2]), String> {
    let conv = "the tensor-core lowering takes contractions whose operands are indexed by \
                single axes (matmul, batch matmul); convolution as an implicit GEMM is not \
                lowered yet";
    if c.combiner != Some(Combiner::Sum) || c.acc_type() != ElemType::F32 {
        return Err("tensor cores need a sum accumulated in f32 (acc(f32))".into());
    }
    let cast = |e: &Expr| match e {
        Expr::Cast(ElemType::F32, x) => match **x {
            Expr::Access(i) => Some(i),
            _ => None,
        },
        _ => None,
    };
    let (a0, a1) = match &c.body {
        Expr::Binary(BinOp::Mul, x, y) => (cast(x), cast(y)),
        _ => (None, None),
    };
    let (Some(a0), Some(a1)) = (a0, a1) else {
        return Err("tensor cores need a body of the form f32(A[..]) * f32(B[..])".into());
    };
    let axes_of = |a: usize| -> Result<Vec<usize>, String> {
        c.accesses[a]
            .map
            .results
            .iter()
            .map(|r| match r {
                AffineExpr::Dim(d) => Ok(*d as usize),
                _ => Err(conv.to_string()),
            })
            .collect()
    };
    let (d0, d1) = (axes_of(a0)?, axes_of(a1)?);
    if c.accesses[a0].pad.is_some() || c.accesses[a1].pad.is_some() {
        return Err(conv.into());
    }
    let red: Vec<usize> = (0..c.axes.len())
        .filter(|&x| c.axes[x].kind == AxisKind::Reduction)
        .collect();
    let [k] = red[..] else {
        return Err(conv.into());
    };
    let spatial = |x: usize| c.axes[x].kind == AxisKind::Parallel;
    let only = |mine: &[usize], other: &[usize]| {
        mine.iter()
            .rev()
            .copied()
            .find(|&x| spatial(x) && !other.contains(&x))
    };
    let (Some(m), Some(n)) = (only(&d0, &d1), only(&d1, &d0)) else {
        return Err("tensor cores need an m axis read only by A and an n axis only by B".into());
    };
    if !d0.contains(&k) || !d1.contains(&k) {
        return Err("the reduction axis must index both operands".into());
    }
    Ok(([m, n, k], [a0, a1]))
}

/// The largest cp.async chunk (elements of 2 bytes) that keeps every copy's global source
/// aligned: the tensor's rows (its contiguous extent) are a multiple of it.
fn chunk_for(row: i64) -> i64 {
    [8, 4, 2].into_iter().find(|c| row % c == 0).unwrap_or(1)
}

impl MmaPlan {
    /// The plan of `c` under the tensor-core program `p` on `dev`.
    pub fn new(c: &TeCompute, p: &RProgram, dev: &Device) -> Result<MmaPlan, String> {
        let chip = dev.target().chip;
        let sm = chip
            .strip_prefix("sm_")
            .and_then(|v| v.trim_end_matches('a').parse::<u32>().ok());
        if sm.is_none_or(|v| v < 80) {
            return Err(format!(
                "the tensor-core lowering emits sm_80 mma.sync (m16n8k16); device '{}' ({chip}) has none",
                dev.name
            ));
        }
        if p.axes.iter().any(|a| a.contains('*')) {
            return Err("tensor-core programs over fused axes are not lowered".into());
        }
        let ([m, n, k], acc) = gemm_axes(c)?;
        let input = c.inputs[c.accesses[acc[0]].input].elem;
        if !matches!(input, ElemType::F16 | ElemType::BF16)
            || c.inputs[c.accesses[acc[1]].input].elem != input
        {
            return Err("tensor cores need f16 or bf16 operands of one type".into());
        }
        let extents = c.extents();
        let block: Vec<i64> = p.block.iter().map(|&v| v as i64).collect();
        let thread: Vec<i64> = p.thread.iter().map(|&v| v as i64).collect();
        if block.len() != extents.len() || thread.len() != extents.len() {
            return Err("the program's tiles do not match the compute's axes".into());
        }
        // The program's instruction (or the device's preferred one, as the construction
        // reads a program without `mma`): a warpgroup instruction (sm_90 wgmma, 4 warps of
        // its 64 rows) splits by rows into its warps' mma.sync tiles.
        let dtype = if input == ElemType::F16 {
            "f16"
        } else {
            "bf16"
        };
        let instrs = dev.mma(dtype).map(|(_, i)| i).unwrap_or_default();
        let instr = match p.mma {
            Some(s) => instrs.iter().find(|i| i.shape == s),
            None => instrs.first(),
        }
        .ok_or_else(|| format!("device '{}' has no such {dtype} MMA instruction", dev.name))?;
        let group = instr.warps.max(1) as i64;
        let (warp_m, warp_n) = (thread[m] / group, thread[n]);
        if warp_m % MMA[0] != 0 || warp_n % MMA[1] != 0 || block[k] % MMA[2] != 0 {
            return Err(format!(
                "the warp tile {warp_m}x{warp_n} (k-step {}) is not whole m16n8k16 instructions",
                block[k]
            ));
        }
        let batch: Vec<usize> = (0..extents.len())
            .filter(|&x| c.axes[x].kind == AxisKind::Parallel && x != m && x != n)
            .collect();
        if batch.iter().any(|&b| thread[b] != 1) {
            return Err("a batch axis has a warp tile other than 1".into());
        }
        let slices: i64 = batch.iter().map(|&b| block[b]).product();
        let warps = [slices, block[m] / warp_m, block[n] / warp_n];
        let threads = warps.iter().product::<i64>() * 32;
        if threads as u64 != p.threads {
            return Err(format!(
                "{} threads do not match the warp tiles ({threads})",
                p.threads
            ));
        }
        if !matches!(
            c.result.elem,
            ElemType::F16 | ElemType::BF16 | ElemType::F32
        ) {
            return Err("tensor-core results are f16, bf16 or f32".into());
        }
        let limit = dev.layers[Device::SHARED].capacity_bytes as i64;
        let Pipeline {
            block,
            ops,
            stages,
            k_steps,
            stage_bytes,
        } = pipeline(c, acc, [m, n, k], block, (slices, threads), limit)?;
        let spatial: Vec<usize> = (0..extents.len())
            .filter(|&x| c.axes[x].kind == AxisKind::Parallel)
            .collect();
        let grid: Vec<i64> = spatial
            .iter()
            .map(|&x| (extents[x] + block[x] - 1) / block[x])
            .collect();
        let blocks: i64 = grid.iter().product();
        if blocks > i32::MAX as i64 {
            return Err("grid too large".into());
        }
        Ok(MmaPlan {
            m,
            n,
            k,
            batch,
            extents,
            block,
            warp_m,
            warp_n,
            warps,
            slices,
            ops,
            stages,
            k_steps,
            input,
            output: c.result.elem,
            grid,
            blocks,
            threads,
            shared_bytes: (stages * stage_bytes) as u64,
            static_limit: dev.kernel_limits().static_shared_bytes,
        })
    }

    /// The compute's spatial axes in order (the output's dims).
    pub fn spatial(&self) -> Vec<usize> {
        let mut s = self.batch.clone();
        s.extend([self.m, self.n]);
        s.sort_unstable();
        s
    }
}

/// Pipeline k-steps tried, deepest first, after the program's own k-tile: shallower steps
/// leave room for more stages.
const PIPELINE_K_STEPS: [i64; 2] = [64, 32];

/// Stages wanted before a shallower k-step is tried: one being filled by cp.async while
/// one is read (double buffering) plus one in flight, as CUTLASS's sm_80 pipelines do.
const WANTED_STAGES: i64 = 3;

/// A tensor-core kernel's shared-memory pipeline (what [`pipeline`] chooses).
struct Pipeline {
    block: Vec<i64>,
    ops: [OperandPlan; 2],
    stages: i64,
    k_steps: i64,
    stage_bytes: i64,
}

/// The shared-memory pipeline of a tensor-core program: the block tile with the k-step
/// the pipeline streams (the program's k-tile when [`WANTED_STAGES`] stages of it fit, or
/// as many as there are k-steps; else the deepest shallower step of [`PIPELINE_K_STEPS`]
/// that does, else the one with the most stages), the operands' shared tiles,
/// the number of stages (the most that fit, at most [`MAX_STAGES`], never more than there
/// are k-steps), the k-steps, and one stage's bytes. Roller's rTile (§3.1, §5.1) fixes the
/// k extent its traffic model reads per block step; staging it whole would hold one
/// 272-deep step of a 256×128 tile (over 200 KiB) in one buffer with no overlap of copies
/// and MMAs, so the lowering streams it in k-steps through a cp.async pipeline instead:
/// the same global traffic, a fraction of the shared memory.
fn pipeline(
    c: &TeCompute,
    acc: [usize; 2],
    [m, n, k]: [usize; 3],
    block: Vec<i64>,
    (slices, threads): (i64, i64),
    limit: i64,
) -> Result<Pipeline, String> {
    let extents = c.extents();
    let steps: Vec<i64> = std::iter::once(block[k])
        .chain(PIPELINE_K_STEPS.into_iter().filter(|&s| s < block[k]))
        .collect();
    let mut best: Option<Pipeline> = None;
    let mut smallest_stage = i64::MAX;
    for step in steps {
        let mut b = block.clone();
        b[k] = step;
        let ops = [
            operand(c, acc[0], (m, k), &b, (slices, threads))?,
            operand(c, acc[1], (n, k), &b, (slices, threads))?,
        ];
        let stage_bytes: i64 = ops.iter().map(|o| o.alloc_rows * o.stride() * 2).sum();
        smallest_stage = smallest_stage.min(stage_bytes);
        let k_steps = (extents[k] + step - 1) / step;
        let Some(stages) = (1..=MAX_STAGES.min(k_steps))
            .rev()
            .find(|s| s * stage_bytes <= limit)
        else {
            continue;
        };
        let enough = stages >= WANTED_STAGES.min(k_steps);
        if best.as_ref().is_none_or(|p| stages > p.stages) {
            best = Some(Pipeline {
                block: b,
                ops,
                stages,
                k_steps,
                stage_bytes,
            });
        }
        if enough {
            break;
        }
    }
    best.ok_or_else(|| {
        format!(
            "one stage of the tensor-core tiles ({smallest_stage} bytes) exceeds the block's {limit} bytes of shared memory"
        )
    })
}

/// The shared tile of access `a`, whose GEMM axes are `(own, k)` (m or n, and k).
fn operand(
    c: &TeCompute,
    a: usize,
    (own, k): (usize, usize),
    block: &[i64],
    (slices, threads): (i64, i64),
) -> Result<OperandPlan, String> {
    let acc = &c.accesses[a];
    let dims: Vec<usize> = acc
        .map
        .results
        .iter()
        .filter_map(|r| match r {
            AffineExpr::Dim(d) => Some(*d as usize),
            _ => None,
        })
        .collect();
    let shape = c.inputs[acc.input].shape.clone();
    let last = *dims.last().ok_or("an operand without dims")?;
    let (inner, outer) = if last == k { (k, own) } else { (own, k) };
    if last != k && last != own {
        return Err("an operand's contiguous dim must be one of its GEMM axes".into());
    }
    // ldmatrix gives A's fragment from an m-major (row-major m×k) tile and B's from an
    // n-major one (k contiguous); a tile stored the other way is read with `.trans`.
    let trans = inner == own;
    let (cols, rows) = (block[inner], block[outer]);
    let pad = if (cols / 8) % 2 == 0 { 8 } else { 0 };
    let chunk = chunk_for(shape[shape.len() - 1]);
    let per_stage = slices * rows * cols / chunk;
    let copies_per_thread = (per_stage + threads - 1) / threads;
    let alloc_rows = ((copies_per_thread * threads * chunk + cols - 1) / cols).max(slices * rows);
    Ok(OperandPlan {
        access: a,
        dims,
        shape,
        inner,
        outer,
        cols,
        rows,
        pad,
        chunk,
        alloc_rows,
        copies_per_thread,
        trans,
    })
}
