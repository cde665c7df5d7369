//! Any input that parses and verifies must go through each of rtile-opt's pass pipelines
//! without a panic: a pass may refuse the input (an error diagnostic), never crash on it.
//! The pipelines are built as `rtile-opt` builds them from its pass flags
//! (`rtile::pass::pipeline_from_flags` over `rtile_passes::pass_registry`, the dialects of
//! `rtile_passes::dialect_registry`, verify-each on), each on a fresh parse of the input.
//! The corpus is seeded from the lit tests and `bench/` (see `fuzz/run-fuzz-passes.sh`).
//!
//! A pass's work grows with the extents of what it schedules, so inputs whose tensors are
//! larger than any model the tools are meant for are skipped ([`MAX_ELEMENTS`]); libFuzzer's
//! `-timeout` catches what is slow on the rest.
#![no_main]

use std::sync::{Arc, LazyLock};

use libfuzzer_sys::fuzz_target;
use rtile::dialect::DialectRegistry;
use rtile::ir::{Context, OpId, Type};
use rtile::parser::parse_source;
use rtile::pass::{PassManager, PassRegistry, pipeline_from_flags};
use rtile::printer::{PrintOptions, print_op};
use rtile::verifier::verify;
use rtile_passes::print_op_stats::PrintOpStats;

/// Inputs with a shaped value of more elements than this (2^32: a 64k × 64k matrix) are
/// skipped: legitimately slow to schedule, not malformed.
const MAX_ELEMENTS: i64 = 1 << 32;

/// The pipelines run on every input, as rtile-opt pass flags in command-line order. Every
/// scheduling pass is also followed by the lowering, which reads what it wrote.
const PIPELINES: &[&[(&str, &str)]] = &[
    &[("symbol-dce", "")],
    &[("print-op-stats", "json=true")],
    &[("axis-fusion", "")],
    &[("tensor-padding", "")],
    &[("tensor-padding", "tile=8,8 epsilon=0.5")],
    &[("lower-to-gpu", "")],
    &[("lower-to-gpu", "tensor-core=wgmma")],
    &[
        ("construct-rtile", "device=h100 top-k=2"),
        ("rtile-select", ""),
        ("lower-to-gpu", "tensor-core=wgmma"),
    ],
    &[
        ("construct-rtile", "device=v100 top-k=2"),
        ("rtile-select", "rank=1"),
        ("lower-to-gpu", ""),
    ],
    &[
        ("axis-fusion", ""),
        ("construct-rtile", "device=a100 top-k=1"),
    ],
    &[("connect", "device=h100 top-k=2"), ("lower-to-gpu", "")],
    &[
        ("fold-reshapes", ""),
        ("connect", "device=h100 top-k=2"),
        ("lower-to-gpu", ""),
    ],
    &[
        ("connect", "device=v100 top-k=2 connect-level=register"),
        ("lower-to-gpu", ""),
    ],
    &[
        ("autoschedule-beam", "device=v100 beam-size=2"),
        ("lower-to-gpu", ""),
    ],
    &[
        ("wavefront-pack", "device=v100 top-k=2"),
        ("lower-to-gpu", ""),
    ],
    &[(
        "wavefront-pack",
        "device=h100 launch-us=5 merge=false barriers=global",
    )],
];

struct Registries {
    dialects: Arc<DialectRegistry>,
    passes: PassRegistry,
}

static REGISTRIES: LazyLock<Registries> = LazyLock::new(|| {
    let mut passes = rtile_passes::pass_registry();
    // The same pass, printing its table nowhere instead of on stderr (the fuzzer's log).
    passes.register(|| Box::new(PrintOpStats::with_output(Box::new(std::io::sink()))));
    Registries {
        dialects: Arc::new(rtile_passes::dialect_registry()),
        passes,
    }
});

/// Parses and verifies `text` as rtile-opt does (no unregistered ops).
fn parse(text: &str) -> Option<(Context, OpId)> {
    let mut ctx = Context::new(REGISTRIES.dialects.clone());
    let file = ctx.add_source("fuzz.mlir", text.to_string());
    let module = parse_source(&mut ctx, file).ok()?.module;
    verify(&ctx, module).ok()?;
    Some((ctx, module))
}

/// Elements of `t` when it is shaped with a static shape (saturating), else 0.
fn elements(t: &Type) -> i64 {
    match t.shape() {
        Some(s) if s.iter().all(|&d| d >= 0) => s.iter().fold(1i64, |a, &d| a.saturating_mul(d)),
        _ => 0,
    }
}

/// The largest shaped value (result or block argument) of the module, in elements.
fn largest_value(ctx: &Context, module: OpId) -> i64 {
    let mut most = 0;
    for op in ctx.collect_ops(module) {
        for &v in ctx.results(op) {
            most = most.max(elements(ctx.value_type(v)));
        }
        for &r in ctx.regions(op) {
            for &b in ctx.region_blocks(r) {
                for &v in ctx.block_args(b) {
                    most = most.max(elements(ctx.value_type(v)));
                }
            }
        }
    }
    most
}

/// Runs one pipeline on a fresh parse of `text`; an error is fine, a panic is the bug.
/// What the passes return must print.
fn run_pipeline(text: &str, flags: &[(&str, &str)]) {
    let Some((mut ctx, module)) = parse(text) else {
        return;
    };
    let flags: Vec<(String, String)> = flags
        .iter()
        .map(|(n, o)| (n.to_string(), o.to_string()))
        .collect();
    let root = pipeline_from_flags(&mut ctx, &REGISTRIES.passes, "builtin.module", &flags)
        .unwrap_or_else(|d| panic!("the fuzz pipeline {flags:?} does not build: {}", d.message));
    let mut pm = PassManager::new(root);
    pm.set_output(Box::new(std::io::sink()));
    if pm.run_all_diagnostics(&mut ctx, module).is_ok() {
        let _ = print_op(&ctx, module, &PrintOptions::default());
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Some((ctx, module)) = parse(text) else {
        return;
    };
    if largest_value(&ctx, module) > MAX_ELEMENTS {
        return;
    }
    drop(ctx);
    for flags in PIPELINES {
        run_pipeline(text, flags);
    }
});
