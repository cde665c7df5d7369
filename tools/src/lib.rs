//! Shared code of the rtile command-line tools: the dialect and pass registries every
//! tool uses, and the `rtile-opt` driver (read → parse → verify → passes → print), kept
//! here so that it can be tested in-process.

use std::sync::Arc;

use rtile::diagnostics::{Diagnostic, Severity, render, verify_diagnostics};
use rtile::dialect::DialectRegistry;
use rtile::ir::{Context, OpId};
use rtile::parser::parse_source;
use rtile::pass::{PassManager, PassManagerOptions, PassRegistry};
use rtile::printer::{PrintOptions, print_op};
use rtile::verifier::verify;

/// Every dialect the tools know: builtin plus the rtile dialects.
pub fn dialect_registry() -> DialectRegistry {
    let mut reg = DialectRegistry::with_builtin();
    rtile_dialects::register_all(&mut reg);
    reg
}

/// Every pass the tools know.
pub fn pass_registry() -> PassRegistry {
    let mut reg = PassRegistry::new();
    rtile_passes::register_all_passes(&mut reg);
    reg
}

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
    /// The pass pipeline in textual form (`builtin.module(p1,p2{k=v})`), if any.
    pub pipeline: Option<String>,
    /// Pass-manager instrumentation (verify-each, IR printing, timing, statistics).
    pub pass_options: PassManagerOptions,
    /// Force colour in rendered diagnostics (tests pass `Some(false)`); `None`: auto.
    pub color: Option<bool>,
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

/// Builds the pipeline text for pass flags given in command-line order:
/// `[("symbol-dce", ""), ("print-op-stats", "json=true")]` →
/// `builtin.module(symbol-dce,print-op-stats{json=true})`.
pub fn pipeline_from_flags(flags: &[(String, String)]) -> String {
    let items: Vec<String> = flags
        .iter()
        .map(|(name, opts)| {
            let opts = opts.trim();
            if opts.is_empty() {
                name.clone()
            } else {
                format!("{name}{{{opts}}}")
            }
        })
        .collect();
    format!("builtin.module({})", items.join(","))
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

/// Runs `rtile-opt` on `text` (named `name` in diagnostics).
pub fn run_opt(opts: &OptOptions, name: &str, text: &str) -> OptOutcome {
    let dialects = Arc::new(dialect_registry());
    let passes = pass_registry();
    let chunks = if opts.split_input_file {
        split_input(text)
    } else {
        vec![text.to_string()]
    };
    let mut outputs = Vec::new();
    let mut log = String::new();
    let mut success = true;
    for chunk in chunks {
        let r = run_chunk(opts, &dialects, &passes, name, chunk);
        outputs.push(r.output);
        log.push_str(&r.log);
        success &= r.success;
    }
    OptOutcome {
        output: outputs.join(&format!("{SPLIT_MARKER}\n")),
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
) -> OptOutcome {
    let mut ctx = Context::new(dialects.clone());
    ctx.allow_unregistered = opts.allow_unregistered;
    let file = ctx.add_source(name, text);
    let mut diags: Vec<Diagnostic> = Vec::new();
    let mut pass_log = Vec::<u8>::new();
    let output = process(opts, passes, &mut ctx, file, &mut diags, &mut pass_log);
    let mut log = String::from_utf8_lossy(&pass_log).into_owned();

    if opts.verify_diagnostics {
        // Every diagnostic is an expectation to check, not something to print.
        return match verify_diagnostics(&ctx, file, &diags) {
            Ok(()) => OptOutcome {
                output: output.unwrap_or_default(),
                log,
                success: true,
            },
            Err(problems) => {
                for p in problems {
                    log.push_str(&p);
                    log.push('\n');
                }
                OptOutcome {
                    output: output.unwrap_or_default(),
                    log,
                    success: false,
                }
            }
        };
    }
    let color = opts.color;
    for d in &diags {
        let text = match color {
            Some(c) => rtile::diagnostics::render::render_with(&ctx, d, c),
            None => render(&ctx, d),
        };
        log.push_str(&text);
    }
    let failed = diags.iter().any(|d| d.severity == Severity::Error);
    OptOutcome {
        success: output.is_some() && !failed,
        output: output.unwrap_or_default(),
        log,
    }
}

/// Parse, verify, run passes, print. `None` when a step failed (its diagnostics are in
/// `diags`).
fn process(
    opts: &OptOptions,
    passes: &PassRegistry,
    ctx: &mut Context,
    file: u32,
    diags: &mut Vec<Diagnostic>,
    pass_log: &mut Vec<u8>,
) -> Option<String> {
    let module: OpId = match parse_source(ctx, file) {
        Ok(out) => {
            diags.extend(out.warnings);
            out.module
        }
        Err(d) => {
            diags.push(d);
            return None;
        }
    };
    if let Err(ds) = verify(ctx, module) {
        diags.extend(ds);
        return None;
    }
    if let Some(pipeline) = &opts.pipeline {
        let mut pm_opts = opts.pass_options.clone();
        pm_opts.print = opts.print.clone();
        let mut pm = match PassManager::from_pipeline(passes, pipeline, pm_opts) {
            Ok(pm) => pm,
            Err(d) => {
                diags.push(d);
                return None;
            }
        };
        if let Err(ds) = pm.run(ctx, module, pass_log) {
            diags.extend(ds);
            return None;
        }
    }
    Some(print_op(ctx, module, &opts.print))
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

    #[test]
    fn pipeline_text() {
        let flags = vec![
            ("symbol-dce".to_string(), String::new()),
            ("print-op-stats".to_string(), "json=true".to_string()),
        ];
        assert_eq!(
            pipeline_from_flags(&flags),
            "builtin.module(symbol-dce,print-op-stats{json=true})"
        );
        assert_eq!(pipeline_from_flags(&[]), "builtin.module()");
    }
}
