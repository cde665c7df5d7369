//! What one rTask is, for `--wavefront-pack` and for the persistent lowering alike: the
//! pack sizes the vDevice from each rKernel's threads, shared memory and registers (Rammer,
//! OSDI'20 §4.1.2: the vEUs follow from "the most demanding rTask"), and the lowering
//! launches one block per vEU of that shape. Both read the rTask's shape from here, so the
//! grid the pack counted is the grid the lowering checks for co-residency.
//!
//! An rTask is one block of its Roller rProgram with **no cross-thread reduction split**:
//! the automatic split (`CrossThread::Auto`) multiplies a block's threads after the program
//! is chosen, which the pack cannot see; a packed compute keeps the program's threads.

use crate::construct_rtile::RProgram;
use crate::construct_rtile::rtile::thread_registers;
use crate::lower_to_gpu::kernel::{CrossThread, LowerOptions};

/// An rTask's resources (per block of its rKernel).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RTaskShape {
    /// Threads of the block.
    pub threads: u64,
    /// Shared memory, bytes (the program's shared footprint, storage padding included).
    pub smem: u64,
    /// Registers per thread (Roller's estimate from the register footprint).
    pub regs: u64,
}

impl RTaskShape {
    /// The shape of an rTask of Roller program `p` lowered with [`rtask_options`].
    pub(crate) fn of(p: &RProgram) -> RTaskShape {
        RTaskShape {
            threads: p.threads,
            smem: p.footprint[1],
            regs: thread_registers(p.footprint[0]),
        }
    }
}

/// The options a packed compute's kernel is lowered with: `opts` with the cross-thread
/// split off, so its block has [`RTaskShape::of`]'s threads, and tensor cores through
/// `mma.sync` (an rTask body takes no TMA tensor maps).
pub(crate) fn rtask_options(opts: LowerOptions) -> LowerOptions {
    LowerOptions {
        cross: Some(CrossThread::Off),
        tensor_core: crate::lower_to_gpu::mma::TensorCoreMode::MmaSync,
        ..opts
    }
}
