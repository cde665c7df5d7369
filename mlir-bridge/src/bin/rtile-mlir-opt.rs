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

const USAGE: &str = "usage: rtile-mlir-opt [INPUT|-] [--mlir-pipeline=PIPELINE | --import-linalg] \
[--mlir-print-op-generic | --rtile-print] [-o OUTPUT]\n\
rtile passes: rtile-import-linalg, rtile-export-linalg, rtile-construct{device=...}, rtile-select, rtile-axis-fusion, \
rtile-tensor-padding, rtile-lower-to-gpu; every other element is an upstream MLIR pass.";

fn main() -> ExitCode {
    let mut input = "-".to_string();
    let mut output: Option<String> = None;
    let mut pipeline = String::new();
    let mut generic = false;
    let mut rtile_print = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if let Some(p) = a
            .strip_prefix("--mlir-pipeline=")
            .or_else(|| a.strip_prefix("--pass-pipeline="))
        {
            pipeline = p.to_string();
        } else if a == "--import-linalg" {
            pipeline = "builtin.module(linalg-generalize-named-ops,rtile-import-linalg)".into();
        } else if a == "--mlir-print-op-generic" {
            generic = true;
        } else if a == "--rtile-print" {
            rtile_print = true;
        } else if a == "-o" {
            output = args.next();
        } else if a == "-h" || a == "--help" {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        } else if a.starts_with('-') && a != "-" {
            eprintln!("error: unknown option `{a}`\n{USAGE}");
            return ExitCode::FAILURE;
        } else {
            input = a;
        }
    }
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
