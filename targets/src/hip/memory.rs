//! gpu-level IR → HIP C++: Memory: loads, stores, allocations and views.

use super::*;

impl HipEmitter<'_> {
    /// `memref` and `vector` loads and stores as array subscripts.
    pub(super) fn access(&mut self, op: OpId, g: G) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let o = ctx.operands(op).to_vec();
        match g {
            G::Load => {
                let (m, info) = self.mem(op, o[0])?;
                let i = self.index(op, &info, &o[1..])?;
                self.define(op, &format!("{m}[{i}]"))?;
            }
            G::Store => {
                let (v, _) = self.val(op, o[0])?;
                let (m, info) = self.mem(op, o[1])?;
                let i = self.index(op, &info, &o[2..])?;
                self.line(&format!("{m}[{i}] = {v};"));
            }
            G::VectorLoad => {
                let (m, info) = self.mem(op, o[0])?;
                let i = self.index(op, &info, &o[1..])?;
                let rt = *ctx.value_type(ctx.result(op, 0));
                let vty = self.c_type(op, &rt)?;
                self.define(op, &format!("*reinterpret_cast<const {vty}*>(&{m}[{i}])"))?;
            }
            G::VectorStore => {
                let (v, vty) = self.val(op, o[0])?;
                let (m, info) = self.mem(op, o[1])?;
                let i = self.index(op, &info, &o[2..])?;
                self.line(&format!("*reinterpret_cast<{vty}*>(&{m}[{i}]) = {v};"));
            }
            _ => unreachable!("access is called with loads and stores only"),
        }
        Ok(())
    }

    /// Allocations, views of the dynamic shared memory, reinterpreting casts and `memref.dim`.
    pub(super) fn memory_op(&mut self, op: OpId, g: G) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let name = ctx.op_name(op).to_string();
        let o = ctx.operands(op).to_vec();
        match g {
            G::Alloca | G::Alloc => {
                let r = ctx.result(op, 0);
                let mi = memref_info(ctx.value_type(r)).map_err(|e| self.err(op, e))?;
                let ety = self.c_type(op, &mi.elem)?;
                let n = self.fresh();
                let shared = if mi.space == MemSpace::Workgroup {
                    "__shared__ __attribute__((aligned(16))) "
                } else if name == "memref.alloc" {
                    return Err(self.err(
                        op,
                        "memref.alloc of global memory inside a kernel is not supported",
                    ));
                } else {
                    ""
                };
                self.line(&format!(
                    "{shared}{ety} {n}[{}];",
                    mi.span_elements().max(1)
                ));
                self.names.insert(r, Name::Mem(n, mi));
            }
            G::Dealloc => {}
            G::View => {
                if !matches!(self.names.get(&o[0]), Some(Name::DynShmem)) {
                    return Err(self.err(
                        op,
                        "memref.view is supported on gpu.dynamic_shared_memory only",
                    ));
                }
                let (shift, _) = self.val(op, o[1])?;
                let r = ctx.result(op, 0);
                let mi = memref_info(ctx.value_type(r)).map_err(|e| self.err(op, e))?;
                let ety = self.c_type(op, &mi.elem)?;
                let n = self.fresh();
                self.line(&format!(
                    "{ety}* {n} = reinterpret_cast<{ety}*>(rt_dynamic_shmem + {shift});"
                ));
                self.names.insert(r, Name::Mem(n, mi));
            }
            // A collapse of identity-layout memrefs: the same pointer under a new shape.
            G::Cast | G::CollapseShape => {
                let (m, _) = self.mem(op, o[0])?;
                let r = ctx.result(op, 0);
                let mi = memref_info(ctx.value_type(r)).map_err(|e| self.err(op, e))?;
                self.names.insert(r, Name::Mem(m, mi));
            }
            G::Dim => {
                let (_, info) = self.mem(op, o[0])?;
                let (i, _) = self.val(op, o[1])?;
                let d = i
                    .trim_start_matches("(int64_t)")
                    .parse::<usize>()
                    .ok()
                    .and_then(|i| info.shape.get(i).copied())
                    .ok_or_else(|| self.err(op, "memref.dim needs a constant dimension"))?;
                self.names.insert(
                    ctx.result(op, 0),
                    Name::Scalar(format!("(int64_t){d}"), "int64_t".into()),
                );
            }
            _ => unreachable!("memory_op is called with memref ops only"),
        }
        Ok(())
    }

    pub(super) fn index(
        &self,
        op: OpId,
        info: &MemRefInfo,
        idx: &[Value],
    ) -> Result<String, Diagnostic> {
        if idx.len() != info.shape.len() {
            return Err(self.err(op, "index count does not match the memref rank"));
        }
        let mut terms = Vec::new();
        if info.offset != 0 {
            terms.push(info.offset.to_string());
        }
        for (&v, &s) in idx.iter().zip(&info.strides) {
            let (n, _) = self.val(op, v)?;
            match s {
                0 => {}
                1 => terms.push(n),
                s => terms.push(format!("{n} * {s}")),
            }
        }
        Ok(if terms.is_empty() {
            "0".into()
        } else {
            terms.join(" + ")
        })
    }
}
