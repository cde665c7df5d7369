//! A small dialect declared with [`OpDecl`]: each constraint's message, the order they are
//! checked in, the op-specific hook after them, and a custom form through [`Assembly`].

use std::sync::Arc;

use super::*;
use crate::dialect::{Dialect, DialectRegistry};
use crate::parser::parse_str;
use crate::printer::{PrintOptions, print_op};

const LOOP: OpDecl = OpDecl {
    name: "demo.loop",
    summary: "a region and a symbol",
    constraints: &[
        Constraint::Regions(1, "requires one region, found {}"),
        Constraint::Attr("sym_name", |a| a.as_str().is_some(), "string attribute"),
        Constraint::OptionalAttr("step", |a| a.as_int().is_some(), "integer attribute"),
    ],
    inherent: &["step", "sym_name"],
    traits: OpTraits {
        no_terminator: true,
        ..OpTraits::NONE
    },
    ..OpDecl::EMPTY
};

const YIELD: OpDecl = OpDecl {
    name: "demo.yield",
    summary: "the loop body's value",
    constraints: &[
        Constraint::Parent("demo.loop"),
        Constraint::Operands(1, "takes exactly one value"),
        Constraint::Results(0, "has no results"),
    ],
    verify: Verify::Message(|ctx, op| {
        let t = ctx.value_type(ctx.operands(op)[0]);
        (*t == crate::ir::Type::index())
            .then_some(())
            .ok_or_else(|| "yields an index".to_string())
    }),
    assembly: Some(Assembly {
        parse: |p, state| {
            let o = p.parse_operand()?;
            state
                .operands
                .push(p.resolve_operand(&o, &crate::ir::Type::index())?);
            Ok(())
        },
        print: |ctx, op, p| {
            p.write(" ");
            p.print_operand(ctx.operands(op)[0]);
        },
    }),
    ..OpDecl::EMPTY
};

struct Demo;

impl Dialect for Demo {
    fn namespace(&self) -> &'static str {
        "demo"
    }
    fn description(&self) -> &'static str {
        "OpDecl tests"
    }
    fn ops(&self) -> Vec<Box<dyn OpDefinition>> {
        vec![LOOP.boxed(), YIELD.boxed()]
    }
}

/// The verifier's first message for `text`, or the custom-form print of a valid module.
fn run(text: &str) -> Result<String, String> {
    let mut reg = DialectRegistry::with_builtin();
    reg.register(&Demo);
    let mut ctx = Context::new(Arc::new(reg));
    ctx.allow_unregistered = true;
    let m = parse_str(&mut ctx, "t.mlir", text)
        .map_err(|d| d.message)?
        .module;
    crate::verifier::verify(&ctx, m).map_err(|ds| ds[0].message.clone())?;
    Ok(print_op(&ctx, m, &PrintOptions::default()))
}

#[test]
fn constraints_report_in_order_with_upstream_wording() {
    let yield_in = |operands: &str, attrs: &str| {
        format!(
            "%i = \"test.idx\"() : () -> index\n\"demo.loop\"() ({{\n  \"demo.yield\"({operands}) : ({}) -> ()\n}}) {attrs} : () -> ()",
            if operands.is_empty() { "" } else { "index" }
        )
    };
    let err = |t: &str| run(t).unwrap_err();
    let ok_attrs = "{sym_name = \"l\"}";
    assert_eq!(
        err(&yield_in("", ok_attrs)),
        "'demo.yield' op takes exactly one value"
    );
    assert_eq!(
        err(&yield_in("%i", "")),
        "'demo.loop' op requires attribute 'sym_name'"
    );
    assert_eq!(
        err(&yield_in("%i", "{sym_name = 1}")),
        "'demo.loop' op attribute 'sym_name' failed to satisfy constraint: string attribute"
    );
    assert_eq!(
        err(&yield_in("%i", "{step = \"x\", sym_name = \"l\"}")),
        "'demo.loop' op attribute 'step' failed to satisfy constraint: integer attribute"
    );
    assert_eq!(
        err("\"demo.loop\"() {sym_name = \"l\"} : () -> ()"),
        "'demo.loop' op requires one region, found 0"
    );
    assert_eq!(
        err("%i = \"test.idx\"() : () -> index\n\"demo.yield\"(%i) : (index) -> ()"),
        "'demo.yield' op expects parent op 'demo.loop'"
    );
}

#[test]
fn op_hook_runs_after_constraints_and_custom_form_round_trips() {
    let f = "%f = \"test.f\"() : () -> f32\n\"demo.loop\"() ({\n  \"demo.yield\"(%f) : (f32) -> ()\n}) {sym_name = \"l\"} : () -> ()";
    assert_eq!(run(f).unwrap_err(), "'demo.yield' op yields an index");
    let text = "%i = \"test.idx\"() : () -> index\n\"demo.loop\"() ({\n  demo.yield %i\n}) {sym_name = \"l\"} : () -> ()";
    let printed = run(text).unwrap();
    assert!(printed.contains("demo.yield %"), "{printed}");
    assert_eq!(run(&printed).unwrap(), printed);
    assert!(YIELD.has_custom_assembly() && !LOOP.has_custom_assembly());
    assert_eq!(LOOP.inherent_attributes(), ["step", "sym_name"]);
}
