//! `--construct-rtile`: attaches Roller's top-k rPrograms to every `te.compute`
//! (docs/passes/construct-rtile.md).

use std::path::Path;

use rtile::diagnostics::{Diagnostic, render};
use rtile::ir::{Context, OpId};
use rtile::pass::{OptionKind, Pass, PassOptionSpec, PassOptions, PassStatistics};
use rtile_dialects::rtile::set_programs;
use rtile_dialects::te::ir::compute_from_op;
use rtile_dialects::te::walk::compute_ops;

use super::construct::{ConstructOptions, construct};
use super::te_adapter::expr_from_compute;
use crate::device::Device;

static OPTIONS: &[PassOptionSpec] = &[
    PassOptionSpec {
        name: "device",
        kind: OptionKind::String,
        default: "",
        description: "built-in device: v100, k80, mi50, a100, h100, h200, mi250x",
    },
    PassOptionSpec {
        name: "device-file",
        kind: OptionKind::String,
        default: "",
        description: "a TOML device description (passes/devices/*.toml schema) instead",
    },
    PassOptionSpec {
        name: "top-k",
        kind: OptionKind::Int,
        default: "10",
        description: "rPrograms to construct per compute (Figure 8 TopK)",
    },
    PassOptionSpec {
        name: "epsilon",
        kind: OptionKind::Float,
        default: "0.2",
        description: "initial tensor-padding bound (Roller §3.1)",
    },
    PassOptionSpec {
        name: "epsilon-max",
        kind: OptionKind::Float,
        default: "1.0",
        description: "epsilon grows by 0.2 up to this bound (at most 1) while fewer than top-k programs exist",
    },
    PassOptionSpec {
        name: "tensor-core",
        kind: OptionKind::Bool,
        default: "true",
        description: "use tensor cores for f16/bf16/i8 contractions when the device has them",
    },
];

/// The pass.
pub struct ConstructRtile {
    opts: PassOptions,
}

impl Default for ConstructRtile {
    fn default() -> Self {
        ConstructRtile {
            opts: PassOptions::new(OPTIONS),
        }
    }
}

impl ConstructRtile {
    /// The device the options name, and the file it came from.
    fn device(&self, ctx: &Context, op: OpId) -> Result<(Device, Option<String>), Diagnostic> {
        let name = self.opts.get_str("device");
        let file = self.opts.get_str("device-file");
        let err = |m: String| Diagnostic::error(ctx.op(op).span, m);
        match (name.is_empty(), file.is_empty()) {
            (true, true) => Err(err(format!(
                "construct-rtile needs device=<name> or device-file=<path>; built-in devices are: {}",
                Device::builtin_names().join(", ")
            ))),
            (false, false) => Err(err(
                "construct-rtile takes device= or device-file=, not both".into(),
            )),
            (false, true) => Device::builtin(name)
                .map(|d| (d, None))
                .map_err(|e| err(e.message)),
            (true, false) => Device::from_file(Path::new(file))
                .map(|d| (d, Some(file.to_string())))
                .map_err(|e| err(e.message)),
        }
    }
}

impl Pass for ConstructRtile {
    fn name(&self) -> &'static str {
        "construct-rtile"
    }
    fn display_name(&self) -> &'static str {
        "ConstructRTile"
    }
    fn description(&self) -> &'static str {
        "Attach Roller's top-k rPrograms (rtile.programs, best first) to every te.compute"
    }
    fn options(&self) -> &[PassOptionSpec] {
        self.opts.specs()
    }
    fn set_option(&mut self, key: &str, value: &str) -> Result<(), String> {
        self.opts.set(key, value)?;
        if key == "top-k" && self.opts.get_int("top-k") < 1 {
            return Err("top-k must be at least 1".into());
        }
        let x = self.opts.get_float(key);
        let max = rtile_dialects::rtile::verify::MAX_EPSILON;
        if key.starts_with("epsilon") && !(0.0..=max).contains(&x) {
            return Err(format!("{key} must be a number in [0, {max}]"));
        }
        Ok(())
    }
    fn run(
        &mut self,
        ctx: &mut Context,
        op: OpId,
        stats: &mut PassStatistics,
    ) -> Result<(), Diagnostic> {
        let (dev, file) = self.device(ctx, op)?;
        let opts = ConstructOptions {
            top_k: self.opts.get_int("top-k").max(1) as usize,
            epsilon: self.opts.get_float("epsilon"),
            epsilon_max: self.opts.get_float("epsilon-max"),
            tensor_core: self.opts.get_bool("tensor-core"),
            ..ConstructOptions::default()
        };
        let computes = compute_ops(ctx, op);
        stats.declare("computes", "te.compute ops given rPrograms");
        stats.declare("skipped", "te.compute ops the construction cannot handle");
        stats.declare("programs", "rPrograms attached");
        for c in computes {
            let built = compute_from_op(ctx, c)
                .and_then(|(tc, _)| expr_from_compute(&tc).map(|e| (tc, e)))
                .and_then(|(tc, e)| construct(&e, &dev, &opts).map(|r| (tc, r)));
            match built {
                Ok((tc, r)) if !r.programs.is_empty() => {
                    let own: Vec<String> = tc.axes.iter().map(|a| a.name.clone()).collect();
                    let mut progs = r.programs;
                    for p in &mut progs {
                        p.device_file = file.clone();
                    }
                    set_programs(ctx, c, &progs, &own);
                    stats.add("computes", "te.compute ops given rPrograms", 1);
                    stats.add("programs", "rPrograms attached", progs.len() as u64);
                }
                other => {
                    let why = match other {
                        Err(m) => m,
                        Ok(_) => format!("no rProgram fits on '{}'", dev.name),
                    };
                    // A remark, not an error: the op stays as it is and the pipeline goes on.
                    let d = Diagnostic::remark(
                        ctx.op(c).span,
                        format!("construct-rtile: op left unchanged: {why}"),
                    );
                    eprint!("{}", render(ctx, &d));
                    stats.add(
                        "skipped",
                        "te.compute ops the construction cannot handle",
                        1,
                    );
                }
            }
        }
        Ok(())
    }
}
