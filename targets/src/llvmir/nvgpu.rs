//! The `nvgpu` ops (sm_80 tensor cores and asynchronous copies) as NVVM intrinsics, and the
//! 2-D vectors their fragments are (`vector<R x C x T>` is the LLVM array `[R x <C x T>]`,
//! as upstream's `convert-nvgpu-to-nvvm` lowers them):
//! - `nvgpu.mma.sync` → `llvm.nvvm.mma.m16n8k{16,8}.row.col.{f32.f32 | bf16 | f16.f16}`
//!   (PTX `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`, ...);
//! - `nvgpu.ldmatrix` → `llvm.nvvm.ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].b16`;
//! - `nvgpu.device_async_copy` → `llvm.nvvm.cp.async.{ca,cg}.shared.global.{4,8,16}[.s]`
//!   (`.s`: with `srcElements`, the bytes past it zero-filled);
//! - `nvgpu.device_async_create_group` → `llvm.nvvm.cp.async.commit.group`;
//! - `nvgpu.device_async_wait` → `llvm.nvvm.cp.async.wait.group`.
//!
//! The ops need sm_80 ([`check_arch`]); the AMDGPU flavor refuses them.

use rtile::diagnostics::Diagnostic;
use rtile::ir::{Context, OpId, WalkOrder};
use rtile_gpu_vocab::GpuOp;
use rtile_gpu_vocab::nvgpu::{AsyncCopy, LdMatrix, MmaAcc, MmaElem, MmaSync, async_wait_groups};

use rtile::ir::AttrKind;
use rtile::ir::attributes::{Attribute, DenseLiteral};

use super::{Flavor, FnEmitter, addrspace, flatten, float_lit, kind_of};

/// Refuses a module with `nvgpu` ops for an NVIDIA architecture before sm_80 (`sm` is the
/// `--to-ptx` name): mma.sync m16n8k16, ldmatrix and cp.async are sm_80 instructions, and
/// LLVM's instruction selection would abort on them.
/// The sm_90a ops have their own, stricter requirement ([`super::sm90::check_arch`]).
pub fn check_arch(ctx: &Context, module: OpId, sm: &str) -> Result<(), Diagnostic> {
    super::sm90::check_arch(ctx, module, sm)?;
    let num: u32 = sm
        .trim_start_matches("sm_")
        .trim_end_matches('a')
        .parse()
        .unwrap_or(0);
    if num >= 80 {
        return Ok(());
    }
    let mut first = None;
    ctx.walk(module, WalkOrder::PreOrder, &mut |_, op| {
        if first.is_none() && ctx.op_name(op).starts_with("nvgpu.") {
            first = Some(op);
        }
    });
    match first {
        Some(op) => Err(Diagnostic::op_error(
            ctx,
            op,
            format!(
                "needs sm_80 or newer (tensor-core mma.sync, ldmatrix and cp.async); the target is {sm}"
            ),
        )),
        None => Ok(()),
    }
}

/// The LLVM element type of the operands of `m` as one `<2 x T>` register.
fn pair_ty(e: MmaElem) -> &'static str {
    match e {
        MmaElem::F16 => "<2 x half>",
        MmaElem::BF16 => "<2 x bfloat>",
    }
}

impl FnEmitter<'_> {
    /// Refuses an NVIDIA-only op on the AMDGPU flavor.
    pub(super) fn nvptx_only(&self, op: OpId) -> Result<(), Diagnostic> {
        let name = self.ctx.op_name(op);
        let what = if super::sm90::is_sm90_op(name) {
            "an NVIDIA sm_90a op (mbarrier, TMA, wgmma): the AMDGPU target does not translate it (AMD GPUs have no TMA or warpgroup MMA)"
        } else {
            "an NVIDIA tensor-core/cp.async op: the AMDGPU target does not translate it (AMD matrix cores are amdgpu.mfma)"
        };
        match self.opts.flavor {
            Flavor::Nvptx => Ok(()),
            Flavor::Amdgpu => Err(self.err(op, format!("'{name}' is {what}"))),
        }
    }

    /// The registers of an `[n x <2 x T>]` fragment, as `<2 x T>` values, or as `i32` when
    /// `as_i32` (the bf16 intrinsics take packed `i32`s).
    fn fragment_regs(
        &mut self,
        frag: &str,
        aty: &str,
        n: usize,
        pty: &str,
        as_i32: bool,
    ) -> Vec<String> {
        (0..n)
            .map(|i| {
                let v = self.assign(&format!("extractvalue {aty} {frag}, {i}"));
                if as_i32 {
                    self.assign(&format!("bitcast {pty} {v} to i32"))
                } else {
                    v
                }
            })
            .collect()
    }

    /// `nvgpu.mma.sync`.
    pub(super) fn mma_sync(&mut self, op: OpId) -> Result<(), Diagnostic> {
        self.nvptx_only(op)?;
        let ctx = self.ctx;
        let mma = MmaSync::decode(ctx, op)?;
        let ops = ctx.operands(op).to_vec();
        let (a, aty) = self.scalar(op, ops[0])?;
        let (b, bty) = self.scalar(op, ops[1])?;
        let (c, cty) = self.scalar(op, ops[2])?;
        let pty = pair_ty(mma.operand);
        let bf16 = mma.operand == MmaElem::BF16;
        let areg = self.fragment_regs(&a, &aty, mma.a_regs(), pty, bf16);
        let breg = self.fragment_regs(&b, &bty, mma.b_regs(), pty, bf16);
        let in_ty = if bf16 { "i32" } else { pty };
        let mut args: Vec<(String, String)> = areg
            .into_iter()
            .chain(breg)
            .map(|v| (in_ty.to_string(), v))
            .collect();
        let geom = format!("m{}n{}k{}", mma.shape[0], mma.shape[1], mma.shape[2]);
        let (name, ret, out_pair) = match (mma.operand, mma.acc) {
            (MmaElem::F16, MmaAcc::F32) => (
                format!("llvm.nvvm.mma.{geom}.row.col.f32.f32"),
                "{float, float, float, float}",
                "<2 x float>",
            ),
            (MmaElem::BF16, MmaAcc::F32) => (
                format!("llvm.nvvm.mma.{geom}.row.col.bf16"),
                "{float, float, float, float}",
                "<2 x float>",
            ),
            (MmaElem::F16, MmaAcc::F16) => (
                format!("llvm.nvvm.mma.{geom}.row.col.f16.f16"),
                "{<2 x half>, <2 x half>}",
                "<2 x half>",
            ),
            (MmaElem::BF16, MmaAcc::F16) => {
                return Err(self.err(op, "bf16 mma.sync accumulates in f32"));
            }
        };
        // C: f32 accumulators are passed as 4 floats, f16 ones as 2 `<2 x half>` registers.
        let f32acc = mma.acc == MmaAcc::F32;
        for r in 0..mma.c_regs() {
            let row = self.assign(&format!("extractvalue {cty} {c}, {r}"));
            if f32acc {
                for h in 0..2 {
                    let e = self.assign(&format!("extractelement <2 x float> {row}, i32 {h}"));
                    args.push(("float".into(), e));
                }
            } else {
                args.push((out_pair.into(), row));
            }
        }
        let refs: Vec<(&str, &str)> = args.iter().map(|(t, v)| (t.as_str(), v.as_str())).collect();
        let d = self.call(ret, &name, &refs, "");
        // D back into `[regs x <2 x T>]`.
        let mut acc = "poison".to_string();
        for r in 0..mma.c_regs() {
            let row = if f32acc {
                let mut v = "poison".to_string();
                for h in 0..2 {
                    let e = self.assign(&format!("extractvalue {ret} {d}, {}", 2 * r + h));
                    v = self.assign(&format!(
                        "insertelement <2 x float> {v}, float {e}, i32 {h}"
                    ));
                }
                v
            } else {
                self.assign(&format!("extractvalue {ret} {d}, {r}"))
            };
            acc = self.assign(&format!("insertvalue {cty} {acc}, {out_pair} {row}, {r}"));
        }
        self.set(ctx.result(op, 0), acc, cty);
        Ok(())
    }

    /// `nvgpu.ldmatrix`.
    pub(super) fn ldmatrix(&mut self, op: OpId) -> Result<(), Diagnostic> {
        self.nvptx_only(op)?;
        let ctx = self.ctx;
        let ld = LdMatrix::decode(ctx, op)?;
        let ops = ctx.operands(op).to_vec();
        let (p, _info, asp, ety) = self.element_ptr(op, ops[0], &ops[1..])?;
        if asp != 3 {
            return Err(self.err(op, "ldmatrix reads shared memory"));
        }
        let rty = self.result_ty(op)?;
        let n = ld.tiles as usize;
        let trans = if ld.transpose { ".trans" } else { "" };
        let name = format!("llvm.nvvm.ldmatrix.sync.aligned.m8n8.x{n}{trans}.b16");
        let ret = if n == 1 {
            "i32".to_string()
        } else {
            format!("{{{}}}", vec!["i32"; n].join(", "))
        };
        let ptr_ty = addrspace(3);
        let r = self.call(&ret, &name, &[(ptr_ty.as_str(), p.as_str())], "");
        let pty = format!("<2 x {ety}>");
        let mut acc = "poison".to_string();
        for i in 0..n {
            let w = if n == 1 {
                r.clone()
            } else {
                self.assign(&format!("extractvalue {ret} {r}, {i}"))
            };
            let v = self.assign(&format!("bitcast i32 {w} to {pty}"));
            acc = self.assign(&format!("insertvalue {rty} {acc}, {pty} {v}, {i}"));
        }
        self.set(ctx.result(op, 0), acc, rty);
        Ok(())
    }

    /// `nvgpu.device_async_copy` (the token has no value in LLVM).
    pub(super) fn async_copy(&mut self, op: OpId) -> Result<(), Diagnostic> {
        self.nvptx_only(op)?;
        let ctx = self.ctx;
        let cp = AsyncCopy::decode(ctx, op)?;
        let ops = ctx.operands(op).to_vec();
        let dr = cp.dst_rank;
        let (dst, _, dasp, _) = self.element_ptr(op, ops[0], &ops[1..1 + dr])?;
        let s_at = 1 + dr;
        let (src, _, sasp, _) =
            self.element_ptr(op, ops[s_at], &ops[s_at + 1..s_at + 1 + cp.src_rank])?;
        if dasp != 3 || sasp != 1 {
            return Err(self.err(op, "cp.async copies global memory to shared memory"));
        }
        let bytes = cp.bytes();
        let level = if cp.bypass_l1 { "cg" } else { "ca" };
        let (d_ty, s_ty) = (addrspace(3), addrspace(1));
        let mut args = vec![(d_ty.clone(), dst), (s_ty.clone(), src)];
        let mut suffix = "";
        if cp.src_elements {
            let (n, nty) = self.scalar(op, ops[s_at + 1 + cp.src_rank])?;
            let n32 = if nty == "i32" {
                n
            } else {
                self.assign(&format!("trunc {nty} {n} to i32"))
            };
            let b = self.assign(&format!("mul i32 {n32}, {}", cp.elem_bytes));
            args.push(("i32".into(), b));
            suffix = ".s";
        }
        let name = format!("llvm.nvvm.cp.async.{level}.shared.global.{bytes}{suffix}");
        let refs: Vec<(&str, &str)> = args.iter().map(|(t, v)| (t.as_str(), v.as_str())).collect();
        self.call("void", &name, &refs, "");
        Ok(())
    }

    /// `nvgpu.device_async_create_group`.
    pub(super) fn async_commit(&mut self, op: OpId) -> Result<(), Diagnostic> {
        self.nvptx_only(op)?;
        self.call("void", "llvm.nvvm.cp.async.commit.group", &[], "");
        Ok(())
    }

    /// `nvgpu.device_async_wait`.
    pub(super) fn async_wait(&mut self, op: OpId) -> Result<(), Diagnostic> {
        self.nvptx_only(op)?;
        let n = async_wait_groups(self.ctx, op)?.to_string();
        self.call("void", "llvm.nvvm.cp.async.wait.group", &[("i32", &n)], "");
        Ok(())
    }

    /// The vector operand of a `vector.extract` (its source), `vector.insert` (its
    /// destination) or `vector.broadcast` (its result), when `g` is one of them.
    fn vector_of(&self, op: OpId, g: GpuOp) -> Option<rtile::ir::Value> {
        let ctx = self.ctx;
        match g {
            GpuOp::Extract => ctx.operands(op).first().copied(),
            GpuOp::Insert => ctx.operands(op).get(1).copied(),
            GpuOp::Broadcast => ctx.results(op).first().copied(),
            _ => None,
        }
    }

    /// Whether `op` (an extract, insert or broadcast) works on a 2-D vector.
    pub(super) fn on_2d_vector(&self, op: OpId, g: GpuOp) -> bool {
        self.vector_of(op, g).is_some_and(|v| {
            matches!(self.ctx.value_type(v).kind(),
                rtile::ir::TypeKind::Vector { shape, .. } if shape.len() == 2)
        })
    }

    /// `vector.extract` / `vector.insert` (static positions) / `vector.broadcast` (of a
    /// scalar) on a 2-D vector (`[R x <C x T>]`).
    pub(super) fn array_vector_op(&mut self, op: OpId, g: GpuOp) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let ops = ctx.operands(op).to_vec();
        let res = ctx.result(op, 0);
        let vec_val = self
            .vector_of(op, g)
            .ok_or_else(|| self.err(op, "expects a vector operand"))?;
        let pos = g != GpuOp::Broadcast;
        let aty = self.llvm_type(op, ctx.value_type(vec_val))?;
        let row_ty = aty
            .split_once(" x ")
            .map(|(_, r)| r.trim_end_matches(']').to_string())
            .unwrap_or_default();
        let rows: usize = aty[1..]
            .split(' ')
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        if !pos {
            // Broadcast of a scalar: splat one row, repeat it.
            let (s, sty) = self.scalar(op, ops[0])?;
            let n = row_ty
                .trim_start_matches('<')
                .split(" x ")
                .next()
                .unwrap_or("1")
                .to_string();
            let i = self.assign(&format!("insertelement {row_ty} poison, {sty} {s}, i32 0"));
            let row = self.assign(&format!(
                "shufflevector {row_ty} {i}, {row_ty} poison, <{n} x i32> zeroinitializer"
            ));
            let mut acc = "poison".to_string();
            for r in 0..rows {
                acc = self.assign(&format!("insertvalue {aty} {acc}, {row_ty} {row}, {r}"));
            }
            self.set(res, acc, aty);
            return Ok(());
        }
        let p = match ctx
            .inherent_attr(op, "static_position")
            .and_then(|a| a.as_dense_ints())
        {
            Some(p) if (1..=2).contains(&p.len()) && p.iter().all(|&x| x >= 0) => p.to_vec(),
            _ => {
                return Err(self.err(
                    op,
                    "a 2-D vector takes a static position of one or two indices",
                ));
            }
        };
        let (v, _) = self.scalar(op, vec_val)?;
        if g == GpuOp::Extract {
            let row = self.assign(&format!("extractvalue {aty} {v}, {}", p[0]));
            let (r, ty) = if p.len() == 2 {
                let ety = self.result_ty(op)?;
                let e = self.assign(&format!("extractelement {row_ty} {row}, i32 {}", p[1]));
                (e, ety)
            } else {
                (row, row_ty)
            };
            self.set(res, r, ty);
        } else {
            let (s, sty) = self.scalar(op, ops[0])?;
            let row = if p.len() == 2 {
                let old = self.assign(&format!("extractvalue {aty} {v}, {}", p[0]));
                self.assign(&format!(
                    "insertelement {row_ty} {old}, {sty} {s}, i32 {}",
                    p[1]
                ))
            } else {
                s
            };
            let r = self.assign(&format!("insertvalue {aty} {v}, {row_ty} {row}, {}", p[0]));
            self.set(res, r, aty);
        }
        Ok(())
    }

    /// A constant of a 2-D vector type `[R x <C x T>]` (a `dense<...>` splat or list), row by
    /// row; `None` for other types.
    pub(super) fn array_constant(
        &self,
        op: OpId,
        a: &Attribute,
        ty: &str,
    ) -> Result<Option<String>, Diagnostic> {
        let Some(rest) = ty.strip_prefix('[') else {
            return Ok(None);
        };
        let bad = || self.err(op, "unsupported 2-D vector constant");
        let (rows, row_ty) = rest
            .trim_end_matches(']')
            .split_once(" x ")
            .ok_or_else(bad)?;
        let (cols, ety) = row_ty
            .trim_start_matches('<')
            .trim_end_matches('>')
            .split_once(" x ")
            .ok_or_else(bad)?;
        let (rows, cols): (usize, usize) = (
            rows.parse().map_err(|_| bad())?,
            cols.parse().map_err(|_| bad())?,
        );
        let AttrKind::DenseElements { literal, .. } = a.kind() else {
            return Err(bad());
        };
        let flat = match literal {
            DenseLiteral::List(xs) => flatten(xs),
            l => vec![l.clone(); rows * cols],
        };
        if flat.len() != rows * cols {
            return Err(bad());
        }
        let lit = |l: &DenseLiteral| -> Option<String> {
            match (l, kind_of(ety)) {
                (DenseLiteral::Float(f), Some(k)) => float_lit(f.get(), k),
                (DenseLiteral::Int(i), Some(k)) => float_lit(*i as f64, k),
                (DenseLiteral::Int(i), None) => Some(i.to_string()),
                _ => None,
            }
        };
        let mut out = Vec::new();
        for row in flat.chunks(cols) {
            let es: Vec<String> = row
                .iter()
                .map(|l| lit(l).map(|v| format!("{ety} {v}")))
                .collect::<Option<_>>()
                .ok_or_else(bad)?;
            out.push(format!("{row_ty} <{}>", es.join(", ")));
        }
        Ok(Some(format!("[{}]", out.join(", "))))
    }
}
