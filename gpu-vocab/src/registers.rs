//! The per-thread register caps the NVPTX back end emits as `.maxnreg`
//! (`rtile-targets`, `llvmir.rs`). They live here, below both the back end and the
//! passes, so that the persistent lowering counts co-resident blocks with the very cap
//! the kernel will be held to (`lower_to_gpu/persistent`, `rtile.persistent`).

/// The registers each thread of a block of `threads` may use so that one block fits an
/// NVIDIA SM's 65,536 (every architecture since Kepler), rounded down to the allocation
/// granularity of 8, at most 255. The file is four sub-partitions of 16,384 registers and a
/// block's warps are spread over them round-robin, so the fullest holds ⌈warps / 4⌉ of
/// them: a 416-thread block (13 warps) at 152 registers a thread fits 65,536 in total but
/// needs 4 × 152 × 32 = 19,456 of one sub-partition, and the launch fails (seen on an
/// H200: CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES); 128 fits. Emitted as `.maxnreg`: the
/// construction sized the block and the thread's register tile to the register file
/// (Roller §3.3), and with `.maxntid` alone ptxas 12.9 may hold a kernel to 64 registers
/// and spill (Table-1 softmax's row sum at 256 threads: 8 bytes spilled at 64, none at its
/// 98 registers).
pub fn block_register_share(threads: u64) -> u64 {
    const SUB_PARTITIONS: u64 = 4;
    const PARTITION_REGISTERS: u64 = 65536 / SUB_PARTITIONS;
    let warps = threads.max(1).div_ceil(32);
    let fullest = warps.div_ceil(SUB_PARTITIONS);
    ((PARTITION_REGISTERS / (fullest * 32)) / 8 * 8).clamp(8, 255)
}

/// The registers each thread may use so that `blocks` blocks of `threads` threads are
/// resident on one NVIDIA SM at once: an SM's 65,536 registers are four sub-partitions of
/// 512 per lane, the warps spread over them, allocated per warp in steps of 8 per thread.
/// A persistent kernel whose barriers span vEUs (`rtile.persistent = {blocks_per_core}`)
/// deadlocks if fewer are resident, so it gets this as `.maxnreg`.
pub fn coresident_register_cap(threads: u64, blocks: u64) -> u64 {
    let warps = threads.max(1).div_ceil(32) * blocks.max(1);
    ((512 / warps.div_ceil(4)) / 8 * 8).clamp(8, 255)
}
