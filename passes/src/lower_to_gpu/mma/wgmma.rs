//! The sm_90a tensor-core lowering: a matmul under an H100 program (warpgroup tiles, Roller
//! §5.1's MMA-aligned rTile with the `wgmma` instruction) becomes a kernel that
//! - loads each k-step's A and B tiles with TMA (`nvgpu.tma.async.load`, one thread, boxes
//!   of 64 k × the warpgroup's rows for A, and for B 64 k × 64 n when B is stored
//!   n-contiguous ([k, n]) or the warpgroup's n × 64 k when stored k-contiguous ([n, k]),
//!   128-byte swizzled, zero filled past the tensor's edges) into a multi-stage ring of
//!   shared buffers, each stage
//!   completing on its own mbarrier (transaction bytes announced by
//!   `nvgpu.mbarrier.arrive.expect_tx`, waited for by phase parity);
//! - multiplies with `nvgpu.warpgroup.mma` (wgmma m64nNk16 from shared-memory descriptors,
//!   f32 accumulators in registers; `transposeB` when B is n-contiguous, i.e. MN-major in
//!   shared memory, none when k-contiguous: K-major like A, PTX ISA §9.7.15.5.1), one
//!   accumulator per warpgroup carried through the k loop;
//! - stores the accumulators into shared memory (`nvgpu.warpgroup.mma.store`), then copies
//!   the block tile to global memory row by row (coalesced), converted to the result type
//!   and guarded at the edges.
//!
//! Two structures (`warp-specialize=`):
//! - warp-specialised (the default where the block has room for 128 more threads): CUTLASS's
//!   sm90 "warp-specialized" kernel. The block's last warpgroup is the producer: its first
//!   thread loops over the k-steps, waits on the stage's `empty` mbarrier (phase parity),
//!   announces the bytes on its `full` mbarrier and issues the TMA loads. The other
//!   warpgroups are consumers: they wait on `full`, run the MMA (which waits for its wgmma
//!   group to retire) and release the stage with one arrival per warpgroup on `empty`; no
//!   block barrier in the main loop. The producer stays alive (idle) to join the
//!   epilogue's block barriers, which only consumers work between.
//! - single-role: every iteration starts with `gpu.barrier` (all warpgroups finished the
//!   previous step's MMA), then thread 0 loads k-step `kt + S - 1` into the stage step
//!   `kt - 1` used, so the stage a k-step is loaded into was last read two barriers earlier.
//!
//! Register reallocation (`setmaxnreg`) is not used: the producer keeps the block's
//! per-thread register count.
//!
//! Applies to 2-d matmuls and batch matmuls with A either
//! [m, k] (K contiguous) or [k, m] (M contiguous: taken MN-major, `transposeA`, boxes of
//! 64 k × 64 m) and B either [k, n] (N
//! contiguous) or [n, k] (K contiguous: A·Bᵀ, as Q·Kᵀ or a Linear layer's weight),
//! f16/bf16 operands, rows of a multiple of 16 bytes (TMA's global stride rule), warpgroup
//! tiles of a multiple of 64 rows and 32 to 256 columns in steps of 8 (with an
//! n-contiguous B a tile that is not whole 64-column B boxes is computed as the next whole
//! box, its extra columns dropped by the epilogue; a k-contiguous B's box is the tile's
//! own rows); otherwise [`WgmmaPlan::new`] says why and the sm_80 `mma.sync` lowering
//! is used.
//!
//! A batch matmul has any number of batch axes (BERT's attention `[batch, heads, seq, d]`
//! has two), each block computing one index of each: the block index is decoded n
//! fastest, then m, then the batch axes, the last fastest. Each operand's tensor map keeps
//! its tensor's own dims (rank 2 + the batch axes it has, at most 5, TMA's limit): a box
//! is one slice of each batch axis, `[1, .., 1, rows, cols]` when they come first, and a
//! batch axis may sit anywhere but innermost (`[rows, 1, cols]`: the same bytes in shared
//! memory). An operand without some batch axis is shared by those indices (a batched
//! activation times a weight, `A[b, m, k]·W[k, n]` or `W[n, k]`): its coordinates are only
//! its m or n and k.

use rtile::ir::{Attribute, Context, Type, TypeKind, Value};
use rtile::printer::type_to_string;
use rtile_dialects::te::model::{ElemType, TeCompute};
use rtile_gpu_vocab::{CmpIPredicate, Launch};

use super::super::emit::Emitter;
use super::super::kernel::{LoweredKernel, reference_text};
use super::super::launch::build_gpu_func;
use super::super::pass::segment_sizes;
use super::super::types::{dynamic_shared_bytes, memref, shared_memref};
use super::PIPELINE_STAGES;
use super::plan::MmaPlan;
use crate::device::{Device, TMA_SWIZZLE_BYTES};

/// 16-bit elements in one 128-byte swizzle span ([`TMA_SWIZZLE_BYTES`]).
const SPAN_ELEMS: i64 = TMA_SWIZZLE_BYTES as i64 / 2;
/// Elements of k one stage holds: one 128-byte swizzle span of 16-bit elements.
pub const K_STEP: i64 = SPAN_ELEMS;
/// Columns of one B box (128 bytes of n; the construction aligns n-major warpgroup tiles
/// to it: `construct_rtile::align`).
const B_BOX_COLS: i64 = SPAN_ELEMS;
/// Columns of one m-contiguous A box (128 bytes of m).
const A_BOX_COLS: i64 = SPAN_ELEMS;
/// Most stages of the TMA ring.
const MAX_STAGES: i64 = 4;
/// Registers per thread a wgmma kernel needs beside its accumulator.
const ACC_HEADROOM: i64 = 32;
/// Threads of a warpgroup.
const WARPGROUP: i64 = 128;

/// The attribute naming each tensor map's global memref.
pub use rtile_dialects::rtile::TENSOR_MAP_OF;

/// The plan of one wgmma kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WgmmaPlan {
    /// Extents m, n, k.
    pub m: i64,
    pub n: i64,
    pub k: i64,
    /// The block tile (m, n) and the warpgroup tile (m, n).
    pub block_m: i64,
    pub block_n: i64,
    pub wg_m: i64,
    pub wg_n: i64,
    /// The warpgroup's wgmma N: with an n-contiguous B `wg_n` rounded up to whole
    /// 64-column B boxes (the columns past `wg_n` are computed and not stored); `wg_n`
    /// with a k-contiguous B.
    pub wg_n_pad: i64,
    /// Whether B is stored [n, k] with k contiguous: its boxes are `wg_n` rows of n × 64 k
    /// and the MMA takes it K-major (no `transposeB`).
    pub b_k_major: bool,
    /// Whether A is stored [k, m] with m contiguous: its boxes are 64 k × 64 m (as an
    /// n-contiguous B's), `wg_m / 64` per warpgroup, and the MMA takes it MN-major
    /// (`transposeA`, PTX `imm-trans-a` 1).
    pub a_m_major: bool,
    /// The batch indices of a batch matmul (`C[b.., m, n] = Σ_k A[b.., ..]·B[b.., ..]`, the
    /// product of its batch axes' extents: each block computes one), `None` for a matmul.
    pub batch: Option<i64>,
    /// The extent of each batch axis, in the compute's order (empty for a matmul).
    pub batch_extents: Vec<i64>,
    /// What indexes each dimension of A's and B's tensors (outermost first): the tensor
    /// maps keep the tensors' own dims, one slice of each batch axis per box.
    pub maps: [Vec<Dim>; 2],
    /// What indexes each dimension of the result.
    pub out: Vec<Dim>,
    /// Blocks along m and n (the grid is `batch × grid_m × grid_n`: n fastest, then m,
    /// then the batch axes, the last fastest).
    pub grid_m: i64,
    pub grid_n: i64,
    /// Threads of the block: the consumer warpgroups, plus the producer warpgroup when
    /// warp-specialised.
    pub threads: i64,
    /// Whether the kernel is warp-specialised: one extra producer warpgroup issues the TMA
    /// loads, the others only compute (see [`lower_wgmma`]).
    pub warp_specialized: bool,
    pub stages: i64,
    /// k-steps of [`K_STEP`].
    pub k_steps: i64,
    /// Bytes of one stage (A then B) and of the shared buffer (the ring, or the epilogue's
    /// f32 tiles when larger: they reuse it).
    pub stage_bytes: i64,
    pub shared_bytes: i64,
    pub input: ElemType,
    pub output: ElemType,
    /// Arguments of A and B (the compute's inputs).
    pub a_arg: usize,
    pub b_arg: usize,
}

impl WgmmaPlan {
    /// The wgmma plan of `plan` (the sm_80 plan of the same program) on `dev`, or why not;
    /// warp-specialised when `warp_specialize` asks for it and the block has room for the
    /// producer warpgroup (at most 1024 threads, the accumulator's registers still fit).
    pub fn new(
        c: &TeCompute,
        plan: &MmaPlan,
        dev: &Device,
        warp_specialize: bool,
    ) -> Result<WgmmaPlan, String> {
        let chip = dev.target().chip;
        if !chip.starts_with("sm_90") {
            return Err(format!(
                "wgmma needs sm_90a; device '{}' is {chip}",
                dev.name
            ));
        }
        if plan
            .ops
            .iter()
            .any(|o| o.gather.is_some() || o.collapse.is_some())
        {
            return Err(
                "the wgmma lowering takes matmuls and batch matmuls (operands indexed by single axes), not convolutions"
                    .into(),
            );
        }
        if plan.slices != 1 {
            return Err(format!(
                "a wgmma block computes one batch index (one of each batch axis); the program's block tile has {} batch slices",
                plan.slices
            ));
        }
        let layouts = [
            map_layout(plan, 0, Dim::M, "A")?,
            map_layout(plan, 1, Dim::N, "B")?,
        ];
        let out = plan
            .spatial()
            .iter()
            .map(|&x| {
                dim_of(plan, x).ok_or("the result must be indexed by the batch axes, m and n")
            })
            .collect::<Result<Vec<_>, _>>()?;
        let [a, b] = &plan.ops;
        // A stored [k, m] (m contiguous) is taken MN-major (`transposeA`).
        let a_m_major = a.inner == plan.m;
        let b_k_major = b.inner == plan.k;
        let (m, n, k) = (
            plan.extents[plan.m],
            plan.extents[plan.n],
            plan.extents[plan.k],
        );
        // Each operand's rows are its contiguous extent long (A's k or m, B's k or n): TMA
        // needs them a multiple of 16 bytes.
        let a_row = if a_m_major { m } else { k };
        let b_row = if b_k_major { k } else { n };
        if (a_row * 2) % 16 != 0 || (b_row * 2) % 16 != 0 {
            return Err(format!(
                "TMA needs rows of a multiple of 16 bytes (A's rows are {a_row} long, B's {b_row}: multiples of 8)"
            ));
        }
        let (block_m, block_n) = (plan.block[plan.m], plan.block[plan.n]);
        let (wg_m, wg_n) = (plan.warp_m * 4, plan.warp_n);
        let wg_n_pad = if b_k_major {
            wg_n
        } else {
            (wg_n + B_BOX_COLS - 1) / B_BOX_COLS * B_BOX_COLS
        };
        // Padding a narrow tile to a whole box costs MMA work: at most 2×.
        if wg_m % 64 != 0 || wg_n % 8 != 0 || wg_n < 32 || wg_n_pad > 256 || wg_m > 256 {
            return Err(format!(
                "the warpgroup tile {wg_m}x{wg_n} is not whole m64 slabs of 32 to 256 columns (a multiple of 8)"
            ));
        }
        if block_m % wg_m != 0 || block_n % wg_n != 0 {
            return Err("the block tile is not whole warpgroup tiles".into());
        }
        let groups_n = block_n / wg_n;
        let consumers = block_m / wg_m * groups_n * WARPGROUP;
        // The accumulator lives in registers: with the block's share of the register file
        // (its warps spread over the SM's 4 sub-partitions, allocated in steps of 8) it
        // must leave room for addresses, descriptors and loop state (ptxas needs about 26).
        let acc_regs = wg_m / 64 * wg_n_pad / 2;
        let fits = |threads: i64| {
            let warps_per_partition = (threads / 32 + 3) / 4;
            let share =
                ((dev.regs_per_core as i64 / 4) / (warps_per_partition * 32) / 8 * 8).min(255);
            (acc_regs + ACC_HEADROOM <= share, share)
        };
        let (ok, share) = fits(consumers);
        if !ok {
            return Err(format!(
                "the {wg_m}x{wg_n_pad} accumulator needs {acc_regs} registers per thread and {consumers} threads leave {share}"
            ));
        }
        let with_producer = consumers + WARPGROUP;
        let warp_specialized = warp_specialize && with_producer <= 1024 && fits(with_producer).0;
        let threads = if warp_specialized {
            with_producer
        } else {
            consumers
        };
        let k_steps = (k + K_STEP - 1) / K_STEP;
        let stage_bytes = (block_m + groups_n * wg_n_pad) * K_STEP * 2;
        let epilogue = block_m * groups_n * wg_n_pad * 4;
        // Room for the mbarriers and the 1024-byte alignment of the swizzled tiles.
        let capacity = dev.layers[Device::SHARED].capacity_bytes as i64 - 1024;
        let stages = (capacity / stage_bytes).min(MAX_STAGES).min(k_steps);
        if stages < 1 || epilogue > capacity {
            return Err(format!(
                "one stage ({stage_bytes} bytes) or the epilogue ({epilogue}) does not fit shared memory"
            ));
        }
        let input_arg = |w: usize| c.accesses[plan.ops[w].access].input;
        let batch_extents: Vec<i64> = plan.batch.iter().map(|&b| plan.extents[b]).collect();
        let (grid_m, grid_n) = ((m + block_m - 1) / block_m, (n + block_n - 1) / block_n);
        if batch_extents.iter().product::<i64>() * grid_m * grid_n > i32::MAX as i64 {
            return Err("grid too large".into());
        }
        Ok(WgmmaPlan {
            m,
            n,
            k,
            block_m,
            block_n,
            wg_m,
            wg_n,
            wg_n_pad,
            b_k_major,
            a_m_major,
            batch: (!plan.batch.is_empty()).then(|| batch_extents.iter().product()),
            batch_extents,
            maps: layouts,
            out,
            grid_m,
            grid_n,
            threads,
            warp_specialized,
            stages,
            k_steps,
            stage_bytes,
            shared_bytes: (stages * stage_bytes).max(epilogue),
            input: plan.input,
            output: plan.output,
            a_arg: input_arg(0),
            b_arg: input_arg(1),
        })
    }

    /// Bytes of A's tile in a stage.
    fn a_bytes(&self) -> i64 {
        self.block_m * K_STEP * 2
    }

    /// Blocks of the grid.
    pub fn blocks(&self) -> i64 {
        self.batch.unwrap_or(1) * self.grid_m * self.grid_n
    }

    /// The shape a TMA box of `rows × cols` of operand `w` (0: A, 1: B) is loaded as, over
    /// its tensor's dims: `cols` on the last (contiguous) one, 1 on each batch axis (one
    /// slice), `rows` on the other GEMM axis: `[rows, cols]`, `[1, rows, cols]`,
    /// `[rows, 1, cols]`, .. (the same bytes as the `rows × cols` matrix).
    fn box_dims(&self, w: usize, rows: i64, cols: i64) -> Vec<i64> {
        let dims = &self.maps[w];
        dims.iter()
            .enumerate()
            .map(|(i, d)| match d {
                _ if i + 1 == dims.len() => cols,
                Dim::Batch(_) => 1,
                _ => rows,
            })
            .collect()
    }

    /// Threads of the consumer warpgroups (the ones computing; the block's first).
    pub fn consumer_threads(&self) -> i64 {
        self.block_m / self.wg_m * (self.block_n / self.wg_n) * WARPGROUP
    }
}

/// What indexes one dimension of an operand or of the result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dim {
    /// Batch axis `i` of the plan (in the compute's order): the block's own index.
    Batch(usize),
    M,
    N,
    K,
}

/// Most dimensions of a TMA tensor map (`cuTensorMapEncodeTiled`'s `tensorRank`, CUDA Driver
/// API §6.30 "Tensor Map Object Management"; PTX `cp.async.bulk.tensor.{1..5}d`).
pub const MAX_MAP_RANK: usize = 5;

/// The role of plan axis `x`.
fn dim_of(plan: &MmaPlan, x: usize) -> Option<Dim> {
    if x == plan.m {
        Some(Dim::M)
    } else if x == plan.n {
        Some(Dim::N)
    } else if x == plan.k {
        Some(Dim::K)
    } else {
        plan.batch.iter().position(|&b| b == x).map(Dim::Batch)
    }
}

/// The tensor-map layout of operand `w` (`own`: its m or n, `name`: "A" or "B"): what
/// indexes each of its tensor's dims, outermost first, or why TMA cannot load it. The map
/// keeps the tensor's own dims in their own order, so a batch axis may sit anywhere but
/// innermost: `cuTensorMapEncodeTiled` takes dimension 0 as the contiguous one (its
/// `globalStrides` give only dimensions 1..rank-1) and the box's innermost extent is the
/// shared tile's row; a tensor whose contiguous dim is a batch axis would need a box of one
/// element per row. The operand may lack any batch axis (shared by those batch indices:
/// `A[b, m, k]·W[k, n]`).
fn map_layout(plan: &MmaPlan, w: usize, own: Dim, name: &str) -> Result<Vec<Dim>, String> {
    let dims: Vec<Dim> = plan.ops[w]
        .dims
        .iter()
        .map(|&x| dim_of(plan, x))
        .collect::<Option<_>>()
        .ok_or_else(|| {
            format!("{name} is indexed by an axis that is not m, n, k or a batch axis")
        })?;
    if (1..dims.len()).any(|i| dims[..i].contains(&dims[i])) {
        return Err(format!(
            "{name} indexes two of its dims by one axis: a TMA box steps each dim on its own"
        ));
    }
    let other = if own == Dim::M { Dim::N } else { Dim::M };
    if !dims.contains(&own) || !dims.contains(&Dim::K) || dims.contains(&other) {
        return Err(format!("{name} must be indexed by its own GEMM axis and k"));
    }
    if dims.len() > MAX_MAP_RANK {
        return Err(format!(
            "{name} has rank {}: TMA tensor maps have at most {MAX_MAP_RANK} dims (cuTensorMapEncodeTiled), so at most 3 batch axes",
            dims.len()
        ));
    }
    if let Some(Dim::Batch(_)) = dims.last() {
        return Err(format!(
            "{name}'s contiguous (last) dim is a batch axis: TMA's innermost dim is the box's row, which must be the tile's m, n or k"
        ));
    }
    Ok(dims)
}

fn nvgpu_type(body: String) -> Type {
    Type::new(TypeKind::Dialect {
        dialect: "nvgpu".into(),
        body,
    })
}

/// `!nvgpu.tensormap.descriptor` of a box of shape `dims` (outermost first), 128-byte
/// swizzled, zero filled.
pub fn tensor_map_type(dims: &[i64], e: ElemType) -> Type {
    let shape: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
    nvgpu_type(format!(
        "tensormap.descriptor<tensor = memref<{}x{}, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>",
        shape.join("x"),
        type_to_string(&e.to_type())
    ))
}

fn descriptor_type(view: Type) -> Type {
    nvgpu_type(format!(
        "warpgroup.descriptor<tensor = {}>",
        type_to_string(&view)
    ))
}

fn accumulator_type(m: i64, n: i64) -> Type {
    nvgpu_type(format!(
        "warpgroup.accumulator<fragmented = vector<{m}x{n}xf32>>"
    ))
}

fn barrier_type(n: i64) -> Type {
    nvgpu_type(format!(
        "mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = {n}>"
    ))
}

/// The values the kernel body is built from.
struct Build<'a, 'c> {
    em: Emitter<'c>,
    p: &'a WgmmaPlan,
    base: Value,
    maps: [Value; 2],
    /// The `full` barriers (one per stage, completed by the stage's TMA bytes).
    bar: Value,
    tid: Value,
    first: Value,
    /// The block's origin along m and n, and its index of each batch axis.
    m0: Value,
    n0: Value,
    batch: Vec<Value>,
}

impl Build<'_, '_> {
    /// A zeroed warpgroup accumulator of the plan's (padded) warpgroup tile.
    fn zero_accumulator(&mut self) -> Value {
        let ty = accumulator_type(self.p.wg_m, self.p.wg_n_pad);
        self.em
            .op("nvgpu.warpgroup.mma.init.accumulator", &[], &[], ty)
    }

    fn div(&mut self, a: Value, c: i64) -> Value {
        let c = self.em.idx(c);
        self.em.ibin("arith.divui", a, c)
    }

    fn rem(&mut self, a: Value, c: i64) -> Value {
        let c = self.em.idx(c);
        self.em.ibin("arith.remui", a, c)
    }

    /// A view of the shared buffer at byte `off` typed `ty`.
    fn view(&mut self, off: Value, ty: Type) -> Value {
        self.em.op("memref.view", &[self.base, off], &[], ty)
    }

    fn byte_offset(&mut self, stage: Value, extra: i64) -> Value {
        let s = self.em.mul_const(stage, self.p.stage_bytes);
        let e = self.em.idx(extra);
        self.em.add(s, e)
    }

    /// One TMA box `rows × cols` of tensor map `map` completing on barrier `st`, into the
    /// shared buffer at byte `off`, its GEMM coordinates `(inner, outer)` (plus the block's
    /// index of each batch axis the operand has, where its tensor has it).
    fn tma(
        &mut self,
        (map, st): (usize, Value),
        (off, rows, cols): (Value, i64, i64),
        coords: [Value; 2],
    ) {
        let p = self.p;
        let dst = self.view(off, shared_memref(&p.box_dims(map, rows, cols), p.input));
        let mut operands = vec![dst, self.bar, self.maps[map]];
        // The tensor's dims innermost first: the row (`coords[0]`), then the batch axes'
        // indices and the other GEMM axis's coordinate where they sit.
        let dims = &p.maps[map];
        for (i, d) in dims.iter().enumerate().rev() {
            operands.push(match d {
                _ if i + 1 == dims.len() => coords[0],
                Dim::Batch(b) => self.batch[*b],
                _ => coords[1],
            });
        }
        operands.push(st);
        let seg = segment_sizes(&[1, 1, 1, operands.len() as i64 - 4, 1, 0, 0]);
        self.em.op0(
            "nvgpu.tma.async.load",
            &operands,
            &[("operandSegmentSizes", seg)],
        );
    }

    /// Thread 0's loads of k-step `kt` into stage `st`: announce the stage's bytes on its
    /// barrier, then one TMA box per warpgroup row band of A and per 64 columns of B.
    fn issue(&mut self, st: Value, kt: Value) {
        let p = self.p;
        let tx = self.em.idx(p.stage_bytes);
        self.em
            .op0("nvgpu.mbarrier.arrive.expect_tx", &[self.bar, tx, st], &[]);
        let k0 = self.em.mul_const(kt, K_STEP);
        if p.a_m_major {
            // A [k, m]: boxes of 64 k × 64 m, coordinates (m, k); a warpgroup's wg_m rows
            // are its wg_m / 64 boxes one after the other.
            for j in 0..p.block_m / A_BOX_COLS {
                let off = self.byte_offset(st, j * A_BOX_COLS * K_STEP * 2);
                let row = self.em.idx(j * A_BOX_COLS);
                let m = self.em.add(self.m0, row);
                self.tma((0, st), (off, K_STEP, A_BOX_COLS), [m, k0]);
            }
        } else {
            for w in 0..p.block_m / p.wg_m {
                let off = self.byte_offset(st, w * p.wg_m * K_STEP * 2);
                let row = self.em.idx(w * p.wg_m);
                let m = self.em.add(self.m0, row);
                self.tma((0, st), (off, p.wg_m, K_STEP), [k0, m]);
            }
        }
        if p.b_k_major {
            // B [n, k]: one box of the warpgroup's wg_n rows of n × 64 k per column group,
            // coordinates (k, n) innermost first.
            for g in 0..p.block_n / p.wg_n {
                let off = self.byte_offset(st, p.a_bytes() + g * p.wg_n * K_STEP * 2);
                let col = self.em.idx(g * p.wg_n);
                let n = self.em.add(self.n0, col);
                self.tma((1, st), (off, p.wg_n, K_STEP), [k0, n]);
            }
            return;
        }
        // Each warpgroup's columns from its own boxes: box j of column group g at n0 +
        // g·wg_n + 64j (overlapping the next group's when wg_n is not whole boxes).
        let boxes = p.wg_n_pad / B_BOX_COLS;
        for j in 0..p.block_n / p.wg_n * boxes {
            let off = self.byte_offset(st, p.a_bytes() + j * K_STEP * B_BOX_COLS * 2);
            let col = self.em.idx(j / boxes * p.wg_n + j % boxes * B_BOX_COLS);
            let n = self.em.add(self.n0, col);
            self.tma((1, st), (off, K_STEP, B_BOX_COLS), [n, k0]);
        }
    }

    /// The k loop: returns this warpgroup's accumulator after it.
    fn main_loop(&mut self, wgm: Value, wgn: Value) -> Value {
        let p = self.p;
        let s = p.stages;
        let (zero, one) = (self.em.idx(0), self.em.idx(1));
        // Stages 0..S-2 loaded ahead (none with one stage: no empty `scf.if`, whose
        // printed form `scf.if %c {}` has no block to parse back).
        let preloaded = (s - 1).min(p.k_steps);
        if preloaded > 0 {
            self.em.begin_then(self.first);
            for st in 0..preloaded {
                let v = self.em.idx(st);
                self.issue(v, v);
            }
            self.em.end_then();
        }
        let acc0 = self.zero_accumulator();
        let steps = self.em.idx(p.k_steps);
        let (kt, acc, res) = self.em.begin_for(zero, steps, one, &[acc0]);
        self.em.barrier();
        let ahead = self.em.idx(s - 1);
        let nk = self.em.add(kt, ahead);
        let in_range = self.em.cmp(CmpIPredicate::Ult, nk, steps);
        let go = self.em.and(Some(self.first), in_range).unwrap_or(in_range);
        self.em.begin_then(go);
        let nst = self.rem(nk, s);
        self.issue(nst, nk);
        self.em.end_then();
        let (cur, odd) = self.stage_of(kt, CmpIPredicate::Ne);
        self.wait(self.bar, odd, cur);
        let next = self.mma(cur, wgm, wgn, acc[0]);
        self.em.end_for(&[next]);
        res[0]
    }

    /// `nvgpu.mbarrier.try_wait.parity` on barrier `st` of `group` for the phase of parity
    /// `parity` (an i1).
    fn wait(&mut self, group: Value, parity: Value, st: Value) {
        let ticks = self.em.idx(10_000_000);
        self.em.op0(
            "nvgpu.mbarrier.try_wait.parity",
            &[group, parity, ticks, st],
            &[],
        );
    }

    /// One k-step's `nvgpu.warpgroup.mma` of warpgroup (`wgm`, `wgn`) on stage `cur`.
    fn mma(&mut self, cur: Value, wgm: Value, wgn: Value, acc: Value) -> Value {
        let p = self.p;
        let a_rows = self.em.mul_const(wgm, p.wg_m * K_STEP * 2);
        let a_stage = self.byte_offset(cur, 0);
        let a_off = self.em.add(a_stage, a_rows);
        let a_ty = shared_memref(&[p.wg_m, K_STEP], p.input);
        let a_view = self.view(a_off, a_ty);
        let b_cols = self.em.mul_const(wgn, p.wg_n_pad * K_STEP * 2);
        let b_stage = self.byte_offset(cur, p.a_bytes());
        let b_off = self.em.add(b_stage, b_cols);
        // The descriptor names the logical K×N operand in both layouts; the tensor map (and
        // `transposeB`) say how it is stored.
        let b_ty = shared_memref(&[K_STEP, p.wg_n_pad], p.input);
        let b_view = self.view(b_off, b_ty);
        let da = self.em.op(
            "nvgpu.warpgroup.generate.descriptor",
            &[a_view, self.maps[0]],
            &[],
            descriptor_type(a_ty),
        );
        let db = self.em.op(
            "nvgpu.warpgroup.generate.descriptor",
            &[b_view, self.maps[1]],
            &[],
            descriptor_type(b_ty),
        );
        let acc_ty = self.em.ty(acc);
        let mut attrs: Vec<(&str, Attribute)> = Vec::new();
        if p.a_m_major {
            attrs.push(("transposeA", Attribute::unit()));
        }
        if !p.b_k_major {
            attrs.push(("transposeB", Attribute::unit()));
        }
        self.em
            .op("nvgpu.warpgroup.mma", &[da, db, acc], &attrs, acc_ty)
    }

    /// The stage of k-step `kt` and whether its round (`kt / S`) is odd (`pred` = `Ne`) or
    /// even (`Eq`), an i1.
    fn stage_of(&mut self, kt: Value, pred: CmpIPredicate) -> (Value, Value) {
        let s = self.p.stages;
        let cur = self.rem(kt, s);
        let round = self.div(kt, s);
        let phase = self.rem(round, 2);
        let zero = self.em.idx(0);
        let parity = self.em.cmp(pred, phase, zero);
        (cur, parity)
    }

    /// A warp-specialised consumer's k loop (CUTLASS's sm90 "warp-specialized" mainloop):
    /// wait for k-step `kt`'s bytes on `full[kt % S]` (the phase of round `kt / S`), run
    /// the MMA (which waits for its wgmma group to retire), then release the stage: one
    /// arrival on `empty[kt % S]` per consumer warpgroup, by its first thread. No block
    /// barrier: the producer refills a stage once every consumer has released it.
    fn consumer_loop(&mut self, wgm: Value, wgn: Value, empty: Value) -> Value {
        let p = self.p;
        let (zero, one) = (self.em.idx(0), self.em.idx(1));
        let acc0 = self.zero_accumulator();
        let steps = self.em.idx(p.k_steps);
        let (kt, acc, res) = self.em.begin_for(zero, steps, one, &[acc0]);
        let (cur, odd) = self.stage_of(kt, CmpIPredicate::Ne);
        self.wait(self.bar, odd, cur);
        let next = self.mma(cur, wgm, wgn, acc[0]);
        let lane = self.rem(self.tid, WARPGROUP);
        let leader = self.em.cmp(CmpIPredicate::Eq, lane, zero);
        self.em.begin_then(leader);
        let token = nvgpu_type("mbarrier.token".into());
        self.em
            .op("nvgpu.mbarrier.arrive", &[empty, cur], &[], token);
        self.em.end_then();
        self.em.end_for(&[next]);
        res[0]
    }

    /// The producer warpgroup's loop, run by its first thread: for each k-step wait until
    /// the consumers have released the stage (`empty[kt % S]`, the phase of the previous
    /// round: parity `(kt / S + 1) % 2`, which a fresh barrier's first wait passes at
    /// once, as CUTLASS's producer starts at phase 1), then announce and issue its loads
    /// on `full[kt % S]`.
    fn producer(&mut self, empty: Value) {
        let p = self.p;
        let (zero, one) = (self.em.idx(0), self.em.idx(1));
        let first = self.em.idx(p.consumer_threads());
        let elected = self.em.cmp(CmpIPredicate::Eq, self.tid, first);
        self.em.begin_then(elected);
        let steps = self.em.idx(p.k_steps);
        let (kt, _, _) = self.em.begin_for(zero, steps, one, &[]);
        let (cur, even) = self.stage_of(kt, CmpIPredicate::Eq);
        self.wait(empty, even, cur);
        self.issue(cur, kt);
        self.em.end_for(&[]);
        self.em.end_then();
    }

    /// The warp-specialised body: the consumer warpgroups (threads below
    /// [`WgmmaPlan::consumer_threads`]) run [`Self::consumer_loop`], the producer
    /// warpgroup [`Self::producer`] and yields an unused zero accumulator so that every
    /// thread stays alive for the epilogue's block barriers. Returns the accumulator and
    /// the consumers' predicate.
    fn specialized(&mut self, wgm: Value, wgn: Value, empty: Value) -> (Value, Value) {
        let p = self.p;
        let bound = self.em.idx(p.consumer_threads());
        let consumer = self.em.cmp(CmpIPredicate::Ult, self.tid, bound);
        let acc_ty = accumulator_type(p.wg_m, p.wg_n_pad);
        let res = self.em.begin_if(consumer, &[acc_ty]);
        let acc = self.consumer_loop(wgm, wgn, empty);
        self.em.else_(&[acc]);
        self.producer(empty);
        let idle = self.zero_accumulator();
        self.em.end_if(Some(&[idle]));
        (res[0], consumer)
    }

    /// Accumulators → shared f32 tiles → the result, coalesced, converted and guarded; only
    /// the threads where `consumers` holds (all when `None`) take part beside the barriers.
    fn epilogue(&mut self, acc: Value, wg: Value, output: Value, consumers: Option<Value>) {
        let p = self.p;
        let groups = p.block_m / p.wg_m * (p.block_n / p.wg_n);
        let threads = p.consumer_threads();
        self.em.barrier();
        if let Some(c) = consumers {
            self.em.begin_then(c);
        }
        let tile = shared_memref(&[p.wg_m, p.wg_n_pad], ElemType::F32);
        let off = self.em.mul_const(wg, p.wg_m * p.wg_n_pad * 4);
        let mine = self.view(off, tile);
        self.em.op0("nvgpu.warpgroup.mma.store", &[acc, mine], &[]);
        if consumers.is_some() {
            self.em.end_then();
        }
        self.em.barrier();
        if let Some(c) = consumers {
            self.em.begin_then(c);
        }
        let zero = self.em.idx(0);
        let all = self.view(
            zero,
            shared_memref(&[groups, p.wg_m, p.wg_n_pad], ElemType::F32),
        );
        let (lo, hi, step) = (
            self.em.idx(0),
            self.em.idx(p.block_m * p.block_n / threads),
            self.em.idx(1),
        );
        let (i, _, _) = self.em.begin_for(lo, hi, step, &[]);
        let base = self.em.mul_const(i, threads);
        let idx = self.em.add(base, self.tid);
        let r = self.div(idx, p.block_n);
        let col = self.rem(idx, p.block_n);
        let (wr, rr) = (self.div(r, p.wg_m), self.rem(r, p.wg_m));
        let (wc, cc) = (self.div(col, p.wg_n), self.rem(col, p.wg_n));
        let band = self.em.mul_const(wr, p.block_n / p.wg_n);
        let g = self.em.add(band, wc);
        let gr = self.em.add(self.m0, r);
        let gc = self.em.add(self.n0, col);
        let mut guard = None;
        if p.m % p.block_m != 0 {
            let bound = self.em.idx(p.m);
            let c = self.em.cmp(CmpIPredicate::Ult, gr, bound);
            guard = self.em.and(guard, c);
        }
        if p.n % p.block_n != 0 {
            let bound = self.em.idx(p.n);
            let c = self.em.cmp(CmpIPredicate::Ult, gc, bound);
            guard = self.em.and(guard, c);
        }
        if let Some(c) = guard {
            self.em.begin_then(c);
        }
        let v = self
            .em
            .op("memref.load", &[all, g, rr, cc], &[], Type::f32());
        let v = if p.output == ElemType::F32 {
            v
        } else {
            self.em.op("arith.truncf", &[v], &[], p.output.to_type())
        };
        let mut operands = vec![v, output];
        operands.extend(p.out.iter().map(|d| match d {
            Dim::Batch(b) => self.batch[*b],
            Dim::M => gr,
            _ => gc,
        }));
        self.em.op0("memref.store", &operands, &[]);
        if guard.is_some() {
            self.em.end_then();
        }
        self.em.end_for(&[]);
        if consumers.is_some() {
            self.em.end_then();
        }
    }
}

/// Builds the wgmma kernel of `p` for `c` as `name`.
pub fn lower_wgmma(
    ctx: &mut Context,
    c: &TeCompute,
    p: &WgmmaPlan,
    name: &str,
) -> Result<LoweredKernel, String> {
    let mut arg_types: Vec<Type> = c.inputs.iter().map(|t| memref(&t.shape, t.elem)).collect();
    arg_types.push(memref(&c.result.shape, c.result.elem));
    let b_box = if p.b_k_major {
        (p.wg_n, K_STEP)
    } else {
        (K_STEP, B_BOX_COLS)
    };
    let a_box = if p.a_m_major {
        (K_STEP, A_BOX_COLS)
    } else {
        (p.wg_m, K_STEP)
    };
    let maps = [
        tensor_map_type(&p.box_dims(0, a_box.0, a_box.1), p.input),
        tensor_map_type(&p.box_dims(1, b_box.0, b_box.1), p.input),
    ];
    arg_types.extend(maps);
    let entry = ctx.create_block(arg_types.clone());
    let args = ctx.block_args(entry).to_vec();
    let nin = c.inputs.len();
    let output = args[nin];
    let mut em = Emitter::new(ctx, entry);
    let (base_op, base) = em.at_entry(
        "gpu.dynamic_shared_memory",
        &[],
        &[],
        dynamic_shared_bytes(),
    );
    let tid = em.id_x("gpu.thread_id");
    let bid = em.id_x("gpu.block_id");
    let zero = em.idx(0);
    let first = em.cmp(CmpIPredicate::Eq, tid, zero);
    let bar = em.op("nvgpu.mbarrier.create", &[], &[], barrier_type(p.stages));
    let empty = p
        .warp_specialized
        .then(|| em.op("nvgpu.mbarrier.create", &[], &[], barrier_type(p.stages)));
    let mut b = Build {
        em,
        p,
        base,
        maps: [args[nin + 1], args[nin + 2]],
        bar,
        tid,
        first,
        m0: zero,
        n0: zero,
        batch: Vec::new(),
    };
    // Blocks n fastest, then m, then the batch axes (the last fastest; the first takes
    // what is left).
    let bn = b.rem(bid, p.grid_n);
    let rest = b.div(bid, p.grid_n);
    let bm = if p.batch_extents.is_empty() {
        rest
    } else {
        let bm = b.rem(rest, p.grid_m);
        let mut rest = b.div(rest, p.grid_m);
        let mut batch = vec![rest; p.batch_extents.len()];
        for (i, &e) in p.batch_extents.iter().enumerate().skip(1).rev() {
            batch[i] = b.rem(rest, e);
            rest = b.div(rest, e);
        }
        batch[0] = rest;
        b.batch = batch;
        bm
    };
    b.m0 = b.em.mul_const(bm, p.block_m);
    b.n0 = b.em.mul_const(bn, p.block_n);
    let wg = b.div(tid, WARPGROUP);
    let wgs_n = p.block_n / p.wg_n;
    let wgn = b.rem(wg, wgs_n);
    let wgm = b.div(wg, wgs_n);
    b.em.begin_then(first);
    let one = b.em.idx(1);
    let releases = b.em.idx(p.consumer_threads() / WARPGROUP);
    for s in 0..p.stages {
        let sv = b.em.idx(s);
        b.em.op0("nvgpu.mbarrier.init", &[bar, one, sv], &[]);
        if let Some(e) = empty {
            b.em.op0("nvgpu.mbarrier.init", &[e, releases, sv], &[]);
        }
    }
    b.em.end_then();
    b.em.barrier();
    if let Some(e) = empty {
        let (acc, consumers) = b.specialized(wgm, wgn, e);
        b.epilogue(acc, wg, output, Some(consumers));
    } else {
        let acc = b.main_loop(wgm, wgn);
        b.epilogue(acc, wg, output, None);
    }
    b.em.finish(&[base_op]);
    let launch = Launch::new(
        [p.blocks() as u32, 1, 1],
        [p.threads as u32, 1, 1],
        p.shared_bytes as u64,
        arg_types,
    );
    let func = build_gpu_func(ctx, entry, name, &launch, (0, reference_text(c)));
    ctx.set_attr(func, PIPELINE_STAGES, Attribute::i64(p.stages));
    ctx.set_attr(
        func,
        TENSOR_MAP_OF,
        Attribute::new(rtile::ir::AttrKind::DenseArray(
            rtile::ir::DenseArray::Int {
                elem: Type::i64(),
                values: vec![p.a_arg as i64, p.b_arg as i64],
            },
        )),
    );
    Ok(LoweredKernel {
        name: name.to_string(),
        func,
        launch,
        shared_bytes: p.shared_bytes as u64,
        staged: vec![true; c.accesses.len()],
        vectorized: vec![false; c.accesses.len()],
        rsplit: 1,
        prefetched: false,
    })
}
