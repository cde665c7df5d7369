//! The plan of a tensor-core kernel: the instruction family (NVIDIA sm_80 `mma.sync` or AMD
//! CDNA `v_mfma`), which axes play m, n, k and batch, how the block's warps (wavefronts)
//! tile the block tile, each operand's shared-memory tile (layout, padding, copy chunk) and
//! the number of pipeline stages. Decided here, before any IR is built.

use rtile::ir::affine::AffineExpr;
use rtile_dialects::te::model::{AxisKind, BinOp, Combiner, ElemType, Expr, TeCompute};

use crate::construct_rtile::RProgram;
use crate::construct_rtile::implicit_gemm::{axis_names, implicit_gemm};
use crate::construct_rtile::te_adapter::expr_from_compute;
use crate::device::Device;
use rtile_dialects::rtile::verify::distinct_reads;

/// Most pipeline stages tried (CUTLASS's sm_80 GEMMs use 3 to 5; more buys nothing once the
/// copies of one k-step hide behind the MMAs of the others).
pub const MAX_STAGES: i64 = 4;

/// The MMA instruction every warp issues: `mma.sync.aligned.m16n8k16` (PTX ISA §9.7.14.5).
pub const MMA: [i64; 3] = [16, 8, 16];

/// The matrix instructions a tensor-core kernel is built from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// NVIDIA sm_80+ `mma.sync` m16n8k16 per 32-lane warp, fed by cp.async and ldmatrix.
    MmaSync,
    /// AMD CDNA2 (gfx90a) `v_mfma_f32_{32x32x8,16x16x16}` (`amdgpu.mfma`) per 64-lane
    /// wavefront, `[m, n, k]`, fed by plain loads into LDS (no cp.async on AMD).
    Mfma([i64; 3]),
}

impl Family {
    /// `[m, n, k]` of one instruction.
    pub fn shape(self) -> [i64; 3] {
        match self {
            Family::MmaSync => MMA,
            Family::Mfma(s) => s,
        }
    }

    /// Lanes of the warp (wavefront) that issues one instruction.
    pub fn lanes(self) -> i64 {
        match self {
            Family::MmaSync => 32,
            Family::Mfma(_) => 64,
        }
    }

    /// Elements of the widest tile copy: 8 (16-byte cp.async) or, for MFMA, 4 (8-byte LDS
    /// stores into rows of an odd number of 8-byte units).
    pub fn max_chunk(self) -> i64 {
        match self {
            Family::MmaSync => 8,
            Family::Mfma(_) => 4,
        }
    }

    /// Most pipeline stages: [`MAX_STAGES`] for cp.async; two LDS buffers for MFMA (the
    /// next k-step's loads go to registers during this one's MFMAs, then to the other
    /// buffer: a deeper pipeline would hold more loads in registers, not more in flight).
    pub fn max_stages(self) -> i64 {
        match self {
            Family::MmaSync => MAX_STAGES,
            Family::Mfma(_) => 2,
        }
    }
}

/// How an implicit GEMM's A operand (the im2col of a convolution's data) is gathered: the
/// data's index expressions over the compute's axes, its shape, and the value of reads
/// outside it (the te's `pad`; `None`: always in bounds).
#[derive(Clone, Debug, PartialEq)]
pub struct Gather {
    pub map: Vec<AffineExpr>,
    pub shape: Vec<i64>,
    pub pad: Option<f64>,
    /// Whether the data's contiguous dim moves with m (an output pixel axis, NCHW's `x`)
    /// rather than k (NHWC's channels): the tile is then copied m-fastest.
    pub m_fastest: bool,
    /// Whether the data's contiguous dim is the whole channel axis, read plainly and the
    /// fastest of k (NHWC data, HWIO weights: `k = (ry·KW + rx)·C + c`): consecutive k of
    /// one pixel are consecutive in memory.
    pub channels_last: bool,
}

/// Copies of a gathered operand unrolled per iteration of its copy loop: enough
/// independent loads in flight per thread, few enough live registers.
pub const GATHER_UNROLL: i64 = 8;

/// One operand (A: m×k, B: k×n) of the tensor-core kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct OperandPlan {
    /// The te access it is.
    pub access: usize,
    /// The plan axis indexing each dim of the operand's matrix view.
    pub dims: Vec<usize>,
    /// The shape of the matrix view: the tensor's shape, or with `collapse` its consecutive
    /// dims merged, or with `gather` the `[m, k]` im2col extents.
    pub shape: Vec<i64>,
    /// The tensor dims each view dim merges (`memref.collapse_shape`), when some view dim
    /// merges several (a convolution's weights as a `[n, k]` or `[k, n]` matrix).
    pub collapse: Option<Vec<Vec<usize>>>,
    /// The im2col gather, for a convolution's data (A of the implicit GEMM).
    pub gather: Option<Gather>,
    /// The GEMM axis of the tensor's last (contiguous) dim: the shared tile's columns.
    pub inner: usize,
    /// The operand's other GEMM axis: the shared tile's rows.
    pub outer: usize,
    /// Columns of the shared tile (the block tile along `inner`) and rows.
    pub cols: i64,
    pub rows: i64,
    /// Padding of each shared row, elements: a row stride of an odd number of 16-byte units
    /// keeps the 8 rows one ldmatrix phase reads in 8 distinct groups of 4 banks; for MFMA
    /// an odd number of 8-byte units ([`Family::Mfma`]: see `mma::mfma`).
    pub pad: i64,
    /// Elements one `cp.async` (or, for MFMA, one vector load and LDS store) moves (8, 4 or
    /// 2: 16, 8 or 4 bytes); 1: the tensor's rows are not 4-byte aligned, so the tile is
    /// copied with ordinary loads and stores.
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
///
/// Its axes are the program's: the compute's own for a matmul or batch matmul, the implicit
/// GEMM view `[M, N, K]` for a convolution ([`implicit_gemm`]); `groups` says which compute
/// axes each stands for.
#[derive(Clone, Debug)]
pub struct MmaPlan {
    /// The instructions (and so the lanes of a warp).
    pub family: Family,
    /// The compute axes of each plan axis, outer to inner (one each unless a view merges).
    pub groups: Vec<Vec<usize>>,
    /// The plan axes playing m, n and k.
    pub m: usize,
    pub n: usize,
    pub k: usize,
    /// The other spatial axes (batch), in order.
    pub batch: Vec<usize>,
    /// Extents of the plan axes.
    pub extents: Vec<i64>,
    /// The block tile per plan axis; along k, the pipeline's k-step (the program's
    /// k-tile, or a shallower step for a deep one: [`pipeline`]).
    pub block: Vec<i64>,
    /// The tile of one warp along m and n (a warpgroup's `wgmma` tile split over its 4 warps
    /// by rows on sm_90 programs; a wavefront's whole MFMA instructions on AMD).
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
    /// Blocks per spatial plan axis (in order) and in all.
    pub grid: Vec<i64>,
    pub blocks: i64,
    pub threads: i64,
    /// Bytes of all stages of both operands' tiles.
    pub shared_bytes: u64,
    /// The compute's extents (a view's axes delinearise into them; the output's dims are
    /// the compute's first `out_rank` axes, its spatial ones).
    pub compute_extents: Vec<i64>,
    pub out_rank: usize,
    /// Static shared memory a kernel may declare on the device.
    pub static_limit: u64,
}

/// The two accesses of `te.sum(f32(A[..]) * f32(B[..]))` accumulated in f32, else why not.
fn mma_accesses(c: &TeCompute) -> Result<[usize; 2], String> {
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
    match &c.body {
        Expr::Binary(BinOp::Mul, x, y) => match (cast(x), cast(y)) {
            (Some(a0), Some(a1)) => Ok([a0, a1]),
            _ => Err("tensor cores need a body of the form f32(A[..]) * f32(B[..])".into()),
        },
        _ => Err("tensor cores need a body of the form f32(A[..]) * f32(B[..])".into()),
    }
}

/// One operand's matrix view (see [`OperandPlan`]).
#[derive(Clone)]
struct View {
    dims: Vec<usize>,
    shape: Vec<i64>,
    collapse: Option<Vec<Vec<usize>>>,
    gather: Option<Gather>,
}

/// The GEMM a program tiles: its axes (the compute axes each stands for, whether it is a
/// reduction, its extent), `[m, n, k]` among them, the accesses playing A and B and their
/// matrix views.
struct Gemm {
    groups: Vec<Vec<usize>>,
    reduction: Vec<bool>,
    extents: Vec<i64>,
    mnk: [usize; 3],
    acc: [usize; 2],
    views: [View; 2],
}

/// The GEMM of `c` over its own axes when it is a plain contraction (each tensor dim indexed
/// by one axis: matmul, batch matmul), else why not.
fn own_gemm(c: &TeCompute) -> Result<Gemm, String> {
    let conv = "the tensor-core lowering takes contractions whose operands are indexed by \
                single axes (matmul, batch matmul) over the compute's axes; a convolution \
                takes programs over its implicit GEMM view";
    let [a0, a1] = mma_accesses(c)?;
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
    let view = |a: usize, dims: Vec<usize>| View {
        dims,
        shape: c.inputs[c.accesses[a].input].shape.clone(),
        collapse: None,
        gather: None,
    };
    Ok(Gemm {
        groups: (0..c.axes.len()).map(|x| vec![x]).collect(),
        reduction: c
            .axes
            .iter()
            .map(|a| a.kind == AxisKind::Reduction)
            .collect(),
        extents: c.extents(),
        mnk: [m, n, k],
        acc: [a0, a1],
        views: [view(a0, d0), view(a1, d1)],
    })
}

/// The implicit GEMM of the convolution `c` under a program over `axes` ([`implicit_gemm`]:
/// `M` output pixels, `N` output channels, `K` the reduction axes in the weights' order):
/// A is the data gathered im2col-style, B the weights as a `[n, k]` or `[k, n]` matrix.
fn conv_gemm(c: &TeCompute, axes: &[String]) -> Result<Gemm, String> {
    let acc = mma_accesses(c)?;
    let info = expr_from_compute(c)?;
    let g = implicit_gemm(&info)
        .filter(|g| axis_names(g) == axes)
        .ok_or_else(|| {
            format!(
                "tensor-core program axes {axes:?} are neither the compute's nor its implicit GEMM view"
            )
        })?;
    if c.padded_from.is_some() {
        return Err("tensor cores do not lower a convolution padded by --tensor-padding".into());
    }
    let reads = distinct_reads(c);
    let (ad, aw) = (reads[g.data], reads[g.weights]);
    if !(acc == [ad, aw] || acc == [aw, ad]) {
        return Err("the body must multiply the convolution's data and weights".into());
    }
    let ext = g.expr.extents();
    let (em, en, ek) = (ext[0] as i64, ext[1] as i64, ext[2] as i64);
    let kin = *g.groups[2]
        .last()
        .ok_or("the implicit GEMM has no reduction axis")?;
    let rank = c.inputs[c.accesses[aw].input].shape.len();
    let (dims, shape, collapse) = if g.weights_n_last {
        (
            vec![2, 1],
            vec![ek, en],
            vec![(0..rank - 1).collect(), vec![rank - 1]],
        )
    } else {
        (vec![1, 2], vec![en, ek], vec![vec![0], (1..rank).collect()])
    };
    let weights = View {
        dims,
        shape,
        collapse: (rank > 2).then_some(collapse),
        gather: None,
    };
    let data = View {
        dims: vec![0, 2],
        shape: vec![em, ek],
        collapse: None,
        gather: Some(Gather {
            channels_last: {
                let d = &c.inputs[c.accesses[ad].input].shape;
                c.accesses[ad].map.results.last() == Some(&AffineExpr::Dim(kin as u32))
                    && d.last() == Some(&c.axes[kin].extent)
            },
            m_fastest: c.accesses[ad]
                .map
                .results
                .last()
                .is_some_and(|e| g.groups[0].iter().any(|&x| e.uses_dim(x as u32))),
            map: c.accesses[ad].map.results.clone(),
            shape: c.inputs[c.accesses[ad].input].shape.clone(),
            pad: c.accesses[ad].pad,
        }),
    };
    Ok(Gemm {
        groups: g.groups.to_vec(),
        reduction: vec![false, false, true],
        extents: vec![em, en, ek],
        mnk: [0, 1, 2],
        acc: [ad, aw],
        views: [data, weights],
    })
}

/// The largest copy chunk (elements of 2 bytes, at most `max`) that keeps every copy's
/// global source aligned: the tensor's rows (its contiguous extent) are a multiple of it.
fn chunk_for(row: i64, max: i64) -> i64 {
    [8, 4, 2]
        .into_iter()
        .find(|&c| c <= max && row % c == 0)
        .unwrap_or(1)
}

/// The instruction family of a tensor-core program on `dev` for `dtype` operands, with the
/// program's instruction shape `want` (`None`: the device's first): AMD devices (the
/// `rocdl` back end) run MFMA, NVIDIA ones from sm_80 mma.sync; anything else, or a shape
/// the device does not have, is refused with the reason.
fn family(dev: &Device, dtype: &str, want: Option<[u64; 3]>) -> Result<(Family, u64), String> {
    let target = dev.target();
    let chip = target.chip.as_str();
    let instrs = dev.mma(dtype).map(|(_, i)| i).unwrap_or_default();
    let instr = match want {
        Some(s) => instrs.iter().find(|i| i.shape == s),
        None => instrs.first(),
    };
    let have: Vec<[u64; 3]> = instrs.iter().map(|i| i.shape).collect();
    let Some(instr) = instr else {
        let asked = want.map_or(String::new(), |s| format!(" of shape {s:?}"));
        return Err(format!(
            "device '{}' ({chip}) has no {dtype} matrix instruction{asked} (it has {have:?})",
            dev.name
        ));
    };
    if target.backend == "rocdl" {
        let [m, n, k] = instr.shape.map(|v| v as i64);
        if ![[32, 32, 8], [16, 16, 16]].contains(&[m, n, k]) || chip != "gfx90a" {
            return Err(format!(
                "the AMD tensor-core lowering emits gfx90a MFMAs 32x32x8 and 16x16x16 (f16, bf16_1k); device '{}' ({chip}) asks for {}",
                dev.name, instr.instruction
            ));
        }
        return Ok((Family::Mfma([m, n, k]), 1));
    }
    let sm = chip
        .strip_prefix("sm_")
        .and_then(|v| v.trim_end_matches('a').parse::<u32>().ok());
    if sm.is_none_or(|v| v < 80) {
        return Err(format!(
            "the tensor-core lowering emits sm_80 mma.sync (m16n8k16) or gfx90a MFMAs; device '{}' ({chip}) has neither",
            dev.name
        ));
    }
    Ok((Family::MmaSync, instr.warps.max(1)))
}

impl MmaPlan {
    /// The plan of `c` under the tensor-core program `p` on `dev`.
    pub fn new(c: &TeCompute, p: &RProgram, dev: &Device) -> Result<MmaPlan, String> {
        let own = p.axes.is_empty() || p.axes.iter().eq(c.axes.iter().map(|a| &a.name));
        let gemm = if own {
            own_gemm(c)?
        } else {
            conv_gemm(c, &p.axes)?
        };
        let ([m, n, k], acc) = (gemm.mnk, gemm.acc);
        let input = c.inputs[c.accesses[acc[0]].input].elem;
        if !matches!(input, ElemType::F16 | ElemType::BF16)
            || c.inputs[c.accesses[acc[1]].input].elem != input
        {
            return Err("tensor cores need f16 or bf16 operands of one type".into());
        }
        let extents = gemm.extents.clone();
        let block: Vec<i64> = p.block.iter().map(|&v| v as i64).collect();
        let thread: Vec<i64> = p.thread.iter().map(|&v| v as i64).collect();
        if block.len() != extents.len() || thread.len() != extents.len() {
            return Err("the program's tiles do not match the compute's axes".into());
        }
        // The program's instruction (or the device's preferred one, as the construction
        // reads a program without `mma`): a warpgroup instruction (sm_90 wgmma, 4 warps of
        // its 64 rows) splits by rows into its warps' mma.sync tiles; an MFMA program's warp
        // tile is its wavefront's.
        let dtype = if input == ElemType::F16 {
            "f16"
        } else {
            "bf16"
        };
        let (family, group) = family(dev, dtype, p.mma)?;
        let shape = family.shape();
        let (warp_m, warp_n) = (thread[m] / group as i64, thread[n]);
        if warp_m % shape[0] != 0 || warp_n % shape[1] != 0 || block[k] % shape[2] != 0 {
            return Err(format!(
                "the warp tile {warp_m}x{warp_n} (k-step {}) is not whole {}x{}x{} instructions",
                block[k], shape[0], shape[1], shape[2]
            ));
        }
        let batch: Vec<usize> = (0..extents.len())
            .filter(|&x| !gemm.reduction[x] && x != m && x != n)
            .collect();
        if batch.iter().any(|&b| thread[b] != 1) {
            return Err("a batch axis has a warp tile other than 1".into());
        }
        let slices: i64 = batch.iter().map(|&b| block[b]).product();
        let warps = [slices, block[m] / warp_m, block[n] / warp_n];
        let threads = warps.iter().product::<i64>() * family.lanes();
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
        } = pipeline(
            &gemm.views,
            &extents,
            acc,
            [m, n, k],
            block,
            (slices, threads),
            (family, limit),
        )?;
        let spatial: Vec<usize> = (0..extents.len()).filter(|&x| !gemm.reduction[x]).collect();
        let grid: Vec<i64> = spatial
            .iter()
            .map(|&x| (extents[x] + block[x] - 1) / block[x])
            .collect();
        let blocks: i64 = grid.iter().product();
        if blocks > i32::MAX as i64 {
            return Err("grid too large".into());
        }
        Ok(MmaPlan {
            family,
            groups: gemm.groups,
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
            out_rank: c.num_parallel(),
            compute_extents: c.extents(),
        })
    }

    /// The spatial plan axes in order.
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
/// as many as there are k-steps, or when an operand is copied with ordinary loads; else the
/// deepest shallower step of [`PIPELINE_K_STEPS`] that does, else the one with the most
/// stages), the operands' shared tiles,
/// the number of stages (the most that fit, at most [`MAX_STAGES`], never more than there
/// are k-steps), the k-steps, and one stage's bytes. Roller's rTile (§3.1, §5.1) fixes the
/// k extent its traffic model reads per block step; staging it whole would hold one
/// 272-deep step of a 256×128 tile (over 200 KiB) in one buffer with no overlap of copies
/// and MMAs, so the lowering streams it in k-steps through a cp.async pipeline instead:
/// the same global traffic, a fraction of the shared memory. `family` sets the stage limit
/// and the tiles' padding and copy chunk; `limit` is the block's shared bytes.
fn pipeline(
    views: &[View; 2],
    extents: &[i64],
    acc: [usize; 2],
    [m, n, k]: [usize; 3],
    block: Vec<i64>,
    (slices, threads): (i64, i64),
    (family, limit): (Family, i64),
) -> Result<Pipeline, String> {
    let steps: Vec<i64> = std::iter::once(block[k])
        .chain(PIPELINE_K_STEPS.into_iter().filter(|&s| s < block[k]))
        .collect();
    // An MFMA kernel's second stage is a register prefetch: a gathered im2col's values and
    // index chains would stay live across the MFMAs (the full-size NHWC C0 conv on MI250X
    // spilled 64 bytes a lane under its 128-VGPR cap), so a convolution keeps one stage.
    let gathered = views.iter().any(|v| v.gather.is_some());
    let max_stages = if gathered && family != Family::MmaSync {
        1
    } else {
        family.max_stages()
    };
    let mut best: Option<Pipeline> = None;
    let mut smallest_stage = i64::MAX;
    for step in steps {
        let mut b = block.clone();
        b[k] = step;
        let ops = [
            operand(
                family,
                views[0].clone(),
                acc[0],
                (m, k),
                &b,
                (slices, threads),
            )?,
            operand(
                family,
                views[1].clone(),
                acc[1],
                (n, k),
                &b,
                (slices, threads),
            )?,
        ];
        let stage_bytes: i64 = ops.iter().map(|o| o.alloc_rows * o.stride() * 2).sum();
        smallest_stage = smallest_stage.min(stage_bytes);
        let k_steps = (extents[k] + step - 1) / step;
        let Some(stages) = (1..=max_stages.min(k_steps))
            .rev()
            .find(|s| s * stage_bytes <= limit)
        else {
            continue;
        };
        // An operand copied with ordinary loads (chunk 1: a gathered NCHW conv's im2col)
        // holds each stage's values in registers until it stores them: shallower steps and
        // more stages buy it no overlap and cost registers (the full-size C0 conv on A100
        // spilled 316 bytes at 4 stages), so such a program keeps its own k-tile.
        let synchronous = ops.iter().any(|o| o.chunk == 1);
        let wanted = WANTED_STAGES.min(max_stages);
        let enough = synchronous || stages >= wanted.min(k_steps);
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

/// The shared tile of access `a` (matrix view `v`), whose GEMM axes are `(own, k)` (m or
/// n, and k).
///
/// A gathered operand (a convolution's im2col) is copied element by element with plain
/// loads and shared stores (`chunk` 1) where consecutive k of one pixel are not consecutive
/// in the data (NCHW: a window row of `KW` ≤ 3 elements at any alignment; NHWC with OIHW
/// weights: k steps over the window first), as `cp.async` needs 4-, 8- or 16-byte aligned
/// contiguous sources; where the read leaves the data (zero padding) or the view the value
/// is selected, not copied. Channels last ([`Gather::channels_last`]) with `C` a multiple of
/// 2, 4 or 8 and zero padding, a chunk of that many channels is contiguous and aligned
/// (`k` and `C` are multiples of it, so is `c`) and is copied by `cp.async`, the padding
/// zero-filled by `srcElements = 0` — when that leaves at most [`GATHER_UNROLL`] copies a
/// thread: the tokens must reach the stage's group, so the copies are unrolled, and each
/// has its own pixel's index chain live with the accumulators (the full-size ResNet conv on
/// A100, 9 such copies a thread under a 96-register cap, spilled 184 bytes).
fn operand(
    family: Family,
    v: View,
    a: usize,
    (own, k): (usize, usize),
    block: &[i64],
    (slices, threads): (i64, i64),
) -> Result<OperandPlan, String> {
    let View {
        dims,
        shape,
        collapse,
        gather,
    } = v;
    let last = *dims.last().ok_or("an operand without dims")?;
    let (inner, outer) = if last == k { (k, own) } else { (own, k) };
    if last != k && last != own {
        return Err("an operand's contiguous dim must be one of its GEMM axes".into());
    }
    // ldmatrix gives A's fragment from an m-major (row-major m×k) tile and B's from an
    // n-major one (k contiguous); a tile stored the other way is read with `.trans`.
    let trans = inner == own;
    let (cols, rows) = (block[inner], block[outer]);
    // MFMA tiles take plain 8-byte LDS stores (chunks of at most 4 elements) into rows of
    // an odd number of 8-byte units (see `mma::mfma`).
    let pad = match family {
        Family::MmaSync => {
            if (cols / 8) % 2 == 0 {
                8
            } else {
                0
            }
        }
        Family::Mfma(_) => (12 - cols % 8) % 8,
    };
    let max_chunk = family.max_chunk();
    let copies = |chunk: i64| (slices * rows * cols / chunk + threads - 1) / threads;
    let chunk = match &gather {
        Some(g) if g.channels_last && g.pad.is_none_or(|v| v == 0.0) => {
            let c = chunk_for(g.shape[g.shape.len() - 1], max_chunk);
            if c > 1 && cols % c == 0 && copies(c) <= GATHER_UNROLL {
                c
            } else {
                1
            }
        }
        Some(_) => 1,
        None => chunk_for(shape[shape.len() - 1], max_chunk),
    };
    let per_stage = slices * rows * cols / chunk;
    let copies_per_thread = (per_stage + threads - 1) / threads;
    let alloc_rows = ((copies_per_thread * threads * chunk + cols - 1) / cols).max(slices * rows);
    Ok(OperandPlan {
        access: a,
        dims,
        shape,
        collapse,
        gather,
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
