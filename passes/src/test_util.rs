//! Hand-built IR for the passes' unit tests.

use std::sync::Arc;

use rtile::dialect::{Dialect, DialectRegistry, OpDefinition, OpTraits};
use rtile::ir::{Attribute, BlockId, Context, OpId, OperationState};

struct Op(&'static str, OpTraits);

impl OpDefinition for Op {
    fn name(&self) -> &'static str {
        self.0
    }
    fn summary(&self) -> &'static str {
        "test op"
    }
    fn traits(&self) -> OpTraits {
        self.1
    }
}

struct FuncDialect;

impl Dialect for FuncDialect {
    fn namespace(&self) -> &'static str {
        "func"
    }
    fn description(&self) -> &'static str {
        "a stand-in func dialect"
    }
    fn ops(&self) -> Vec<Box<dyn OpDefinition>> {
        vec![
            Box::new(Op(
                "func.func",
                OpTraits {
                    symbol: true,
                    isolated_from_above: true,
                    no_terminator: true,
                    ..OpTraits::default()
                },
            )),
            Box::new(Op("func.call", OpTraits::default())),
        ]
    }
}

/// A context with builtin and a stand-in `func` dialect.
pub fn ctx() -> Context {
    let mut reg = DialectRegistry::with_builtin();
    reg.register(&FuncDialect);
    let mut c = Context::new(Arc::new(reg));
    c.allow_unregistered = true;
    c
}

/// A `builtin.module` with one block, appended to `parent` if given.
pub fn module(c: &mut Context, parent: Option<BlockId>) -> (OpId, BlockId) {
    let m = c.create_op(OperationState::new("builtin.module"));
    let r = c.add_region(m);
    let b = c.create_block(vec![]);
    c.append_block(r, b);
    if let Some(p) = parent {
        c.append_op(p, m);
    }
    (m, b)
}

/// `func.func @name` with an empty body block, appended to `block`.
pub fn func(c: &mut Context, block: BlockId, name: &str, visibility: Option<&str>) -> OpId {
    let mut st = OperationState::new("func.func");
    st.add_attribute("sym_name", Attribute::string(name));
    if let Some(v) = visibility {
        st.add_attribute("sym_visibility", Attribute::string(v));
    }
    let f = c.create_op(st);
    let r = c.add_region(f);
    let b = c.create_block(vec![]);
    c.append_block(r, b);
    c.append_op(block, f);
    f
}

/// Appends `func.call @callee` to the body of `f`.
pub fn call(c: &mut Context, f: OpId, callee: &str) -> OpId {
    let body = c.region_blocks(c.regions(f)[0])[0];
    let mut st = OperationState::new("func.call");
    st.add_attribute("callee", Attribute::symbol(callee));
    let o = c.create_op(st);
    c.append_op(body, o);
    o
}
