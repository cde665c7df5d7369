//! Attribute parsing.

use super::*;

// ----- attributes -------------------------------------------------------------------

#[test]
fn scalar_attributes() {
    assert_eq!(attr_of("unit"), Attribute::unit());
    assert_eq!(attr_of("true"), Attribute::bool(true));
    assert_eq!(attr_of("false"), Attribute::bool(false));
    assert_eq!(attr_of("42"), Attribute::i64(42));
    assert_eq!(attr_of("-7 : i32"), Attribute::int(-7, Type::i32()));
    assert_eq!(attr_of("0x10 : index"), Attribute::int(16, Type::index()));
    assert_eq!(attr_of("1.5"), Attribute::float(1.5, Type::f64()));
    assert_eq!(attr_of("-2.0 : f32"), Attribute::float(-2.0, Type::f32()));
    assert_eq!(attr_of("1.0e2"), Attribute::float(100.0, Type::f64()));
    let AttrKind::Float { value, ty } = attr_of("0x7FC00000 : f32").kind() else {
        panic!()
    };
    assert_eq!(*ty, Type::f32());
    assert!(value.get().is_nan());
    assert_eq!(
        attr_of("0x3FF0000000000000 : f64"),
        Attribute::float(1.0, Type::f64())
    );
    assert_eq!(attr_of("\"hi\\n\""), Attribute::string("hi\n"));
    assert_eq!(
        attr_of("\"s\" : i32"),
        Attribute::new(AttrKind::String {
            value: "s".into(),
            ty: Some(Type::i32())
        })
    );
    assert_eq!(attr_of("i32"), Attribute::new(AttrKind::Type(Type::i32())));
    assert_eq!(
        attr_of("(i32) -> f32"),
        Attribute::new(AttrKind::Type(Type::function(
            vec![Type::i32()],
            vec![Type::f32()]
        )))
    );
}

#[test]
fn aggregate_attributes() {
    assert_eq!(
        attr_of("[1, \"a\", [true]]"),
        Attribute::new(AttrKind::Array(vec![
            Attribute::i64(1),
            Attribute::string("a"),
            Attribute::new(AttrKind::Array(vec![Attribute::bool(true)]))
        ]))
    );
    assert_eq!(attr_of("[]"), Attribute::new(AttrKind::Array(vec![])));
    assert_eq!(
        attr_of("array<i64: 1, -2>"),
        Attribute::dense_i64_array(vec![1, -2])
    );
    assert_eq!(attr_of("array<i64>"), Attribute::dense_i64_array(vec![]));
    assert_eq!(
        attr_of("array<i1: true, false>"),
        Attribute::new(AttrKind::DenseArray(DenseArray::Int {
            elem: Type::i1(),
            values: vec![1, 0]
        }))
    );
    assert_eq!(
        attr_of("array<f32: 1.5, -2.0>"),
        Attribute::new(AttrKind::DenseArray(DenseArray::Float {
            elem: Type::f32(),
            values: vec![FloatBits::new(1.5), FloatBits::new(-2.0)]
        }))
    );
    let d = attr_of("{z = 1, a, \"m n\" = \"x\"}");
    let names: Vec<&str> = d
        .as_dictionary()
        .unwrap()
        .iter()
        .map(|n| n.name.as_str())
        .collect();
    assert_eq!(names, vec!["a", "m n", "z"]);
    assert_eq!(d.dict_get("a"), Some(&Attribute::unit()));
    assert_eq!(
        attr_of("@a::@b::@\"c d\""),
        Attribute::new(AttrKind::SymbolRef {
            root: "a".into(),
            nested: vec!["b".into(), "c d".into()]
        })
    );
    assert_eq!(attr_of("@f"), Attribute::symbol("f"));
    assert_eq!(
        attr_of("strided<[4, 1]>"),
        Attribute::new(AttrKind::Strided {
            strides: vec![4, 1],
            offset: 0
        })
    );
    assert_eq!(
        attr_of("#gpu.address_space<workgroup>"),
        Attribute::new(AttrKind::Dialect {
            dialect: "gpu".into(),
            body: "address_space<workgroup>".into()
        })
    );
    assert_eq!(
        attr_of("#foo<\"raw\">"),
        Attribute::new(AttrKind::Dialect {
            dialect: "foo".into(),
            body: "<\"raw\">".into()
        })
    );
}

#[test]
fn dense_attributes() {
    assert_eq!(
        attr_of("dense<[[1, 2], [3, -4]]> : tensor<2x2xi32>"),
        Attribute::new(AttrKind::DenseElements {
            literal: DenseLiteral::List(vec![
                DenseLiteral::List(vec![DenseLiteral::Int(1), DenseLiteral::Int(2)]),
                DenseLiteral::List(vec![DenseLiteral::Int(3), DenseLiteral::Int(-4)]),
            ]),
            ty: Type::tensor(vec![2, 2], Type::i32())
        })
    );
    assert_eq!(
        attr_of("dense<1.0> : tensor<4xf32>"),
        Attribute::new(AttrKind::DenseElements {
            literal: DenseLiteral::Float(FloatBits::new(1.0)),
            ty: Type::tensor(vec![4], Type::f32())
        })
    );
    assert_eq!(
        attr_of("dense<\"0xDEADBEEF\"> : tensor<1xi32>"),
        Attribute::new(AttrKind::DenseElements {
            literal: DenseLiteral::Hex("0xDEADBEEF".into()),
            ty: Type::tensor(vec![1], Type::i32())
        })
    );
    assert_eq!(
        attr_of("dense<[(1.0, 2.0)]> : tensor<1xcomplex<f32>>"),
        Attribute::new(AttrKind::DenseElements {
            literal: DenseLiteral::List(vec![DenseLiteral::Complex(
                Box::new(DenseLiteral::Float(FloatBits::new(1.0))),
                Box::new(DenseLiteral::Float(FloatBits::new(2.0)))
            )]),
            ty: Type::tensor(vec![1], Type::new(TypeKind::Complex(Type::f32())))
        })
    );
    assert_eq!(
        attr_of("dense<true> : tensor<i1>"),
        Attribute::new(AttrKind::DenseElements {
            literal: DenseLiteral::Bool(true),
            ty: Type::tensor(vec![], Type::i1())
        })
    );
}

#[test]
fn affine_attributes() {
    let AttrKind::AffineMap(m) = (attr_of(
        "affine_map<(d0, d1)[s0] -> (d0 + s0, d1 * 2 - 1, d0 floordiv 4, -d1, (d0 + 1) mod 3, d0 ceildiv s0)>",
    )).kind() else {
        panic!()
    };
    use AffineExpr as E;
    assert_eq!((m.num_dims, m.num_symbols), (2, 1));
    assert_eq!(m.results[0], E::add(E::dim(0), E::symbol(0)));
    assert_eq!(
        m.results[1],
        E::add(E::mul(E::dim(1), E::constant(2)), E::constant(-1))
    );
    assert_eq!(m.results[2], E::floordiv(E::dim(0), E::constant(4)));
    assert_eq!(m.results[3], E::mul(E::dim(1), E::constant(-1)));
    assert_eq!(
        m.results[4],
        E::rem(E::add(E::dim(0), E::constant(1)), E::constant(3))
    );
    assert_eq!(m.results[5], E::ceildiv(E::dim(0), E::symbol(0)));
    // Precedence: `*` binds tighter than `+`; constants fold.
    let AttrKind::AffineMap(m) = (attr_of("affine_map<(i) -> (i + 2 * 3, 4 - 1)>")).kind() else {
        panic!()
    };
    assert_eq!(
        m.results,
        vec![E::add(E::dim(0), E::constant(6)), E::constant(3)]
    );
    let AttrKind::AffineMap(m) = (attr_of("affine_map<() -> ()>")).kind() else {
        panic!()
    };
    assert_eq!((m.num_dims, m.results.len()), (0, 0));
    let AttrKind::IntegerSet(s) =
        (attr_of("affine_set<(d0)[s0] : (d0 - s0 >= 0, d0 == 0, d0 <= 10)>")).kind()
    else {
        panic!()
    };
    assert_eq!((s.num_dims, s.num_symbols), (1, 1));
    assert_eq!(s.constraints.len(), 3);
    assert_eq!(s.constraints[0], (E::sub(E::dim(0), E::symbol(0)), false));
    assert_eq!(s.constraints[1], (E::dim(0), true));
    assert_eq!(
        s.constraints[2],
        (E::sub(E::constant(10), E::dim(0)), false)
    );
}

#[test]
fn attribute_aliases_and_locations() {
    let src = "#map = affine_map<(d0) -> (d0)>\n#loc0 = loc(\"a.mlir\":3:7)\n#arr = [#map]\n\
               \"t.op\"() {m = #map, a = #arr, l = loc(#loc0)} : () -> () loc(#loc1)\n\
               \"t.op2\"() : () -> () loc(callsite(\"f\" at fused[\"x\":1:2, unknown]))\n\
               #loc1 = loc(\"n\"(\"b.mlir\":1:1))";
    let (c, out) = parse(src);
    let ops = top_ops(&c, out.module);
    assert_eq!(
        c.attr(ops[0], "m"),
        Some(&Attribute::new(AttrKind::AffineMap(AffineMap::identity(1))))
    );
    assert_eq!(
        c.attr(ops[0], "a"),
        Some(&Attribute::new(AttrKind::Array(vec![Attribute::new(
            AttrKind::AffineMap(AffineMap::identity(1))
        )])))
    );
    assert_eq!(
        c.attr(ops[0], "l"),
        Some(&Attribute::new(AttrKind::Location(Location::FileLineCol {
            file: "a.mlir".into(),
            line: 3,
            col: 7
        })))
    );
    // Deferred location alias resolved at the end of the file.
    assert_eq!(
        c.op(ops[0]).location,
        Location::Name {
            name: "n".into(),
            child: Some(Box::new(Location::FileLineCol {
                file: "b.mlir".into(),
                line: 1,
                col: 1
            }))
        }
    );
    assert!(matches!(c.op(ops[1]).location, Location::CallSite { .. }));
}
