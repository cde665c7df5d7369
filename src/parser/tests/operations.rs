//! Operations: generic and custom forms, regions, nesting, resources.

use super::*;

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
