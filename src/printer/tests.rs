//! Printer tests: IR built with the Context API, compared with what mlir-opt prints.

use std::sync::Arc;

use super::*;
use crate::dialect::{Dialect, DialectRegistry, OpDefinition, OpTraits};
use crate::ir::{
    AffineExpr as E, AffineMap, AttrKind, DYNAMIC, DenseArray, DenseLiteral, FloatBits, FloatKind,
    IntegerSet, Location, OperationState, Signedness, Span, TypeKind,
};

/// A stand-in `func` dialect with custom forms, to exercise the custom-form hooks.
struct FuncDialect;
struct FuncOp;
struct ReturnOp;

impl Dialect for FuncDialect {
    fn namespace(&self) -> &'static str {
        "func"
    }
    fn description(&self) -> &'static str {
        "test func"
    }
    fn ops(&self) -> Vec<Box<dyn OpDefinition>> {
        vec![Box::new(FuncOp), Box::new(ReturnOp)]
    }
}

impl OpDefinition for FuncOp {
    fn name(&self) -> &'static str {
        "func.func"
    }
    fn summary(&self) -> &'static str {
        "function"
    }
    fn has_custom_assembly(&self) -> bool {
        true
    }
    fn print(&self, ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
        let name = ctx
            .attr(op, "sym_name")
            .and_then(|a| a.as_str())
            .unwrap_or("");
        p.print_symbol_name(name);
        let r = ctx.regions(op)[0];
        let entry = ctx.region_blocks(r)[0];
        p.write("(");
        for (i, &a) in ctx.block_args(entry).iter().enumerate() {
            if i > 0 {
                p.write(", ");
            }
            p.print_region_argument(a);
        }
        p.write(")");
        if let Some(AttrKind::Type(t)) = ctx.attr(op, "function_type").map(|x| x.kind())
            && let TypeKind::Function { results, .. } = t.kind()
        {
            let results = results.clone();
            p.print_arrow_result_types(&results);
        }
        p.print_optional_attr_dict_with_keyword(
            &ctx.op(op).attributes,
            &["sym_name", "function_type"],
        );
        p.write(" ");
        p.print_region(r, false, true);
    }
}

impl OpDefinition for ReturnOp {
    fn name(&self) -> &'static str {
        "func.return"
    }
    fn summary(&self) -> &'static str {
        "return"
    }
    fn traits(&self) -> OpTraits {
        OpTraits {
            is_terminator: true,
            ..OpTraits::default()
        }
    }
    fn has_custom_assembly(&self) -> bool {
        true
    }
    fn print(&self, ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
        let ops = ctx.operands(op).to_vec();
        if !ops.is_empty() {
            p.print_operands(&ops);
            p.write(" : ");
            let tys: Vec<Type> = ops.iter().map(|v| *ctx.value_type(*v)).collect();
            p.print_types(&tys);
        }
    }
}

fn ctx() -> Context {
    let mut r = DialectRegistry::with_builtin();
    r.register(&FuncDialect);
    let mut c = Context::new(Arc::new(r));
    c.allow_unregistered = true;
    c
}

/// A module with one empty body block; returns (module, body block).
fn module(c: &mut Context) -> (OpId, BlockId) {
    let m = c.create_op(OperationState::new("builtin.module"));
    let r = c.add_region(m);
    let b = c.create_block(vec![]);
    c.append_block(r, b);
    (m, b)
}

fn op(c: &mut Context, b: BlockId, name: &str, operands: Vec<Value>, results: Vec<Type>) -> OpId {
    let mut s = OperationState::new(name);
    s.operands = operands;
    s.result_types = results;
    let o = c.create_op(s);
    c.append_op(b, o);
    o
}

fn generic() -> PrintOptions {
    PrintOptions {
        generic: true,
        debug_info: false,
    }
}

#[test]
fn empty_module() {
    let mut c = ctx();
    let (m, _) = module(&mut c);
    assert_eq!(print_op(&c, m, &PrintOptions::default()), "module {\n}\n");
    assert_eq!(
        print_op(&c, m, &generic()),
        "\"builtin.module\"() ({\n^bb0:\n}) : () -> ()\n"
    );
}

#[test]
fn module_custom_form() {
    let mut c = ctx();
    let (m, b) = module(&mut c);
    c.set_attr(m, "sym_name", Attribute::string("m"));
    op(&mut c, b, "d.x", vec![], vec![]);
    assert_eq!(
        print_op(&c, m, &PrintOptions::default()),
        "module @m {\n  \"d.x\"() : () -> ()\n}\n"
    );
    c.set_attr(m, "d.attr", Attribute::int(1, Type::i32()));
    c.set_attr(m, "sym_name", Attribute::string("needs quote"));
    assert_eq!(
        print_op(&c, m, &PrintOptions::default()),
        "module @\"needs quote\" attributes {d.attr = 1 : i32} {\n  \"d.x\"() : () -> ()\n}\n"
    );
}

#[test]
fn nested_regions_and_naming() {
    let mut c = ctx();
    let (m, b) = module(&mut c);
    // func-like custom op with an arg, nested generic op with its own region.
    let mut fs = OperationState::new("func.func");
    fs.add_attribute("sym_name", Attribute::string("f"));
    fs.add_attribute(
        "function_type",
        Attribute::new(AttrKind::Type(Type::function(
            vec![Type::i32()],
            vec![Type::i32()],
        ))),
    );
    let f = c.create_op(fs);
    c.append_op(b, f);
    let fr = c.add_region(f);
    let entry = c.create_block(vec![Type::i32()]);
    c.append_block(fr, entry);
    let a0 = c.block_args(entry)[0];
    let x = op(&mut c, entry, "d.a", vec![a0], vec![Type::i32()]);
    let xv = c.result(x, 0);
    let multi = op(&mut c, entry, "d.m", vec![], vec![Type::i32(), Type::f32()]);
    let m1 = c.result(multi, 1);
    let outer = op(&mut c, entry, "d.r", vec![], vec![Type::i32()]);
    let r1 = c.add_region(outer);
    let b1 = c.create_block(vec![Type::index()]);
    c.append_block(r1, b1);
    let barg = c.block_args(b1)[0];
    op(&mut c, b1, "d.in", vec![barg, xv, m1], vec![Type::i1()]);
    let r2 = c.add_region(outer);
    let b2 = c.create_block(vec![]);
    c.append_block(r2, b2);
    op(&mut c, b2, "d.in2", vec![], vec![Type::i1()]);
    let ov = c.result(outer, 0);
    op(&mut c, entry, "func.return", vec![ov], vec![]);
    // A second function restarts at %0 / %arg0.
    let mut gs = OperationState::new("func.func");
    gs.add_attribute("sym_name", Attribute::string("g"));
    gs.add_attribute(
        "function_type",
        Attribute::new(AttrKind::Type(Type::function(vec![Type::f32()], vec![]))),
    );
    let g = c.create_op(gs);
    c.append_op(b, g);
    let gr = c.add_region(g);
    let ge = c.create_block(vec![Type::f32()]);
    c.append_block(gr, ge);
    op(&mut c, ge, "d.z", vec![], vec![Type::f32()]);
    op(&mut c, ge, "func.return", vec![], vec![]);

    insta::assert_snapshot!(print_op(&c, m, &PrintOptions::default()), @r#"
    module {
      func.func @f(%arg0: i32) -> i32 {
        %0 = "d.a"(%arg0) : (i32) -> i32
        %1:2 = "d.m"() : () -> (i32, f32)
        %2 = "d.r"() ({
        ^bb0(%arg1: index):
          %3 = "d.in"(%arg1, %0, %1#1) : (index, i32, f32) -> i1
        }, {
          %3 = "d.in2"() : () -> i1
        }) : () -> i32
        return %2 : i32
      }
      func.func @g(%arg0: f32) {
        %0 = "d.z"() : () -> f32
        return
      }
    }
    "#);
    // Generic form numbers uniquely (MLIR's unique SSA ids): regions are taken last
    // first and the counters keep running, as `mlir-opt --mlir-print-op-generic` does.
    insta::assert_snapshot!(print_op(&c, m, &generic()), @r#"
    "builtin.module"() ({
      "func.func"() ({
      ^bb0(%arg1: i32):
        %1 = "d.a"(%arg1) : (i32) -> i32
        %2:2 = "d.m"() : () -> (i32, f32)
        %3 = "d.r"() ({
        ^bb0(%arg2: index):
          %5 = "d.in"(%arg2, %1, %2#1) : (index, i32, f32) -> i1
        }, {
          %4 = "d.in2"() : () -> i1
        }) : () -> i32
        "func.return"(%3) : (i32) -> ()
      }) {function_type = (i32) -> i32, sym_name = "f"} : () -> ()
      "func.func"() ({
      ^bb0(%arg0: f32):
        %0 = "d.z"() : () -> f32
        "func.return"() : () -> ()
      }) {function_type = (f32) -> (), sym_name = "g"} : () -> ()
    }) : () -> ()
    "#);
}

#[test]
fn cfg_with_predecessors() {
    let mut c = ctx();
    let (_m, mb) = module(&mut c);
    let o = op(&mut c, mb, "d.f", vec![], vec![]);
    let r = c.add_region(o);
    let b0 = c.create_block(vec![]);
    let b1 = c.create_block(vec![Type::i32()]);
    let b2 = c.create_block(vec![]);
    let b3 = c.create_block(vec![Type::i32(), Type::f32()]);
    let b4 = c.create_block(vec![]);
    for b in [b0, b1, b2, b3, b4] {
        c.append_block(r, b);
    }
    let cst = op(&mut c, b0, "d.c", vec![], vec![Type::i32()]);
    let cv = c.result(cst, 0);
    let mut s = OperationState::new("d.cond_br");
    s.operands = vec![cv];
    s.successors = vec![b1, b2];
    let br = c.create_op(s);
    c.append_op(b0, br);
    let mut s = OperationState::new("d.br");
    s.successors = vec![b3];
    let x = c.create_op(s.clone());
    c.append_op(b1, x);
    let mut s2 = OperationState::new("d.br2");
    s2.successors = vec![b3, b3];
    let y = c.create_op(s2);
    c.append_op(b2, y);
    let a = c.block_args(b3)[1];
    op(&mut c, b3, "d.ret", vec![a], vec![]);
    op(&mut c, b4, "d.dead", vec![], vec![]);
    let mut s3 = OperationState::new("d.br");
    s3.successors = vec![b2];
    let z = c.create_op(s3);
    c.append_op(b4, z);
    insta::assert_snapshot!(print_op(&c, o, &PrintOptions::default()), @r#"
    "d.f"() ({
      %0 = "d.c"() : () -> i32
      "d.cond_br"(%0)[^bb1, ^bb2] : (i32) -> ()
    ^bb1(%1: i32):  // pred: ^bb0
      "d.br"()[^bb3] : () -> ()
    ^bb2:  // 2 preds: ^bb0, ^bb4
      "d.br2"()[^bb3, ^bb3] : () -> ()
    ^bb3(%2: i32, %3: f32):  // 3 preds: ^bb1, ^bb2, ^bb2
      "d.ret"(%3) : (f32) -> ()
    ^bb4:  // no predecessors
      "d.dead"() : () -> ()
      "d.br"()[^bb2] : () -> ()
    }) : () -> ()
    "#);
}

#[test]
fn empty_region_and_properties() {
    let mut c = ctx();
    let (_, b) = module(&mut c);
    let mut s = OperationState::new("d.p");
    s.properties = Some(Attribute::dictionary(vec![NamedAttribute {
        name: "x".into(),
        value: Attribute::i64(3),
    }]));
    s.add_attribute("u", Attribute::unit());
    s.add_attribute("a", Attribute::bool(true));
    let o = c.create_op(s);
    c.append_op(b, o);
    c.add_region(o);
    assert_eq!(
        print_op(&c, o, &PrintOptions::default()),
        "\"d.p\"() <{x = 3 : i64}> ({\n}) {a = true, u} : () -> ()\n"
    );
}

#[test]
fn debug_locations() {
    // Mirrors a file that `mlir-opt --mlir-print-debuginfo` prints with deferred
    // `#loc` aliases, numbered by nesting depth then first use.
    let mut c = ctx();
    let (m, b) = module(&mut c);
    let flc = |f: &str, l, col| Location::FileLineCol {
        file: f.into(),
        line: l,
        col,
    };
    c.op_mut(m).location = flc("t9.mlir", 0, 0);
    let x = op(&mut c, b, "d.x", vec![], vec![]);
    c.op_mut(x).location = Location::Fused {
        locations: vec![
            flc("a", 1, 2),
            Location::Name {
                name: "b".into(),
                child: Some(Box::new(flc("c", 3, 4))),
            },
        ],
        metadata: None,
    };
    let y = op(&mut c, b, "d.y", vec![], vec![]);
    let r = c.add_region(y);
    let yb = c.create_block(vec![]);
    c.append_block(r, yb);
    let z = op(&mut c, yb, "d.z", vec![], vec![]);
    c.op_mut(z).location = Location::CallSite {
        callee: Box::new(flc("x", 1, 1)),
        caller: Box::new(flc("y", 2, 2)),
    };
    let w = op(&mut c, b, "d.w", vec![], vec![]);
    c.op_mut(w).location = flc("a", 1, 2);
    let opts = PrintOptions {
        generic: false,
        debug_info: true,
    };
    insta::assert_snapshot!(print_op(&c, m, &opts), @r#"
    module {
      "d.x"() : () -> () loc(#loc8)
      "d.y"() ({
        "d.z"() : () -> () loc(#loc7)
      }) : () -> () loc(#loc3)
      "d.w"() : () -> () loc(#loc1)
    } loc(#loc)
    #loc = loc("t9.mlir":0:0)
    #loc1 = loc("a":1:2)
    #loc2 = loc("c":3:4)
    #loc3 = loc(unknown)
    #loc4 = loc("x":1:1)
    #loc5 = loc("y":2:2)
    #loc6 = loc("b"(#loc2))
    #loc7 = loc(callsite(#loc4 at #loc5))
    #loc8 = loc(fused[#loc1, #loc6])
    "#);
    assert_eq!(
        attr_to_string(&Attribute::new(AttrKind::Location(Location::Name {
            name: "n".into(),
            child: Some(Box::new(Location::Unknown))
        }))),
        "loc(\"n\")"
    );
}

#[test]
fn debug_block_argument_locations() {
    let text = "\"d.y\"() ({\n^bb0(%a: i32, %b: f32):\n  \"d.z\"() : () -> () loc(\"z\":1:1)\n}) : () -> () loc(\"y\":1:1)\n";
    let mut c = ctx();
    let file = c.add_source("t12.mlir", text);
    let (m, b) = module(&mut c);
    c.op_mut(m).location = Location::FileLineCol {
        file: "t12.mlir".into(),
        line: 0,
        col: 0,
    };
    let y = op(&mut c, b, "d.y", vec![], vec![]);
    c.op_mut(y).location = Location::FileLineCol {
        file: "y".into(),
        line: 1,
        col: 1,
    };
    let r = c.add_region(y);
    let yb = c.create_block(vec![]);
    c.append_block(r, yb);
    let a_at = text.find("%a").unwrap_or(0);
    let b_at = text.find("%b").unwrap_or(0);
    c.add_block_argument(yb, Type::i32(), Some(Span::new(file, a_at, a_at + 2)));
    c.add_block_argument(yb, Type::f32(), Some(Span::new(file, b_at, b_at + 2)));
    let z = op(&mut c, yb, "d.z", vec![], vec![]);
    c.op_mut(z).location = Location::FileLineCol {
        file: "z".into(),
        line: 1,
        col: 1,
    };
    let opts = PrintOptions {
        generic: false,
        debug_info: true,
    };
    // Exactly what `mlir-opt-22 --mlir-print-debuginfo` prints for that text.
    insta::assert_snapshot!(print_op(&c, m, &opts), @r#"
    #loc2 = loc("t12.mlir":2:6)
    #loc3 = loc("t12.mlir":2:15)
    module {
      "d.y"() ({
      ^bb0(%arg0: i32 loc("t12.mlir":2:6), %arg1: f32 loc("t12.mlir":2:15)):
        "d.z"() : () -> () loc(#loc4)
      }) : () -> () loc(#loc1)
    } loc(#loc)
    #loc = loc("t12.mlir":0:0)
    #loc1 = loc("y":1:1)
    #loc4 = loc("z":1:1)
    "#);
}

fn t(ty: Type) -> String {
    type_to_string(&ty)
}

#[test]
fn types() {
    assert_eq!(t(Type::i32()), "i32");
    assert_eq!(
        t(Type::new(TypeKind::Integer {
            width: 8,
            signedness: Signedness::Signed
        })),
        "si8"
    );
    assert_eq!(
        t(Type::new(TypeKind::Integer {
            width: 16,
            signedness: Signedness::Unsigned
        })),
        "ui16"
    );
    assert_eq!(t(Type::float(FloatKind::BF16)), "bf16");
    assert_eq!(t(Type::float(FloatKind::F8E4M3FN)), "f8E4M3FN");
    assert_eq!(t(Type::index()), "index");
    assert_eq!(t(Type::new(TypeKind::None)), "none");
    assert_eq!(
        t(Type::tensor(vec![4, DYNAMIC], Type::f32())),
        "tensor<4x?xf32>"
    );
    assert_eq!(t(Type::tensor(vec![], Type::f32())), "tensor<f32>");
    assert_eq!(
        t(Type::new(TypeKind::UnrankedTensor { elem: Type::f32() })),
        "tensor<*xf32>"
    );
    assert_eq!(
        t(Type::new(TypeKind::Tensor {
            shape: vec![4],
            elem: Type::f32(),
            encoding: Some(Attribute::new(AttrKind::Dialect {
                dialect: "enc".into(),
                body: "x<1>".into()
            }))
        })),
        "tensor<4xf32, #enc.x<1>>"
    );
    assert_eq!(t(Type::memref(vec![4, 4], Type::f32())), "memref<4x4xf32>");
    assert_eq!(
        t(Type::new(TypeKind::MemRef {
            shape: vec![4],
            elem: Type::f32(),
            layout: Some(Attribute::new(AttrKind::Strided {
                strides: vec![1],
                offset: DYNAMIC
            })),
            memory_space: Some(Attribute::i64(3)),
        })),
        "memref<4xf32, strided<[1], offset: ?>, 3>"
    );
    assert_eq!(
        t(Type::new(TypeKind::MemRef {
            shape: vec![4],
            elem: Type::f32(),
            layout: Some(Attribute::new(AttrKind::AffineMap(AffineMap::identity(1)))),
            memory_space: Some(Attribute::new(AttrKind::Dialect {
                dialect: "gpu".into(),
                body: "address_space<workgroup>".into()
            })),
        })),
        "memref<4xf32, #gpu.address_space<workgroup>>"
    );
    assert_eq!(
        t(Type::new(TypeKind::UnrankedMemRef {
            elem: Type::f32(),
            memory_space: Some(Attribute::i64(1))
        })),
        "memref<*xf32, 1>"
    );
    assert_eq!(
        t(Type::new(TypeKind::Vector {
            shape: vec![4, 8],
            scalable: vec![false, true],
            elem: Type::f32()
        })),
        "vector<4x[8]xf32>"
    );
    assert_eq!(t(Type::new(TypeKind::Complex(Type::f32()))), "complex<f32>");
    assert_eq!(
        t(Type::new(TypeKind::Tuple(vec![Type::i32(), Type::f32()]))),
        "tuple<i32, f32>"
    );
    assert_eq!(
        t(Type::function(vec![Type::i32()], vec![Type::i32()])),
        "(i32) -> i32"
    );
    assert_eq!(
        t(Type::function(
            vec![Type::i32()],
            vec![Type::i32(), Type::f32()]
        )),
        "(i32) -> (i32, f32)"
    );
    assert_eq!(t(Type::function(vec![], vec![])), "() -> ()");
    assert_eq!(
        t(Type::function(
            vec![],
            vec![Type::function(vec![Type::i32()], vec![])]
        )),
        "() -> ((i32) -> ())"
    );
    assert_eq!(
        t(Type::new(TypeKind::Dialect {
            dialect: "d".into(),
            body: "body<1, 2>".into()
        })),
        "!d.body<1, 2>"
    );
    assert_eq!(
        t(Type::new(TypeKind::Dialect {
            dialect: "d".into(),
            body: "not simple".into()
        })),
        "!d<\"not simple\">"
    );
}

fn a(attr: Attribute) -> String {
    attr_to_string(&attr)
}

#[test]
fn attributes() {
    assert_eq!(a(Attribute::unit()), "unit");
    assert_eq!(a(Attribute::bool(false)), "false");
    assert_eq!(a(Attribute::i64(42)), "42 : i64");
    assert_eq!(a(Attribute::int(-1, Type::i32())), "-1 : i32");
    assert_eq!(a(Attribute::int(255, Type::int(8))), "-1 : i8");
    assert_eq!(
        a(Attribute::int(
            255,
            Type::new(TypeKind::Integer {
                width: 8,
                signedness: Signedness::Unsigned
            })
        )),
        "255 : ui8"
    );
    assert_eq!(a(Attribute::int(1, Type::i1())), "true");
    assert_eq!(a(Attribute::int(1, Type::index())), "1 : index");
    assert_eq!(a(Attribute::float(1.0, Type::f32())), "1.000000e+00 : f32");
    assert_eq!(a(Attribute::float(1.0, Type::f64())), "1.000000e+00 : f64");
    assert_eq!(a(Attribute::string("a\"b\\c\n")), "\"a\\22b\\\\c\\0A\"");
    assert_eq!(
        a(Attribute::new(AttrKind::String {
            value: "x".into(),
            ty: Some(Type::i32())
        })),
        "\"x\" : i32"
    );
    assert_eq!(a(Attribute::symbol("foo")), "@foo");
    assert_eq!(a(Attribute::symbol("needs quotes")), "@\"needs quotes\"");
    assert_eq!(
        a(Attribute::new(AttrKind::SymbolRef {
            root: "a".into(),
            nested: vec!["b".into(), "c".into()]
        })),
        "@a::@b::@c"
    );
    assert_eq!(
        a(Attribute::new(AttrKind::Array(vec![
            Attribute::i64(1),
            Attribute::int(2, Type::i32()),
            Attribute::float(0.5, Type::f64()),
            Attribute::unit()
        ]))),
        "[1, 2 : i32, 5.000000e-01, unit]"
    );
    assert_eq!(
        a(Attribute::dense_i64_array(vec![1, 2])),
        "array<i64: 1, 2>"
    );
    assert_eq!(a(Attribute::dense_i64_array(vec![])), "array<i64>");
    assert_eq!(
        a(Attribute::new(AttrKind::DenseArray(DenseArray::Int {
            elem: Type::i1(),
            values: vec![1, 0]
        }))),
        "array<i1: true, false>"
    );
    assert_eq!(
        a(Attribute::new(AttrKind::DenseArray(DenseArray::Float {
            elem: Type::f32(),
            values: vec![FloatBits::new(1.5)]
        }))),
        "array<f32: 1.500000e+00>"
    );
    assert_eq!(
        a(Attribute::dictionary(vec![
            NamedAttribute {
                name: "b".into(),
                value: Attribute::unit()
            },
            NamedAttribute {
                name: "a".into(),
                value: Attribute::int(1, Type::i32())
            },
            NamedAttribute {
                name: "x y".into(),
                value: Attribute::new(AttrKind::Type(Type::f32()))
            },
        ])),
        "{a = 1 : i32, b, \"x y\" = f32}"
    );
    assert_eq!(
        a(Attribute::new(AttrKind::DenseElements {
            literal: DenseLiteral::List(vec![DenseLiteral::Int(1), DenseLiteral::Int(2)]),
            ty: Type::tensor(vec![2], Type::i32())
        })),
        "dense<[1, 2]> : tensor<2xi32>"
    );
    assert_eq!(
        a(Attribute::new(AttrKind::DenseElements {
            literal: DenseLiteral::Float(FloatBits::new(1.0)),
            ty: Type::tensor(vec![4], Type::f32())
        })),
        "dense<1.000000e+00> : tensor<4xf32>"
    );
    assert_eq!(
        a(Attribute::new(AttrKind::DenseElements {
            literal: DenseLiteral::List(vec![
                DenseLiteral::List(vec![DenseLiteral::Bool(true), DenseLiteral::Bool(true)]),
                DenseLiteral::List(vec![DenseLiteral::Bool(true), DenseLiteral::Bool(true)])
            ]),
            ty: Type::tensor(vec![2, 2], Type::i1())
        })),
        "dense<true> : tensor<2x2xi1>"
    );
    assert_eq!(
        a(Attribute::new(AttrKind::DenseElements {
            literal: DenseLiteral::List(vec![]),
            ty: Type::tensor(vec![0], Type::i32())
        })),
        "dense<> : tensor<0xi32>"
    );
    assert_eq!(
        a(Attribute::new(AttrKind::Strided {
            strides: vec![4, 1],
            offset: 0
        })),
        "strided<[4, 1]>"
    );
    assert_eq!(
        a(Attribute::new(AttrKind::Strided {
            strides: vec![DYNAMIC, 1],
            offset: DYNAMIC
        })),
        "strided<[?, 1], offset: ?>"
    );
    assert_eq!(
        a(Attribute::new(AttrKind::Location(Location::Unknown))),
        "loc(unknown)"
    );
    assert_eq!(
        a(Attribute::new(AttrKind::Dialect {
            dialect: "d".into(),
            body: "body".into()
        })),
        "#d.body"
    );
}

fn f(v: f64, ty: Type) -> String {
    a(Attribute::float(v, ty))
}

fn dense(literal: DenseLiteral, ty: Type) -> String {
    a(Attribute::new(AttrKind::DenseElements { literal, ty }))
}

#[test]
fn dense_elements() {
    use DenseLiteral as L;
    let ints = |v: &[i128]| L::List(v.iter().map(|x| L::Int(*x)).collect());
    assert_eq!(
        dense(
            L::Hex("0x0100000002000000".into()),
            Type::tensor(vec![2], Type::i32())
        ),
        "dense<[1, 2]> : tensor<2xi32>"
    );
    assert_eq!(
        dense(
            L::Hex("0x01000000".into()),
            Type::tensor(vec![2, 2], Type::i32())
        ),
        "dense<1> : tensor<2x2xi32>"
    );
    assert_eq!(
        dense(
            L::Hex("0x0000803F".into()),
            Type::tensor(vec![3], Type::f32())
        ),
        "dense<1.000000e+00> : tensor<3xf32>"
    );
    assert_eq!(
        dense(
            L::List(vec![ints(&[1, 2]), ints(&[3, 4])]),
            Type::tensor(vec![2, 2], Type::int(8))
        ),
        "dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>"
    );
    assert_eq!(
        dense(ints(&[1, 0]), Type::tensor(vec![2], Type::i1())),
        "dense<[true, false]> : tensor<2xi1>"
    );
    let ui8 = TypeKind::Integer {
        width: 8,
        signedness: Signedness::Unsigned,
    };
    assert_eq!(
        dense(L::Int(255), Type::tensor(vec![2], Type::new(ui8))),
        "dense<255> : tensor<2xui8>"
    );
    // Above 100 elements mlir-opt switches to the hex form.
    let many: Vec<i128> = (0..101).collect();
    let s = dense(ints(&many), Type::tensor(vec![101], Type::i32()));
    assert!(
        s.starts_with("dense<\"0x0000000001000000020000000300"),
        "{s}"
    );
    assert!(s.ends_with("64000000\"> : tensor<101xi32>"), "{s}");
    let hundred: Vec<i128> = (0..100).collect();
    let s = dense(ints(&hundred), Type::tensor(vec![100], Type::i32()));
    assert!(s.starts_with("dense<[0, 1, 2, "), "{s}");
}

#[test]
// 3.14159265358979 is a deliberate input (the brief's edge case), not a stand-in for PI.
#[allow(clippy::approx_constant)]
fn floats() {
    assert_eq!(f(0.1, Type::f32()), "1.000000e-01 : f32");
    assert_eq!(f(0.1, Type::f64()), "1.000000e-01 : f64");
    assert_eq!(f(1e-10, Type::f64()), "1.000000e-10 : f64");
    assert_eq!(f(1e-10, Type::f32()), "1.000000e-10 : f32");
    assert_eq!(f(f64::NAN, Type::f32()), "0x7FC00000 : f32");
    assert_eq!(f(f64::NAN, Type::f64()), "0x7FF8000000000000 : f64");
    assert_eq!(f(f64::INFINITY, Type::f32()), "0x7F800000 : f32");
    assert_eq!(
        f(f64::NEG_INFINITY, Type::f64()),
        "0xFFF0000000000000 : f64"
    );
    assert_eq!(
        f(f64::INFINITY, Type::float(FloatKind::F16)),
        "0x7C00 : f16"
    );
    assert_eq!(f(f64::NAN, Type::float(FloatKind::BF16)), "0x7FC0 : bf16");
    assert_eq!(f(-0.0, Type::f32()), "-0.000000e+00 : f32");
    assert_eq!(f(0.0, Type::f64()), "0.000000e+00 : f64");
    assert_eq!(f(3.14159265358979, Type::f64()), "3.14159265358979 : f64");
    assert_eq!(f(3.14159265358979, Type::f32()), "3.14159274 : f32");
    assert_eq!(f(0.1 + 0.2, Type::f64()), "0.30000000000000004 : f64");
    assert_eq!(f(-2.5, Type::f32()), "-2.500000e+00 : f32");
    assert_eq!(f(1e20, Type::f64()), "1.000000e+20 : f64");
    assert_eq!(f(123456789.0, Type::f64()), "0x419D6F3454000000 : f64");
    assert_eq!(
        f(1.0e-7 + 1.0e-22, Type::f64()),
        "1.000000000000001E-7 : f64"
    );
    assert_eq!(f(0.001234567, Type::f64()), "0.001234567 : f64");
    assert_eq!(f(1.1, Type::float(FloatKind::BF16)), "1.101560e+00 : bf16");
    assert_eq!(f(0.1, Type::float(FloatKind::F16)), "9.997550e-02 : f16");
    // Every kind prints without panicking, whatever the value.
    for (k, _) in FloatKind::ALL {
        for v in [0.0, -1.5, 0.1, 1e300, -1e-300, f64::NAN, f64::INFINITY] {
            assert!(!f(v, Type::float(k)).is_empty());
        }
    }
    assert_eq!(
        f(1.5, Type::float(FloatKind::F8E4M3)),
        "1.500000e+00 : f8E4M3"
    );
    assert_eq!(
        f(f64::INFINITY, Type::float(FloatKind::F8E5M2)),
        "0x7C : f8E5M2"
    );
}

fn map(nd: u32, ns: u32, r: Vec<E>) -> String {
    a(Attribute::new(AttrKind::AffineMap(AffineMap::new(
        nd, ns, r,
    ))))
}

#[test]
fn affine_printing() {
    let d0 = || E::dim(0);
    let d1 = || E::dim(1);
    let s0 = || E::symbol(0);
    let c = E::constant;
    assert_eq!(
        map(2, 1, vec![E::add(d0(), s0()), E::floordiv(d1(), c(4))]),
        "affine_map<(d0, d1)[s0] -> (d0 + s0, d1 floordiv 4)>"
    );
    assert_eq!(
        map(2, 0, vec![E::sub(d0(), d1())]),
        "affine_map<(d0, d1) -> (d0 - d1)>"
    );
    assert_eq!(
        map(1, 0, vec![E::add(d0(), c(-1))]),
        "affine_map<(d0) -> (d0 - 1)>"
    );
    assert_eq!(
        map(1, 0, vec![E::mul(d0(), c(-1))]),
        "affine_map<(d0) -> (-d0)>"
    );
    assert_eq!(map(0, 0, vec![c(0)]), "affine_map<() -> (0)>");
    assert_eq!(
        map(2, 0, vec![E::add(d0(), E::mul(d1(), c(-3)))]),
        "affine_map<(d0, d1) -> (d0 - d1 * 3)>"
    );
    assert_eq!(
        map(2, 0, vec![E::mul(E::add(d0(), d1()), c(2))]),
        "affine_map<(d0, d1) -> ((d0 + d1) * 2)>"
    );
    assert_eq!(
        map(2, 0, vec![E::sub(d0(), E::add(d1(), c(2)))]),
        "affine_map<(d0, d1) -> (d0 - (d1 + 2))>"
    );
    assert_eq!(
        map(2, 0, vec![E::rem(E::add(d0(), d1()), c(8))]),
        "affine_map<(d0, d1) -> ((d0 + d1) mod 8)>"
    );
    assert_eq!(
        map(
            2,
            0,
            vec![E::add(E::mul(d0(), c(4)), E::ceildiv(d1(), c(2)))]
        ),
        "affine_map<(d0, d1) -> (d0 * 4 + d1 ceildiv 2)>"
    );
    assert_eq!(
        map(1, 0, vec![E::mul(E::floordiv(d0(), c(2)), c(-1))]),
        "affine_map<(d0) -> (-(d0 floordiv 2))>"
    );
    // Checked against mlir-opt-22.
    let s0e = || E::symbol(0);
    assert_eq!(
        map(
            0,
            1,
            vec![
                E::Add(
                    Box::new(E::Mul(Box::new(s0e()), Box::new(c(-2)))),
                    Box::new(c(3))
                ),
                E::Mod(Box::new(s0e()), Box::new(c(-1))),
                E::Mul(
                    Box::new(E::Add(Box::new(s0e()), Box::new(c(1)))),
                    Box::new(c(-1))
                ),
                E::FloorDiv(
                    Box::new(E::Mul(Box::new(s0e()), Box::new(c(3)))),
                    Box::new(c(2))
                ),
            ]
        ),
        "affine_map<()[s0] -> (s0 * -2 + 3, s0 mod -1, -(s0 + 1), (s0 * 3) floordiv 2)>"
    );
    assert_eq!(map(0, 0, vec![]), "affine_map<() -> ()>");
    let set = IntegerSet {
        num_dims: 0,
        num_symbols: 1,
        constraints: vec![
            (E::add(s0(), c(-2)), false),
            (E::add(E::mul(s0(), c(-1)), c(10)), false),
        ],
    };
    assert_eq!(
        a(Attribute::new(AttrKind::IntegerSet(set))),
        "affine_set<()[s0] : (s0 - 2 >= 0, -s0 + 10 >= 0)>"
    );
    let set = IntegerSet {
        num_dims: 1,
        num_symbols: 1,
        constraints: vec![(E::add(d0(), c(-1)), false), (E::sub(s0(), d0()), true)],
    };
    assert_eq!(
        a(Attribute::new(AttrKind::IntegerSet(set))),
        "affine_set<(d0)[s0] : (d0 - 1 >= 0, s0 - d0 == 0)>"
    );
}

#[test]
fn aliases_in_first_use_order() {
    let mut c = ctx();
    let (m, b) = module(&mut c);
    let m1 = AffineMap::new(2, 0, vec![E::dim(1), E::dim(0)]);
    let m2 = AffineMap::new(1, 0, vec![E::add(E::dim(0), E::constant(1))]);
    let set = IntegerSet {
        num_dims: 1,
        num_symbols: 0,
        constraints: vec![(E::dim(0), false)],
    };
    let mut s = OperationState::new("d.outer");
    s.add_attribute("m", Attribute::new(AttrKind::AffineMap(m2.clone())));
    let outer = c.create_op(s);
    c.append_op(b, outer);
    let r = c.add_region(outer);
    let ib = c.create_block(vec![]);
    c.append_block(r, ib);
    // Nested ops are visited before the outer op's attributes, as in MLIR.
    let mt = TypeKind::MemRef {
        shape: vec![4, 4],
        elem: Type::f32(),
        layout: Some(Attribute::new(AttrKind::AffineMap(m1.clone()))),
        memory_space: None,
    };
    let inner = op(&mut c, ib, "d.inner", vec![], vec![Type::new(mt)]);
    c.set_attr(inner, "s", Attribute::new(AttrKind::IntegerSet(set)));
    c.set_attr(inner, "again", Attribute::new(AttrKind::AffineMap(m2)));
    insta::assert_snapshot!(print_op(&c, m, &PrintOptions::default()), @r#"
    #map = affine_map<(d0, d1) -> (d1, d0)>
    #map1 = affine_map<(d0) -> (d0 + 1)>
    #set = affine_set<(d0) : (d0 >= 0)>
    module {
      "d.outer"() ({
        %0 = "d.inner"() {again = #map1, s = #set} : () -> memref<4x4xf32, #map>
      }) {m = #map1} : () -> ()
    }
    "#);
}
