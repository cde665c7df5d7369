//! rTile analysis (Roller §3.1, Figure 3): from a tile shape over the expression's axes, the
//! input and output data tiles it touches, how many tiles cover the iteration space, the memory
//! footprint at a layer (including storage padding) and the memory traffic (§3.3 MemFootprint,
//! MemTraffic).

use super::expr_info::{TensorAccess, TensorExprInfo};

/// `⌈a / b⌉` for positive `b`.
pub fn ceil_div(a: u64, b: u64) -> u64 {
    a.div_ceil(b.max(1))
}

/// An rTile (Figure 3): a shape over the expression's axes plus storage padding for each input
/// data tile (one entry per input dimension; only the leading dimension is ever padded, §3.1
/// "alignment with memory bank").
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RTile {
    /// Tile size per axis of the expression.
    pub shape: Vec<u64>,
    /// Storage padding per input tensor, per dimension (empty when the layer has no banks).
    pub storage_padding: Vec<Vec<u64>>,
}

impl RTile {
    /// A tile without storage padding.
    pub fn new(shape: Vec<u64>) -> Self {
        RTile {
            shape,
            storage_padding: Vec::new(),
        }
    }
}

/// The data tile of one tensor touched by an rTile of `shape` (Figure 4: the `[4, 4, 2]`
/// MatMul rTile touches `4×2` of A, `2×4` of B, `4×4` of C). Halos of stencils and stride gaps
/// follow from the affine index (`AffineIndex::span`); a data tile is never larger than the
/// tensor dimension it covers unless the tile itself is padded past the tensor.
pub fn data_tile(t: &TensorAccess, shape: &[u64]) -> Vec<u64> {
    t.indices.iter().map(|i| i.span(shape)).collect()
}

/// Input data tiles (Figure 3 `GetInputDataTiles`).
pub fn input_data_tiles(e: &TensorExprInfo, shape: &[u64]) -> Vec<Vec<u64>> {
    e.inputs.iter().map(|t| data_tile(t, shape)).collect()
}

/// Output data tile (Figure 3 `GetOutputDataTiles`).
pub fn output_data_tile(e: &TensorExprInfo, shape: &[u64]) -> Vec<u64> {
    data_tile(&e.output, shape)
}

/// Number of tiles of `shape` covering the (padded) iteration space, over all axes.
pub fn num_tiles(e: &TensorExprInfo, shape: &[u64]) -> u64 {
    e.axes
        .iter()
        .zip(shape)
        .map(|(a, &s)| ceil_div(a.extent, s))
        .product()
}

/// Number of tiles over the spatial axes only: the scale-out grid (§3.2; reduction partitions
/// stay on one execution unit).
pub fn num_spatial_tiles(e: &TensorExprInfo, shape: &[u64]) -> u64 {
    e.axes
        .iter()
        .zip(shape)
        .filter(|(a, _)| !a.reduction)
        .map(|(a, &s)| ceil_div(a.extent, s))
        .product()
}

/// Elements of a data tile, with optional padding per dimension.
pub fn tile_elems(tile: &[u64], pad: Option<&[u64]>) -> u64 {
    tile.iter()
        .enumerate()
        .map(|(d, &x)| x + pad.and_then(|p| p.get(d)).copied().unwrap_or(0))
        .product()
}

/// Elements of all input data tiles of one rTile (no padding).
pub fn input_elems(e: &TensorExprInfo, shape: &[u64]) -> u64 {
    e.inputs
        .iter()
        .map(|t| tile_elems(&data_tile(t, shape), None))
        .sum()
}

/// Bytes of all input data tiles of one rTile (no padding): what one Load moves.
pub fn input_bytes(e: &TensorExprInfo, shape: &[u64]) -> u64 {
    e.inputs
        .iter()
        .map(|t| tile_elems(&data_tile(t, shape), None) * t.elem_bytes)
        .sum()
}

/// Total input elements read when the whole computation runs in the granularity of `shape`
/// (Figure 1: `2mnk`, `1.25mnk`, `0.5mnk` for the tiles of (a), (b), (c)).
pub fn total_input_reads(e: &TensorExprInfo, shape: &[u64]) -> u64 {
    num_tiles(e, shape) * input_elems(e, shape)
}

/// `Q(T)` (§3.1, MemTraffic of §3.3): bytes moved into the layer holding `shape`-tiles from the
/// layer below over the whole computation: every tile loads its input data tiles, and every
/// output tile is stored once.
pub fn mem_traffic(e: &TensorExprInfo, shape: &[u64]) -> u64 {
    let loads = num_tiles(e, shape) * input_bytes(e, shape);
    let stores = num_spatial_tiles(e, shape)
        * tile_elems(&output_data_tile(e, shape), None)
        * e.output.elem_bytes;
    loads + stores
}

/// Data reuse score (§3.1) of enlarging `T` to `T'`: `S = (Q(T) − Q(T')) / (F(T') − F(T))`
/// from the traffic `q = (Q(T), Q(T'))` and footprint `f = (F(T), F(T'))`. A saving with no
/// footprint growth scores +∞, no saving scores 0.
pub fn data_reuse_score(q: (f64, f64), f: (f64, f64)) -> f64 {
    let (dq, df) = (q.0 - q.1, f.1 - f.0);
    if df <= 0.0 {
        if dq > 0.0 { f64::INFINITY } else { 0.0 }
    } else {
        dq / df
    }
}

/// Registers a thread needs beyond its data and accumulator tiles: tile and thread
/// coordinates, global and shared addresses, loop counters. Roller §3.3 sizes the register
/// layer by the tile data alone; without this headroom a block whose data registers fill
/// the register file exactly (H100: 768 threads × 80) makes ptxas spill (Table-1 m2 and bmm
/// spilled 92 and 4 bytes at 80 registers). 24 is the least that leaves every top-10
/// program of the full-size Table-1 suite on H100 spill-free (16 left m2's 8x8 tile
/// at 640 threads and d2's 110-register tile at 512 spilling 4–12 bytes).
pub const THREAD_REGISTER_OVERHEAD: u64 = 24;

/// 32-bit registers one thread of a block is allocated for a register-layer tile needing
/// `register_bytes`: the data, [`THREAD_REGISTER_OVERHEAD`], rounded up to the allocation
/// granularity of 8 registers per thread (256 per warp) of NVIDIA and AMD hardware.
pub fn thread_registers(register_bytes: u64) -> u64 {
    (ceil_div(register_bytes, 4) + THREAD_REGISTER_OVERHEAD).next_multiple_of(8)
}

/// Registers (32-bit) one thread needs for an rTile of `shape` at the register layer: its input
/// data tiles and its output (accumulator) tile. With tensor cores the tile belongs to a warp
/// of `lanes` threads and is spread over them.
pub fn register_bytes(e: &TensorExprInfo, shape: &[u64], lanes: u64) -> u64 {
    let regs = |elems: u64, bytes: u64| ceil_div(elems * bytes, 4);
    let mut r: u64 = e
        .inputs
        .iter()
        .map(|t| regs(tile_elems(&data_tile(t, shape), None), t.elem_bytes))
        .sum();
    // Accumulators are at least 32 bits wide.
    r += regs(
        tile_elems(&output_data_tile(e, shape), None),
        e.output.elem_bytes.max(4),
    );
    ceil_div(r, lanes.max(1)) * 4
}

/// Shared-memory bytes of the input data tiles of an rTile of `shape`, with storage padding
/// (`pad[i][d]` added to dimension `d` of input `i`). Output tiles go from registers straight
/// to global memory (Figure 6), so they take no shared memory.
pub fn shared_bytes(e: &TensorExprInfo, shape: &[u64], pad: &[Vec<u64>]) -> u64 {
    e.inputs
        .iter()
        .enumerate()
        .map(|(i, t)| {
            tile_elems(&data_tile(t, shape), pad.get(i).map(|p| p.as_slice())) * t.elem_bytes
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figure4_matmul_data_tiles() {
        // Roller §3.1 / Figure 4: the [4, 4, 2] rTile over (i, j, k) loads 4×2 of A, 2×4 of B,
        // does 4·4·2 multiply-adds and stores 4×4 of C.
        let e = TensorExprInfo::matmul(64, 64, 64, "f32");
        let t = [4, 4, 2];
        assert_eq!(input_data_tiles(&e, &t), vec![vec![4, 2], vec![2, 4]]);
        assert_eq!(output_data_tile(&e, &t), vec![4, 4]);
        assert_eq!(t.iter().product::<u64>(), 32);
    }

    #[test]
    fn figure1_total_reads() {
        // Roller §2 / Figure 1: 2mnk (1×1 tiles), 1.25mnk (1×4 along n), 0.5mnk (4×4).
        let (m, n, k) = (64u64, 128u64, 32u64);
        let e = TensorExprInfo::matmul(m, n, k, "f32");
        let mnk = m * n * k;
        assert_eq!(total_input_reads(&e, &[1, 1, 1]), 2 * mnk);
        assert_eq!(total_input_reads(&e, &[1, 4, 1]) * 4, 5 * mnk);
        assert_eq!(total_input_reads(&e, &[4, 4, 1]) * 2, mnk);
        // The reduction extent of the tile does not change the count (a whole row and column).
        assert_eq!(total_input_reads(&e, &[1, 1, k]), 2 * mnk);
    }

    #[test]
    fn reuse_score_prefers_spatial_growth_in_registers() {
        // At the register layer, a longer k step moves the same bytes (Q unchanged, S = 0);
        // a taller m tile reuses each B element more (S > 0).
        let e = TensorExprInfo::matmul(256, 256, 256, "f32");
        let s = |t: &[u64], t2: &[u64]| {
            data_reuse_score(
                (mem_traffic(&e, t) as f64, mem_traffic(&e, t2) as f64),
                (
                    register_bytes(&e, t, 1) as f64,
                    register_bytes(&e, t2, 1) as f64,
                ),
            )
        };
        assert_eq!(s(&[4, 4, 1], &[4, 4, 2]), 0.0);
        assert!(s(&[4, 4, 1], &[8, 4, 1]) > 0.0);
    }

    #[test]
    fn conv_halo_and_stride() {
        let e = TensorExprInfo::conv2d_nchw(1, 8, 30, 30, 16, 3, 3, 2, 0, "f32");
        // y, x tiles of 4 with stride 2 and the full 3×3 window: 2·3 + 2 + 1 = 9 rows/cols.
        let t = [1, 16, 4, 4, 8, 3, 3];
        assert_eq!(input_data_tiles(&e, &t)[0], vec![1, 8, 9, 9]);
        assert_eq!(input_data_tiles(&e, &t)[1], vec![16, 8, 3, 3]);
    }

    #[test]
    fn traffic_decreases_with_reuse() {
        let e = TensorExprInfo::matmul(256, 256, 256, "f32");
        assert!(mem_traffic(&e, &[8, 8, 8]) < mem_traffic(&e, &[4, 4, 8]));
        assert_eq!(
            shared_bytes(&e, &[4, 4, 2], &[vec![0, 1], vec![0, 1]]),
            (4 * 3 + 2 * 5) * 4
        );
    }
}
