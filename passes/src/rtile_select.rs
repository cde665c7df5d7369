//! `--rtile-select{rank=N}`: keeps the rank-N candidate of `rtile.programs` (0 = the best) as
//! `rtile.program` and drops the list — the choice Roller leaves to its kernel profiler (§4),
//! made here by the micro-performance model's order.

use rtile::diagnostics::Diagnostic;
use rtile::ir::{Context, OpId, WalkOrder};
use rtile::pass::{OptionKind, Pass, PassOptionSpec, PassOptions, PassStatistics};
use rtile_dialects::rtile::{PROGRAM, PROGRAMS};

static OPTIONS: &[PassOptionSpec] = &[PassOptionSpec {
    name: "rank",
    kind: OptionKind::Int,
    default: "0",
    description: "which candidate to keep, 0 = the best",
}];

/// The pass.
pub struct RtileSelect {
    opts: PassOptions,
}

impl Default for RtileSelect {
    fn default() -> Self {
        RtileSelect {
            opts: PassOptions::new(OPTIONS),
        }
    }
}

impl Pass for RtileSelect {
    fn name(&self) -> &'static str {
        "rtile-select"
    }
    fn display_name(&self) -> &'static str {
        "RTileSelect"
    }
    fn description(&self) -> &'static str {
        "Keep one of the rtile.programs candidates as rtile.program"
    }
    fn options(&self) -> &[PassOptionSpec] {
        self.opts.specs()
    }
    fn set_option(&mut self, key: &str, value: &str) -> Result<(), String> {
        self.opts.set(key, value)?;
        if self.opts.get_int("rank") < 0 {
            return Err("rank must be non-negative".into());
        }
        Ok(())
    }
    fn run(
        &mut self,
        ctx: &mut Context,
        op: OpId,
        stats: &mut PassStatistics,
    ) -> Result<(), Diagnostic> {
        let rank = self.opts.get_int("rank").max(0) as usize;
        let mut ops = Vec::new();
        ctx.walk(op, WalkOrder::PreOrder, &mut |_, o| {
            if ctx.attr(o, PROGRAMS).is_some() {
                ops.push(o);
            }
        });
        for o in ops {
            // The verifier has checked the attribute; only its length matters here.
            let n = ctx
                .attr(o, PROGRAMS)
                .and_then(|a| a.as_array())
                .map_or(0, |v| v.len());
            let Some(chosen) = ctx
                .attr(o, PROGRAMS)
                .and_then(|a| a.as_array())
                .and_then(|v| v.get(rank))
                .cloned()
            else {
                return Err(Diagnostic::op_error(
                    ctx,
                    o,
                    format!("rtile-select: rank {rank} but only {n} rtile.programs"),
                ));
            };
            ctx.remove_attr(o, PROGRAMS);
            ctx.set_attr(o, PROGRAM, chosen);
            stats.add("selected", "ops given an rtile.program", 1);
        }
        Ok(())
    }
}
