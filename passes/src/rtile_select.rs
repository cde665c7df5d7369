//! `--rtile-select{rank=N}`: keeps the rank-N candidate of `rtile.programs` (0 = the best) as
//! `rtile.program` and drops the list — the choice Roller leaves to its kernel profiler (§4),
//! made here by the micro-performance model's order.

use rtile::diagnostics::Diagnostic;
use rtile::ir::{Context, OpId, WalkOrder};
use rtile::pass::{Pass, PassStatistics};
use rtile_dialects::rtile::{PROGRAM, PROGRAMS};

rtile::declare_pass! {
    pass RtileSelect {
        flag: "rtile-select",
        display_name: "RTileSelect",
        summary: "Keep one of the rtile.programs candidates as rtile.program",
        description: "Replaces each op's `rtile.programs` list by its rank-N entry as `rtile.program` (0 = the best by the micro-performance model).",
        options(opts: RtileSelectOptions) {
            /// which candidate to keep, 0 = the best
            rank: i64 = "0", "rank", check = check_rank;
        }
        statistics {
            SELECTED: "selected", "ops given an rtile.program";
        }
    }
}

fn check_rank(r: &i64) -> Result<(), String> {
    if *r < 0 {
        return Err("rank must be non-negative".into());
    }
    Ok(())
}

/// The pass.
#[derive(Default)]
pub struct RtileSelect {
    opts: RtileSelectOptions,
}

impl Pass for RtileSelect {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: OpId,
        stats: &mut PassStatistics,
    ) -> Result<(), Diagnostic> {
        let rank = self.opts.rank.max(0) as usize;
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
            stats.add(Self::SELECTED, 1);
        }
        Ok(())
    }
}
