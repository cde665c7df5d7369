//! `--construct-rtile`: attaches Roller's top-k rPrograms to every `te.compute`
//! (docs/passes/construct-rtile.md).

use std::path::Path;

use rtile::diagnostics::Diagnostic;
use rtile::ir::{Context, OpId};
use rtile::pass::{Pass, PassStatistics};
use rtile_dialects::rtile::set_programs;
use rtile_dialects::te::ir::compute_from_op;
use rtile_dialects::te::walk::compute_ops;

use super::construct::{ConstructOptions, construct};
use super::te_adapter::expr_from_compute;
use crate::device::Device;

rtile::declare_pass! {
    pass ConstructRtile {
        flag: "construct-rtile",
        display_name: "ConstructRTile",
        summary: "Attach Roller's top-k rPrograms (rtile.programs, best first) to every te.compute",
        description: "Runs Roller's construction (Figure 8) for the device given by `device` or `device-file` and attaches the top-k rPrograms, ranked by the micro-performance model, as `rtile.programs`. A compute the construction cannot handle gets a remark and stays unchanged.",
        options(opts: ConstructRtileOptions) {
            /// built-in device: v100, k80, mi50, a100, h100, h200, mi250x
            device: String = "", "device";
            /// a TOML device description (passes/devices/*.toml schema) instead
            device_file: String = "", "device-file";
            /// rPrograms to construct per compute (Figure 8 TopK)
            top_k: i64 = "10", "top-k", check = check_top_k;
            /// initial tensor-padding bound (Roller §3.1)
            epsilon: f64 = "0.2", "epsilon", check = check_epsilon;
            /// epsilon grows by 0.2 up to this bound (at most 1) while fewer than top-k programs exist
            epsilon_max: f64 = "1.0", "epsilon-max", check = check_epsilon_max;
            /// use tensor cores for f16/bf16/i8 contractions when the device has them
            tensor_core: bool = "true", "tensor-core";
        }
        statistics {
            COMPUTES: "computes", "te.compute ops given rPrograms";
            SKIPPED: "skipped", "te.compute ops the construction cannot handle";
            PROGRAMS: "programs", "rPrograms attached";
        }
    }
}

fn check_top_k(k: &i64) -> Result<(), String> {
    if *k < 1 {
        return Err("top-k must be at least 1".into());
    }
    Ok(())
}

fn check_epsilon_in(key: &str, x: f64) -> Result<(), String> {
    let max = rtile_dialects::rtile::verify::MAX_EPSILON;
    if !(0.0..=max).contains(&x) {
        return Err(format!("{key} must be a number in [0, {max}]"));
    }
    Ok(())
}

fn check_epsilon(x: &f64) -> Result<(), String> {
    check_epsilon_in("epsilon", *x)
}

fn check_epsilon_max(x: &f64) -> Result<(), String> {
    check_epsilon_in("epsilon-max", *x)
}

/// The pass.
#[derive(Default)]
pub struct ConstructRtile {
    opts: ConstructRtileOptions,
}

impl ConstructRtile {
    /// The device the options name, and the file it came from.
    fn device(&self, ctx: &Context, op: OpId) -> Result<(Device, Option<String>), Diagnostic> {
        let name = self.opts.device.as_str();
        let file = self.opts.device_file.as_str();
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
    fn run(
        &mut self,
        ctx: &mut Context,
        op: OpId,
        stats: &mut PassStatistics,
    ) -> Result<(), Diagnostic> {
        let (dev, file) = self.device(ctx, op)?;
        let opts = ConstructOptions {
            top_k: self.opts.top_k.max(1) as usize,
            epsilon: self.opts.epsilon,
            epsilon_max: self.opts.epsilon_max,
            tensor_core: self.opts.tensor_core,
            ..ConstructOptions::default()
        };
        let computes = compute_ops(ctx, op);
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
                    stats.add(Self::COMPUTES, 1);
                    stats.add(Self::PROGRAMS, progs.len() as u64);
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
                    ctx.emit(d);
                    stats.add(Self::SKIPPED, 1);
                }
            }
        }
        Ok(())
    }
}
