//! Compiles the sm_90a ops — mbarriers, TMA loads, warpgroup MMA — into the simulator's
//! instructions; their semantics are in `exec/mbarrier.rs`, `exec/tma.rs` and
//! `exec/wgmma.rs` (and `docs/simulator.md`). Tensor maps, mbarrier groups and warpgroup
//! descriptors are compile-time values (no registers): a tensor map is the global memref
//! its kernel's `rtile.tensor_map_of` names, a group its first object, a descriptor the
//! shared memref it was generated from (`descriptor_source`).

use std::collections::HashMap;

use rtile::diagnostics::Diagnostic;
use rtile::ir::{OpId, Value};
use rtile_gpu_vocab::nvgpu_sm90::{
    AccumulatorType, Swizzle, TensorMapType, TmaLoad, WarpgroupMma, descriptor_source, swizzle_byte,
};

use super::{Compiler, Inst, Num, Space, err};

/// Most dimensions of a TMA tensor map (`cuTensorMapEncodeTiled`'s `tensorRank`, CUDA
/// Driver API §6.30; PTX `cp.async.bulk.tensor.{1..5}d`).
pub const MAX_TMA_RANK: usize = 5;

/// An mbarrier of a group: the group's first object (of the block's flattened objects), its
/// size, and the register of the index.
#[derive(Clone, Copy, Debug)]
pub struct MbarRef {
    pub first: u32,
    pub count: u32,
    pub idx: u32,
}

/// A tensor map: the global memref it describes, its box and swizzle.
#[derive(Clone, Copy, Debug)]
pub struct MapInfo {
    /// The global memref (index into [`super::Kernel::mems`]).
    pub src: u32,
    /// The box, outermost first, over [`MAX_TMA_RANK`] dimensions (a box of lower rank
    /// has extent 1 on the missing outer ones: a 2-d box is `[1, 1, 1, rows, cols]`).
    pub box_shape: [usize; MAX_TMA_RANK],
    pub elem: Num,
    pub swizzle: Swizzle,
}

/// A compiled `nvgpu.tma.async.load`.
#[derive(Clone, Debug)]
pub struct TmaInst {
    /// The global memref (index into [`super::Kernel::mems`]).
    pub src: u32,
    /// The box as [`MapInfo::box_shape`].
    pub box_shape: [usize; MAX_TMA_RANK],
    pub elem: Num,
    pub swizzle: Swizzle,
    pub bar: MbarRef,
    /// Coordinate registers, innermost dimension first (PTX order); `None` past the map's
    /// rank (coordinate 0).
    pub coords: [Option<u32>; MAX_TMA_RANK],
    /// The shared destination memref.
    pub dst: u32,
    pub pred: Option<u32>,
}

impl TmaInst {
    /// The swizzled byte address of `addr` (in the destination's buffer).
    pub fn swizzle_addr(&self, addr: usize) -> usize {
        swizzle_byte(addr as u64, self.swizzle) as usize
    }
}

/// A per-thread sm_90a instruction.
#[derive(Clone, Debug)]
pub enum Sm90Inst {
    /// `nvgpu.mbarrier.init`: the count register, an optional predicate.
    MbarInit {
        bar: MbarRef,
        count: u32,
        pred: Option<u32>,
    },
    /// `nvgpu.mbarrier.arrive` (`tx` none) or `.arrive.expect_tx` (the tx-count register).
    MbarArrive {
        bar: MbarRef,
        tx: Option<u32>,
        pred: Option<u32>,
    },
    /// `nvgpu.mbarrier.try_wait.parity`: the parity register (the ticks hint is ignored).
    MbarWait { bar: MbarRef, parity: u32 },
    /// `nvgpu.tma.async.load`.
    Tma(TmaInst),
    /// `nvgpu.warpgroup.mma.init.accumulator`: `n` zero registers.
    InitAcc { dst: u32, n: u32 },
    /// `nvgpu.warpgroup.mma.store`: the accumulator (`m × n`) in registers `src` to `mem`.
    MmaStore {
        src: u32,
        mem: u32,
        shape: [usize; 2],
    },
}

/// A compiled `nvgpu.warpgroup.mma`: its decoded shapes and tiles, the shared memrefs its
/// descriptors were generated from, the accumulator registers in and out.
#[derive(Clone, Debug)]
pub struct WgmmaInst {
    pub mma: WarpgroupMma,
    pub a: u32,
    pub b: u32,
    pub acc: u32,
    pub dst: u32,
}

impl Compiler<'_> {
    /// The shared memref `v` (an attribution or a view of dynamic shared memory).
    fn shared_mem(&self, v: Value, op: OpId) -> Result<u32, Diagnostic> {
        let id = self.mem(v, op)?;
        if !matches!(
            self.k.mems[id as usize].space,
            Space::Shared | Space::DynShared
        ) {
            return Err(err(
                self.ctx,
                op,
                "simulator: expects a memref in workgroup (shared) memory",
            ));
        }
        Ok(id)
    }

    fn emit_sm90(&mut self, op: OpId, i: Sm90Inst) {
        let at = self.at(op);
        self.emit(Inst::Sm90 {
            op: Box::new(i),
            at,
        });
    }
}

/// The compile-time values of the sm_90a ops.
#[derive(Default)]
pub(super) struct Values {
    /// `nvgpu.mbarrier.create` results: first object and count.
    groups: HashMap<Value, (u32, u32)>,
    /// Tensor-map kernel parameters.
    pub(super) maps: HashMap<Value, MapInfo>,
}

impl Compiler<'_> {
    fn group(&self, v: Value, idx: Value, op: OpId) -> Result<MbarRef, Diagnostic> {
        let &(first, count) = self.sm90.groups.get(&v).ok_or_else(|| {
            err(
                self.ctx,
                op,
                "simulator: the mbarrier group must be an nvgpu.mbarrier.create result of the kernel",
            )
        })?;
        Ok(MbarRef {
            first,
            count,
            idx: self.reg(idx, op)?,
        })
    }

    fn map(&self, v: Value, op: OpId) -> Result<MapInfo, Diagnostic> {
        self.sm90.maps.get(&v).copied().ok_or_else(|| {
            err(
                self.ctx,
                op,
                "simulator: the tensor map must be a kernel parameter bound by 'rtile.tensor_map_of'",
            )
        })
    }

    fn opt_reg(&self, v: Option<&Value>, op: OpId) -> Result<Option<u32>, Diagnostic> {
        v.map(|&v| self.reg(v, op)).transpose()
    }
}

impl Compiler<'_> {
    /// `nvgpu.mbarrier.create`: a group of `num_barriers` objects of the block.
    pub(super) fn mbar_create(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let r = self.ctx.result(op, 0);
        let n = rtile_dialects::nvgpu::sm90_types::mbarrier_group_size(self.ctx.value_type(r))
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| err(self.ctx, op, "simulator: expects an mbarrier group type"))?;
        self.sm90.groups.insert(r, (self.k.mbarriers, n));
        self.k.mbarriers += n;
        Ok(())
    }

    /// `nvgpu.mbarrier.init (barriers, count, mbarId, predicate?)`.
    pub(super) fn mbar_init(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ops = self.ctx.operands(op).to_vec();
        let i = Sm90Inst::MbarInit {
            bar: self.group(ops[0], ops[2], op)?,
            count: self.reg(ops[1], op)?,
            pred: self.opt_reg(ops.get(3), op)?,
        };
        self.emit_sm90(op, i);
        Ok(())
    }

    /// `nvgpu.mbarrier.arrive (barriers, mbarId)` (its token takes no register) and
    /// `nvgpu.mbarrier.arrive.expect_tx (barriers, txcount, mbarId, predicate?)`.
    pub(super) fn mbar_arrive(&mut self, op: OpId, expect_tx: bool) -> Result<(), Diagnostic> {
        let ops = self.ctx.operands(op).to_vec();
        let i = if expect_tx {
            Sm90Inst::MbarArrive {
                bar: self.group(ops[0], ops[2], op)?,
                tx: Some(self.reg(ops[1], op)?),
                pred: self.opt_reg(ops.get(3), op)?,
            }
        } else {
            Sm90Inst::MbarArrive {
                bar: self.group(ops[0], ops[1], op)?,
                tx: None,
                pred: None,
            }
        };
        self.emit_sm90(op, i);
        Ok(())
    }

    /// `nvgpu.mbarrier.try_wait.parity (barriers, phaseParity, ticks, mbarId)`.
    pub(super) fn mbar_wait(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ops = self.ctx.operands(op).to_vec();
        let i = Sm90Inst::MbarWait {
            bar: self.group(ops[0], ops[3], op)?,
            parity: self.reg(ops[1], op)?,
        };
        self.emit_sm90(op, i);
        Ok(())
    }
}

/// The f32 registers per thread of an accumulator-typed value, when `t` is one.
pub(super) fn accumulator_regs(t: &rtile::ir::types::Type) -> Option<u32> {
    AccumulatorType::of(t)?
        .ok()
        .map(|a| a.regs_per_thread() as u32)
}

impl Compiler<'_> {
    /// Binds the kernel's tensor-map parameters `maps` (values and types, in order) to the
    /// global memref parameters `rtile.tensor_map_of` names (`params`: every parameter).
    pub(super) fn bind_tensor_maps(
        &mut self,
        func: OpId,
        params: &[Value],
        maps: &[(Value, TensorMapType)],
    ) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        if maps.is_empty() {
            return Ok(());
        }
        let idx = ctx
            .attr(func, rtile_dialects::rtile::TENSOR_MAP_OF)
            .and_then(|a| a.as_dense_ints())
            .unwrap_or_default();
        if idx.len() != maps.len() {
            return Err(err(
                ctx,
                func,
                format!(
                    "simulator: {} tensor-map parameters need 'rtile.tensor_map_of' with as many memref parameter indices",
                    maps.len()
                ),
            ));
        }
        for (&i, (v, map)) in idx.iter().zip(maps) {
            let src = usize::try_from(i)
                .ok()
                .and_then(|i| params.get(i))
                .and_then(|p| self.mems.get(p).copied())
                .ok_or_else(|| {
                    err(
                        ctx,
                        func,
                        format!(
                            "simulator: 'rtile.tensor_map_of' index {i} is not a memref parameter"
                        ),
                    )
                })?;
            let m = &self.k.mems[src as usize];
            let elem = Num::of(&map.elem);
            let pitch = m.shape.last().copied().unwrap_or(1) * i64::from(m.elem.bytes());
            let why = if elem != Some(m.elem) || m.shape.len() != map.box_shape.len() {
                Some(format!(
                    "does not have the tensor map's element type and rank ({})",
                    m.ty
                ))
            } else if m.shape.len() >= 2 && pitch % 16 != 0 {
                Some(format!(
                    "{} has a row pitch of {pitch} bytes; cuTensorMapEncodeTiled needs a multiple of 16",
                    m.ty
                ))
            } else if map.box_shape.iter().any(|&b| !(1..=256).contains(&b))
                || !(*map.box_shape.last().unwrap_or(&0) as u64 * map.elem_bytes())
                    .is_multiple_of(16)
            {
                Some("has a box cuTensorMapEncodeTiled rejects (1 to 256 elements per dimension, inner extent a multiple of 16 bytes)".into())
            } else {
                None
            };
            if let Some(why) = why {
                return Err(err(
                    ctx,
                    func,
                    format!("simulator: the tensor map bound to parameter {i} {why}"),
                ));
            }
            let rank = map.box_shape.len();
            if !(1..=MAX_TMA_RANK).contains(&rank) {
                return Err(err(
                    ctx,
                    func,
                    "simulator: tensor maps of rank 1 to 5 only (cuTensorMapEncodeTiled's tensorRank)",
                ));
            }
            let mut box_shape = [1usize; MAX_TMA_RANK];
            for (b, &d) in box_shape[MAX_TMA_RANK - rank..]
                .iter_mut()
                .zip(&map.box_shape)
            {
                *b = d as usize;
            }
            self.sm90.maps.insert(
                *v,
                MapInfo {
                    src,
                    box_shape,
                    elem: m.elem,
                    swizzle: map.swizzle,
                },
            );
        }
        Ok(())
    }

    /// `nvgpu.tma.async.load`.
    pub(super) fn tma_load(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let t = TmaLoad::decode(ctx, op)?;
        let map = self.map(ctx.operands(op)[2], op)?;
        let dst = self.shared_mem(t.dst, op)?;
        if self.k.mems[dst as usize].elem != map.elem {
            return Err(err(
                ctx,
                op,
                "simulator: the destination's element type must be the tensor map's",
            ));
        }
        // A box of lower rank has coordinate 0 on the missing outer dimensions.
        let mut coords = [None; MAX_TMA_RANK];
        for (c, &v) in coords.iter_mut().zip(&t.coords) {
            *c = Some(self.reg(v, op)?);
        }
        let i = Sm90Inst::Tma(TmaInst {
            src: map.src,
            box_shape: map.box_shape,
            elem: map.elem,
            swizzle: map.swizzle,
            bar: self.group(t.barriers, t.mbar_id, op)?,
            coords,
            dst,
            pred: self.opt_reg(t.predicate.as_ref(), op)?,
        });
        self.emit_sm90(op, i);
        Ok(())
    }

    /// A kernel with `scf.while` runs its blocks interleaved (`sim::concurrent`), without
    /// the block scheduler that blocks mbarrier waits, lands TMA loads and gathers
    /// warpgroups: refuses the sm_90a ops there.
    pub(super) fn check_sm90_spins(&self) -> Result<(), Diagnostic> {
        if !self.k.spins {
            return Ok(());
        }
        match self
            .k
            .insts
            .iter()
            .position(|i| matches!(i, Inst::Sm90 { .. } | Inst::Warpgroup { .. }))
        {
            Some(i) => Err(err(
                self.ctx,
                self.k.origin[i],
                "simulator: the sm_90a ops (mbarrier, TMA, warpgroup MMA) cannot run in a kernel with scf.while",
            )),
            None => Ok(()),
        }
    }

    /// `nvgpu.tma.prefetch.descriptor`: a hint, no instruction (its map must be bound).
    pub(super) fn tma_prefetch(&mut self, op: OpId) -> Result<(), Diagnostic> {
        self.map(self.ctx.operands(op)[0], op).map(|_| ())
    }

    /// `nvgpu.warpgroup.generate.descriptor`: no instruction; checks its memref is shared
    /// memory the simulator knows (`nvgpu.warpgroup.mma` traces the descriptor back).
    pub(super) fn wg_descriptor(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ops = self.ctx.operands(op).to_vec();
        self.shared_mem(ops[0], op)?;
        self.map(ops[1], op).map(|_| ())
    }

    /// `nvgpu.warpgroup.mma.init.accumulator`: zeroes the result's registers.
    pub(super) fn wg_init(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let r = self.ctx.result(op, 0);
        let n = accumulator_regs(self.ctx.value_type(r))
            .ok_or_else(|| err(self.ctx, op, "expects a warpgroup accumulator result"))?;
        let dst = self.def(r, op)?;
        self.emit_sm90(op, Sm90Inst::InitAcc { dst, n });
        Ok(())
    }

    /// `nvgpu.warpgroup.mma`.
    pub(super) fn wg_mma(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let mma = WarpgroupMma::decode(ctx, op)?;
        let ops = ctx.operands(op).to_vec();
        let smem = |i: usize| {
            descriptor_source(ctx, ops[i])
                .map(|(v, _)| v)
                .ok_or_else(|| {
                    err(
                        ctx,
                        op,
                        "a descriptor operand must come from nvgpu.warpgroup.generate.descriptor",
                    )
                })
        };
        let (a, b) = (
            self.shared_mem(smem(0)?, op)?,
            self.shared_mem(smem(1)?, op)?,
        );
        for (m, rows, cols) in [(a, mma.m, mma.k), (b, mma.k, mma.n)] {
            let d = &self.k.mems[m as usize];
            if !matches!(d.elem, Num::F16 | Num::BF16) || d.len() as u64 != rows * cols {
                return Err(err(
                    ctx,
                    op,
                    format!(
                        "simulator: the descriptor's memref {} must hold the {rows}x{cols} operand tile",
                        d.ty
                    ),
                ));
            }
        }
        let acc = self.reg(ops[2], op)?;
        let dst = self.def(ctx.result(op, 0), op)?;
        let at = self.at(op);
        self.emit(Inst::Warpgroup {
            op: Box::new(WgmmaInst {
                mma,
                a,
                b,
                acc,
                dst,
            }),
            at,
        });
        Ok(())
    }

    /// `nvgpu.warpgroup.mma.store %acc, %dst`: `%dst` an `M×N` f32 memref the simulator
    /// knows (global, shared, private).
    pub(super) fn wg_store(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let ops = ctx.operands(op).to_vec();
        let acc = AccumulatorType::of(ctx.value_type(ops[0]))
            .and_then(Result::ok)
            .ok_or_else(|| err(ctx, op, "expects a warpgroup accumulator"))?;
        let mem = self.mem(ops[1], op)?;
        let d = &self.k.mems[mem as usize];
        if d.elem != Num::F32 || d.shape != [acc.m, acc.n] {
            return Err(err(
                ctx,
                op,
                format!(
                    "simulator: the destination {} must be {}x{}xf32 like the accumulator",
                    d.ty, acc.m, acc.n
                ),
            ));
        }
        let src = self.reg(ops[0], op)?;
        let shape = [acc.m as usize, acc.n as usize];
        self.emit_sm90(op, Sm90Inst::MmaStore { src, mem, shape });
        Ok(())
    }
}
