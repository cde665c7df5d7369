//! `rtile-opt`: rtile's `mlir-opt`. Reads MLIR text, parses and verifies it, runs a pass
//! pipeline, prints the result.
//!
//! Pass flags (`--symbol-dce`, `--print-op-stats="json=true"`) are built from the pass
//! registry at start-up, and run in command-line order.

use std::io::{Read, Write};
use std::process::ExitCode;

use clap::{Arg, ArgAction, ArgMatches, Command};
use rtile::pass::{PassManagerConfig, PassRegistry};
use rtile::printer::PrintOptions;
use rtile_tools::input::decode_input;
use rtile_tools::{OptOptions, Pipeline, pass_registry, run_opt_to};

/// Exit status for an internal error (a bug, never bad input): EX_SOFTWARE.
const EXIT_INTERNAL: i32 = 70;

/// Static flags; pass flags must not collide with these.
const STATIC_FLAGS: &[&str] = &[
    "input",
    "output",
    "split-input-file",
    "verify-diagnostics",
    "allow-unregistered-dialect",
    "mlir-print-op-generic",
    "mlir-print-debuginfo",
    "pass-pipeline",
    "mlir-print-ir-after-all",
    "mlir-print-ir-before-all",
    "mlir-print-ir-before",
    "mlir-print-ir-after",
    "mlir-print-ir-after-failure",
    "mlir-timing",
    "mlir-pass-statistics",
    "dump-pass-pipeline",
    "verify-each",
];

fn flag(name: &'static str, help: &'static str) -> Arg {
    Arg::new(name)
        .long(name)
        .action(ArgAction::SetTrue)
        .help(help)
}

/// Flag names of every registered pass and named pipeline (sorted), minus any that
/// would shadow a static flag.
fn pass_flag_names(registry: &PassRegistry) -> Vec<String> {
    let mut names: Vec<String> = registry
        .passes()
        .map(|p| p.name.to_string())
        .chain(registry.pipelines().map(|p| p.name.clone()))
        .filter(|n| !STATIC_FLAGS.contains(&n.as_str()))
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The command line, with one flag per registered pass and pipeline. The pass flags
/// are hidden from clap's option list; the registry's own help text (mlir-opt's layout,
/// with each pass's options) is shown after it instead.
fn command(registry: &PassRegistry, pass_flags: &[String]) -> Command {
    let mut cmd = Command::new("rtile-opt")
        .about("rtile modular optimizer driver: parse, verify, run passes, print MLIR")
        .arg(
            Arg::new("input")
                .value_name("input file")
                .default_value("-")
                .help("Input file (`-` for stdin)"),
        )
        .arg(
            Arg::new("output")
                .short('o')
                .value_name("filename")
                .default_value("-")
                .help("Output file (`-` for stdout)"),
        )
        .arg(flag(
            "split-input-file",
            "Split the input on `// -----` lines and process each chunk independently",
        ))
        .arg(flag(
            "verify-diagnostics",
            "Check that emitted diagnostics match `expected-*` comments in the input",
        ))
        .arg(flag(
            "allow-unregistered-dialect",
            "Allow operations of dialects that are not registered",
        ))
        .arg(flag(
            "mlir-print-op-generic",
            "Print every operation in the generic form",
        ))
        .arg(flag(
            "mlir-print-debuginfo",
            "Print source locations (`loc(...)`)",
        ))
        .arg(
            Arg::new("pass-pipeline")
                .long("pass-pipeline")
                .value_name("pipeline")
                .require_equals(true)
                .help("A textual pass pipeline, e.g. `builtin.module(symbol-dce)`"),
        )
        .arg(flag(
            "mlir-print-ir-before-all",
            "Print the IR before every pass",
        ))
        .arg(flag(
            "mlir-print-ir-after-all",
            "Print the IR after every pass",
        ))
        .arg(
            Arg::new("mlir-print-ir-before")
                .long("mlir-print-ir-before")
                .value_name("pass")
                .require_equals(true)
                .value_delimiter(',')
                .action(ArgAction::Append)
                .help("Print the IR before the named passes"),
        )
        .arg(
            Arg::new("mlir-print-ir-after")
                .long("mlir-print-ir-after")
                .value_name("pass")
                .require_equals(true)
                .value_delimiter(',')
                .action(ArgAction::Append)
                .help("Print the IR after the named passes"),
        )
        .arg(flag(
            "mlir-print-ir-after-failure",
            "Print the IR after a pass (or the verifier after it) fails",
        ))
        .arg(flag("mlir-timing", "Report the time each pass took"))
        .arg(flag(
            "mlir-pass-statistics",
            "Report the statistics of each pass",
        ))
        .arg(flag(
            "dump-pass-pipeline",
            "Print the pipeline that will be run, every pass with all its options",
        ))
        .arg(
            Arg::new("verify-each")
                .long("verify-each")
                .value_name("bool")
                .num_args(0..=1)
                .require_equals(true)
                .default_value("true")
                .default_missing_value("true")
                .value_parser(clap::value_parser!(bool))
                .help("Verify the IR after each pass"),
        );
    for name in pass_flags {
        cmd = cmd.arg(
            Arg::new(name.clone())
                .long(name.clone())
                .value_name("options")
                .num_args(0..=1)
                .require_equals(true)
                .default_missing_value("")
                .action(ArgAction::Append)
                .hide(true),
        );
    }
    cmd.after_help(registry.help_text())
}

/// Pass flags in command-line order, each with its option text.
fn pass_flags(m: &ArgMatches, names: &[String]) -> Vec<(String, String)> {
    let mut found: Vec<(usize, String, String)> = Vec::new();
    for id in names {
        let (Some(indices), Some(values)) = (m.indices_of(id), m.get_many::<String>(id)) else {
            continue;
        };
        for (i, v) in indices.zip(values) {
            found.push((i, id.clone(), v.clone()));
        }
    }
    found.sort_by_key(|(i, _, _)| *i);
    found.into_iter().map(|(_, n, v)| (n, v)).collect()
}

fn strings(m: &ArgMatches, id: &str) -> Vec<String> {
    m.get_many::<String>(id)
        .map(|vs| vs.cloned().collect())
        .unwrap_or_default()
}

fn read_input(path: &str) -> Result<(String, String), String> {
    if path == "-" {
        let mut b = Vec::new();
        std::io::stdin()
            .read_to_end(&mut b)
            .map_err(|e| format!("rtile-opt: error: could not read stdin: {e}\n"))?;
        Ok(("<stdin>".to_string(), decode_input("<stdin>", b)?))
    } else {
        let b = std::fs::read(path)
            .map_err(|e| format!("rtile-opt: error: could not open input file '{path}': {e}\n"))?;
        Ok((path.to_string(), decode_input(path, b)?))
    }
}

/// Where the printed IR goes (`-o`, or stdout for `-`), opened on the first write so that
/// a run that prints nothing leaves no file behind; the first write error is kept.
struct Output<'a> {
    path: &'a str,
    writer: Option<Box<dyn Write>>,
    error: Option<String>,
}

impl<'a> Output<'a> {
    fn new(path: &'a str) -> Self {
        Output {
            path,
            writer: None,
            error: None,
        }
    }

    fn open(&mut self) -> Result<&mut Box<dyn Write>, String> {
        let writer: Box<dyn Write> = match self.writer.take() {
            Some(w) => w,
            None if self.path == "-" => Box::new(std::io::BufWriter::new(std::io::stdout())),
            None => {
                let file =
                    std::fs::File::create(self.path).map_err(|e| Self::describe(self.path, e))?;
                Box::new(std::io::BufWriter::new(file))
            }
        };
        Ok(self.writer.insert(writer))
    }

    fn describe(path: &str, e: std::io::Error) -> String {
        if path == "-" {
            format!("could not write stdout: {e}")
        } else {
            format!("could not write output file '{path}': {e}")
        }
    }

    fn write(&mut self, text: &str) {
        if self.error.is_some() {
            return;
        }
        let path = self.path;
        let result = self.open().and_then(|w| {
            w.write_all(text.as_bytes())
                .map_err(|e| Self::describe(path, e))
        });
        self.error = result.err();
    }

    /// Flushes, creating the (empty) output when nothing was written.
    fn finish(mut self) -> Result<(), String> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let path = self.path;
        self.open()?.flush().map_err(|e| Self::describe(path, e))
    }
}

fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        eprintln!("rtile-opt: internal error (please report): {info}");
        std::process::exit(EXIT_INTERNAL);
    }));

    let registry = pass_registry();
    let names = pass_flag_names(&registry);
    let matches = match command(&registry, &names).try_get_matches() {
        Ok(m) => m,
        Err(e) => {
            use clap::error::ErrorKind;
            let _ = e.print();
            return match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => ExitCode::SUCCESS,
                _ => ExitCode::FAILURE,
            };
        }
    };

    let flags = pass_flags(&matches, &names);
    let explicit = matches.get_one::<String>("pass-pipeline").cloned();
    let pipeline = match (explicit, flags.is_empty()) {
        (Some(_), false) => {
            eprintln!(
                "rtile-opt: error: '--pass-pipeline' can't be used with individual pass flags"
            );
            return ExitCode::FAILURE;
        }
        (Some(p), true) => Pipeline::Text(p),
        (None, false) => Pipeline::Flags(flags),
        (None, true) => Pipeline::None,
    };

    let opts = OptOptions {
        allow_unregistered: matches.get_flag("allow-unregistered-dialect"),
        split_input_file: matches.get_flag("split-input-file"),
        verify_diagnostics: matches.get_flag("verify-diagnostics"),
        print: PrintOptions {
            generic: matches.get_flag("mlir-print-op-generic"),
            debug_info: matches.get_flag("mlir-print-debuginfo"),
        },
        pipeline,
        dump_pass_pipeline: matches.get_flag("dump-pass-pipeline"),
        pass_config: PassManagerConfig {
            verify_each: matches
                .get_one::<bool>("verify-each")
                .copied()
                .unwrap_or(true),
            print_ir_before_all: matches.get_flag("mlir-print-ir-before-all"),
            print_ir_after_all: matches.get_flag("mlir-print-ir-after-all"),
            print_ir_before: strings(&matches, "mlir-print-ir-before"),
            print_ir_after: strings(&matches, "mlir-print-ir-after"),
            print_ir_after_failure: matches.get_flag("mlir-print-ir-after-failure"),
            timing: matches.get_flag("mlir-timing"),
            statistics: matches.get_flag("mlir-pass-statistics"),
            ..PassManagerConfig::default()
        },
        color: None,
        // Diagnostics and IR dumps go to stderr as they come, in order with the output
        // of passes that print there (print-op-stats).
        stream_log: true,
    };

    let input = matches
        .get_one::<String>("input")
        .map(String::as_str)
        .unwrap_or("-");
    let output = matches
        .get_one::<String>("output")
        .map(String::as_str)
        .unwrap_or("-");
    let (name, text) = match read_input(input) {
        Ok(x) => x,
        Err(e) => {
            eprint!("{e}");
            return ExitCode::FAILURE;
        }
    };

    // The output streams as it is printed. Like mlir-opt, it is kept whenever something
    // was produced, even if a split chunk failed, so that the successful chunks can be
    // checked; a run that fails otherwise has printed nothing.
    let mut out = Output::new(output);
    let outcome = run_opt_to(&opts, &name, text, &mut |s| out.write(s));
    eprint!("{}", outcome.log);
    if (outcome.success || opts.split_input_file || opts.verify_diagnostics)
        && let Err(e) = out.finish()
    {
        eprintln!("rtile-opt: error: {e}");
        return ExitCode::FAILURE;
    }
    if outcome.success {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
