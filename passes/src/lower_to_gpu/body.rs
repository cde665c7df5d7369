//! The te body's arithmetic: a `te.compute` expression at one point becomes `arith` /
//! `math` ops, and a combiner folds a value into an accumulator.

use rtile::ir::{AttrKind, Attribute, Type, Value};
use rtile_dialects::te::generic::{
    binary_op_name, cmpf_predicate, cmpi_predicate, float_unary_op_name,
};
use rtile_dialects::te::model::{BinOp, Combiner, ElemType, Expr, TeCompute, UnOp};

use super::context::Lowering;
use super::types::{fastmath, ty};

/// Whether evaluating `e` on a pad value may be undefined: integer division (`arith.divsi`
/// by zero is undefined behaviour in LLVM), so such bodies are not computed past the extent.
pub(crate) fn may_trap(e: &Expr, c: &TeCompute) -> bool {
    let tys = c.access_types();
    match e {
        Expr::Binary(op, a, b) => {
            (*op == BinOp::Div && e.ty(&tys).is_some_and(|t| !t.is_float()))
                || may_trap(a, c)
                || may_trap(b, c)
        }
        Expr::Unary(_, a) | Expr::Cast(_, a) => may_trap(a, c),
        Expr::Cmp(_, a, b) => may_trap(a, c) || may_trap(b, c),
        Expr::Select(x, a, b) => may_trap(x, c) || may_trap(a, c) || may_trap(b, c),
        Expr::Access(_) | Expr::Const(..) => false,
    }
}

impl Lowering<'_> {
    /// The constant `v` of element type `e`.
    pub fn constant(&mut self, v: f64, e: ElemType) -> Value {
        if e.is_float() {
            self.em.float(v, e)
        } else if e == ElemType::I1 {
            self.em
                .constant(Attribute::new(AttrKind::Bool(v as i64 != 0)))
        } else {
            self.em.constant(Attribute::int(v as i64, ty(e)))
        }
    }

    /// The ops of expression `e` given the accesses' values `vals`, and its element type.
    pub fn body(&mut self, e: &Expr, vals: &[Value]) -> Result<(Value, ElemType), String> {
        let tys = self.compute.access_types();
        self.body_with(e, vals, &tys)
    }

    /// [`Self::body`] for an expression whose accesses have the types `tys` (a fused
    /// kernel's epilogue stage reads other tensors than the stage it follows).
    pub fn body_with(
        &mut self,
        e: &Expr,
        vals: &[Value],
        tys: &[ElemType],
    ) -> Result<(Value, ElemType), String> {
        let t = e.ty(tys).ok_or("ill-typed body")?;
        let k = ty(t);
        Ok(match e {
            Expr::Access(i) => (vals[*i], t),
            Expr::Const(v, et) => (self.constant(*v, *et), t),
            Expr::Binary(op, a, b) => {
                let (x, _) = self.body_with(a, vals, tys)?;
                let (y, _) = self.body_with(b, vals, tys)?;
                let f = t.is_float();
                let name = binary_op_name(*op, f);
                (self.arith(name, &[x, y], k, f), t)
            }
            Expr::Unary(op, a) => {
                let (x, _) = self.body_with(a, vals, tys)?;
                let f = t.is_float();
                let v = match (op, f) {
                    (UnOp::Neg, true) => self.arith("arith.negf", &[x], k, true),
                    (UnOp::Neg, false) => {
                        let z = self.constant(0.0, t);
                        self.em.op("arith.subi", &[z, x], &[], k)
                    }
                    (UnOp::Abs, false) => self.em.op("math.absi", &[x], &[], k),
                    (u, _) => self.arith(float_unary_op_name(*u), &[x], k, true),
                };
                (v, t)
            }
            Expr::Cmp(op, a, b) => {
                let (x, at) = self.body_with(a, vals, tys)?;
                let (y, _) = self.body_with(b, vals, tys)?;
                let (name, p) = if at.is_float() {
                    ("arith.cmpf", cmpf_predicate(*op))
                } else {
                    ("arith.cmpi", cmpi_predicate(*op))
                };
                let pred = ("predicate", Attribute::i64(p));
                let props = if at.is_float() {
                    vec![("fastmath", fastmath("none")), pred]
                } else {
                    vec![pred]
                };
                (self.em.op(name, &[x, y], &props, Type::i1()), t)
            }
            Expr::Select(cnd, a, b) => {
                let (cv, _) = self.body_with(cnd, vals, tys)?;
                let (x, _) = self.body_with(a, vals, tys)?;
                let (y, _) = self.body_with(b, vals, tys)?;
                (self.em.op("arith.select", &[cv, x, y], &[], k), t)
            }
            Expr::Cast(to, a) => {
                let (x, from) = self.body_with(a, vals, tys)?;
                if from == *to {
                    return Ok((x, t));
                }
                let name = match (from.is_float(), to.is_float()) {
                    (true, true) if to.width() > from.width() => "arith.extf",
                    (true, true) => "arith.truncf",
                    (false, true) => "arith.sitofp",
                    (true, false) => "arith.fptosi",
                    (false, false) if to.width() > from.width() => "arith.extsi",
                    (false, false) => "arith.trunci",
                };
                (self.em.op(name, &[x], &[], k), t)
            }
        })
    }

    /// A float op carries `fastmath = #arith.fastmath<contract>`: a multiply feeding an add
    /// may become one fused multiply-add (one rounding instead of two), as nvcc's default
    /// `-fmad=true`, Triton and HIP-Clang allow; without it every `+= a·b` of a reduction
    /// costs two instructions. No other relaxation (reassociation, NaN/Inf assumptions).
    fn arith(&mut self, name: &str, args: &[Value], res: Type, float: bool) -> Value {
        if float && (name.starts_with("arith.") || name.starts_with("math.")) {
            self.em
                .op(name, args, &[("fastmath", fastmath("contract"))], res)
        } else {
            self.em.op(name, args, &[], res)
        }
    }

    /// A finished accumulator of `c` in its result type: `arith.truncf` from a wider
    /// `acc(..)` type (te's single rounding at the end), else `v` itself.
    pub fn acc_to_result(&mut self, c: &TeCompute, v: Value) -> Value {
        match c.accumulator {
            Some(a) if a != c.result.elem => {
                self.em.op("arith.truncf", &[v], &[], ty(c.result.elem))
            }
            _ => v,
        }
    }

    /// `acc ⊕ v` for the combiner `comb` over element type `e`.
    pub fn combine(&mut self, comb: Combiner, acc: Value, v: Value, e: ElemType) -> Value {
        let f = e.is_float();
        let name = match (comb, f) {
            (Combiner::Sum, true) => "arith.addf",
            (Combiner::Prod, true) => "arith.mulf",
            (Combiner::Max, true) => "arith.maximumf",
            (Combiner::Min, true) => "arith.minimumf",
            (Combiner::Sum, false) => "arith.addi",
            (Combiner::Prod, false) => "arith.muli",
            (Combiner::Max, false) => "arith.maxsi",
            (Combiner::Min, false) => "arith.minsi",
        };
        self.arith(name, &[acc, v], ty(e), f)
    }
}
