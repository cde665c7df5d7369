//! Shared code of the rtile command-line tools: the dialect and pass registries every
//! tool uses, and the `rtile-opt` driver (read → parse → verify → passes → print), kept
//! here so that it can be tested in-process.

pub mod connect_profile;
pub mod construct_bench;
pub mod cuda_model;
pub mod holdout;
pub mod input;
pub mod measured;
pub mod parse_bench;
pub mod retrain;

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rtile::diagnostics::render::render_with;
use rtile::diagnostics::{Diagnostic, Severity, render, verify_diagnostics};
use rtile::dialect::DialectRegistry;
use rtile::ir::{Context, OpId};
use rtile::parser::parse_source;
use rtile::pass::{
    OpPassManager, PassManager, PassManagerConfig, PassRegistry, parse_pass_pipeline,
    pipeline_from_flags,
};
use rtile::printer::{PrintOptions, print_op_to};
use rtile::verifier::verify;

pub mod run;
pub mod schedule_bench;
pub mod sim;

// The registries are rtile_passes' (every dialect with its extensions, every pass).
pub use rtile_passes::{dialect_registry, pass_registry};

/// The line mlir-opt splits inputs on (`--split-input-file`) and joins outputs with.
pub const SPLIT_MARKER: &str = "// -----";

/// What `rtile-opt` was asked to do, after command-line parsing.
#[derive(Clone, Debug, Default)]
pub struct OptOptions {
    /// `--allow-unregistered-dialect`.
    pub allow_unregistered: bool,
    /// `--split-input-file`.
    pub split_input_file: bool,
    /// `--verify-diagnostics`.
    pub verify_diagnostics: bool,
    /// `--mlir-print-op-generic`, `--mlir-print-debuginfo`.
    pub print: PrintOptions,
    /// The passes to run.
    pub pipeline: Pipeline,
    /// `--dump-pass-pipeline`: print the pipeline, every pass with all its options, to
    /// stderr before running it (mlir-opt's format).
    pub dump_pass_pipeline: bool,
    /// Pass-manager instrumentation (verify-each, IR printing, timing, statistics).
    pub pass_config: PassManagerConfig,
    /// Force colour in rendered diagnostics (tests pass `Some(false)`); `None`: auto.
    pub color: Option<bool>,
    /// Write the log to stderr as it is produced (the `rtile-opt` binary), so that it
    /// interleaves with what passes print to stderr themselves (`print-op-stats`) as in
    /// mlir-opt; [`OptOutcome::log`] is then empty.
    pub stream_log: bool,
}

/// The result of one `rtile-opt` run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OptOutcome {
    /// What goes to the output file (or stdout).
    pub output: String,
    /// What goes to stderr: rendered diagnostics, IR dumps, timing reports.
    pub log: String,
    /// False when the process must exit non-zero.
    pub success: bool,
}

/// The passes `rtile-opt` runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Pipeline {
    /// No passes: parse, verify, print.
    #[default]
    None,
    /// `--pass-pipeline="builtin.module(...)"`.
    Text(String),
    /// Pass flags in command-line order, each with its option string
    /// (`--print-op-stats="json=true"` → `("print-op-stats", "json=true")`).
    Flags(Vec<(String, String)>),
}

/// The op every pipeline is anchored on (the parsed top-level op).
const ROOT_ANCHOR: &str = "builtin.module";

/// Builds the pass manager for `pipeline`; pipeline errors point into the pipeline text
/// (registered as a source of `ctx`).
fn build_pipeline(
    ctx: &mut Context,
    passes: &PassRegistry,
    pipeline: &Pipeline,
) -> Result<Option<OpPassManager>, Diagnostic> {
    match pipeline {
        Pipeline::None => Ok(None),
        Pipeline::Text(t) => parse_pass_pipeline(ctx, passes, t).map(Some),
        Pipeline::Flags(f) => pipeline_from_flags(ctx, passes, ROOT_ANCHOR, f).map(Some),
    }
}

/// A `Write` into a shared buffer: IR dumps and reports of the pass manager land in the
/// log in order with the diagnostics. A streaming one writes through to stderr.
#[derive(Clone, Default)]
struct SharedBuf(Arc<Mutex<Vec<u8>>>, bool);

impl Write for SharedBuf {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.1 {
            // Best effort, as MLIR's raw_ostream: a closed stderr is not an IR error.
            let _ = std::io::stderr().write_all(buf);
            return Ok(buf.len());
        }
        match self.0.lock() {
            Ok(mut v) => v.extend_from_slice(buf),
            Err(p) => p.into_inner().extend_from_slice(buf),
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl SharedBuf {
    fn take(&self) -> String {
        let bytes = match self.0.lock() {
            Ok(mut v) => std::mem::take(&mut *v),
            Err(p) => std::mem::take(&mut *p.into_inner()),
        };
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

/// Splits `text` on `// -----` lines. Each chunk keeps the whole file's line numbers:
/// lines outside it are blanked (kept as empty lines), so diagnostics point at the
/// original file's lines and columns.
pub fn split_input(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut bounds = Vec::new(); // (first line, one past last line) of each chunk
    let mut start = 0;
    for (i, line) in lines.iter().enumerate() {
        if line.trim_start().starts_with(SPLIT_MARKER) {
            bounds.push((start, i));
            start = i + 1;
        }
    }
    bounds.push((start, lines.len()));
    bounds
        .into_iter()
        .map(|(lo, hi)| {
            let mut chunk = "\n".repeat(lo);
            for line in &lines[lo..hi] {
                chunk.push_str(line);
            }
            chunk
        })
        .collect()
}

/// Runs `rtile-opt` on `text` (named `name` in diagnostics), collecting the output.
pub fn run_opt(opts: &OptOptions, name: &str, text: String) -> OptOutcome {
    let mut output = String::new();
    let mut outcome = run_opt_to(opts, name, text, &mut |s| output.push_str(s));
    outcome.output = output;
    outcome
}

/// Runs `rtile-opt` on `text`, handing the output to `sink` piece by piece as it is
/// printed, as mlir-opt streams to its output file: a module's text is never held whole
/// (on a 20 MB module nested hundreds deep, the indented output alone is 125 MB). The
/// returned outcome's `output` is empty. A split chunk's output is preceded by the
/// `// -----` separator from the second chunk on, failed chunks printing nothing.
pub fn run_opt_to(
    opts: &OptOptions,
    name: &str,
    text: String,
    sink: &mut dyn FnMut(&str),
) -> OptOutcome {
    let dialects = Arc::new(dialect_registry());
    let passes = pass_registry();
    // The text moves into the one chunk's context: a 20 MB input is held once.
    let chunks = if opts.split_input_file {
        split_input(&text)
    } else {
        vec![text]
    };
    let mut log = String::new();
    let mut success = true;
    // Check the pipeline once, before any input, so that a bad pipeline is reported once.
    {
        let mut ctx = Context::new(dialects.clone());
        if let Err(d) = build_pipeline(&mut ctx, &passes, &opts.pipeline) {
            log.push_str(&render_diag(opts, &ctx, &d));
            if opts.stream_log {
                eprint!("{}", std::mem::take(&mut log));
            }
            return OptOutcome {
                output: String::new(),
                log,
                success: false,
            };
        }
    }
    for (i, chunk) in chunks.into_iter().enumerate() {
        if i > 0 {
            sink(&format!("{SPLIT_MARKER}\n"));
        }
        let r = run_chunk(opts, &dialects, &passes, name, chunk, sink);
        if opts.stream_log {
            eprint!("{}", r.log);
        } else {
            log.push_str(&r.log);
        }
        success &= r.success;
    }
    OptOutcome {
        output: String::new(),
        log,
        success,
    }
}

fn run_chunk(
    opts: &OptOptions,
    dialects: &Arc<DialectRegistry>,
    passes: &PassRegistry,
    name: &str,
    text: String,
    sink: &mut dyn FnMut(&str),
) -> OptOutcome {
    let mut ctx = Context::new(dialects.clone());
    ctx.allow_unregistered = opts.allow_unregistered;
    let file = ctx.add_source(name, text);
    let mut diags: Vec<Diagnostic> = Vec::new();
    let pass_log = SharedBuf(Arc::default(), opts.stream_log);
    // mlir-opt ends each printed module with a blank line (after the op, its trailing
    // aliases and any resource section), also before a `// -----` separator.
    let printed = process(opts, passes, &mut ctx, file, &mut diags, &pass_log, sink);
    if printed {
        sink("\n");
    }
    let mut log = pass_log.take();

    if opts.verify_diagnostics {
        // Every diagnostic is an expectation to check, not something to print.
        return match verify_diagnostics(&ctx, file, &diags) {
            Ok(()) => OptOutcome {
                output: String::new(),
                log,
                success: true,
            },
            Err(problems) => {
                for p in problems {
                    log.push_str(&p);
                    log.push('\n');
                }
                OptOutcome {
                    output: String::new(),
                    log,
                    success: false,
                }
            }
        };
    }
    for d in &diags {
        log.push_str(&render_diag(opts, &ctx, d));
    }
    let failed = diags.iter().any(|d| d.severity == Severity::Error);
    OptOutcome {
        success: printed && !failed,
        output: String::new(),
        log,
    }
}

fn render_diag(opts: &OptOptions, ctx: &Context, d: &Diagnostic) -> String {
    match opts.color {
        Some(c) => render_with(ctx, d, c),
        None => render(ctx, d),
    }
}

/// Parse, verify, run passes, print to `sink`. False when a step failed (its diagnostics
/// are in `diags`) and nothing was printed. IR dumps and pass reports go to `pass_log`.
fn process(
    opts: &OptOptions,
    passes: &PassRegistry,
    ctx: &mut Context,
    file: u32,
    diags: &mut Vec<Diagnostic>,
    pass_log: &SharedBuf,
    sink: &mut dyn FnMut(&str),
) -> bool {
    let start = Instant::now();
    let parsed = parse_source(ctx, file);
    let parse_time = start.elapsed();
    let module: OpId = match parsed {
        Ok(out) => {
            diags.extend(out.warnings);
            out.module
        }
        Err(d) => {
            diags.push(d);
            return false;
        }
    };
    if let Err(ds) = verify(ctx, module) {
        diags.extend(ds);
        return false;
    }
    let root = match build_pipeline(ctx, passes, &opts.pipeline) {
        Ok(root) => root,
        Err(d) => {
            diags.push(d);
            return false;
        }
    };
    if opts.dump_pass_pipeline {
        let empty = OpPassManager::new(ROOT_ANCHOR);
        let text = root.as_ref().unwrap_or(&empty).dump_pipeline();
        // Best effort, as the other reports: a closed stderr is not an IR error.
        let _ = pass_log.clone().write_all(text.as_bytes());
    }
    let Some(root) = root else {
        print_op_to(ctx, module, &opts.print, sink);
        return true;
    };
    let mut pm = PassManager::new(root);
    pm.config = opts.pass_config.clone();
    pm.config.print_generic = opts.print.generic;
    // The timing report is written below, with mlir-opt's Parser and Output rows.
    pm.config.print_reports = false;
    pm.set_output(Box::new(pass_log.clone()));
    let result = pm.run_all_diagnostics(ctx, module);
    // Remarks and warnings the passes emitted: checked as expectations under
    // --verify-diagnostics, else shown before the output, as MLIR shows them when emitted.
    let emitted = ctx.take_emitted();
    if opts.verify_diagnostics {
        diags.extend(emitted);
    } else {
        let text: String = emitted.iter().map(|d| render_diag(opts, ctx, d)).collect();
        let _ = pass_log.clone().write_all(text.as_bytes());
    }
    let mut reports = String::new();
    if opts.pass_config.statistics {
        reports.push_str(&pm.statistics_report());
    }
    let output = match result {
        Ok(()) => {
            let start = Instant::now();
            print_op_to(ctx, module, &opts.print, sink);
            let print_time = start.elapsed();
            if opts.pass_config.timing {
                reports.push_str(&pm.timing_report_with(
                    &[("Parser", parse_time)],
                    &[("Output", print_time)],
                    None::<Duration>,
                ));
            }
            true
        }
        Err(ds) => {
            diags.extend(ds);
            false
        }
    };
    let mut sink = pass_log.clone();
    let _ = sink.write_all(reports.as_bytes());
    output
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_keeps_line_numbers() {
        let text = "a\nb\n// -----\nc\n  // -----\nd";
        let chunks = split_input(text);
        assert_eq!(chunks, vec!["a\nb\n", "\n\n\nc\n", "\n\n\n\n\nd"]);
        assert_eq!(split_input("x\n"), vec!["x\n"]);
    }

    fn opts() -> OptOptions {
        OptOptions {
            allow_unregistered: true,
            color: Some(false),
            ..OptOptions::default()
        }
    }

    #[test]
    fn split_chunks_report_original_lines() {
        let o = OptOptions {
            split_input_file: true,
            ..opts()
        };
        let text = "\"t.a\"() : () -> ()\n// -----\n\"t.b\"() : () -> ()\n\"t.c\"( : () -> ()\n";
        let r = run_opt(&o, "in.mlir", text.into());
        assert!(!r.success);
        assert!(r.log.starts_with("in.mlir:4:"), "{}", r.log);
        assert!(r.output.contains("t.a"), "{}", r.output);
        assert!(r.output.contains("// -----\n"), "{}", r.output);
    }

    #[test]
    fn verify_diagnostics_flow() {
        let o = OptOptions {
            verify_diagnostics: true,
            ..opts()
        };
        let ok = "// expected-error @+1 {{expected SSA operand}}\n\"t.c\"( : () -> ()\n";
        let r = run_opt(&o, "in.mlir", ok.into());
        assert!(r.success, "{}", r.log);
        assert_eq!(r.log, "");
        let bad = "// expected-error @+1 {{something else}}\n\"t.c\"( : () -> ()\n";
        let r = run_opt(&o, "in.mlir", bad.into());
        assert!(!r.success);
        assert!(
            r.log.contains("unexpected error: expected SSA operand"),
            "{}",
            r.log
        );
        assert!(
            r.log
                .contains("expected error \"something else\" was not produced"),
            "{}",
            r.log
        );
    }

    #[test]
    fn bad_pipeline_is_reported_once() {
        let o = OptOptions {
            split_input_file: true,
            pipeline: Pipeline::Text("builtin.module(no-such-pass)".into()),
            ..opts()
        };
        let r = run_opt(&o, "in.mlir", "// -----\n// -----\n".into());
        assert!(!r.success);
        assert_eq!(r.log.matches("error:").count(), 1, "{}", r.log);
        assert!(r.log.contains("no-such-pass"), "{}", r.log);
    }

    #[test]
    fn unregistered_ops_need_the_flag() {
        let o = OptOptions {
            allow_unregistered: false,
            ..opts()
        };
        let r = run_opt(&o, "in.mlir", "\"t.a\"() : () -> ()\n".into());
        assert!(!r.success);
        assert!(r.log.starts_with("in.mlir:1:"), "{}", r.log);
        let r = run_opt(&opts(), "in.mlir", "\"t.a\"() : () -> ()\n".into());
        assert!(r.success, "{}", r.log);
    }

    #[test]
    fn shared_buffer_keeps_order() {
        let b = SharedBuf::default();
        let mut w = b.clone();
        let _ = w.write_all(b"one ");
        let _ = w.write_all(b"two");
        assert_eq!(b.take(), "one two");
        assert_eq!(b.take(), "");
    }
}
