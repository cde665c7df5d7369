//! LLVM through inkwell: parse and verify the emitted LLVM IR, optimise it with the new
//! pass manager (`default<O3>`), and emit PTX or AMDGPU assembly with a target machine;
//! link AMDGPU code objects with `llvm-mc` and `ld.lld` (SETUP-NOTES.md §4c).

use std::path::{Path, PathBuf};
use std::process::Command;

use inkwell::OptimizationLevel;
use inkwell::context::Context as LlvmContext;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{
    CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine, TargetTriple,
};

use crate::llvmir::Flavor;

/// NVIDIA architectures accepted by `--to-ptx`.
pub const SM_ARCHS: &[&str] = &[
    "sm_60", "sm_61", "sm_62", "sm_70", "sm_72", "sm_75", "sm_80", "sm_86", "sm_87", "sm_89",
    "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_120", "sm_120a",
];

fn init_targets() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        Target::initialize_nvptx(&InitializationConfig::default());
        Target::initialize_amd_gpu(&InitializationConfig::default());
    });
}

/// Checks a `--to-ptx` / `--to-amdgpu` processor name.
pub fn check_cpu(flavor: Flavor, cpu: &str) -> Result<(), String> {
    match flavor {
        Flavor::Nvptx if SM_ARCHS.contains(&cpu) => Ok(()),
        Flavor::Nvptx => Err(format!(
            "unknown NVIDIA architecture '{cpu}' (expected one of {})",
            SM_ARCHS.join(", ")
        )),
        Flavor::Amdgpu => {
            let ok = cpu
                .strip_prefix("gfx")
                .is_some_and(|r| !r.is_empty() && r.chars().all(|c| c.is_ascii_hexdigit()));
            if ok {
                Ok(())
            } else {
                Err(format!(
                    "unknown AMDGPU processor '{cpu}' (expected gfxNNN, e.g. gfx90a)"
                ))
            }
        }
    }
}

/// The target machine for `flavor`/`cpu` (`sm_90`, `gfx90a`).
pub fn target_machine(flavor: Flavor, cpu: &str) -> Result<TargetMachine, String> {
    init_targets();
    check_cpu(flavor, cpu)?;
    let triple = TargetTriple::create(flavor.triple());
    let target = Target::from_triple(&triple).map_err(|e| e.to_string())?;
    // Arch-specific (`a`) targets need PTX 8.0 (sm_90a) / 8.6 (sm_100a); sm_120 and
    // sm_120a need 8.7 (LLVM 22 aborts the process on sm_120 at 8.6).
    let features = match cpu {
        "sm_90a" => "+ptx80",
        "sm_100" | "sm_100a" => "+ptx86",
        "sm_120" | "sm_120a" => "+ptx87",
        _ => "",
    };
    target
        .create_target_machine(
            &triple,
            cpu,
            features,
            OptimizationLevel::Aggressive,
            RelocMode::PIC,
            CodeModel::Default,
        )
        .ok_or_else(|| format!("LLVM could not create a target machine for {cpu}"))
}

/// The data layout string of a target machine.
pub fn datalayout(tm: &TargetMachine) -> String {
    tm.get_target_data()
        .get_data_layout()
        .as_str()
        .to_string_lossy()
        .into_owned()
}

/// Parses and verifies LLVM assembly.
pub fn parse_ir<'c>(ctx: &'c LlvmContext, text: &str, name: &str) -> Result<Module<'c>, String> {
    let buf = MemoryBuffer::create_from_memory_range_copy(text.as_bytes(), name);
    let m = ctx
        .create_module_from_ir(buf)
        .map_err(|e| format!("LLVM rejected the generated IR (an rtile bug): {e}"))?;
    m.verify()
        .map_err(|e| format!("the generated LLVM IR does not verify (an rtile bug): {e}"))?;
    Ok(m)
}

/// Runs LLVM's `default<O{level}>` pipeline.
pub fn optimize(m: &Module, tm: &TargetMachine, level: u8) -> Result<(), String> {
    let opts = PassBuilderOptions::create();
    opts.set_loop_vectorization(true);
    opts.set_loop_slp_vectorization(true);
    opts.set_loop_unrolling(true);
    m.run_passes(&format!("default<O{}>", level.min(3)), tm, opts)
        .map_err(|e| format!("LLVM optimisation failed: {e}"))
}

/// Emits the module's assembly (PTX for NVPTX, GCN assembly for AMDGPU).
pub fn emit_asm(m: &Module, tm: &TargetMachine) -> Result<String, String> {
    let buf = tm
        .write_to_memory_buffer(m, FileType::Assembly)
        .map_err(|e| format!("LLVM code generation failed: {e}"))?;
    Ok(String::from_utf8_lossy(buf.as_slice()).into_owned())
}

/// Finds an LLVM 22 tool: `$RTILE_LLVM_BIN/<name>`, `/usr/lib/llvm-22/bin/<name>`, or
/// `<name>-22` on PATH.
pub fn llvm_tool(name: &str) -> Option<PathBuf> {
    let mut cands = Vec::new();
    if let Some(d) = std::env::var_os("RTILE_LLVM_BIN") {
        cands.push(PathBuf::from(d).join(name));
    }
    cands.push(PathBuf::from("/usr/lib/llvm-22/bin").join(name));
    if let Some(path) = std::env::var_os("PATH") {
        for d in std::env::split_paths(&path) {
            cands.push(d.join(format!("{name}-22")));
        }
    }
    cands.into_iter().find(|p| p.is_file())
}

/// Assembles GCN assembly with `llvm-mc` and links it with `ld.lld -shared` into an
/// HSA code object at `out`.
pub fn link_amdgpu(asm: &str, gfx: &str, out: &Path) -> Result<(), String> {
    let mc = llvm_tool("llvm-mc").ok_or("llvm-mc (LLVM 22) not found; install llvm-22")?;
    let lld = llvm_tool("ld.lld").ok_or("ld.lld (LLVM 22) not found; install lld-22")?;
    let dir = std::env::temp_dir().join(format!("rtile-amdgpu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let s = dir.join("kernel.s");
    let o = dir.join("kernel.o");
    std::fs::write(&s, asm).map_err(|e| format!("{}: {e}", s.display()))?;
    let run = |cmd: &mut Command, what: &str| -> Result<(), String> {
        let r = cmd.output().map_err(|e| format!("{what}: {e}"))?;
        if r.status.success() {
            Ok(())
        } else {
            Err(format!(
                "{what} failed: {}",
                String::from_utf8_lossy(&r.stderr)
            ))
        }
    };
    let res = run(
        Command::new(&mc)
            .arg("-triple=amdgcn-amd-amdhsa")
            .arg(format!("-mcpu={gfx}"))
            .arg("-filetype=obj")
            .arg(&s)
            .arg("-o")
            .arg(&o),
        "llvm-mc",
    )
    .and_then(|()| {
        run(
            Command::new(&lld).arg("-shared").arg(&o).arg("-o").arg(out),
            "ld.lld",
        )
    });
    let _ = std::fs::remove_dir_all(&dir);
    res
}
