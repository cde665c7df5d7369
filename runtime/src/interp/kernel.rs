//! A te body compiled to instructions over lanes: each register holds one value per
//! lane (a row of result points), and each instruction is one loop over the lanes, so
//! the cost of dispatching an operation is paid once per row instead of once per point.
//! Rounding follows [`super::fix`] exactly: the operation in f64, then the rounding the
//! mode and element type ask for, chosen once per instruction instead of per value.

use rtile_dialects::te::model::{BinOp, CmpOp, ElemType, Expr, UnOp};

use super::{Accumulate, erf, fix, fmax, fmin, int_bin};
use crate::round::round_to;

/// How a result is rounded, decided at compile time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rnd {
    /// Kept as computed (f64, or any float in [`Accumulate::F64`] mode).
    Keep,
    /// To f32 (`x as f32 as f64`, what `round_to` does for f32).
    F32,
    /// [`round_to`] the type (f16, bf16, integers).
    To(ElemType),
}

impl Rnd {
    /// The rounding [`super::fix`] applies to a value of type `t` in `mode`.
    pub fn of(mode: Accumulate, t: ElemType) -> Rnd {
        if (t.is_float() && mode == Accumulate::F64) || t == ElemType::F64 {
            Rnd::Keep
        } else if t == ElemType::F32 {
            Rnd::F32
        } else {
            Rnd::To(t)
        }
    }

    /// Rounds every lane.
    pub fn apply(self, xs: &mut [f64]) {
        match self {
            Rnd::Keep => {}
            Rnd::F32 => xs.iter_mut().for_each(|x| *x = *x as f32 as f64),
            Rnd::To(t) => xs.iter_mut().for_each(|x| *x = round_to(*x, t)),
        }
    }
}

/// One instruction: `dst` is always a register after its operands.
#[derive(Clone, Copy, Debug)]
enum Inst {
    FBin {
        op: BinOp,
        a: usize,
        b: usize,
        dst: usize,
        rnd: Rnd,
    },
    IBin {
        op: BinOp,
        a: usize,
        b: usize,
        dst: usize,
        ty: ElemType,
    },
    FUn {
        op: UnOp,
        a: usize,
        dst: usize,
        rnd: Rnd,
    },
    IUn {
        op: UnOp,
        a: usize,
        dst: usize,
        ty: ElemType,
    },
    Cmp {
        op: CmpOp,
        a: usize,
        b: usize,
        dst: usize,
    },
    Select {
        c: usize,
        a: usize,
        b: usize,
        dst: usize,
    },
    /// A conversion: the value rounded to the target (`Keep` from `i1`, which is 0/1).
    Cast { a: usize, dst: usize, rnd: Rnd },
    /// A uniform register copied to every lane, for an operand of a lane-varying
    /// instruction other than a float binary one (which reads uniform operands directly).
    Splat { a: usize, dst: usize },
}

/// A compiled body. Registers `0..num_accesses` hold the values read by the accesses;
/// constants and instruction results follow. A uniform register (a constant, an access
/// that reads one element for the whole row, or a value computed from uniform ones)
/// holds its value in lane 0 only and is computed once per row point.
#[derive(Clone, Debug)]
pub struct Kernel {
    insts: Vec<Inst>,
    /// Registers holding a constant (already rounded as the mode says), filled once.
    consts: Vec<(usize, f64)>,
    /// Number of registers.
    pub num_regs: usize,
    /// The register holding the body's value.
    pub result: usize,
    /// Per register: the same in every lane (kept in lane 0).
    uniform: Vec<bool>,
}

impl Kernel {
    /// Compiles `body` whose accesses have types `tys` and are uniform across a row
    /// where `uniform` says so.
    pub fn compile(
        body: &Expr,
        tys: &[ElemType],
        uniform: &[bool],
        mode: Accumulate,
    ) -> Result<Kernel, String> {
        let mut k = Kernel {
            insts: Vec::new(),
            consts: Vec::new(),
            num_regs: tys.len(),
            result: 0,
            uniform: uniform.to_vec(),
        };
        k.uniform.resize(tys.len(), false);
        k.result = k.expr(body, tys, mode)?;
        Ok(k)
    }

    /// True when the body's value is the same in every lane (held in lane 0).
    pub fn result_uniform(&self) -> bool {
        self.uniform[self.result]
    }

    fn fresh(&mut self, uniform: bool) -> usize {
        self.num_regs += 1;
        self.uniform.push(uniform);
        self.num_regs - 1
    }

    /// Operands for a lane-varying instruction: uniform ones splatted to all lanes.
    fn lanes_of(&mut self, regs: &mut [usize]) -> bool {
        let uniform = regs.iter().all(|&r| self.uniform[r]);
        if !uniform {
            for r in regs.iter_mut() {
                if self.uniform[*r] {
                    let dst = self.fresh(false);
                    self.insts.push(Inst::Splat { a: *r, dst });
                    *r = dst;
                }
            }
        }
        uniform
    }

    fn expr(&mut self, e: &Expr, tys: &[ElemType], mode: Accumulate) -> Result<usize, String> {
        let ty = e.ty(tys).ok_or("ill-typed body")?;
        let inst = match e {
            Expr::Access(i) => return Ok(*i),
            Expr::Const(v, t) => {
                let r = self.fresh(true);
                self.consts.push((r, fix(mode, *v, *t)));
                return Ok(r);
            }
            Expr::Binary(op, x, y) => {
                let (mut a, mut b) = (self.expr(x, tys, mode)?, self.expr(y, tys, mode)?);
                if ty.is_float() {
                    // Float binary operations read uniform operands directly.
                    let dst = self.fresh(self.uniform[a] && self.uniform[b]);
                    let rnd = Rnd::of(mode, ty);
                    Inst::FBin {
                        op: *op,
                        a,
                        b,
                        dst,
                        rnd,
                    }
                } else {
                    let mut ops = [a, b];
                    let u = self.lanes_of(&mut ops);
                    [a, b] = ops;
                    Inst::IBin {
                        op: *op,
                        a,
                        b,
                        dst: self.fresh(u),
                        ty,
                    }
                }
            }
            Expr::Unary(op, x) => {
                let a = self.expr(x, tys, mode)?;
                let dst = self.fresh(self.uniform[a]);
                if ty.is_float() {
                    let rnd = Rnd::of(mode, ty);
                    Inst::FUn {
                        op: *op,
                        a,
                        dst,
                        rnd,
                    }
                } else {
                    Inst::IUn {
                        op: *op,
                        a,
                        dst,
                        ty,
                    }
                }
            }
            Expr::Cmp(op, x, y) => {
                let mut ops = [self.expr(x, tys, mode)?, self.expr(y, tys, mode)?];
                let u = self.lanes_of(&mut ops);
                Inst::Cmp {
                    op: *op,
                    a: ops[0],
                    b: ops[1],
                    dst: self.fresh(u),
                }
            }
            Expr::Select(c, x, y) => {
                let c = self.expr(c, tys, mode)?;
                let mut ops = [c, self.expr(x, tys, mode)?, self.expr(y, tys, mode)?];
                let u = self.lanes_of(&mut ops);
                Inst::Select {
                    c: ops[0],
                    a: ops[1],
                    b: ops[2],
                    dst: self.fresh(u),
                }
            }
            Expr::Cast(_, x) => {
                let from = x.ty(tys).ok_or("ill-typed body")?;
                let a = self.expr(x, tys, mode)?;
                // i1 is unsigned 0/1 (`arith.uitofp`, `arith.extui`): kept as is.
                let rnd = if from == ElemType::I1 {
                    Rnd::Keep
                } else {
                    Rnd::of(mode, ty)
                };
                Inst::Cast {
                    a,
                    dst: self.fresh(self.uniform[a]),
                    rnd,
                }
            }
        };
        self.insts.push(inst);
        Ok(self.num_regs - 1)
    }

    /// Fills the constant registers of a register file of `stride` lanes per register.
    pub fn init_consts(&self, regs: &mut [f64], stride: usize) {
        for &(r, v) in &self.consts {
            regs[r * stride..(r + 1) * stride].fill(v);
        }
    }

    /// Runs the instructions on the first `lanes` lanes of `regs` (register `r` is
    /// `regs[r * stride..][..lanes]`, lane 0 only when uniform); the access registers
    /// must be filled.
    pub fn run(&self, regs: &mut [f64], lanes: usize, stride: usize) {
        for inst in &self.insts {
            let dst = match *inst {
                Inst::FBin { dst, .. }
                | Inst::IBin { dst, .. }
                | Inst::FUn { dst, .. }
                | Inst::IUn { dst, .. }
                | Inst::Cmp { dst, .. }
                | Inst::Select { dst, .. }
                | Inst::Cast { dst, .. }
                | Inst::Splat { dst, .. } => dst,
            };
            let n = if self.uniform[dst] { 1 } else { lanes };
            let (lo, hi) = regs.split_at_mut(dst * stride);
            let out = &mut hi[..n];
            let reg = |r: usize| &lo[r * stride..r * stride + n];
            match *inst {
                Inst::FBin { op, a, b, rnd, .. } => {
                    let (ua, ub) = (self.uniform[a] && n > 1, self.uniform[b] && n > 1);
                    let (sa, sb) = (lo[a * stride], lo[b * stride]);
                    match (ua, ub) {
                        (true, _) => fbin_rnd(op, rnd, sa, reg(b), out),
                        (_, true) => fbin_rnd(op, rnd, reg(a), sb, out),
                        _ => fbin_rnd(op, rnd, reg(a), reg(b), out),
                    }
                }
                Inst::IBin { op, a, b, ty, .. } => {
                    for ((o, &x), &y) in out.iter_mut().zip(reg(a)).zip(reg(b)) {
                        *o = round_to(int_bin(op, x, y), ty);
                    }
                }
                Inst::FUn { op, a, rnd, .. } => {
                    fun(op, reg(a), out);
                    rnd.apply(out);
                }
                Inst::IUn { op, a, ty, .. } => {
                    for (o, &x) in out.iter_mut().zip(reg(a)) {
                        let v = match op {
                            UnOp::Abs => (x as i64).wrapping_abs() as f64,
                            _ => (x as i64).wrapping_neg() as f64,
                        };
                        *o = round_to(v, ty);
                    }
                }
                Inst::Cmp { op, a, b, .. } => {
                    for ((o, &x), &y) in out.iter_mut().zip(reg(a)).zip(reg(b)) {
                        *o = f64::from(u8::from(op.eval(x, y)));
                    }
                }
                Inst::Select { c, a, b, .. } => {
                    let (c, a, b) = (reg(c), reg(a), reg(b));
                    for (l, o) in out.iter_mut().enumerate() {
                        *o = if c[l] != 0.0 { a[l] } else { b[l] };
                    }
                }
                Inst::Cast { a, rnd, .. } => {
                    out.copy_from_slice(reg(a));
                    rnd.apply(out);
                }
                Inst::Splat { a, .. } => out.fill(lo[a * stride]),
            }
        }
    }
}

/// A float operand: one value per lane, or one for all lanes.
pub trait Operand: Copy {
    /// The value in lane `l`.
    fn at(self, l: usize) -> f64;
}

impl Operand for &[f64] {
    #[inline(always)]
    fn at(self, l: usize) -> f64 {
        self[l]
    }
}

impl Operand for f64 {
    #[inline(always)]
    fn at(self, _: usize) -> f64 {
        self
    }
}

/// [`fbin`] with the rounding chosen once.
#[inline(always)]
fn fbin_rnd(op: BinOp, rnd: Rnd, a: impl Operand, b: impl Operand, out: &mut [f64]) {
    match rnd {
        Rnd::Keep => fbin(op, a, b, out, |x| x),
        Rnd::F32 => fbin(op, a, b, out, |x| x as f32 as f64),
        Rnd::To(t) => fbin(op, a, b, out, |x| round_to(x, t)),
    }
}

/// Float binary operation over lanes, each result rounded by `r` (inlined).
#[inline(always)]
fn fbin(op: BinOp, a: impl Operand, b: impl Operand, out: &mut [f64], r: impl Fn(f64) -> f64) {
    let lanes = out.iter_mut().enumerate();
    match op {
        BinOp::Add => lanes.for_each(|(l, o)| *o = r(a.at(l) + b.at(l))),
        BinOp::Sub => lanes.for_each(|(l, o)| *o = r(a.at(l) - b.at(l))),
        BinOp::Mul => lanes.for_each(|(l, o)| *o = r(a.at(l) * b.at(l))),
        BinOp::Div => lanes.for_each(|(l, o)| *o = r(a.at(l) / b.at(l))),
        BinOp::Max => lanes.for_each(|(l, o)| *o = r(fmax(a.at(l), b.at(l)))),
        BinOp::Min => lanes.for_each(|(l, o)| *o = r(fmin(a.at(l), b.at(l)))),
        BinOp::Pow => lanes.for_each(|(l, o)| *o = r(a.at(l).powf(b.at(l)))),
    }
}

/// Float unary function over lanes, unrounded.
fn fun(op: UnOp, a: &[f64], out: &mut [f64]) {
    let f: fn(f64) -> f64 = match op {
        UnOp::Neg => |x| -x,
        UnOp::Exp => f64::exp,
        UnOp::Log => f64::ln,
        UnOp::Sqrt => f64::sqrt,
        UnOp::Rsqrt => |x| 1.0 / x.sqrt(),
        UnOp::Tanh => f64::tanh,
        UnOp::Erf => erf,
        UnOp::Abs => f64::abs,
    };
    for (o, &x) in out.iter_mut().zip(a) {
        *o = f(x);
    }
}
