//! The alignment rules of Roller §3.1 and `GetNextAlignedAxisSize`.
//!
//! Rules, by the layer whose rTile they constrain:
//! - every layer: *alignment with the tensor shape* — an axis size `S` for a tensor extent `N`
//!   pads the computation by `(S − N mod S) mod S` (the paper writes `S − N mod S`, which would
//!   charge a whole tile when `S` divides `N`; the `mod S` is the evident intent), at most
//!   `ε·N`.
//! - register layer with tensor cores: the warp tile is a multiple of the MMA instruction shape
//!   (Roller §5.1; m16n8k16 on sm_80, m64nNk16 per warpgroup on sm_90a, ...) along the m, n, k
//!   axes and 1 along the others.
//! - shared layer: lower-layer tiles divide the upper-layer tile (block size is a multiple of the
//!   thread/warp tile); *alignment with memory transaction* — for every data tile whose leading
//!   (innermost) dimension is indexed by exactly one axis, that axis size times the element size
//!   is a multiple of the global transaction length, unless the tile covers the whole dimension
//!   (a narrower tensor cannot be read in whole transactions anyway); *alignment with memory
//!   bank* — storage padding by the paper's formula.
//! - shared layer, whole tile: *alignment with the execution unit* — the block's threads are a
//!   multiple of the TEU width and its TEUs a factor or multiple of the TEU group, unless the
//!   block covers the whole iteration space (nothing larger exists to align to).

use super::expr_info::TensorExprInfo;
use super::rtile::{ceil_div, data_tile};
use crate::device::Device;
use std::collections::HashMap;

/// Bank-conflict-free storage padding (§3.1 "alignment with memory bank", Figure 5b), in the
/// units of its arguments: `(B·L − N mod (B·L) + L·⌈n/L⌉) mod (B·L)` for a data tile with leading
/// dimension `N` read by tiles with leading dimension `n`, `B` banks of width `L`.
pub fn bank_padding(n_big: u64, n_small: u64, banks: u64, bank_width: u64) -> u64 {
    let bl = banks * bank_width;
    if bl == 0 {
        return 0;
    }
    (bl - n_big % bl + bank_width * ceil_div(n_small, bank_width)) % bl
}

/// Fraction of wasted computation when an axis of extent `n` is tiled by `s` (§3.1).
pub fn padding_ratio(n: u64, s: u64) -> f64 {
    let waste = ceil_div(n, s) * s - n;
    waste as f64 / n as f64
}

/// Whether tiling extent `n` by `s` pads within `epsilon` (a tiny slack absorbs float rounding).
pub fn within_epsilon(n: u64, s: u64, epsilon: f64) -> bool {
    padding_ratio(n, s) <= epsilon + 1e-12
}

/// Bytes of one row of a `wgmma` operand's TMA box (the 128-byte swizzle), as the
/// lowering copies it.
const WGMMA_BOX_BYTES: u64 = crate::device::TMA_SWIZZLE_BYTES;

/// Tensor-core mapping of a contraction: which axes play m, n, k, and the MMA instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorCoreMap {
    /// Axis positions of m, n, k.
    pub axes: [usize; 3],
    /// Instruction shape `[m, n, k]`: the register-layer (warp) tile is a multiple of it.
    pub shape: [u64; 3],
    /// TEUs issuing one instruction together (a `wgmma` warpgroup: 4).
    pub warps: u64,
    /// Peak GFLOP/s of the tensor cores for the input type.
    pub gflops: f64,
}

impl TensorCoreMap {
    /// Times each input's data tile is read from shared memory per pass of one register-layer
    /// tile `tile`. A warp MMA (`mma.sync`) loads its fragments into registers once
    /// (`ldmatrix`) and reuses them across its instructions: once. A warpgroup MMA
    /// (`wgmma`, `warps > 1`) reads both operands from shared-memory descriptors on every
    /// instruction, and a tile `tile[m]` rows tall issues `tile[m] / 64` of them along m, so
    /// an input without the m axis (B) is read once per m64 slab. §3.3's `MemTraffic` counts
    /// a tile's data once; on wgmma the instructions decide it (PERF.md, issue 16: the
    /// H200's 64×128 tiles against 64×64 and 128-row ones).
    pub fn read_passes(&self, e: &TensorExprInfo, tile: &[u64]) -> Vec<u64> {
        let m = self.axes[0];
        e.inputs
            .iter()
            .map(|t| {
                if self.warps > 1 && !t.uses_axis(m) {
                    ceil_div(tile[m], self.shape[0]).max(1)
                } else {
                    1
                }
            })
            .collect()
    }
}

/// The tensor-core mappings for `e` on `dev`, one per MMA instruction the device has for its
/// inputs, preferred first (Roller §5.1: the rTile is aligned to the instruction shape).
/// Only a mixed-precision contraction qualifies: f16 or bf16 inputs with an f32 accumulator
/// ([`TensorExprInfo::mma_inputs`]; never silently TF32 for f32), two multiplied inputs, a
/// reduction axis used plainly by both (k), an output axis read only by the first (m) and
/// one used only by the second (n). Matmul and batch matmul (the batch axis stays 1 in the
/// warp tile) take this form over their own axes; a convolution is constructed over its
/// implicit GEMM view ([`super::implicit_gemm`], where m is the output pixels, n the filters,
/// k the reduction axes), the only form `--lower-to-gpu` lowers on tensor cores. (Over a
/// convolution's own axes m may enter the first input through a window, `%x + %s`; such
/// programs are built only when the view does not apply, and are not lowered.)
pub fn tensor_core_maps(e: &TensorExprInfo, dev: &Device) -> Vec<TensorCoreMap> {
    let Some(dtype) = e.mma_inputs.as_deref() else {
        return Vec::new();
    };
    let Some((gflops, instrs)) = dev.mma(dtype) else {
        return Vec::new();
    };
    if e.inputs.len() != 2 {
        return Vec::new();
    }
    let (a, b) = (&e.inputs[0], &e.inputs[1]);
    let plain = |t: &super::expr_info::TensorAccess, x: usize| {
        t.indices.iter().any(|i| i.single_axis() == Some(x))
    };
    let pick = |f: &dyn Fn(usize) -> bool| (0..e.axes.len()).rev().find(|&x| f(x));
    let axes = (|| {
        // m may enter the first input through a window (`%x + %s`): the implicit GEMM's
        // rows are output positions, gathered im2col-style.
        let m = pick(&|x| {
            !e.axes[x].reduction && a.uses_axis(x) && !b.uses_axis(x) && plain(&e.output, x)
        })?;
        let n = pick(&|x| {
            !e.axes[x].reduction && plain(b, x) && !a.uses_axis(x) && plain(&e.output, x)
        })?;
        let k = pick(&|x| e.axes[x].reduction && plain(a, x) && plain(b, x))?;
        Some([m, n, k])
    })();
    let Some(axes) = axes else {
        return Vec::new();
    };
    instrs
        .iter()
        .map(|i| TensorCoreMap {
            axes,
            shape: i.shape,
            warps: i.warps,
            gflops,
        })
        .collect()
}

/// The mapping a program names by its MMA shape (`mma = [m, n, k]`), or the preferred one
/// when it names none.
pub fn tensor_core_map_for(
    e: &TensorExprInfo,
    dev: &Device,
    mma: Option<[u64; 3]>,
) -> Option<TensorCoreMap> {
    let maps = tensor_core_maps(e, dev);
    match mma {
        Some(s) => maps.into_iter().find(|m| m.shape == s),
        None => maps.into_iter().next(),
    }
}

/// Alignment context for one expression on one device at one ε.
pub struct Aligner<'a> {
    /// The expression.
    pub expr: &'a TensorExprInfo,
    /// The device.
    pub dev: &'a Device,
    /// Tensor padding bound ε.
    pub epsilon: f64,
    /// Tensor-core mapping, when used.
    pub tc: Option<TensorCoreMap>,
    /// Per axis: the transaction granularity in elements of the data tiles it leads (1 if none).
    txn_elems: Vec<u64>,
    /// Memoised candidate sizes per (layer, axis, base).
    memo: HashMap<(usize, usize, u64), Vec<u64>>,
    /// Memoised shared-layer entry blocks per register tile.
    entry_memo: HashMap<Vec<u64>, Option<Vec<u64>>>,
    /// No data reuse anywhere (every input read once, e.g. element-wise): §3.2 "ROLLER will just
    /// construct rTiles for the top layer and loads them directly from the bottom layer", so the
    /// shared layer stages nothing.
    pub direct: bool,
}

impl<'a> Aligner<'a> {
    /// Prepares the per-axis alignment facts.
    pub fn new(
        expr: &'a TensorExprInfo,
        dev: &'a Device,
        epsilon: f64,
        tc: Option<TensorCoreMap>,
    ) -> Self {
        let txn = dev.layers[Device::GLOBAL].transaction_bytes.unwrap_or(1);
        let mut txn_elems = vec![1u64; expr.axes.len()];
        for t in expr.inputs.iter().chain(std::iter::once(&expr.output)) {
            if let Some(a) = t.indices.last().and_then(|i| i.single_axis()) {
                let el = ceil_div(txn, t.elem_bytes).max(1);
                txn_elems[a] = lcm(txn_elems[a], el);
            }
        }
        let direct = !expr.has_reduction()
            && expr.inputs.iter().all(|t| {
                let mut seen: Vec<usize> =
                    t.indices.iter().filter_map(|i| i.single_axis()).collect();
                seen.sort_unstable();
                seen.dedup();
                seen.len() == expr.axes.len() && t.indices.len() == expr.axes.len()
            });
        Aligner {
            expr,
            dev,
            epsilon,
            tc,
            txn_elems,
            memo: HashMap::new(),
            entry_memo: HashMap::new(),
            direct,
        }
    }

    /// Lanes that share one register-layer tile (the TEUs issuing one MMA instruction with
    /// tensor cores: a warp, or a `wgmma` warpgroup; else one thread).
    pub fn lanes(&self) -> u64 {
        match &self.tc {
            Some(tc) => self.dev.teu_width * tc.warps,
            None => 1,
        }
    }

    /// Granularity of the register-layer tile along `a`.
    ///
    /// A warpgroup MMA (`wgmma`) reads B through TMA boxes of 128-byte rows: where B is
    /// stored n-contiguous, its n extent is a whole box (64 f16 columns), or the lowering
    /// pads it to one and computes the padding (§3.1's alignment with the memory
    /// transaction, at the granularity the hardware moves B in). An n axis shorter than a
    /// box keeps the instruction's multiple: its one tile is padded either way.
    fn register_base(&self, a: usize) -> Option<u64> {
        match &self.tc {
            // Axes outside m, n, k stay 1 in a warp tile (callers test `base == 1`).
            Some(tc) => {
                let Some(i) = tc.axes.iter().position(|&x| x == a) else {
                    return Some(1);
                };
                let b = &self.expr.inputs[1];
                let n_major = b.indices.last().and_then(|x| x.single_axis()) == Some(a);
                let box_cols = (WGMMA_BOX_BYTES / b.elem_bytes).max(1);
                if tc.warps > 1 && i == 1 && n_major && self.expr.axes[a].extent >= box_cols {
                    return Some(lcm(tc.shape[1], box_cols));
                }
                Some(tc.shape[i])
            }
            None => Some(1),
        }
    }

    /// Largest size worth considering along `a` at `layer` for a thread tile `base`: ε, and a
    /// bound from capacity that no aligned tile can exceed.
    fn cap(&self, layer: usize, a: usize, base: u64) -> u64 {
        let n = self.expr.axes[a].extent;
        let mut cap = n + (self.epsilon * n as f64).floor() as u64;
        let min_e = self
            .expr
            .inputs
            .iter()
            .filter(|t| t.uses_axis(a))
            .map(|t| t.elem_bytes)
            .min();
        let layer_cap = self.dev.layers[layer].capacity_bytes * self.lanes();
        let staged = layer == Device::REGISTER || !self.direct;
        if let (Some(e), true) = (min_e, staged) {
            cap = cap.min(layer_cap / e);
        }
        if layer == Device::SHARED && !self.expr.axes[a].reduction {
            cap = cap.min(base * self.dev.max_threads_per_block * self.lanes());
        }
        cap
    }

    /// Whether `s` is an aligned size for axis `a` at `layer`, given the multiple `base`.
    fn size_ok(&self, layer: usize, a: usize, s: u64, base: u64) -> bool {
        let n = self.expr.axes[a].extent;
        if s == 0 || !s.is_multiple_of(base) || !within_epsilon(n, s, self.epsilon) {
            return false;
        }
        if layer == Device::SHARED {
            let el = self.txn_elems[a];
            if !s.is_multiple_of(el) && s < n {
                return false;
            }
        }
        true
    }

    /// All aligned sizes of axis `a` at `layer` that are multiples of `base`, ascending
    /// (the per-axis candidates of `GetNextAlignedAxisSize`; Welder's sub-graph tiling
    /// enumerates its output tiles from them, Welder §3.2 "similar to Roller").
    pub fn aligned_sizes(&mut self, layer: usize, a: usize, base: u64) -> Vec<u64> {
        self.sizes(layer, a, base).to_vec()
    }

    /// All aligned sizes of axis `a` at `layer` that are multiples of `base`, ascending.
    fn sizes(&mut self, layer: usize, a: usize, base: u64) -> &[u64] {
        let key = (layer, a, base);
        if !self.memo.contains_key(&key) {
            let cap = self.cap(layer, a, base);
            let mut v = Vec::new();
            let mut s = base;
            while s <= cap {
                if self.size_ok(layer, a, s, base) {
                    v.push(s);
                }
                s += base;
            }
            self.memo.insert(key, v);
        }
        &self.memo[&key]
    }

    /// The multiple every size of axis `a` at `layer` must have (the lower-layer tile at the
    /// shared layer; the instruction shape at the register layer).
    fn base(&self, layer: usize, a: usize, thread: &[u64]) -> Option<u64> {
        if layer == Device::REGISTER {
            self.register_base(a)
        } else {
            Some(thread[a])
        }
    }

    /// `GetNextAlignedAxisSize` (§3.1): for each axis, the next aligned size larger than the
    /// current one at `layer`, or `None` when the axis cannot grow. `thread` is the register-layer
    /// tile the shared-layer tile must be a multiple of.
    pub fn next_aligned_axis_sizes(
        &mut self,
        layer: usize,
        tile: &[u64],
        thread: &[u64],
    ) -> Vec<Option<u64>> {
        (0..tile.len())
            .map(|a| {
                let base = self.base(layer, a, thread)?;
                if layer == Device::REGISTER && self.tc.is_some() && base == 1 {
                    return None;
                }
                let spatial_shared = layer == Device::SHARED && !self.expr.axes[a].reduction;
                let v = self.sizes(layer, a, base).to_vec();
                let i = v.partition_point(|&s| s <= tile[a]);
                if !spatial_shared {
                    return v.get(i).copied();
                }
                // Growing a spatial axis of the block changes its thread count, which must
                // stay aligned with the execution unit (§3.1): the next aligned size is the
                // next one that keeps it so.
                let mut b = tile.to_vec();
                v[i..].iter().copied().find(|&s| {
                    b[a] = s;
                    self.teu_aligned(&b, thread)
                })
            })
            .collect()
    }

    /// Entering the shared layer (Figure 8 lines 15/19, `EnlargeTile(T, mem.Next(), P)`): the
    /// block that contains the register tile `thread` and meets the shared layer's rules, the
    /// execution-unit rule included. Per-axis rules first ([`Self::align_up`]); then, while the
    /// thread count is not aligned, grow the spatial axis whose next aligned size gives the
    /// thread count the most factors of two (TEU widths are powers of two), then the least
    /// shared memory, then the inner axis. `None` if threads run out before alignment.
    ///
    /// When that greedy walk fails (an odd extent fixed by the transaction rule, say), a bounded
    /// search over per-axis sizes whose thread ratio is 1, a power of two, or covers the axis
    /// finds the aligned block with the fewest threads, then the least shared memory.
    pub fn enter_shared(&mut self, thread: &[u64]) -> Option<Vec<u64>> {
        if let Some(r) = self.entry_memo.get(thread) {
            return r.clone();
        }
        let b = self.align_up(Device::SHARED, thread, thread);
        let r = match b {
            None => None,
            Some(b) => self
                .enter_shared_greedy(thread, b.clone())
                .or_else(|| self.enter_shared_search(thread, &b)),
        };
        self.entry_memo.insert(thread.to_vec(), r.clone());
        r
    }

    fn enter_shared_search(&mut self, thread: &[u64], b0: &[u64]) -> Option<Vec<u64>> {
        let max = self.dev.max_threads_per_block;
        let spatial: Vec<usize> = (0..b0.len())
            .filter(|&a| !self.expr.axes[a].reduction)
            .collect();
        let mut options: Vec<Vec<u64>> = Vec::new();
        for &a in &spatial {
            let n = self.expr.axes[a].extent;
            let v = self.sizes(Device::SHARED, a, thread[a]);
            let i = v.partition_point(|&s| s < b0[a]);
            let mut o: Vec<u64> = Vec::new();
            let mut covered = false;
            for &s in &v[i..] {
                let r = s / thread[a];
                if r > max {
                    break;
                }
                let covers = s >= n && !covered;
                covered |= s >= n;
                if s == b0[a] || r.is_power_of_two() || covers {
                    o.push(s);
                }
            }
            options.push(o);
        }
        let mut best: Option<(u64, u64, Vec<u64>)> = None;
        let mut budget = 50_000usize;
        let mut c = b0.to_vec();
        self.search_rec(
            thread,
            &spatial,
            &options,
            0,
            1,
            &mut c,
            &mut best,
            &mut budget,
        );
        best.map(|x| x.2)
    }

    #[allow(clippy::too_many_arguments)]
    fn search_rec(
        &self,
        thread: &[u64],
        spatial: &[usize],
        options: &[Vec<u64>],
        i: usize,
        ratio: u64,
        c: &mut Vec<u64>,
        best: &mut Option<(u64, u64, Vec<u64>)>,
        budget: &mut usize,
    ) {
        if *budget == 0 {
            return;
        }
        let lanes = self.lanes();
        if i == spatial.len() {
            *budget -= 1;
            if self.teu_aligned(c, thread) {
                let t = ratio * lanes;
                let f = self.shared_footprint(c, thread);
                if f <= self.dev.layers[Device::SHARED].capacity_bytes
                    && best.as_ref().is_none_or(|(bt, bf, _)| (t, f) < (*bt, *bf))
                {
                    *best = Some((t, f, c.clone()));
                }
            }
            return;
        }
        let a = spatial[i];
        for &s in &options[i] {
            let r = ratio * (s / thread[a]);
            if r * lanes > self.dev.max_threads_per_block {
                break;
            }
            let old = c[a];
            c[a] = s;
            self.search_rec(thread, spatial, options, i + 1, r, c, best, budget);
            c[a] = old;
        }
    }

    fn enter_shared_greedy(&mut self, thread: &[u64], mut b: Vec<u64>) -> Option<Vec<u64>> {
        loop {
            if self.teu_aligned(&b, thread) {
                return Some(b);
            }
            if self.threads(&b, thread) >= self.dev.max_threads_per_block {
                return None;
            }
            let mut best: Option<(u32, u64, Vec<u64>)> = None;
            for a in (0..b.len()).rev() {
                if self.expr.axes[a].reduction {
                    continue;
                }
                let v = self.sizes(Device::SHARED, a, thread[a]);
                let i = v.partition_point(|&s| s <= b[a]);
                let Some(&s) = v.get(i) else { continue };
                let mut c = b.clone();
                c[a] = s;
                let t = self.threads(&c, thread);
                if t > self.dev.max_threads_per_block {
                    continue;
                }
                let twos = t.trailing_zeros();
                let f = self.shared_footprint(&c, thread);
                let better = match &best {
                    None => true,
                    Some((bt, bf, _)) => twos > *bt || (twos == *bt && f < *bf),
                };
                if better {
                    best = Some((twos, f, c));
                }
            }
            b = best?.2;
        }
    }

    /// The previous aligned size of axis `a` below `tile[a]` (for the small-operator shrink).
    pub fn prev_aligned_axis_size(
        &mut self,
        layer: usize,
        a: usize,
        tile: &[u64],
        thread: &[u64],
    ) -> Option<u64> {
        let base = self.base(layer, a, thread)?;
        let v = self.sizes(layer, a, base);
        let i = v.partition_point(|&s| s < tile[a]);
        i.checked_sub(1).map(|j| v[j])
    }

    /// All aligned sizes of axis `a` at `layer` below `tile[a]`, largest first.
    pub fn smaller_aligned_axis_sizes(
        &mut self,
        layer: usize,
        a: usize,
        tile: &[u64],
        thread: &[u64],
    ) -> Vec<u64> {
        let Some(base) = self.base(layer, a, thread) else {
            return Vec::new();
        };
        let v = self.sizes(layer, a, base);
        let i = v.partition_point(|&s| s < tile[a]);
        v[..i].iter().rev().copied().collect()
    }

    /// Raises every axis of `tile` to the smallest aligned size at least as large (entering a
    /// layer: the tile carried down from the layer above must first meet this layer's rules).
    pub fn align_up(&mut self, layer: usize, tile: &[u64], thread: &[u64]) -> Option<Vec<u64>> {
        (0..tile.len())
            .map(|a| {
                let base = self.base(layer, a, thread)?;
                if layer == Device::REGISTER && self.tc.is_some() && base == 1 {
                    return Some(1);
                }
                let v = self.sizes(layer, a, base);
                let i = v.partition_point(|&s| s < tile[a]);
                v.get(i).copied()
            })
            .collect()
    }

    /// The smallest aligned register-layer tile (the initial rTile of Figure 8 line 2).
    pub fn initial_tile(&mut self) -> Option<Vec<u64>> {
        let ones = vec![1; self.expr.axes.len()];
        self.align_up(Device::REGISTER, &ones, &ones)
    }

    /// Threads of a block with shared-layer tile `block` and register-layer tile `thread`
    /// (reduction partitions stay in one thread, §3.2).
    pub fn threads(&self, block: &[u64], thread: &[u64]) -> u64 {
        let per: u64 = self
            .expr
            .axes
            .iter()
            .enumerate()
            .filter(|(_, a)| !a.reduction)
            .map(|(i, _)| block[i] / thread[i].max(1))
            .product();
        per * self.lanes()
    }

    /// Whether the block covers the whole (padded) spatial iteration space.
    pub fn covers_all(&self, block: &[u64]) -> bool {
        self.expr
            .axes
            .iter()
            .zip(block)
            .all(|(a, &s)| a.reduction || s >= a.extent)
    }

    /// *Alignment with the hardware execution unit* (§3.1) for a whole block.
    pub fn teu_aligned(&self, block: &[u64], thread: &[u64]) -> bool {
        let t = self.threads(block, thread);
        if t == 0 || t > self.dev.max_threads_per_block {
            return false;
        }
        if self.covers_all(block) {
            return true;
        }
        let w = self.dev.teu_width;
        if !t.is_multiple_of(w) {
            return false;
        }
        let teus = t / w;
        let g = self.dev.teus_per_core;
        teus.is_multiple_of(g) || g.is_multiple_of(teus)
    }

    /// Storage padding of the shared-layer input data tiles (§3.1 bank rule), per input and
    /// dimension, in elements. Only data tiles with more than one row, each at least `B·L`
    /// bytes wide, are padded.
    pub fn storage_padding(&self, block: &[u64], thread: &[u64]) -> Vec<Vec<u64>> {
        let sh = &self.dev.layers[Device::SHARED];
        if self.direct {
            return self
                .expr
                .inputs
                .iter()
                .map(|t| vec![0; t.shape.len()])
                .collect();
        }
        self.expr
            .inputs
            .iter()
            .map(|t| {
                let big = data_tile(t, block);
                let mut pad = vec![0; big.len()];
                if let (Some(b), Some(l), Some(last)) =
                    (sh.banks, sh.bank_bytes, big.len().checked_sub(1))
                {
                    let rows: u64 = big[..last].iter().product();
                    // Rows narrower than one sweep of the banks are left alone: the formula
                    // would pad each to more than B·L bytes (e.g. 8 floats to 33), multiplying
                    // the tile's footprint (docs/passes/construct-rtile.md).
                    if rows > 1 && big[last] * t.elem_bytes >= b * l {
                        let small = data_tile(t, thread);
                        let bytes = bank_padding(
                            big[last] * t.elem_bytes,
                            small[last] * t.elem_bytes,
                            b,
                            l,
                        );
                        pad[last] = ceil_div(bytes, t.elem_bytes);
                    }
                }
                pad
            })
            .collect()
    }

    /// `MemFootprint` at the shared layer: the input data tiles with storage padding, or nothing
    /// when inputs are loaded directly.
    pub fn shared_footprint(&self, block: &[u64], thread: &[u64]) -> u64 {
        if self.direct {
            0
        } else {
            super::rtile::shared_bytes(self.expr, block, &self.storage_padding(block, thread))
        }
    }

    /// Checks every per-axis rule for a program's tiles; `Err` names the first broken rule.
    pub fn check_axes(&self, block: &[u64], thread: &[u64]) -> Result<(), String> {
        for a in 0..self.expr.axes.len() {
            let name = &self.expr.axes[a].name;
            let (b, t) = (block[a], thread[a]);
            if t == 0 || b % t != 0 {
                return Err(format!(
                    "axis {name}: block {b} is not a multiple of thread {t}"
                ));
            }
            if !within_epsilon(self.expr.axes[a].extent, b, self.epsilon) {
                return Err(format!("axis {name}: padding beyond epsilon"));
            }
            if !self.size_ok(Device::SHARED, a, b, t) {
                return Err(format!(
                    "axis {name}: block size {b} not transaction-aligned"
                ));
            }
            match self.register_base(a) {
                Some(base) if self.tc.is_none() || base > 1 => {
                    if t % base != 0 {
                        return Err(format!(
                            "axis {name}: warp tile {t} not a multiple of {base}"
                        ));
                    }
                }
                _ => {
                    if t != 1 {
                        return Err(format!("axis {name}: tensor-core warp tile must be 1"));
                    }
                }
            }
        }
        Ok(())
    }
}

/// Least common multiple.
pub fn lcm(a: u64, b: u64) -> u64 {
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 { a } else { gcd(b, a % b) }
    }
    if a == 0 || b == 0 {
        return a.max(b);
    }
    a / gcd(a, b) * b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figure5b_bank_padding() {
        // Roller §3.1 / Figure 5(b): a [3, 4] data tile over 4 banks one element wide, read by
        // [3, 1] tiles, gets padding 1.
        assert_eq!(bank_padding(4, 1, 4, 1), 1);
        // The same in bytes with 4-byte elements and 4-byte banks: 4 bytes = 1 element.
        assert_eq!(bank_padding(16, 4, 4, 4), 4);
        // A 32-float row on 32×4 B banks read one float at a time: the classic +1.
        assert_eq!(bank_padding(128, 4, 32, 4), 4);
    }

    #[test]
    fn epsilon_rule() {
        assert_eq!(padding_ratio(1000, 128), 24.0 / 1000.0);
        assert!(within_epsilon(1000, 128, 0.2));
        assert!(!within_epsilon(3, 8, 0.2));
        assert!(within_epsilon(64, 64, 0.0));
    }

    #[test]
    fn next_aligned_sizes_v100_matmul() {
        let dev = Device::builtin("v100").unwrap();
        let e = TensorExprInfo::matmul(1024, 1024, 1024, "f32");
        let mut al = Aligner::new(&e, &dev, 0.0, None);
        let r = al.next_aligned_axis_sizes(Device::REGISTER, &[1, 1, 1], &[1, 1, 1]);
        assert_eq!(r, vec![Some(2), Some(2), Some(2)]);
        // Shared layer over a [4, 4, 1] thread tile: n and k lead B and A, so multiples of
        // 8 floats (32-byte transactions); m must be a multiple of 4.
        // A [32, 32, 8] block of 64 threads grows m or n to the next size that keeps the
        // thread count a multiple of 32 and its 2 warps a factor of the group of 4 (so 64,
        // not 36, 40, 48); k to the next multiple of 8.
        let r = al.next_aligned_axis_sizes(Device::SHARED, &[32, 32, 8], &[4, 4, 1]);
        assert_eq!(r, vec![Some(64), Some(64), Some(16)]);
        assert_eq!(
            al.align_up(Device::SHARED, &[4, 4, 1], &[4, 4, 1]),
            Some(vec![4, 8, 8])
        );
    }

    #[test]
    fn tensor_core_mapping() {
        let dev = Device::builtin("a100").unwrap();
        let e = TensorExprInfo::matmul(512, 512, 512, "f16").with_mma_inputs("f16");
        let tc = tensor_core_map_for(&e, &dev, None).unwrap();
        assert_eq!(tc.axes, [0, 1, 2]);
        assert_eq!(tc.shape, [16, 8, 16]);
        assert_eq!(tc.warps, 1);
        // An f16 matmul accumulating in f16, and an f32 one, stay off the tensor cores.
        let plain = TensorExprInfo::matmul(512, 512, 512, "f16");
        assert!(tensor_core_maps(&plain, &dev).is_empty());
        assert!(tensor_core_maps(&TensorExprInfo::matmul(64, 64, 64, "f32"), &dev).is_empty());
        assert!(tensor_core_maps(&e, &Device::builtin("k80").unwrap()).is_empty());
        let h100 = tensor_core_maps(&e, &Device::builtin("h100").unwrap());
        assert_eq!((h100[0].shape, h100[0].warps), ([64, 8, 16], 4));
        let mi = tensor_core_maps(&e, &Device::builtin("mi250x").unwrap());
        let shapes: Vec<[u64; 3]> = mi.iter().map(|m| m.shape).collect();
        assert_eq!(shapes, [[32, 32, 8], [16, 16, 16]]);
        assert_eq!(
            tensor_core_map_for(&e, &Device::builtin("v100").unwrap(), None).map(|m| m.shape),
            Some([8, 8, 4])
        );
    }
}
