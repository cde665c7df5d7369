//! LLVM IR for the ops of a persistent kernel's rTask barriers (Rammer, OSDI'20 §4.1.3):
//! `memref.atomic_rmw` (`atomicrmw add|or ... syncscope(S) monotonic`), `llvm.fence`
//! (`fence syncscope(S) <ordering>`) and `scf.while` (a header/body loop), where S, the
//! device scope, is `device` on NVPTX and `agent` on AMDGPU. On NVPTX
//! these become `atom.global.add`/`atom.global.or` (the spin-wait's poll is an atomic
//! `or 0`, never cached or hoisted) and `fence.acq_rel.gpu`; on AMDGPU
//! `global_atomic_add`/`global_atomic_or` and `buffer_wbl2`/`buffer_inv` fences.
//! A child module of `llvmir`, so it extends the function emitter.

use rtile::diagnostics::Diagnostic;
use rtile::ir::OpId;
use rtile_gpu_vocab::{
    ATOMIC_ADDI, ATOMIC_ORI, FENCE_ACQ_REL, FENCE_ACQUIRE, FENCE_RELEASE, GpuOp as G,
};

use super::{Flavor, FnEmitter, addrspace};

impl FnEmitter<'_> {
    /// The LLVM sync scope of MLIR's `agent` (the whole device): `device` on NVPTX,
    /// `agent` on AMDGPU.
    fn device_scope(&self) -> &'static str {
        match self.opts.flavor {
            Flavor::Nvptx => "device",
            Flavor::Amdgpu => "agent",
        }
    }

    /// `memref.atomic_rmw addi|ori`: relaxed (monotonic) at device scope; ordering comes
    /// from the fences around it.
    pub(super) fn atomic_rmw(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let operands = ctx.operands(op).to_vec();
        let inst = match ctx.inherent_attr(op, "kind").and_then(|a| a.as_int()) {
            Some(ATOMIC_ADDI) => "add",
            Some(ATOMIC_ORI) => "or",
            _ => {
                return Err(self.err(
                    op,
                    "memref.atomic_rmw: only kinds addi and ori are translated",
                ));
            }
        };
        let (v, _) = self.scalar(op, operands[0])?;
        let (p, _info, asp, ety) = self.element_ptr(op, operands[1], &operands[2..])?;
        let scope = self.device_scope();
        let r = self.assign(&format!(
            "atomicrmw {inst} {} {p}, {ety} {v} syncscope(\"{scope}\") monotonic, align 4",
            addrspace(asp)
        ));
        self.set(ctx.result(op, 0), r, ety);
        Ok(())
    }

    /// `llvm.fence` with its ordering and sync scope (`agent` = device).
    pub(super) fn fence(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let ordering = match ctx.inherent_attr(op, "ordering").and_then(|a| a.as_int()) {
            Some(FENCE_ACQUIRE) => "acquire",
            Some(FENCE_RELEASE) => "release",
            Some(FENCE_ACQ_REL) => "acq_rel",
            Some(7) => "seq_cst",
            _ => return Err(self.err(op, "llvm.fence: unknown ordering")),
        };
        let scope = match ctx.inherent_attr(op, "syncscope").and_then(|a| a.as_str()) {
            Some("agent") => format!("syncscope(\"{}\") ", self.device_scope()),
            Some(s) if !s.is_empty() => format!("syncscope(\"{s}\") "),
            _ => String::new(),
        };
        self.line(&format!("fence {scope}{ordering}"));
        Ok(())
    }

    /// `scf.while` without loop-carried values: `header` runs the before region and
    /// branches on the condition to `body` (the after region, back to `header`) or `exit`.
    pub(super) fn scf_while(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let w = crate::gpuir::while_loop(self.ctx, op).map_err(|e| self.err(op, e))?;
        let n = self.label("while");
        let (header, body, exit) = (
            format!("{n}.header"),
            format!("{n}.body"),
            format!("{n}.exit"),
        );
        self.line(&format!("br label %{header}"));
        self.start_block(&header);
        for o in w.before {
            let g = G::decode(self.ctx, o)?;
            self.emit_op(o, g)?;
        }
        let (c, _) = self.scalar(op, w.condition)?;
        self.line(&format!("br i1 {c}, label %{body}, label %{exit}"));
        self.start_block(&body);
        self.emit_block(w.after)?;
        self.line(&format!("br label %{header}"));
        self.start_block(&exit);
        Ok(())
    }
}
