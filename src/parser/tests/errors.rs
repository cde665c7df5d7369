//! Error messages and spans: values, blocks, types and aliases.

use super::*;

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
