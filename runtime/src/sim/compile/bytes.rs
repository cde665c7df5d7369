//! The block's byte-addressed shared storage: i8 workgroup attributions (each 1024-byte
//! aligned, first) and the launch's dynamic shared memory (`gpu.dynamic_shared_memory`,
//! after them), and the `memref.view`s that slice them into typed memrefs
//! ([`Space::DynShared`]: every view of the same bytes aliases them).

use rtile::diagnostics::Diagnostic;
use rtile::ir::types::Type;
use rtile::ir::{OpId, TypeKind, Value};

use super::{Compiler, Inst, Space, err, is_workgroup};

/// Whether `t` is a 1-d i8 memref (a workgroup byte buffer that `memref.view`s slice).
pub(super) fn is_byte_buffer(t: &Type) -> bool {
    matches!(t.kind(), TypeKind::MemRef { shape, elem, layout: None, .. }
        if shape.len() == 1 && shape[0] >= 0 && matches!(**elem, TypeKind::Integer { width: 8, .. }))
}

impl Compiler<'_> {
    /// An i8 workgroup attribution: bytes of the block's byte-addressed storage (1024-byte
    /// aligned, before dynamic shared memory), loaded and stored as i8 and sliced by
    /// `memref.view` like dynamic shared memory.
    pub(super) fn byte_attribution(&mut self, a: Value, func: OpId) -> Result<(), Diagnostic> {
        let base = self.k.static_bytes.next_multiple_of(1024);
        let id = self.memref(a, Space::DynShared, 0, func)?;
        let len = self.k.mems[id as usize].len() as u64;
        self.k.static_bytes = base + len;
        let reg = self.fresh(1);
        self.emit(Inst::Const {
            dst: reg,
            v: base as f64,
        });
        self.k.mems[id as usize].view = Some((reg, 1));
        self.dyn_bases.insert(a, (base, Some(len)));
        Ok(())
    }

    /// `gpu.dynamic_shared_memory`: the launch's bytes, after the i8 attributions.
    pub(super) fn dynamic_shared_memory(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let [r] = ctx.results(op)[..] else {
            return Err(err(ctx, op, "expects one result"));
        };
        let t = ctx.value_type(r);
        let ok = matches!(t.kind(), TypeKind::MemRef { shape, elem, layout: None, .. }
            if shape.len() == 1 && matches!(**elem, TypeKind::Integer { width: 8, .. }))
            && is_workgroup(t);
        if !ok {
            return Err(err(
                ctx,
                op,
                "result must be memref<?xi8, #gpu.address_space<workgroup>>",
            ));
        }
        let start = self.k.static_bytes.next_multiple_of(1024);
        self.dyn_bases.insert(r, (start, None));
        Ok(())
    }

    /// `memref.view %bytes[%off][]` of a byte buffer: a typed memref at that byte offset,
    /// checked against the buffer when it executes.
    pub(super) fn view(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let operands = ctx.operands(op).to_vec();
        let region = operands
            .first()
            .and_then(|v| self.dyn_bases.get(v))
            .copied();
        let Some((base, region_len)) = region.filter(|_| operands.len() == 2) else {
            return Err(err(
                ctx,
                op,
                "simulator: memref.view is supported on gpu.dynamic_shared_memory or an i8 workgroup attribution, with a static result shape only",
            ));
        };
        let off = self.reg(operands[1], op)?;
        let id = self.memref(ctx.result(op, 0), Space::DynShared, 0, op)?;
        let (len, elem) = {
            let m = &self.k.mems[id as usize];
            (m.len() as u64, m.elem)
        };
        let eb = elem.bytes();
        let dst = self.fresh(1);
        self.k.mems[id as usize].view = Some((dst, eb));
        let at = self.at(op);
        self.emit(Inst::View {
            dst,
            off,
            bytes: len * u64::from(eb),
            align: eb,
            base,
            len: region_len,
            at,
        });
        Ok(())
    }
}
