//! `rtile-import-onnx`: an ONNX model becomes an MLIR module of te ops.
//!
//! `rtile-import-onnx model.onnx -o model.mlir [--input-shape x=1x3x224x224]...` writes
//! one `func.func` of `te.compute`s and `tensor` reshapes, the weights as
//! `dense_resource` blobs in the `{-# dialect_resources #-}` section (see
//! `docs/onnx.md`). Exit status 0 on success, 1 on bad input (a malformed or
//! unsupported model: a diagnostic naming the node, its op type and what is missing).

use std::process::ExitCode;

use clap::Parser;
use miette::{IntoDiagnostic, Result, WrapErr, miette};
use rtile::printer::{PrintOptions, print_op};
use rtile_onnx::{ImportOptions, import_model};

/// Imports an ONNX model as an MLIR module of te ops.
#[derive(Parser, Debug)]
#[command(name = "rtile-import-onnx", version)]
struct Cli {
    /// The ONNX model (a serialised ModelProto); `-` reads stdin.
    model: String,
    /// Output file (`-`: stdout).
    #[arg(short, long, default_value = "-")]
    output: String,
    /// Static shape of a graph input, `NAME=DxDx...` (required for symbolic dims).
    #[arg(long = "input-shape", value_name = "NAME=DxD...")]
    input_shape: Vec<String>,
    /// Print every op in generic form (for tools without te's custom syntax, e.g.
    /// `mlir-opt-22 --allow-unregistered-dialect`).
    #[arg(long = "mlir-print-op-generic")]
    generic: bool,
}

fn run(cli: &Cli) -> Result<()> {
    let bytes = if cli.model == "-" {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut v).into_diagnostic()?;
        v
    } else {
        std::fs::read(&cli.model)
            .into_diagnostic()
            .wrap_err_with(|| format!("cannot read '{}'", cli.model))?
    };
    let mut opts = ImportOptions::default();
    for s in &cli.input_shape {
        opts.input_shapes
            .push(ImportOptions::parse_input_shape(s).map_err(|m| miette!("--input-shape: {m}"))?);
    }
    let (ctx, module) = import_model(&bytes, &opts).map_err(|e| miette!("{}: {e}", cli.model))?;
    let mut text = print_op(
        &ctx,
        module,
        &PrintOptions {
            generic: cli.generic,
            debug_info: false,
        },
    );
    // As mlir-opt and rtile-opt: the module, then a blank line, so the imported file is
    // byte for byte what either prints when it reads it back.
    text.push('\n');
    if cli.output == "-" {
        print!("{text}");
    } else {
        std::fs::write(&cli.output, text)
            .into_diagnostic()
            .wrap_err_with(|| format!("cannot write '{}'", cli.output))?;
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // One line per message, whatever the terminal: lit tests and logs match on it.
    let _ = miette::set_hook(Box::new(|_| {
        Box::new(
            miette::MietteHandlerOpts::new()
                .width(4096)
                .terminal_links(false)
                .build(),
        )
    }));
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e:?}");
            ExitCode::from(1)
        }
    }
}
