//! The searched schedules of every small pipeline, pinned: optimizations of the search
//! (docs/passes/autoschedule-beam.md, "Search speed") must not change the result for a
//! seed. `beam_pins.txt` was written by the search before those optimizations
//! (`RTILE_BLESS_BEAM_PINS=1 cargo test -p rtile-tools --test beam_pins` rewrites it).

use rtile::ir::OpId;
use rtile_dialects::te::module::{new_context, parse_and_verify};
use rtile_passes::autoschedule_beam::pipeline::Pipeline;
use rtile_passes::autoschedule_beam::search::{Fusion, SearchOptions, search};
use rtile_passes::device::Device;

const PINS: &str = "tests/beam_pins.txt";

/// One line per (pipeline, options): cost, states evaluated, every stage's location.
fn schedules() -> String {
    let dev = Device::builtin("v100").expect("v100");
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../bench/pipelines");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("bench/pipelines")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with("_small.mlir"))
        .collect();
    files.sort();
    let mut out = String::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("readable");
        let mut ctx = new_context();
        let m = parse_and_verify(&mut ctx, "pin.mlir", &text).expect("valid");
        let func = ctx
            .collect_ops(m)
            .into_iter()
            .find(|&o| ctx.op_name(o) == "func.func")
            .expect("a function");
        let b = ctx.region_blocks(ctx.regions(func)[0])[0];
        let ops: Vec<OpId> = ctx.block_ops(b).collect();
        let p = Pipeline::build(&ctx, &ops).expect("a pipeline");
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        for (tag, opts) in [
            (
                "k1",
                SearchOptions {
                    beam: 1,
                    ..SearchOptions::default()
                },
            ),
            ("k32", SearchOptions::default()),
            (
                "k32-register-nolimits",
                SearchOptions {
                    fusion: Fusion::Register,
                    lowering_limits: false,
                    ..SearchOptions::default()
                },
            ),
            (
                "k8-seed3",
                SearchOptions {
                    beam: 8,
                    seed: 3,
                    ..SearchOptions::default()
                },
            ),
        ] {
            let o = search(&p, &dev, &opts).expect("schedules");
            out += &format!(
                "{name} {tag} cost={:e} states={} frozen={} locs={:?}\n",
                o.cost, o.states_evaluated, o.frozen, o.locs
            );
        }
    }
    out
}

#[test]
fn searched_schedules_are_pinned() {
    let got = schedules();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/beam_pins.txt");
    if std::env::var_os("RTILE_BLESS_BEAM_PINS").is_some() {
        std::fs::write(path, &got).expect("writable");
        return;
    }
    let want = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{PINS}: {e}"));
    for (g, w) in got.lines().zip(want.lines()) {
        assert_eq!(g, w);
    }
    assert_eq!(got.lines().count(), want.lines().count());
}
