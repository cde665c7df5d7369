//! The kernel `--connect` gives one te op alone: its best plan with every input from
//! global memory (Welder-none's kernel for it, §3.1's SubGraphTiling on a one-op
//! sub-graph), as a program. `--lower-to-gpu` gives it to a compute Roller's construction
//! leaves unchanged (reads its rTile model cannot express: `mod`, a `floordiv` inside a
//! sum), and `--wavefront-pack` makes it such an op's one rKernel.

use rtile::ir::{Context, OpId};
use rtile_dialects::tilegraph::Level;

use crate::construct_rtile::RProgram;
use crate::device::Device;
use crate::lower_to_gpu::tile_program::program_of_tiles;

/// [`alone_program`]'s result.
pub(crate) struct AloneProgram {
    /// The program of the plan's tiles (no recorded footprint).
    pub program: RProgram,
    /// The compute's own axis names.
    pub axes: Vec<String>,
    /// The connect model's estimate of the kernel, µs.
    pub est_us: f64,
}

/// The program of `op` as `--connect` tiles it alone on `device`.
pub(crate) fn alone_program(
    ctx: &Context,
    op: OpId,
    device: &Device,
) -> Result<AloneProgram, String> {
    let g = super::graph::build_graph(ctx, &[op])?;
    let node = g.nodes.first().ok_or("not a te.compute")?;
    let (c, _) = node.compute.as_ref().ok_or("not a te.compute")?;
    let levels = vec![vec![Level::Global; node.inputs.len()]];
    let plan = super::tiling::best_plan(&g, &[0], &levels, device, 8)?;
    let tiles = plan.tiles.first().ok_or("no tiles")?;
    Ok(AloneProgram {
        program: program_of_tiles(tiles, c, &device.name)?,
        axes: c.axes.iter().map(|a| a.name.clone()).collect(),
        est_us: plan.est_us,
    })
}
