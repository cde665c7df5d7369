//! HIP for the ops of a persistent kernel's rTask barriers (Rammer, OSDI'20 §4.1.3,
//! §4.2.1): `memref.atomic_rmw` as `atomicAdd`/`atomicOr` (the spin-wait's poll is
//! `atomicOr(&step[u], 0)`), and `scf.while` as `while (true) { ...; if (!c) break; ... }`
//! (`llvm.fence` is `__threadfence()` in `hip.rs`). A child module of `hip`, so it extends
//! the emitter.

use rtile::diagnostics::Diagnostic;
use rtile::ir::OpId;
use rtile_gpu_vocab::GpuOp as G;

use super::HipEmitter;

impl HipEmitter<'_> {
    /// `memref.atomic_rmw addi|ori`: the old value.
    pub(super) fn atomic_rmw(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let o = self.ctx.operands(op).to_vec();
        let f = match self.ctx.inherent_attr(op, "kind").and_then(|a| a.as_int()) {
            Some(rtile_gpu_vocab::ATOMIC_ADDI) => "atomicAdd",
            Some(rtile_gpu_vocab::ATOMIC_ORI) => "atomicOr",
            _ => {
                return Err(self.err(
                    op,
                    "memref.atomic_rmw: only kinds addi and ori are translated",
                ));
            }
        };
        let (v, _) = self.val(op, o[0])?;
        let (m, info) = self.mem(op, o[1])?;
        let i = self.index(op, &info, &o[2..])?;
        self.define(op, &format!("{f}(&{m}[{i}], {v})"))
    }

    /// `scf.while` without loop-carried values: `while (true) { before; if (!c) break;
    /// after }` (a persistent kernel's spin-wait).
    pub(super) fn scf_while(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let w = crate::gpuir::while_loop(self.ctx, op).map_err(|e| self.err(op, e))?;
        self.line("while (true) {");
        self.indent += 1;
        for o in w.before {
            let g = G::decode(self.ctx, o)?;
            self.op(o, g)?;
        }
        let (c, _) = self.val(op, w.condition)?;
        self.line(&format!("if (!{c}) break;"));
        self.block(w.after)?;
        self.indent -= 1;
        self.line("}");
        Ok(())
    }
}
