//! The sm_90a tensor-core lowering: a matmul under an H100 program (warpgroup tiles, Roller
//! §5.1's MMA-aligned rTile with the `wgmma` instruction) becomes a kernel that
//! - loads each k-step's A and B tiles with TMA (`nvgpu.tma.async.load`, one thread, boxes
//!   of 64 k × the warpgroup's rows for A and 64 k × 64 n for B, 128-byte swizzled, zero
//!   filled past the tensor's edges) into a multi-stage ring of shared buffers, each stage
//!   completing on its own mbarrier (transaction bytes announced by
//!   `nvgpu.mbarrier.arrive.expect_tx`, waited for by phase parity);
//! - multiplies with `nvgpu.warpgroup.mma` (wgmma m64nNk16 from shared-memory descriptors,
//!   f32 accumulators in registers), one accumulator per warpgroup carried through the
//!   k loop;
//! - stores the accumulators into shared memory (`nvgpu.warpgroup.mma.store`), then copies
//!   the block tile to global memory row by row (coalesced), converted to the result type
//!   and guarded at the edges.
//!
//! The stage a k-step is loaded into was last read two barriers earlier: every iteration
//! starts with `gpu.barrier` (all warpgroups finished the previous step's MMA, which waits
//! for its wgmma group), then thread 0 loads k-step `kt + S - 1` into the stage step `kt - 1`
//! used. Not warp-specialised yet (the producer is thread 0 of the consumers).
//!
//! Applies to 2-d matmuls with A row-major (K contiguous) and B row-major (N contiguous),
//! f16/bf16 operands, rows of a multiple of 16 bytes (TMA's global stride rule), warpgroup
//! tiles of a multiple of 64 rows and 32 to 256 columns in steps of 8 (a tile that is not
//! whole 64-column B boxes is computed as the next whole box, its extra columns dropped by
//! the epilogue); otherwise [`WgmmaPlan::new`] says why and the sm_80 `mma.sync` lowering
//! is used.

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
use crate::device::Device;

/// Elements of k one stage holds: one 128-byte swizzle span of 16-bit elements.
pub const K_STEP: i64 = 64;
/// Columns of one B box (128 bytes of n).
const B_BOX_COLS: i64 = 64;
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
    /// The warpgroup's wgmma N: `wg_n` rounded up to whole 64-column B boxes (the columns
    /// past `wg_n` are computed and not stored).
    pub wg_n_pad: i64,
    /// Blocks along m and n.
    pub grid_m: i64,
    pub grid_n: i64,
    pub threads: i64,
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
    /// The wgmma plan of `plan` (the sm_80 plan of the same program) on `dev`, or why not.
    pub fn new(c: &TeCompute, plan: &MmaPlan, dev: &Device) -> Result<WgmmaPlan, String> {
        let chip = dev.target().chip;
        if !chip.starts_with("sm_90") {
            return Err(format!(
                "wgmma needs sm_90a; device '{}' is {chip}",
                dev.name
            ));
        }
        if !plan.batch.is_empty()
            || plan
                .ops
                .iter()
                .any(|o| o.gather.is_some() || o.collapse.is_some())
        {
            return Err("the wgmma lowering takes 2-d matmuls only".into());
        }
        if plan.groups[plan.m] != [0] || plan.groups[plan.n] != [1] {
            return Err("the result must be [m, n]".into());
        }
        let [a, b] = &plan.ops;
        if a.inner != plan.k || b.inner != plan.n {
            return Err("wgmma takes A with k contiguous and B with n contiguous".into());
        }
        let (m, n, k) = (
            plan.extents[plan.m],
            plan.extents[plan.n],
            plan.extents[plan.k],
        );
        if (k * 2) % 16 != 0 || (n * 2) % 16 != 0 {
            return Err("TMA needs rows of a multiple of 16 bytes (k and n multiples of 8)".into());
        }
        let (block_m, block_n) = (plan.block[plan.m], plan.block[plan.n]);
        let (wg_m, wg_n) = (plan.warp_m * 4, plan.warp_n);
        let wg_n_pad = (wg_n + B_BOX_COLS - 1) / B_BOX_COLS * B_BOX_COLS;
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
        let threads = block_m / wg_m * groups_n * WARPGROUP;
        // The accumulator lives in registers: with the block's share of the register file
        // (its warps spread over the SM's 4 sub-partitions, allocated in steps of 8) it
        // must leave room for addresses, descriptors and loop state (ptxas needs about 26).
        let acc_regs = wg_m / 64 * wg_n_pad / 2;
        let warps_per_partition = (threads / 32 + 3) / 4;
        let share = ((dev.regs_per_core as i64 / 4) / (warps_per_partition * 32) / 8 * 8).min(255);
        if acc_regs + ACC_HEADROOM > share {
            return Err(format!(
                "the {wg_m}x{wg_n_pad} accumulator needs {acc_regs} registers per thread and {threads} threads leave {share}"
            ));
        }
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
        Ok(WgmmaPlan {
            m,
            n,
            k,
            block_m,
            block_n,
            wg_m,
            wg_n,
            wg_n_pad,
            grid_m: (m + block_m - 1) / block_m,
            grid_n: (n + block_n - 1) / block_n,
            threads,
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
}

fn nvgpu_type(body: String) -> Type {
    Type::new(TypeKind::Dialect {
        dialect: "nvgpu".into(),
        body,
    })
}

/// `!nvgpu.tensormap.descriptor` of a `rows × cols` box, 128-byte swizzled, zero filled.
pub fn tensor_map_type(rows: i64, cols: i64, e: ElemType) -> Type {
    nvgpu_type(format!(
        "tensormap.descriptor<tensor = memref<{rows}x{cols}x{}, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>",
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
    bar: Value,
    tid: Value,
    first: Value,
    /// The block's origin along m and n.
    m0: Value,
    n0: Value,
}

impl Build<'_, '_> {
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

    /// Thread 0's loads of k-step `kt` into stage `st`: announce the stage's bytes on its
    /// barrier, then one TMA box per warpgroup row band of A and per 64 columns of B.
    fn issue(&mut self, st: Value, kt: Value) {
        let p = self.p;
        let tx = self.em.idx(p.stage_bytes);
        self.em
            .op0("nvgpu.mbarrier.arrive.expect_tx", &[self.bar, tx, st], &[]);
        let k0 = self.em.mul_const(kt, K_STEP);
        let seg = segment_sizes(&[1, 1, 1, 2, 1, 0, 0]);
        for w in 0..p.block_m / p.wg_m {
            let off = self.byte_offset(st, w * p.wg_m * K_STEP * 2);
            let dst = self.view(off, shared_memref(&[p.wg_m, K_STEP], p.input));
            let row = self.em.idx(w * p.wg_m);
            let m = self.em.add(self.m0, row);
            self.em.op0(
                "nvgpu.tma.async.load",
                &[dst, self.bar, self.maps[0], k0, m, st],
                &[("operandSegmentSizes", seg)],
            );
        }
        // Each warpgroup's columns from its own boxes: box j of column group g at n0 +
        // g·wg_n + 64j (overlapping the next group's when wg_n is not whole boxes).
        let boxes = p.wg_n_pad / B_BOX_COLS;
        for j in 0..p.block_n / p.wg_n * boxes {
            let off = self.byte_offset(st, p.a_bytes() + j * K_STEP * B_BOX_COLS * 2);
            let dst = self.view(off, shared_memref(&[K_STEP, B_BOX_COLS], p.input));
            let col = self.em.idx(j / boxes * p.wg_n + j % boxes * B_BOX_COLS);
            let n = self.em.add(self.n0, col);
            self.em.op0(
                "nvgpu.tma.async.load",
                &[dst, self.bar, self.maps[1], n, k0, st],
                &[("operandSegmentSizes", seg)],
            );
        }
    }

    /// The k loop: returns this warpgroup's accumulator after it.
    fn main_loop(&mut self, wgm: Value, wgn: Value) -> Value {
        let p = self.p;
        let s = p.stages;
        let (zero, one) = (self.em.idx(0), self.em.idx(1));
        // Stages 0..S-2 loaded ahead.
        self.em.begin_then(self.first);
        for st in 0..(s - 1).min(p.k_steps) {
            let v = self.em.idx(st);
            self.issue(v, v);
        }
        self.em.end_then();
        let acc0 = self.em.op(
            "nvgpu.warpgroup.mma.init.accumulator",
            &[],
            &[],
            accumulator_type(p.wg_m, p.wg_n_pad),
        );
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
        let cur = self.rem(kt, s);
        let round = self.div(kt, s);
        let phase = self.rem(round, 2);
        let parity = self.em.cmp(CmpIPredicate::Ne, phase, zero);
        let ticks = self.em.idx(10_000_000);
        self.em.op0(
            "nvgpu.mbarrier.try_wait.parity",
            &[self.bar, parity, ticks, cur],
            &[],
        );
        let a_rows = self.em.mul_const(wgm, p.wg_m * K_STEP * 2);
        let a_stage = self.byte_offset(cur, 0);
        let a_off = self.em.add(a_stage, a_rows);
        let a_ty = shared_memref(&[p.wg_m, K_STEP], p.input);
        let a_view = self.view(a_off, a_ty);
        let b_cols = self.em.mul_const(wgn, p.wg_n_pad * K_STEP * 2);
        let b_stage = self.byte_offset(cur, p.a_bytes());
        let b_off = self.em.add(b_stage, b_cols);
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
        let acc_ty = self.em.ty(acc[0]);
        let next = self.em.op(
            "nvgpu.warpgroup.mma",
            &[da, db, acc[0]],
            &[("transposeB", Attribute::unit())],
            acc_ty,
        );
        self.em.end_for(&[next]);
        res[0]
    }

    /// Accumulators → shared f32 tiles → the result, coalesced, converted and guarded.
    fn epilogue(&mut self, acc: Value, wg: Value, output: Value) {
        let p = self.p;
        let groups = p.block_m / p.wg_m * (p.block_n / p.wg_n);
        self.em.barrier();
        let tile = shared_memref(&[p.wg_m, p.wg_n_pad], ElemType::F32);
        let off = self.em.mul_const(wg, p.wg_m * p.wg_n_pad * 4);
        let mine = self.view(off, tile);
        self.em.op0("nvgpu.warpgroup.mma.store", &[acc, mine], &[]);
        self.em.barrier();
        let zero = self.em.idx(0);
        let all = self.view(
            zero,
            shared_memref(&[groups, p.wg_m, p.wg_n_pad], ElemType::F32),
        );
        let (lo, hi, step) = (
            self.em.idx(0),
            self.em.idx(p.block_m * p.block_n / p.threads),
            self.em.idx(1),
        );
        let (i, _, _) = self.em.begin_for(lo, hi, step, &[]);
        let base = self.em.mul_const(i, p.threads);
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
        self.em.op0("memref.store", &[v, output, gr, gc], &[]);
        if guard.is_some() {
            self.em.end_then();
        }
        self.em.end_for(&[]);
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
    let maps = [
        tensor_map_type(p.wg_m, K_STEP, p.input),
        tensor_map_type(K_STEP, B_BOX_COLS, p.input),
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
    };
    let bn = b.rem(bid, p.grid_n);
    let bm = b.div(bid, p.grid_n);
    b.m0 = b.em.mul_const(bm, p.block_m);
    b.n0 = b.em.mul_const(bn, p.block_n);
    let wg = b.div(tid, WARPGROUP);
    let wgs_n = p.block_n / p.wg_n;
    let wgn = b.rem(wg, wgs_n);
    let wgm = b.div(wg, wgs_n);
    b.em.begin_then(first);
    let one = b.em.idx(1);
    for s in 0..p.stages {
        let sv = b.em.idx(s);
        b.em.op0("nvgpu.mbarrier.init", &[bar, one, sv], &[]);
    }
    b.em.end_then();
    b.em.barrier();
    let acc = b.main_loop(wgm, wgn);
    b.epilogue(acc, wg, output);
    b.em.finish(&[base_op]);
    let launch = Launch::new(
        [(p.grid_m * p.grid_n) as u32, 1, 1],
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
