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

    /// In a branch directly inside an `rtile.no_hoist` loop (a persistent kernel's switch
    /// over rOperators), on NVPTX: the global buffers and the integer SSA values from
    /// outside that the branch uses get fresh names from an opaque copy (`asm sideeffect
    /// "mov"`) at its start, and thread/block id reads in it are copied the same way, so
    /// no pass sees them as invariant in the loop. Otherwise LoopStrengthReduce's SCEV
    /// expansion (which `llvm.licm.disable` does not stop) hoists each rOperator's
    /// `buffer + offset` and thread-index arithmetic to the loop's preheader, where all of
    /// it stays live through every entry (the full-size LSTM on sm_80: 254 registers and
    /// spills with the hoisting, 151 and none without). Returns the replaced bindings, to
    /// restore after the branch (`None`: not such a branch).
    fn launder_in_switch(&mut self, op: OpId, block: BlockId) -> Option<Vec<(Value, Val)>> {
        let ctx = self.ctx;
        let in_switch = ctx.parent_op(op).is_some_and(|p| {
            ctx.op_name(p) == "scf.for" && ctx.attr(p, "rtile.no_hoist").is_some()
        });
        if !in_switch || self.opts.flavor != Flavor::Nvptx {
            return None;
        }
        let mut used: Vec<Value> = Vec::new();
        for o in ctx.block_ops(block) {
            for n in ctx.collect_ops(o) {
                for &v in ctx.operands(n) {
                    if !used.contains(&v) && self.vals.contains_key(&v) {
                        used.push(v);
                    }
                }
            }
        }
        let mut saved = Vec::new();
        for v in used {
            let fresh = match self.vals.get(&v).cloned() {
                Some(Val::Mem { ptr, info }) if info.space == MemSpace::Global => {
                    let ty = addrspace(1);
                    let p = self.assign(&format!(
                        "call {ty} asm sideeffect \"mov.b64 $0, $1;\", \"=l,l\"({ty} {ptr})"
                    ));
                    Val::Mem { ptr: p, info }
                }
                Some(Val::Scalar { repr, ty }) if repr.starts_with('%') => {
                    let c = match ty.as_str() {
                        "i64" => "l",
                        "i32" => "r",
                        _ => continue,
                    };
                    let r = self.assign(&format!(
                        "call {ty} asm sideeffect \"mov.b{} $0, $1;\", \"={c},{c}\"({ty} {repr})",
                        if c == "l" { 64 } else { 32 }
                    ));
                    Val::Scalar { repr: r, ty }
                }
                _ => continue,
            };
            if let Some(old) = self.vals.insert(v, fresh) {
                saved.push((v, old));
            }
        }
        Some(saved)
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
        let saved = self.launder_in_switch(op, then_b);
        let opaque = saved.is_some();
        self.opaque += u32::from(opaque);
        let ty_vals = self.emit_block(then_b);
        self.opaque -= u32::from(opaque);
        for (v, val) in saved.unwrap_or_default() {
            self.vals.insert(v, val);
        }
        let ty_vals = ty_vals?;
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
