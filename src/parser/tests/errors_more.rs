//! Error messages and spans: the remaining cases.

use super::*;

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
