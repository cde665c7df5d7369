//! Lexer tokens and type parsing.

use super::*;

// ----- lexer ------------------------------------------------------------------------

#[test]
fn lexer_tokens() {
    use crate::parser::lexer::{Token, tokenize, unescape};
    let toks = tokenize(
        "foo.bar %x %0 ^bb1 #map !t @s @\"q r\" 0x1F 42 1.5e3 \"a\\n\" ( ) { } [ ] < > , : :: = -> ? * + - ... {-# #-} // c\n|",
        0,
    );
    let kinds: Vec<Token> = toks.iter().map(|t| t.token).collect();
    use Token::*;
    assert_eq!(
        kinds,
        vec![
            BareId,
            PercentId,
            PercentId,
            CaretId,
            HashId,
            BangId,
            AtId,
            AtString,
            Integer,
            Integer,
            Float,
            String,
            LParen,
            RParen,
            LBrace,
            RBrace,
            LBracket,
            RBracket,
            Less,
            Greater,
            Comma,
            Colon,
            ColonColon,
            Equal,
            Arrow,
            Question,
            Star,
            Plus,
            Minus,
            Ellipsis,
            FileMetadataBegin,
            FileMetadataEnd,
            Vertical
        ]
    );
    assert_eq!(toks[0].text, "foo.bar");
    assert_eq!((toks[1].span.start, toks[1].span.end), (8, 10));
    assert_eq!(unescape("\"a\\n\\t\\\"\\\\\\41\"").unwrap(), "a\n\t\"\\A");
    // `%x#1`: the result number is a separate hash token.
    let t = tokenize("%x#1", 0);
    assert_eq!(t.len(), 2);
    assert_eq!(t[1].text, "#1");
}

// ----- types ------------------------------------------------------------------------

#[test]
fn builtin_types() {
    assert_eq!(type_of("i32"), Type::i32());
    assert_eq!(
        type_of("si8"),
        Type::new(TypeKind::Integer {
            width: 8,
            signedness: Signedness::Signed
        })
    );
    assert_eq!(
        type_of("ui64"),
        Type::new(TypeKind::Integer {
            width: 64,
            signedness: Signedness::Unsigned
        })
    );
    for (k, kw) in FloatKind::ALL {
        assert_eq!(type_of(kw), Type::float(k));
    }
    assert_eq!(type_of("index"), Type::index());
    assert_eq!(type_of("none"), Type::new(TypeKind::None));
    assert_eq!(
        type_of("complex<f32>"),
        Type::new(TypeKind::Complex(Type::f32()))
    );
    assert_eq!(
        type_of("tuple<i32, f32>"),
        Type::new(TypeKind::Tuple(vec![Type::i32(), Type::f32()]))
    );
    assert_eq!(type_of("tuple<>"), Type::new(TypeKind::Tuple(vec![])));
}

#[test]
fn shaped_types() {
    assert_eq!(
        type_of("tensor<4x?xf32>"),
        Type::tensor(vec![4, DYNAMIC], Type::f32())
    );
    assert_eq!(
        type_of("tensor<?x4x?xi8>"),
        Type::tensor(vec![DYNAMIC, 4, DYNAMIC], Type::int(8))
    );
    assert_eq!(type_of("tensor<f32>"), Type::tensor(vec![], Type::f32()));
    assert_eq!(type_of("tensor<0xf32>"), Type::tensor(vec![0], Type::f32()));
    assert_eq!(
        type_of("tensor<*xf32>"),
        Type::new(TypeKind::UnrankedTensor { elem: Type::f32() })
    );
    let TypeKind::Tensor { encoding, .. } = type_of("tensor<4xf32, #foo.enc<1>>").kind() else {
        panic!()
    };
    assert_eq!(
        encoding.as_deref(),
        Some(&AttrKind::Dialect {
            dialect: "foo".into(),
            body: "enc<1>".into()
        })
    );
    assert_eq!(
        type_of("memref<4x4xf32>"),
        Type::memref(vec![4, 4], Type::f32())
    );
    let TypeKind::MemRef {
        layout,
        memory_space,
        ..
    } = type_of("memref<4x?xf32, strided<[?, 1], offset: ?>, 1>").kind()
    else {
        panic!()
    };
    assert_eq!(
        layout.as_deref(),
        Some(&AttrKind::Strided {
            strides: vec![DYNAMIC, 1],
            offset: DYNAMIC
        })
    );
    assert_eq!(memory_space.as_ref(), Some(&Attribute::i64(1)));
    let TypeKind::MemRef {
        layout,
        memory_space,
        ..
    } = (type_of("memref<8xf32, affine_map<(d0) -> (d0 + 1)>, #gpu.address_space<workgroup>>"))
        .kind()
    else {
        panic!()
    };
    assert!(matches!(layout.as_deref(), Some(AttrKind::AffineMap(_))));
    assert_eq!(
        memory_space.as_deref(),
        Some(&AttrKind::Dialect {
            dialect: "gpu".into(),
            body: "address_space<workgroup>".into()
        })
    );
    let TypeKind::MemRef { memory_space, .. } = type_of("memref<2xi8, 3>").kind() else {
        panic!()
    };
    assert_eq!(memory_space.as_ref(), Some(&Attribute::i64(3)));
    assert_eq!(
        type_of("memref<*xf32, 1>"),
        Type::new(TypeKind::UnrankedMemRef {
            elem: Type::f32(),
            memory_space: Some(Attribute::i64(1))
        })
    );
    assert_eq!(
        type_of("vector<4x[8]xf32>"),
        Type::new(TypeKind::Vector {
            shape: vec![4, 8],
            scalable: vec![false, true],
            elem: Type::f32()
        })
    );
    assert_eq!(
        type_of("vector<2xvector<3xi1>>"),
        Type::new(TypeKind::Vector {
            shape: vec![2],
            scalable: vec![false],
            elem: Type::new(TypeKind::Vector {
                shape: vec![3],
                scalable: vec![false],
                elem: Type::i1()
            })
        })
    );
}

#[test]
fn function_and_dialect_types() {
    let src = "\"t.op\"() : () -> ((i32) -> (f32, f32))";
    let (c, out) = parse(src);
    let op = top_ops(&c, out.module)[0];
    assert_eq!(
        c.value_type(c.result(op, 0)),
        &Type::function(vec![Type::i32()], vec![Type::f32(), Type::f32()])
    );
    assert_eq!(type_of("(() -> ())"), Type::function(vec![], vec![]));
    assert_eq!(
        type_of("!llvm.ptr<1>"),
        Type::new(TypeKind::Dialect {
            dialect: "llvm".into(),
            body: "ptr<1>".into()
        })
    );
    assert_eq!(
        type_of("!llvm.struct<(i32, ptr<\"x>\">)>"),
        Type::new(TypeKind::Dialect {
            dialect: "llvm".into(),
            body: "struct<(i32, ptr<\"x>\">)>".into()
        })
    );
    assert_eq!(
        type_of("!foo.bar"),
        Type::new(TypeKind::Dialect {
            dialect: "foo".into(),
            body: "bar".into()
        })
    );
    assert_eq!(
        type_of("!foo<\"opaque body\">"),
        Type::new(TypeKind::Dialect {
            dialect: "foo".into(),
            body: "<\"opaque body\">".into()
        })
    );
}

#[test]
fn type_aliases() {
    let (c, out) = parse("!t = tensor<4xf32>\n!u = !t\n\"t.op\"() : () -> (!t, !u)");
    let op = top_ops(&c, out.module)[0];
    let t = Type::tensor(vec![4], Type::f32());
    assert_eq!(c.value_type(c.result(op, 0)), &t);
    assert_eq!(c.value_type(c.result(op, 1)), &t);
}
