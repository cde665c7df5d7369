//! gpu-level IR → HIP C++: Thread-level ops.

use super::*;

impl HipEmitter<'_> {
    /// `gpu.shuffle` as `__shfl*`, and its validity flag as gpu.shuffle defines it.
    pub(super) fn shuffle(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let o = ctx.operands(op).to_vec();
        let mode = ctx
            .inherent_attr(op, "mode")
            .map(attr_words)
            .and_then(|w| {
                w.into_iter()
                    .find(|w| matches!(w.as_str(), "xor" | "down" | "up" | "idx"))
            })
            .ok_or_else(|| self.err(op, "gpu.shuffle without a mode"))?;
        let (v, ty) = self.val(op, o[0])?;
        let (off, _) = self.val(op, o[1])?;
        let (w, _) = self.val(op, o[2])?;
        let f = match mode.as_str() {
            "xor" => "__shfl_xor",
            "down" => "__shfl_down",
            "up" => "__shfl_up",
            _ => "__shfl",
        };
        let n = self.fresh();
        self.line(&format!("const {ty} {n} = {f}({v}, {off}, {w});"));
        self.names
            .insert(ctx.result(op, 0), Name::Scalar(n.clone(), ty));
        if ctx.results(op).len() > 1 {
            // Validity of the source lane, as gpu.shuffle defines it.
            let lane = "((int)__lane_id())".to_string();
            let base = format!("({lane} & ~({w} - 1))");
            let target = match mode.as_str() {
                "xor" => format!("({lane} ^ {off})"),
                "down" => format!("({lane} + {off})"),
                "up" => format!("({lane} - {off})"),
                _ => format!("({base} + {off})"),
            };
            let p = self.fresh();
            self.line(&format!(
                "const bool {p} = {target} >= {base} && {target} < {base} + {w};"
            ));
            self.names
                .insert(ctx.result(op, 1), Name::Scalar(p, "bool".into()));
        }
        Ok(())
    }

    /// `threadIdx`/`blockIdx`/`blockDim`/`gridDim` along the op's dimension; the launch's
    /// known sizes fold to constants.
    pub(super) fn special(&mut self, op: OpId, kind: &str) -> Result<String, Diagnostic> {
        let dim =
            dimension(self.ctx, op).ok_or_else(|| self.err(op, "expected a dimension property"))?;
        let xyz = ["x", "y", "z"][dim];
        let l = &self.info.launch;
        Ok(match kind {
            "thread_id" => format!("(int64_t)threadIdx.{xyz}"),
            "block_id" => format!("(int64_t)blockIdx.{xyz}"),
            "block_dim" => match l.block {
                Some(b) => format!("(int64_t){}", b[dim]),
                None => format!("(int64_t)blockDim.{xyz}"),
            },
            _ => match l.grid {
                Some(g) => format!("(int64_t){}", g[dim]),
                None => format!("(int64_t)gridDim.{xyz}"),
            },
        })
    }
}
