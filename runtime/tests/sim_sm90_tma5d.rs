//! 4-d and 5-d TMA loads in the simulator (PTX `cp.async.bulk.tensor.{4,5}d`; TMA maps
//! have at most 5 dimensions, `cuTensorMapEncodeTiled`'s `tensorRank`): a box lands
//! row-major (its element at row-major position `i` at byte `2i`) and swizzled, every
//! element outside the tensor on any dimension reads zero (PTX ISA §5.5 "Tensors"), and a
//! box extent of 1 may sit on any dimension but the innermost (a batched wgmma operand's
//! `[1, 1, rows, cols]`, or `[1, rows, 1, cols]` with the heads inside `Q[b, s, h, d]`). The
//! expectation is computed here from the PTX rules, independently of the simulator's code.

use rtile_runtime::sim::ops::Num;
use rtile_runtime::sim::{self, compile_kernel, launch_of, run};

mod common;
use common::random;

/// Runs the one kernel of `text` on `args`; the error message on failure.
fn run_text(text: &str, args: &mut [Vec<f64>]) -> Result<(), String> {
    let mut ctx = sim::check::context();
    let m = rtile::parser::parse_str(&mut ctx, "k.mlir", text)
        .unwrap_or_else(|d| panic!("parses: {}", d.message));
    rtile::verifier::verify(&ctx, m.module).expect("verifies");
    let f = sim::kernels(&ctx, m.module)[0];
    let k = compile_kernel(&ctx, f).unwrap_or_else(|d| panic!("compiles: {}", d.message));
    let l = launch_of(&ctx, f).expect("launch");
    run(&k, &l, args).map_err(|e| sim::to_diagnostic(&ctx, &k, &e).message)
}

/// The 128-byte swizzle of byte address `a` (PTX: the 16-byte chunk index XOR the 128-byte
/// row index modulo 8).
fn swizzle128(a: usize) -> usize {
    a ^ (((a >> 7) & 7) << 4)
}

/// A box of f16 (`boxed`, outermost first, its last extent 64: 128-byte rows under the
/// 128-byte swizzle) at `origin` (outermost first) of a tensor of shape `shape`.
#[derive(Clone, Debug)]
struct Case {
    boxed: Vec<usize>,
    shape: Vec<usize>,
    origin: Vec<i64>,
}

fn dims(v: &[usize]) -> String {
    v.iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join("x")
}

/// One warp: thread 0 loads the box into `%s` on an mbarrier expecting its bytes; every
/// thread waits, then thread 0 copies `%s` element by element (no unswizzling) to `out`.
fn kernel(c: &Case) -> String {
    let rank = c.boxed.len();
    let bytes = c.boxed.iter().product::<usize>() * 2;
    let b = dims(&c.boxed);
    let smem = format!("memref<{b}xf16, #gpu.address_space<workgroup>>");
    let coords: Vec<String> = (0..rank).rev().map(|d| format!("%o{d}")).collect();
    let mut consts = String::new();
    for (d, o) in c.origin.iter().enumerate() {
        consts += &format!("    %o{d} = arith.constant {o} : index\n");
        consts += &format!("    %e{d} = arith.constant {} : index\n", c.boxed[d]);
    }
    let ivs: Vec<String> = (0..rank).map(|d| format!("%i{d}")).collect();
    let mut copy = String::new();
    for (d, iv) in ivs.iter().enumerate() {
        copy += &format!("      scf.for {iv} = %c0 to %e{d} step %c1 {{\n");
    }
    copy += &format!(
        "      %v = memref.load %s[{0}] : {smem}\n      memref.store %v, %out[{0}] : memref<{b}xf16>\n",
        ivs.join(", ")
    );
    copy += &"      }\n".repeat(rank);
    format!(
        r#"!tm = !nvgpu.tensormap.descriptor<tensor = memref<{b}xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!bar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
module attributes {{gpu.container_module}} {{
gpu.module @m {{
  gpu.func @tma(%map: !tm, %src: memref<{t}xf16>, %out: memref<{b}xf16>) workgroup(%s: {smem}) kernel
      attributes {{rtile.launch = {{block = array<i32: 32, 1, 1>, dynamic_shared_memory = 0 : i64, grid = array<i32: 1, 1, 1>}}, rtile.tensor_map_of = array<i64: 1>}} {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
{consts}    %bytes = arith.constant {bytes} : index
    %false = arith.constant false
    %ticks = arith.constant 10000000 : index
    %bar = nvgpu.mbarrier.create -> !bar
    %tid = gpu.thread_id x
    %is0 = arith.cmpi eq, %tid, %c0 : index
    scf.if %is0 {{
      nvgpu.mbarrier.init %bar[%c0], %c1 : !bar
    }}
    gpu.barrier
    scf.if %is0 {{
      nvgpu.tma.async.load %map[{coords}], %bar[%c0] to %s : !tm, !bar -> {smem}
      nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %bytes : !bar
    }}
    nvgpu.mbarrier.try_wait.parity %bar[%c0], %false, %ticks : !bar
    scf.if %is0 {{
{copy}    }}
    gpu.return
  }}
}}
}}
"#,
        t = dims(&c.shape),
        coords = coords.join(", "),
    )
}

/// Runs `c` on a random tensor and checks every box element against the PTX rules;
/// returns how many read zero from outside the tensor.
fn check(n: usize, c: &Case) -> usize {
    let total: usize = c.shape.iter().product();
    let src = random(total, 120 + n as u64, Num::F16);
    let len: usize = c.boxed.iter().product();
    let mut args = vec![src.clone(), vec![f64::NAN; len]];
    run_text(&kernel(c), &mut args).unwrap_or_else(|e| panic!("case {n} {c:?}: {e}"));
    let mut zeros = 0;
    for i in 0..len {
        // Box position of element i (row-major), then its tensor element.
        let mut rest = i;
        let mut at = vec![0i64; c.boxed.len()];
        for d in (0..c.boxed.len()).rev() {
            at[d] = c.origin[d] + (rest % c.boxed[d]) as i64;
            rest /= c.boxed[d];
        }
        let inside = at
            .iter()
            .zip(&c.shape)
            .all(|(&g, &e)| (0..e as i64).contains(&g));
        let want = if inside {
            let flat = at
                .iter()
                .zip(&c.shape)
                .fold(0usize, |acc, (&g, &e)| acc * e + g as usize);
            src[flat]
        } else {
            zeros += 1;
            0.0
        };
        let got = args[1][swizzle128(i * 2) / 2];
        assert_eq!(got, want, "case {n} {c:?}: box element {i} at {at:?}");
    }
    zeros
}

#[test]
fn tma_4d_and_5d_boxes_land_swizzled_and_zero_fill_every_dimension() {
    let case = |boxed: &[usize], shape: &[usize], origin: &[i64]| Case {
        boxed: boxed.to_vec(),
        shape: shape.to_vec(),
        origin: origin.to_vec(),
    };
    let cases = [
        // Two batch axes, one slice each (BERT's [batch, heads, seq, d]), inside.
        (case(&[1, 1, 16, 64], &[2, 3, 40, 72], &[1, 2, 8, 4]), false),
        // The heads inside the operand: [b, s, h, d] with a box [1, rows, 1, cols].
        (case(&[1, 16, 1, 64], &[2, 20, 3, 64], &[1, 2, 2, 0]), false),
        // Past the rows' end and a negative column origin, with the 1 in the middle.
        (
            case(&[1, 16, 1, 64], &[2, 20, 3, 64], &[0, 12, 1, -8]),
            true,
        ),
        // Past the last index of the second batch axis.
        (case(&[1, 2, 8, 64], &[2, 3, 8, 64], &[0, 2, 0, 0]), true),
        // Rank 5: three batch axes, one slice each, inside and past the first one's end.
        (
            case(&[1, 1, 1, 8, 64], &[2, 1, 3, 9, 64], &[1, 0, 2, 1, 0]),
            false,
        ),
        (
            case(&[1, 1, 1, 8, 64], &[2, 1, 3, 9, 64], &[2, 0, 0, 0, 0]),
            true,
        ),
    ];
    for (n, (c, crosses)) in cases.iter().enumerate() {
        let zeros = check(n, c);
        assert_eq!(zeros > 0, *crosses, "case {n}: which boxes cross an edge");
    }
}
