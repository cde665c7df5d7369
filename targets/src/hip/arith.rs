//! gpu-level IR → HIP C++: Arithmetic, conversions and math functions.

use super::*;

impl HipEmitter<'_> {
    /// Integer min/max (signed or unsigned compares) and rounding divisions.
    pub(super) fn integer_op(&mut self, op: OpId, g: G) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let o = ctx.operands(op).to_vec();
        match g {
            G::MaxSI | G::MinSI | G::MaxUI | G::MinUI => {
                let (a, ty) = self.val(op, o[0])?;
                let (b, _) = self.val(op, o[1])?;
                let (cmp, u) = match g {
                    G::MaxSI => (">", false),
                    G::MinSI => ("<", false),
                    G::MaxUI => (">", true),
                    _ => ("<", true),
                };
                let (ca, cb) = if u {
                    let ut = unsigned_of(&ty);
                    (format!("({ut}){a}"), format!("({ut}){b}"))
                } else {
                    (a.clone(), b.clone())
                };
                self.define(op, &format!("{ca} {cmp} {cb} ? {a} : {b}"))?;
            }
            G::FloorDivSI | G::CeilDivSI | G::CeilDivUI => {
                let (a, ty) = self.val(op, o[0])?;
                let (b, _) = self.val(op, o[1])?;
                let e = match g {
                    G::FloorDivSI => format!(
                        "({a} / {b}) - ((({a} % {b}) != 0 && ((({a} % {b}) < 0) != ({b} < 0))) ? 1 : 0)"
                    ),
                    G::CeilDivSI => format!(
                        "({a} / {b}) + ((({a} % {b}) != 0 && ((({a} % {b}) < 0) == ({b} < 0))) ? 1 : 0)"
                    ),
                    _ => {
                        let u = unsigned_of(&ty);
                        format!("({ty})((({u}){a} + ({u}){b} - 1) / ({u}){b})")
                    }
                };
                self.define(op, &e)?;
            }
            _ => unreachable!(
                "integer_op is called with integer min/max and rounding divisions only"
            ),
        }
        Ok(())
    }

    /// `maximumf`/`minimumf` (NaN-propagating) through the prelude helpers.
    pub(super) fn float_minmax(&mut self, op: OpId, g: G) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let o = ctx.operands(op).to_vec();
        match g {
            G::MaximumF | G::MinimumF => {
                let (a, ty) = self.val(op, o[0])?;
                let (b, _) = self.val(op, o[1])?;
                self.prelude.maximum = true;
                let f = if g == G::MaximumF {
                    "rt_maximumf"
                } else {
                    "rt_minimumf"
                };
                let e = if ty == "float" {
                    format!("{f}({a}, {b})")
                } else {
                    format!("({ty}){f}((float){a}, (float){b})")
                };
                self.define(op, &e)?;
            }
            _ => unreachable!("float_minmax is called with maximumf/minimumf only"),
        }
        Ok(())
    }

    /// Casts: C casts, through the unsigned type where the op is unsigned; bit casts.
    pub(super) fn conversion(&mut self, op: OpId, g: G) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let name = ctx.op_name(op).to_string();
        let o = ctx.operands(op).to_vec();
        match g {
            G::IndexCast | G::ExtSI | G::TruncI | G::ExtF | G::TruncF | G::SIToFP | G::FPToSI => {
                let (a, _) = self.val(op, o[0])?;
                let rt = *ctx.value_type(ctx.result(op, 0));
                let ty = self.c_type(op, &rt)?;
                self.define(op, &format!("({ty}){a}"))?;
            }
            G::IndexCastUI | G::ExtUI | G::UIToFP | G::FPToUI => {
                let (a, aty) = self.val(op, o[0])?;
                let rt = *ctx.value_type(ctx.result(op, 0));
                let ty = self.c_type(op, &rt)?;
                let e = if name == "arith.fptoui" {
                    format!("({ty})({})({a})", unsigned_of(&ty))
                } else {
                    format!("({ty})({}){a}", unsigned_of(&aty))
                };
                self.define(op, &e)?;
            }
            G::Bitcast => {
                let (a, _) = self.val(op, o[0])?;
                let rt = *ctx.value_type(ctx.result(op, 0));
                let ty = self.c_type(op, &rt)?;
                self.define(op, &format!("__builtin_bit_cast({ty}, {a})"))?;
            }
            _ => unreachable!("conversion is called with casts only"),
        }
        Ok(())
    }

    /// `math.*` as the HIP device library calls.
    pub(super) fn math(&mut self, op: OpId, g: G) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let o = ctx.operands(op).to_vec();
        match g {
            G::Math(MathFn::Exp) => self.call1(op, "exp")?,
            G::Math(MathFn::Exp2) => self.call1(op, "exp2")?,
            G::Math(MathFn::Log) => self.call1(op, "log")?,
            G::Math(MathFn::Log2) => self.call1(op, "log2")?,
            G::Math(MathFn::Sqrt) => self.call1(op, "sqrt")?,
            G::Math(MathFn::Rsqrt) => self.call1(op, "rsqrt")?,
            G::Math(MathFn::Tanh) => self.call1(op, "tanh")?,
            G::Math(MathFn::Erf) => self.call1(op, "erf")?,
            G::Math(MathFn::AbsF) => self.call1(op, "fabs")?,
            G::Math(MathFn::Fma) => self.call1(op, "fma")?,
            G::Math(MathFn::Floor) => self.call1(op, "floor")?,
            G::Math(MathFn::Ceil) => self.call1(op, "ceil")?,
            G::Math(MathFn::Round) => self.call1(op, "round")?,
            G::Math(MathFn::Trunc) => self.call1(op, "trunc")?,
            G::Math(MathFn::RoundEven) => self.call1(op, "rint")?,
            G::Math(MathFn::AbsI) => {
                let (a, ty) = self.val(op, o[0])?;
                self.define(op, &format!("({a} < ({ty})0 ? ({ty})-{a} : {a})"))?;
            }
            G::Math(MathFn::CopySign) => self.call1(op, "copysign")?,
            G::Math(m @ (MathFn::Sin | MathFn::Cos | MathFn::PowF)) => {
                return Err(self.err(
                    op,
                    format!(
                        "rtile-translate --to-hip: unsupported operation '{}' in gpu.func @{}",
                        m.name(),
                        self.info.name
                    ),
                ));
            }
            _ => unreachable!("math is called with math ops only"),
        }
        Ok(())
    }

    pub(super) fn bin(&mut self, op: OpId, sym: &str, unsigned: bool) -> Result<(), Diagnostic> {
        let o = self.ctx.operands(op).to_vec();
        let (a, ty) = self.val(op, o[0])?;
        let (b, _) = self.val(op, o[1])?;
        let e = if unsigned {
            let u = unsigned_of(&ty);
            format!("({ty})(({u}){a} {sym} ({u}){b})")
        } else {
            format!("{a} {sym} {b}")
        };
        self.define(op, &e)
    }

    pub(super) fn call1(&mut self, op: OpId, fname: &str) -> Result<(), Diagnostic> {
        let o = self.ctx.operands(op).to_vec();
        let mut args = Vec::new();
        let mut ty = String::new();
        for v in &o {
            let (n, t) = self.val(op, *v)?;
            ty = t;
            args.push(n);
        }
        let e = match ty.as_str() {
            "float" => format!("{fname}f({})", args.join(", ")),
            "double" => format!("{fname}({})", args.join(", ")),
            t if t.starts_with("rt_") => {
                return Err(self.err(op, "math on vectors is not supported by the HIP emitter"));
            }
            t => format!(
                "({t}){fname}f({})",
                args.iter()
                    .map(|a| format!("(float){a}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        self.define(op, &e)
    }

    pub(super) fn constant(
        &self,
        op: OpId,
        a: &Attribute,
        rt: &Type,
        ty: &str,
    ) -> Result<String, Diagnostic> {
        let scalar = |lit: &Attribute| -> Option<String> {
            Some(match lit.kind() {
                AttrKind::Bool(b) => b.to_string(),
                AttrKind::Integer { value, .. } if ty == "bool" => (*value != 0).to_string(),
                AttrKind::Integer { value, .. } if ty == "int64_t" => {
                    if *value == i64::MIN as i128 {
                        "INT64_MIN".into()
                    } else {
                        format!("(int64_t){value}")
                    }
                }
                AttrKind::Integer { value, .. } if ty.starts_with("int") => {
                    format!("({ty}){value}")
                }
                AttrKind::Float { value, .. } => float_c(value.get(), ty),
                _ => return None,
            })
        };
        if let AttrKind::DenseElements { literal, .. } = a.kind() {
            let elem = rt.element_type().cloned().unwrap_or(Type::f32());
            let ety = scalar_c(&elem).unwrap_or("float");
            let one = |l: &DenseLiteral| -> Option<String> {
                match l {
                    DenseLiteral::Float(f) => Some(float_c(f.get(), ety)),
                    DenseLiteral::Int(i) if elem.is_float() => Some(float_c(*i as f64, ety)),
                    DenseLiteral::Int(i) => Some(format!("({ety}){i}")),
                    DenseLiteral::Bool(b) => Some(b.to_string()),
                    _ => None,
                }
            };
            return match literal {
                DenseLiteral::List(xs) => {
                    let parts: Option<Vec<String>> = xs.iter().map(one).collect();
                    let parts = parts.ok_or_else(|| self.err(op, "unsupported dense constant"))?;
                    Ok(format!("({ty}){{{}}}", parts.join(", ")))
                }
                l => {
                    let s = one(l).ok_or_else(|| self.err(op, "unsupported dense constant"))?;
                    Ok(format!("({ty})({s})"))
                }
            };
        }
        scalar(a).ok_or_else(|| self.err(op, "unsupported constant"))
    }

    /// `arith.cmpf` as a C comparison: ordered predicates are false on NaN as C's are;
    /// unordered ones are the negation of the opposite ordered one.
    pub(super) fn cmpf(&mut self, op: OpId, p: CmpFPredicate) -> Result<(), Diagnostic> {
        let o = self.ctx.operands(op).to_vec();
        let (a, _) = self.val(op, o[0])?;
        let (b, _) = self.val(op, o[1])?;
        let e = match p {
            CmpFPredicate::AlwaysFalse => "false".to_string(),
            CmpFPredicate::AlwaysTrue => "true".to_string(),
            CmpFPredicate::Oeq => format!("{a} == {b}"),
            CmpFPredicate::Ogt => format!("{a} > {b}"),
            CmpFPredicate::Oge => format!("{a} >= {b}"),
            CmpFPredicate::Olt => format!("{a} < {b}"),
            CmpFPredicate::Ole => format!("{a} <= {b}"),
            CmpFPredicate::One => format!("({a} < {b} || {a} > {b})"),
            CmpFPredicate::Ord => format!("({a} == {a} && {b} == {b})"),
            CmpFPredicate::Ueq => format!("!({a} < {b} || {a} > {b})"),
            CmpFPredicate::Ugt => format!("!({a} <= {b})"),
            CmpFPredicate::Uge => format!("!({a} < {b})"),
            CmpFPredicate::Ult => format!("!({a} >= {b})"),
            CmpFPredicate::Ule => format!("!({a} > {b})"),
            CmpFPredicate::Une => format!("{a} != {b}"),
            CmpFPredicate::Uno => format!("({a} != {a} || {b} != {b})"),
        };
        self.define(op, &e)
    }

    /// `arith.cmpi` as a C comparison; unsigned predicates compare through the unsigned type.
    pub(super) fn cmpi(&mut self, op: OpId, p: CmpIPredicate) -> Result<(), Diagnostic> {
        let o = self.ctx.operands(op).to_vec();
        let (a, ty) = self.val(op, o[0])?;
        let (b, _) = self.val(op, o[1])?;
        let u = unsigned_of(&ty);
        let e = match p {
            CmpIPredicate::Eq => format!("{a} == {b}"),
            CmpIPredicate::Ne => format!("{a} != {b}"),
            CmpIPredicate::Slt => format!("{a} < {b}"),
            CmpIPredicate::Sle => format!("{a} <= {b}"),
            CmpIPredicate::Sgt => format!("{a} > {b}"),
            CmpIPredicate::Sge => format!("{a} >= {b}"),
            CmpIPredicate::Ult => format!("({u}){a} < ({u}){b}"),
            CmpIPredicate::Ule => format!("({u}){a} <= ({u}){b}"),
            CmpIPredicate::Ugt => format!("({u}){a} > ({u}){b}"),
            CmpIPredicate::Uge => format!("({u}){a} >= ({u}){b}"),
        };
        self.define(op, &e)
    }
}
