//! `amdgpu.mfma` decoding and its fragment layouts: every element of A, B and D is held by
//! exactly one (lane, element) of the 64-lane wave, and the layouts agree with the CDNA2
//! register layout at fixed points (AMD matrix instruction calculator).

use std::sync::Arc;

use rtile::ir::{Context, WalkOrder};
use rtile::parser::parse_str;
use rtile_gpu_vocab::GpuOp;
use rtile_gpu_vocab::amdgpu::{Mfma, MfmaElem, WAVE64};

fn decode_all(text: &str) -> Vec<Result<Mfma, String>> {
    let mut ctx = Context::new(Arc::new(rtile_dialects::dialect_registry()));
    let m = parse_str(&mut ctx, "t.mlir", text).expect("parses").module;
    let mut out = Vec::new();
    ctx.walk(m, WalkOrder::PreOrder, &mut |_, op| {
        if ctx.op_name(op) == "amdgpu.mfma" {
            assert_eq!(GpuOp::decode(&ctx, op).unwrap(), GpuOp::Mfma);
            out.push(Mfma::decode(&ctx, op).map_err(|d| d.message.clone()));
        }
    });
    out
}

#[test]
fn decodes_the_executed_variants_and_refuses_others() {
    let text = r#"
func.func @f(%a: vector<4xf16>, %b: vector<4xbf16>, %c: vector<16xf32>, %c4: vector<4xf32>, %x: f32, %y: vector<16xf32>) {
  %0 = amdgpu.mfma 32x32x8 %a * %a + %c blgp = none : vector<4xf16>, vector<4xf16>, vector<16xf32>
  %1 = amdgpu.mfma 16x16x16 %b * %b + %c4 blgp = none : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
  %2 = amdgpu.mfma 32x32x8 %b * %b + %c blgp = bcast_first_32 : vector<4xbf16>, vector<4xbf16>, vector<16xf32>
  %3 = amdgpu.mfma 32x32x2 %x * %x + %y { blocks = 1 : i32 } blgp = none : f32, f32, vector<16xf32>
  return
}"#;
    let d = decode_all(text);
    assert_eq!(
        d[0],
        Ok(Mfma {
            shape: [32, 32, 8],
            operand: MfmaElem::F16
        })
    );
    assert_eq!(d[0].as_ref().unwrap().suffix(), "f32_32x32x8f16");
    assert_eq!(d[1].as_ref().unwrap().suffix(), "f32_16x16x16bf16_1k");
    assert!(d[2].as_ref().unwrap_err().contains("blgp = none"));
    assert!(d[3].as_ref().unwrap_err().contains("32x32x8 and 16x16x16"));
}

/// Checks that `coord` maps (lane, element) one-to-one onto a `rows × cols` matrix.
fn bijective(
    rows: usize,
    cols: usize,
    per_lane: usize,
    coord: impl Fn(usize, usize) -> (usize, usize),
) {
    let mut seen = vec![0u32; rows * cols];
    for lane in 0..WAVE64 {
        for e in 0..per_lane {
            let (i, j) = coord(lane, e);
            assert!(
                i < rows && j < cols,
                "lane {lane} element {e} -> ({i}, {j})"
            );
            seen[i * cols + j] += 1;
        }
    }
    assert!(seen.iter().all(|&s| s == 1), "not a bijection");
}

#[test]
fn fragment_layouts_cover_each_element_once() {
    for (shape, c_len) in [([32, 32, 8], 16), ([16, 16, 16], 4)] {
        let m = Mfma {
            shape,
            operand: MfmaElem::F16,
        };
        let [mm, n, k] = shape;
        assert_eq!(m.c_len(), c_len);
        bijective(mm, k, 4, |l, e| m.a_coord(l, e));
        bijective(k, n, 4, |l, e| m.b_coord(l, e));
        bijective(mm, n, c_len, |l, e| m.c_coord(l, e));
    }
}

#[test]
fn layouts_match_the_cdna2_register_layout() {
    let m32 = Mfma {
        shape: [32, 32, 8],
        operand: MfmaElem::F16,
    };
    // v_mfma_f32_32x32x8f16: lane 33 holds A[1][4..8] and B[4..8][1]; D's element 5 of
    // lane 40 is D[8 + 4 + 1][8] (rows in groups of 4, half-waves interleaved).
    assert_eq!(m32.a_coord(33, 0), (1, 4));
    assert_eq!(m32.b_coord(33, 3), (7, 1));
    assert_eq!(m32.c_coord(40, 5), (13, 8));
    assert_eq!(m32.c_coord(0, 15), (27, 0));
    let m16 = Mfma {
        shape: [16, 16, 16],
        operand: MfmaElem::F16,
    };
    // v_mfma_f32_16x16x16f16: lane 50 holds A[2][12..16]; D[4·3 + e][2].
    assert_eq!(m16.a_coord(50, 1), (2, 13));
    assert_eq!(m16.b_coord(17, 2), (6, 1));
    assert_eq!(m16.c_coord(50, 3), (15, 2));
}
