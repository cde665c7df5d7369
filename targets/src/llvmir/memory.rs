//! gpu-level IR → LLVM IR: Memory: allocations, views, element pointers and aligned loads and stores.

use super::*;

impl FnEmitter<'_> {
    pub(super) fn alloca(&mut self, op: OpId, mi: &MemRefInfo) -> Result<String, Diagnostic> {
        let ety = self.llvm_type(op, &mi.elem)?;
        let n = self.fresh();
        let asp = if self.alloca_as != 0 {
            format!(", addrspace({})", self.alloca_as)
        } else {
            String::new()
        };
        let _ = writeln!(
            self.allocas,
            "  {n} = alloca [{} x {ety}], align 16{asp}",
            mi.span_elements().max(1)
        );
        Ok(n)
    }

    /// The linear element index of `indices` into `info` (a literal when constant).
    pub(super) fn linear_index(
        &mut self,
        op: OpId,
        info: &MemRefInfo,
        indices: &[Value],
    ) -> Result<String, Diagnostic> {
        if indices.len() != info.shape.len() {
            return Err(self.err(
                op,
                format!(
                    "{} indices for a rank-{} memref",
                    indices.len(),
                    info.shape.len()
                ),
            ));
        }
        let idx = self.idx;
        let mut konst: i64 = info.offset;
        let mut terms: Vec<String> = Vec::new();
        for (&v, &stride) in indices.iter().zip(&info.strides) {
            let (repr, ty) = self.scalar(op, v)?;
            let repr = if ty != idx {
                self.convert_int(&repr, &ty, idx, true)
            } else {
                repr
            };
            if let Ok(c) = repr.parse::<i64>() {
                konst += c * stride;
                continue;
            }
            if stride == 0 {
                continue;
            }
            terms.push(if stride == 1 {
                repr
            } else {
                self.assign(&format!("mul nsw {idx} {repr}, {stride}"))
            });
        }
        let mut acc: Option<String> = None;
        for t in terms {
            acc = Some(match acc {
                None => t,
                Some(a) => self.assign(&format!("add nsw {idx} {a}, {t}")),
            });
        }
        Ok(match acc {
            None => konst.to_string(),
            Some(a) if konst == 0 => a,
            Some(a) => self.assign(&format!("add nsw {idx} {a}, {konst}")),
        })
    }

    pub(super) fn element_ptr(
        &mut self,
        op: OpId,
        mem: Value,
        indices: &[Value],
    ) -> Result<(String, MemRefInfo, u32, String), Diagnostic> {
        let (ptr, info) = self.mem(op, mem)?;
        let lin = self.linear_index(op, &info, indices)?;
        let ety = self.llvm_type(op, &info.elem)?;
        let asp = self.space_as(info.space);
        let p = if lin == "0" {
            ptr
        } else {
            self.assign(&format!(
                "getelementptr inbounds {ety}, {} {ptr}, {} {lin}",
                addrspace(asp),
                self.idx
            ))
        };
        Ok((p, info, asp, ety))
    }

    pub(super) fn elem_align(&self, ety: &str) -> u32 {
        match ety {
            "i1" | "i8" => 1,
            "i16" | "half" | "bfloat" => 2,
            "i64" | "double" => 8,
            _ => 4,
        }
    }

    pub(super) fn vec_align(&self, vty: &str) -> u32 {
        let n: u32 = vty
            .trim_start_matches('<')
            .split(" x ")
            .next()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(1);
        (n * self.elem_align(elem_of(vty))).min(16)
    }

    /// `memref.load`/`store` and `vector.load`/`store`: an element pointer, then one access
    /// aligned to the element or the vector.
    pub(super) fn access(&mut self, op: OpId, g: G) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let operands = ctx.operands(op).to_vec();
        let stores = matches!(g, G::Store | G::VectorStore);
        let (mem, indices) = if stores {
            (operands[1], &operands[2..])
        } else {
            (operands[0], &operands[1..])
        };
        let (p, _info, asp, ety) = self.element_ptr(op, mem, indices)?;
        let space = addrspace(asp);
        match g {
            G::Load | G::VectorLoad => {
                let ty = if g == G::Load {
                    ety
                } else {
                    self.result_ty(op)?
                };
                let align = if g == G::Load {
                    self.elem_align(&ty)
                } else {
                    self.vec_align(&ty)
                };
                let r = self.assign(&format!("load {ty}, {space} {p}, align {align}"));
                self.set(ctx.result(op, 0), r, ty);
            }
            _ => {
                let (v, vty) = self.scalar(op, operands[0])?;
                let (ty, align) = if g == G::Store {
                    let a = self.elem_align(&ety);
                    (ety, a)
                } else {
                    let a = self.vec_align(&vty);
                    (vty, a)
                };
                self.line(&format!("store {ty} {v}, {space} {p}, align {align}"));
            }
        }
        Ok(())
    }

    /// `memref.alloca`/`alloc`: workgroup buffers become `addrspace(3)` globals, private
    /// ones entry-block allocas; a global `alloca` is a private array too.
    pub(super) fn allocation(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        if !ctx.operands(op).is_empty() {
            return Err(self.err(op, "dynamic allocation sizes are not supported"));
        }
        let r = ctx.result(op, 0);
        let mi = memref_info(ctx.value_type(r)).map_err(|e| self.err(op, e))?;
        let ptr = match mi.space {
            MemSpace::Workgroup => {
                let g = format!("@__rtile_wg_{}_a{}", self.info.name, self.m.globals.len());
                let ety = self.llvm_type(op, &mi.elem)?;
                self.m.globals.push(format!(
                    "{g} = internal addrspace(3) global [{} x {ety}] undef, align {}",
                    mi.span_elements().max(1),
                    self.shared_align
                ));
                g
            }
            MemSpace::Private => self.alloca(op, &mi)?,
            MemSpace::Global if ctx.op_name(op) == "memref.alloca" => {
                let mut pm = mi.clone();
                pm.space = MemSpace::Private;
                let p = self.alloca(op, &pm)?;
                self.vals.insert(r, Val::Mem { ptr: p, info: pm });
                return Ok(());
            }
            MemSpace::Global => {
                return Err(self.err(
                    op,
                    "memref.alloc of global memory inside a kernel is not supported",
                ));
            }
        };
        self.vals.insert(r, Val::Mem { ptr, info: mi });
        Ok(())
    }

    /// `memref.view` of the dynamic shared memory or of a 1-d `i8` buffer (a workgroup
    /// byte array, as sm_90a kernels carve their TMA tiles): a byte offset from its base.
    pub(super) fn view(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let operands = ctx.operands(op);
        let base = match self.vals.get(&operands[0]) {
            Some(Val::DynShmem) => format!("ptr addrspace(3) {DYN_SHMEM}"),
            Some(Val::Mem { ptr, info })
                if info.shape.len() == 1 && info.strides == [1] && info.elem == Type::int(8) =>
            {
                let asp = addrspace(self.space_as(info.space));
                if info.offset == 0 {
                    format!("{asp} {ptr}")
                } else {
                    let p = self.assign(&format!(
                        "getelementptr inbounds i8, {asp} {ptr}, {} {}",
                        self.idx, info.offset
                    ));
                    format!("{asp} {p}")
                }
            }
            _ => {
                return Err(self.err(
                    op,
                    "memref.view is supported on gpu.dynamic_shared_memory and 1-d i8 buffers only",
                ));
            }
        };
        let (shift, sty) = self.scalar(op, operands[1])?;
        let r = ctx.result(op, 0);
        let mi = memref_info(ctx.value_type(r)).map_err(|e| self.err(op, e))?;
        let p = self.assign(&format!("getelementptr inbounds i8, {base}, {sty} {shift}"));
        self.vals.insert(r, Val::Mem { ptr: p, info: mi });
        Ok(())
    }

    /// `memref.cast`/`collapse_shape` of identity-layout memrefs: the same pointer under a
    /// new shape.
    pub(super) fn reinterpret(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let (p, _) = self.mem(op, ctx.operands(op)[0])?;
        let r = ctx.result(op, 0);
        let mi = memref_info(ctx.value_type(r)).map_err(|e| self.err(op, e))?;
        self.vals.insert(r, Val::Mem { ptr: p, info: mi });
        Ok(())
    }

    /// `memref.dim` with a constant index: the static extent.
    pub(super) fn dim(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let operands = ctx.operands(op);
        let (_, info) = self.mem(op, operands[0])?;
        let (i, _) = self.scalar(op, operands[1])?;
        let d = i
            .parse::<usize>()
            .ok()
            .and_then(|i| info.shape.get(i).copied())
            .ok_or_else(|| self.err(op, "memref.dim needs a constant in-range dimension"))?;
        self.set(ctx.result(op, 0), d.to_string(), self.idx.into());
        Ok(())
    }
}
