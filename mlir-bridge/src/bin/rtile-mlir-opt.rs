//! `rtile-mlir-opt`: runs a mixed pipeline of upstream MLIR passes and rtile passes on one
//! module, all inside one MLIR pass manager (rtile passes are external passes).
//!
//! ```text
//! rtile-mlir-opt in.mlir --mlir-pipeline="builtin.module(linalg-generalize-named-ops,
//!     rtile-import-linalg, rtile-construct{device=h100}, canonicalize)" [-o out.mlir]
//! rtile-mlir-opt in.mlir --import-linalg     # linalg-generalize-named-ops, rtile-import-linalg
//! rtile-mlir-opt in.mlir --import-linalg --rtile-print   # te in rtile's custom form
//! ```

use std::io::Read;
use std::process::ExitCode;

use clap::Parser;

/// Runs a mixed pipeline of upstream MLIR passes and rtile passes (external passes:
/// rtile-import-linalg, rtile-export-linalg, rtile-construct{device=...}, rtile-select,
/// rtile-axis-fusion, rtile-tensor-padding, rtile-fold-reshapes, rtile-connect{device=...},
/// rtile-wavefront-pack{device=...}, rtile-autoschedule-beam{device=...},
/// rtile-lower-to-gpu) on one module.
#[derive(Parser)]
#[command(name = "rtile-mlir-opt")]
struct Cli {
    /// Input file (`-` for stdin).
    #[arg(default_value = "-")]
    input: String,
    /// The pass pipeline, e.g. `builtin.module(linalg-generalize-named-ops,rtile-construct{device=h100})`.
    #[arg(
        long = "mlir-pipeline",
        visible_alias = "pass-pipeline",
        value_name = "PIPELINE",
        conflicts_with = "import_linalg"
    )]
    mlir_pipeline: Option<String>,
    /// Shorthand for `builtin.module(linalg-generalize-named-ops,rtile-import-linalg)`.
    #[arg(long)]
    import_linalg: bool,
    /// Print MLIR's generic form.
    #[arg(long)]
    mlir_print_op_generic: bool,
    /// Print the result with rtile's printer (te in its custom form).
    #[arg(long)]
    rtile_print: bool,
    /// Output file (default: stdout).
    #[arg(short = 'o', value_name = "OUTPUT")]
    output: Option<String>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let input = cli.input;
    let output = cli.output;
    let pipeline = if cli.import_linalg {
        "builtin.module(linalg-generalize-named-ops,rtile-import-linalg)".to_string()
    } else {
        cli.mlir_pipeline.unwrap_or_default()
    };
    let generic = cli.mlir_print_op_generic;
    let rtile_print = cli.rtile_print;
    let text = if input == "-" {
        let mut s = String::new();
        if let Err(e) = std::io::stdin().read_to_string(&mut s) {
            eprintln!("error: reading stdin: {e}");
            return ExitCode::FAILURE;
        }
        s
    } else {
        match std::fs::read_to_string(&input) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: reading {input}: {e}");
                return ExitCode::FAILURE;
            }
        }
    };
    let print_generic = generic || rtile_print;
    let ran = if input == "-" {
        rtile_mlir_bridge::mlir::run_pipeline(&text, &pipeline, print_generic)
    } else {
        rtile_mlir_bridge::mlir::run_pipeline_file(&input, &pipeline, print_generic)
    };
    let result = ran.and_then(|out| {
        if rtile_print {
            rtile_mlir_bridge::print_with_rtile("<mlir>", &out)
        } else {
            Ok(out)
        }
    });
    match result {
        Ok(out) => {
            let res = match &output {
                Some(path) if path != "-" => std::fs::write(path, out),
                _ => {
                    print!("{out}");
                    Ok(())
                }
            };
            if let Err(e) = res {
                eprintln!("error: writing output: {e}");
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
