//! Builds the tensor-core kernel of an [`MmaPlan`]: a multi-stage `cp.async` pipeline
//! (`nvgpu.device_async_copy` / `create_group` / `wait`) filling padded shared tiles,
//! `nvgpu.ldmatrix` fragments and `nvgpu.mma.sync` m16n8k16 per warp tile with f32
//! accumulators carried through the k-step loop, and a bounds-checked epilogue converting to
//! the result type (Roller §5.1 "Compile on TensorCore"; PTX ISA §9.7.14.5.8 for the
//! fragment layouts the lane arithmetic below follows). The tile copies' addressing, the
//! ids and the guarded output store are shared with the MFMA body (`mma::mfma`), whose
//! copies take plain loads instead of cp.async.

use rtile::ir::affine::AffineExpr;
use rtile::ir::{AttrKind, Attribute, Type, TypeKind, Value};
use rtile_dialects::arith::CmpIPredicate;
use rtile_dialects::nvgpu::token_type;
use rtile_dialects::te::model::ElemType;

use super::plan::{Family, GATHER_UNROLL, Gather, MMA, MmaPlan, OperandPlan};
use crate::lower_to_gpu::emit::Emitter;
use crate::lower_to_gpu::types::{i32_array, shared_memref};

/// Per-thread coordinates the body reads.
pub(super) struct Ids {
    pub tid: Value,
    pub lane: Value,
    /// Block origin per compute axis (0 on the reduction axis).
    pub origin: Vec<Value>,
    /// The warp's origin within the block tile along m and n, and its batch slice.
    pub warp_m0: Value,
    pub warp_n0: Value,
    pub slice: Value,
}

/// The kernel body's builder: the emitter, the plan, the operands' memrefs and shared tiles.
pub(super) struct MmaBuild<'p, 'c> {
    pub em: Emitter<'c>,
    pub plan: &'p MmaPlan,
    /// Global memrefs of A and B, and their shared tiles `[stage, row, col]`.
    pub global: [Value; 2],
    pub shared: [Value; 2],
    pub output: Value,
    pub ids: Option<Ids>,
    /// MFMA's register prefetch: while `Some`, plain tile copies collect their LDS stores
    /// here instead of issuing them (see `mma::mfma`).
    pub pending: Option<Vec<super::mfma::Pending>>,
}

/// `vector<r x c x e>`.
pub(super) fn vec2(r: i64, c: i64, e: Type) -> Type {
    Type::new(TypeKind::Vector {
        shape: vec![r, c],
        scalable: vec![false, false],
        elem: e,
    })
}

impl MmaBuild<'_, '_> {
    pub(super) fn ids(&self) -> &Ids {
        self.ids.as_ref().expect("ids are made first")
    }

    pub(super) fn div(&mut self, a: Value, c: i64) -> Value {
        if c == 1 {
            return a;
        }
        let k = self.em.idx(c);
        self.em.ibin("arith.divui", a, k)
    }

    pub(super) fn rem(&mut self, a: Value, c: i64) -> Value {
        if c == 1 {
            return self.em.idx(0);
        }
        let k = self.em.idx(c);
        self.em.ibin("arith.remui", a, k)
    }

    pub(super) fn add_const(&mut self, a: Value, c: i64) -> Value {
        let k = self.em.idx(c);
        self.em.add(a, k)
    }

    fn select(&mut self, cond: Value, a: Value, b: Value) -> Value {
        let ty = self.em.ty(a);
        self.em.op("arith.select", &[cond, a, b], &[], ty)
    }

    fn lt(&mut self, a: Value, bound: i64) -> Value {
        let k = self.em.idx(bound);
        self.em.cmp(CmpIPredicate::Ult, a, k)
    }

    /// The compute-axis coordinates `(axis, value)` of `v` along a plan axis merging
    /// `group` (row-major, the last fastest; the first takes the rest undivided).
    fn delinearize(&mut self, v: Value, group: &[usize]) -> Vec<(usize, Value)> {
        let mut out = Vec::new();
        let mut rest = v;
        for (i, &x) in group.iter().enumerate().rev() {
            if i == 0 {
                out.push((x, rest));
            } else {
                let e = self.plan.compute_extents[x];
                out.push((x, self.rem(rest, e)));
                rest = self.div(rest, e);
            }
        }
        out
    }

    /// Thread, lane, warp and block coordinates.
    pub fn make_ids(&mut self) {
        let p = self.plan;
        let tid = self.em.id_x("gpu.thread_id");
        let mut bid = self.em.id_x("gpu.block_id");
        let mut origin = vec![self.em.idx(0); p.extents.len()];
        // Blocks row-major over the spatial axes, the last fastest.
        for (i, &x) in p.spatial().iter().enumerate().rev() {
            let g = p.grid[i];
            let coord = self.rem(bid, g);
            bid = self.div(bid, g);
            origin[x] = self.em.mul_const(coord, p.block[x]);
        }
        let lanes = p.family.lanes();
        let lane = self.rem(tid, lanes);
        let warp = self.div(tid, lanes);
        let wn = self.rem(warp, p.warps[2]);
        let rest = self.div(warp, p.warps[2]);
        let wm = self.rem(rest, p.warps[1]);
        let slice = self.div(rest, p.warps[1]);
        let warp_m0 = self.em.mul_const(wm, p.warp_m);
        let warp_n0 = self.em.mul_const(wn, p.warp_n);
        self.ids = Some(Ids {
            tid,
            lane,
            origin,
            warp_m0,
            warp_n0,
            slice,
        });
    }

    /// The batch axes' local coordinates of batch slice `slice` (the last axis fastest).
    fn slice_coords(&mut self, mut slice: Value) -> Vec<(usize, Value)> {
        let p = self.plan;
        let mut out = Vec::new();
        for &b in p.batch.iter().rev() {
            let c = self.rem(slice, p.block[b]);
            slice = self.div(slice, p.block[b]);
            out.push((b, c));
        }
        out
    }

    /// Issues operand `w`'s copies of k-step `kt` into stage `st`; returns the cp.async
    /// tokens (none when the tile is copied with plain loads and stores). `live`: whether
    /// the k-step exists (`None`: it does; else the copies zero-fill).
    ///
    /// Copy `i` of a thread is chunk `tid + i·threads` of the stage (row-major over the
    /// batch slices' rows, `cols / chunk` chunks a row; see [`Self::copy_coords`]). When the
    /// threads cover whole rows, its row is the first copy's plus a constant and its column
    /// the same, so every copy's addresses are one base plus constants (no registers per
    /// copy). A gathered operand with many copies takes [`Self::gather_loop`].
    fn load_operand(&mut self, w: usize, kt: Value, st: Value, live: Option<Value>) -> Vec<Value> {
        let p = self.plan;
        let o: &OperandPlan = &p.ops[w];
        let kbase = self.em.mul_const(kt, p.block[p.k]);
        if looped(o) {
            self.gather_loop(w, kbase, st, live);
            return Vec::new();
        }
        let surplus = o.copies_per_thread * p.threads * o.chunk > p.slices * o.rows * o.cols;
        let mut tokens = Vec::new();
        for i in 0..o.copies_per_thread {
            let at = self.copy_coords(o, i);
            tokens.extend(self.copy(w, at, (kbase, st), live, surplus));
        }
        tokens
    }

    /// The tile row and column of copy `i` of this thread (chunk `tid + i·threads`).
    ///
    /// A gather whose data is contiguous along m (NCHW: x) walks the tile m-fastest, so a
    /// warp's loads are coalesced and, when the threads cover whole columns, each thread
    /// keeps one m (its pixel's delinearisation is computed once). With the block's threads
    /// a multiple or a divisor of the fast extent, the slow coordinate of copy `i` is the
    /// thread's plus a constant (or a constant) and the fast one the thread's (plus a
    /// constant): no division per copy.
    fn copy_coords(&mut self, o: &OperandPlan, i: i64) -> (Value, Value) {
        let p = self.plan;
        let tid = self.ids().tid;
        let cpr = o.cols / o.chunk;
        let mfast = o.gather.as_ref().is_some_and(|g| g.m_fastest);
        if mfast && p.threads % o.rows == 0 {
            let (r0, c0) = (self.rem(tid, o.rows), self.div(tid, o.rows));
            (r0, self.add_const(c0, i * p.threads / o.rows))
        } else if mfast && o.rows % p.threads == 0 {
            let r = self.add_const(tid, (i * p.threads) % o.rows);
            (r, self.em.idx(i * p.threads / o.rows))
        } else if mfast {
            let id = self.add_const(tid, i * p.threads);
            (self.rem(id, o.rows), self.div(id, o.rows))
        } else if p.threads % cpr == 0 {
            let frow0 = self.div(tid, cpr);
            let cc0 = self.rem(tid, cpr);
            (
                self.add_const(frow0, i * p.threads / cpr),
                self.em.mul_const(cc0, o.chunk),
            )
        } else if cpr % p.threads == 0 {
            let t = self.em.mul_const(tid, o.chunk);
            let c = self.add_const(t, ((i * p.threads) % cpr) * o.chunk);
            (self.em.idx(i * p.threads / cpr), c)
        } else {
            let id = self.add_const(tid, i * p.threads);
            let cc = self.rem(id, cpr);
            (self.div(id, cpr), self.em.mul_const(cc, o.chunk))
        }
    }

    /// A gathered operand with many copies a thread: an `scf.for` over groups of
    /// [`GATHER_UNROLL`] copies (unrolled inside), so the loads in flight and their index
    /// arithmetic stay within the registers instead of all of a stage's at once. Element
    /// `id = tid + (j·U + u)·threads` of the tile, m- or k-fastest as in
    /// [`Self::copy_coords`]; ids past the tile are skipped.
    fn gather_loop(&mut self, w: usize, kbase: Value, st: Value, live: Option<Value>) {
        let p = self.plan;
        let o = &p.ops[w];
        let tid = self.ids().tid;
        let mfast = o.gather.as_ref().is_some_and(|g| g.m_fastest);
        let trips = (o.copies_per_thread + GATHER_UNROLL - 1) / GATHER_UNROLL;
        let (zero, one, n) = (self.em.idx(0), self.em.idx(1), self.em.idx(trips));
        let (j, _, _) = self.em.begin_for(zero, n, one, &[]);
        let jbase = self.em.mul_const(j, GATHER_UNROLL * p.threads);
        let first = self.em.add(tid, jbase);
        for u in 0..GATHER_UNROLL {
            let id = self.add_const(first, u * p.threads);
            let at = if mfast {
                (self.rem(id, o.rows), self.div(id, o.rows))
            } else {
                (self.div(id, o.cols), self.rem(id, o.cols))
            };
            self.copy(w, at, (kbase, st), live, true);
        }
        self.em.end_for(&[]);
    }

    /// The source of one copy of operand `w` to tile cell `(frow, col)` (k-step origin
    /// `kbase`; see [`Self::copy`]). `surplus`: the thread's copies cover
    /// more than the tile; the cells past it are zero-filled rows allocated for them
    /// (row-major) or skipped (m-fastest or in a loop: they belong to other rows or to no
    /// allocation). Each guarded index is clamped into its extent on its own, so the source
    /// stays in bounds when `srcElements` is 0.
    fn source(
        &mut self,
        w: usize,
        (frow, col): (Value, Value),
        kbase: Value,
        live: Option<Value>,
        surplus: bool,
    ) -> Source {
        let p = self.plan;
        let o: &OperandPlan = &p.ops[w];
        let zero = self.em.idx(0);
        let (slice, row) = if p.slices == 1 {
            (zero, frow)
        } else {
            (self.div(frow, o.rows), self.rem(frow, o.rows))
        };
        let local = self.slice_coords(slice);
        let mut inb = live;
        let (mut fill, mut skip) = (None, None);
        let mfast = o.gather.as_ref().is_some_and(|g| g.m_fastest);
        if surplus && (mfast || looped(o)) {
            let c = if mfast {
                self.lt(col, o.cols)
            } else {
                self.lt(frow, p.slices * o.rows)
            };
            skip = Some(c);
        } else if surplus {
            let c = self.lt(frow, p.slices * o.rows);
            fill = Some(c);
            inb = self.em.and(inb, c);
        }
        // The dim a surplus copy overruns (m-fastest: the columns), clamped into bounds.
        let clamped = if skip.is_some() && mfast {
            o.inner
        } else {
            o.outer
        };
        let mut idx = Vec::new();
        for &a in &o.dims {
            let base = if a == p.k {
                kbase
            } else {
                self.ids().origin[a]
            };
            let off = if a == o.inner {
                col
            } else if a == o.outer {
                row
            } else {
                local.iter().find(|(b, _)| *b == a).map_or(zero, |l| l.1)
            };
            let mut v = self.em.add(base, off);
            // Where the grid (or the k-steps) pad the extent.
            if p.extents[a] % p.block[a] != 0 {
                let c = self.lt(v, p.extents[a]);
                inb = self.em.and(inb, c);
                v = self.select(c, v, zero);
            } else if let Some(c) = fill.or(skip)
                && a == clamped
            {
                v = self.select(c, v, zero);
            }
            idx.push(v);
        }
        let mut window = None;
        if let Some(gather) = &o.gather {
            (idx, window) = self.gather(gather, o, &idx);
        }
        Source {
            idx,
            inb,
            skip,
            window,
        }
    }

    /// One copy of operand `w` to tile cell `(frow, col)` of stage `st` (k-step origin
    /// `kbase`); returns its cp.async token, if one. With [`MmaPlan::family`] MFMA, the
    /// copies are plain loads ([`Self::plain_copy`]).
    fn copy(
        &mut self,
        w: usize,
        (frow, col): (Value, Value),
        (kbase, st): (Value, Value),
        live: Option<Value>,
        surplus: bool,
    ) -> Option<Value> {
        let p = self.plan;
        let o: &OperandPlan = &p.ops[w];
        let Source {
            idx,
            mut inb,
            skip,
            window,
        } = self.source(w, (frow, col), kbase, live, surplus);
        if o.chunk > 1 && p.family != Family::MmaSync {
            if let Some(c) = window {
                inb = self.em.and(inb, c);
            }
            self.plain_copy(w, &idx, (inb, skip), (st, frow, col));
            return None;
        }
        let zero = self.em.idx(0);
        let (g, s) = (self.global[w], self.shared[w]);
        if o.chunk == 1 {
            let e = p.input.to_type();
            let mut v = self
                .em
                .op("memref.load", &[&[g][..], &idx].concat(), &[], e);
            if let Some(c) = window {
                let pad = o.gather.as_ref().and_then(|x| x.pad).unwrap_or(0.0);
                let z = self.em.float(pad, p.input);
                v = self.select(c, v, z);
            }
            if let Some(c) = inb {
                let z = self.em.float(0.0, p.input);
                v = self.select(c, v, z);
            }
            if let Some(c) = skip {
                self.em.begin_then(c);
            }
            self.em.op0("memref.store", &[v, s, st, frow, col], &[]);
            if skip.is_some() {
                self.em.end_then();
            }
            return None;
        }
        // A gathered chunk outside the data (padding) is zero-filled like one past an extent.
        if let Some(c) = window {
            inb = self.em.and(inb, c);
        }
        let mut args = vec![s, st, frow, col, g];
        args.extend(&idx);
        let mut props = vec![("dstElements", Attribute::int(o.chunk, Type::index()))];
        if let Some(c) = inb {
            let n = self.em.idx(o.chunk);
            args.push(self.select(c, n, zero));
        }
        let seg = [1, 3, 1, idx.len() as i64, i64::from(inb.is_some())];
        props.push(("operandSegmentSizes", i32_array(&seg)));
        if o.chunk == 8 {
            // 16-byte copies bypass L1 (cp.async.cg): the tile is read once per block.
            props.push(("bypassL1", Attribute::unit()));
        }
        Some(
            self.em
                .op("nvgpu.device_async_copy", &args, &props, token_type()),
        )
    }

    /// The data indices of im2col element `idx = [m, k]` (each already inside the view):
    /// `m` and `k` delinearised into the compute axes of their groups (the last fastest),
    /// then the data's index expressions. With a `pad` value, also whether the read is inside
    /// the data (each windowed index `< dim` unsigned, so negative ones fail too); outside,
    /// the index is clamped to 0 so the load stays in bounds.
    fn gather(
        &mut self,
        g: &Gather,
        o: &OperandPlan,
        idx: &[Value],
    ) -> (Vec<Value>, Option<Value>) {
        let p = self.plan;
        let mut vals: Vec<Option<Value>> = vec![None; p.compute_extents.len()];
        for (&a, &v) in o.dims.iter().zip(idx) {
            for (x, c) in self.delinearize(v, &p.groups[a]) {
                vals[x] = Some(c);
            }
        }
        let zero = self.em.idx(0);
        let mut inside = None;
        let mut out = Vec::new();
        for (d, e) in g.map.iter().enumerate() {
            // implicit_gemm accepts data indexed by the m and k groups only, and the gather's
            // dims are those two groups: every axis of `e` has a value in `vals`.
            let mut v = self
                .em
                .affine(e, &vals)
                .expect("a gather's index reads the compute's axes");
            // A dim read by one axis within the tensor's extent (n, c) is always inside.
            let plain =
                matches!(e, AffineExpr::Dim(x) if p.compute_extents[*x as usize] <= g.shape[d]);
            if g.pad.is_some() && !plain {
                let c = self.lt(v, g.shape[d]);
                inside = self.em.and(inside, c);
                v = self.select(c, v, zero);
            }
            out.push(v);
        }
        (out, inside)
    }

    /// Both operands' copies of k-step `kt` into stage `st`, committed as one group; with
    /// `may_pass_end`, k-steps past the last are zero-filled copies.
    pub fn load_stage(&mut self, kt: Value, st: Value, may_pass_end: bool) -> Option<Value> {
        let live = may_pass_end.then(|| self.lt(kt, self.plan.k_steps));
        // The zero-filling copies past the last k-step read k-step 0's addresses.
        let zero = self.em.idx(0);
        let kt = live.map_or(kt, |c| self.select(c, kt, zero));
        // (A gathered A's plain loads issued after B's cp.async would overlap them, but keep
        // B's addresses live across the gather: the full-size A100 conv then spills.)
        let mut tokens = self.load_operand(0, kt, st, live);
        tokens.extend(self.load_operand(1, kt, st, live));
        (!tokens.is_empty()).then(|| {
            self.em.op(
                "nvgpu.device_async_create_group",
                &tokens,
                &[],
                token_type(),
            )
        })
    }

    /// `nvgpu.device_async_wait %group {numGroups = keep}`.
    pub fn wait(&mut self, group: Option<Value>, keep: i64) {
        if let Some(g) = group {
            let n = Attribute::int(keep, Type::i32());
            self.em
                .op0("nvgpu.device_async_wait", &[g], &[("numGroups", n)]);
        }
    }

    /// The zero accumulator fragments, one `vector<2x2xf32>` per 16×8 tile of the warp.
    pub fn zero_accumulators(&mut self) -> Vec<Value> {
        let ty = vec2(2, 2, Type::f32());
        let zero = Attribute::new(AttrKind::DenseElements {
            literal: rtile::ir::attributes::DenseLiteral::Float(
                rtile::ir::attributes::FloatBits::new(0.0),
            ),
            ty,
        });
        let (_, z) = self
            .em
            .at_entry("arith.constant", &[], &[("value", zero)], ty);
        let p = self.plan;
        vec![z; ((p.warp_m / MMA[0]) * (p.warp_n / MMA[1])) as usize]
    }

    /// One k-step's MMAs on stage `st`: per 16-wide k slice, A's fragments (ldmatrix x4 per
    /// 16 rows), B's (x2 per 8 columns), and every pair's `mma.sync` into `acc`.
    pub fn compute_stage(&mut self, st: Value, acc: &[Value]) -> Vec<Value> {
        let p = self.plan;
        let (mf, nf) = (p.warp_m / MMA[0], p.warp_n / MMA[1]);
        let lane = self.ids().lane;
        let r8 = self.rem(lane, 8);
        let mat = self.div(lane, 8);
        let mlo = self.rem(mat, 2);
        let mhi = self.div(mat, 2);
        let l16 = self.rem(lane, 16);
        let bmat = self.div(l16, 8);
        let slice = self.ids().slice;
        let (wm0, wn0) = (self.ids().warp_m0, self.ids().warp_n0);
        let ein = p.input.to_type();
        let mut acc = acc.to_vec();
        for kk in 0..p.block[p.k] / MMA[2] {
            let k16 = self.em.idx(kk * MMA[2]);
            let mut a = Vec::new();
            for i in 0..mf {
                // Matrix j of x4: rows +8 for odd j, k +8 for j >= 2 (fragments a0..a3).
                let m_off = self.em.mul_const(mlo, 8);
                let m_base = self.add_const(wm0, 16 * i);
                let m_row = self.em.add(m_base, m_off);
                let k_off = self.em.mul_const(mhi, 8);
                let k_col = self.em.add(k_off, k16);
                let (row, col) = if p.ops[0].trans {
                    let r = self.em.add(k_col, r8);
                    (r, m_row)
                } else {
                    (self.em.add(m_row, r8), k_col)
                };
                a.push(self.ldmatrix(0, st, (slice, row, col), 4, vec2(4, 2, ein)));
            }
            let mut b = Vec::new();
            for j in 0..nf {
                // Matrix j of x2: k rows 0-7, then 8-15 (fragments b0, b1).
                let k_off = self.em.mul_const(bmat, 8);
                let k_col = self.em.add(k_off, k16);
                let n_base = self.add_const(wn0, 8 * j);
                let (row, col) = if p.ops[1].trans {
                    (self.em.add(k_col, r8), n_base)
                } else {
                    (self.em.add(n_base, r8), k_col)
                };
                b.push(self.ldmatrix(1, st, (slice, row, col), 2, vec2(2, 2, ein)));
            }
            let shape = Attribute::array(MMA.iter().map(|&v| Attribute::i64(v)).collect());
            // Accumulator (i, j) of the warp tile is acc[i * nf + j].
            for (at, frag) in acc.iter_mut().enumerate() {
                let (ai, bj) = (a[at / nf as usize], b[at % nf as usize]);
                *frag = self.em.op(
                    "nvgpu.mma.sync",
                    &[ai, bj, *frag],
                    &[("mmaShape", shape)],
                    vec2(2, 2, Type::f32()),
                );
            }
        }
        acc
    }

    /// `nvgpu.ldmatrix` of operand `w`'s stage `st` at tile row `row` of batch slice `slice`.
    fn ldmatrix(
        &mut self,
        w: usize,
        st: Value,
        (slice, row, col): (Value, Value, Value),
        tiles: i64,
        ty: Type,
    ) -> Value {
        let o = &self.plan.ops[w];
        let (rows, trans) = (o.rows, o.trans);
        let base = self.em.mul_const(slice, rows);
        let r = self.em.add(base, row);
        let props = [
            ("numTiles", Attribute::int(tiles, Type::i32())),
            ("transpose", Attribute::bool(trans)),
        ];
        self.em
            .op("nvgpu.ldmatrix", &[self.shared[w], st, r, col], &props, ty)
    }

    /// Stores the accumulators: fragment element `(r, h)` of the 16×8 tile `(i, j)` is row
    /// `lane / 4 + 8r`, column `2 (lane % 4) + h` (PTX ISA, m16n8k16 D layout), converted
    /// to the result type and guarded where the grid pads an extent. When n is the output's
    /// contiguous dim and its extent is even, a lane's two columns `(h = 0, 1)` go out as one
    /// `vector<2>` store (both in bounds or neither: the first column is even).
    pub fn epilogue(&mut self, acc: &[Value]) {
        let p = self.plan;
        let nf = p.warp_n / MMA[1];
        // The output's last dim is the compute's last spatial axis: n's when n is one axis.
        let paired = p.groups[p.n] == [p.out_rank - 1] && p.extents[p.n] % 2 == 0;
        for (at, &frag) in acc.iter().enumerate() {
            let (i, j) = (at as i64 / nf, at as i64 % nf);
            for r in 0..2 {
                if paired {
                    let vals: Vec<Value> =
                        (0..2).map(|h| self.fragment_value(frag, r, h)).collect();
                    let vt = Type::vector(vec![2], p.output.to_type());
                    let mut v = self.em.op("vector.broadcast", &[vals[0]], &[], vt);
                    let pos = ("static_position", Attribute::dense_i64_array(vec![1]));
                    v = self.em.op("vector.insert", &[vals[1], v], &[pos], vt);
                    self.store(("vector.store", v), (i, j, r, 0));
                } else {
                    for h in 0..2 {
                        let v = self.fragment_value(frag, r, h);
                        self.store(("memref.store", v), (i, j, r, h));
                    }
                }
            }
        }
    }

    /// Element `(r, h)` of accumulator fragment `frag`, in the result type.
    fn fragment_value(&mut self, frag: Value, r: i64, h: i64) -> Value {
        self.element(frag, vec![r, h])
    }

    /// Element `pos` of f32 accumulator fragment `frag`, in the result type.
    pub(super) fn element(&mut self, frag: Value, pos: Vec<i64>) -> Value {
        let v = self.em.op(
            "vector.extract",
            &[frag],
            &[("static_position", Attribute::dense_i64_array(pos))],
            Type::f32(),
        );
        match self.plan.output {
            ElemType::F32 => v,
            e => self.em.op("arith.truncf", &[v], &[], e.to_type()),
        }
    }

    /// `op` (`memref.store` or `vector.store`) of `v` at the output element of fragment
    /// element `(r, h)` of the warp's 16×8 tile `(i, j)`, guarded where the grid pads.
    fn store(&mut self, (op, v): (&str, Value), (i, j, r, h): (i64, i64, i64, i64)) {
        let lane = self.ids().lane;
        let g = self.div(lane, 4);
        let q = self.rem(lane, 4);
        let q2 = self.em.mul_const(q, 2);
        let (wm0, wn0) = (self.ids().warp_m0, self.ids().warp_n0);
        let m_local = self.add_const(wm0, 16 * i + 8 * r);
        let m_local = self.em.add(m_local, g);
        let n_local = self.add_const(wn0, 8 * j + h);
        let n_local = self.em.add(n_local, q2);
        self.store_at((op, v), (m_local, n_local));
    }

    /// `op` of `v` at the output element of block-tile coordinates `(m_local, n_local)` in
    /// the warp's batch slice, guarded where the grid pads an extent.
    pub(super) fn store_at(&mut self, (op, v): (&str, Value), (m_local, n_local): (Value, Value)) {
        let p = self.plan;
        let slice = self.ids().slice;
        let local = self.slice_coords(slice);
        let zero = self.em.idx(0);
        let mut vals = vec![zero; p.compute_extents.len()];
        let mut guard = None;
        for x in p.spatial() {
            let l = if x == p.m {
                m_local
            } else if x == p.n {
                n_local
            } else {
                local.iter().find(|(b, _)| *b == x).map_or(zero, |l| l.1)
            };
            let at = self.em.add(self.ids().origin[x], l);
            if p.extents[x] % p.block[x] != 0 {
                let c = self.lt(at, p.extents[x]);
                guard = self.em.and(guard, c);
            }
            // A view's axis (a convolution's output pixels) into its compute axes.
            for (a, c) in self.delinearize(at, &p.groups[x]) {
                vals[a] = c;
            }
        }
        let idx = &vals[..p.out_rank];
        let args = [&[v, self.output][..], idx].concat();
        match guard {
            Some(c) => {
                self.em.begin_then(c);
                self.em.op0(op, &args, &[]);
                self.em.end_then();
            }
            None => self.em.op0(op, &args, &[]),
        }
    }
}

/// Where one copy reads (see [`MmaBuild::source`]): the global (or gathered data) indices,
/// whether the cell is inside the view and k-steps, whether a surplus copy is skipped, and
/// whether a gathered read is inside the data.
struct Source {
    idx: Vec<Value>,
    inb: Option<Value>,
    skip: Option<Value>,
    window: Option<Value>,
}

/// Whether operand `o`'s copies take [`MmaBuild::gather_loop`]: a gathered operand copied
/// element by element with more than 2·[`GATHER_UNROLL`] copies a thread.
fn looped(o: &OperandPlan) -> bool {
    o.gather.is_some() && o.chunk == 1 && o.copies_per_thread > 2 * GATHER_UNROLL
}

/// The shared tile type of operand `o` over `stages` stages.
pub(super) fn tile_type(o: &OperandPlan, stages: i64, e: ElemType) -> Type {
    shared_memref(&[stages, o.alloc_rows, o.stride()], e)
}
