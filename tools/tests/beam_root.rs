//! The map from a lowered kernel (`gpu.func @<func>_<i>`) to the search's kernel (its root
//! stage) that `rtile-bench records --measured` relies on (docs/passes/autoschedule-beam.md,
//! "Retraining"): every launch of a lowered `--autoschedule-beam` schedule carries the
//! `beam.root` of the `tilegraph.kernel` it came from, the roots launched are exactly the
//! search's kernels, and each launch's grid is that root's tiling's blocks (and its block
//! a multiple of the tiling's threads) from the search's own `Loc::Root`: an independent
//! check that the attribute names the right kernel.

use std::collections::BTreeSet;
use std::sync::Arc;

use rtile::ir::Context;
use rtile::parser::parse_str;
use rtile_passes::autoschedule_beam::pipeline::Pipeline;
use rtile_passes::autoschedule_beam::search::{SearchOptions, search};
use rtile_passes::autoschedule_beam::space::Loc;
use rtile_passes::device::Device;
use rtile_tools::dialect_registry;
use rtile_tools::measured::lowered_launches;

/// The search's outcome for the one function of `text`: (pipeline, root → tiling).
fn searched(text: &str, dev: &Device, beam: usize) -> Vec<(usize, u64, u64)> {
    let mut ctx = Context::new(Arc::new(dialect_registry()));
    let module = parse_str(&mut ctx, "p.mlir", text).unwrap().module;
    let f = ctx
        .collect_ops(module)
        .into_iter()
        .find(|&o| ctx.op_name(o) == "func.func")
        .unwrap();
    let b = ctx.region_blocks(ctx.regions(f)[0])[0];
    let ops: Vec<_> = ctx.block_ops(b).collect();
    let p = Pipeline::build(&ctx, &ops).unwrap();
    let opts = SearchOptions {
        beam,
        ..SearchOptions::default()
    };
    let o = search(&p, dev, &opts).unwrap();
    o.locs
        .iter()
        .enumerate()
        .filter_map(|(r, l)| match l {
            Loc::Root(Some(t)) => {
                Some((r, t.blocks(p.extents(r)).iter().product(), t.num_threads()))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn every_launch_names_its_search_kernel() {
    let dev = Device::builtin("h100").unwrap();
    let mut files: Vec<_> = std::fs::read_dir("../bench/pipelines")
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with("_small.mlir"))
        .collect();
    files.sort();
    assert!(files.len() >= 8, "{files:?}");
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for beam in [1, 32] {
            let what = format!("{} beam {beam}", f.display());
            let roots = searched(&text, &dev, beam);
            let (_, launches) = lowered_launches("p.mlir", &text, "h100", beam, None).unwrap();
            let launched: BTreeSet<usize> = launches
                .iter()
                .map(|l| {
                    l.root
                        .unwrap_or_else(|| panic!("{what}: {l:?} has no root"))
                })
                .collect();
            let want: BTreeSet<usize> = roots.iter().map(|r| r.0).collect();
            assert_eq!(launched, want, "{what}");
            for l in &launches {
                let &(_, blocks, threads) = roots.iter().find(|r| Some(r.0) == l.root).unwrap();
                let grid: u64 = l.grid.iter().map(|&g| g as u64).product();
                let block: u64 = l.block.iter().map(|&b| b as u64).product();
                // The grid is the tiling's; the block its threads, times the threads a
                // cross-thread reduction adds (lower-to-gpu's `cross-thread`).
                assert_eq!(grid, blocks, "{what}: {l:?}");
                assert_eq!(block % threads, 0, "{what}: {l:?} ({threads} threads)");
            }
        }
    }
}
