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

mod attributes;
mod errors;
mod errors_more;
mod lexer_types;
mod operations;
