//! The sm_90a emission (`rtile_targets::llvmir::sm90`) on the hand-written GEMM tile of
//! `tests/lit/targets/Inputs/wgmma-gemm.mlir`: the wgmma matrix descriptors and the
//! accumulator store offsets in the LLVM IR, checked against values computed by hand from
//! PTX ISA §9.7.15.5.1 (the descriptor holds the start address, the leading and the stride
//! byte offsets, each shifted right by 4, in bits 0-13, 16-29 and 32-45, and the swizzle
//! mode in bits 62-63, 1 for 128 bytes) and §9.7.15.5.2 (the m64nNk16 f32 D fragment).

use std::sync::Arc;

use super::repo;
use rtile::ir::Context;
use rtile::parser::parse_str;
use rtile_gpu_vocab::nvgpu::MmaElem;
use rtile_targets::llvmir::Flavor;
use rtile_targets::llvmir::sm90::wgmma_asm;
use rtile_targets::{Output, TranslateOptions, select_gpu_module, translate};

fn gemm_ir() -> String {
    let text = std::fs::read_to_string(repo().join("tests/lit/targets/Inputs/wgmma-gemm.mlir"))
        .expect("kernel file");
    // The nvgpu ops are in their custom forms: parse with rtile's dialects, as
    // rtile-translate does.
    let mut ctx = Context::new(Arc::new(rtile_dialects::dialect_registry()));
    ctx.allow_unregistered = true;
    let root = parse_str(&mut ctx, "wgmma-gemm.mlir", &text)
        .expect("parses")
        .module;
    let (m, n) = select_gpu_module(&ctx, root, None).unwrap();
    let o = TranslateOptions {
        opt_level: Some(0),
        ..TranslateOptions::default()
    };
    let out = Output::LlvmIr {
        flavor: Flavor::Nvptx,
        cpu: "sm_90a".into(),
    };
    translate(&ctx, m, &n, &out, &o).unwrap()
}

/// The body of `define ... @name(`.
fn function<'a>(ir: &'a str, name: &str) -> &'a str {
    let start = ir.find(&format!("@{name}(")).expect("function");
    let end = ir[start..].find("\n}\n").expect("end") + start;
    &ir[start..end]
}

/// The constants `c` of `add i64 %x, c` lines, in order.
fn added_constants(body: &str) -> Vec<u64> {
    body.lines()
        .filter_map(|l| {
            l.split_once("= add i64 ")?
                .1
                .split_once(", ")?
                .1
                .parse()
                .ok()
        })
        .collect()
}

const SWIZZLE_128B: u64 = 1 << 62;

#[test]
fn wgmma_descriptors_carry_the_layout_fields_and_step_offsets() {
    let ir = gemm_ir();
    for f in ["gemm_f16", "gemm_bf16"] {
        let body = function(&ir, f);
        // The start address: the shared address's low 18 bits, without its 4 low bits.
        assert!(
            body.contains("and i64 %") && body.contains(", 262143"),
            "{f}"
        );
        assert!(body.contains("lshr i64 %"), "{f}");
        let c = added_constants(body);
        assert_eq!(c.len(), 16, "{f}: 8 wgmma x (A, B) descriptors: {c:?}");
        for slab in 0..2u64 {
            for k in 0..4u64 {
                let i = (2 * (slab * 4 + k)) as usize;
                // A: 128x64 K-major, 128-byte rows in 8-row groups of 1024 bytes (SBO
                // 1024 >> 4 = 64; LBO unused, 1); the slab is 64 rows = 8192 bytes on
                // (>> 4 = 512), a k-step 16 elements = 32 bytes (>> 4 = 2).
                let a = SWIZZLE_128B | (64 << 32) | (1 << 16) | (512 * slab + 2 * k);
                // B: 64x128 MN-major, two 64-column boxes of 64 x 128 bytes = 8192 apart
                // (LBO 8192 >> 4 = 512), 8-row groups of k 1024 bytes apart (SBO 64); a
                // k-step is 16 rows = 2048 bytes (>> 4 = 128).
                let b = SWIZZLE_128B | (64 << 32) | (512 << 16) | (128 * k);
                assert_eq!(c[i], a, "{f}: A of slab {slab}, k-step {k}");
                assert_eq!(c[i + 1], b, "{f}: B of k-step {k}");
                assert_eq!(c[i] >> 62, 1, "128-byte swizzle mode");
            }
        }
        // The first instruction of each slab starts from zero (scale-d 0, no inputs), the
        // others accumulate into the tied registers (scale-d 1).
        let calls: Vec<&str> = body
            .lines()
            .filter(|l| l.contains("wgmma.mma_async"))
            .collect();
        assert_eq!(calls.len(), 8, "{f}");
        for (i, l) in calls.iter().enumerate() {
            let first_of_slab = i % 4 == 0;
            // The fence opens the first instruction only.
            assert_eq!(l.contains("wgmma.fence.sync.aligned;"), i == 0, "{f} #{i}");
            assert_eq!(l.contains(", i32 0)"), first_of_slab, "{f} #{i}: {l}");
            assert_eq!(l.contains(",0,1,2,"), !first_of_slab, "{f} #{i} ties");
        }
        let elem = if f == "gemm_f16" { "f16" } else { "bf16" };
        assert!(calls[0].contains(&format!("m64n128k16.f32.{elem}.{elem} {{$0, $1, ")));
    }
}

#[test]
fn the_accumulator_store_follows_the_d_fragment() {
    let ir = gemm_ir();
    let body = function(&ir, "gemm_f16");
    // Thread part: 16 * warp + lane / 4 rows, 2 * (lane % 4) columns, tid.x modulo 128.
    assert!(body.contains("and i32 %") && body.contains(", 127"));
    // Element i of C (128x128 f32, row stride 128): i = 4j + 2h + c of slab s at row
    // 64s + 8h, column 8j + c from the thread's base.
    let offsets: Vec<i64> = body
        .lines()
        .filter(|l| l.contains("getelementptr inbounds float, ptr addrspace(1) %t"))
        .filter_map(|l| l.rsplit_once("i64 ")?.1.parse().ok())
        .collect();
    assert_eq!(offsets.len(), 128, "one store per f32 of 2 slabs x 64");
    for (i, &off) in offsets.iter().enumerate() {
        let (s, r) = (i / 64, i % 64);
        let (j, h, c) = (r / 4, (r / 2) % 2, r % 2);
        let want = (64 * s + 8 * h) as i64 * 128 + (8 * j + c) as i64;
        assert_eq!(off, want, "element {i}");
    }
    assert_eq!(&offsets[..6], &[0, 1, 1024, 1025, 8, 9]);
    assert_eq!(offsets[64], 64 * 128);
}

#[test]
fn wgmma_inline_ptx_ties_the_accumulator() {
    let (asm, c) = wgmma_asm(8, MmaElem::BF16, (true, false), (false, false));
    assert_eq!(
        asm,
        "{\\0A.reg .pred p;\\0Asetp.ne.b32 p, $6, 0;\\0Awgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {$0, $1, $2, $3}, $4, $5, p, 1, 1, 0, 1;\\0A}"
    );
    assert_eq!(c, "=f,=f,=f,=f,l,l,r,0,1,2,3,~{memory}");
    // A fresh accumulator: outputs only.
    // B K-major (no transposeB): imm-trans-b 0, nothing else changes.
    let (asm_k, c_k) = wgmma_asm(8, MmaElem::BF16, (true, false), (false, true));
    assert_eq!(asm_k, asm.replace("p, 1, 1, 0, 1;", "p, 1, 1, 0, 0;"));
    assert_ne!(asm_k, asm);
    assert_eq!(c_k, c);
    // A MN-major (transposeA): imm-trans-a 1.
    let (asm_a, c_a) = wgmma_asm(8, MmaElem::BF16, (true, false), (true, false));
    assert_eq!(asm_a, asm.replace("p, 1, 1, 0, 1;", "p, 1, 1, 1, 1;"));
    assert_eq!(c_a, c);
    let (asm0, c0) = wgmma_asm(8, MmaElem::BF16, (false, true), (false, false));
    assert_eq!(
        asm0,
        asm.replacen("{\\0A", "{\\0Awgmma.fence.sync.aligned;\\0A", 1)
    );
    assert_eq!(c0, "=f,=f,=f,=f,l,l,r,~{memory}");
}
