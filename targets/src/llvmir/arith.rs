//! gpu-level IR → LLVM IR: Arithmetic: constants, integer and float ops, comparisons, conversions, math functions.

use super::*;

impl FnEmitter<'_> {
    pub(super) fn convert_int(&mut self, repr: &str, from: &str, to: &str, signed: bool) -> String {
        let (Some(fw), Some(tw)) = (int_width(from), int_width(to)) else {
            return repr.to_string();
        };
        if fw == tw {
            return repr.to_string();
        }
        if let Ok(c) = repr.parse::<i64>() {
            // Fold: truncation keeps the low bits (two's complement), extension the value
            // (zero extension of a negative literal reinterprets its `fw` bits).
            let v = if tw < 64 && fw > tw {
                let shift = 64 - tw;
                (c << shift) >> shift
            } else if !signed && fw < 64 && c < 0 {
                c & ((1i64 << fw) - 1)
            } else {
                c
            };
            return v.to_string();
        }
        let opn = if fw > tw {
            "trunc"
        } else if signed {
            "sext"
        } else {
            "zext"
        };
        self.assign(&format!("{opn} {from} {repr} to {to}"))
    }

    pub(super) fn const_attr(
        &self,
        op: OpId,
        a: &Attribute,
        ty: &str,
    ) -> Result<String, Diagnostic> {
        if let Some(c) = self.array_constant(op, a, ty)? {
            return Ok(c);
        }
        let scalar = |lit: &DenseLiteral, ety: &str| -> Option<String> {
            match lit {
                DenseLiteral::Int(i) => Some(if ety == "i1" {
                    if *i != 0 {
                        "true".into()
                    } else {
                        "false".into()
                    }
                } else if is_float_ty(ety) {
                    float_lit(*i as f64, kind_of(ety)?)?
                } else {
                    i.to_string()
                }),
                DenseLiteral::Bool(b) => Some(if *b { "true".into() } else { "false".into() }),
                DenseLiteral::Float(f) => float_lit(f.get(), kind_of(ety)?),
                _ => None,
            }
        };
        match a.kind() {
            AttrKind::Integer { value, .. } => Ok(if ty == "i1" {
                if *value != 0 {
                    "true".into()
                } else {
                    "false".into()
                }
            } else {
                value.to_string()
            }),
            AttrKind::Bool(b) => Ok(if *b { "true".into() } else { "false".into() }),
            AttrKind::Float { value, .. } => kind_of(ty)
                .and_then(|k| float_lit(value.get(), k))
                .ok_or_else(|| self.err(op, "unsupported float constant")),
            AttrKind::DenseElements { literal, ty: dty } => {
                let n = dty.shape().map(|s| s.iter().product::<i64>()).unwrap_or(1);
                let ety = elem_of(ty).to_string();
                let elems: Vec<String> = match literal {
                    DenseLiteral::List(xs) => {
                        let flat = flatten(xs);
                        flat.iter()
                            .map(|l| scalar(l, &ety))
                            .collect::<Option<Vec<_>>>()
                            .ok_or_else(|| self.err(op, "unsupported dense constant"))?
                    }
                    l => {
                        let s = scalar(l, &ety)
                            .ok_or_else(|| self.err(op, "unsupported dense constant"))?;
                        vec![s; n.max(1) as usize]
                    }
                };
                if !ty.starts_with('<') {
                    return elems
                        .first()
                        .cloned()
                        .ok_or_else(|| self.err(op, "empty constant"));
                }
                Ok(format!(
                    "<{}>",
                    elems
                        .iter()
                        .map(|e| format!("{ety} {e}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            }
            _ => Err(self.err(op, "unsupported constant attribute")),
        }
    }

    pub(super) fn result_ty(&self, op: OpId) -> Result<String, Diagnostic> {
        let r = *self
            .ctx
            .results(op)
            .first()
            .ok_or_else(|| self.err(op, "expected a result"))?;
        self.llvm_type(op, self.ctx.value_type(r))
    }

    pub(super) fn bin(&mut self, op: OpId, inst: &str, flags: &str) -> Result<(), Diagnostic> {
        let ops = self.ctx.operands(op).to_vec();
        if ops.len() != 2 {
            return Err(self.err(op, "expected two operands"));
        }
        let (a, ty) = self.scalar(op, ops[0])?;
        let (b, _) = self.scalar(op, ops[1])?;
        let r = self.assign(&format!("{inst} {flags}{ty} {a}, {b}"));
        self.set(self.ctx.result(op, 0), r, ty);
        Ok(())
    }

    pub(super) fn intr(&mut self, op: OpId, base: &str, flags: &str) -> Result<(), Diagnostic> {
        let ops = self.ctx.operands(op).to_vec();
        let mut args = Vec::new();
        let mut ty = String::new();
        for v in &ops {
            let (r, t) = self.scalar(op, *v)?;
            ty = t.clone();
            args.push((t, r));
        }
        let name = format!("{base}.{}", intr_suffix(&ty));
        let a: Vec<(&str, &str)> = args.iter().map(|(t, r)| (t.as_str(), r.as_str())).collect();
        let r = self.call(&ty, &name, &a, flags);
        self.set(self.ctx.result(op, 0), r, ty);
        Ok(())
    }

    pub(super) fn overflow_flags(&self, op: OpId) -> String {
        let Some(a) = self.ctx.inherent_attr(op, "overflowFlags") else {
            return String::new();
        };
        let mut s = String::new();
        for w in attr_words(a) {
            if w == "nuw" || w == "nsw" {
                s.push_str(&w);
                s.push(' ');
            }
        }
        s
    }

    /// `frem`; 16-bit floats are computed in f32 (no back end has a 16-bit fmod libcall).
    pub(super) fn remf(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ops = self.ctx.operands(op).to_vec();
        let (a, ty) = self.scalar(op, ops[0])?;
        let (b, _) = self.scalar(op, ops[1])?;
        let f = self.fmf(op);
        let ety = elem_of(&ty).to_string();
        if ety == "bfloat" && self.opts.flavor == Flavor::Amdgpu {
            // LLVM narrows the f32 detour back to a bf16 frem, which AMDGPU cannot lower.
            return Err(self.err(op, "arith.remf on bf16 is not supported for AMDGPU"));
        }
        let r = if matches!(ety.as_str(), "half" | "bfloat") {
            let wide = ty.replace(&ety, "float");
            let x = self.assign(&format!("fpext {ty} {a} to {wide}"));
            let y = self.assign(&format!("fpext {ty} {b} to {wide}"));
            let q = self.assign(&format!("frem {f}{wide} {x}, {y}"));
            self.assign(&format!("fptrunc {wide} {q} to {ty}"))
        } else {
            self.assign(&format!("frem {f}{ty} {a}, {b}"))
        };
        self.set(self.ctx.result(op, 0), r, ty);
        Ok(())
    }

    pub(super) fn div_round(&mut self, op: OpId, g: G) -> Result<(), Diagnostic> {
        let ops = self.ctx.operands(op).to_vec();
        let (a, ty) = self.scalar(op, ops[0])?;
        let (b, _) = self.scalar(op, ops[1])?;
        let r = if g == G::CeilDivUI {
            let q = self.assign(&format!("udiv {ty} {a}, {b}"));
            let m = self.assign(&format!("urem {ty} {a}, {b}"));
            let nz = self.assign(&format!("icmp ne {ty} {m}, 0"));
            let z = self.assign(&format!("zext i1 {nz} to {ty}"));
            self.assign(&format!("add {ty} {q}, {z}"))
        } else {
            let q = self.assign(&format!("sdiv {ty} {a}, {b}"));
            let m = self.assign(&format!("srem {ty} {a}, {b}"));
            let nz = self.assign(&format!("icmp ne {ty} {m}, 0"));
            let mneg = self.assign(&format!("icmp slt {ty} {m}, 0"));
            let bneg = self.assign(&format!("icmp slt {ty} {b}, 0"));
            let (cmp, delta) = if g == G::FloorDivSI {
                ("xor", "-1")
            } else {
                ("icmp eq", "1")
            };
            let signs = if cmp == "xor" {
                self.assign(&format!("xor i1 {mneg}, {bneg}"))
            } else {
                self.assign(&format!("icmp eq i1 {mneg}, {bneg}"))
            };
            let adj = self.assign(&format!("and i1 {nz}, {signs}"));
            let d = self.assign(&format!("select i1 {adj}, {ty} {delta}, {ty} 0"));
            self.assign(&format!("add {ty} {q}, {d}"))
        };
        self.set(self.ctx.result(op, 0), r, ty);
        Ok(())
    }

    /// `icmp`/`fcmp` (`inst`, with its fastmath flags) of the predicate keyword `pred`.
    pub(super) fn cmp(&mut self, op: OpId, inst: &str, pred: &str) -> Result<(), Diagnostic> {
        let ops = self.ctx.operands(op).to_vec();
        let (a, ty) = self.scalar(op, ops[0])?;
        let (b, _) = self.scalar(op, ops[1])?;
        let rty = self.result_ty(op)?;
        let r = self.assign(&format!("{inst}{pred} {ty} {a}, {b}"));
        self.set(self.ctx.result(op, 0), r, rty);
        Ok(())
    }

    pub(super) fn math(&mut self, op: OpId, m: MathFn) -> Result<(), Diagnostic> {
        let fname = m.short_name();
        let f = self.fmf(op);
        match m {
            MathFn::Sqrt => return self.intr(op, "llvm.sqrt", &f),
            MathFn::AbsF => return self.intr(op, "llvm.fabs", &f),
            MathFn::Fma => return self.intr(op, "llvm.fma", &f),
            MathFn::Floor => return self.intr(op, "llvm.floor", &f),
            MathFn::Ceil => return self.intr(op, "llvm.ceil", &f),
            MathFn::Round => return self.intr(op, "llvm.round", &f),
            MathFn::RoundEven => return self.intr(op, "llvm.roundeven", &f),
            MathFn::Trunc => return self.intr(op, "llvm.trunc", &f),
            MathFn::CopySign => return self.intr(op, "llvm.copysign", &f),
            MathFn::AbsI => {
                let (a, ty) = self.scalar(op, self.ctx.operands(op)[0])?;
                let r = self.call(
                    &ty,
                    &format!("llvm.abs.{}", intr_suffix(&ty)),
                    &[(&ty, &a), ("i1", "false")],
                    "",
                );
                self.set(self.ctx.result(op, 0), r, ty);
                return Ok(());
            }
            MathFn::Rsqrt => {
                let (a, ty) = self.scalar(op, self.ctx.operands(op)[0])?;
                let s = self.call(
                    &ty,
                    &format!("llvm.sqrt.{}", intr_suffix(&ty)),
                    &[(&ty, &a)],
                    &f,
                );
                let one = self.splat_const(&ty, 1.0)?;
                let r = self.assign(&format!("fdiv {f}{ty} {one}, {s}"));
                self.set(self.ctx.result(op, 0), r, ty);
                return Ok(());
            }
            MathFn::Exp
            | MathFn::Exp2
            | MathFn::Log
            | MathFn::Log2
            | MathFn::Tanh
            | MathFn::Erf => {}
            MathFn::Sin | MathFn::Cos | MathFn::PowF => {
                return Err(self.err(op, format!("unsupported math function 'math.{fname}'")));
            }
        }
        // Transcendental functions work on f32 (f16/bf16 are computed in f32); vectors
        // are done lane by lane.
        let (a, ty) = self.scalar(op, self.ctx.operands(op)[0])?;
        let ety = elem_of(&ty).to_string();
        if !matches!(ety.as_str(), "float" | "half" | "bfloat") {
            return Err(self.err(
                op,
                format!("math.{fname} is supported on f32, f16 and bf16 only"),
            ));
        }
        let helper = self.helper(fname);
        let r = if ty.starts_with('<') {
            let n: usize = ty
                .trim_start_matches('<')
                .split(" x ")
                .next()
                .and_then(|s| s.trim().parse().ok())
                .unwrap_or(1);
            let mut acc = "poison".to_string();
            for i in 0..n {
                let e = self.assign(&format!("extractelement {ty} {a}, i32 {i}"));
                let y = self.call_f32(&helper, &e, &ety);
                acc = self.assign(&format!("insertelement {ty} {acc}, {ety} {y}, i32 {i}"));
            }
            acc
        } else {
            self.call_f32(&helper, &a, &ety)
        };
        self.set(self.ctx.result(op, 0), r, ty);
        Ok(())
    }

    pub(super) fn call_f32(&mut self, helper: &str, x: &str, ety: &str) -> String {
        let xf = if ety == "float" {
            x.to_string()
        } else {
            self.assign(&format!("fpext {ety} {x} to float"))
        };
        let y = self.assign(&format!("call float @{helper}(float {xf})"));
        if ety == "float" {
            y
        } else {
            self.assign(&format!("fptrunc float {y} to {ety}"))
        }
    }

    pub(super) fn splat_const(&self, ty: &str, v: f64) -> Result<String, Diagnostic> {
        let ety = elem_of(ty);
        let k = kind_of(ety).ok_or_else(|| self.err(self.info.op, "bad float type"))?;
        let lit = float_lit(v, k).unwrap_or_default();
        if let Some(n) = ty.strip_prefix('<').and_then(|t| t.split(" x ").next()) {
            let n: usize = n.trim().parse().unwrap_or(1);
            return Ok(format!("<{}>", vec![format!("{ety} {lit}"); n].join(", ")));
        }
        Ok(lit)
    }

    /// Defines (once per module) the internal f32 helper for a transcendental function.
    pub(super) fn helper(&mut self, fname: &str) -> String {
        let name = format!("__rtile_{fname}f");
        if self.m.helpers.contains_key(&name) {
            return name;
        }
        let body = crate::mathlib::helper_body(self.opts.flavor, fname);
        for (n, d) in crate::mathlib::helper_decls(self.opts.flavor, fname) {
            self.m.declare(n, d.to_string());
        }
        // Helpers call each other (tanh uses exp).
        for dep in crate::mathlib::helper_deps(fname) {
            self.helper(dep);
        }
        self.m.helpers.insert(name.clone(), body);
        name
    }

    /// Integer casts (sign- or zero-extended as the op says) and float/int/bit conversions.
    pub(super) fn conversion(&mut self, op: OpId, g: G) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let (a, from) = self.scalar(op, ctx.operands(op)[0])?;
        let to = self.result_ty(op)?;
        let inst = match g {
            G::IndexCast | G::IndexCastUI | G::ExtSI | G::ExtUI | G::TruncI => {
                let signed = !matches!(g, G::IndexCastUI | G::ExtUI);
                let r = self.convert_int(&a, &from, &to, signed);
                self.set(ctx.result(op, 0), r, to);
                return Ok(());
            }
            G::ExtF => "fpext",
            G::TruncF => "fptrunc",
            G::SIToFP => "sitofp",
            G::UIToFP => "uitofp",
            G::FPToSI => "fptosi",
            G::FPToUI => "fptoui",
            _ => "bitcast",
        };
        let r = if from == to {
            a
        } else {
            self.assign(&format!("{inst} {from} {a} to {to}"))
        };
        self.set(ctx.result(op, 0), r, to);
        Ok(())
    }
}
