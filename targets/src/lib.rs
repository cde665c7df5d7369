//! rtile's back ends: gpu-level IR (upstream `gpu`/`scf`/`memref`/`vector`/`arith`/`math`
//! ops, generic form) → LLVM IR → PTX (NVPTX, sm_70…sm_90a) or AMDGPU code objects, and
//! a HIP C++ emitter; plus the launch manifest that `rtile-run` reads.
//!
//! This is a leaf crate: it links LLVM (inkwell, statically) and nothing else in the
//! workspace depends on it, so `rtile-opt` and `rtile-run` stay LLVM-free.
//!
//! - [`gpuir`]: reading the gpu-level IR by op name/operands/attributes (no dependency on
//!   rtile's own gpu dialect definitions).
//! - [`llvmir`]: the LLVM IR text for NVPTX and AMDGPU; [`mathlib`]: libdevice-free math.
//! - [`codegen`]: inkwell: parse + verify, `default<O3>`, PTX/GCN emission, code objects.
//! - [`hip`]: HIP C++.
//! - [`naive`]: the naive one-thread-per-output reference kernel of a `te.compute`.
//! - [`manifest_for`]: the launch manifest of a `gpu.module`.

pub mod codegen;
pub mod gpuir;
pub mod hip;
pub mod llvmir;
pub mod mathlib;
pub mod naive;

use rtile::diagnostics::Diagnostic;
use rtile::ir::{Context, OpId, Type, TypeKind};
use rtile_manifest::{ArgKind, ArgManifest, KernelManifest, Manifest, Role, TensorMapArg};

use crate::gpuir::{
    MemSpace, dtype_name, gpu_funcs, is_read, is_written, kernel_info, memref_info,
};
use crate::llvmir::{Flavor, LlvmOptions};

/// What to produce.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// LLVM IR for `flavor` (optimised with O`opt_level` when > 0).
    LlvmIr { flavor: Flavor, cpu: String },
    /// PTX for an `sm_XX` architecture.
    Ptx { sm: String },
    /// AMDGPU assembly for a `gfxNNN` processor.
    Amdgpu { gfx: String },
    /// HIP C++.
    Hip,
}

/// Options shared by the LLVM outputs.
#[derive(Clone, Debug)]
pub struct TranslateOptions {
    /// LLVM optimisation level for `--to-llvmir` (0 = as emitted); PTX and AMDGPU always
    /// use `default<O3>` unless this is set explicitly.
    pub opt_level: Option<u8>,
    /// `index` width: 64 (upstream) or 32.
    pub index_bits: u32,
    /// `fast` on every float op.
    pub fast_math: bool,
    /// `.maxnreg` of NVPTX kernels (the block's register share by default).
    pub max_registers: llvmir::RegisterLimit,
}

impl Default for TranslateOptions {
    fn default() -> Self {
        TranslateOptions {
            opt_level: None,
            index_bits: 64,
            fast_math: false,
            max_registers: llvmir::RegisterLimit::BlockShare,
        }
    }
}

/// The architecture to compile `module` for with a `kind` back end (`--to-ptx[=sm]`,
/// `--to-amdgpu[=gfx]`), from its `targets` (the device it was lowered for) and the
/// architecture asked for on the command line, if any:
/// - asked and the module names a target of this kind: they must match (the `a`-suffixed
///   architecture of the same number, `sm_90a` for `sm_90`, also matches: it runs its code);
/// - asked and the module names targets of the other kind only: refused;
/// - asked and the module names no target (hand-written gpu-level IR): as asked;
/// - not asked: the module's target of this kind, else an error asking for one.
pub fn resolve_arch(
    ctx: &Context,
    module: OpId,
    kind: rtile_dialects::gpu::target::TargetKind,
    asked: Option<&str>,
) -> Result<String, Diagnostic> {
    use rtile_dialects::gpu::target::{TargetKind, module_targets};
    let all = module_targets(ctx, module);
    let mine: Vec<&str> = all
        .iter()
        .filter(|t| t.kind == kind)
        .map(|t| t.chip.as_str())
        .collect();
    let flag = match kind {
        TargetKind::Nvvm => "--to-ptx",
        TargetKind::Rocdl => "--to-amdgpu",
    };
    let name = ctx
        .inherent_attr(module, "sym_name")
        .and_then(|a| a.as_str())
        .unwrap_or("");
    let lowered_for = || {
        let chips: Vec<String> = all
            .iter()
            .map(|t| format!("{} ({})", t.chip, t.kind.dialect()))
            .collect();
        let device = rtile_dialects::gpu::target::module_device(ctx, module)
            .map(|d| format!(", lowered for device '{d}'"))
            .unwrap_or_default();
        format!("gpu.module @{name} targets {}{device}", chips.join(", "))
    };
    match asked {
        _ if mine.is_empty() && !all.is_empty() => Err(Diagnostic::op_error(
            ctx,
            module,
            format!("{}: it cannot be translated with {flag}", lowered_for()),
        )),
        Some(a) if mine.is_empty() => Ok(a.to_string()),
        Some(a) => {
            let matches = |c: &str| a == c || a.strip_suffix('a') == Some(c);
            if mine.iter().any(|c| matches(c)) {
                Ok(a.to_string())
            } else {
                Err(Diagnostic::op_error(
                    ctx,
                    module,
                    format!(
                        "{}, not {a}: translate it with {flag}={}, or lower it again for a device of {a}",
                        lowered_for(),
                        mine[0]
                    ),
                ))
            }
        }
        None => mine.first().map(|c| c.to_string()).ok_or_else(|| {
            Diagnostic::op_error(
                ctx,
                module,
                format!("gpu.module @{name} names no target: give the architecture ({flag}=ARCH)"),
            )
        }),
    }
}

/// Picks the `gpu.module` to translate: the one named `name`, or the only one.
pub fn select_gpu_module(
    ctx: &Context,
    root: OpId,
    name: Option<&str>,
) -> Result<(OpId, String), Diagnostic> {
    let mods = gpuir::gpu_modules(ctx, root);
    match name {
        Some(n) => mods.into_iter().find(|(_, s)| s == n).ok_or_else(|| {
            Diagnostic::error(
                ctx.op(root).span,
                format!("no gpu.module named @{n} in the input"),
            )
        }),
        None => match mods.len() {
            0 => Err(Diagnostic::error(
                ctx.op(root).span,
                "the input has no gpu.module to translate",
            )),
            1 => Ok(mods.into_iter().next().unwrap_or((root, String::new()))),
            _ => Err(Diagnostic::error(
                ctx.op(root).span,
                format!(
                    "the input has {} gpu.modules; choose one with --gpu-module ({})",
                    mods.len(),
                    mods.iter()
                        .map(|(_, n)| format!("@{n}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )),
        },
    }
}

/// Error without a source position (LLVM, tools).
fn plain(msg: impl Into<String>) -> Diagnostic {
    Diagnostic::error(None, msg)
}

/// The LLVM IR text (before LLVM parses it) of `module` for a target machine.
pub fn llvm_text(
    ctx: &Context,
    module: OpId,
    name: &str,
    flavor: Flavor,
    tm: &inkwell::targets::TargetMachine,
    opts: &TranslateOptions,
) -> Result<String, Diagnostic> {
    let lo = LlvmOptions {
        flavor,
        datalayout: codegen::datalayout(tm),
        index_bits: opts.index_bits,
        fast_math: opts.fast_math,
        max_registers: opts.max_registers,
    };
    llvmir::translate_module(ctx, module, name, &lo)
}

/// Translates `module` (a `gpu.module`) to the requested output text.
pub fn translate(
    ctx: &Context,
    module: OpId,
    name: &str,
    out: &Output,
    opts: &TranslateOptions,
) -> Result<String, Diagnostic> {
    let (flavor, cpu, default_opt) = match out {
        Output::Hip => return hip::translate_module(ctx, module, name),
        Output::LlvmIr { flavor, cpu } => (*flavor, cpu.as_str(), 0),
        Output::Ptx { sm } => (Flavor::Nvptx, sm.as_str(), 3),
        Output::Amdgpu { gfx } => (Flavor::Amdgpu, gfx.as_str(), 3),
    };
    match flavor {
        Flavor::Nvptx => llvmir::nvgpu::check_arch(ctx, module, cpu)?,
        Flavor::Amdgpu if !cpu.is_empty() => llvmir::amdgpu::check_arch(ctx, module, cpu)?,
        Flavor::Amdgpu => {}
    }
    let tm = codegen::target_machine(flavor, cpu).map_err(plain)?;
    let text = llvm_text(ctx, module, name, flavor, &tm, opts)?;
    let llctx = inkwell::context::Context::create();
    let m = codegen::parse_ir(&llctx, &text, name).map_err(plain)?;
    let level = opts.opt_level.unwrap_or(default_opt);
    if level > 0 {
        codegen::optimize(&m, &tm, level).map_err(plain)?;
    }
    match out {
        Output::LlvmIr { .. } => Ok(m.print_to_string().to_string()),
        _ => codegen::emit_asm(&m, &tm).map_err(plain),
    }
}

/// For each argument of kernel `f` (types `args`), its tensor map when it is a
/// `!nvgpu.tensormap.descriptor`: the memref argument it covers comes from the kernel's
/// `rtile.tensor_map_of` (one index per tensor-map argument, in order), the box and swizzle
/// from the type.
fn tensor_map_args(
    ctx: &Context,
    f: OpId,
    args: &[Type],
) -> Result<Vec<Option<TensorMapArg>>, Diagnostic> {
    use rtile_gpu_vocab::nvgpu_sm90::TensorMapType;
    let of = ctx
        .attr(f, "rtile.tensor_map_of")
        .and_then(|a| a.as_dense_ints().map(|v| v.to_vec()))
        .unwrap_or_default();
    let mut k = 0;
    let mut out = Vec::with_capacity(args.len());
    for (i, t) in args.iter().enumerate() {
        let Some(map) = TensorMapType::of(t) else {
            out.push(None);
            continue;
        };
        let map = map.map_err(|e| gpuir::op_error(ctx, f, format!("argument {i}: {e}")))?;
        let target = of
            .get(k)
            .and_then(|&j| usize::try_from(j).ok())
            .filter(|&j| args.get(j).is_some_and(|t| memref_info(t).is_ok()))
            .ok_or_else(|| {
                gpuir::op_error(
                    ctx,
                    f,
                    format!(
                        "argument {i} is a tensor map: the kernel's rtile.tensor_map_of must name the memref argument it covers"
                    ),
                )
            })?;
        k += 1;
        out.push(Some(TensorMapArg {
            of: target,
            box_shape: map.box_shape.clone(),
            swizzle: map.swizzle.bytes() as u32,
        }));
    }
    Ok(out)
}

/// The launch manifest of `module`'s kernels for `target` (`sm_90`, `gfx90a`, `hip`).
pub fn manifest_for(
    ctx: &Context,
    module: OpId,
    name: &str,
    target: &str,
) -> Result<Manifest, Diagnostic> {
    let mut kernels = Vec::new();
    for f in gpu_funcs(ctx, module) {
        let info = kernel_info(ctx, f)?;
        if !info.is_kernel {
            continue;
        }
        let mut args = Vec::new();
        let maps = tensor_map_args(ctx, f, &info.launch.args)?;
        // The arguments in launch order, as `rtile-run` binds its buffers: their types are the
        // launch's, their roles what the body does with the entry-block arguments.
        for (i, (&a, t)) in info.args.iter().zip(&info.launch.args).enumerate() {
            let (kind, shape, elem) = match t.kind() {
                TypeKind::MemRef { .. } => {
                    let mi = memref_info(t).map_err(|e| gpuir::op_error(ctx, f, e))?;
                    (ArgKind::Memref, mi.shape, mi.elem)
                }
                _ => match rtile_gpu_vocab::nvgpu_sm90::TensorMapType::of(t) {
                    Some(Ok(map)) => (ArgKind::Tensormap, Vec::new(), map.elem),
                    _ => (ArgKind::Scalar, Vec::new(), *t),
                },
            };
            let dtype = dtype_name(&elem).ok_or_else(|| {
                gpuir::op_error(ctx, f, format!("argument {i}: unsupported element type"))
            })?;
            let mapped = maps.iter().flatten().any(|m| m.of == i);
            let role = if is_written(ctx, f, a) && is_read(ctx, f, a) {
                Role::Inout
            } else if is_written(ctx, f, a) {
                Role::Output
            } else if is_read(ctx, f, a)
                || mapped
                || matches!(kind, ArgKind::Scalar | ArgKind::Tensormap)
                || ctx.has_uses(a)
            {
                Role::Input
            } else {
                Role::Unused
            };
            args.push(ArgManifest {
                name: format!("arg{i}"),
                kind,
                shape,
                dtype: dtype.to_string(),
                role,
                tensor_map: maps[i].clone(),
            });
        }
        let mut static_shared = 0u64;
        let mut add_shared = |t: &Type| {
            if let Ok(mi) = memref_info(t)
                && mi.space == MemSpace::Workgroup
            {
                let bytes = mi.elem.bit_width().unwrap_or(32).div_ceil(8) as u64;
                static_shared += mi.span_elements().max(1) as u64 * bytes;
            }
        };
        for &w in &info.workgroup {
            add_shared(ctx.value_type(w));
        }
        ctx.walk(f, rtile::ir::WalkOrder::PreOrder, &mut |_, op| {
            if ctx.op_name(op) == "memref.alloc" || ctx.op_name(op) == "memref.alloca" {
                for &r in ctx.results(op) {
                    add_shared(ctx.value_type(r));
                }
            }
        });
        kernels.push(KernelManifest {
            name: info.name.clone(),
            grid: info.launch.grid,
            block: info.launch.block,
            dynamic_shared_memory: info.launch.dynamic_shared_memory,
            static_shared_memory: static_shared,
            args,
        });
    }
    Ok(Manifest {
        version: rtile_manifest::VERSION,
        target: target.to_string(),
        module: name.to_string(),
        kernels,
    })
}
