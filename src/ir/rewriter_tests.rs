//! Tests of the builder and the rewriter: after every operation the use lists are checked
//! against the operands (both directions), and the result verifies and prints as expected.

use super::*;
use crate::ir::{Attribute, Builder, InsertionPoint, Type, Use};
use crate::printer::{PrintOptions, print_op};

/// A module with one empty body block, ops of the unregistered `test` dialect allowed.
fn module(ctx: &mut Context) -> (OpId, BlockId) {
    ctx.allow_unregistered = true;
    let mut b = Builder::new(ctx);
    let m = b.op("builtin.module").regions(1).build();
    let r = b.ctx().regions(m)[0];
    let body = b.create_block_in(r, &[]);
    (m, body)
}

/// Every operand is in its value's use list and every use names an operand that holds
/// the value: the invariant each rewrite must keep.
fn check_uses(ctx: &Context, root: OpId) {
    let mut seen = 0;
    for o in ctx.collect_ops(root) {
        for (i, &v) in ctx.operands(o).iter().enumerate() {
            assert!(
                ctx.value_exists(v),
                "operand {i} of {} is erased",
                ctx.op_name(o)
            );
            let u = Use {
                op: o,
                index: i as u32,
            };
            assert_eq!(ctx.uses(v).iter().filter(|x| **x == u).count(), 1);
            seen += 1;
        }
    }
    let mut total = 0;
    for o in ctx.collect_ops(root) {
        let mut vals: Vec<Value> = ctx.results(o).to_vec();
        for &r in ctx.regions(o) {
            for &b in ctx.region_blocks(r) {
                vals.extend_from_slice(ctx.block_args(b));
            }
        }
        for v in vals {
            for u in ctx.uses(v) {
                assert!(ctx.op_exists(u.op), "a use by an erased op");
                assert_eq!(ctx.operands(u.op)[u.index as usize], v);
                total += 1;
            }
        }
    }
    assert_eq!(seen, total, "uses from outside the module or stale uses");
}

fn verified_text(ctx: &Context, m: OpId) -> String {
    check_uses(ctx, m);
    if let Err(e) = crate::verifier::verify(ctx, m) {
        panic!("{:?}", e.iter().map(|d| &d.message).collect::<Vec<_>>());
    }
    let text = print_op(ctx, m, &PrintOptions::default());
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

fn konst(b: &mut Builder, v: i64) -> Value {
    b.op("test.const")
        .attr("value", Attribute::int(v, Type::index()))
        .result(Type::index())
        .value()
}

#[test]
fn insertion_points_order_ops() {
    let mut ctx = Context::default();
    let (m, body) = module(&mut ctx);
    let mut b = Builder::at_end(&mut ctx, body);
    let c1 = konst(&mut b, 1);
    let last = b.op("test.use").operand(c1).build();
    // Start of block: in front of everything, and consecutive ops keep their order.
    b.set_insertion_point_to_start(body);
    let c0 = konst(&mut b, 0);
    let c00 = konst(&mut b, 10);
    // Before / after an op.
    b.set_insertion_point(last);
    let c2 = konst(&mut b, 2);
    b.set_insertion_point_after(last);
    let c3 = konst(&mut b, 3);
    b.op("test.use").operands(&[c0, c00, c2, c3]).build();
    let saved = b.insertion_point();
    b.clear_insertion_point();
    let detached = b.op("test.detached").build();
    assert_eq!(b.ctx().parent_block(detached), None);
    b.restore_insertion_point(saved);
    assert_eq!(saved, Some(InsertionPoint::block_end(body)));
    b.ctx_mut().erase_op(detached);
    assert_eq!(
        verified_text(&ctx, m),
        "module {\n\
         %0 = \"test.const\"() {value = 0 : index} : () -> index\n\
         %1 = \"test.const\"() {value = 10 : index} : () -> index\n\
         %2 = \"test.const\"() {value = 1 : index} : () -> index\n\
         %3 = \"test.const\"() {value = 2 : index} : () -> index\n\
         \"test.use\"(%2) : (index) -> ()\n\
         %4 = \"test.const\"() {value = 3 : index} : () -> index\n\
         \"test.use\"(%0, %1, %3, %4) : (index, index, index, index) -> ()\n\
         }"
    );
}

#[test]
fn ops_with_properties_regions_successors_and_block_args() {
    let mut ctx = Context::default();
    let (m, body) = module(&mut ctx);
    let mut b = Builder::at_end(&mut ctx, body);
    let f = b
        .op("test.func")
        .property("sym_name", Attribute::string("f"))
        .property("arity", Attribute::i64(2))
        .regions(1)
        .build();
    let r = b.ctx().regions(f)[0];
    let entry = b.create_block_in(r, &[Type::index(), Type::index()]);
    let exit = b.create_block_in(r, &[Type::index()]);
    let (x, y) = (b.ctx().block_args(entry)[0], b.ctx().block_args(entry)[1]);
    let z = b.ctx().block_args(exit)[0];
    b.op("test.ret").operand(z).build();
    // A block inserted before `exit` lands between the two.
    let mid = b.create_block_before(exit, &[]);
    b.op("test.br").operand(y).successor(exit).build();
    b.set_insertion_point_to_end(entry);
    let pair = b
        .op("test.pair")
        .operands(&[x, y])
        .results([Type::index(), Type::i32()])
        .values();
    assert_eq!(b.ctx().value_type(pair[1]), &Type::i32());
    b.op("test.br").operand(pair[0]).successor(mid).build();
    assert_eq!(b.ctx().region_blocks(r), &[entry, mid, exit]);
    assert_eq!(b.ctx().inherent_attr(f, "arity"), Some(&Attribute::i64(2)));
    let text = verified_text(&ctx, m);
    assert!(text.contains("\"test.func\"() <{arity = 2 : i64, sym_name = \"f\"}> ({"));
    assert!(text.contains("^bb0(%arg0: index, %arg1: index):"), "{text}");
    assert!(text.contains("\"test.br\"(%0#0)[^bb1]"), "{text}");
    assert!(text.contains("\"test.br\"(%arg1)[^bb2]"), "{text}");
}

#[test]
fn replace_op_moves_uses_and_erases() {
    let mut ctx = Context::default();
    let (m, body) = module(&mut ctx);
    let mut rw = Rewriter::new(&mut ctx);
    rw.set_insertion_point_to_end(body);
    let a = konst(&mut rw, 1);
    let old = rw.op("test.neg").operand(a).result(Type::index()).build();
    let old_v = rw.ctx().result(old, 0);
    let user = rw.op("test.use").operands(&[old_v, old_v]).build();
    rw.set_insertion_point(old);
    let b = konst(&mut rw, -1);
    // Wrong arity and self-replacement are refused with the IR unchanged.
    assert!(matches!(
        rw.replace_op(old, &[]),
        Err(RewriteError::ResultCountMismatch {
            expected: 1,
            got: 0,
            ..
        })
    ));
    assert!(matches!(
        rw.replace_op(old, &[old_v]),
        Err(RewriteError::SelfReplacement { .. })
    ));
    check_uses(rw.ctx(), m);
    rw.replace_op(old, &[b]).unwrap();
    assert!(!rw.ctx().op_exists(old));
    assert_eq!(rw.ctx().operands(user), &[b, b]);
    assert_eq!(rw.ctx().uses(b).len(), 2);
    assert!(!rw.ctx().has_uses(a), "the erased op's operand use is gone");
    // replace_op_with builds the new op in front of the old one.
    let state = {
        let mut s = OperationState::new("test.abs");
        s.operands = vec![a];
        s.result_types = vec![Type::index()];
        s
    };
    let bop = rw.ctx().defining_op(b).unwrap();
    let new = rw.replace_op_with(bop, state).unwrap();
    let nv = rw.ctx().result(new, 0);
    assert_eq!(rw.ctx().operands(user), &[nv, nv]);
    assert_eq!(
        verified_text(&ctx, m),
        "module {\n\
         %0 = \"test.const\"() {value = 1 : index} : () -> index\n\
         %1 = \"test.abs\"(%0) : (index) -> index\n\
         \"test.use\"(%1, %1) : (index, index) -> ()\n\
         }"
    );
}

#[test]
fn replace_all_uses_keeps_lists_exact() {
    let mut ctx = Context::default();
    let (m, body) = module(&mut ctx);
    let mut rw = Rewriter::new(&mut ctx);
    rw.set_insertion_point_to_end(body);
    let a = konst(&mut rw, 1);
    let b = konst(&mut rw, 2);
    let u1 = rw.op("test.use").operands(&[a, b, a]).build();
    let wrap = rw.op("test.wrap").operand(a).result(Type::index()).build();
    let w = rw.ctx().result(wrap, 0);
    rw.replace_all_uses_except(a, w, wrap);
    assert_eq!(rw.ctx().operands(u1), &[w, b, w]);
    assert_eq!(rw.ctx().uses(a), &[Use { op: wrap, index: 0 }]);
    check_uses(rw.ctx(), m);
    rw.replace_all_uses_with(b, a);
    assert_eq!(rw.ctx().operands(u1), &[w, a, w]);
    assert!(!rw.ctx().has_uses(b));
    assert_eq!(rw.ctx().uses(a).len(), 2);
    // The wrapper comes before its user in the block: move it to verify dominance.
    rw.move_op_before(wrap, u1).unwrap();
    verified_text(&ctx, m);
}

#[test]
fn erase_refuses_live_results_and_cleans_uses() {
    let mut ctx = Context::default();
    let (m, body) = module(&mut ctx);
    let mut rw = Rewriter::new(&mut ctx);
    rw.set_insertion_point_to_end(body);
    let a = konst(&mut rw, 1);
    let outer = rw.op("test.region").operand(a).regions(1).build();
    let r = rw.ctx().regions(outer)[0];
    rw.create_block_in(r, &[]);
    // A use nested inside the erased op does not block it; one outside does.
    let inner = rw.op("test.inner").operand(a).result(Type::index()).value();
    rw.op("test.use").operand(inner).build();
    rw.set_insertion_point_to_end(body);
    let user = rw.op("test.use").operand(a).build();
    let aop = rw.ctx().defining_op(a).unwrap();
    assert_eq!(
        rw.erase_op(aop),
        Err(RewriteError::ResultsInUse {
            op: "test.const".into(),
            uses: 3
        })
    );
    assert_eq!(rw.ctx().uses(a).len(), 3);
    rw.erase_op(outer).unwrap();
    assert_eq!(rw.ctx().uses(a), &[Use { op: user, index: 0 }]);
    check_uses(rw.ctx(), m);
    rw.erase_op(user).unwrap();
    rw.erase_op(aop).unwrap();
    assert!(rw.ctx().block_is_empty(body));
    assert_eq!(verified_text(&ctx, m), "module {\n}");
}

#[test]
fn erasing_the_insertion_anchor_keeps_the_point_usable() {
    let mut ctx = Context::default();
    let (m, body) = module(&mut ctx);
    let mut rw = Rewriter::new(&mut ctx);
    rw.set_insertion_point_to_end(body);
    let x = rw.op("test.x").build();
    let y = rw.op("test.y").build();
    rw.set_insertion_point(x);
    rw.erase_op(x).unwrap();
    rw.op("test.z").build();
    assert_eq!(rw.ctx().block_ops(body).count(), 2);
    assert_eq!(rw.ctx().last_op(body), Some(y));
    assert_eq!(
        verified_text(&ctx, m),
        "module {\n\"test.z\"() : () -> ()\n\"test.y\"() : () -> ()\n}"
    );
}

#[test]
fn erase_block_refuses_escaping_values() {
    let mut ctx = Context::default();
    let (m, body) = module(&mut ctx);
    let mut rw = Rewriter::new(&mut ctx);
    rw.set_insertion_point_to_end(body);
    let op = rw.op("test.cfg").regions(1).build();
    let r = rw.ctx().regions(op)[0];
    let b0 = rw.create_block_in(r, &[]);
    let v = konst(&mut rw, 7);
    let b1 = rw.create_block_in(r, &[Type::index()]);
    let arg = rw.ctx().block_args(b1)[0];
    rw.op("test.use").operands(&[v, arg]).build();
    assert_eq!(
        rw.erase_block(b0),
        Err(RewriteError::BlockValuesInUse { uses: 1 })
    );
    rw.erase_block(b1).unwrap();
    assert!(!rw.ctx().has_uses(v));
    assert_eq!(rw.ctx().region_blocks(r), &[b0]);
    rw.erase_block(b0).unwrap();
    assert!(rw.ctx().region_blocks(r).is_empty());
    verified_text(&ctx, m);
}

#[test]
fn move_ops_and_blocks() {
    let mut ctx = Context::default();
    let (m, body) = module(&mut ctx);
    let mut rw = Rewriter::new(&mut ctx);
    rw.set_insertion_point_to_end(body);
    let a = rw.op("test.a").build();
    let b = rw.op("test.b").build();
    let c = rw.op("test.c").regions(1).build();
    rw.move_op_after(a, b).unwrap();
    let order: Vec<_> = rw.ctx().block_ops(body).collect();
    assert_eq!(order, vec![b, a, c]);
    assert!(matches!(
        rw.move_op_before(c, c),
        Err(RewriteError::BadAnchor(_))
    ));
    let r = rw.ctx().regions(c)[0];
    let x = rw.create_block_in(r, &[]);
    let y = rw.create_block_in(r, &[]);
    rw.move_op_to_end(b, x);
    assert_eq!(rw.ctx().parent_op(b), Some(c));
    rw.move_block_before(y, x);
    assert_eq!(rw.ctx().region_blocks(r), &[y, x]);
    rw.move_block_to_end(y, r);
    assert_eq!(rw.ctx().region_blocks(r), &[x, y]);
    verified_text(&ctx, m);
}

#[test]
fn inline_block_before_substitutes_arguments() {
    let mut ctx = Context::default();
    let (m, body) = module(&mut ctx);
    let mut rw = Rewriter::new(&mut ctx);
    rw.set_insertion_point_to_end(body);
    let one = konst(&mut rw, 1);
    let wrapper = rw.op("test.execute").operand(one).regions(1).build();
    let anchor = rw.op("test.use").operand(one).build();
    let r = rw.ctx().regions(wrapper)[0];
    let inner = rw.create_block_in(r, &[Type::index()]);
    let arg = rw.ctx().block_args(inner)[0];
    let twice = rw
        .op("test.add")
        .operands(&[arg, arg])
        .result(Type::index())
        .value();
    rw.op("test.use").operand(twice).build();
    assert!(matches!(
        rw.inline_block_before(inner, anchor, &[]),
        Err(RewriteError::ArgCountMismatch {
            expected: 1,
            got: 0
        })
    ));
    rw.inline_block_before(inner, anchor, &[one]).unwrap();
    assert!(rw.ctx().region_blocks(r).is_empty());
    assert_eq!(rw.ctx().uses(one).len(), 4);
    rw.erase_op(wrapper).unwrap();
    assert_eq!(
        verified_text(&ctx, m),
        "module {\n\
         %0 = \"test.const\"() {value = 1 : index} : () -> index\n\
         %1 = \"test.add\"(%0, %0) : (index, index) -> index\n\
         \"test.use\"(%1) : (index) -> ()\n\
         \"test.use\"(%0) : (index) -> ()\n\
         }"
    );
}

#[test]
fn merge_split_and_inline_region() {
    let mut ctx = Context::default();
    let (m, body) = module(&mut ctx);
    let mut rw = Rewriter::new(&mut ctx);
    rw.set_insertion_point_to_end(body);
    let holder = rw.op("test.holder").regions(1).build();
    let other = rw.op("test.other").regions(1).build();
    let r = rw.ctx().regions(holder)[0];
    let r2 = rw.ctx().regions(other)[0];
    let dest = rw.create_block_in(r, &[]);
    let p = konst(&mut rw, 5);
    let src = rw.create_block_in(r, &[Type::index()]);
    let s_arg = rw.ctx().block_args(src)[0];
    let first = rw.op("test.first").operand(s_arg).build();
    let second = rw.op("test.second").build();
    rw.merge_blocks(src, dest, &[p]).unwrap();
    assert_eq!(rw.ctx().region_blocks(r), &[dest]);
    assert_eq!(rw.ctx().operands(first), &[p]);
    check_uses(rw.ctx(), m);
    let tail = rw.split_block(dest, second).unwrap();
    assert_eq!(rw.ctx().region_blocks(r), &[dest, tail]);
    assert_eq!(rw.ctx().block_ops(tail).collect::<Vec<_>>(), vec![second]);
    assert_eq!(rw.ctx().last_op(dest), Some(first));
    // The blocks of `holder` move into `other`'s (empty) region.
    rw.inline_region_before(r, r2, None);
    assert!(rw.ctx().region_blocks(r).is_empty());
    assert_eq!(rw.ctx().region_blocks(r2), &[dest, tail]);
    assert_eq!(rw.ctx().parent_op(first), Some(other));
    // And back, in front of a block already there.
    let lone = rw.create_block_in(r, &[]);
    rw.inline_region_before(r2, r, Some(lone));
    assert_eq!(rw.ctx().region_blocks(r), &[dest, tail, lone]);
    verified_text(&ctx, m);
}
