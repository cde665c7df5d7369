//! Parser tests: every construct, asserted on the IR structure, plus error cases with
//! their messages and spans.

use crate::ir::{AttrKind, TypeKind};
use std::sync::Arc;

use super::{OpAsmParser, ParseOutput, UnresolvedOperand, parse_str};
use crate::diagnostics::Diagnostic;
use crate::dialect::{Dialect, DialectRegistry, OpDefinition, OpTraits};
use crate::ir::*;

// ----- a small test dialect with custom forms -------------------------------------

struct TestDialect;

impl Dialect for TestDialect {
    fn namespace(&self) -> &'static str {
        "test"
    }
    fn description(&self) -> &'static str {
        "parser tests"
    }
    fn ops(&self) -> Vec<Box<dyn OpDefinition>> {
        vec![
            Box::new(FuncOp),
            Box::new(ReturnOp),
            Box::new(BrOp),
            Box::new(WrapOp),
            Box::new(ConstOp),
            Box::new(GenericOnly),
            Box::new(ExprOp),
        ]
    }
}

/// `test.func @name(%a: t, ...) -> (results) { body }` (isolated).
struct FuncOp;
impl OpDefinition for FuncOp {
    fn name(&self) -> &'static str {
        "test.func"
    }
    fn summary(&self) -> &'static str {
        "function"
    }
    fn traits(&self) -> OpTraits {
        OpTraits {
            isolated_from_above: true,
            symbol: true,
            ..OpTraits::default()
        }
    }
    fn has_custom_assembly(&self) -> bool {
        true
    }
    fn parse(
        &self,
        p: &mut OpAsmParser<'_, '_>,
        st: &mut OperationState,
    ) -> Result<(), Diagnostic> {
        let name = p.parse_symbol_name()?;
        st.add_attribute("sym_name", Attribute::string(name));
        p.parse_punct("(")?;
        let mut args: Vec<(UnresolvedOperand, Type)> = Vec::new();
        if !p.parse_optional_punct(")") {
            loop {
                let (o, t) = p.parse_argument(true)?;
                args.push((o, t.unwrap_or(Type::new(TypeKind::None))));
                if !p.parse_optional_punct(",") {
                    break;
                }
            }
            p.parse_punct(")")?;
        }
        let mut results = Vec::new();
        if p.parse_optional_punct("->") {
            if p.parse_optional_punct("(") {
                results = p.parse_type_list()?;
                p.parse_punct(")")?;
            } else {
                results.push(p.parse_type()?);
            }
        }
        let inputs = args.iter().map(|a| a.1).collect();
        st.add_attribute(
            "function_type",
            Attribute::new(AttrKind::Type(Type::function(inputs, results))),
        );
        let mut attrs = Vec::new();
        p.parse_optional_attr_dict_with_keyword(&mut attrs)?;
        for a in attrs {
            st.add_attribute(a.name, a.value);
        }
        let r = p.parse_region(&args)?;
        st.regions.push(r);
        Ok(())
    }
}

/// `return %a, %b : t1, t2` (name without dialect: resolved via the default dialect).
struct ReturnOp;
impl OpDefinition for ReturnOp {
    fn name(&self) -> &'static str {
        "test.return"
    }
    fn summary(&self) -> &'static str {
        "return"
    }
    fn has_custom_assembly(&self) -> bool {
        true
    }
    fn parse(
        &self,
        p: &mut OpAsmParser<'_, '_>,
        st: &mut OperationState,
    ) -> Result<(), Diagnostic> {
        let ops = p.parse_operand_list()?;
        if !ops.is_empty() {
            p.parse_punct(":")?;
            let tys = p.parse_type_list()?;
            if tys.len() != ops.len() {
                return Err(p.error_here("operand/type count mismatch"));
            }
            for (o, t) in ops.iter().zip(&tys) {
                let v = p.resolve_operand(o, t)?;
                st.operands.push(v);
            }
        }
        Ok(())
    }
}

/// `test.br ^bb1`.
struct BrOp;
impl OpDefinition for BrOp {
    fn name(&self) -> &'static str {
        "test.br"
    }
    fn summary(&self) -> &'static str {
        "branch"
    }
    fn has_custom_assembly(&self) -> bool {
        true
    }
    fn parse(
        &self,
        p: &mut OpAsmParser<'_, '_>,
        st: &mut OperationState,
    ) -> Result<(), Diagnostic> {
        let b = p.parse_successor()?;
        st.successors.push(b);
        Ok(())
    }
}

/// `%r = test.wrap { ... } : t` (not isolated).
struct WrapOp;
impl OpDefinition for WrapOp {
    fn name(&self) -> &'static str {
        "test.wrap"
    }
    fn summary(&self) -> &'static str {
        "region holder"
    }
    fn has_custom_assembly(&self) -> bool {
        true
    }
    fn parse(
        &self,
        p: &mut OpAsmParser<'_, '_>,
        st: &mut OperationState,
    ) -> Result<(), Diagnostic> {
        let r = p.parse_region(&[])?;
        st.regions.push(r);
        if p.parse_optional_punct(":") {
            st.result_types = p.parse_type_list()?;
        }
        Ok(())
    }
}

/// `%c = test.const 42 : i32` (attribute with its type), with as many results as bound.
struct ConstOp;
impl OpDefinition for ConstOp {
    fn name(&self) -> &'static str {
        "test.const"
    }
    fn summary(&self) -> &'static str {
        "constant"
    }
    fn has_custom_assembly(&self) -> bool {
        true
    }
    fn parse(
        &self,
        p: &mut OpAsmParser<'_, '_>,
        st: &mut OperationState,
    ) -> Result<(), Diagnostic> {
        let a = p.parse_attribute()?;
        let ty = match a.kind() {
            AttrKind::Integer { ty, .. } | AttrKind::Float { ty, .. } => *ty,
            AttrKind::Bool(_) => Type::i1(),
            _ => Type::new(TypeKind::None),
        };
        st.add_attribute("value", a);
        let mut attrs = Vec::new();
        p.parse_optional_attr_dict(&mut attrs)?;
        for x in attrs {
            st.add_attribute(x.name, x.value);
        }
        for _ in 0..p.num_results().max(1) {
            st.result_types.push(ty);
        }
        Ok(())
    }
}

/// Registered but without custom assembly.
struct GenericOnly;
impl OpDefinition for GenericOnly {
    fn name(&self) -> &'static str {
        "test.generic"
    }
    fn summary(&self) -> &'static str {
        "generic only"
    }
}

/// `test.expr {raw text} uses %x` : exercises raw access.
struct ExprOp;
impl OpDefinition for ExprOp {
    fn name(&self) -> &'static str {
        "test.expr"
    }
    fn summary(&self) -> &'static str {
        "raw body"
    }
    fn has_custom_assembly(&self) -> bool {
        true
    }
    fn parse(
        &self,
        p: &mut OpAsmParser<'_, '_>,
        st: &mut OperationState,
    ) -> Result<(), Diagnostic> {
        let (text, _span) = p.parse_raw_braced()?;
        st.add_attribute("body", Attribute::string(text));
        if p.parse_optional_keyword("uses") {
            let tok = p
                .next_token()
                .ok_or_else(|| p.error_here("expected value"))?;
            let v = p
                .lookup_value(tok.text)
                .ok_or_else(|| p.error_at(tok.span, "unknown value"))?;
            st.operands.push(v);
        }
        Ok(())
    }
}

fn ctx() -> Context {
    let mut r = DialectRegistry::with_builtin();
    r.register(&TestDialect);
    Context::new(Arc::new(r))
}

fn parse(src: &str) -> (Context, ParseOutput) {
    let mut c = ctx();
    c.allow_unregistered = true;
    let out = match parse_str(&mut c, "t.mlir", src) {
        Ok(o) => o,
        Err(e) => panic!("parse failed: {e:?}\n{src}"),
    };
    (c, out)
}

fn parse_err(src: &str) -> Diagnostic {
    let mut c = ctx();
    c.allow_unregistered = true;
    match parse_str(&mut c, "t.mlir", src) {
        Ok(_) => panic!("expected an error for:\n{src}"),
        Err(e) => e,
    }
}

fn parse_err_strict(src: &str) -> Diagnostic {
    let mut c = ctx();
    match parse_str(&mut c, "t.mlir", src) {
        Ok(_) => panic!("expected an error for:\n{src}"),
        Err(e) => e,
    }
}

/// Asserts the error's message contains `msg` and its span starts at the first
/// occurrence of `at` in `src`.
fn assert_err(src: &str, e: &Diagnostic, msg: &str, at: &str) {
    assert!(
        e.message.contains(msg),
        "message {:?} does not contain {msg:?}",
        e.message
    );
    let span = e.span.expect("diagnostic has a span");
    let want = src.find(at).expect("anchor in source");
    assert_eq!(
        span.start as usize, want,
        "span {span:?} of {:?} should start at {at:?}",
        e.message
    );
}

/// Like [`assert_err`] with the span start given as a byte offset.
fn assert_err_off(e: &Diagnostic, msg: &str, off: usize) {
    assert!(
        e.message.contains(msg),
        "message {:?} does not contain {msg:?}",
        e.message
    );
    assert_eq!(e.span.expect("span").start as usize, off, "{}", e.message);
}

fn top_ops(c: &Context, m: OpId) -> Vec<OpId> {
    let b = c.region_blocks(c.regions(m)[0])[0];
    c.block_ops(b).collect()
}

/// Attribute `name` of the single op in a module like `"t.op"() {name = ...} : () -> ()`.
fn attr_of(src_attr: &str) -> Attribute {
    let src = format!("\"t.op\"() {{a = {src_attr}}} : () -> ()");
    let (c, out) = parse(&src);
    let op = top_ops(&c, out.module)[0];
    c.attr(op, "a").cloned().expect("attribute a")
}

fn type_of(src_ty: &str) -> Type {
    let src = format!("\"t.op\"() : () -> {src_ty}");
    let (c, out) = parse(&src);
    let op = top_ops(&c, out.module)[0];
    *c.value_type(c.result(op, 0))
}

// ----- lexer ------------------------------------------------------------------------

#[test]
fn lexer_tokens() {
    use super::lexer::{Token, tokenize, unescape};
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

// ----- operations -------------------------------------------------------------------

#[test]
fn generic_form_full() {
    let src = r#"
"t.top"() ({
^bb0(%a: i32 loc("x":1:1), %b: f32):
  %0:2 = "t.pair"(%a) <{p = 1 : i32}> {z = 2, y} : (i32) -> (i32, f32)
  "t.br"(%0#1) [^bb1, ^bb2] : (f32) -> ()
^bb1:
  "t.use"(%0#0, %b) : (i32, f32) -> ()
^bb2:
  "t.end"() : () -> ()
}, {}) : () -> ()
"#;
    let (c, out) = parse(src);
    let top = top_ops(&c, out.module)[0];
    assert_eq!(c.op_name(top), "t.top");
    let regions = c.regions(top);
    assert_eq!(regions.len(), 2);
    assert!(c.region_blocks(regions[1]).is_empty());
    let blocks = c.region_blocks(regions[0]);
    assert_eq!(blocks.len(), 3);
    assert_eq!(c.block_args(blocks[0]).len(), 2);
    let ops: Vec<OpId> = c.block_ops(blocks[0]).collect();
    let pair = ops[0];
    assert_eq!(c.results(pair).len(), 2);
    assert_eq!(c.operands(pair), &[c.block_args(blocks[0])[0]]);
    assert_eq!(
        c.op(pair).properties,
        Some(Attribute::new(AttrKind::Dictionary(vec![NamedAttribute {
            name: "p".into(),
            value: Attribute::int(1, Type::i32())
        }])))
    );
    let names: Vec<&str> = c
        .op(pair)
        .attributes
        .iter()
        .map(|a| a.name.as_str())
        .collect();
    assert_eq!(names, vec!["y", "z"]);
    let br = ops[1];
    assert_eq!(c.successors(br), &[blocks[1], blocks[2]]);
    assert_eq!(c.operands(br), &[c.result(pair, 1)]);
    let use_op = c.first_op(blocks[1]).unwrap();
    assert_eq!(
        c.operands(use_op),
        &[c.result(pair, 0), c.block_args(blocks[0])[1]]
    );
    // Span covers the op name.
    let sp = c.op(pair).span.unwrap();
    assert!(src[sp.start as usize..sp.end as usize].ends_with("\"t.pair\""));
}

#[test]
fn forward_references() {
    // Graph-like use before definition within a region, and a forward block reference.
    let src = r#"
"t.r"() ({
  "t.use"(%later) : (i32) -> ()
  %later = "t.def"() : () -> i32
  "t.br"() [^exit] : () -> ()
^exit:
  "t.end"() : () -> ()
}) : () -> ()
"#;
    let (c, out) = parse(src);
    let r = c.regions(top_ops(&c, out.module)[0])[0];
    let b = c.region_blocks(r)[0];
    let ops: Vec<OpId> = c.block_ops(b).collect();
    assert_eq!(c.operands(ops[0]), &[c.result(ops[1], 0)]);
    assert_eq!(c.uses(c.result(ops[1], 0)).len(), 1);
    assert_eq!(c.successors(ops[2]), &[c.region_blocks(r)[1]]);
}

#[test]
fn custom_forms_and_default_dialect() {
    let src = r#"
module @m attributes {test.flag} {
  test.func @f(%x: i32, %y: f32) -> i32 {
    %c = test.const 1 : i32
    %w = test.wrap {
      return %x : i32
    } : i32
    return %c : i32
  }
}
"#;
    let (c, out) = parse(src);
    let m = out.module;
    assert_eq!(c.op_name(m), "builtin.module");
    assert_eq!(
        c.inherent_attr(m, "sym_name"),
        Some(&Attribute::string("m"))
    );
    assert_eq!(c.attr(m, "test.flag"), Some(&Attribute::unit()));
    let f = top_ops(&c, m)[0];
    assert_eq!(c.op_name(f), "test.func");
    assert_eq!(
        c.attr(f, "function_type"),
        Some(&Attribute::new(AttrKind::Type(Type::function(
            vec![Type::i32(), Type::f32()],
            vec![Type::i32()]
        ))))
    );
    let entry = c.region_blocks(c.regions(f)[0])[0];
    let args = c.block_args(entry).to_vec();
    assert_eq!(args.len(), 2);
    let ops: Vec<OpId> = c.block_ops(entry).collect();
    assert_eq!(c.op_name(ops[0]), "test.const");
    assert_eq!(
        c.attr(ops[0], "value"),
        Some(&Attribute::int(1, Type::i32()))
    );
    assert_eq!(c.op_name(ops[2]), "test.return");
    assert_eq!(c.operands(ops[2]), &[c.result(ops[0], 0)]);
    // `return` inside the non-isolated wrap sees the function argument.
    let inner = c.region_blocks(c.regions(ops[1])[0])[0];
    let ret = c.first_op(inner).unwrap();
    assert_eq!(c.op_name(ret), "test.return");
    assert_eq!(c.operands(ret), &[args[0]]);
}

#[test]
fn implicit_module_rules() {
    let (c, out) = parse("\"t.a\"() : () -> ()\n\"t.b\"() : () -> ()");
    assert_eq!(c.op_name(out.module), "builtin.module");
    assert_eq!(top_ops(&c, out.module).len(), 2);
    let (c, out) = parse("module {}");
    assert_eq!(c.inherent_attr(out.module, "sym_name"), None);
    assert_eq!(c.region_blocks(c.regions(out.module)[0]).len(), 1);
    assert!(top_ops(&c, out.module).is_empty());
    assert!(c.parent_block(out.module).is_none());
    let (c, out) = parse("");
    assert!(top_ops(&c, out.module).is_empty());
    let (c, out) = parse("module {}\nmodule {}");
    assert_eq!(top_ops(&c, out.module).len(), 2);
    let (c, out) = parse("\"builtin.module\"() ({\n^bb0:\n}) : () -> ()");
    assert_eq!(c.op_name(out.module), "builtin.module");
    assert!(top_ops(&c, out.module).is_empty());
}

#[test]
fn dialect_resources_are_read() {
    let (c, out) = parse(
        "module {}\n{-#\n  dialect_resources: { builtin: { blob: \"0x04000000\" } },\n  external_resources: { tool: { \"a b\": true } }\n#-}\n",
    );
    assert!(out.warnings.is_empty());
    assert_eq!(
        c.resources.builtin_blob("blob"),
        Some(&crate::ir::ResourceValue::String("0x04000000".into()))
    );
    assert_eq!(c.resources.external[0].owner, "tool");
    assert_eq!(
        c.resources.external[0].entries,
        vec![("a b".to_string(), crate::ir::ResourceValue::Bool(true))]
    );
}

#[test]
fn raw_access_and_lookup() {
    let (c, out) = parse("%a = test.const 3 : i64\ntest.expr { te.sum(%A[%m] * 2) } uses %a");
    let ops = top_ops(&c, out.module);
    assert_eq!(
        c.attr(ops[1], "body"),
        Some(&Attribute::string(" te.sum(%A[%m] * 2) "))
    );
    assert_eq!(c.operands(ops[1]), &[c.result(ops[0], 0)]);
}

#[test]
fn custom_results_count() {
    let (c, out) = parse("%a:3 = test.const 1 : i32\n\"t.u\"(%a#2) : (i32) -> ()");
    let ops = top_ops(&c, out.module);
    assert_eq!(c.results(ops[0]).len(), 3);
    assert_eq!(c.operands(ops[1]), &[c.result(ops[0], 2)]);
}

#[test]
fn comments_and_unregistered_generic() {
    let (c, out) = parse("// leading comment\n\"foo.bar\"() : () -> () // trailing\n");
    assert_eq!(c.op_name(top_ops(&c, out.module)[0]), "foo.bar");
}

#[test]
fn isolated_regions_hide_outer_values_but_unregistered_do_not() {
    // Unregistered op regions are not isolated: %x is visible inside.
    let (c, out) = parse(
        "%x = \"t.d\"() : () -> i32\n\"t.r\"() ({\n  \"t.u\"(%x) : (i32) -> ()\n}) : () -> ()",
    );
    assert_eq!(top_ops(&c, out.module).len(), 2);
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let mut s = String::new();
    for _ in 0..1500 {
        s.push_str("\"t.r\"() ({\n");
    }
    for _ in 0..1500 {
        s.push_str("}) : () -> ()\n");
    }
    let e = parse_err(&s);
    assert!(e.message.contains("nesting"), "{}", e.message);
    let e = parse_err(&format!(
        "\"t.op\"() {{a = {}1{}}} : () -> ()",
        "[".repeat(5000),
        "]".repeat(5000)
    ));
    assert!(e.message.contains("nesting"));
}

#[test]
fn garbage_never_panics() {
    let inputs = [
        "",
        "%",
        "\"",
        "\"t.op\"(",
        "\"t.op\"() : (",
        "!",
        "#",
        "#a = ",
        "!a = ",
        "{-#",
        "module {",
        "module @",
        "tensor<",
        "\"t.op\"() {a = dense<[1, 2} : () -> ()",
        "\"t.op\"() {a = affine_map<(d0) -> (d0 +)>} : () -> ()",
        "\u{1F600}",
        "%0:0 = ",
        "\"t.op\"() : () -> tensor<4x",
        "\"t.op\"() : () -> !d.x<(>",
        "^bb0:",
        "\"t.op\"() {a = 99999999999999999999999999999999999999999999} : () -> ()",
        "\"t.op\"() : () -> i99999999999999999999",
        "\"t.op\"() {a = 0x : f32} : () -> ()",
        "\"t.op\"() {a = 0xFFFFFFFFFF : f32} : () -> ()",
        "\"t.op\"() {a = \"\\\"} : () -> ()",
    ];
    for i in inputs {
        let mut c = ctx();
        let _ = parse_str(&mut c, "g.mlir", i);
    }
}

// ----- errors -----------------------------------------------------------------------

#[test]
fn error_undeclared_value() {
    let src = "\"t.r\"() ({\n  \"t.u\"(%nope) : (i32) -> ()\n}) : () -> ()";
    let e = parse_err(src);
    assert_err(src, &e, "use of undeclared SSA value name", "%nope");
}

#[test]
fn error_redefinition() {
    let src = "%a = \"t.d\"() : () -> i32\n%a = \"t.d\"() : () -> i32";
    let e = parse_err(src);
    assert_err_off(
        &e,
        "redefinition of SSA value '%a'",
        src.rfind("%a").unwrap(),
    );
    assert_eq!(e.notes.len(), 1);
}

#[test]
fn error_use_type_mismatch() {
    let src = "%a = \"t.d\"() : () -> i32\n\"t.u\"(%a) : (f32) -> ()";
    let e = parse_err(src);
    assert_err(
        src,
        &e,
        "use of value '%a' expects different type than prior uses: 'f32' vs 'i32'",
        "%a)",
    );
}

#[test]
fn error_forward_ref_type_mismatch() {
    let src = "\"t.r\"() ({\n\"t.u\"(%a) : (f32) -> ()\n%a = \"t.d\"() : () -> i32\n}) : () -> ()";
    let e = parse_err(src);
    assert_err(
        src,
        &e,
        "definition of SSA value '%a#0' has type 'i32'",
        "%a =",
    );
}

#[test]
fn error_isolated_from_above() {
    let src = "%x = \"t.d\"() : () -> i32\ntest.func @f() {\n  \"t.u\"(%x) : (i32) -> ()\n}";
    let e = parse_err(src);
    assert_err(src, &e, "use of undeclared SSA value name", "%x)");
}

#[test]
fn error_value_not_visible_outside_region() {
    let src =
        "\"t.r\"() ({\n  %in = \"t.d\"() : () -> i32\n}) : () -> ()\n\"t.u\"(%in) : (i32) -> ()";
    let e = parse_err(src);
    assert_err(src, &e, "use of undeclared SSA value name", "%in)");
}

#[test]
fn error_undefined_block() {
    let src = "\"t.r\"() ({\n  \"t.br\"() [^missing] : () -> ()\n}) : () -> ()";
    let e = parse_err(src);
    assert_err(src, &e, "reference to an undefined block", "^missing");
}

#[test]
fn error_block_redefinition() {
    let src =
        "\"t.r\"() ({\n^bb1:\n  \"t.x\"() : () -> ()\n^bb1:\n  \"t.x\"() : () -> ()\n}) : () -> ()";
    let e = parse_err(src);
    assert_err(
        src,
        &e,
        "redefinition of block '^bb1'",
        "^bb1:\n  \"t.x\"() : () -> ()\n}",
    );
}

#[test]
fn error_result_count() {
    let src = "%a, %b = \"t.d\"() : () -> i32";
    let e = parse_err(src);
    assert_err(
        src,
        &e,
        "operation defines 1 results but was provided 2 to bind",
        "%a",
    );
}

#[test]
fn error_operand_type_count() {
    let src = "%a = \"t.d\"() : () -> i32\n\"t.u\"(%a) : () -> ()";
    let e = parse_err(src);
    assert_err(src, &e, "expected 1 operand type but had 0", "() -> ()");
}

#[test]
fn error_unregistered_dialect() {
    let src = "\"foo.bar\"() : () -> ()";
    let e = parse_err_strict(src);
    assert_err(
        src,
        &e,
        "operation being parsed with an unregistered dialect",
        "\"foo.bar\"",
    );
    let src = "foo.bar";
    let e = parse_err_strict(src);
    assert_err(
        src,
        &e,
        "Dialect `foo' not found for custom op 'foo.bar'",
        "foo.bar",
    );
}

#[test]
fn error_unknown_op_in_registered_dialect() {
    let src = "\"test.nope\"() : () -> ()";
    let e = parse_err(src);
    assert_err(
        src,
        &e,
        "unregistered operation 'test.nope' found in dialect ('test')",
        "\"test.nope\"",
    );
    let src = "test.nope";
    let e = parse_err(src);
    assert_err(src, &e, "custom op 'test.nope' is unknown", "test.nope");
    let src = "frobnicate";
    let e = parse_err(src);
    assert_err(src, &e, "custom op 'frobnicate' is unknown", "frobnicate");
}

#[test]
fn error_expected_punct_and_type() {
    // As MLIR's emitWrongTokenError: just past the last token before the wrong one.
    let src = "\"t.op\"(%a : () -> ()";
    let e = parse_err(src);
    assert_err(src, &e, "expected ')'", " : ()");
    let src = "\"t.op\"() : () -> (i32, )";
    let e = parse_err(src);
    assert_err_off(
        &e,
        "expected non-function type",
        src.rfind(", )").unwrap() + 1,
    );
    let src = "\"t.op\"() : () -> tensor<4xq>";
    let e = parse_err(src);
    assert_err(src, &e, "expected non-function type", "q>");
    let src = "\"t.op\"() : i32";
    let e = parse_err(src);
    assert_err(src, &e, "expected function type", "i32");
    // At the end of input: the last character, as mlir-opt reports it.
    let src = "\"t.op\"()";
    let e = parse_err(src);
    assert_err_off(&e, "expected ':' followed by operation type", src.len() - 1);
}

#[test]
fn error_expected_ssa_operand() {
    let src = "\"t.op\"(1) : () -> ()";
    let e = parse_err(src);
    assert_err(src, &e, "expected SSA operand", "1)");
}

#[test]
fn error_undefined_alias() {
    let src = "\"t.op\"() {a = #nope} : () -> ()";
    let e = parse_err(src);
    assert_err(src, &e, "undefined symbol alias id 'nope'", "#nope");
    let src = "\"t.op\"() : () -> !nope";
    let e = parse_err(src);
    assert_err(src, &e, "undefined symbol alias id 'nope'", "!nope");
    let src = "\"t.op\"() : () -> () loc(#never)";
    let e = parse_err(src);
    assert_err(
        src,
        &e,
        "operation location alias was never defined",
        "#never",
    );
}

#[test]
fn error_affine_semantics() {
    let src = "\"t.op\"() {a = affine_map<(d0, d1) -> (d0 * d1)>} : () -> ()";
    let e = parse_err(src);
    assert_err(
        src,
        &e,
        "non-affine expression: at least one of the multiply operands",
        "d0 * d1",
    );
    let src = "\"t.op\"() {a = affine_map<(d0) -> (d0 + d7)>} : () -> ()";
    let e = parse_err(src);
    assert_err(src, &e, "use of undeclared identifier 'd7'", "d7");
    let src = "\"t.op\"() {a = affine_map<(d0, d1) -> (d0 mod d1)>} : () -> ()";
    let e = parse_err(src);
    assert_err(
        src,
        &e,
        "right operand of mod has to be either a constant or symbolic",
        "d0 mod",
    );
    let src = "\"t.op\"() {a = affine_map<(d0) -> (d0 +)>} : () -> ()";
    let e = parse_err(src);
    assert_err(src, &e, "unexpected", ")>");
}

#[test]
fn error_duplicate_dictionary_key() {
    let src = "\"t.op\"() {a = 1, a = 2} : () -> ()";
    let e = parse_err(src);
    assert_err(
        src,
        &e,
        "duplicate key 'a' in dictionary attribute",
        "a = 2",
    );
}

#[test]
fn error_dimension_list() {
    let src = "\"t.op\"() : () -> tensor<4y>";
    let e = parse_err(src);
    assert_err(src, &e, "expected 'x' in dimension list", "y>");
    let src = "\"t.op\"() : () -> vector<?xf32>";
    let e = parse_err(src);
    assert_err(src, &e, "expected static shape", "?x");
}

#[test]
fn error_decimal_literal_for_float() {
    let src = "\"t.op\"() {a = 1 : f32} : () -> ()";
    let e = parse_err(src);
    assert_err(
        src,
        &e,
        "unexpected decimal integer literal for a floating point value",
        "1 : f32",
    );
}

#[test]
fn error_unterminated_string_and_bad_char() {
    let src = "\"t.op\"() {a = \"abc} : () -> ()\n";
    let e = parse_err(src);
    // At the end of the line, where the quote is missing (as mlir-opt).
    assert_err(src, &e, "expected '\"' in string literal", "\n");
    let src = "\"t.op\"() {a = $} : () -> ()";
    let e = parse_err(src);
    assert_err(src, &e, "unexpected character", "$");
}

#[test]
fn error_int_width() {
    let src = "\"t.op\"() : () -> i16777216";
    let e = parse_err(src);
    assert_err(
        src,
        &e,
        "integer bitwidth is limited to 16777215 bits",
        "i16777216",
    );
}

#[test]
fn error_missing_region_close() {
    // At the end of the last line with content, as mlir-opt reports it.
    let src = "module {\n  \"t.op\"() : () -> ()\n";
    let e = parse_err(src);
    assert_err_off(&e, "expected '}' to end a region", src.len() - 1);
}

#[test]
fn integer_attribute_ranges() {
    assert_eq!(attr_of("255 : i8"), Attribute::int(-1, Type::int(8)));
    assert_eq!(attr_of("1 : i1"), Attribute::bool(true));
    assert_eq!(
        attr_of("200 : ui8"),
        Attribute::new(AttrKind::Integer {
            value: 200,
            ty: Type::new(TypeKind::Integer {
                width: 8,
                signedness: Signedness::Unsigned
            })
        })
    );
    let src = "\"t.op\"() {a = 256 : i8} : () -> ()";
    let e = parse_err(src);
    assert_err(
        src,
        &e,
        "integer constant out of range for attribute",
        "256",
    );
    let src = "\"t.op\"() {a = -1 : ui8} : () -> ()";
    let e = parse_err(src);
    assert_err(
        src,
        &e,
        "negative integer literal not valid for unsigned integer type",
        "-1",
    );
}

#[test]
fn argument_locations_may_use_later_aliases() {
    let src = "test.func @f(%a: i32 loc(#loc1)) {\n^bb0:\n}\n\"t.r\"() ({\n^bb0(%x: i32 loc(#loc1)):\n  \"t.u\"(%x) : (i32) -> () loc(#loc1)\n}) : () -> ()\n#loc1 = loc(\"f.mlir\":1:2)";
    let e = parse_err(src);
    assert_err(
        src,
        &e,
        "invalid block name in region with named arguments",
        "^bb0:",
    );
    let src = "\"t.r\"() ({\n^bb0(%x: i32 loc(#loc1)):\n  \"t.u\"(%x) : (i32) -> () loc(#loc1)\n}) : () -> ()\n#loc1 = loc(\"f.mlir\":1:2)";
    let (c, out) = parse(src);
    let r = c.regions(top_ops(&c, out.module)[0])[0];
    let op = c.first_op(c.region_blocks(r)[0]).unwrap();
    assert!(matches!(
        c.op(op).location,
        Location::FileLineCol {
            line: 1,
            col: 2,
            ..
        }
    ));
}

#[test]
fn huge_result_numbers_are_errors() {
    let src = "\"t.u\"(%x#4000000000) : (i32) -> ()";
    let e = parse_err(src);
    assert_err(src, &e, "invalid SSA value result number", "#4000000000");
    let src = "%x:4000000 = \"t.d\"() : () -> i32";
    let e = parse_err(src);
    assert_err(
        src,
        &e,
        "expected named operation to have at least 1 result",
        "4000000",
    );
}

#[test]
fn realistic_mlir_opt_output() {
    let src = r#"#map = affine_map<(d0, d1) -> (d0, d1)>
#loc = loc("x.mlir":1:1)
module attributes {gpu.container_module, dlti.spec = #dlti.spec<"a" = 1>} {
  "func.func"() <{function_type = (tensor<4xf32>, !llvm.ptr<1>) -> tensor<4xf32>, sym_name = "f"}> ({
  ^bb0(%arg0: tensor<4xf32> loc("x.mlir":2:3), %arg1: !llvm.ptr<1> loc(#loc4)):
    %0 = "arith.addf"(%arg0, %arg0) <{fastmath = #arith.fastmath<none>}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc(#loc2)
    %1 = "linalg.generic"(%0) <{indexing_maps = [#map, #map], iterator_types = [#linalg.iterator_type<parallel>]}> ({
    ^bb0(%in: f32 loc(unknown), %out: f32 loc(unknown)):
      "linalg.yield"(%in) : (f32) -> () loc(#loc)
    }) : (tensor<4xf32>) -> tensor<4xf32> loc(#loc2)
    "func.return"(%1) : (tensor<4xf32>) -> () loc(#loc3)
  }) : () -> () loc(#loc1)
  module @inner {
  } loc(#loc)
} loc(#loc)
#loc1 = loc("x.mlir":2:1)
#loc2 = loc("x.mlir":3:5)
#loc3 = loc(callsite(#loc1 at #loc2))
#loc4 = loc("x.mlir":2:9)

{-#
  dialect_resources: {
    builtin: {
      blob1: "0x08000000010000000000000002000000000000000300000000000000"
    }
  }
#-}
"#;
    let (c, out) = parse(src);
    let m = out.module;
    assert_eq!(c.op_name(m), "builtin.module");
    assert_eq!(c.attr(m, "gpu.container_module"), Some(&Attribute::unit()));
    assert_eq!(
        c.attr(m, "dlti.spec"),
        Some(&Attribute::new(AttrKind::Dialect {
            dialect: "dlti".into(),
            body: "spec<\"a\" = 1>".into()
        }))
    );
    assert!(matches!(
        c.op(m).location,
        Location::FileLineCol {
            line: 1,
            col: 1,
            ..
        }
    ));
    let ops = top_ops(&c, m);
    assert_eq!(ops.len(), 2);
    assert_eq!(c.op_name(ops[0]), "func.func");
    assert!(matches!(
        c.op(ops[0]).location,
        Location::FileLineCol {
            line: 2,
            col: 1,
            ..
        }
    ));
    assert_eq!(
        c.inherent_attr(ops[0], "sym_name"),
        Some(&Attribute::string("f"))
    );
    assert_eq!(c.op_name(ops[1]), "builtin.module");
    assert_eq!(
        c.inherent_attr(ops[1], "sym_name"),
        Some(&Attribute::string("inner"))
    );
    let body = c.region_blocks(c.regions(ops[0])[0])[0];
    let inner: Vec<OpId> = c.block_ops(body).collect();
    assert_eq!(inner.len(), 3);
    assert!(matches!(c.op(inner[2]).location, Location::CallSite { .. }));
    // The resource section is read, not skipped.
    assert!(out.warnings.is_empty());
    assert!(c.resources.builtin_blob("blob1").is_some());
}

#[test]
fn unsupported_builtin_attributes_are_reported() {
    let src = "\"t.op\"() {a = opaque<\"x\", \"0x00\"> : tensor<1xi8>} : () -> ()";
    let e = parse_err(src);
    assert_err(src, &e, "'opaque' attributes are not supported", "opaque");
}

#[test]
fn tricky_dimension_lists() {
    assert_eq!(
        type_of("memref<0x0xf32>"),
        Type::memref(vec![0, 0], Type::f32())
    );
    assert_eq!(
        type_of("tensor<4x4x!foo.t>"),
        Type::tensor(
            vec![4, 4],
            Type::new(TypeKind::Dialect {
                dialect: "foo".into(),
                body: "t".into()
            })
        )
    );
    assert_eq!(
        type_of("vector<[4]x[2]xi8>"),
        Type::new(TypeKind::Vector {
            shape: vec![4, 2],
            scalable: vec![true, true],
            elem: Type::int(8)
        })
    );
    assert_eq!(
        type_of("tensor<?x?xindex>"),
        Type::tensor(vec![DYNAMIC, DYNAMIC], Type::index())
    );
}

#[test]
fn affine_syntax_error_message() {
    let src = "\"t.op\"() {a = affine_map<(d0) -> (d0 +)>} : () -> ()";
    let e = parse_err(src);
    assert!(
        e.message.contains("unexpected ')' in affine expression"),
        "{}",
        e.message
    );
    assert!(e.message.contains("identifier"), "{}", e.message);
}

#[test]
fn dictionary_duplicates_after_reordering() {
    let src = "\"t.op\"() {c = 1, d = 2, a = 3, c = 4} : () -> ()";
    let e = parse_err(src);
    assert_err(src, &e, "duplicate key 'c'", "c = 4");
    let src = "\"t.op\"() {b = 1, a = 2, a = 4} : () -> ()";
    let e = parse_err(src);
    assert_err(src, &e, "duplicate key 'a'", "a = 4");
}

#[test]
fn default_dialect_in_unknown_op_message() {
    let src = "test.func @f() {\n  frob\n}";
    let e = parse_err(src);
    assert_err(
        src,
        &e,
        "custom op 'frob' is unknown (tried 'test.frob' as well)",
        "frob",
    );
    assert_eq!(
        attr_of("1.1 : bf16"),
        Attribute::float(1.1015625, Type::float(FloatKind::BF16))
    );
}

const FUZZ_SEED: &str = r#"#map = affine_map<(d0)[s0] -> (d0 floordiv 2 + s0)>
!t = tensor<4x?xf32, #foo.enc<[1, 2]>>
module @m attributes {a = dense<[[1.0, 2.0]]> : tensor<1x2xf32>} {
  test.func @f(%x: i32 loc("a":1:2), %y: !t) -> i32 {
    %c:2 = test.const 0x10 : i32 {k = array<i64: 1, 2>, s = strided<[?, 1], offset: 4>}
    %w = test.wrap {
      "t.br"(%x) [^bb1] : (i32) -> ()
    ^bb1:
      return %c#1 : i32
    } : i32
    "t.x"() <{p = @a::@b}> ({}) {m = #map, v = vector<[4]xi1>} : () -> () loc(#loc)
    test.expr { te.sum(%A[%m] * 2) } uses %x
    return %w : i32
  }
}
#loc = loc(callsite("f" at fused<"m">["b":3:4]))
{-# dialect_resources: {} #-}
"#;

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

    #[test]
    fn mutated_inputs_never_panic(cut in 0usize..FUZZ_SEED.len(), del in 0usize..8, ins in "[ -~]{0,4}") {
        let mut s = FUZZ_SEED.to_string();
        let end = (cut + del).min(s.len());
        s.replace_range(cut..end, &ins);
        let mut c = ctx();
        c.allow_unregistered = true;
        if let Err(e) = parse_str(&mut c, "fuzz.mlir", &s) {
            proptest::prop_assert!(!e.message.contains("internal error"), "{}", e.message);
            proptest::prop_assert!(e.span.is_some(), "{}", e.message);
        }
    }
}

#[test]
fn fuzz_seed_parses() {
    let (c, out) = parse(FUZZ_SEED);
    assert_eq!(
        c.inherent_attr(out.module, "sym_name"),
        Some(&Attribute::string("m"))
    );
}

fn file_loc(line: u32, col: u32) -> Location {
    Location::FileLineCol {
        file: "t.mlir".into(),
        line,
        col,
    }
}

#[test]
fn ops_and_arguments_without_loc_get_their_source_position() {
    // As mlir-opt: an op is at its name, an argument at its `%name`, the implicit
    // module at line 0, column 0; written locations win.
    let src = "test.func @f(%a: i32, %b: i32 loc(\"q\":7:7)) {\n  %0 = \"t.d\"(%a) : (i32) -> i32\n}\n\"t.r\"() ({\n^bb0(%x: i32, %y: i32 loc(#l)):\n  \"t.u\"(%x) : (i32) -> () loc(\"n\")\n}) : () -> ()\n#l = loc(\"z\":1:1)\n";
    let (c, out) = parse(src);
    assert_eq!(c.op(out.module).location, file_loc(0, 0));
    let ops = top_ops(&c, out.module);
    assert_eq!(c.op(ops[0]).location, file_loc(1, 1));
    assert_eq!(c.op(ops[1]).location, file_loc(4, 1));
    let fb = c.region_blocks(c.regions(ops[0])[0])[0];
    assert_eq!(c.block_arg_location(fb, 0), Some(&file_loc(1, 14)));
    let q = Location::FileLineCol {
        file: "q".into(),
        line: 7,
        col: 7,
    };
    assert_eq!(c.block_arg_location(fb, 1), Some(&q));
    assert_eq!(c.op(c.first_op(fb).unwrap()).location, file_loc(2, 8));
    let rb = c.region_blocks(c.regions(ops[1])[0])[0];
    assert_eq!(c.block_arg_location(rb, 0), Some(&file_loc(5, 6)));
    let z = Location::FileLineCol {
        file: "z".into(),
        line: 1,
        col: 1,
    };
    assert_eq!(c.block_arg_location(rb, 1), Some(&z));
    let n = Location::Name {
        name: "n".into(),
        child: None,
    };
    assert_eq!(c.op(c.first_op(rb).unwrap()).location, n);
    // An explicit module keeps the position of its `module` keyword.
    let (c, out) = parse("\n  module {\n}\n");
    assert_eq!(c.op(out.module).location, file_loc(2, 3));
}

/// Fuzzer find: argument locations were dropped by the parser, and printed from
/// the argument's position in the text, so the `--mlir-print-debuginfo` print did not
/// survive a reparse.
#[test]
fn debuginfo_print_is_a_fixed_point() {
    use crate::printer::{PrintOptions, print_op};
    let src = "// a comment shifts the lines\n\"t.r\"() ({\n^bb0(%x: index, %y: index):\n  \"t.u\"(%x) : (index) -> ()\n}) : () -> ()\nmodule @m {\n}\n";
    for generic in [true, false] {
        let opts = PrintOptions {
            generic,
            debug_info: true,
        };
        let (c, out) = parse(src);
        let first = print_op(&c, out.module, &opts);
        assert!(first.contains("loc(\"t.mlir\":3:6)"), "{first}");
        let (c2, out2) = parse(&first);
        let second = print_op(&c2, out2.module, &opts);
        assert_eq!(first, second);
    }
}

#[test]
fn error_messages_match_mlir() {
    let src = "\"t.op\"() {a = \"x\\qy\"} : () -> ()";
    let e = parse_err(src);
    assert_err(src, &e, "unknown escape in string literal", "\\q");
    let src = "\"t.op\"() : () -> tensor<4xf32\n// comment\n\n";
    let e = parse_err(src);
    assert_err(src, &e, "expected '>' in tensor type", "\n//");
    let src = "\"t.op\"() {a = [1, 2} : () -> ()";
    let e = parse_err(src);
    assert_err(src, &e, "expected ',' or ']'", "}");
    let src = "%x = \"t.d\"() : () -> i32\n\"t.u\"(%x#1) : (i32) -> ()";
    let e = parse_err(src);
    assert_err(src, &e, "reference to invalid result number", "%x#1");
    let src = "frobnicate";
    let e = parse_err(src);
    assert_err(
        src,
        &e,
        "custom op 'frobnicate' is unknown (tried 'builtin.frobnicate' as well)",
        "frob",
    );
    for (lit, msg) in [
        (
            "dense<[1, 2, 3]> : tensor<2xi32>",
            "inferred shape of elements literal ([3]) does not match type ([2])",
        ),
        (
            "dense<[[1, 2], [3, 4]]> : tensor<4xi32>",
            "inferred shape of elements literal ([2, 2]) does not match type ([4])",
        ),
        (
            "dense<[1, [2]]> : tensor<2xi32>",
            "tensor literal is invalid; ranks are not consistent between elements",
        ),
        (
            "dense<1.5> : tensor<2xi32>",
            "expected integer elements, but parsed floating-point",
        ),
        (
            "dense<true> : tensor<2xi32>",
            "expected i1 type for 'true' or 'false' values",
        ),
        (
            "dense<[1, 2]> : tensor<?xi32>",
            "elements literal type must have static shape",
        ),
        (
            "dense<[1, 2]> : i32",
            "elements literal must be a shaped type",
        ),
    ] {
        let src = format!("\"t.op\"() {{a = {lit}}} : () -> ()");
        let e = parse_err(&src);
        assert!(e.message.contains(msg), "{lit}: {}", e.message);
    }
    // Splats, empty lists and hex blobs fit any static shape.
    for ok in [
        "dense<1> : tensor<2x3xi32>",
        "dense<[]> : tensor<0xi32>",
        "dense<[[]]> : tensor<1x0xi32>",
        "dense<\"0x0102\"> : tensor<2xi8>",
        "dense<[true, false]> : vector<2xi1>",
        "dense<[(1, 2)]> : tensor<1xcomplex<i32>>",
        "dense<[1, 2]> : memref<2xi32>",
    ] {
        attr_of(ok);
    }
    let src = "\"t.op\"() : () -> memref<4xf32, affine_map<(d0, d1) -> (d0)>>";
    let e = parse_err(src);
    assert_err(
        src,
        &e,
        "memref layout mismatch between rank and affine map: 1 != 2",
        "affine_map",
    );
}

/// Fuzzer find: a string with a multi-byte character followed by more text made the
/// printer's escaping slice inside the character and panic.
#[test]
fn non_ascii_strings_round_trip() {
    use crate::printer::{PrintOptions, print_op};
    let src = "\"t.a\u{612}b\"() {s = \"\u{e9}x\u{612}\u{612}yz\"} : () -> ()\n";
    let (c, out) = parse(src);
    let first = print_op(&c, out.module, &PrintOptions::default());
    assert!(first.contains(r#""t.a\D8\92b"()"#), "{first}");
    assert!(first.contains(r#""\C3\A9x\D8\92\D8\92yz""#), "{first}");
    let (c2, out2) = parse(&first);
    assert_eq!(first, print_op(&c2, out2.module, &PrintOptions::default()));
    assert_eq!(
        c2.attr(top_ops(&c2, out2.module)[0], "s"),
        Some(&Attribute::string("\u{e9}x\u{612}\u{612}yz"))
    );
}

/// `builtin.module`'s name and visibility are inherent (properties), from its custom
/// form and from a generic attribute dictionary alike, as in MLIR.
#[test]
fn module_name_and_visibility_are_properties() {
    let props = |c: &Context, m: OpId| c.op(m).properties;
    let want = Some(Attribute::new(AttrKind::Dictionary(vec![
        NamedAttribute {
            name: "sym_name".into(),
            value: Attribute::string("a"),
        },
        NamedAttribute {
            name: "sym_visibility".into(),
            value: Attribute::string("private"),
        },
    ])));
    let (c, out) = parse("module @a attributes {sym_visibility = \"private\", t.x = 1} {\n}\n");
    assert_eq!(props(&c, out.module), want);
    assert_eq!(c.op(out.module).attributes.len(), 1);
    let (c, out) = parse(
        "\"builtin.module\"() ({\n}) {sym_name = \"a\", sym_visibility = \"private\", t.x = 1} : () -> ()\n",
    );
    assert_eq!(props(&c, out.module), want);
    assert_eq!(c.op(out.module).attributes.len(), 1);
}

/// Fuzzer find: `#.0` (a dialect attribute with an empty namespace) was accepted and
/// printed as `#<"0">`, which does not parse. mlir-opt rejects it; `#d.` prints `#d<>`.
#[test]
fn empty_dialect_namespace() {
    for bad in ["#.0", "#.", "#.a<1>"] {
        let src = format!("\"t.a\"() {{f = {bad}}} : () -> ()");
        let e = parse_err(&src);
        assert_err(&src, &e, "invalid dialect namespace '\"\"'", bad);
    }
    let src = "\"t.a\"() : () -> !.x";
    let e = parse_err(src);
    assert_err(src, &e, "invalid dialect namespace", "!.x");
    use crate::printer::{PrintOptions, print_op};
    let (c, out) = parse("\"t.a\"() {f = #d.} : () -> ()");
    let text = print_op(&c, out.module, &PrintOptions::default());
    assert!(text.contains("{f = #d<>}"), "{text}");
    let (c2, out2) = parse(&text);
    assert_eq!(text, print_op(&c2, out2.module, &PrintOptions::default()));
}

/// Fuzzer find: float dense arrays take hexadecimal bit patterns (the printer writes inf
/// and NaN elements that way), not only decimal literals.
#[test]
fn float_dense_arrays_take_hex_bit_patterns() {
    let AttrKind::DenseArray(crate::ir::DenseArray::Float { values, .. }) =
        attr_of("array<f32: 0x7F800000, 1.5, 0x3F800000>").kind()
    else {
        panic!("expected a float dense array")
    };
    let v: Vec<f64> = values.iter().map(|b| b.get()).collect();
    assert_eq!(v, vec![f64::INFINITY, 1.5, 1.0]);
    let AttrKind::DenseArray(crate::ir::DenseArray::Float { values, .. }) =
        attr_of("array<f64: 0x7FF8000000000000>").kind()
    else {
        panic!("expected a float dense array")
    };
    assert!(values[0].get().is_nan());
}
