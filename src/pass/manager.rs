//! Running pipelines: op-anchored nesting, verification after each pass, IR printing,
//! timing and statistics reports in mlir-opt's formats.

use std::fmt;
use std::io::Write;
use std::time::{Duration, Instant};

use super::{Pass, PassStatistics};
use crate::diagnostics::Diagnostic;
use crate::ir::{Context, OpId};
use crate::printer::{PrintOptions, print_op};
use crate::verifier::verify;

/// One element of a pipeline.
pub enum PipelineEntry {
    /// A pass, with the option text it was given, its statistics and accumulated time.
    Pass {
        pass: Box<dyn Pass>,
        options: String,
        stats: PassStatistics,
        time: Duration,
    },
    /// A nested pipeline, run on each matching op directly nested in the anchor op.
    Nested { pm: OpPassManager, time: Duration },
}

/// A pipeline anchored on one op name (MLIR's `OpPassManager`); `any` matches every op.
pub struct OpPassManager {
    /// The op name the pipeline runs on.
    pub anchor: String,
    pub entries: Vec<PipelineEntry>,
}

impl OpPassManager {
    /// An empty pipeline on `anchor`.
    pub fn new(anchor: impl Into<String>) -> Self {
        OpPassManager {
            anchor: anchor.into(),
            entries: Vec::new(),
        }
    }

    /// Adds a pass (with the option text it was configured from, for printing). A pass
    /// anchored on a different op is refused, as in MLIR.
    pub fn add_pass(&mut self, pass: Box<dyn Pass>, options: String) -> Result<(), String> {
        if let Some(a) = pass.anchor()
            && self.anchor != "any"
            && a != self.anchor
        {
            return Err(format!(
                "can't add pass '{}' restricted to '{a}' on a PassManager intended to run on '{}', did you intend to nest?",
                pass.name(),
                self.anchor
            ));
        }
        self.add_pass_unchecked(pass, options);
        Ok(())
    }

    pub(crate) fn add_pass_unchecked(&mut self, pass: Box<dyn Pass>, options: String) {
        let stats = PassStatistics::declared(pass.decl().statistics);
        self.entries.push(PipelineEntry::Pass {
            pass,
            options,
            stats,
            time: Duration::ZERO,
        });
    }

    /// The nested pipeline on `anchor` at the end of this one, created if the last entry
    /// is not already one (so consecutive nested passes share it).
    pub fn nest(&mut self, anchor: &str) -> &mut OpPassManager {
        let reuse = matches!(self.entries.last(), Some(PipelineEntry::Nested { pm, .. }) if pm.anchor == anchor);
        if !reuse {
            self.entries.push(PipelineEntry::Nested {
                pm: OpPassManager::new(anchor),
                time: Duration::ZERO,
            });
        }
        match self.entries.last_mut() {
            Some(PipelineEntry::Nested { pm, .. }) => pm,
            // Just pushed or checked above.
            _ => unreachable!("nest: last entry is a nested pipeline"),
        }
    }

    /// mlir-opt's `--dump-pass-pipeline` text: `Pass Manager with N passes:` then the
    /// pipeline one entry per line, each pass with every option ([`Pass::textual_form`]).
    pub fn dump_pipeline(&self) -> String {
        fn pretty(pm: &OpPassManager, indent: usize, out: &mut String) {
            out.push_str(&format!("{}(\n", pm.anchor));
            if pm.entries.is_empty() {
                // mlir-opt leaves one empty line between the parentheses.
                out.push('\n');
            }
            let pad = " ".repeat(indent + 2);
            for (i, e) in pm.entries.iter().enumerate() {
                out.push_str(&pad);
                match e {
                    PipelineEntry::Pass { pass, .. } => out.push_str(&pass.textual_form()),
                    PipelineEntry::Nested { pm, .. } => pretty(pm, indent + 2, out),
                }
                out.push_str(if i + 1 < pm.entries.len() {
                    ",\n"
                } else {
                    "\n"
                });
            }
            out.push_str(&" ".repeat(indent));
            out.push(')');
        }
        let mut out = format!("Pass Manager with {} passes:\n", self.entries.len());
        pretty(self, 0, &mut out);
        out.push_str("\n\n");
        out
    }

    /// Number of entries (passes and nested pipelines) at this level.
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    /// True when the pipeline has no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl fmt::Debug for OpPassManager {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "OpPassManager({self})")
    }
}

impl fmt::Display for OpPassManager {
    /// MLIR's textual form: `builtin.module(func.func(cse),symbol-dce{k=v})`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.anchor)?;
        for (i, e) in self.entries.iter().enumerate() {
            if i > 0 {
                write!(f, ",")?;
            }
            match e {
                PipelineEntry::Pass { pass, options, .. } => {
                    write!(f, "{}", pass.name())?;
                    if !options.is_empty() {
                        write!(f, "{{{options}}}")?;
                    }
                }
                PipelineEntry::Nested { pm, .. } => write!(f, "{pm}")?,
            }
        }
        write!(f, ")")
    }
}

/// Instrumentation and checking options (mlir-opt's `--mlir-*` flags).
#[derive(Clone, Debug)]
pub struct PassManagerConfig {
    /// Verify the op a pass ran on after each pass (`--verify-each`, default true).
    pub verify_each: bool,
    /// Print the IR before these passes (flag names; `--mlir-print-ir-before=`).
    pub print_ir_before: Vec<String>,
    /// Print the IR after these passes (`--mlir-print-ir-after=`).
    pub print_ir_after: Vec<String>,
    /// `--mlir-print-ir-before-all`.
    pub print_ir_before_all: bool,
    /// `--mlir-print-ir-after-all`.
    pub print_ir_after_all: bool,
    /// `--mlir-print-ir-after-failure`: print the IR when a pass (or the verifier after
    /// it) fails.
    pub print_ir_after_failure: bool,
    /// Print dumped IR in generic form (`--mlir-print-op-generic`).
    pub print_generic: bool,
    /// `--mlir-timing`: wall time per pass.
    pub timing: bool,
    /// `--mlir-pass-statistics`.
    pub statistics: bool,
    /// Write the timing and statistics reports at the end of [`PassManager::run`]; a tool
    /// that wants Parser/Output rows in the timing report sets this to false and calls
    /// [`PassManager::timing_report_with`] itself.
    pub print_reports: bool,
}

impl Default for PassManagerConfig {
    fn default() -> Self {
        PassManagerConfig {
            verify_each: true,
            print_ir_before: Vec::new(),
            print_ir_after: Vec::new(),
            print_ir_before_all: false,
            print_ir_after_all: false,
            print_ir_after_failure: false,
            print_generic: false,
            timing: false,
            statistics: false,
            print_reports: true,
        }
    }
}

/// Runs a pipeline on a top-level op, with instrumentation.
pub struct PassManager {
    /// The pipeline (anchored on the op `run` is given).
    pub root: OpPassManager,
    pub config: PassManagerConfig,
    output: Box<dyn Write + Send>,
    total_time: Duration,
}

/// The rule MLIR prints around report titles.
const RULE: &str =
    "===-------------------------------------------------------------------------===\n";

fn report_header(title: &str) -> String {
    let padding = (80 - title.len()) / 2;
    format!("{RULE}{}{title}\n{RULE}", " ".repeat(padding))
}

impl PassManager {
    /// A pass manager running `root`, reporting to stderr.
    pub fn new(root: OpPassManager) -> Self {
        PassManager {
            root,
            config: PassManagerConfig::default(),
            output: Box::new(std::io::stderr()),
            total_time: Duration::ZERO,
        }
    }
    /// An empty pipeline on `anchor` (e.g. `builtin.module`).
    pub fn on(anchor: &str) -> Self {
        PassManager::new(OpPassManager::new(anchor))
    }
    /// Redirects IR dumps and reports (stderr by default).
    pub fn set_output(&mut self, out: Box<dyn Write + Send>) {
        self.output = out;
    }

    /// Runs the pipeline on `op`; the first error (a pass failure, or the verifier after a
    /// pass) stops it.
    pub fn run(&mut self, ctx: &mut Context, op: OpId) -> Result<(), Diagnostic> {
        self.run_all_diagnostics(ctx, op)
            .map_err(|mut v| v.swap_remove(0))
    }

    /// Like [`Self::run`] but returns every diagnostic (the verifier may report several).
    pub fn run_all_diagnostics(
        &mut self,
        ctx: &mut Context,
        op: OpId,
    ) -> Result<(), Vec<Diagnostic>> {
        if self.root.anchor != "any" && self.root.anchor != ctx.op_name(op) {
            return Err(vec![Diagnostic::error(
                ctx.op(op).span,
                format!(
                    "can't run '{}' pass manager on '{}' op",
                    self.root.anchor,
                    ctx.op_name(op)
                ),
            )]);
        }
        let start = Instant::now();
        let mut runner = Runner {
            cfg: &self.config,
            out: &mut *self.output,
        };
        let result = runner.run_pm(&mut self.root, ctx, op);
        self.total_time += start.elapsed();
        if self.config.print_reports {
            let mut text = String::new();
            if self.config.statistics {
                text.push_str(&self.statistics_report());
            }
            if self.config.timing {
                text.push_str(&self.timing_report());
            }
            // Reports are best effort: a closed stderr must not fail the pipeline.
            let _ = self.output.write_all(text.as_bytes());
            let _ = self.output.flush();
        }
        result
    }

    /// The `--mlir-pass-statistics` report (MLIR's pipeline display mode).
    pub fn statistics_report(&self) -> String {
        let mut out = report_header("... Pass statistics report ...");
        fn entries(out: &mut String, pm: &OpPassManager, indent: usize) {
            for e in &pm.entries {
                match e {
                    PipelineEntry::Pass { pass, stats, .. } => {
                        out.push_str(&format!("{}{}\n", " ".repeat(indent), pass.display_name()));
                        let mut sorted: Vec<_> = stats.iter().collect();
                        sorted.sort_by_key(|s| s.name);
                        let wname = sorted.iter().map(|s| s.name.len()).max().unwrap_or(0);
                        let wval = sorted
                            .iter()
                            .map(|s| s.value.to_string().len())
                            .max()
                            .unwrap_or(0);
                        for s in sorted {
                            out.push_str(&format!(
                                "{}(S) {:>wval$} {:<wname$} - {}\n",
                                " ".repeat(indent + 2),
                                s.value,
                                s.name,
                                s.description
                            ));
                        }
                    }
                    PipelineEntry::Nested { pm, .. } => {
                        out.push_str(&format!("{}'{}' Pipeline\n", " ".repeat(indent), pm.anchor));
                        entries(out, pm, indent + 2);
                    }
                }
            }
        }
        entries(&mut out, &self.root, 0);
        out.push('\n');
        out
    }

    /// The `--mlir-timing` report over the passes run so far.
    pub fn timing_report(&self) -> String {
        self.timing_report_with(&[], &[], None)
    }

    /// The `--mlir-timing` report with extra top-level rows before and after the passes
    /// (mlir-opt's `Parser` and `Output`) and an optional overall wall time (the
    /// remainder is shown as `Rest`).
    pub fn timing_report_with(
        &self,
        before: &[(&str, Duration)],
        after: &[(&str, Duration)],
        total: Option<Duration>,
    ) -> String {
        let extra: Duration = before.iter().chain(after).map(|(_, d)| *d).sum();
        let total = total.unwrap_or(self.total_time + extra);
        let secs = total.as_secs_f64();
        let row = |d: Duration, indent: usize, name: &str| {
            let t = d.as_secs_f64();
            let pct = if secs > 0.0 { 100.0 * t / secs } else { 0.0 };
            format!("  {t:8.4} ({pct:5.1}%)  {}{name}\n", " ".repeat(indent))
        };
        let mut out = report_header("... Execution time report ...");
        out.push_str(&format!("  Total Execution Time: {secs:.4} seconds\n\n"));
        out.push_str("  ----Wall Time----  ----Name----\n");
        for (n, d) in before {
            out.push_str(&row(*d, 0, n));
        }
        fn entries(
            out: &mut String,
            pm: &OpPassManager,
            indent: usize,
            row: &dyn Fn(Duration, usize, &str) -> String,
        ) -> Duration {
            let mut sum = Duration::ZERO;
            for e in &pm.entries {
                match e {
                    PipelineEntry::Pass { pass, time, .. } => {
                        out.push_str(&row(*time, indent, pass.display_name()));
                        sum += *time;
                    }
                    PipelineEntry::Nested { pm, time } => {
                        out.push_str(&row(*time, indent, &format!("'{}' Pipeline", pm.anchor)));
                        entries(out, pm, indent + 2, row);
                        sum += *time;
                    }
                }
            }
            sum
        }
        let passes = entries(&mut out, &self.root, 0, &row);
        for (n, d) in after {
            out.push_str(&row(*d, 0, n));
        }
        let rest = total.saturating_sub(passes + extra);
        out.push_str(&row(rest, 0, "Rest"));
        out.push_str(&format!(
            "  {secs:8.4} ({:5.1}%)  Total\n",
            if secs > 0.0 { 100.0 } else { 0.0 }
        ));
        // mlir-opt-22's report ends with the Total row (no empty line after it).
        out
    }
}

/// Walks a pipeline over the IR; holds the instrumentation.
struct Runner<'a> {
    cfg: &'a PassManagerConfig,
    out: &'a mut (dyn Write + Send),
}

impl Runner<'_> {
    /// Writes MLIR's `// -----// IR Dump After X (x) //----- //` banner and the IR.
    fn dump(&mut self, ctx: &Context, op: OpId, when: &str, pass: &dyn Pass) {
        let opts = PrintOptions {
            generic: self.cfg.print_generic,
            ..PrintOptions::default()
        };
        let text = print_op(ctx, op, &opts);
        let mut s = format!(
            "// -----// IR Dump {} ({}) //----- //\n{}\n",
            when.replace("{}", pass.display_name()),
            pass.name(),
            text.trim_end_matches('\n')
        );
        // A top-level op prints with a trailing newline in MLIR, hence one more blank line.
        if ctx.parent_block(op).is_none() {
            s.push('\n');
        }
        s.push('\n');
        // Dumps are best effort: a closed stderr must not fail the pipeline.
        let _ = self.out.write_all(s.as_bytes());
    }

    fn run_pm(
        &mut self,
        pm: &mut OpPassManager,
        ctx: &mut Context,
        op: OpId,
    ) -> Result<(), Vec<Diagnostic>> {
        for entry in &mut pm.entries {
            match entry {
                PipelineEntry::Pass {
                    pass, stats, time, ..
                } => {
                    if pass.anchor().is_some_and(|a| a != ctx.op_name(op)) {
                        // Only reachable under an `any` pipeline: the pass does not apply.
                        continue;
                    }
                    let name = pass.name();
                    if self.cfg.print_ir_before_all
                        || self.cfg.print_ir_before.iter().any(|p| p == name)
                    {
                        self.dump(ctx, op, "Before {}", pass.as_ref());
                    }
                    let start = Instant::now();
                    let result = pass.run(ctx, op, stats);
                    *time += start.elapsed();
                    let result = match result {
                        Err(d) => Err(vec![d]),
                        Ok(()) if self.cfg.verify_each && ctx.op_exists(op) => verify(ctx, op),
                        Ok(()) => Ok(()),
                    };
                    if let Err(errs) = result {
                        if self.cfg.print_ir_after_failure && ctx.op_exists(op) {
                            self.dump(ctx, op, "After {} Failed", pass.as_ref());
                        }
                        return Err(errs);
                    }
                    if (self.cfg.print_ir_after_all
                        || self.cfg.print_ir_after.iter().any(|p| p == name))
                        && ctx.op_exists(op)
                    {
                        self.dump(ctx, op, "After {}", pass.as_ref());
                    }
                }
                PipelineEntry::Nested { pm: nested, time } => {
                    let start = Instant::now();
                    let any = nested.anchor == "any";
                    let mut targets = Vec::new();
                    for &r in ctx.regions(op) {
                        for &b in ctx.region_blocks(r) {
                            targets.extend(
                                ctx.block_ops(b)
                                    .filter(|&o| any || ctx.op_name(o) == nested.anchor),
                            );
                        }
                    }
                    let mut result = Ok(());
                    for t in targets {
                        if ctx.op_exists(t) {
                            result = self.run_pm(nested, ctx, t);
                            if result.is_err() {
                                break;
                            }
                        }
                    }
                    *time += start.elapsed();
                    result?;
                }
            }
        }
        Ok(())
    }
}
