//! linalg → te on rtile's IR (no MLIR linked here).
//!
//! Input: a module in MLIR's generic form after upstream `linalg-generalize-named-ops`,
//! so every structured op is a `linalg.generic` (indexing maps, iterator types and a body
//! of arith/math ops). Each one becomes a `te.compute`:
//! - the domain comes from the operand shapes through the indexing maps;
//! - parallel axes are reordered to the output map's order, reductions go last (te's
//!   convention), and every input map is permuted accordingly;
//! - the body's final `arith.addf %out, %x` (maximumf, minimumf, mulf, addi, ...) on the
//!   output block argument is the combiner; `%x` is the te body;
//! - inputs whose block argument is unused (pooling windows) are dropped;
//! - a `tensor.pad` with a constant feeding an input becomes the access's pad value
//!   (the map is shifted by the low padding and reads the unpadded tensor).
//!
//! What cannot be imported stays as it is and yields a remark: never a failure.

use rtile::ir::affine::{AffineExpr, AffineMap};
use rtile::ir::{AttrKind, Context, OpId, Type, TypeKind, Value, WalkOrder};
use rtile_dialects::te::generic::{BodyAttr, BodyOp, BodyValue, GenericBody, intern_op_name};
use rtile_dialects::te::ir::build_compute_op;
use rtile_dialects::te::model::{
    Access, Axis, AxisKind, Combiner, ElemType, TeCompute, TensorType,
};

/// One `linalg.generic` left as it was, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Remark {
    /// The op's position in the module (`@func`, index among linalg ops).
    pub op: String,
    pub reason: String,
    /// `file:line:col` of the op, when the input carried locations.
    pub loc: Option<String>,
}

impl std::fmt::Display for Remark {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(l) = &self.loc {
            write!(f, "{l}: ")?;
        }
        write!(f, "remark: {} not imported to te: {}", self.op, self.reason)
    }
}

/// What [`import_linalg`] did.
#[derive(Clone, Debug, Default)]
pub struct ImportReport {
    /// How many `linalg.generic` ops became `te.compute`.
    pub imported: usize,
    /// The ops left in place.
    pub remarks: Vec<Remark>,
}

/// Rewrites every importable `linalg.generic` under `root` into a `te.compute`.
pub fn import_linalg(ctx: &mut Context, root: OpId) -> ImportReport {
    let mut generics = Vec::new();
    ctx.walk(root, WalkOrder::PreOrder, &mut |_, op| {
        if ctx.op_name(op) == "linalg.generic" {
            generics.push(op);
        }
    });
    let mut report = ImportReport::default();
    for (i, op) in generics.into_iter().enumerate() {
        if !ctx.op_exists(op) || is_fill(ctx, op).is_some() {
            // Fills are the accumulator initialisations of the computes below; they go
            // with them, or stay when something else uses them.
            continue;
        }
        match convert(ctx, op) {
            Ok(()) => report.imported += 1,
            Err(reason) => report.remarks.push(Remark {
                op: format!("linalg.generic #{i} in {}", func_name(ctx, op)),
                reason,
                loc: file_line_col(&ctx.op(op).location),
            }),
        }
    }
    cleanup(ctx, root);
    report
}

/// `file:line:col` of a location (through name and fused wrappers).
pub fn file_line_col(l: &rtile::ir::Location) -> Option<String> {
    use rtile::ir::Location;
    match l {
        Location::FileLineCol { file, line, col } => Some(format!("{file}:{line}:{col}")),
        Location::Name { child: Some(c), .. } => file_line_col(c),
        Location::CallSite { callee, .. } => file_line_col(callee),
        Location::Fused { locations, .. } => locations.iter().find_map(file_line_col),
        _ => None,
    }
}

fn func_name(ctx: &Context, mut op: OpId) -> String {
    while let Some(p) = ctx.parent_op(op) {
        if ctx.op_name(p) == "func.func"
            && let Some(n) = ctx.inherent_attr(p, "sym_name").and_then(|a| a.as_str())
        {
            return format!("@{n}");
        }
        op = p;
    }
    "the module".into()
}

/// Drops the ops the import made dead: fills, `tensor.empty`, `tensor.pad`, constants.
fn cleanup(ctx: &mut Context, root: OpId) {
    loop {
        let mut dead = Vec::new();
        ctx.walk(root, WalkOrder::PostOrder, &mut |_, op| {
            let name = ctx.op_name(op);
            let removable = matches!(name, "tensor.empty" | "tensor.pad" | "arith.constant")
                || (name == "linalg.generic" && is_fill(ctx, op).is_some());
            if removable && ctx.results(op).iter().all(|&r| !ctx.has_uses(r)) {
                dead.push(op);
            }
        });
        if dead.is_empty() {
            return;
        }
        for op in dead {
            ctx.erase_op(op);
        }
    }
}

/// `Some(value)` when `op` is a generalised `linalg.fill` of a constant: one scalar input
/// from `arith.constant`, body `linalg.yield %in`.
fn is_fill(ctx: &Context, op: OpId) -> Option<f64> {
    if ctx.op_name(op) != "linalg.generic" {
        return None;
    }
    let operands = ctx.operands(op);
    if operands.len() != 2 || matches!(ctx.value_type(operands[0]).kind(), TypeKind::Tensor { .. })
    {
        return None;
    }
    let block = *ctx.region_blocks(*ctx.regions(op).first()?).first()?;
    let ops: Vec<OpId> = ctx.block_ops(block).collect();
    let args = ctx.block_args(block);
    if ops.len() != 1 || ctx.op_name(ops[0]) != "linalg.yield" || ctx.operands(ops[0]) != [args[0]]
    {
        return None;
    }
    constant_of(ctx, operands[0])
}

fn constant_of(ctx: &Context, v: Value) -> Option<f64> {
    let d = ctx.defining_op(v)?;
    if ctx.op_name(d) != "arith.constant" {
        return None;
    }
    let a = ctx.inherent_attr(d, "value")?;
    a.as_float().or_else(|| a.as_int().map(|i| i as f64))
}

fn static_shape(t: &Type) -> Option<(Vec<i64>, &Type)> {
    match t.kind() {
        TypeKind::Tensor {
            shape,
            elem,
            encoding: None,
        } if shape.iter().all(|&d| d >= 0) => Some((shape.clone(), elem)),
        _ => None,
    }
}

/// `e` with every `d_i` replaced by `f(i)`.
fn map_dims(e: &AffineExpr, f: &dyn Fn(u32) -> AffineExpr) -> AffineExpr {
    match e {
        AffineExpr::Dim(i) => f(*i),
        AffineExpr::Symbol(_) | AffineExpr::Constant(_) => e.clone(),
        AffineExpr::Add(a, b) => AffineExpr::add(map_dims(a, f), map_dims(b, f)),
        AffineExpr::Mul(a, b) => AffineExpr::mul(map_dims(a, f), map_dims(b, f)),
        AffineExpr::FloorDiv(a, b) => AffineExpr::floordiv(map_dims(a, f), map_dims(b, f)),
        AffineExpr::CeilDiv(a, b) => AffineExpr::ceildiv(map_dims(a, f), map_dims(b, f)),
        AffineExpr::Mod(a, b) => AffineExpr::rem(map_dims(a, f), map_dims(b, f)),
    }
}

/// The reduction combiner named by the body's final op.
fn combiner_of(name: &str) -> Option<Combiner> {
    Some(match name {
        "arith.addf" | "arith.addi" => Combiner::Sum,
        "arith.maximumf" | "arith.maxnumf" | "arith.maxsi" => Combiner::Max,
        "arith.minimumf" | "arith.minnumf" | "arith.minsi" => Combiner::Min,
        "arith.mulf" | "arith.muli" => Combiner::Prod,
        _ => return None,
    })
}

/// A tensor.pad of a constant: (source, low padding, pad value).
fn pad_of(ctx: &Context, v: Value) -> Option<(Value, Vec<i64>, f64)> {
    let d = ctx.defining_op(v)?;
    if ctx.op_name(d) != "tensor.pad" || ctx.operands(d).len() != 1 {
        return None;
    }
    let low = ctx
        .inherent_attr(d, "static_low")?
        .as_dense_ints()?
        .to_vec();
    let block = *ctx.region_blocks(*ctx.regions(d).first()?).first()?;
    let y = ctx.last_op(block)?;
    let yv = *ctx.operands(y).first()?;
    let value = constant_of(ctx, yv)?;
    Some((ctx.operands(d)[0], low, value))
}

fn convert(ctx: &mut Context, op: OpId) -> Result<(), String> {
    let segs = ctx
        .inherent_attr(op, "operandSegmentSizes")
        .and_then(|a| a.as_dense_ints())
        .ok_or("no operandSegmentSizes")?
        .to_vec();
    if segs.len() != 2 || segs[1] != 1 {
        return Err("only single-output linalg.generic ops are imported".into());
    }
    let operands = ctx.operands(op).to_vec();
    let n_in = segs[0] as usize;
    if operands.len() != n_in + 1 {
        return Err("operand count does not match operandSegmentSizes".into());
    }
    let maps: Vec<AffineMap> = ctx
        .inherent_attr(op, "indexing_maps")
        .and_then(|a| a.as_array())
        .ok_or("no indexing_maps")?
        .iter()
        .map(|a| a.as_affine_map().cloned().ok_or("indexing map"))
        .collect::<Result<_, _>>()?;
    let iters: Vec<AxisKind> = ctx
        .inherent_attr(op, "iterator_types")
        .and_then(|a| a.as_array())
        .ok_or("no iterator_types")?
        .iter()
        .map(|a| match a.kind() {
            AttrKind::Dialect { body, .. } if body.contains("parallel") => Ok(AxisKind::Parallel),
            AttrKind::Dialect { body, .. } if body.contains("reduction") => Ok(AxisKind::Reduction),
            _ => Err("unknown iterator type".to_string()),
        })
        .collect::<Result<_, _>>()?;
    if maps.len() != operands.len() {
        return Err("one indexing map per operand expected".into());
    }
    let nd = iters.len();
    if maps
        .iter()
        .any(|m| m.num_dims as usize != nd || m.num_symbols != 0)
    {
        return Err("indexing maps do not match the iterator types".into());
    }
    // Domain extents: for every dim, some operand dim indexed by exactly that dim.
    let mut extents = vec![-1i64; nd];
    for (v, m) in operands.iter().zip(&maps) {
        let Some((shape, _)) = static_shape(ctx.value_type(*v)) else {
            continue;
        };
        for (r, &s) in m.results.iter().zip(&shape) {
            if let AffineExpr::Dim(d) = r {
                extents[*d as usize] = s;
            }
        }
    }
    if extents.iter().any(|&e| e < 0) {
        return Err("the iteration domain is not static (dynamic shapes are not imported)".into());
    }
    // Output: identity over its dims after reordering.
    let out_map = &maps[n_in];
    let out_ty = *ctx.value_type(operands[n_in]);
    let (out_shape, out_elem) = static_shape(&out_ty).ok_or("the output is not a static tensor")?;
    let out_elem = ElemType::from_type(out_elem).ok_or("unsupported output element type")?;
    let mut order: Vec<u32> = Vec::new();
    for r in &out_map.results {
        match r {
            AffineExpr::Dim(d)
                if iters[*d as usize] == AxisKind::Parallel && !order.contains(d) =>
            {
                order.push(*d)
            }
            _ => return Err("the output map is not a projection onto parallel dims".into()),
        }
    }
    if order.len() != iters.iter().filter(|k| **k == AxisKind::Parallel).count() {
        return Err("a parallel dim does not index the output".into());
    }
    for (d, k) in iters.iter().enumerate() {
        if *k == AxisKind::Reduction {
            order.push(d as u32);
        }
    }
    let mut new_pos = vec![0u32; nd];
    for (p, &d) in order.iter().enumerate() {
        new_pos[d as usize] = p as u32;
    }
    let remap = |m: &AffineMap| {
        AffineMap::new(
            nd as u32,
            m.num_symbols,
            m.results
                .iter()
                .map(|e| map_dims(e, &|i| AffineExpr::Dim(new_pos[i as usize])))
                .collect(),
        )
    };
    // Body.
    let region = *ctx.regions(op).first().ok_or("no body")?;
    let block = *ctx.region_blocks(region).first().ok_or("no body block")?;
    if ctx.region_blocks(region).len() != 1 {
        return Err("multi-block bodies are not imported".into());
    }
    let args = ctx.block_args(block).to_vec();
    if args.len() != operands.len() {
        return Err("block arguments do not match operands".into());
    }
    let body_ops: Vec<OpId> = ctx.block_ops(block).collect();
    let (&yield_op, rest) = body_ops.split_last().ok_or("empty body")?;
    if ctx.op_name(yield_op) != "linalg.yield" || ctx.operands(yield_op).len() != 1 {
        return Err("the body must end with linalg.yield of one value".into());
    }
    let out_arg = args[n_in];
    let mut yielded = ctx.operands(yield_op)[0];
    let mut combiner = None;
    let mut body_list: Vec<OpId> = rest.to_vec();
    let has_reduction = iters.contains(&AxisKind::Reduction);
    if has_reduction {
        let comb = ctx
            .defining_op(yielded)
            .filter(|d| rest.last() == Some(d))
            .ok_or("the yielded value is not the body's last op")?;
        let c = combiner_of(ctx.op_name(comb))
            .ok_or_else(|| format!("`{}` is not a recognised combiner", ctx.op_name(comb)))?;
        let ops2 = ctx.operands(comb);
        yielded = match ops2 {
            [a, b] if *a == out_arg => *b,
            [a, b] if *b == out_arg => *a,
            _ => return Err("the combiner does not read the output block argument".into()),
        };
        combiner = Some(c);
        body_list.pop();
    }
    // Which inputs are read, and their access numbers.
    let uses_arg = |ctx: &Context, a: Value| {
        yielded == a || body_list.iter().any(|&o| ctx.operands(o).contains(&a))
    };
    if uses_arg(ctx, out_arg) {
        return Err("the body reads the output (accumulation into a non-identity init)".into());
    }
    // The init must be the combiner's identity (a fill) when there is a reduction.
    if let Some(c) = combiner {
        let ok = ctx
            .defining_op(operands[n_in])
            .and_then(|d| is_fill(ctx, d))
            .is_some_and(|v| v == c.identity(out_elem));
        if !ok {
            return Err(format!(
                "the accumulator is not initialised to the {} identity",
                c.keyword()
            ));
        }
    }
    let mut inputs: Vec<TensorType> = Vec::new();
    let mut input_values: Vec<Value> = Vec::new();
    let mut accesses = Vec::new();
    let mut arg_access: Vec<Option<usize>> = vec![None; n_in];
    for i in 0..n_in {
        if !uses_arg(ctx, args[i]) {
            continue;
        }
        let mut v = operands[i];
        let mut map = remap(&maps[i]);
        let mut pad = None;
        if let Some((src, low, value)) = pad_of(ctx, v)
            && low.len() == map.results.len()
        {
            map = AffineMap::new(
                map.num_dims,
                map.num_symbols,
                map.results
                    .iter()
                    .zip(&low)
                    .map(|(e, &l)| AffineExpr::sub(e.clone(), AffineExpr::constant(l)))
                    .collect(),
            );
            v = src;
            pad = Some(value);
        }
        let tt = TensorType::from_type(ctx.value_type(v))
            .ok_or_else(|| format!("input #{i} is not a static tensor of a te element type"))?;
        let input = match input_values.iter().position(|&x| x == v) {
            Some(k) => k,
            None => {
                input_values.push(v);
                inputs.push(tt);
                inputs.len() - 1
            }
        };
        arg_access[i] = Some(accesses.len());
        accesses.push(Access { input, map, pad });
    }
    // Body ops → te's generic body → model expression. Constants captured from outside
    // the linalg.generic (`arith.maximumf %x, %zero`) become body constants.
    let mut gops: Vec<BodyOp> = Vec::new();
    let mut known: Vec<(Value, BodyValue)> = Vec::new();
    let value_of = |ctx: &Context,
                    v: Value,
                    gops: &mut Vec<BodyOp>,
                    known: &mut Vec<(Value, BodyValue)>|
     -> Result<BodyValue, String> {
        if let Some(i) = args.iter().position(|&a| a == v) {
            return arg_access
                .get(i)
                .copied()
                .flatten()
                .map(BodyValue::Arg)
                .ok_or_else(|| "the body reads the output".to_string());
        }
        if let Some((_, b)) = known.iter().find(|(k, _)| *k == v) {
            return Ok(*b);
        }
        let t = ElemType::from_type(ctx.value_type(v)).ok_or("unsupported body element type")?;
        let c = constant_of(ctx, v)
            .ok_or("the body uses a non-constant value defined outside the linalg.generic")?;
        gops.push(BodyOp {
            name: "arith.constant",
            operands: Vec::new(),
            result: t,
            attr: Some(BodyAttr::Value(c, t)),
        });
        let b = BodyValue::Op(gops.len() - 1);
        known.push((v, b));
        Ok(b)
    };
    for &o in &body_list {
        let name = ctx.op_name(o);
        let iname =
            intern_op_name(name).ok_or_else(|| format!("`{name}` in the body has no te form"))?;
        let res = ctx.results(o).to_vec();
        if res.len() != 1 {
            return Err(format!("`{name}` must have one result"));
        }
        let result =
            ElemType::from_type(ctx.value_type(res[0])).ok_or("unsupported body element type")?;
        let attr = match iname {
            "arith.constant" => Some(BodyAttr::Value(
                constant_of(ctx, res[0]).ok_or("arith.constant needs a scalar value")?,
                result,
            )),
            "arith.cmpf" | "arith.cmpi" => Some(BodyAttr::Predicate(
                ctx.inherent_attr(o, "predicate")
                    .and_then(|a| a.as_int())
                    .ok_or("comparison without predicate")?,
            )),
            _ => None,
        };
        let mut operands = Vec::new();
        for &v in ctx.operands(o) {
            operands.push(value_of(ctx, v, &mut gops, &mut known)?);
        }
        gops.push(BodyOp {
            name: iname,
            operands,
            result,
            attr,
        });
        known.push((res[0], BodyValue::Op(gops.len() - 1)));
    }
    let yielded = value_of(ctx, yielded, &mut gops, &mut known)?;
    let g = GenericBody { ops: gops, yielded };
    let mut axes = Vec::new();
    for &d in &order {
        axes.push(Axis {
            name: format!("d{d}"),
            extent: extents[d as usize],
            kind: iters[d as usize],
        });
    }
    let mut c = TeCompute {
        axes,
        inputs,
        accesses,
        body: rtile_dialects::te::model::Expr::Const(0.0, out_elem),
        combiner,
        result: TensorType::new(out_shape, out_elem),
        may_pad: None,
        padded_from: None,
        accumulator: None,
    };
    let types = c.access_types();
    c.body = rtile_dialects::te::generic::ops_to_body(&g, &types)?;
    rtile_dialects::te::verify::verify(&c).map_err(|e| e.message)?;
    let st = build_compute_op(ctx, &c, &input_values);
    let new = ctx.create_op(st);
    ctx.insert_op_before(op, new);
    let from = ctx.result(op, 0);
    let to = ctx.result(new, 0);
    ctx.replace_all_uses_with(from, to);
    ctx.erase_op(op);
    Ok(())
}
