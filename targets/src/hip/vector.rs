//! gpu-level IR → HIP C++: Vector ops.

use super::*;

impl HipEmitter<'_> {
    /// Vector element access, broadcasts and `vector.fma` with clang vector extensions.
    pub(super) fn vector_op(&mut self, op: OpId, g: G) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let o = ctx.operands(op).to_vec();
        match g {
            G::Extract | G::ExtractElement => {
                let (v, _) = self.val(op, o[0])?;
                let pos = self.position(op, &o[1..])?;
                self.define(op, &format!("{v}[{pos}]"))?;
            }
            G::Insert | G::InsertElement => {
                let (s, _) = self.val(op, o[0])?;
                let (v, vty) = self.val(op, o[1])?;
                let pos = self.position(op, &o[2..])?;
                let n = self.fresh();
                self.line(&format!("{vty} {n} = {v};"));
                self.line(&format!("{n}[{pos}] = {s};"));
                self.names.insert(ctx.result(op, 0), Name::Scalar(n, vty));
            }
            G::Broadcast | G::Splat => {
                let (s, _) = self.val(op, o[0])?;
                let rt = *ctx.value_type(ctx.result(op, 0));
                let vty = self.c_type(op, &rt)?;
                self.define(op, &format!("({vty})({s})"))?;
            }
            G::VectorFma => {
                let (a, _) = self.val(op, o[0])?;
                let (b, _) = self.val(op, o[1])?;
                let (c, _) = self.val(op, o[2])?;
                self.define(op, &format!("{a} * {b} + {c}"))?;
            }
            _ => unreachable!("vector_op is called with vector ops only"),
        }
        Ok(())
    }

    pub(super) fn position(&self, op: OpId, dynamic: &[Value]) -> Result<String, Diagnostic> {
        if let Some(p) = self
            .ctx
            .inherent_attr(op, "static_position")
            .and_then(|a| a.as_dense_ints())
            && let [k] = p
            && *k >= 0
        {
            return Ok(k.to_string());
        }
        let v = *dynamic
            .first()
            .ok_or_else(|| self.err(op, "missing vector position"))?;
        Ok(self.val(op, v)?.0)
    }
}
