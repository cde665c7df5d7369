//! The one LLVM-linked test binary of rtile-targets: translation of the lit kernels and
//! the interop corpus in-process, emitted-text properties, and the helpers.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rtile::dialect::DialectRegistry;
use rtile::ir::{Context, OpId};
use rtile::parser::parse_str;
use rtile_targets::llvmir::Flavor;
use rtile_targets::{Output, TranslateOptions, manifest_for, select_gpu_module, translate};

mod sm90;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn parse(text: &str) -> (Context, OpId) {
    let mut ctx = Context::new(Arc::new(DialectRegistry::with_builtin()));
    ctx.allow_unregistered = true;
    let m = parse_str(&mut ctx, "test.mlir", text)
        .expect("parses")
        .module;
    (ctx, m)
}

fn kernels() -> Vec<(String, String)> {
    let mut v = Vec::new();
    for p in [
        "tests/lit/interop/corpus/12-gpu-module.mlir",
        "tests/lit/interop/corpus/13-gpu-shared.mlir",
        "tests/lit/interop/corpus/23-gpu-shuffle-sync.mlir",
        "tests/lit/targets/Inputs/matmul-tiled.mlir",
        "tests/lit/targets/Inputs/ops.mlir",
        "tests/lit/targets/Inputs/types.mlir",
        "runtime-cuda/kernels/copy.mlir",
        "runtime-cuda/kernels/smem.mlir",
        "runtime-cuda/kernels/fma.mlir",
    ] {
        let text = std::fs::read_to_string(repo().join(p)).expect("kernel file");
        v.push((p.to_string(), text));
    }
    v
}

#[test]
fn every_kernel_translates_to_every_target() {
    let outs = [
        Output::LlvmIr {
            flavor: Flavor::Nvptx,
            cpu: "sm_90".into(),
        },
        Output::LlvmIr {
            flavor: Flavor::Amdgpu,
            cpu: "gfx90a".into(),
        },
        Output::Ptx { sm: "sm_70".into() },
        Output::Ptx { sm: "sm_80".into() },
        Output::Ptx { sm: "sm_90".into() },
        Output::Ptx {
            sm: "sm_90a".into(),
        },
        Output::Amdgpu {
            gfx: "gfx90a".into(),
        },
        Output::Hip,
    ];
    for (name, text) in kernels() {
        let (ctx, root) = parse(&text);
        let (m, mname) = select_gpu_module(&ctx, root, None).expect("one gpu.module");
        for out in &outs {
            let r = translate(&ctx, m, &mname, out, &TranslateOptions::default());
            let r = r.unwrap_or_else(|d| panic!("{name} {out:?}: {}", d.message));
            match out {
                Output::Ptx { sm } => {
                    assert!(r.contains(&format!(".target {sm}")), "{name}");
                    assert!(r.contains(".visible .entry"), "{name}");
                    // No libdevice or libcalls: every call is to a defined function.
                    assert!(
                        !r.contains(".extern .func"),
                        "{name} {sm}: unresolved call\n{r}"
                    );
                }
                Output::Amdgpu { .. } => assert!(r.contains(".amdhsa_kernel"), "{name}"),
                Output::Hip => assert!(r.contains("__global__"), "{name}"),
                Output::LlvmIr { .. } => assert!(r.contains("define"), "{name}"),
            }
        }
        let man = manifest_for(&ctx, m, &mname, "sm_90").expect("manifest");
        assert!(!man.kernels.is_empty(), "{name}");
    }
}

#[test]
fn index_bitwidth_and_fast_math_options() {
    let text = std::fs::read_to_string(repo().join("tests/lit/interop/corpus/12-gpu-module.mlir"))
        .unwrap();
    let (ctx, root) = parse(&text);
    let (m, n) = select_gpu_module(&ctx, root, None).unwrap();
    let o = TranslateOptions {
        opt_level: Some(0),
        index_bits: 32,
        fast_math: true,
        ..TranslateOptions::default()
    };
    let ir = translate(
        &ctx,
        m,
        &n,
        &Output::LlvmIr {
            flavor: Flavor::Nvptx,
            cpu: "sm_80".into(),
        },
        &o,
    )
    .unwrap();
    assert!(ir.contains("fadd fast float"), "{ir}");
    assert!(!ir.contains("zext i32"), "index stays i32:\n{ir}");
}

const SMALL: &str = r#"
"builtin.module"() ({
  "gpu.module"() <{sym_name = "k"}> ({
    "gpu.func"() <{function_type = (memref<8xf16>, memref<8xbf16>, memref<2x4xf32, strided<[8, 1], offset: 3>>) -> ()}> ({
    ^bb0(%a: memref<8xf16>, %b: memref<8xbf16>, %c: memref<2x4xf32, strided<[8, 1], offset: 3>>):
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %h = "arith.constant"() <{value = 1.500000e+00 : f16}> : () -> f16
      %x = "memref.load"(%a, %t) : (memref<8xf16>, index) -> f16
      %y = "arith.mulf"(%x, %h) <{fastmath = #arith.fastmath<nnan,ninf>}> : (f16, f16) -> f16
      %e = "math.exp"(%y) <{fastmath = #arith.fastmath<none>}> : (f16) -> f16
      "memref.store"(%e, %a, %t) : (f16, memref<8xf16>, index) -> ()
      %bv = "memref.load"(%b, %t) : (memref<8xbf16>, index) -> bf16
      %bf = "arith.extf"(%bv) : (bf16) -> f32
      %c1 = "arith.constant"() <{value = 1 : index}> : () -> index
      "memref.store"(%bf, %c, %c1, %t) : (f32, memref<2x4xf32, strided<[8, 1], offset: 3>>, index, index) -> ()
      "gpu.return"() : () -> ()
    }) {gpu.kernel, sym_name = "k", workgroup_attributions = 0 : i64} : () -> ()
  }) : () -> ()
}) : () -> ()
"#;

#[test]
fn half_types_strided_layouts_and_flags() {
    let (ctx, root) = parse(SMALL);
    let (m, n) = select_gpu_module(&ctx, root, None).unwrap();
    let ir = translate(
        &ctx,
        m,
        &n,
        &Output::LlvmIr {
            flavor: Flavor::Nvptx,
            cpu: "sm_90".into(),
        },
        &TranslateOptions::default(),
    )
    .unwrap();
    assert!(ir.contains("fmul nnan ninf half"), "{ir}");
    assert!(ir.contains("0xH3E00"), "f16 constant 1.5:\n{ir}");
    assert!(ir.contains("fpext half"), "{ir}");
    assert!(ir.contains("fpext bfloat"), "{ir}");
    // offset 3 + 1 * 8 = 11.
    assert!(ir.contains("add nsw i64 %") && ir.contains(", 11"), "{ir}");
    let ptx = translate(
        &ctx,
        m,
        &n,
        &Output::Ptx { sm: "sm_80".into() },
        &TranslateOptions::default(),
    )
    .unwrap();
    assert!(ptx.contains("ex2.approx"), "{ptx}");
    let hip = translate(&ctx, m, &n, &Output::Hip, &TranslateOptions::default()).unwrap();
    assert!(hip.contains("_Float16* __restrict__ arg0"), "{hip}");
    assert!(hip.contains("(_Float16)expf((float)"), "{hip}");
    assert!(
        hip.contains("arg2[(int64_t)1 * 8 + v1 + 3]")
            || hip.contains("arg2[3 + (int64_t)1 * 8 + v1]"),
        "{hip}"
    );
}

#[test]
fn errors_are_diagnostics() {
    let (ctx, root) = parse(r#""builtin.module"() ({}) : () -> ()"#);
    assert!(select_gpu_module(&ctx, root, None).is_err());
    let bad = SMALL.replace("\"math.exp\"", "\"math.sinh\"");
    let (ctx, root) = parse(&bad);
    let (m, n) = select_gpu_module(&ctx, root, None).unwrap();
    let e = translate(
        &ctx,
        m,
        &n,
        &Output::Ptx { sm: "sm_90".into() },
        &TranslateOptions::default(),
    )
    .unwrap_err();
    assert!(
        e.message.contains("math.sinh") && e.span.is_some(),
        "{}",
        e.message
    );
    let e = translate(
        &ctx,
        m,
        &n,
        &Output::Ptx { sm: "sm_31".into() },
        &TranslateOptions::default(),
    )
    .unwrap_err();
    assert!(e.message.contains("sm_31"));
    let dynamic = SMALL.replace("memref<8xf16>", "memref<?xf16>");
    let (ctx, root) = parse(&dynamic);
    let (m, n) = select_gpu_module(&ctx, root, None).unwrap();
    let e = translate(&ctx, m, &n, &Output::Hip, &TranslateOptions::default()).unwrap_err();
    assert!(e.message.contains("dynamic"), "{}", e.message);
}

#[test]
fn amdgpu_code_object_links() {
    let text =
        std::fs::read_to_string(repo().join("tests/lit/targets/Inputs/matmul-tiled.mlir")).unwrap();
    let (ctx, root) = parse(&text);
    let (m, n) = select_gpu_module(&ctx, root, None).unwrap();
    let asm = translate(
        &ctx,
        m,
        &n,
        &Output::Amdgpu {
            gfx: "gfx90a".into(),
        },
        &TranslateOptions::default(),
    )
    .unwrap();
    if rtile_targets::codegen::llvm_tool("ld.lld").is_none()
        || rtile_targets::codegen::llvm_tool("llvm-mc").is_none()
    {
        eprintln!("skipping the link: llvm-mc / ld.lld (LLVM 22) not installed");
        return;
    }
    let out = std::env::temp_dir().join(format!("rtile-test-{}.hsaco", std::process::id()));
    rtile_targets::codegen::link_amdgpu(&asm, "gfx90a", &out).expect("links");
    let bytes = std::fs::read(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    assert_eq!(&bytes[..4], b"\x7fELF");
    // e_machine = EM_AMDGPU (224).
    assert_eq!(u16::from_le_bytes([bytes[18], bytes[19]]), 224);
}

#[test]
fn checked_in_microbenchmark_ptx_is_current() {
    // runtime-cuda embeds PTX produced by rtile-translate (rtile-run links no LLVM); it
    // must be what the current translator produces (`make cuda-kernels` regenerates it).
    for k in ["copy", "smem", "fma"] {
        let dir = repo().join("runtime-cuda/kernels");
        let text = std::fs::read_to_string(dir.join(format!("{k}.mlir"))).unwrap();
        let (ctx, root) = parse(&text);
        let (m, n) = select_gpu_module(&ctx, root, None).unwrap();
        let ptx = translate(
            &ctx,
            m,
            &n,
            &Output::Ptx { sm: "sm_70".into() },
            &TranslateOptions::default(),
        )
        .unwrap();
        let stored = std::fs::read_to_string(dir.join(format!("{k}.ptx"))).unwrap();
        assert_eq!(
            ptx, stored,
            "runtime-cuda/kernels/{k}.ptx is stale: run `make cuda-kernels`"
        );
        let man = manifest_for(&ctx, m, &n, "sm_70").unwrap().to_json() + "\n";
        let stored = std::fs::read_to_string(dir.join(format!("{k}.json"))).unwrap();
        assert_eq!(man, stored, "runtime-cuda/kernels/{k}.json is stale");
    }
}

#[test]
fn naive_reference_kernels_of_the_small_suite() {
    let text = std::fs::read_to_string(repo().join("bench/ops/roller-table1-small.mlir")).unwrap();
    let naive = rtile_targets::naive::naive_module_from_text(&text).expect("naive module");
    let (ctx, root) = parse(&naive);
    let (m, n) = select_gpu_module(&ctx, root, None).unwrap();
    let man = manifest_for(&ctx, m, &n, "sm_90").unwrap();
    assert_eq!(man.kernels.len(), 34);
    for k in &man.kernels {
        assert_eq!(k.block, Some([256, 1, 1]));
        let out = k.args.last().unwrap();
        assert_eq!(out.role, rtile_manifest::Role::Output);
        let total: i64 = out.shape.iter().product();
        assert_eq!(k.grid.unwrap()[0] as i64, (total + 255) / 256, "{}", k.name);
    }
    for out in [
        Output::Ptx { sm: "sm_80".into() },
        Output::Amdgpu {
            gfx: "gfx90a".into(),
        },
        Output::Hip,
    ] {
        translate(&ctx, m, &n, &out, &TranslateOptions::default())
            .unwrap_or_else(|d| panic!("{out:?}: {}", d.message));
    }
}

#[test]
fn malformed_generic_ops_are_diagnostics_not_panics() {
    for (bad, what) in [
        (r#"%y = "arith.addf"(%x) : (f32) -> f32"#, "arith.addf"),
        (r#""arith.negf"(%x) : (f32) -> ()"#, "arith.negf"),
        (r#""memref.store"(%x) : (f32) -> ()"#, "memref.store"),
        (
            r#"%y = "scf.if"() ({ "scf.yield"(%x) : (f32) -> () }) : () -> f32"#,
            "scf.if",
        ),
    ] {
        let text = format!(
            r#""builtin.module"() ({{
  "gpu.module"() <{{sym_name = "m"}}> ({{
    "gpu.func"() <{{function_type = (memref<4xf32>) -> ()}}> ({{
    ^bb0(%a: memref<4xf32>):
      %c0 = "arith.constant"() <{{value = 0 : index}}> : () -> index
      %x = "memref.load"(%a, %c0) : (memref<4xf32>, index) -> f32
      {bad}
      "gpu.return"() : () -> ()
    }}) {{gpu.kernel, sym_name = "k", workgroup_attributions = 0 : i64}} : () -> ()
  }}) : () -> ()
}}) : () -> ()"#
        );
        let (ctx, root) = parse(&text);
        let (m, n) = select_gpu_module(&ctx, root, None).unwrap();
        for out in [Output::Ptx { sm: "sm_80".into() }, Output::Hip] {
            let e = translate(&ctx, m, &n, &out, &TranslateOptions::default()).unwrap_err();
            assert!(e.message.contains(what), "{what}: {}", e.message);
        }
    }
}

/// ptxas as the lit suite finds it (`tests/lit/lit.cfg.py`): `RTILE_PTXAS`, else `ptxas` on
/// `PATH`, else the repository's `.venv-cuda` (`make deps`).
fn find_ptxas() -> Option<PathBuf> {
    let mut cands: Vec<PathBuf> = Vec::new();
    if let Some(p) = std::env::var_os("RTILE_PTXAS") {
        cands.push(PathBuf::from(p));
    }
    if let Some(path) = std::env::var_os("PATH") {
        cands.extend(std::env::split_paths(&path).map(|d| d.join("ptxas")));
    }
    cands.push(repo().join(".venv-cuda/lib/python3.11/site-packages/nvidia/cuda_nvcc/bin/ptxas"));
    cands.into_iter().find(|c| c.is_file())
}

/// The numbers before `label` in ptxas `-v` output (`96 bytes stack frame` → 96), one per
/// kernel.
fn ptxas_numbers(log: &str, label: &str) -> Vec<u64> {
    let mut v = Vec::new();
    for (i, _) in log.match_indices(label) {
        let before = log[..i].trim_end();
        let digits: String = before
            .chars()
            .rev()
            .take_while(char::is_ascii_digit)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        if let Ok(n) = digits.parse() {
            v.push(n);
        }
    }
    v
}

/// Every Table-1 operator at the paper's size, lowered under the construction's best
/// (`--rtile-select` rank 0) program for the H100 (sm_90), the A100 (sm_80) and the V100
/// (sm_70), assembles and keeps its register tile in registers (Roller §4, the register
/// layer): ptxas reports no stack frame and no spills, and never "too much shared data"
/// (tiles over 48 KiB come from dynamic shared memory). Without ptxas the test prints why
/// it is skipped.
#[test]
fn table1_kernels_have_no_stack_frame_or_spills() {
    use rtile_dialects::te::module::parse_computes;
    use rtile_passes::construct_rtile::{ConstructOptions, construct};
    use rtile_passes::device::Device;
    use rtile_passes::lower_to_gpu::{expr_info, kernels_module, lower_compute};
    let Some(ptxas) = find_ptxas() else {
        eprintln!(
            "skipped: no ptxas (set RTILE_PTXAS, put ptxas on PATH, or run `make deps` for .venv-cuda)"
        );
        return;
    };
    let suite = std::fs::read_to_string(repo().join("bench/ops/roller-table1.mlir")).unwrap();
    let found = parse_computes("roller-table1.mlir", &suite).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(found.len(), 34);
    let dir = std::env::temp_dir().join(format!("rtile-regtile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mut bad, mut checked) = (Vec::new(), 0);
    for (device, sm) in [("h100", "sm_90"), ("a100", "sm_80"), ("v100", "sm_70")] {
        let dev = Device::builtin(device).expect("builtin device");
        for (i, f) in found.iter().enumerate() {
            let info = expr_info(&f.compute);
            // The pass's defaults (top 10) and its best program: what `--construct-rtile
            // --rtile-select --lower-to-gpu` lowers.
            let res = construct(&info, &dev, &ConstructOptions::default()).expect("construct");
            let mut ctx = Context::new(Arc::new(DialectRegistry::with_builtin()));
            ctx.allow_unregistered = true;
            let k = lower_compute(&mut ctx, &f.compute, &res.programs[0], "k").expect("lowers");
            let root = kernels_module(&mut ctx, "kernels", &[k]);
            let (m, mname) = select_gpu_module(&ctx, root, None).expect("one gpu.module");
            let ptx = translate(
                &ctx,
                m,
                &mname,
                &Output::Ptx { sm: sm.into() },
                &TranslateOptions::default(),
            )
            .unwrap_or_else(|d| panic!("@{} {device}: {}", f.func, d.message));
            let path = dir.join(format!("{device}-{i}.ptx"));
            std::fs::write(&path, &ptx).unwrap();
            let out = std::process::Command::new(&ptxas)
                .arg(format!("-arch={sm}"))
                .arg("-v")
                .arg(&path)
                .arg("-o")
                .arg(dir.join(format!("{device}-{i}.cubin")))
                .output()
                .expect("runs ptxas");
            let log = String::from_utf8_lossy(&out.stderr).to_string()
                + &String::from_utf8_lossy(&out.stdout);
            let what = format!("@{} ({device}, {sm}, compute {i})", f.func);
            assert!(out.status.success(), "{what}: ptxas failed\n{log}");
            let stack = ptxas_numbers(&log, "bytes stack frame");
            let stores = ptxas_numbers(&log, "bytes spill stores");
            let loads = ptxas_numbers(&log, "bytes spill loads");
            assert!(!stack.is_empty() && !stores.is_empty(), "{what}: {log}");
            if stack.iter().chain(&stores).chain(&loads).any(|&n| n > 0) {
                bad.push(format!("{what}: {}", log.trim()));
            }
            checked += 1;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("{checked} kernels checked");
    assert!(
        bad.is_empty(),
        "stack frames or spills:\n{}",
        bad.join("\n")
    );
    assert_eq!(checked, 3 * 34, "every compute on every device");
}
