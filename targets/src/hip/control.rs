//! gpu-level IR → HIP C++: Structured control flow.

use super::*;

impl HipEmitter<'_> {
    pub(super) fn region_block(&self, op: OpId, i: usize) -> Option<BlockId> {
        crate::gpuir::region_block(self.ctx, op, i)
    }

    pub(super) fn scf_for(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let o = ctx.operands(op).to_vec();
        let (lb, ity) = self.val(op, o[0])?;
        let (ub, _) = self.val(op, o[1])?;
        let (step, _) = self.val(op, o[2])?;
        let body = self
            .region_block(op, 0)
            .ok_or_else(|| self.err(op, "scf.for without a body"))?;
        let bargs = ctx.block_args(body).to_vec();
        if bargs.len() + 2 != o.len() || ctx.results(op).len() + 3 != o.len() {
            return Err(self.err(op, "scf.for body arguments do not match its iter_args"));
        }
        let mut iters = Vec::new();
        for (k, &init) in o[3..].iter().enumerate() {
            let (iv, ty) = self.val(op, init)?;
            let n = self.fresh();
            self.line(&format!("{ty} {n} = {iv};"));
            self.names
                .insert(bargs[k + 1], Name::Scalar(n.clone(), ty.clone()));
            self.names
                .insert(ctx.result(op, k), Name::Scalar(n.clone(), ty.clone()));
            iters.push((n, ty));
        }
        let iv = self.fresh();
        self.names
            .insert(bargs[0], Name::Scalar(iv.clone(), ity.clone()));
        match ctx.attr(op, "rtile.unroll").map(|x| x.kind()) {
            Some(AttrKind::Unit) => self.line("#pragma unroll"),
            Some(a) => {
                if let Some(n) = a.as_int().filter(|n| *n > 0) {
                    self.line(&format!("#pragma unroll {n}"));
                }
            }
            None => {}
        }
        self.line(&format!(
            "for ({ity} {iv} = {lb}; {iv} < {ub}; {iv} += {step}) {{"
        ));
        self.indent += 1;
        let ys = self.block(body)?;
        if ys.len() != iters.len() {
            return Err(self.err(op, "scf.yield does not match the scf.for iter_args"));
        }
        // Through temporaries: a yield may permute the iteration variables.
        let mut temps = Vec::new();
        for (y, (n, ty)) in ys.iter().zip(&iters) {
            let (yv, _) = self.val(op, *y)?;
            if yv == *n {
                continue;
            }
            if iters.len() == 1 {
                self.line(&format!("{n} = {yv};"));
            } else {
                let t = self.fresh();
                self.line(&format!("const {ty} {t} = {yv};"));
                temps.push((n.clone(), t));
            }
        }
        for (n, t) in temps {
            self.line(&format!("{n} = {t};"));
        }
        self.indent -= 1;
        self.line("}");
        Ok(())
    }

    pub(super) fn scf_if(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let (c, _) = self.val(op, ctx.operands(op)[0])?;
        let then_b = self
            .region_block(op, 0)
            .ok_or_else(|| self.err(op, "scf.if without a then region"))?;
        let else_b = self.region_block(op, 1);
        let mut outs = Vec::new();
        for &r in ctx.results(op) {
            let ty = self.c_type(op, &ctx.value_type(r).clone())?;
            let n = self.fresh();
            self.line(&format!("{ty} {n};"));
            outs.push((r, n, ty));
        }
        self.line(&format!("if ({c}) {{"));
        self.indent += 1;
        let ys = self.block(then_b)?;
        for (y, (_, n, _)) in ys.iter().zip(&outs) {
            let (yv, _) = self.val(op, *y)?;
            self.line(&format!("{n} = {yv};"));
        }
        self.indent -= 1;
        if let Some(eb) = else_b
            && (!ctx.block_is_empty(eb) && (ctx.block_ops(eb).count() > 1 || !outs.is_empty()))
        {
            self.line("} else {");
            self.indent += 1;
            let ys = self.block(eb)?;
            for (y, (_, n, _)) in ys.iter().zip(&outs) {
                let (yv, _) = self.val(op, *y)?;
                self.line(&format!("{n} = {yv};"));
            }
            self.indent -= 1;
        }
        self.line("}");
        for (r, n, ty) in outs {
            self.names.insert(r, Name::Scalar(n, ty));
        }
        Ok(())
    }
}
