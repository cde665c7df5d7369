//! gpu-level IR → LLVM IR: Structured control flow: `scf.for` and `scf.if` as a CFG with phis.

use super::*;

impl FnEmitter<'_> {
    pub(super) fn region_block(&self, op: OpId, i: usize) -> Option<BlockId> {
        crate::gpuir::region_block(self.ctx, op, i)
    }

    pub(super) fn scf_for(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let ops = ctx.operands(op).to_vec();
        if ops.len() < 3 {
            return Err(self.err(op, "scf.for expects lower bound, upper bound, step"));
        }
        let (lb, ity) = self.scalar(op, ops[0])?;
        let (ub, _) = self.scalar(op, ops[1])?;
        let (step, _) = self.scalar(op, ops[2])?;
        let mut inits = Vec::new();
        for &v in &ops[3..] {
            inits.push(self.scalar(op, v)?);
        }
        let body = self
            .region_block(op, 0)
            .ok_or_else(|| self.err(op, "scf.for without a body"))?;
        let bargs = ctx.block_args(body).to_vec();
        if bargs.len() != 1 + inits.len() || ctx.results(op).len() != inits.len() {
            return Err(self.err(op, "scf.for body arguments do not match its iter_args"));
        }
        let unsigned = ctx.inherent_attr(op, "unsignedCmp").is_some();
        let n = self.label("for");
        let (header, bodyl, latch, exit) = (
            format!("{n}.header"),
            format!("{n}.body"),
            format!("{n}.latch"),
            format!("{n}.exit"),
        );
        let pre = self.cur_label.clone();
        self.line(&format!("br label %{header}"));
        self.start_block(&header);
        let iv = format!("%{n}.iv");
        let ivnext = format!("%{n}.iv.next");
        self.line(&format!(
            "{iv} = phi {ity} [ {lb}, %{pre} ], [ {ivnext}, %{latch} ]"
        ));
        self.set(bargs[0], iv.clone(), ity.clone());
        let mut placeholders = Vec::new();
        for (k, (init, ty)) in inits.iter().enumerate() {
            let name = format!("%{n}.iter{k}");
            let ph = format!("@@PH{n}.{k}@@");
            self.line(&format!(
                "{name} = phi {ty} [ {init}, %{pre} ], [ {ph}, %{latch} ]"
            ));
            self.set(bargs[k + 1], name.clone(), ty.clone());
            self.set(ctx.result(op, k), name, ty.clone());
            placeholders.push(ph);
        }
        let pred = if unsigned { "ult" } else { "slt" };
        let c = self.assign(&format!("icmp {pred} {ity} {iv}, {ub}"));
        self.line(&format!("br i1 {c}, label %{bodyl}, label %{exit}"));
        self.start_block(&bodyl);
        let yields = self.emit_block(body)?;
        if yields.len() != placeholders.len() {
            return Err(self.err(op, "scf.yield does not match the scf.for iter_args"));
        }
        for (ph, y) in placeholders.into_iter().zip(yields) {
            let (r, _) = self.scalar(op, y)?;
            self.patches.push((ph, r));
        }
        self.line(&format!("br label %{latch}"));
        self.start_block(&latch);
        self.line(&format!("{ivnext} = add nsw {ity} {iv}, {step}"));
        // `rtile.unroll` (unit: fully, N: by N) becomes loop metadata on the back edge, so
        // register-tile loops unroll and their private arrays become registers.
        let unroll = match ctx.attr(op, "rtile.unroll").map(|x| x.kind()) {
            Some(AttrKind::Unit) => Some("!{!\"llvm.loop.unroll.full\"}".to_string()),
            Some(a) => a
                .as_int()
                .filter(|n| *n > 0)
                .map(|n| format!("!{{!\"llvm.loop.unroll.count\", i32 {n}}}")),
            None => None,
        };
        // `rtile.no_hoist` (a persistent kernel's loop over its schedule entries, whose
        // body switches between rOperators) keeps LICM from hoisting every rOperator's
        // invariants into the preamble, where they would all stay live (and spill).
        let no_hoist = ctx
            .attr(op, "rtile.no_hoist")
            .map(|_| "!{!\"llvm.licm.disable\"}".to_string());
        let loop_md: Vec<String> = unroll.into_iter().chain(no_hoist).collect();
        if loop_md.is_empty() {
            self.line(&format!("br label %{header}"));
        } else {
            let mut refs = String::new();
            for md in loop_md {
                refs.push_str(&format!(", !{}", self.m.metadata.len()));
                self.m.metadata.push(md);
            }
            let node = self.m.metadata.len();
            self.m.metadata.push(format!("distinct !{{!SELF{refs}}}"));
            self.line(&format!("br label %{header}, !llvm.loop !{node}"));
        }
        self.start_block(&exit);
        Ok(())
    }

    pub(super) fn scf_if(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let (c, _) = self.scalar(op, ctx.operands(op)[0])?;
        let then_b = self
            .region_block(op, 0)
            .ok_or_else(|| self.err(op, "scf.if without a then region"))?;
        let else_b = self.region_block(op, 1);
        let n = self.label("if");
        let (tl, el, ml) = (format!("{n}.then"), format!("{n}.else"), format!("{n}.end"));
        let first_target = if else_b.is_some() { &el } else { &ml };
        self.line(&format!("br i1 {c}, label %{tl}, label %{first_target}"));
        let pre = self.cur_label.clone();
        self.start_block(&tl);
        let ty_vals = self.emit_block(then_b)?;
        let then_vals: Vec<(String, String)> = ty_vals
            .iter()
            .map(|v| self.scalar(op, *v))
            .collect::<Result<_, _>>()?;
        let then_end = self.cur_label.clone();
        self.line(&format!("br label %{ml}"));
        let (else_vals, else_end) = if let Some(eb) = else_b {
            self.start_block(&el);
            let vs = self.emit_block(eb)?;
            let vals: Vec<(String, String)> = vs
                .iter()
                .map(|v| self.scalar(op, *v))
                .collect::<Result<_, _>>()?;
            let end = self.cur_label.clone();
            self.line(&format!("br label %{ml}"));
            (vals, end)
        } else {
            (Vec::new(), pre)
        };
        self.start_block(&ml);
        let results = ctx.results(op).to_vec();
        if results.len() != then_vals.len()
            || (results.len() != else_vals.len() && !results.is_empty())
        {
            return Err(self.err(op, "scf.if results do not match its scf.yield operands"));
        }
        for (k, r) in results.into_iter().enumerate() {
            let ty = then_vals[k].1.clone();
            let name = self.assign(&format!(
                "phi {ty} [ {}, %{then_end} ], [ {}, %{else_end} ]",
                then_vals[k].0, else_vals[k].0
            ));
            self.set(r, name, ty);
        }
        Ok(())
    }
}
