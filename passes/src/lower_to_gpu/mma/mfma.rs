//! The AMD CDNA2 (gfx90a) body of a tensor-core kernel ([`Family::Mfma`]): the same
//! [`MmaPlan`] as the sm_80 lowering (axes, block and warp tiles, operand tiles, batch
//! slices, the implicit GEMM's gather) built from `amdgpu.mfma`
//! (`v_mfma_f32_32x32x8{f16,bf16_1k}` or `v_mfma_f32_16x16x16{f16,bf16_1k}`, AMD Instinct
//! MI200 ISA §7 "Matrix Arithmetic Instructions") on 64-lane wavefronts, Roller §5.1's warp
//! tile of whole instructions per wavefront.
//!
//! - **Staging.** AMD has no cp.async: each k-step's tiles are read from global memory with
//!   plain loads — `vector.load` of up to 4 elements (8 bytes, `global_load_dwordx2`) where
//!   the tensor's rows keep them aligned, element loads otherwise (and for a gathered
//!   convolution) — and written to LDS. With two stages (when two fit the 64 KiB LDS and
//!   no operand is a convolution's gathered im2col, whose values and index chains would
//!   stay live across the MFMAs: see PERF.md) the loads of k-step `kt + 1` are issued
//!   before k-step `kt`'s MFMAs and held in registers, then stored to the other LDS buffer
//!   after them (register prefetch into a double buffer), so their latency hides behind the
//!   MFMAs; one barrier per k-step.
//! - **LDS layout.** Each operand's tile is `[stage, row, col]` with the operand tensor's
//!   contiguous axis as columns, rows padded to an odd number of 8-byte units (stride
//!   ≡ 4 mod 8 halves). CDNA's LDS has 32 banks of 4 bytes and serves a 64-bit read
//!   (`ds_read_b64`) 16 lanes at a time (16 × 8 B = all 32 banks). The MFMA fragment of a
//!   k-contiguous tile is one 4-element read per lane, 16 consecutive lanes reading 16
//!   consecutive rows at a common column: with a stride of `2·odd` banks, 16 consecutive
//!   rows start on 16 distinct even banks and each read takes two: conflict-free. (A 16-byte
//!   unit stride would put rows `r` and `r + 8` on the same banks: 2-way conflicts.) The
//!   8-byte stride granularity is why copies move at most 4 elements: an 8-byte LDS store
//!   stays aligned. A tile whose contiguous axis is m or n (A stored `[k, m]`, B `[k, n]`)
//!   is read element by element, 4 rows of k at the lane's column: consecutive lanes read
//!   consecutive halves of one row (two to a word), conflict-free.
//! - **Fragments** follow [`Mfma::a_coord`] / [`Mfma::b_coord`]: lane `l` holds A's row
//!   `l % m`, k `4·(l / m) + e` and B's column `l % n`, k `4·(l / n) + e`; accumulators are
//!   `vector<m·n/64 x f32>` per instruction tile, carried through the k-step loop.
//! - **Epilogue.** Element `e` of lane `l` is output `(row, l % n)` with [`Mfma::c_coord`]'s
//!   row: converted to the result type and stored, guarded where the grid pads an extent;
//!   consecutive lanes store consecutive n (coalesced when n is the output's contiguous dim).
//!
//! [`Mfma::a_coord`]: rtile_gpu_vocab::amdgpu::Mfma::a_coord
//! [`Mfma::b_coord`]: rtile_gpu_vocab::amdgpu::Mfma::b_coord
//! [`Mfma::c_coord`]: rtile_gpu_vocab::amdgpu::Mfma::c_coord

use rtile::ir::attributes::{DenseLiteral, FloatBits};
use rtile::ir::{AttrKind, Attribute, Type, Value};

use super::kernel::MmaBuild;
use super::plan::{Family, MmaPlan};

/// An LDS store of the register prefetch, issued after the MFMAs of the current k-step.
pub struct Pending {
    w: usize,
    value: Value,
    at: [Value; 3],
    skip: Option<Value>,
}

/// The instruction shape of an MFMA plan.
fn shape(p: &MmaPlan) -> [i64; 3] {
    match p.family {
        Family::Mfma(s) => s,
        Family::MmaSync => unreachable!("the MFMA body is built for MFMA plans only"),
    }
}

/// A dense splat of 0.0 of type `ty`.
fn zeros(ty: Type) -> Attribute {
    Attribute::new(AttrKind::DenseElements {
        literal: DenseLiteral::Float(FloatBits::new(0.0)),
        ty,
    })
}

impl MmaBuild<'_, '_> {
    /// One plain copy of `chunk` elements of operand `w` from `idx` to tile cell
    /// `(frow, col)` of stage `st`: a `vector.load` (under `scf.if` yielding zeros where the
    /// cell is outside the view, the k-steps or the data) and an LDS `vector.store`, held
    /// back while a register prefetch collects its stores.
    pub(super) fn plain_copy(
        &mut self,
        w: usize,
        idx: &[Value],
        (inb, skip): (Option<Value>, Option<Value>),
        at: (Value, Value, Value),
    ) {
        let p = self.plan;
        let vt = Type::vector(vec![p.ops[w].chunk], p.input.to_type());
        let args = [&[self.global[w]][..], idx].concat();
        let value = match inb {
            None => self.em.op("vector.load", &args, &[], vt),
            Some(c) => {
                let zero = self.em.constant(zeros(vt));
                let r = self.em.begin_if(c, &[vt]);
                let v = self.em.op("vector.load", &args, &[], vt);
                self.em.else_(&[v]);
                self.em.end_if(Some(&[zero]));
                r[0]
            }
        };
        let store = Pending {
            w,
            value,
            at: [at.0, at.1, at.2],
            skip,
        };
        match &mut self.pending {
            Some(list) => list.push(store),
            None => self.store_pending(&store),
        }
    }

    /// Issues a collected LDS store.
    fn store_pending(&mut self, s: &Pending) {
        let args = [s.value, self.shared[s.w], s.at[0], s.at[1], s.at[2]];
        if let Some(c) = s.skip {
            self.em.begin_then(c);
        }
        self.em.op0("vector.store", &args, &[]);
        if s.skip.is_some() {
            self.em.end_then();
        }
    }

    /// The k-step loop; returns the accumulators after it. One stage: copy, barrier,
    /// MFMAs, barrier. Two: k-step 0 is staged before the loop; iteration `kt` loads k-step
    /// `kt + 1` (zeros past the last) into registers, runs k-step `kt`'s MFMAs on buffer
    /// `kt % 2`, stores the loads to buffer `(kt + 1) % 2` — last read in iteration `kt - 1`,
    /// before the barrier that ended it — and synchronises the block.
    pub(super) fn mfma_pipeline(&mut self) -> Vec<Value> {
        let p = self.plan;
        let acc0 = self.mfma_zero_accumulators();
        let (zero, one) = (self.em.idx(0), self.em.idx(1));
        let steps = self.em.idx(p.k_steps);
        if p.stages == 1 {
            let (kt, acc, res) = self.em.begin_for(zero, steps, one, &acc0);
            self.load_stage(kt, zero, false);
            self.em.barrier();
            let next = self.mfma_stage(zero, &acc);
            self.em.barrier();
            self.em.end_for(&next);
            return res;
        }
        self.load_stage(zero, zero, false);
        self.em.barrier();
        let (kt, acc, res) = self.em.begin_for(zero, steps, one, &acc0);
        let nk = self.em.add(kt, one);
        let two = self.em.idx(2);
        let nst = self.em.ibin("arith.remui", nk, two);
        self.pending = Some(Vec::new());
        self.load_stage(nk, nst, true);
        let stores = self.pending.take().unwrap_or_default();
        let cur = self.em.ibin("arith.remui", kt, two);
        let next = self.mfma_stage(cur, &acc);
        for s in &stores {
            self.store_pending(s);
        }
        self.em.barrier();
        self.em.end_for(&next);
        res
    }

    /// The zero accumulators, one `vector<m·n/64 x f32>` per instruction tile of the
    /// wavefront's tile (row-major over the tiles).
    fn mfma_zero_accumulators(&mut self) -> Vec<Value> {
        let p = self.plan;
        let [m, n, _] = shape(p);
        let ty = Type::vector(vec![m * n / 64], Type::f32());
        let z = self.em.constant(zeros(ty));
        vec![z; ((p.warp_m / m) * (p.warp_n / n)) as usize]
    }

    /// One k-step's MFMAs on stage `st`: per instruction-deep k slice, the wavefront's A
    /// fragments (one per m tile), B fragments (one per n tile), and every pair's MFMA.
    fn mfma_stage(&mut self, st: Value, acc: &[Value]) -> Vec<Value> {
        let p = self.plan;
        let [im, inn, ik] = shape(p);
        let (mf, nf) = (p.warp_m / im, p.warp_n / inn);
        let lane = self.ids().lane;
        let (wm0, wn0) = (self.ids().warp_m0, self.ids().warp_n0);
        let a_own = self.rem(lane, im);
        let a_q = self.div(lane, im);
        let a_k = self.em.mul_const(a_q, 4);
        let b_own = self.rem(lane, inn);
        let b_q = self.div(lane, inn);
        let b_k = self.em.mul_const(b_q, 4);
        let ein = p.input.to_type();
        let c_ty = Type::vector(vec![im * inn / 64], Type::f32());
        let props = {
            let i32a = |v: i64| Attribute::int(v, Type::i32());
            let blgp = Attribute::dialect("amdgpu", "<mfma_perm_b none>".to_string());
            [
                ("abid", i32a(0)),
                ("blgp", blgp),
                ("blocks", i32a(1)),
                ("cbsz", i32a(0)),
                ("k", i32a(ik)),
                ("m", i32a(im)),
                ("n", i32a(inn)),
            ]
        };
        let mut acc = acc.to_vec();
        for kk in 0..p.block[p.k] / ik {
            let mut a = Vec::new();
            for i in 0..mf {
                let base = self.add_const(wm0, im * i);
                let own = self.em.add(base, a_own);
                let k = self.add_const(a_k, kk * ik);
                a.push(self.fragment(0, st, (own, k), ein));
            }
            let mut b = Vec::new();
            for j in 0..nf {
                let base = self.add_const(wn0, inn * j);
                let own = self.em.add(base, b_own);
                let k = self.add_const(b_k, kk * ik);
                b.push(self.fragment(1, st, (own, k), ein));
            }
            // Accumulator (i, j) of the wavefront's tile is acc[i * nf + j].
            for (at, frag) in acc.iter_mut().enumerate() {
                let (ai, bj) = (a[at / nf as usize], b[at % nf as usize]);
                *frag = self.em.op("amdgpu.mfma", &[ai, bj, *frag], &props, c_ty);
            }
        }
        acc
    }

    /// Operand `w`'s fragment of this lane: 4 elements at m (or n) `own` of the block tile,
    /// k `k..k+4` of the k-step, from stage `st` of its LDS tile in the wavefront's batch
    /// slice: one `vector.load` when k is the tile's columns, else 4 element loads.
    fn fragment(&mut self, w: usize, st: Value, (own, k): (Value, Value), e: Type) -> Value {
        let p = self.plan;
        let o = &p.ops[w];
        let (rows, by_k) = (o.rows, o.inner == p.k);
        let slice = self.ids().slice;
        let base = self.em.mul_const(slice, rows);
        let vt = Type::vector(vec![4], e);
        let tile = self.shared[w];
        if by_k {
            let row = self.em.add(base, own);
            return self.em.op("vector.load", &[tile, st, row, k], &[], vt);
        }
        let k0 = self.em.add(base, k);
        let first = self.em.op("memref.load", &[tile, st, k0, own], &[], e);
        let mut v = self.em.op("vector.broadcast", &[first], &[], vt);
        for i in 1..4 {
            let row = self.add_const(k0, i);
            let x = self.em.op("memref.load", &[tile, st, row, own], &[], e);
            let pos = ("static_position", Attribute::dense_i64_array(vec![i]));
            v = self.em.op("vector.insert", &[x, v], &[pos], vt);
        }
        v
    }

    /// Stores the accumulators: element `e` of instruction tile `(i, j)` is the block-tile
    /// element `(warp_m0 + m·i + row(l, e), warp_n0 + n·j + l % n)` ([`Mfma::c_coord`]:
    /// 32x32 rows `8·(e / 4) + e % 4 + 4·(l / 32)`, 16x16 rows `e + 4·(l / 16)`), converted
    /// to the result type, guarded where the grid pads.
    ///
    /// [`Mfma::c_coord`]: rtile_gpu_vocab::amdgpu::Mfma::c_coord
    pub(super) fn mfma_epilogue(&mut self, acc: &[Value]) {
        let p = self.plan;
        let [im, inn, _] = shape(p);
        let nf = p.warp_n / inn;
        let lane = self.ids().lane;
        let (wm0, wn0) = (self.ids().warp_m0, self.ids().warp_n0);
        let half = self.div(lane, im);
        let row0 = self.em.mul_const(half, 4);
        let col = self.rem(lane, inn);
        for (at, &frag) in acc.iter().enumerate() {
            let (i, j) = (at as i64 / nf, at as i64 % nf);
            let n_base = self.add_const(wn0, inn * j);
            let n_local = self.em.add(n_base, col);
            let m_base = self.em.add(wm0, row0);
            for e in 0..im * inn / 64 {
                let r = if im == 32 { 8 * (e / 4) + e % 4 } else { e };
                let m_local = self.add_const(m_base, im * i + r);
                let v = self.element(frag, vec![e]);
                self.store_at(("memref.store", v), (m_local, n_local));
            }
        }
    }
}
