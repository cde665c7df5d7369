//! `vector.extract`, `vector.insert` and `vector.broadcast` over vectors of any rank: a
//! vector's elements sit row-major in consecutive registers, so a static position selects a
//! run of registers (an element, or a whole sub-vector such as one 32-bit register pair of an
//! MMA fragment `vector<4x2xf16>`).

use rtile::diagnostics::Diagnostic;
use rtile::ir::attributes::DenseLiteral;
use rtile::ir::{AttrKind, OpId, TypeKind};

use super::{Compiler, G, Inst, err, lanes};

/// The numbers of a dense literal, row-major.
fn flat_numbers(l: &DenseLiteral, out: &mut Vec<Option<f64>>) {
    match l {
        DenseLiteral::List(xs) => xs.iter().for_each(|x| flat_numbers(x, out)),
        DenseLiteral::Int(i) => out.push(Some(*i as f64)),
        DenseLiteral::Float(f) => out.push(Some(f.get())),
        DenseLiteral::Bool(b) => out.push(Some(f64::from(u8::from(*b)))),
        _ => out.push(None),
    }
}

impl Compiler<'_> {
    /// `arith.constant dense<...> : vector<...>` (a splat or every element), one register
    /// per element (e.g. an MMA accumulator's zero `vector<2x2xf32>`).
    pub(super) fn dense_constant(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let [r] = ctx.results(op)[..] else {
            return Err(err(ctx, op, "expects one result"));
        };
        let (n, num) = lanes(ctx.value_type(r))
            .ok_or_else(|| err(ctx, op, "simulator: unsupported constant type"))?;
        let Some(AttrKind::DenseElements { literal, .. }) =
            ctx.inherent_attr(op, "value").map(|a| a.kind())
        else {
            return Err(err(ctx, op, "expects a dense constant"));
        };
        let mut vals = Vec::new();
        flat_numbers(literal, &mut vals);
        let vals: Vec<f64> = match (vals.len(), literal) {
            (1, l) if !matches!(l, DenseLiteral::List(_)) => vec![vals[0]; n as usize]
                .into_iter()
                .collect::<Option<_>>()
                .unwrap_or_default(),
            _ => vals.into_iter().collect::<Option<_>>().unwrap_or_default(),
        };
        if vals.len() != n as usize {
            return Err(err(
                ctx,
                op,
                "simulator: dense constants of numbers, one per element or a splat",
            ));
        }
        let dst = self.def(r, op)?;
        for (l, v) in vals.into_iter().enumerate() {
            self.emit(Inst::Const {
                dst: dst + l as u32,
                v: num.round(v),
            });
        }
        Ok(())
    }

    /// Compiles `vector.extract` / `vector.insert` (static positions) and `vector.broadcast`
    /// (of a scalar).
    pub(super) fn extract_insert(&mut self, op: OpId, g: G) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let operands = ctx.operands(op).to_vec();
        let [r] = ctx.results(op)[..] else {
            return Err(err(ctx, op, "expects one result"));
        };
        let (n, _) = lanes(ctx.value_type(r)).ok_or_else(|| err(ctx, op, "bad result"))?;
        let src = self.reg(operands[0], op)?;
        if g == G::Broadcast {
            let (m, _) =
                lanes(ctx.value_type(operands[0])).ok_or_else(|| err(ctx, op, "bad source"))?;
            if m != 1 {
                return Err(err(ctx, op, "simulator: broadcast of a scalar only"));
            }
            let dst = self.def(r, op)?;
            for l in 0..n {
                self.emit(Inst::Move { dst: dst + l, src });
            }
            return Ok(());
        }
        // The vector is the source of an extract, the destination of an insert.
        let vec = operands[usize::from(g == G::Insert)];
        let TypeKind::Vector { shape, .. } = ctx.value_type(vec).kind() else {
            return Err(err(ctx, op, "expects a vector operand"));
        };
        let pos = ctx
            .inherent_attr(op, "static_position")
            .and_then(|a| a.as_dense_ints())
            .filter(|p| p.len() <= shape.len() && !p.is_empty())
            .ok_or_else(|| {
                err(
                    ctx,
                    op,
                    "simulator: only static positions (no dynamic ones) are supported",
                )
            })?;
        let mut start = 0i64;
        let mut run = shape.iter().product::<i64>();
        for (&p, &d) in pos.iter().zip(shape) {
            if p < 0 || p >= d {
                return Err(err(ctx, op, "position out of range"));
            }
            run /= d;
            start += p * run;
        }
        let (start, run) = (start as u32, run as u32);
        let dst = self.def(r, op)?;
        if g == G::Extract {
            if run != n {
                return Err(err(ctx, op, "result type does not match the position"));
            }
            for l in 0..n {
                self.emit(Inst::Move {
                    dst: dst + l,
                    src: src + start + l,
                });
            }
        } else {
            let v = self.reg(operands[1], op)?;
            let (m, _) =
                lanes(ctx.value_type(operands[0])).ok_or_else(|| err(ctx, op, "bad value"))?;
            if m != run {
                return Err(err(ctx, op, "inserted value does not match the position"));
            }
            for l in 0..n {
                let from = if (start..start + run).contains(&l) {
                    src + l - start
                } else {
                    v + l
                };
                self.emit(Inst::Move {
                    dst: dst + l,
                    src: from,
                });
            }
        }
        Ok(())
    }
}
