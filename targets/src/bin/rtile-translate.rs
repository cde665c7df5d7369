//! `rtile-translate`: rtile's `mlir-translate` for the gpu level. Reads a module holding a
//! `gpu.module` (generic or custom form) and prints LLVM IR, PTX, AMDGPU assembly or HIP
//! C++; optionally writes the launch manifest and an AMDGPU code object.
//!
//! ```text
//! rtile-translate --to-ptx=sm_90 kernels.mlir -o k.ptx --manifest=k.json
//! rtile-translate --to-ptx kernels.mlir       # the architecture of the gpu.module's target
//! rtile-translate --to-amdgpu=gfx90a kernels.mlir --code-object=k.hsaco
//! rtile-translate --to-hip kernels.mlir
//! rtile-translate --emit-naive-gpu te-op.mlir | rtile-translate --to-ptx=sm_90 --manifest=ref.json -o ref.ptx
//! rtile-translate --to-llvmir[=nvptx|amdgpu] [--opt-level=3] kernels.mlir
//! ```

use std::io::{Read, Write};
use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use rtile::diagnostics::render;
use rtile::ir::Context;
use rtile::parser::parse_source;
use rtile_dialects::gpu::target::{TargetKind, module_targets};
use rtile_targets::llvmir::{Flavor, RegisterLimit};
use rtile_targets::{
    Output, TranslateOptions, manifest_for, resolve_arch, select_gpu_module, translate,
};

#[derive(Parser, Debug)]
#[command(
    name = "rtile-translate",
    about = "Translate gpu-level IR (gpu.module) to LLVM IR, PTX, AMDGPU or HIP C++",
    group(clap::ArgGroup::new("to").required(true).args(["to_llvmir", "to_ptx", "to_amdgpu", "to_hip", "emit_naive_gpu"]))
)]
struct Cli {
    /// Input file (`-` or absent: stdin).
    input: Option<String>,
    /// Output file (default stdout).
    #[arg(short = 'o', long = "output")]
    output: Option<String>,
    /// LLVM IR, for NVPTX (default) or AMDGPU.
    #[arg(long = "to-llvmir", num_args = 0..=1, require_equals = true, default_missing_value = "nvptx", value_name = "nvptx|amdgpu")]
    to_llvmir: Option<String>,
    /// PTX for an NVIDIA architecture (sm_70, sm_80, sm_90, sm_90a, ...); without a value,
    /// the gpu.module's `#nvvm.target` chip. A value that contradicts the target is refused.
    #[arg(long = "to-ptx", value_name = "sm_XX", num_args = 0..=1, require_equals = true, default_missing_value = "")]
    to_ptx: Option<String>,
    /// AMDGPU assembly for a processor (gfx90a, ...); without a value, the gpu.module's
    /// `#rocdl.target` chip. A value that contradicts the target is refused.
    #[arg(long = "to-amdgpu", value_name = "gfxNNN", num_args = 0..=1, require_equals = true, default_missing_value = "")]
    to_amdgpu: Option<String>,
    /// HIP C++ source.
    #[arg(long = "to-hip")]
    to_hip: bool,
    /// For te input: the naive one-thread-per-output reference kernel of every te.compute,
    /// as gpu-level IR (generic form), ready for --to-ptx and `rtile-run --reference`.
    #[arg(long = "emit-naive-gpu")]
    emit_naive_gpu: bool,
    /// With --to-amdgpu: also assemble and link an HSA code object (llvm-mc + ld.lld).
    #[arg(long = "code-object", value_name = "FILE")]
    code_object: Option<String>,
    /// Write the launch manifest (JSON: kernels, grid, block, shared memory, arguments).
    #[arg(long = "manifest", value_name = "FILE")]
    manifest: Option<String>,
    /// The gpu.module to translate when the input has several.
    #[arg(long = "gpu-module", value_name = "NAME")]
    gpu_module: Option<String>,
    /// LLVM optimisation level (default: 0 for --to-llvmir, 3 for PTX/AMDGPU).
    #[arg(long = "opt-level", value_parser = clap::value_parser!(u8).range(0..=3))]
    opt_level: Option<u8>,
    /// Width of `index` in the generated code (64 as upstream, or 32).
    #[arg(long = "index-bitwidth", default_value_t = 64, value_parser = parse_index_bits)]
    index_bitwidth: u32,
    /// Put `fast` on every floating-point operation.
    #[arg(long = "fast-math")]
    fast_math: bool,
    /// Registers per thread of NVPTX kernels (`.maxnreg`): `block` (the block's share of the
    /// 65,536-register file), `none` (ptxas decides), or a number.
    #[arg(long = "max-registers", default_value = "block", value_parser = parse_register_limit, value_name = "block|none|N")]
    max_registers: RegisterLimit,
}

fn parse_register_limit(s: &str) -> Result<RegisterLimit, String> {
    match s {
        "block" => Ok(RegisterLimit::BlockShare),
        "none" => Ok(RegisterLimit::Unbounded),
        n => match n.parse::<u32>() {
            Ok(v) if (24..=255).contains(&v) => Ok(RegisterLimit::Fixed(v)),
            _ => Err("expected block, none, or a register count from 24 to 255".into()),
        },
    }
}

fn parse_index_bits(s: &str) -> Result<u32, String> {
    match s {
        "32" => Ok(32),
        "64" => Ok(64),
        _ => Err("expected 32 or 64".into()),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let (name, text) = match cli.input.as_deref() {
        None | Some("-") => {
            let mut s = String::new();
            if let Err(e) = std::io::stdin().read_to_string(&mut s) {
                eprintln!("rtile-translate: cannot read stdin: {e}");
                return ExitCode::FAILURE;
            }
            ("<stdin>".to_string(), s)
        }
        Some(p) => match std::fs::read_to_string(p) {
            Ok(s) => (p.to_string(), s),
            Err(e) => {
                eprintln!("rtile-translate: cannot read {p}: {e}");
                return ExitCode::FAILURE;
            }
        },
    };
    let mut ctx = Context::new(Arc::new(rtile_dialects::dialect_registry()));
    // The gpu-level dialects are read generically, so they need not be registered.
    ctx.allow_unregistered = true;
    let file = ctx.add_source(name, text.clone());
    let parsed = parse_source(&mut ctx, file);
    if cli.emit_naive_gpu {
        let naive = match &parsed {
            Ok(out) => rtile_targets::naive::naive_module(&ctx, out.module),
            Err(_) => Err("the input does not parse".to_string()),
        };
        let text = match naive {
            Ok(t) => t,
            Err(e) => {
                if let Err(d) = &parsed {
                    eprint!("{}", render(&ctx, d));
                }
                eprintln!("rtile-translate: {e}");
                return ExitCode::FAILURE;
            }
        };
        let written = match &cli.output {
            Some(p) if p != "-" => std::fs::write(p, &text),
            _ => std::io::stdout().write_all(text.as_bytes()),
        };
        if let Err(e) = written {
            eprintln!("rtile-translate: cannot write output: {e}");
            return ExitCode::FAILURE;
        }
        return ExitCode::SUCCESS;
    }
    let root = match parsed {
        Ok(out) => out.module,
        Err(d) => {
            eprint!("{}", render(&ctx, &d));
            return ExitCode::FAILURE;
        }
    };
    let (module, mname) = match select_gpu_module(&ctx, root, cli.gpu_module.as_deref()) {
        Ok(m) => m,
        Err(d) => {
            eprint!("{}", render(&ctx, &d));
            return ExitCode::FAILURE;
        }
    };
    let (out, target) = if let Some(f) = &cli.to_llvmir {
        let flavor = match f.as_str() {
            "nvptx" => Flavor::Nvptx,
            "amdgpu" => Flavor::Amdgpu,
            other => {
                eprintln!("rtile-translate: --to-llvmir={other}: expected nvptx or amdgpu");
                return ExitCode::FAILURE;
            }
        };
        // The module's own target when it names one of this flavor, else the newest of each.
        let kind = if flavor == Flavor::Nvptx {
            TargetKind::Nvvm
        } else {
            TargetKind::Rocdl
        };
        let cpu = module_targets(&ctx, module)
            .into_iter()
            .find(|t| t.kind == kind)
            .map(|t| t.chip)
            .unwrap_or_else(|| {
                if flavor == Flavor::Nvptx {
                    // wgmma exists on sm_90a only.
                    if rtile_targets::llvmir::sm90::uses_sm90_ops(&ctx, module) {
                        "sm_90a".into()
                    } else {
                        "sm_90".into()
                    }
                } else {
                    "gfx90a".into()
                }
            });
        (Output::LlvmIr { flavor, cpu }, "llvmir".to_string())
    } else if let Some((asked, kind)) = (cli.to_ptx.as_ref().map(|a| (a, TargetKind::Nvvm)))
        .or_else(|| cli.to_amdgpu.as_ref().map(|a| (a, TargetKind::Rocdl)))
    {
        // An empty value is the bare flag: the module's target decides.
        let asked = (!asked.is_empty()).then_some(asked.as_str());
        match resolve_arch(&ctx, module, kind, asked) {
            Ok(arch) if kind == TargetKind::Nvvm => (Output::Ptx { sm: arch.clone() }, arch),
            Ok(arch) => (Output::Amdgpu { gfx: arch.clone() }, arch),
            Err(d) => {
                eprint!("{}", render(&ctx, &d));
                return ExitCode::FAILURE;
            }
        }
    } else {
        (Output::Hip, "hip".to_string())
    };
    let opts = TranslateOptions {
        opt_level: cli.opt_level,
        index_bits: cli.index_bitwidth,
        fast_math: cli.fast_math,
        max_registers: cli.max_registers,
    };
    let result = match translate(&ctx, module, &mname, &out, &opts) {
        Ok(r) => r,
        Err(d) => {
            eprint!("{}", render(&ctx, &d));
            return ExitCode::FAILURE;
        }
    };
    if let Some(path) = &cli.manifest {
        match manifest_for(&ctx, module, &mname, &target) {
            Ok(m) => {
                if let Err(e) = std::fs::write(path, m.to_json() + "\n") {
                    eprintln!("rtile-translate: cannot write {path}: {e}");
                    return ExitCode::FAILURE;
                }
            }
            Err(d) => {
                eprint!("{}", render(&ctx, &d));
                return ExitCode::FAILURE;
            }
        }
    }
    if let (Some(path), Output::Amdgpu { gfx }) = (&cli.code_object, &out)
        && let Err(e) =
            rtile_targets::codegen::link_amdgpu(&result, gfx, std::path::Path::new(path))
    {
        eprintln!("rtile-translate: {e}");
        return ExitCode::FAILURE;
    }
    let written = match &cli.output {
        Some(p) if p != "-" => std::fs::write(p, &result),
        _ => std::io::stdout().write_all(result.as_bytes()),
    };
    if let Err(e) = written {
        eprintln!("rtile-translate: cannot write output: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
