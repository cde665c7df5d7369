//! The block program of a `tilegraph.kernel`'s anchor from its tiles (Welder §4.1: one
//! block for all stages, the tiles chosen for the whole kernel), and the thread tile the
//! lowering and `--connect` take when no register tile was chosen.

use rtile::ir::{Context, OpId};
use rtile_dialects::te::model::TeCompute;
use rtile_dialects::tilegraph::{LayerTiles, Level, TILES};

use crate::construct_rtile::RProgram;

/// The program of `anchor` from its tiles (`tilegraph.tiles`): the shared tile is the
/// block's, the register tile the thread's, over the compute's own axes (Welder §4.1: the
/// tiles were chosen for the whole kernel, so every stage runs with this one block).
pub(super) fn program_from_tiles(
    ctx: &Context,
    op: OpId,
    c: &TeCompute,
    device: &str,
) -> Result<RProgram, String> {
    let tiles = ctx
        .attr(op, TILES)
        .ok_or_else(|| "has no 'tilegraph.tiles' (run --connect)".to_string())
        .and_then(LayerTiles::from_attr)?;
    program_of_tiles(&tiles, c, device)
}

/// [`program_from_tiles`] of tiles already read (`--connect` asks it of the tiles it is
/// about to write, to know what the lowering will run).
pub(crate) fn program_of_tiles(
    tiles: &LayerTiles,
    c: &TeCompute,
    device: &str,
) -> Result<RProgram, String> {
    let n = c.axes.len();
    let Some(block) = tiles.get(Level::Shared) else {
        return Err("'tilegraph.tiles' needs a shared tile".into());
    };
    let default_thread;
    let thread = match tiles.get(Level::Register) {
        Some(t) => t,
        None => {
            default_thread = default_thread_tile(block, c.num_parallel());
            &default_thread
        }
    };
    if block.len() != n || thread.len() != n {
        return Err(format!(
            "'tilegraph.tiles' has tiles of rank {} and {}, the compute {n} axes",
            block.len(),
            thread.len()
        ));
    }
    let np = c.num_parallel();
    let mut threads = 1;
    let mut grid = Vec::new();
    for a in 0..np {
        if thread[a] == 0 || block[a] % thread[a] != 0 {
            return Err(format!(
                "axis {a}: the register tile {} does not divide the shared tile {}",
                thread[a], block[a]
            ));
        }
        threads *= block[a] / thread[a];
        grid.push((c.axes[a].extent.max(1) as u64).div_ceil(block[a]));
    }
    let mut p = RProgram::manual(
        device,
        block,
        thread,
        c.inputs.iter().map(|t| vec![0; t.shape.len()]).collect(),
        threads,
    );
    p.grid = grid;
    p.staged = c.combiner.is_some();
    Ok(p)
}

/// The thread tile of an op whose consumer edges were all decided at the shared level
/// (`--connect` then chooses no register tile for it): one point per thread, the points
/// doubled along the largest spatial axis that still divides while the block would have
/// more than [`MAX_DEFAULT_THREADS`] threads; when no axis's threads are even, the
/// largest one's smallest prime factor instead (an odd block extent such as harris's
/// 1279 columns would otherwise keep more threads than a block may have). Reduction
/// axes: one point per step.
pub(crate) fn default_thread_tile(block: &[u64], np: usize) -> Vec<u64> {
    let mut t = vec![1u64; block.len()];
    let threads = |t: &[u64]| (0..np).map(|a| block[a] / t[a]).product::<u64>();
    let smallest_factor = |n: u64| (2..=n).find(|f| n.is_multiple_of(*f)).unwrap_or(n);
    while threads(&t) > MAX_DEFAULT_THREADS {
        let even = (0..np)
            .filter(|&a| (block[a] / t[a]).is_multiple_of(2))
            .max_by_key(|&a| block[a] / t[a]);
        let Some(a) = even.or_else(|| (0..np).max_by_key(|&a| block[a] / t[a])) else {
            break;
        };
        let n = block[a] / t[a];
        if n < 2 {
            break;
        }
        t[a] *= if n.is_multiple_of(2) {
            2
        } else {
            smallest_factor(n)
        };
    }
    t
}

/// The most threads [`default_thread_tile`] gives a block.
const MAX_DEFAULT_THREADS: u64 = 256;

#[cfg(test)]
mod tests {
    use super::*;

    /// The default thread tile divides the block on every axis and leaves at most
    /// [`MAX_DEFAULT_THREADS`] threads, also when no axis's extent is even (a prime
    /// extent becomes one thread's row).
    #[test]
    fn default_thread_tiles_divide_odd_blocks() {
        for (block, want) in [
            (vec![1u64, 1279], vec![1u64, 1279]),
            (vec![1, 1155], vec![1, 15]),
            (vec![4, 1278], vec![4, 6]),
            (vec![16, 16], vec![1, 1]),
            (vec![8, 64, 3], vec![1, 2, 1]),
        ] {
            let np = if block.len() == 3 { 2 } else { block.len() };
            let t = default_thread_tile(&block, np);
            assert_eq!(t, want, "{block:?}");
            let threads: u64 = (0..np).map(|a| block[a] / t[a]).product();
            assert!(threads <= MAX_DEFAULT_THREADS, "{block:?}: {threads}");
            assert!((0..np).all(|a| block[a] % t[a] == 0), "{block:?}");
        }
    }
}
