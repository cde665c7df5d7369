//! Compiles the warp-collective ops (`nvgpu.mma.sync`, `nvgpu.ldmatrix`, `gpu.shuffle`) and
//! the asynchronous copies (`nvgpu.device_async_*`) into the simulator's instructions; their
//! semantics are in `exec/warp.rs` and `exec/async_copy.rs`.

use rtile::diagnostics::Diagnostic;
use rtile::ir::OpId;
use rtile_gpu_vocab::amdgpu::Mfma;
use rtile_gpu_vocab::attrs::attr_words;
use rtile_gpu_vocab::nvgpu::{AsyncCopy, LdMatrix, MmaSync, async_wait_groups};

use super::{Compiler, Inst, Num, Space, err};

/// A warp-collective instruction.
#[derive(Clone, Debug)]
pub enum WarpInst {
    /// `nvgpu.mma.sync`: `d = a·b + c` over the warp's fragments (registers `a`, `b`, `c`,
    /// `dst`, each a row-major `vector<regs x 2>`).
    Mma {
        mma: MmaSync,
        a: u32,
        b: u32,
        c: u32,
        dst: u32,
    },
    /// `nvgpu.ldmatrix`: each lane's indices (`idx` registers into `mem`) address one 8-element
    /// row; the rows are distributed to the lanes' `dst` (a `vector<tiles x 2>`).
    LdMatrix {
        ld: LdMatrix,
        mem: u32,
        idx: Box<[u32]>,
        dst: u32,
    },
    /// `amdgpu.mfma`: `d = a·b + c` over a 64-lane wavefront's fragments (`vector<4>`
    /// sources, `vector<m·n/64>` accumulators; `exec/mfma.rs`).
    Mfma {
        mfma: Mfma,
        a: u32,
        b: u32,
        c: u32,
        dst: u32,
    },
    /// `gpu.shuffle`: PTX `shfl.sync` (`mode`: 0 xor/bfly, 1 down, 2 up, 3 idx) of the
    /// 32-bit `val` by `off` within segments of `width` lanes; `valid` receives the predicate.
    Shuffle {
        mode: u8,
        val: u32,
        off: u32,
        width: u32,
        dst: u32,
        valid: Option<u32>,
    },
}

/// A compiled `nvgpu.device_async_copy`.
#[derive(Clone, Debug)]
pub struct AsyncCopyInst {
    pub copy: AsyncCopy,
    /// Destination memref (shared) and index registers.
    pub dst: u32,
    pub dst_idx: Box<[u32]>,
    /// Source memref (global) and index registers.
    pub src: u32,
    pub src_idx: Box<[u32]>,
    /// The register of `srcElements`, when given.
    pub src_elements: Option<u32>,
}

impl Compiler<'_> {
    fn regs_of(&self, vals: &[rtile::ir::Value], op: OpId) -> Result<Box<[u32]>, Diagnostic> {
        vals.iter().map(|&v| self.reg(v, op)).collect()
    }

    /// Compiles `nvgpu.mma.sync`.
    pub(super) fn mma_sync(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let operands = ctx.operands(op).to_vec();
        let mma = MmaSync::decode(ctx, op)?;
        let [a, b, c] = [0, 1, 2].map(|i| self.reg(operands[i], op));
        let (a, b, c) = (a?, b?, c?);
        let dst = self.def(ctx.result(op, 0), op)?;
        let at = self.at(op);
        self.emit(Inst::Warp {
            op: Box::new(WarpInst::Mma { mma, a, b, c, dst }),
            at,
        });
        Ok(())
    }

    /// Compiles `amdgpu.mfma`: the kernel runs in wavefronts of 64 lanes.
    pub(super) fn mfma(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let operands = ctx.operands(op).to_vec();
        let mfma = Mfma::decode(ctx, op)?;
        let [a, b, c] = [0, 1, 2].map(|i| self.reg(operands[i], op));
        let (a, b, c) = (a?, b?, c?);
        let dst = self.def(ctx.result(op, 0), op)?;
        let at = self.at(op);
        self.k.wave = rtile_gpu_vocab::amdgpu::WAVE64 as u32;
        self.emit(Inst::Warp {
            op: Box::new(WarpInst::Mfma { mfma, a, b, c, dst }),
            at,
        });
        Ok(())
    }

    /// A kernel with `amdgpu.mfma` runs in 64-lane wavefronts, where the NVIDIA warp ops
    /// (32-lane `mma.sync`, `ldmatrix`, `shfl.sync` semantics, 4-warp warpgroups) have no
    /// meaning: refuses the mix.
    pub(super) fn check_wave_mix(&self) -> Result<(), Diagnostic> {
        if self.k.wave == 32 {
            return Ok(());
        }
        for (i, inst) in self.k.insts.iter().enumerate() {
            let nvidia = match inst {
                Inst::Warp { op, .. } => !matches!(**op, WarpInst::Mfma { .. }),
                Inst::Warpgroup { .. } => true,
                _ => false,
            };
            if nvidia {
                return Err(err(
                    self.ctx,
                    self.k.origin[i],
                    "simulator: this 32-lane warp (or warpgroup) op cannot run in a kernel with amdgpu.mfma, which runs in 64-lane wavefronts",
                ));
            }
        }
        Ok(())
    }

    /// Compiles `gpu.shuffle` (32-bit values, as the back ends translate it).
    pub(super) fn shuffle(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let operands = ctx.operands(op).to_vec();
        let results = ctx.results(op).to_vec();
        if operands.len() != 3 || results.is_empty() {
            return Err(err(ctx, op, "gpu.shuffle expects (value, offset, width)"));
        }
        let mode = ctx
            .inherent_attr(op, "mode")
            .map(attr_words)
            .and_then(|w| {
                w.iter().find_map(|w| match w.as_str() {
                    "xor" => Some(0),
                    "down" => Some(1),
                    "up" => Some(2),
                    "idx" => Some(3),
                    _ => None,
                })
            })
            .ok_or_else(|| err(ctx, op, "gpu.shuffle without a mode (xor, down, up, idx)"))?;
        if !matches!(
            Num::of(ctx.value_type(operands[0])),
            Some(Num::F32 | Num::Int(32))
        ) {
            return Err(err(
                ctx,
                op,
                "gpu.shuffle supports 32-bit values (f32, i32)",
            ));
        }
        let [val, off, width] = [0, 1, 2].map(|i| self.reg(operands[i], op));
        let (val, off, width) = (val?, off?, width?);
        let dst = self.def(results[0], op)?;
        let valid = match results.get(1) {
            Some(&v) => Some(self.def(v, op)?),
            None => None,
        };
        let at = self.at(op);
        self.emit(Inst::Warp {
            op: Box::new(WarpInst::Shuffle {
                mode,
                val,
                off,
                width,
                dst,
                valid,
            }),
            at,
        });
        Ok(())
    }

    /// Compiles `nvgpu.ldmatrix`.
    pub(super) fn ldmatrix(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let operands = ctx.operands(op).to_vec();
        let ld = LdMatrix::decode(ctx, op)?;
        let mem = self.mem(operands[0], op)?;
        let m = &self.k.mems[mem as usize];
        if !matches!(m.space, Space::Shared | Space::DynShared)
            || !matches!(m.elem, Num::F16 | Num::BF16)
        {
            return Err(err(
                ctx,
                op,
                "simulator: ldmatrix reads 16-bit elements of shared memory",
            ));
        }
        let idx = self.regs_of(&operands[1..], op)?;
        let dst = self.def(ctx.result(op, 0), op)?;
        let at = self.at(op);
        self.emit(Inst::Warp {
            op: Box::new(WarpInst::LdMatrix { ld, mem, idx, dst }),
            at,
        });
        Ok(())
    }

    /// Compiles `nvgpu.device_async_copy` (its token result takes no register).
    pub(super) fn async_copy(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let operands = ctx.operands(op).to_vec();
        let copy = AsyncCopy::decode(ctx, op)?;
        let dr = copy.dst_rank;
        let dst = self.mem(operands[0], op)?;
        let src = self.mem(operands[1 + dr], op)?;
        let (ds, ss) = (
            self.k.mems[dst as usize].space,
            self.k.mems[src as usize].space,
        );
        if !matches!(ds, Space::Shared | Space::DynShared) || ss != Space::Global {
            return Err(err(
                ctx,
                op,
                "simulator: cp.async copies from a kernel argument to shared memory",
            ));
        }
        let dst_idx = self.regs_of(&operands[1..1 + dr], op)?;
        let src_idx = self.regs_of(&operands[2 + dr..2 + dr + copy.src_rank], op)?;
        let src_elements = if copy.src_elements {
            Some(self.reg(operands[2 + dr + copy.src_rank], op)?)
        } else {
            None
        };
        let at = self.at(op);
        self.emit(Inst::AsyncCopy {
            op: Box::new(AsyncCopyInst {
                copy,
                dst,
                dst_idx,
                src,
                src_idx,
                src_elements,
            }),
            at,
        });
        Ok(())
    }

    /// Compiles `nvgpu.device_async_wait`.
    pub(super) fn async_wait(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let keep = async_wait_groups(self.ctx, op)?;
        let at = self.at(op);
        self.emit(Inst::AsyncWait { keep, at });
        Ok(())
    }
}
