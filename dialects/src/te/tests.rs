//! Tests of the te model: grammar round trips, verifier negatives, generic-body
//! conversion, and the operator suite files.

use super::expr::{CustomHeader, header_of, parse_custom, print_body, print_header};
use super::generic::{body_to_ops, ops_to_body};
use super::model::{ElemType, TeCompute, TensorType};
use super::module::parse_computes;
use super::verify::verify;

fn t(shape: &[i64], e: ElemType) -> TensorType {
    TensorType::new(shape.to_vec(), e)
}

fn header(
    par: &[&str],
    red: &[&str],
    ext: &[i64],
    ins: Vec<TensorType>,
    out: TensorType,
) -> CustomHeader {
    CustomHeader {
        parallel: par.iter().map(|s| s.to_string()).collect(),
        reduction: red.iter().map(|s| s.to_string()).collect(),
        extents: ext.to_vec(),
        input_types: ins,
        result: out,
        may_pad: None,
        padded_from: None,
        accumulator: None,
    }
}

/// Parses, verifies, prints, re-parses and checks the model is unchanged and the
/// text is a fixed point.
fn round_trip(h: &CustomHeader, body: &str) -> TeCompute {
    let p = parse_custom(h, body).unwrap_or_else(|e| panic!("{body}: {e}"));
    verify(&p.compute).unwrap_or_else(|e| panic!("{body}: {e}"));
    let printed = print_body(&p.compute, &p.input_names);
    let q = parse_custom(&header_of(&p.compute), &printed)
        .unwrap_or_else(|e| panic!("reparse `{printed}`: {e}"));
    assert_eq!(p.compute, q.compute, "{body} -> {printed}");
    assert_eq!(print_body(&q.compute, &q.input_names), printed);
    // The generic body converts back to the same tree (modulo int neg, not used here).
    let g = body_to_ops(&p.compute.body, &p.compute.access_types());
    let back = ops_to_body(&g, &p.compute.access_types()).expect("ops to body");
    assert_eq!(back, p.compute.body, "{body}");
    p.compute
}

#[test]
fn matmul_and_conv_round_trip() {
    let f = ElemType::F32;
    round_trip(
        &header(
            &["m", "n"],
            &["k"],
            &[4, 5, 6],
            vec![t(&[4, 6], f), t(&[6, 5], f)],
            t(&[4, 5], f),
        ),
        "te.sum(%A[%m, %k] * %B[%k, %n])",
    );
    let c = round_trip(
        &header(
            &["n", "f", "y", "x"],
            &["c", "ry", "rx"],
            &[1, 2, 4, 4, 3, 3, 3],
            vec![t(&[1, 3, 8, 8], f), t(&[2, 3, 3, 3], f)],
            t(&[1, 2, 4, 4], f),
        ),
        "te.sum(%D[%n, %c, %y * 2 + %ry - 1, %x * 2 + %rx - 1] pad 0.0 * %K[%f, %c, %ry, %rx])",
    );
    assert_eq!(
        print_body(&c, &["D".into(), "K".into()]),
        "te.sum(%D[%n, %c, %y * 2 + %ry - 1, %x * 2 + %rx - 1] pad 0.0 * %K[%f, %c, %ry, %rx])"
    );
    assert_eq!(
        print_header(&c),
        "(%n, %f, %y, %x) reduce (%c, %ry, %rx) in [1, 2, 4, 4, 3, 3, 3] : (tensor<1x3x8x8xf32>, tensor<2x3x3x3xf32>) -> tensor<1x2x4x4xf32>"
    );
}

#[test]
fn body_language_round_trips() {
    let f = ElemType::F32;
    let h2 = header(
        &["i", "j"],
        &[],
        &[3, 4],
        vec![t(&[3, 4], f), t(&[4], f)],
        t(&[3, 4], f),
    );
    let mut h1 = h2.clone();
    h1.input_types.pop();
    for body in [
        "te.max(%X[%i, %j], 0.0)",
        "max(%X[%i, %j], 0.0)",
        "exp(%X[%i, %j] - %Y[%j])",
        "-%X[%i, %j] * 2.5 + 1e-7",
        "%X[%i, %j] - (%Y[%j] - 1.0)",
        "%X[%i, %j] / (%Y[%j] * %Y[%j])",
        "select(%X[%i, %j] > 0.0, %X[%i, %j], %Y[%j] * 0.01)",
        "sqrt(abs(%X[%i, %j])) + rsqrt(%Y[%j] + 1.0e-5) + tanh(%Y[%j]) + erf(log(%Y[%j]))",
        "min(%X[%i, %j], -inf) + neg(1.0) + (2.0 : f32)",
        "f32(f16(%X[%i, %j]))",
        "f32(i32(%X[%i, %j]) + 3)",
        "select(%X[%i, %j] == %Y[%j], 1.0, 0.0)",
        "%X[%i, %j] + %X[%i, %j] * %X[%i, %j]",
        "%Y[(%i + %j) floordiv 2 + %i mod 2]",
        "f32((1.0 : f16) + f16(%Y[%j]))",
    ] {
        let h = if body.contains("%X") && body.contains("%Y") {
            h2.clone()
        } else if body.contains("%X") {
            h1.clone()
        } else {
            let mut h = h1.clone();
            h.input_types = vec![t(&[4], f)];
            h
        };
        round_trip(&h, body);
    }
    // Duplicate accesses share one block argument.
    let c = round_trip(&h1, "%X[%i, %j] * %X[%i, %j]");
    assert_eq!(c.accesses.len(), 1);
}

#[test]
fn mixed_types() {
    let h = header(
        &["i"],
        &["k"],
        &[4, 8],
        vec![t(&[4, 8], ElemType::F16), t(&[8], ElemType::BF16)],
        t(&[4], ElemType::F32),
    );
    round_trip(&h, "te.sum(f32(%A[%i, %k]) * f32(%B[%k]))");
    let e = parse_custom(&h, "te.sum(%A[%i, %k] * %B[%k])").unwrap_err();
    assert!(e.message.contains("operand types differ"), "{e}");
    let h = header(
        &["i"],
        &[],
        &[4],
        vec![t(&[4], ElemType::I8)],
        t(&[4], ElemType::I32),
    );
    round_trip(&h, "i32(%A[%i]) * 3 - 1");
    round_trip(&h, "max(i32(%A[%i]), 0)");
}

/// Expects `body` to fail to parse/resolve or verify, with `needle` in the message.
fn reject(h: &CustomHeader, body: &str, needle: &str) {
    let msg = match parse_custom(h, body) {
        Err(e) => {
            assert!(
                e.start <= e.end && e.end <= body.len(),
                "{body}: span {e:?}"
            );
            e.message
        }
        Ok(p) => match verify(&p.compute) {
            Err(e) => e.message,
            Ok(()) => panic!("accepted: {body}"),
        },
    };
    assert!(msg.contains(needle), "{body}: `{msg}` lacks `{needle}`");
}

#[test]
fn invalid_bodies() {
    let f = ElemType::F32;
    let mm = header(
        &["m", "n"],
        &["k"],
        &[4, 5, 6],
        vec![t(&[4, 6], f), t(&[6, 5], f)],
        t(&[4, 5], f),
    );
    reject(&mm, "%A[%m, %k] * %B[%k, %n]", "needs a combiner");
    reject(&mm, "te.sum(%A[%m, %k] * %B[%k, %n]", "unexpected end");
    reject(&mm, "te.sum(%A[%m, %k] * %B[%k, %q])", "unknown axis %q");
    reject(&mm, "te.sum(%A[%m] * %B[%k, %n])", "1 indices for a rank-2");
    reject(
        &mm,
        "te.sum(%A[%m, %k] * %B[%k, %n + 1])",
        "declare a pad value",
    );
    reject(&mm, "te.sum(%A[%m, %k * %k] * %B[%k, %n])", "not affine");
    reject(
        &mm,
        "te.sum(%A[%m, %k] * %B[%k, %n] + %k)",
        "used as a value",
    );
    reject(
        &mm,
        "te.sum(%A[%m, %k]) + te.sum(%B[%k, %n])",
        "only at the top",
    );
    reject(
        &mm,
        "te.sum(%A[%m, %k] * %B[%k, %n] * %C[%m])",
        "reads 3 tensors",
    );
    reject(
        &mm,
        "te.sum(foo(%A[%m, %k]) * %B[%k, %n])",
        "unknown function",
    );
    reject(&mm, "te.sum(%A[%m, %k] * %B[%k, %n] ^ 2)", "invalid token");
    reject(
        &mm,
        "te.sum(%A[%m, %k] * %B[%k, %n] floordiv 2)",
        "index operator",
    );
    reject(&mm, "te.sum(%A[%m, %k / 2] * %B[%k, %n])", "not affine");
    reject(
        &mm,
        "te.sum(%A[%m, %k] * %B[%k, %n] * (1 : i32))",
        "operand types differ",
    );
    reject(
        &mm,
        "te.sum(%A[%m, %k] * %B[%k, %n] + 1.5 : f99)",
        "unknown type",
    );
    let ew = header(&["i"], &[], &[4], vec![t(&[4], f)], t(&[4], f));
    reject(&ew, "te.sum(%A[%i])", "without reduction axes");
    reject(&ew, "select(%A[%i], 1.0, 0.0)", "condition must be an i1");
    reject(&ew, "%A[%i] > 0.0", "body yields i1");
    let ints = header(
        &["i"],
        &[],
        &[4],
        vec![t(&[4], ElemType::I32)],
        t(&[4], ElemType::I32),
    );
    reject(&ints, "exp(%A[%i])", "floating-point operand");
    reject(&ints, "%A[%i] + 1.5", "not an integer literal");
    reject(&ints, "%A[%i] + 5000000000", "does not fit");
    let ok = parse_custom(&ew, "%A[%i]").expect("parse").compute;
    // Model-level negatives (what the generic form can express but the custom cannot).
    let mut c = ok.clone();
    c.result.shape = vec![5];
    assert!(
        verify(&c)
            .unwrap_err()
            .message
            .contains("result dimension 0")
    );
    let mut c = ok.clone();
    c.axes[0].extent = 0;
    assert!(
        verify(&c)
            .unwrap_err()
            .message
            .contains("extents must be positive")
    );
    let mut c = ok.clone();
    c.accesses[0].map.num_dims = 2;
    assert!(
        verify(&c)
            .unwrap_err()
            .message
            .contains("indexing map has 2 dims")
    );
    let mut c = ok.clone();
    c.combiner = Some(super::model::Combiner::Sum);
    assert!(
        verify(&c)
            .unwrap_err()
            .message
            .contains("without reduction axes")
    );
    let mut c = ok.clone();
    c.padded_from = Some(vec![3]);
    assert!(verify(&c).unwrap_err().message.contains("needs may_pad"));
    let mut c = ok.clone();
    c.inputs.push(t(&[2], f));
    assert!(verify(&c).unwrap_err().message.contains("never read"));
    let mut c = ok;
    c.result.elem = ElemType::F16;
    assert!(verify(&c).unwrap_err().message.contains("body yields f32"));
}

#[test]
fn interval_bounds() {
    use super::verify::expr_bounds;
    use rtile::ir::affine::AffineExpr as A;
    let e = A::add(
        A::add(A::mul(A::dim(0), A::constant(2)), A::dim(1)),
        A::constant(-1),
    );
    assert_eq!(expr_bounds(&e, &[4, 3]), Some((-1, 7)));
    assert_eq!(
        expr_bounds(&A::rem(A::dim(0), A::constant(4)), &[10]),
        Some((0, 3))
    );
    assert_eq!(
        expr_bounds(&A::floordiv(A::dim(0), A::constant(4)), &[10]),
        Some((0, 2))
    );
    assert_eq!(
        expr_bounds(&A::mul(A::dim(0), A::constant(-3)), &[10]),
        Some((-27, 0))
    );
}

fn bench_file(name: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../bench/ops")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn operator_suite_parses_and_verifies() {
    for file in ["roller-table1.mlir", "roller-table1-small.mlir"] {
        let cs = parse_computes(file, &bench_file(file)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(cs.len(), 34, "{file}");
        for c in &cs {
            assert!(!c.result.is_empty(), "{file} @{}: result name", c.func);
            verify(&c.compute).unwrap_or_else(|e| panic!("{file} @{} %{}: {e}", c.func, c.result));
            // The printed body parses back to the same model.
            let names: Vec<String> = (0..c.compute.inputs.len())
                .map(|i| format!("in{i}"))
                .collect();
            let printed = print_body(&c.compute, &names);
            let again = parse_custom(&header_of(&c.compute), &printed).expect("reparse");
            assert_eq!(again.compute, c.compute);
        }
        let funcs: std::collections::BTreeSet<&str> = cs.iter().map(|c| c.func.as_str()).collect();
        assert_eq!(funcs.len(), 22, "{file}: 18 Table-1 operators + 4 extras");
    }
}

#[test]
fn ir_build_and_read_back_every_suite_compute() {
    use rtile::dialect::DialectRegistry;
    use rtile::ir::Context;
    use std::sync::Arc;
    let mut ctx = Context::new(Arc::new(DialectRegistry::with_builtin()));
    for file in ["roller-table1-small.mlir", "roller-table1.mlir"] {
        for fc in parse_computes(file, &bench_file(file)).unwrap_or_else(|e| panic!("{e}")) {
            let c = &fc.compute;
            let block = ctx.create_block(c.inputs.iter().map(|t| t.to_type()).collect());
            let vals = ctx.block_args(block).to_vec();
            let st = super::ir::build_compute_op(&mut ctx, c, &vals);
            let op = ctx.create_op(st);
            let (back, values) = super::ir::compute_from_op(&ctx, op).expect("read back");
            assert_eq!(&back, c, "@{}", fc.func);
            assert_eq!(values, vals);
        }
    }
}

mod random_round_trip {
    use super::super::expr::{header_of, parse_custom, print_body};
    use super::super::model::{
        Access, Axis, AxisKind, BinOp, CmpOp, ElemType, Expr, TeCompute, TensorType, UnOp,
    };
    use super::super::verify::verify;
    use proptest::prelude::*;
    use rtile::ir::affine::AffineMap;

    struct Gen(u64);
    impl Gen {
        fn next(&mut self, n: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 33) % n
        }
        fn expr(&mut self, ty: ElemType, depth: u32) -> Expr {
            let leaf = depth == 0 || self.next(4) == 0;
            if leaf {
                return match (self.next(3), ty) {
                    (0, _) | (1, ElemType::F32) if ty == ElemType::F32 => {
                        Expr::Access(self.next(2) as usize)
                    }
                    (1, _) => Expr::Cast(ty, Box::new(Expr::Access(self.next(2) as usize))),
                    _ => {
                        let vals = [
                            0.0,
                            -0.0,
                            1.0,
                            -2.5,
                            0.1,
                            1e-7,
                            3.0e20,
                            f64::INFINITY,
                            f64::NEG_INFINITY,
                        ];
                        // Literals denote values of their type (the parser rounds).
                        let v = vals[self.next(vals.len() as u64) as usize];
                        Expr::Const(super::super::round::round_to(v, ty), ty)
                    }
                };
            }
            let d = depth - 1;
            match self.next(6) {
                0 | 1 => {
                    let ops = [
                        BinOp::Add,
                        BinOp::Sub,
                        BinOp::Mul,
                        BinOp::Div,
                        BinOp::Max,
                        BinOp::Min,
                    ];
                    let op = ops[self.next(6) as usize];
                    Expr::Binary(op, Box::new(self.expr(ty, d)), Box::new(self.expr(ty, d)))
                }
                2 => {
                    let ops = [
                        UnOp::Neg,
                        UnOp::Exp,
                        UnOp::Log,
                        UnOp::Sqrt,
                        UnOp::Rsqrt,
                        UnOp::Tanh,
                        UnOp::Erf,
                        UnOp::Abs,
                    ];
                    Expr::Unary(ops[self.next(8) as usize], Box::new(self.expr(ty, d)))
                }
                3 => {
                    let ct = if self.next(2) == 0 {
                        ElemType::F32
                    } else {
                        ElemType::F16
                    };
                    let cmps = [
                        CmpOp::Eq,
                        CmpOp::Ne,
                        CmpOp::Lt,
                        CmpOp::Le,
                        CmpOp::Gt,
                        CmpOp::Ge,
                    ];
                    let c = Expr::Cmp(
                        cmps[self.next(6) as usize],
                        Box::new(self.expr(ct, d)),
                        Box::new(self.expr(ct, d)),
                    );
                    Expr::Select(
                        Box::new(c),
                        Box::new(self.expr(ty, d)),
                        Box::new(self.expr(ty, d)),
                    )
                }
                _ => {
                    let from = if ty == ElemType::F32 {
                        ElemType::F16
                    } else {
                        ElemType::F32
                    };
                    Expr::Cast(ty, Box::new(self.expr(from, d)))
                }
            }
        }
    }

    fn compute(body: Expr) -> TeCompute {
        let f = ElemType::F32;
        TeCompute {
            axes: vec![Axis {
                name: "i".into(),
                extent: 4,
                kind: AxisKind::Parallel,
            }],
            inputs: vec![TensorType::new(vec![4], f), TensorType::new(vec![5], f)],
            accesses: vec![
                Access {
                    input: 0,
                    map: AffineMap::identity(1),
                    pad: None,
                },
                Access {
                    input: 1,
                    map: AffineMap::new(
                        1,
                        0,
                        vec![rtile::ir::AffineExpr::add(
                            rtile::ir::AffineExpr::dim(0),
                            rtile::ir::AffineExpr::constant(1),
                        )],
                    ),
                    pad: None,
                },
            ],
            body,
            combiner: None,
            result: TensorType::new(vec![4], f),
            may_pad: None,
            padded_from: None,
            accumulator: None,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]
        #[test]
        fn print_parse_is_identity(seed in any::<u64>(), depth in 0u32..5) {
            let mut g = Gen(seed);
            let body = g.expr(ElemType::F32, depth);
            let mut c = compute(body);
            // The parser numbers accesses and inputs by first use: renumber to match.
            let mut order = vec![];
            c.body.for_each_access(&mut |i| if !order.contains(&i) { order.push(i) });
            prop_assume!(!order.is_empty());
            fn remap(e: &mut Expr, order: &[usize]) {
                match e {
                    Expr::Access(i) => *i = order.iter().position(|x| x == i).unwrap_or(0),
                    Expr::Const(..) => {}
                    Expr::Binary(_, a, b) | Expr::Cmp(_, a, b) => { remap(a, order); remap(b, order); }
                    Expr::Unary(_, a) | Expr::Cast(_, a) => remap(a, order),
                    Expr::Select(x, a, b) => { remap(x, order); remap(a, order); remap(b, order); }
                }
            }
            remap(&mut c.body, &order);
            let all_names = ["A".to_string(), "B".to_string()];
            let names: Vec<String> = order.iter().map(|&i| all_names[i].clone()).collect();
            c.inputs = order.iter().map(|&i| c.inputs[i].clone()).collect();
            c.accesses = order
                .iter()
                .enumerate()
                .map(|(k, &i)| Access { input: k, ..c.accesses[i].clone() })
                .collect();
            prop_assert!(verify(&c).is_ok(), "{:?}", verify(&c));
            let text = print_body(&c, &names);
            let p = parse_custom(&header_of(&c), &text);
            prop_assert!(p.is_ok(), "{text}: {:?}", p.err());
            let p = p.unwrap_or_else(|_| unreachable!());
            prop_assert_eq!(&p.compute, &c, "{}", text);
        }
    }
}

#[test]
fn op_definition_verifies_and_reports() {
    use super::dialect::{COMPUTE_OP, TeDialect, YIELD_OP};
    use rtile::dialect::{Dialect, DialectRegistry, OpDefinition};
    use rtile::ir::Context;
    use std::sync::Arc;
    let mut reg = DialectRegistry::with_builtin();
    reg.register(&TeDialect);
    assert!(reg.op("te.compute").is_some() && reg.op("te.yield").is_some());
    assert_eq!(TeDialect.namespace(), "te");
    let mut ctx = Context::new(Arc::new(reg));
    let f = ElemType::F32;
    let h = header(&["i"], &[], &[4], vec![t(&[4], f)], t(&[4], f));
    let c = parse_custom(&h, "%A[%i] * 2.0").expect("parse").compute;
    let block = ctx.create_block(vec![t(&[4], f).to_type()]);
    let args = ctx.block_args(block).to_vec();
    let st = super::ir::build_compute_op(&mut ctx, &c, &args);
    let op = ctx.create_op(st);
    COMPUTE_OP.verify(&ctx, op).expect("valid");
    let body = ctx.region_blocks(ctx.regions(op)[0])[0];
    let y = ctx.last_op(body).expect("yield");
    YIELD_OP.verify(&ctx, y).expect("yield valid");
    // Break it: a domain that does not match the result.
    ctx.set_attr(op, "domain", rtile::ir::Attribute::dense_i64_array(vec![5]));
    let e = COMPUTE_OP.verify(&ctx, op).unwrap_err();
    assert!(
        e.message.starts_with("'te.compute' op ") && e.message.contains("result dimension 0"),
        "{}",
        e.message
    );
}

#[test]
fn printer_value_names_parse_back() {
    // Names the printer gives values: `%0`, `%arg1`, `%3#1` (a result of a multi-result op).
    let f = ElemType::F32;
    let h = header(
        &["i"],
        &[],
        &[4],
        vec![t(&[4], f), t(&[4], f), t(&[4], f)],
        t(&[4], f),
    );
    let p = parse_custom(&h, "%0[%i] + %arg1[%i] * %3#1[%i]").expect("parse");
    assert_eq!(p.input_names, vec!["0", "arg1", "3#1"]);
    assert_eq!(
        print_body(&p.compute, &p.input_names),
        "%0[%i] + %arg1[%i] * %3#1[%i]"
    );
}
