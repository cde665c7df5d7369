//! gpu-level IR → LLVM IR: Vector element access and broadcasts.

use super::*;

impl FnEmitter<'_> {
    pub(super) fn position(&self, op: OpId, dynamic: &[Value]) -> Result<String, Diagnostic> {
        if let Some(p) = self
            .ctx
            .inherent_attr(op, "static_position")
            .and_then(|a| a.as_dense_ints())
        {
            match p {
                [k] if *k >= 0 => return Ok(k.to_string()),
                [_] => {
                    let v = *dynamic
                        .first()
                        .ok_or_else(|| self.err(op, "missing dynamic position"))?;
                    return Ok(self.scalar(op, v)?.0);
                }
                _ => return Err(self.err(op, "only rank-1 vector positions are supported")),
            }
        }
        let v = *dynamic
            .first()
            .ok_or_else(|| self.err(op, "missing vector position"))?;
        Ok(self.scalar(op, v)?.0)
    }

    pub(super) fn pos_ty(&self, pos: &str) -> &'static str {
        if pos.parse::<i64>().is_ok() {
            "i32"
        } else {
            self.idx
        }
    }

    /// `vector.extract`/`extractelement` and `insert`/`insertelement` of one element.
    pub(super) fn element(&mut self, op: OpId, g: G) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let operands = ctx.operands(op).to_vec();
        if matches!(g, G::Extract | G::ExtractElement) {
            let (v, vty) = self.scalar(op, operands[0])?;
            let pos = self.position(op, &operands[1..])?;
            let ety = self.result_ty(op)?;
            let r = self.assign(&format!(
                "extractelement {vty} {v}, {} {pos}",
                self.pos_ty(&pos)
            ));
            self.set(ctx.result(op, 0), r, ety);
        } else {
            let (s, sty) = self.scalar(op, operands[0])?;
            let (v, vty) = self.scalar(op, operands[1])?;
            let pos = self.position(op, &operands[2..])?;
            let r = self.assign(&format!(
                "insertelement {vty} {v}, {sty} {s}, {} {pos}",
                self.pos_ty(&pos)
            ));
            self.set(ctx.result(op, 0), r, vty);
        }
        Ok(())
    }

    /// `vector.broadcast`/`splat` of a scalar: insert into lane 0, then a zero shuffle.
    pub(super) fn broadcast(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let (s, sty) = self.scalar(op, ctx.operands(op)[0])?;
        let vty = self.result_ty(op)?;
        if sty == vty {
            self.set(ctx.result(op, 0), s, vty);
            return Ok(());
        }
        let n = vty
            .trim_start_matches('<')
            .split(" x ")
            .next()
            .unwrap_or("1")
            .to_string();
        let i = self.assign(&format!("insertelement {vty} poison, {sty} {s}, i32 0"));
        let r = self.assign(&format!(
            "shufflevector {vty} {i}, {vty} poison, <{n} x i32> zeroinitializer"
        ));
        self.set(ctx.result(op, 0), r, vty);
        Ok(())
    }
}
