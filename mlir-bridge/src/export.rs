//! te → linalg with a lowering configuration (IREE-style), on rtile's IR.
//!
//! Every `te.compute` that carries a chosen program (`rtile.program`, after
//! `--rtile-select`; else the best of `rtile.programs`) becomes a `linalg.generic` on
//! tensors (a `linalg.generic` fill of the combiner's identity as its init when it
//! reduces) with the program as the discardable attribute
//! `lowering_config = {device, tile_sizes = [[block], [thread]], grid, threads,
//! tensor_core, staged}`: builtin attributes only, so upstream MLIR verifies it without
//! `--allow-unregistered-dialect`. Computes with pad values (te-only semantics) stay te
//! with a remark.

use rtile::ir::affine::AffineMap;
use rtile::ir::{AttrKind, Attribute, Context, NamedAttribute, OpId, OperationState, Value};
use rtile_dialects::rtile::attr::RProgram;
use rtile_dialects::rtile::{program, programs};
use rtile_dialects::te::ir::{YIELD, build_body_region, compute_from_op, scalar_attr};
use rtile_dialects::te::model::{AxisKind, Combiner, TeCompute};
use rtile_dialects::te::walk::compute_ops;

use crate::import::Remark;

/// What [`export_linalg`] did.
#[derive(Clone, Debug, Default)]
pub struct ExportReport {
    /// How many `te.compute` ops became `linalg.generic`.
    pub exported: usize,
    /// The computes left as te.
    pub remarks: Vec<Remark>,
}

/// The lowering-config attribute's name on the exported `linalg.generic`.
pub const LOWERING_CONFIG: &str = "lowering_config";

/// Rewrites every `te.compute` with a program under `root` into `linalg.generic`.
pub fn export_linalg(ctx: &mut Context, root: OpId) -> ExportReport {
    let computes = compute_ops(ctx, root);
    let mut report = ExportReport::default();
    for (i, op) in computes.into_iter().enumerate() {
        match export_one(ctx, op) {
            Ok(()) => report.exported += 1,
            Err(reason) => report.remarks.push(Remark {
                op: format!("te.compute #{i}"),
                reason,
                loc: crate::import::file_line_col(&ctx.op(op).location),
            }),
        }
    }
    report
}

fn u64s(v: &[u64]) -> Attribute {
    Attribute::new(AttrKind::Array(
        v.iter().map(|&x| Attribute::i64(x as i64)).collect(),
    ))
}

/// The IREE-style lowering configuration of `p`.
pub fn lowering_config(p: &RProgram) -> Attribute {
    Attribute::dictionary(vec![
        NamedAttribute {
            name: "device".into(),
            value: Attribute::string(&p.device),
        },
        NamedAttribute {
            name: "grid".into(),
            value: u64s(&p.grid),
        },
        NamedAttribute {
            name: "staged".into(),
            value: Attribute::new(AttrKind::Bool(p.staged)),
        },
        NamedAttribute {
            name: "tensor_core".into(),
            value: Attribute::new(AttrKind::Bool(p.tensor_core)),
        },
        NamedAttribute {
            name: "threads".into(),
            value: Attribute::i64(p.threads as i64),
        },
        NamedAttribute {
            name: "tile_sizes".into(),
            value: Attribute::new(AttrKind::Array(vec![u64s(&p.block), u64s(&p.thread)])),
        },
    ])
}

/// `array<i32: ins, outs>`.
fn segments(ins: i64, outs: i64) -> Attribute {
    Attribute::new(AttrKind::DenseArray(rtile::ir::DenseArray::Int {
        elem: rtile::ir::Type::int(32),
        values: vec![ins, outs],
    }))
}

fn iterator(kind: AxisKind) -> Attribute {
    Attribute::new(AttrKind::Dialect {
        dialect: "linalg".into(),
        body: format!("iterator_type<{}>", kind.keyword()),
    })
}

fn props(entries: Vec<(&str, Attribute)>) -> Option<Attribute> {
    Some(Attribute::dictionary(
        entries
            .into_iter()
            .map(|(n, v)| NamedAttribute {
                name: n.into(),
                value: v,
            })
            .collect(),
    ))
}

fn combine_op(c: Combiner, float: bool) -> &'static str {
    match (c, float) {
        (Combiner::Sum, true) => "arith.addf",
        (Combiner::Sum, false) => "arith.addi",
        (Combiner::Max, true) => "arith.maximumf",
        (Combiner::Max, false) => "arith.maxsi",
        (Combiner::Min, true) => "arith.minimumf",
        (Combiner::Min, false) => "arith.minsi",
        (Combiner::Prod, true) => "arith.mulf",
        (Combiner::Prod, false) => "arith.muli",
    }
}

fn create_before(ctx: &mut Context, anchor: OpId, st: OperationState) -> OpId {
    let id = ctx.create_op(st);
    ctx.insert_op_before(anchor, id);
    id
}

/// `tensor.empty` and, when `c` reduces, a fill of the combiner's identity.
fn build_init(ctx: &mut Context, op: OpId, c: &TeCompute) -> Value {
    let rt = c.result.to_type();
    let mut empty = OperationState::new("tensor.empty");
    empty.result_types = vec![rt];
    let e = create_before(ctx, op, empty);
    let e = ctx.result(e, 0);
    let Some(comb) = c.combiner else {
        return e;
    };
    let elem = c.result.elem;
    let mut cst = OperationState::new("arith.constant");
    cst.result_types = vec![elem.to_type()];
    cst.properties = props(vec![("value", scalar_attr(comb.identity(elem), elem))]);
    let cst = create_before(ctx, op, cst);
    let cst = ctx.result(cst, 0);
    let rank = c.result.shape.len() as u32;
    let region = ctx.create_region();
    let block = ctx.create_block(vec![elem.to_type(), elem.to_type()]);
    ctx.append_block(region, block);
    let inv = ctx.block_args(block)[0];
    let mut y = OperationState::new("linalg.yield");
    y.operands = vec![inv];
    let y = ctx.create_op(y);
    ctx.append_op(block, y);
    let mut fill = OperationState::new("linalg.generic");
    fill.operands = vec![cst, e];
    fill.result_types = vec![rt];
    fill.regions = vec![region];
    fill.properties = props(vec![
        (
            "indexing_maps",
            Attribute::new(AttrKind::Array(vec![
                Attribute::new(AttrKind::AffineMap(AffineMap::new(rank, 0, Vec::new()))),
                Attribute::new(AttrKind::AffineMap(AffineMap::identity(rank))),
            ])),
        ),
        (
            "iterator_types",
            Attribute::new(AttrKind::Array(
                (0..rank).map(|_| iterator(AxisKind::Parallel)).collect(),
            )),
        ),
        ("operandSegmentSizes", segments(1, 1)),
    ]);
    let f = create_before(ctx, op, fill);
    ctx.result(f, 0)
}

fn export_one(ctx: &mut Context, op: OpId) -> Result<(), String> {
    let p = match program(ctx, op)? {
        Some(p) => p,
        None => programs(ctx, op)?
            .into_iter()
            .next()
            .ok_or("no rtile.program (run rtile-construct first)")?,
    };
    let (c, values) = compute_from_op(ctx, op)?;
    if c.accesses.iter().any(|a| a.pad.is_some()) || c.may_pad.is_some() || c.padded_from.is_some()
    {
        return Err("pad values have no linalg.generic form".into());
    }
    if let Some(t) = c.accumulator {
        // linalg.generic would accumulate in its output's element type; keeping te's
        // rounding needs an f32 init and a truncf after, which this export does not build.
        return Err(format!(
            "a mixed-precision reduction (acc({})) has no one-op linalg.generic form",
            t.keyword()
        ));
    }
    let init = build_init(ctx, op, &c);
    // Body: te's own generic body, one more block argument for the output, and the
    // combiner on it in place of te.yield.
    let region = build_body_region(ctx, &c);
    let block = *ctx
        .region_blocks(region)
        .first()
        .ok_or("te body without a block")?;
    let elem = c.result.elem;
    // linalg needs every loop to index some operand dim directly (an invertible
    // loops-to-shapes map): a pooling window gets a shape-only operand, as upstream's
    // pooling ops have.
    let covered = |d: u32| {
        c.accesses
            .iter()
            .map(|a| &a.map)
            .chain(std::iter::once(&c.result_map()))
            .any(|m| m.results.contains(&rtile::ir::AffineExpr::Dim(d)))
    };
    let window: Vec<u32> = (0..c.axes.len() as u32).filter(|&d| !covered(d)).collect();
    let mut window_operand = None;
    if !window.is_empty() {
        let shape: Vec<i64> = window.iter().map(|&d| c.axes[d as usize].extent).collect();
        let mut empty = OperationState::new("tensor.empty");
        empty.result_types = vec![rtile::ir::Type::tensor(shape, elem.to_type())];
        let e = create_before(ctx, op, empty);
        let map = AffineMap::new(
            c.axes.len() as u32,
            0,
            window
                .iter()
                .map(|&d| rtile::ir::AffineExpr::Dim(d))
                .collect(),
        );
        window_operand = Some((ctx.result(e, 0), map));
        ctx.add_block_argument(block, elem.to_type(), None);
    }
    let out_arg = ctx.add_block_argument(block, elem.to_type(), None);
    let yield_op = ctx
        .block_ops(block)
        .find(|&o| ctx.op_name(o) == YIELD)
        .ok_or("te body without te.yield")?;
    let mut yielded = *ctx.operands(yield_op).first().ok_or("empty te.yield")?;
    if let Some(comb) = c.combiner {
        let name = combine_op(comb, elem.is_float());
        let mut st = OperationState::new(name);
        st.operands = vec![out_arg, yielded];
        st.result_types = vec![elem.to_type()];
        let d = rtile_dialects::arith::default_properties(name);
        st.properties = (!d.is_empty()).then(|| Attribute::dictionary(d));
        let comb_op = create_before(ctx, yield_op, st);
        yielded = ctx.result(comb_op, 0);
    }
    let mut y = OperationState::new("linalg.yield");
    y.operands = vec![yielded];
    create_before(ctx, yield_op, y);
    ctx.erase_op(yield_op);

    let mut st = OperationState::new("linalg.generic");
    st.operands = c.accesses.iter().map(|a| values[a.input]).collect();
    if let Some((w, _)) = &window_operand {
        st.operands.push(*w);
    }
    st.operands.push(init);
    st.result_types = vec![c.result.to_type()];
    st.regions = vec![region];
    let mut maps: Vec<Attribute> = c
        .accesses
        .iter()
        .map(|a| Attribute::new(AttrKind::AffineMap(a.map.clone())))
        .collect();
    if let Some((_, m)) = &window_operand {
        maps.push(Attribute::new(AttrKind::AffineMap(m.clone())));
    }
    maps.push(Attribute::new(AttrKind::AffineMap(c.result_map())));
    st.properties = props(vec![
        ("indexing_maps", Attribute::new(AttrKind::Array(maps))),
        (
            "iterator_types",
            Attribute::new(AttrKind::Array(
                c.axes.iter().map(|a| iterator(a.kind)).collect(),
            )),
        ),
        (
            "operandSegmentSizes",
            segments(
                (c.accesses.len() + usize::from(window_operand.is_some())) as i64,
                1,
            ),
        ),
    ]);
    st.add_attribute(LOWERING_CONFIG, lowering_config(&p));
    let new = create_before(ctx, op, st);
    let (from, to) = (ctx.result(op, 0), ctx.result(new, 0));
    ctx.replace_all_uses_with(from, to);
    ctx.erase_op(op);
    Ok(())
}
