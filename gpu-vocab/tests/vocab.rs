//! Decoding each op family, predicate round trips, launch reading and the load-time refusal.

use std::sync::Arc;

use rtile::ir::{Builder, Context, OpId, Type, WalkOrder};
use rtile::parser::parse_str;
use rtile_gpu_vocab::attrs::{ALL_CMPF, ALL_CMPI, cmpi_from_keyword, cmpi_from_value};
use rtile_gpu_vocab::op::ALL_MATH;
use rtile_gpu_vocab::{
    AddressSpace, CmpFPredicate, CmpIPredicate, FastMathFlags, GpuOp, Launch, MathFn, check_module,
};

fn parse(text: &str) -> (Context, OpId) {
    let mut ctx = Context::new(Arc::new(rtile_dialects::dialect_registry()));
    ctx.allow_unregistered = true;
    let m = parse_str(&mut ctx, "test.mlir", text)
        .expect("parses")
        .module;
    (ctx, m)
}

/// A kernel using one op of every family: gpu, scf, memref, vector, arith, math.
const KERNEL: &str = r#"
"builtin.module"() ({
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<8xf32>) -> (), known_block_size = array<i32: 8, 1, 1>}> ({
    ^bb0(%a: memref<8xf32>):
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %c0 = "arith.constant"() <{value = 0 : index}> : () -> index
      %c1 = "arith.constant"() <{value = 1 : index}> : () -> index
      %lt = "arith.cmpi"(%t, %c1) <{predicate = 6 : i64}> : (index, index) -> i1
      %x = "memref.load"(%a, %t) : (memref<8xf32>, index) -> f32
      %y = "math.exp"(%x) <{fastmath = #arith.fastmath<nnan,contract>}> : (f32) -> f32
      %o = "arith.cmpf"(%x, %y) <{fastmath = #arith.fastmath<none>, predicate = 4 : i64}> : (f32, f32) -> i1
      %v = "vector.broadcast"(%y) : (f32) -> vector<2xf32>
      %e = "vector.extract"(%v) <{static_position = array<i64: 1>}> : (vector<2xf32>) -> f32
      "scf.if"(%lt) ({
        "memref.store"(%e, %a, %t) : (f32, memref<8xf32>, index) -> ()
        "scf.yield"() : () -> ()
      }, {
      }) : (i1) -> ()
      "gpu.barrier"() : () -> ()
      "gpu.return"() : () -> ()
    }) {gpu.kernel, rtile.launch = {block = array<i32: 8, 1, 1>, dynamic_shared_memory = 64 : i64, grid = array<i32: 3, 2, 1>}, sym_name = "k", workgroup_attributions = 0 : i64} : () -> ()
  }) : () -> ()
}) {gpu.container_module} : () -> ()
"#;

fn ops_named(ctx: &Context, root: OpId) -> Vec<(String, OpId)> {
    let mut v = Vec::new();
    ctx.walk(root, WalkOrder::PreOrder, &mut |_, op| {
        v.push((ctx.op_name(op).to_string(), op))
    });
    v
}

#[test]
fn decodes_every_family() {
    let (ctx, root) = parse(KERNEL);
    let want = [
        ("gpu.thread_id", GpuOp::ThreadId),
        ("arith.constant", GpuOp::Constant),
        ("arith.cmpi", GpuOp::CmpI(CmpIPredicate::Ult)),
        ("memref.load", GpuOp::Load),
        ("math.exp", GpuOp::Math(MathFn::Exp)),
        ("arith.cmpf", GpuOp::CmpF(CmpFPredicate::Olt)),
        ("vector.broadcast", GpuOp::Broadcast),
        ("vector.extract", GpuOp::Extract),
        ("scf.if", GpuOp::If),
        ("memref.store", GpuOp::Store),
        ("scf.yield", GpuOp::Yield),
        ("gpu.barrier", GpuOp::Barrier),
        ("gpu.return", GpuOp::Return),
    ];
    let ops = ops_named(&ctx, root);
    for (name, g) in want {
        let &(_, op) = ops.iter().find(|(n, _)| n == name).expect(name);
        assert_eq!(GpuOp::decode(&ctx, op).unwrap(), g, "{name}");
        assert_eq!(g.name(), name);
    }
    assert!(check_module(&ctx, root, "test").is_ok());
}

#[test]
fn names_round_trip() {
    let mut n = 0;
    for g in GpuOp::all_named() {
        assert_eq!(GpuOp::from_name(g.name()), Some(g), "{}", g.name());
        assert!(GpuOp::is_vocabulary_name(g.name()));
        n += 1;
    }
    // 75 ops, the 5 nvgpu ops, scf.while, scf.condition, memref.atomic_rmw and llvm.fence
    // (persistent kernels), amdgpu.mfma, and the 11 sm_90a ops (5 mbarrier, 2 TMA, 4
    // warpgroup MMA).
    assert_eq!(n, 96 + ALL_MATH.len());
    assert!(GpuOp::is_vocabulary_name("arith.cmpf"));
    assert_eq!(
        GpuOp::from_name("arith.cmpi"),
        None,
        "a comparison needs its predicate"
    );
    assert_eq!(GpuOp::from_name("math.sinh"), None);
    assert_eq!(MathFn::RoundEven.short_name(), "roundeven");
}

#[test]
fn predicates_round_trip() {
    for (i, p) in ALL_CMPI.iter().enumerate() {
        assert_eq!(p.value(), i as i64);
        assert_eq!(cmpi_from_value(p.value()), Some(*p));
        assert_eq!(cmpi_from_keyword(p.keyword()), Some(*p));
    }
    for (i, p) in ALL_CMPF.iter().enumerate() {
        assert_eq!(p.value(), i as i64);
        assert_eq!(CmpFPredicate::from_value(p.value()), Some(*p));
        assert_eq!(CmpFPredicate::from_keyword(p.keyword()), Some(*p));
    }
    assert_eq!(CmpFPredicate::Une.keyword(), "une");
    assert_eq!(CmpFPredicate::AlwaysTrue.keyword(), "true");
    assert_eq!(cmpi_from_value(10), None);
    assert_eq!(CmpFPredicate::from_value(16), None);
    assert_eq!(CmpFPredicate::from_value(-1), None);
}

#[test]
fn predicate_keyword_attribute_and_unknown_predicate() {
    let text = KERNEL.replace(
        "<{predicate = 6 : i64}>",
        "<{predicate = #arith<cmpipredicate uge>}>",
    );
    let (ctx, root) = parse(&text);
    let ops = ops_named(&ctx, root);
    let &(_, op) = ops.iter().find(|(n, _)| n == "arith.cmpi").unwrap();
    assert_eq!(
        GpuOp::decode(&ctx, op).unwrap(),
        GpuOp::CmpI(CmpIPredicate::Uge)
    );
    let text = KERNEL.replace("predicate = 4 : i64", "predicate = 99 : i64");
    let (ctx, root) = parse(&text);
    let e = check_module(&ctx, root, "test").unwrap_err();
    assert!(
        e.message.contains("unknown comparison predicate"),
        "{}",
        e.message
    );
}

#[test]
fn fastmath_and_address_space() {
    let (ctx, root) = parse(KERNEL);
    let ops = ops_named(&ctx, root);
    let &(_, exp) = ops.iter().find(|(n, _)| n == "math.exp").unwrap();
    let f = FastMathFlags::of(ctx.inherent_attr(exp, "fastmath"));
    assert_eq!(f.words, ["nnan", "contract"]);
    let &(_, cmpf) = ops.iter().find(|(n, _)| n == "arith.cmpf").unwrap();
    assert!(FastMathFlags::of(ctx.inherent_attr(cmpf, "fastmath")).is_empty());
    assert_eq!(AddressSpace::of(None), Some(AddressSpace::Global));
}

#[test]
fn launch_is_read_once() {
    let (ctx, root) = parse(KERNEL);
    let ops = ops_named(&ctx, root);
    let &(_, f) = ops.iter().find(|(n, _)| n == "gpu.func").unwrap();
    let l = Launch::of(&ctx, f);
    assert_eq!(l.grid, Some([3, 2, 1]));
    assert_eq!(l.block, Some([8, 1, 1]));
    assert_eq!(l.dynamic_shared_memory, 64);
    assert!(l.has_rtile_launch);
    assert_eq!(l.args, vec![Type::memref(vec![8], Type::f32())]);
    assert_eq!(l.block_threads(), Some(8));
    // What the lowering writes reads back unchanged (the dictionary carries no arguments:
    // those are the signature's), and prints as the lowering prints it.
    let a = l.rtile_launch_attribute().unwrap();
    assert_eq!(
        Launch {
            args: l.args.clone(),
            ..Launch::from_rtile_launch(&a)
        },
        l
    );
    let printed = ctx.attr(f, "rtile.launch").unwrap();
    assert_eq!(&a, printed);
    let unknown = Launch::default();
    assert_eq!(unknown.rtile_launch_attribute(), None);
}

#[test]
fn launch_reads_back_what_it_writes() {
    let (mut ctx, _) = parse(KERNEL);
    let l = Launch::new(
        [3, 2, 1],
        [8, 4, 1],
        64,
        vec![Type::memref(vec![8], Type::f32()), Type::i32()],
    );
    let f = l.write(Builder::new(&mut ctx).op("gpu.func")).build();
    assert_eq!(Launch::of(&ctx, f), l);
    assert_eq!(l.block_threads(), Some(32));
    // Upstream's properties carry the same extents as the dictionary.
    let d = ctx.attr(f, "rtile.launch").unwrap();
    assert_eq!(ctx.inherent_attr(f, "known_grid_size"), d.dict_get("grid"));
    assert_eq!(
        ctx.inherent_attr(f, "known_block_size"),
        d.dict_get("block")
    );
}

#[test]
fn refuses_an_op_outside_the_vocabulary() {
    let text = KERNEL.replace("\"math.exp\"", "\"math.sinh\"");
    let (ctx, root) = parse(&text);
    let e = check_module(&ctx, root, "rtile-translate").unwrap_err();
    assert!(
        e.message
            .starts_with("rtile-translate: unsupported operation 'math.sinh' in gpu.func @k"),
        "{}",
        e.message
    );
    assert!(e.span.is_some(), "the diagnostic has the op's location");
    let ops = ops_named(&ctx, root);
    let &(_, op) = ops.iter().find(|(n, _)| n == "math.sinh").unwrap();
    assert!(GpuOp::decode(&ctx, op).is_err());
}
