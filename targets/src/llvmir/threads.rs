//! gpu-level IR → LLVM IR: Thread-level ops: special registers, lane id, barriers, warp shuffles.

use super::*;

impl FnEmitter<'_> {
    pub(super) fn special_reg(&mut self, op: OpId, kind: &str) -> Result<String, Diagnostic> {
        let dim = dimension(self.ctx, op)
            .ok_or_else(|| self.err(op, "expected a `dimension = #gpu<dim x|y|z>` property"))?;
        let xyz = ["x", "y", "z"][dim];
        let info = self.info;
        let launch: &Launch = &info.launch;
        // Known sizes fold to constants (upstream does the same with known_block_size).
        match kind {
            "block_dim" => {
                if let Some(b) = launch.block {
                    return Ok(b[dim].to_string());
                }
            }
            "grid_dim" => {
                if let Some(g) = launch.grid {
                    return Ok(g[dim].to_string());
                }
            }
            _ => {}
        }
        let r32 = match self.opts.flavor {
            Flavor::Nvptx => {
                let reg = match kind {
                    "thread_id" => "tid",
                    "block_id" => "ctaid",
                    "block_dim" => "ntid",
                    _ => "nctaid",
                };
                let name = format!("llvm.nvvm.read.ptx.sreg.{reg}.{xyz}");
                let r = self.call("i32", &name, &[], "");
                if self.opaque > 0 {
                    // Not CSE'd with (and hoisted as) the kernel-wide read: see
                    // `launder_in_switch`.
                    self.assign(&format!(
                        "call i32 asm sideeffect \"mov.u32 $0, $1;\", \"=r,r\"(i32 {r})"
                    ))
                } else {
                    r
                }
            }
            Flavor::Amdgpu => match kind {
                "thread_id" => self.call("i32", &format!("llvm.amdgcn.workitem.id.{xyz}"), &[], ""),
                "block_id" => self.call("i32", &format!("llvm.amdgcn.workgroup.id.{xyz}"), &[], ""),
                _ => {
                    // hsa_kernel_dispatch_packet_t: workgroup_size_{x,y,z} are u16 at 4, 6, 8;
                    // grid_size_{x,y,z} are u32 (in work-items) at 12, 16, 20.
                    let dp = self.call("ptr addrspace(4)", "llvm.amdgcn.dispatch.ptr", &[], "");
                    let wg_off = 4 + 2 * dim;
                    let p = self.assign(&format!(
                        "getelementptr inbounds i8, ptr addrspace(4) {dp}, i64 {wg_off}"
                    ));
                    let w16 = self.assign(&format!("load i16, ptr addrspace(4) {p}, align 2"));
                    let w = self.assign(&format!("zext i16 {w16} to i32"));
                    if kind == "block_dim" {
                        w
                    } else {
                        let g_off = 12 + 4 * dim;
                        let p = self.assign(&format!(
                            "getelementptr inbounds i8, ptr addrspace(4) {dp}, i64 {g_off}"
                        ));
                        let g = self.assign(&format!("load i32, ptr addrspace(4) {p}, align 4"));
                        self.assign(&format!("udiv i32 {g}, {w}"))
                    }
                }
            },
        };
        Ok(self.widen_i32(&r32))
    }

    pub(super) fn widen_i32(&mut self, v: &str) -> String {
        if self.idx == "i32" {
            v.to_string()
        } else {
            self.assign(&format!("zext i32 {v} to i64"))
        }
    }

    pub(super) fn barrier(&mut self) {
        match self.opts.flavor {
            // A persistent kernel's surplus threads reach the block barrier through their
            // own `gpu.barrier` ops (OSDI'20 §4.2.1): `bar.sync` without `.aligned`, which
            // counts arrivals wherever they come from.
            Flavor::Nvptx if self.ctx.attr(self.info.op, "rtile.persistent").is_some() => {
                self.call(
                    "void",
                    "llvm.nvvm.barrier.cta.sync.all",
                    &[("i32", "0")],
                    "",
                );
            }
            Flavor::Nvptx => {
                self.call(
                    "void",
                    "llvm.nvvm.barrier.cta.sync.aligned.all",
                    &[("i32", "0")],
                    "",
                );
            }
            Flavor::Amdgpu => {
                self.line("fence syncscope(\"workgroup\") release");
                self.call("void", "llvm.amdgcn.s.barrier", &[], "");
                self.line("fence syncscope(\"workgroup\") acquire");
            }
        }
    }

    pub(super) fn lane_id(&mut self) -> String {
        match self.opts.flavor {
            Flavor::Nvptx => self.call("i32", "llvm.nvvm.read.ptx.sreg.laneid", &[], ""),
            Flavor::Amdgpu => {
                let lo = self.call(
                    "i32",
                    "llvm.amdgcn.mbcnt.lo",
                    &[("i32", "-1"), ("i32", "0")],
                    "",
                );
                self.call(
                    "i32",
                    "llvm.amdgcn.mbcnt.hi",
                    &[("i32", "-1"), ("i32", &lo)],
                    "",
                )
            }
        }
    }

    pub(super) fn shuffle(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ops = self.ctx.operands(op).to_vec();
        if ops.len() != 3 {
            return Err(self.err(op, "gpu.shuffle expects (value, offset, width)"));
        }
        let mode = self
            .ctx
            .inherent_attr(op, "mode")
            .map(attr_words)
            .and_then(|w| {
                w.into_iter()
                    .find(|w| matches!(w.as_str(), "xor" | "down" | "up" | "idx"))
            })
            .ok_or_else(|| self.err(op, "gpu.shuffle without a mode (xor, down, up, idx)"))?;
        let (v, vty) = self.scalar(op, ops[0])?;
        let (off, _) = self.scalar(op, ops[1])?;
        let (width, _) = self.scalar(op, ops[2])?;
        let bits = match vty.as_str() {
            "float" | "i32" => vty.clone(),
            _ => return Err(self.err(op, "gpu.shuffle supports 32-bit values (f32, i32)")),
        };
        let as_i32 = if bits == "float" {
            self.assign(&format!("bitcast float {v} to i32"))
        } else {
            v.clone()
        };
        let (res_i32, valid) = match self.opts.flavor {
            Flavor::Nvptx => {
                let kind = match mode.as_str() {
                    "xor" => "bfly",
                    m => m,
                };
                // c = ((32 - width) << 8) | clamp, clamp = 31 except for `up` (0).
                let sub = self.assign(&format!("sub i32 32, {width}"));
                let seg = self.assign(&format!("shl i32 {sub}, 8"));
                let c = if mode == "up" {
                    seg
                } else {
                    self.assign(&format!("or i32 {seg}, 31"))
                };
                let name = format!("llvm.nvvm.shfl.sync.{kind}.i32p");
                let r = self.call(
                    "{ i32, i1 }",
                    &name,
                    &[("i32", "-1"), ("i32", &as_i32), ("i32", &off), ("i32", &c)],
                    "",
                );
                let x = self.assign(&format!("extractvalue {{ i32, i1 }} {r}, 0"));
                let p = self.assign(&format!("extractvalue {{ i32, i1 }} {r}, 1"));
                (x, p)
            }
            Flavor::Amdgpu => {
                let lane = self.lane_id();
                let wm1 = self.assign(&format!("sub i32 {width}, 1"));
                let notm = self.assign(&format!("xor i32 {wm1}, -1"));
                let base = self.assign(&format!("and i32 {lane}, {notm}"));
                let target = match mode.as_str() {
                    "xor" => self.assign(&format!("xor i32 {lane}, {off}")),
                    "down" => self.assign(&format!("add i32 {lane}, {off}")),
                    "up" => self.assign(&format!("sub i32 {lane}, {off}")),
                    _ => self.assign(&format!("add i32 {base}, {off}")),
                };
                let end = self.assign(&format!("add i32 {base}, {width}"));
                let ge = self.assign(&format!("icmp sge i32 {target}, {base}"));
                let lt = self.assign(&format!("icmp slt i32 {target}, {end}"));
                let ok = self.assign(&format!("and i1 {ge}, {lt}"));
                let src = self.assign(&format!("select i1 {ok}, i32 {target}, i32 {lane}"));
                let addr = self.assign(&format!("shl i32 {src}, 2"));
                let r = self.call(
                    "i32",
                    "llvm.amdgcn.ds.bpermute",
                    &[("i32", &addr), ("i32", &as_i32)],
                    "",
                );
                (r, ok)
            }
        };
        let res = if bits == "float" {
            self.assign(&format!("bitcast i32 {res_i32} to float"))
        } else {
            res_i32
        };
        self.set(self.ctx.result(op, 0), res, vty);
        if self.ctx.results(op).len() > 1 {
            self.set(self.ctx.result(op, 1), valid, "i1".into());
        }
        Ok(())
    }
}
