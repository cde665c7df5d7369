//! The sm_90a `nvgpu` ops — mbarriers, TMA and warpgroup MMA — as NVVM intrinsics where
//! LLVM 22 has them, inline PTX where it does not:
//! - `nvgpu.mbarrier.create` → an `addrspace(3)` global `[N x i64]` (align 8);
//! - `.init` → `llvm.nvvm.mbarrier.init.shared`; `.arrive` → `llvm.nvvm.mbarrier.arrive.shared`
//!   (the token is its `i64`); `.arrive.expect_tx` →
//!   `llvm.nvvm.mbarrier.arrive.expect.tx.scope.cta.space.cta`; `.try_wait.parity` → a loop
//!   on `llvm.nvvm.mbarrier.try.wait.parity.tl.scope.cta.space.cta` until it reports the
//!   phase complete (PTX ISA §9.7.13.15);
//! - `nvgpu.tma.async.load` → `llvm.nvvm.cp.async.bulk.tensor.g2s.tile.{1,2}d` (PTX
//!   `cp.async.bulk.tensor...mbarrier::complete_tx::bytes`, §9.7.9.25.5);
//!   `nvgpu.tma.prefetch.descriptor` → `llvm.nvvm.prefetch.tensormap`;
//! - `nvgpu.warpgroup.generate.descriptor` → the descriptor's start-address field
//!   (`(addr & 0x3FFFF) >> 4`, §9.7.15.5.1); `nvgpu.warpgroup.mma` adds each instruction's
//!   layout fields and offsets ([`WarpgroupMma`] in `rtile_gpu_vocab::nvgpu_sm90`), after
//!   a `wgmma.fence.sync.aligned` and before `llvm.nvvm.wgmma.commit_group.sync.aligned` +
//!   `llvm.nvvm.wgmma.wait_group.sync.aligned 0`; the `wgmma.mma_async` itself (no LLVM
//!   intrinsic: 4 to 128 f32 results) is inline PTX, the fence in the first one's;
//! - `nvgpu.warpgroup.mma.store` → one store per accumulator element at the m64nNk16 D
//!   fragment's coordinates ([`acc_coord`]).
//!
//! Types: a tensor map is a generic `ptr` (the kernel parameter is the map's address in
//! global memory, `ptr addrspace(1) readonly align 64`, cast once at entry); an mbarrier
//! group a `ptr addrspace(3)`; a token and a warpgroup descriptor `i64`; an `M × N`
//! accumulator the flat `[M/64 · N/2 x float]` a thread holds, slab by slab.
//!
//! The warpgroup is `gpu.thread_id x` modulo 128 (kernels lay warpgroups along x).

use rtile::diagnostics::Diagnostic;
use rtile::ir::{Context, OpId, Type, TypeKind, Value, WalkOrder};
use rtile_gpu_vocab::nvgpu::MmaElem;
use rtile_gpu_vocab::nvgpu_sm90::{
    AccumulatorType, TensorMapType, TmaLoad, WarpgroupMma, acc_coord, accumulator_of,
};

use super::{FnEmitter, addrspace};
use crate::gpuir::MemSpace;

/// Whether `t` is a `!nvgpu.tensormap.descriptor<..>`.
pub fn is_tensor_map(t: &Type) -> bool {
    TensorMapType::of(t).is_some()
}

/// The LLVM type of an sm_90a `nvgpu` type (see the module documentation).
pub fn llvm_type(t: &Type) -> Option<String> {
    let TypeKind::Dialect { dialect, body } = t.kind() else {
        return None;
    };
    if dialect != "nvgpu" {
        return None;
    }
    Some(if body.starts_with("tensormap.descriptor<") {
        "ptr".into()
    } else if body.starts_with("mbarrier.group<") {
        addrspace(3)
    } else if body == "mbarrier.token" || body.starts_with("warpgroup.descriptor<") {
        "i64".into()
    } else if body.starts_with("warpgroup.accumulator<") {
        let acc = AccumulatorType::of(t)?.ok()?;
        format!("[{} x float]", acc.regs_per_thread())
    } else {
        return None;
    })
}

pub use rtile_gpu_vocab::nvgpu_sm90::{is_sm90_op, uses_sm90_ops};

/// Whether function `f` uses TMA or wgmma, whose swizzled shared tiles must be 1024-byte
/// aligned (the 128-byte swizzle pattern repeats every 8 rows of 128 bytes).
pub fn uses_swizzled_shared(ctx: &Context, f: OpId) -> bool {
    let mut found = false;
    ctx.walk(f, WalkOrder::PreOrder, &mut |_, op| {
        let n = ctx.op_name(op);
        found |= n.starts_with("nvgpu.tma.") || n.starts_with("nvgpu.warpgroup.");
    });
    found
}

/// Refuses the sm_90a ops for an architecture that lacks them: `wgmma` exists on sm_90a
/// only (PTX ISA §9.7.15: "requires sm_90a"); TMA tensor copies, `mbarrier.try_wait` and
/// `expect_tx` need sm_90 and PTX 8.0, which rtile's `sm_90a` and newer targets emit (plain
/// `sm_90` stays at LLVM's default PTX 7.8, where they do not exist).
pub fn check_arch(ctx: &Context, module: OpId, sm: &str) -> Result<(), Diagnostic> {
    let num: u32 = sm
        .trim_start_matches("sm_")
        .trim_end_matches('a')
        .parse()
        .unwrap_or(0);
    let tma_ok = num >= 90 && sm != "sm_90";
    let wgmma_ok = sm == "sm_90a";
    let mut bad = None;
    ctx.walk(module, WalkOrder::PreOrder, &mut |_, op| {
        let n = ctx.op_name(op);
        if bad.is_none() && is_sm90_op(n) {
            let wg = n.starts_with("nvgpu.warpgroup.");
            if (wg && !wgmma_ok) || (!wg && !tma_ok) {
                bad = Some((op, wg));
            }
        }
    });
    match bad {
        None => Ok(()),
        Some((op, true)) => Err(Diagnostic::op_error(
            ctx,
            op,
            format!(
                "needs sm_90a (warpgroup MMA, wgmma.mma_async, exists on sm_90a only); the target is {sm}: translate with --to-ptx=sm_90a"
            ),
        )),
        Some((op, false)) => Err(Diagnostic::op_error(
            ctx,
            op,
            format!(
                "needs sm_90a or newer (TMA and mbarrier transaction counts: sm_90 with PTX 8.0); the target is {sm}: translate with --to-ptx=sm_90a"
            ),
        )),
    }
}

impl FnEmitter<'_> {
    /// Converts an integer value to `i32` (indices, counts and coordinates of the
    /// intrinsics).
    fn as_i32(&mut self, op: OpId, v: Value) -> Result<String, Diagnostic> {
        let (r, ty) = self.scalar(op, v)?;
        Ok(if ty == "i32" {
            r
        } else {
            self.convert_int(&r, &ty, "i32", true)
        })
    }

    /// The address of barrier `id` of the group `group`.
    fn mbarrier_ptr(&mut self, op: OpId, group: Value, id: Value) -> Result<String, Diagnostic> {
        let (g, _) = self.scalar(op, group)?;
        let (i, ity) = self.scalar(op, id)?;
        Ok(if i == "0" {
            g
        } else {
            self.assign(&format!(
                "getelementptr inbounds i64, {} {g}, {ity} {i}",
                addrspace(3)
            ))
        })
    }

    /// Runs `body` under `pred` when the op has one (a branch around it), else always.
    fn predicated(
        &mut self,
        op: OpId,
        pred: Option<Value>,
        body: impl FnOnce(&mut Self) -> Result<(), Diagnostic>,
    ) -> Result<(), Diagnostic> {
        let Some(p) = pred else {
            return body(self);
        };
        let (c, _) = self.scalar(op, p)?;
        let n = self.label("pred");
        let (on, end) = (format!("{n}.on"), format!("{n}.end"));
        self.line(&format!("br i1 {c}, label %{on}, label %{end}"));
        self.start_block(&on);
        body(self)?;
        self.line(&format!("br label %{end}"));
        self.start_block(&end);
        Ok(())
    }

    /// The address of a memref's first element (its pointer plus the layout offset).
    fn first_element(&mut self, op: OpId, v: Value) -> Result<(String, MemSpace), Diagnostic> {
        let (ptr, info) = self.mem(op, v)?;
        let asp = self.space_as(info.space);
        if info.offset == 0 {
            return Ok((ptr, info.space));
        }
        let ety = self.llvm_type(op, &info.elem)?;
        let p = self.assign(&format!(
            "getelementptr inbounds {ety}, {} {ptr}, {} {}",
            addrspace(asp),
            self.idx,
            info.offset
        ));
        Ok((p, info.space))
    }

    /// `nvgpu.mbarrier.create`: a zero-initialised-by-`init` shared array of barriers.
    pub(super) fn mbarrier_create(&mut self, op: OpId) -> Result<(), Diagnostic> {
        self.nvptx_only(op)?;
        let ctx = self.ctx;
        let r = ctx.result(op, 0);
        let n = rtile_dialects::nvgpu::sm90_types::mbarrier_group_size(ctx.value_type(r))
            .ok_or_else(|| self.err(op, "expected an mbarrier group with num_barriers = N"))?;
        let g = format!("@__rtile_mbar_{}_{}", self.info.name, self.m.globals.len());
        self.m.globals.push(format!(
            "{g} = internal addrspace(3) global [{n} x i64] undef, align 8"
        ));
        self.set(r, g, addrspace(3));
        Ok(())
    }

    /// `nvgpu.mbarrier.init %g[%id], %count [, predicate = %p]`.
    pub(super) fn mbarrier_init(&mut self, op: OpId) -> Result<(), Diagnostic> {
        self.nvptx_only(op)?;
        let ops = self.ctx.operands(op).to_vec();
        self.predicated(op, ops.get(3).copied(), |e| {
            let p = e.mbarrier_ptr(op, ops[0], ops[2])?;
            let n = e.as_i32(op, ops[1])?;
            let pty = addrspace(3);
            e.call(
                "void",
                "llvm.nvvm.mbarrier.init.shared",
                &[(&pty, &p), ("i32", &n)],
                "",
            );
            Ok(())
        })
    }

    /// `%tok = nvgpu.mbarrier.arrive %g[%id]`.
    pub(super) fn mbarrier_arrive(&mut self, op: OpId) -> Result<(), Diagnostic> {
        self.nvptx_only(op)?;
        let ops = self.ctx.operands(op).to_vec();
        let p = self.mbarrier_ptr(op, ops[0], ops[1])?;
        let pty = addrspace(3);
        let t = self.call("i64", "llvm.nvvm.mbarrier.arrive.shared", &[(&pty, &p)], "");
        self.set(self.ctx.result(op, 0), t, "i64".into());
        Ok(())
    }

    /// `nvgpu.mbarrier.arrive.expect_tx %g[%id], %tx [, predicate = %p]`: raises the
    /// phase's expected transaction bytes by `tx`, then arrives.
    pub(super) fn mbarrier_expect_tx(&mut self, op: OpId) -> Result<(), Diagnostic> {
        self.nvptx_only(op)?;
        let ops = self.ctx.operands(op).to_vec();
        self.predicated(op, ops.get(3).copied(), |e| {
            let p = e.mbarrier_ptr(op, ops[0], ops[2])?;
            let tx = e.as_i32(op, ops[1])?;
            let pty = addrspace(3);
            e.call(
                "i64",
                "llvm.nvvm.mbarrier.arrive.expect.tx.scope.cta.space.cta",
                &[(&pty, &p), ("i32", &tx)],
                "",
            );
            Ok(())
        })
    }

    /// `nvgpu.mbarrier.try_wait.parity %g[%id], %parity, %ticks`: `try_wait` (which
    /// suspends up to `ticks` ns) until the phase of that parity has completed.
    pub(super) fn mbarrier_try_wait(&mut self, op: OpId) -> Result<(), Diagnostic> {
        self.nvptx_only(op)?;
        let ops = self.ctx.operands(op).to_vec();
        let p = self.mbarrier_ptr(op, ops[0], ops[3])?;
        let (par, _) = self.scalar(op, ops[1])?;
        let par = self.assign(&format!("zext i1 {par} to i32"));
        let ticks = self.as_i32(op, ops[2])?;
        let n = self.label("mbar_wait");
        let (lp, done) = (format!("{n}.loop"), format!("{n}.done"));
        self.line(&format!("br label %{lp}"));
        self.start_block(&lp);
        let pty = addrspace(3);
        let ok = self.call(
            "i1",
            "llvm.nvvm.mbarrier.try.wait.parity.tl.scope.cta.space.cta",
            &[(&pty, &p), ("i32", &par), ("i32", &ticks)],
            "",
        );
        self.line(&format!("br i1 {ok}, label %{done}, label %{lp}"));
        self.start_block(&done);
        Ok(())
    }

    /// `nvgpu.tma.async.load %map[%c0, %c1], %g[%id] to %dst`: one box copy into shared
    /// memory, completing its bytes on the barrier.
    pub(super) fn tma_load(&mut self, op: OpId) -> Result<(), Diagnostic> {
        self.nvptx_only(op)?;
        let ld = TmaLoad::decode(self.ctx, op)?;
        let map = self.ctx.operands(op)[2];
        self.predicated(op, ld.predicate, |e| {
            let (dst, space) = e.first_element(op, ld.dst)?;
            if space != MemSpace::Workgroup {
                return Err(e.err(op, "a TMA load writes shared (workgroup) memory"));
            }
            let dst7 = e.assign(&format!(
                "addrspacecast {} {dst} to ptr addrspace(7)",
                addrspace(3)
            ));
            let bar = e.mbarrier_ptr(op, ld.barriers, ld.mbar_id)?;
            let (m, _) = e.scalar(op, map)?;
            let coords: Vec<String> = ld
                .coords
                .iter()
                .map(|&c| e.as_i32(op, c))
                .collect::<Result<_, _>>()?;
            let bty = addrspace(3);
            let mut args: Vec<(&str, &str)> =
                vec![("ptr addrspace(7)", &dst7), (&bty, &bar), ("ptr", &m)];
            args.extend(coords.iter().map(|c| ("i32", c.as_str())));
            // No multicast mask, no cache hint, no CTA group.
            args.extend([
                ("i16", "0"),
                ("i64", "0"),
                ("i1", "false"),
                ("i1", "false"),
                ("i32", "0"),
            ]);
            let name = format!(
                "llvm.nvvm.cp.async.bulk.tensor.g2s.tile.{}d",
                ld.coords.len()
            );
            e.call("void", &name, &args, "");
            Ok(())
        })
    }

    /// `nvgpu.tma.prefetch.descriptor %map [, predicate = %p]`.
    pub(super) fn tma_prefetch(&mut self, op: OpId) -> Result<(), Diagnostic> {
        self.nvptx_only(op)?;
        let ops = self.ctx.operands(op).to_vec();
        self.predicated(op, ops.get(1).copied(), |e| {
            let (m, _) = e.scalar(op, ops[0])?;
            e.call(
                "void",
                "llvm.nvvm.prefetch.tensormap.p0",
                &[("ptr", &m)],
                "",
            );
            Ok(())
        })
    }

    /// `nvgpu.warpgroup.generate.descriptor %smem, %map`: the start-address field of the
    /// tile's descriptor; `warpgroup.mma` adds the layout fields, which depend on whether
    /// the tile is its A or its B.
    pub(super) fn warpgroup_descriptor(&mut self, op: OpId) -> Result<(), Diagnostic> {
        self.nvptx_only(op)?;
        let ops = self.ctx.operands(op).to_vec();
        let (p, space) = self.first_element(op, ops[0])?;
        if space != MemSpace::Workgroup {
            return Err(self.err(op, "a warpgroup descriptor describes shared memory"));
        }
        let a = self.assign(&format!("ptrtoint {} {p} to i64", addrspace(3)));
        let a = self.assign(&format!("and i64 {a}, 262143"));
        let d = self.assign(&format!("lshr i64 {a}, 4"));
        self.set(self.ctx.result(op, 0), d, "i64".into());
        Ok(())
    }

    /// `nvgpu.warpgroup.mma %a, %b, %c [{transposeB}]`: `M/64 × K/16` `wgmma.mma_async
    /// m64nNk16` instructions, each slab accumulating in k order, fenced before and waited
    /// for after (the op is synchronous). The `wgmma.fence` opens the first instruction's
    /// inline PTX: the moves LLVM emits to set up the accumulator registers then come
    /// before it, as PTX requires (a separate fence intrinsic would let them fall between,
    /// and ptxas would insert `warpgroup.arrive`s).
    pub(super) fn warpgroup_mma(&mut self, op: OpId) -> Result<(), Diagnostic> {
        self.nvptx_only(op)?;
        let ctx = self.ctx;
        let w = WarpgroupMma::decode(ctx, op)?;
        let ops = ctx.operands(op).to_vec();
        let (da, _) = self.scalar(op, ops[0])?;
        let (db, _) = self.scalar(op, ops[1])?;
        let (c, cty) = self.scalar(op, ops[2])?;
        let per_slab = (w.n / 2) as usize;
        let total = per_slab * (w.m / 64) as usize;
        // A zero accumulator (`init.accumulator`) is not materialised: each slab's first
        // instruction computes D = A·B (scale-d 0) into fresh registers, so no register
        // writes sit between the fence and the wgmmas (ptxas would insert waits).
        let zero = c == "zeroinitializer";
        let mut fresh = vec![zero; (w.m / 64) as usize];
        let mut regs: Vec<String> = if zero {
            vec![String::new(); total]
        } else {
            (0..total)
                .map(|i| self.assign(&format!("extractvalue {cty} {c}, {i}")))
                .collect()
        };
        let ret = format!("{{{}}}", vec!["float"; per_slab].join(", "));
        for s in w.steps() {
            let a = self.assign(&format!("add i64 {da}, {}", w.a_descriptor(s.a_offset)));
            let b = self.assign(&format!("add i64 {db}, {}", w.b_descriptor(s.b_offset)));
            let first = s.slab as usize * per_slab;
            let accumulate = !std::mem::take(&mut fresh[s.slab as usize]);
            let fence = s.slab == 0 && s.k_step == 0;
            let (asm, constraints) =
                wgmma_asm(w.n, w.elem, (accumulate, fence), (w.a_m_major, w.b_k_major));
            let ins: String = if accumulate {
                regs[first..first + per_slab]
                    .iter()
                    .map(|r| format!(", float {r}"))
                    .collect()
            } else {
                String::new()
            };
            let d = self.assign(&format!(
                "call {ret} asm sideeffect \"{asm}\", \"{constraints}\"(i64 {a}, i64 {b}, i32 {}{ins}) convergent nounwind",
                u8::from(accumulate)
            ));
            for i in 0..per_slab {
                regs[first + i] = self.assign(&format!("extractvalue {ret} {d}, {i}"));
            }
        }
        self.call("void", "llvm.nvvm.wgmma.commit_group.sync.aligned", &[], "");
        self.call(
            "void",
            "llvm.nvvm.wgmma.wait_group.sync.aligned",
            &[("i64", "0")],
            "",
        );
        let mut acc = "poison".to_string();
        for (i, r) in regs.iter().enumerate() {
            acc = self.assign(&format!("insertvalue {cty} {acc}, float {r}, {i}"));
        }
        self.set(ctx.result(op, 0), acc, cty);
        Ok(())
    }

    /// `nvgpu.warpgroup.mma.store %acc, %dst`: each thread stores its fragment; the
    /// thread's part of the coordinates (`16·warp + lane/4`, `2·(lane % 4)`) is computed
    /// once, the element's part is a constant ([`acc_coord`] of thread 0).
    pub(super) fn warpgroup_store(&mut self, op: OpId) -> Result<(), Diagnostic> {
        self.nvptx_only(op)?;
        let ctx = self.ctx;
        let ops = ctx.operands(op).to_vec();
        let acc = accumulator_of(ctx, ops[0])
            .ok_or_else(|| self.err(op, "operand #0 must be a warpgroup accumulator"))?;
        let (v, vty) = self.scalar(op, ops[0])?;
        let (ptr, info) = self.mem(op, ops[1])?;
        if info.shape != [acc.m, acc.n] || info.elem != Type::f32() {
            return Err(self.err(
                op,
                format!(
                    "the destination must be a {}x{}xf32 memref like the accumulator",
                    acc.m, acc.n
                ),
            ));
        }
        let asp = addrspace(self.space_as(info.space));
        let (s0, s1) = (info.strides[0], info.strides[1]);
        let idx = self.idx;
        let tid = self.call("i32", "llvm.nvvm.read.ptx.sreg.tid.x", &[], "");
        let t = self.assign(&format!("and i32 {tid}, 127"));
        let warp = self.assign(&format!("lshr i32 {t}, 5"));
        let lane = self.assign(&format!("and i32 {t}, 31"));
        let r16 = self.assign(&format!("shl i32 {warp}, 4"));
        let q = self.assign(&format!("lshr i32 {lane}, 2"));
        let row = self.assign(&format!("add i32 {r16}, {q}"));
        let l4 = self.assign(&format!("and i32 {lane}, 3"));
        let col = self.assign(&format!("shl i32 {l4}, 1"));
        let row = self.widen_i32(&row);
        let col = self.widen_i32(&col);
        let ro = self.assign(&format!("mul {idx} {row}, {s0}"));
        let co = self.assign(&format!("mul {idx} {col}, {s1}"));
        let base = self.assign(&format!("add {idx} {ro}, {co}"));
        let base = self.assign(&format!(
            "getelementptr inbounds float, {asp} {ptr}, {idx} {base}"
        ));
        let n = acc.n as u64;
        for i in 0..acc.regs_per_thread() {
            let (r, c) = acc_coord(0, i as u64, n);
            let off = info.offset + r as i64 * s0 + c as i64 * s1;
            let x = self.assign(&format!("extractvalue {vty} {v}, {i}"));
            let p = self.assign(&format!(
                "getelementptr inbounds float, {asp} {base}, {idx} {off}"
            ));
            self.line(&format!("store float {x}, {asp} {p}, align 4"));
        }
        Ok(())
    }
}

/// The inline PTX of one `wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{t}.{t}` (PTX ISA
/// §9.7.15.5.2) and its constraints: `n/2` f32 results, the A and B descriptors, and the
/// scale-d flag (an `i32` operand: 1 computes D = A·B + D, 0 D = A·B); when `accumulate`,
/// the results are tied to the accumulator inputs; with `fence`, `wgmma.fence.sync.aligned`
/// first. A is K-major (`imm-trans-a` 0) or, with `a_m_major` (rtile's `transposeA`),
/// MN-major (`imm-trans-a` 1); B MN-major (`imm-trans-b` 1, rtile's `transposeB`) or, with
/// `b_k_major`, K-major (`imm-trans-b` 0). The transposes exist for f16/bf16 operands only.
pub fn wgmma_asm(
    n: u64,
    elem: MmaElem,
    (accumulate, fence): (bool, bool),
    (a_m_major, b_k_major): (bool, bool),
) -> (String, String) {
    let regs = (n / 2) as usize;
    let t = match elem {
        MmaElem::F16 => "f16",
        MmaElem::BF16 => "bf16",
    };
    let d: Vec<String> = (0..regs).map(|i| format!("${i}")).collect();
    let asm = format!(
        "{{\\0A{}.reg .pred p;\\0Asetp.ne.b32 p, ${}, 0;\\0Awgmma.mma_async.sync.aligned.m64n{n}k16.f32.{t}.{t} {{{}}}, ${}, ${}, p, 1, 1, {}, {};\\0A}}",
        if fence {
            "wgmma.fence.sync.aligned;\\0A"
        } else {
            ""
        },
        regs + 2,
        d.join(", "),
        regs,
        regs + 1,
        u8::from(a_m_major),
        u8::from(!b_k_major)
    );
    let mut c: Vec<String> = vec!["=f".to_string(); regs];
    c.extend(["l".to_string(), "l".to_string(), "r".to_string()]);
    if accumulate {
        c.extend((0..regs).map(|i| i.to_string()));
    }
    c.push("~{memory}".to_string());
    (asm, c.join(","))
}
