//! Profile counters on hand-written kernels whose counts are known exactly: each thread of a
//! warp loads element `t * stride + offset` (scalar or a `vector<Lxf32>`) of global or shared
//! memory and stores it, coalesced, to the output. Global loads count requests, 32-byte
//! sectors and the ideal sector count; shared loads count wavefronts over 32 banks of 4 bytes
//! (64-bit accesses per half-warp, 128-bit per quarter-warp) and bank conflicts.

use rtile_runtime::sim::counters::InstCounters;
use rtile_runtime::sim::profile::{KernelProfile, OpClass, profile};
use rtile_runtime::sim::{self};

/// Elements of the input and shared buffers (room for stride 32 and a 4-lane vector; a
/// multiple of the 32 and 64 threads that fill shared memory).
const N: usize = 64 * 33;

/// The access a test kernel makes.
#[derive(Clone, Copy)]
struct Pattern {
    shared: bool,
    stride: i64,
    offset: i64,
    /// Elements per access (1: scalar f32; 2, 4: vector<2xf32>, vector<4xf32>).
    lanes: u32,
    threads: u32,
    grid: u32,
}

impl Pattern {
    fn global(stride: i64, offset: i64, lanes: u32) -> Self {
        Pattern {
            shared: false,
            stride,
            offset,
            lanes,
            threads: 32,
            grid: 1,
        }
    }
    fn shared(stride: i64, lanes: u32) -> Self {
        Pattern {
            shared: true,
            ..Pattern::global(stride, 0, lanes)
        }
    }
}

fn kernel(p: Pattern) -> String {
    let sh = format!("memref<{N}xf32, #gpu.address_space<workgroup>>");
    let (vt, load, store) = if p.lanes == 1 {
        ("f32".to_string(), "memref.load", "memref.store")
    } else {
        (
            format!("vector<{}xf32>", p.lanes),
            "vector.load",
            "vector.store",
        )
    };
    let out_len = p.threads as usize * p.lanes as usize * p.grid as usize;
    // Shared memory is filled first (coalesced, one element per thread per iteration) so
    // the measured load reads initialised memory.
    let (src, src_ty, init) = if p.shared {
        let init = format!(
            r#"      %c0 = "arith.constant"() <{{value = 0 : index}}> : () -> index
      %cN = "arith.constant"() <{{value = {N} : index}}> : () -> index
      %cT = "arith.constant"() <{{value = {threads} : index}}> : () -> index
      %one = "arith.constant"() <{{value = 1.0 : f32}}> : () -> f32
      "scf.for"(%c0, %cN, %cT) ({{
      ^bb1(%j: index):
        %a = "arith.addi"(%j, %t) : (index, index) -> index
        "memref.store"(%one, %sh, %a) : (f32, {sh}, index) -> ()
        "scf.yield"() : () -> ()
      }}) : (index, index, index) -> ()
      "gpu.barrier"() : () -> ()
"#,
            threads = p.threads
        );
        ("%sh", sh.clone(), init)
    } else {
        ("%in", format!("memref<{N}xf32>"), String::new())
    };
    format!(
        r#""builtin.module"() ({{
  "gpu.module"() <{{sym_name = "m"}}> ({{
    "gpu.func"() <{{function_type = (memref<{N}xf32>, memref<{out_len}xf32>) -> ()}}> ({{
    ^bb0(%in: memref<{N}xf32>, %out: memref<{out_len}xf32>, %sh: {sh}):
      %t = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
      %b = "gpu.block_id"() <{{dimension = #gpu<dim x>}}> : () -> index
      %bd = "gpu.block_dim"() <{{dimension = #gpu<dim x>}}> : () -> index
      %bo = "arith.muli"(%b, %bd) : (index, index) -> index
{init}      %cs = "arith.constant"() <{{value = {stride} : index}}> : () -> index
      %co = "arith.constant"() <{{value = {offset} : index}}> : () -> index
      %cl = "arith.constant"() <{{value = {lanes} : index}}> : () -> index
      %i0 = "arith.muli"(%t, %cs) : (index, index) -> index
      %i = "arith.addi"(%i0, %co) : (index, index) -> index
      %v = "{load}"({src}, %i) : ({src_ty}, index) -> {vt}
      %g = "arith.addi"(%bo, %t) : (index, index) -> index
      %o = "arith.muli"(%g, %cl) : (index, index) -> index
      "{store}"(%v, %out, %o) : ({vt}, memref<{out_len}xf32>, index) -> ()
      "gpu.return"() : () -> ()
    }}) {{gpu.kernel, rtile.launch = {{block = array<i32: {threads}, 1, 1>, dynamic_shared_memory = 0 : i64, grid = array<i32: {grid}, 1, 1>}}, sym_name = "k", workgroup_attributions = 1 : i64}} : () -> ()
  }}) : () -> ()
}}) : () -> ()
"#,
        stride = p.stride,
        offset = p.offset,
        lanes = p.lanes,
        threads = p.threads,
        grid = p.grid,
    )
}

fn run(p: Pattern, sample: Option<u64>) -> KernelProfile {
    let text = kernel(p);
    let mut ctx = sim::check::context();
    let m = rtile::parser::parse_str(&mut ctx, "k.mlir", &text).expect("parses");
    rtile::verifier::verify(&ctx, m.module).expect("verifies");
    let mut r = profile(&ctx, m.module, 0, sample).expect("profiles");
    r.kernels.pop().expect("one kernel")
}

/// The measured load's counters (the op on line `%v = ...`).
fn measured(k: &KernelProfile, class: OpClass) -> InstCounters {
    let loads: Vec<_> = k.ops.iter().filter(|o| o.class == class).collect();
    assert_eq!(loads.len(), 1, "one {class:?} op in {:?}", k.ops);
    loads[0].counters
}

#[test]
fn coalesced_f32_load_is_one_request_four_sectors() {
    let c = measured(&run(Pattern::global(1, 0, 1), None), OpClass::GlobalLd);
    assert_eq!((c.requests, c.sectors, c.ideal_sectors), (1, 4, 4));
    assert_eq!(c.bytes, 128);
}

#[test]
fn stride_two_load_touches_eight_sectors_half_efficient() {
    let k = run(Pattern::global(2, 0, 1), None);
    let c = measured(&k, OpClass::GlobalLd);
    assert_eq!((c.requests, c.sectors, c.ideal_sectors), (1, 8, 4));
    assert_eq!(k.coalescing(&[OpClass::GlobalLd]), 0.5);
}

#[test]
fn misaligned_load_touches_one_sector_more() {
    // Bytes 4..132: sectors 0..=4, where 4 would hold the 128 bytes.
    let c = measured(&run(Pattern::global(1, 1, 1), None), OpClass::GlobalLd);
    assert_eq!((c.sectors, c.ideal_sectors), (5, 4));
}

#[test]
fn global_broadcast_is_one_sector() {
    let c = measured(&run(Pattern::global(0, 0, 1), None), OpClass::GlobalLd);
    assert_eq!(
        (c.requests, c.sectors, c.ideal_sectors, c.bytes),
        (1, 1, 1, 4)
    );
}

#[test]
fn vector4_global_load_and_store_are_sixteen_sectors() {
    let k = run(Pattern::global(4, 0, 4), None);
    let c = measured(&k, OpClass::GlobalLd);
    assert_eq!((c.requests, c.sectors, c.ideal_sectors), (1, 16, 16));
    let s = measured(&k, OpClass::GlobalSt);
    assert_eq!((s.requests, s.sectors, s.ideal_sectors), (1, 16, 16));
}

#[test]
fn shared_stride_one_has_no_conflict() {
    let k = run(Pattern::shared(1, 1), None);
    let c = measured(&k, OpClass::SharedLd);
    assert_eq!((c.requests, c.wavefronts, c.ideal_wavefronts), (1, 1, 1));
    assert_eq!(c.bank_conflicts(), 0);
    // The fill: N / 32 coalesced warp-level stores, conflict-free.
    let s = measured(&k, OpClass::SharedSt);
    assert_eq!((s.requests, s.wavefronts, s.bank_conflicts()), (66, 66, 0));
}

#[test]
fn shared_stride_32_words_is_a_32_way_conflict() {
    let c = measured(&run(Pattern::shared(32, 1), None), OpClass::SharedLd);
    assert_eq!(
        (c.wavefronts, c.ideal_wavefronts, c.bank_conflicts()),
        (32, 1, 31)
    );
}

#[test]
fn shared_stride_two_is_a_two_way_conflict() {
    let c = measured(&run(Pattern::shared(2, 1), None), OpClass::SharedLd);
    assert_eq!((c.wavefronts, c.bank_conflicts()), (2, 1));
}

#[test]
fn shared_broadcast_has_no_conflict() {
    let c = measured(&run(Pattern::shared(0, 1), None), OpClass::SharedLd);
    assert_eq!((c.wavefronts, c.bank_conflicts()), (1, 0));
}

#[test]
fn shared_128_bit_load_is_four_quarter_warp_wavefronts_without_conflict() {
    let c = measured(&run(Pattern::shared(4, 4), None), OpClass::SharedLd);
    assert_eq!((c.requests, c.wavefronts, c.ideal_wavefronts), (1, 4, 4));
    assert_eq!(c.bank_conflicts(), 0);
}

#[test]
fn shared_64_bit_load_is_two_half_warp_wavefronts() {
    let c = measured(&run(Pattern::shared(2, 2), None), OpClass::SharedLd);
    assert_eq!(
        (c.wavefronts, c.ideal_wavefronts, c.bank_conflicts()),
        (2, 2, 0)
    );
}

#[test]
fn shared_128_bit_load_with_32_byte_stride_conflicts_two_way_per_quarter() {
    // Lanes l and l + 4 of a quarter-warp hit the same four banks.
    let c = measured(&run(Pattern::shared(8, 4), None), OpClass::SharedLd);
    assert_eq!(
        (c.wavefronts, c.ideal_wavefronts, c.bank_conflicts()),
        (8, 4, 4)
    );
}

#[test]
fn counts_are_per_warp_level_instruction() {
    let p = Pattern {
        threads: 64,
        ..Pattern::shared(1, 1)
    };
    let k = run(p, None);
    let c = measured(&k, OpClass::SharedLd);
    assert_eq!((c.warp, c.thread, c.requests, c.wavefronts), (2, 64, 2, 2));
    let bar = measured(&k, OpClass::Barrier);
    assert_eq!((bar.warp, bar.thread), (2, 64));
    let ids = k.ops.iter().find(|o| o.op == "gpu.thread_id").expect("ids");
    assert_eq!((ids.counters.warp, ids.counters.thread), (2, 64));
    // scf.for: 33 iterations and the exit check, per thread.
    let lp = k.ops.iter().find(|o| o.op == "scf.for").expect("loop");
    assert_eq!((lp.class, lp.counters.warp), (OpClass::Control, 2 * 34));
}

#[test]
fn a_partial_warp_is_one_warp() {
    let p = Pattern {
        threads: 48,
        ..Pattern::global(1, 0, 1)
    };
    let c = measured(&run(p, None), OpClass::GlobalLd);
    // Warp 0: 32 lanes, 4 sectors; warp 1: 16 lanes, 2 sectors.
    assert_eq!(
        (c.warp, c.requests, c.sectors, c.ideal_sectors),
        (2, 2, 6, 6)
    );
}

#[test]
fn sampled_blocks_count_a_spread_sample() {
    let p = Pattern {
        grid: 8,
        ..Pattern::global(1, 0, 1)
    };
    let full = run(p, None);
    let sample = run(p, Some(2));
    assert_eq!((full.blocks_run, full.blocks_total), (8, 8));
    assert_eq!((sample.blocks_run, sample.blocks_total), (2, 8));
    assert!(sample.sampled() && !full.sampled());
    let (f, s) = (
        measured(&full, OpClass::GlobalLd),
        measured(&sample, OpClass::GlobalLd),
    );
    assert_eq!((f.requests, f.sectors), (8, 32));
    assert_eq!((s.requests, s.sectors), (2, 8));
    assert_eq!(
        sim::exec::sampled_blocks(&full.launch, Some(3)),
        vec![0, 2, 5]
    );
}

#[test]
fn distinct_sectors_count_a_rereading_grid_once() {
    // Four blocks each load in[2t] (the block index is not in the load): the requests touch
    // 4 × 8 sectors, but only the 8 sectors of in[0..64) are distinct; each block writes
    // its own 32 floats of the output, 4 × 4 = 16 distinct sectors.
    let k = run(
        Pattern {
            grid: 4,
            ..Pattern::global(2, 0, 1)
        },
        None,
    );
    assert_eq!(measured(&k, OpClass::GlobalLd).sectors, 32);
    assert_eq!((k.unique_sectors_read, k.unique_sectors_written), (8, 16));
    // A sample of one block: its own sectors only.
    let s = run(
        Pattern {
            grid: 4,
            ..Pattern::global(2, 0, 1)
        },
        Some(1),
    );
    assert_eq!((s.unique_sectors_read, s.unique_sectors_written), (8, 4));
}

#[test]
fn distinct_sectors_of_a_misaligned_vector_load() {
    // 32 lanes × vector<4xf32> from element 1: bytes 4..516 span sectors 0..=16.
    let k = run(Pattern::global(4, 1, 4), None);
    assert_eq!(k.unique_sectors_read, 17);
    assert_eq!(k.unique_sectors_written, 16);
}
