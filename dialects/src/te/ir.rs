//! The model in the IR: building a `te.compute` operation (generic representation:
//! operands, attributes, body region) from a [`TeCompute`], and reading one back.
//!
//! The IR always holds the generic representation; the custom form is only syntax
//! (its parser builds the op with [`build_compute_op`], its printer recovers the model
//! with [`compute_from_op`]). See `docs/dialects/te.md` for the attribute table.

use rtile::ir::{
    AffineMap, AttrKind, Attribute, BlockId, Context, NamedAttribute, OpId, OperationState, Type,
    Value,
};

use super::generic::{
    BodyAttr, BodyOp, BodyValue, GenericBody, body_to_ops, intern_op_name, ops_to_body,
};
use super::model::{
    Access, Axis, AxisKind, Combiner, ElemType, Expr, MayPad, TeCompute, TensorType,
};

/// The op's name.
pub const COMPUTE: &str = "te.compute";
/// The body terminator's name.
pub const YIELD: &str = "te.yield";

/// A typed scalar attribute (`1.0 : f32`, `3 : i32`).
pub fn scalar_attr(v: f64, t: ElemType) -> Attribute {
    if t.is_float() {
        Attribute::float(v, t.to_type())
    } else {
        Attribute::int(v as i64, t.to_type())
    }
}

fn scalar_of(a: &Attribute) -> Option<f64> {
    a.as_float().or_else(|| a.as_int().map(|i| i as f64))
}

/// The attributes of a compute's generic form, sorted by name.
pub fn compute_attrs(c: &TeCompute) -> Vec<NamedAttribute> {
    let mut v = vec![
        NamedAttribute {
            name: "axis_names".into(),
            value: Attribute::new(AttrKind::Array(
                c.axes.iter().map(|a| Attribute::string(&a.name)).collect(),
            )),
        },
        NamedAttribute {
            name: "domain".into(),
            value: Attribute::dense_i64_array(c.extents()),
        },
        NamedAttribute {
            name: "indexing_maps".into(),
            value: Attribute::new(AttrKind::Array(
                c.accesses
                    .iter()
                    .map(|a| Attribute::new(AttrKind::AffineMap(a.map.clone())))
                    .chain(std::iter::once(Attribute::new(AttrKind::AffineMap(
                        c.result_map(),
                    ))))
                    .collect(),
            )),
        },
        NamedAttribute {
            name: "iterator_types".into(),
            value: Attribute::new(AttrKind::Array(
                c.axes
                    .iter()
                    .map(|a| Attribute::string(a.kind.keyword()))
                    .collect(),
            )),
        },
    ];
    if let Some(t) = c.accumulator {
        v.push(NamedAttribute {
            name: "accumulator".into(),
            value: Attribute::ty(t.to_type()),
        });
    }
    if let Some(k) = c.combiner {
        v.push(NamedAttribute {
            name: "combiner".into(),
            value: Attribute::string(k.keyword()),
        });
    }
    if c.accesses.iter().any(|a| a.pad.is_some()) {
        let tys = c.access_types();
        v.push(NamedAttribute {
            name: "pad_values".into(),
            value: Attribute::new(AttrKind::Array(
                c.accesses
                    .iter()
                    .zip(&tys)
                    .map(|(a, &t)| {
                        a.pad
                            .map(|p| scalar_attr(p, t))
                            .unwrap_or(Attribute::unit())
                    })
                    .collect(),
            )),
        });
    }
    if let Some(mp) = c.may_pad {
        v.push(NamedAttribute {
            name: "may_pad".into(),
            value: scalar_attr(mp.value, c.result.elem),
        });
    }
    if let Some(p) = &c.padded_from {
        v.push(NamedAttribute {
            name: "padded_from".into(),
            value: Attribute::dense_i64_array(p.clone()),
        });
    }
    v.sort_by_key(|a| a.name);
    v
}

/// Creates the body region: one block with an argument per access, the upstream scalar
/// ops, and `te.yield`.
pub fn build_body_region(ctx: &mut Context, c: &TeCompute) -> rtile::ir::RegionId {
    let tys = c.access_types();
    let g = body_to_ops(&c.body, &tys);
    let region = ctx.create_region();
    let block = ctx.create_block(tys.iter().map(|t| t.to_type()).collect());
    ctx.append_block(region, block);
    let args: Vec<Value> = ctx.block_args(block).to_vec();
    let mut results: Vec<Value> = Vec::new();
    let get = |v: BodyValue, results: &Vec<Value>| match v {
        BodyValue::Arg(i) => args[i],
        BodyValue::Op(j) => results[j],
    };
    for op in &g.ops {
        let mut st = OperationState::new(op.name);
        st.operands = op.operands.iter().map(|&v| get(v, &results)).collect();
        st.result_types = vec![op.result.to_type()];
        // Upstream's default properties first (fastmath, overflow flags), so the
        // generic form prints as mlir-opt-22 prints it.
        let mut props = crate::arith::default_properties(op.name);
        props.extend(op.attr.map(|a| match a {
            BodyAttr::Value(v, t) => NamedAttribute {
                name: "value".into(),
                value: scalar_attr(v, t),
            },
            BodyAttr::Predicate(p) => NamedAttribute {
                name: "predicate".into(),
                value: Attribute::i64(p),
            },
        }));
        st.properties = (!props.is_empty()).then(|| Attribute::dictionary(props));
        let id = ctx.create_op(st);
        ctx.append_op(block, id);
        results.push(ctx.result(id, 0));
    }
    let mut y = OperationState::new(YIELD);
    y.operands = vec![get(g.yielded, &results)];
    let id = ctx.create_op(y);
    ctx.append_op(block, id);
    region
}

/// `c` with its accesses in body order (the order the body reads them) and its inputs in
/// order of first use, with `inputs` permuted to match: the order the op's operands and
/// the custom form's input types have, so that what is built prints and reads back as
/// the same model whatever order the model was assembled in.
pub fn in_body_order(c: &TeCompute, inputs: &[Value]) -> (TeCompute, Vec<Value>) {
    let mut order = Vec::new();
    c.body.for_each_access(&mut |i| {
        if !order.contains(&i) {
            order.push(i);
        }
    });
    // Accesses the body never reads (ill-formed; the verifier reports them) keep their place
    // at the end.
    let unread: Vec<usize> = (0..c.accesses.len())
        .filter(|i| !order.contains(i))
        .collect();
    order.extend(unread);
    let mut new_access = vec![0; c.accesses.len()];
    for (new, &old) in order.iter().enumerate() {
        new_access[old] = new;
    }
    let mut input_order: Vec<usize> = Vec::new();
    for &old in &order {
        let inp = c.accesses[old].input;
        if !input_order.contains(&inp) {
            input_order.push(inp);
        }
    }
    let unused: Vec<usize> = (0..c.inputs.len())
        .filter(|i| !input_order.contains(i))
        .collect();
    input_order.extend(unused);
    let mut new_input = vec![0; c.inputs.len()];
    for (new, &old) in input_order.iter().enumerate() {
        new_input[old] = new;
    }
    let mut out = c.clone();
    out.inputs = input_order.iter().map(|&i| c.inputs[i].clone()).collect();
    out.accesses = order
        .iter()
        .map(|&i| {
            let mut a = c.accesses[i].clone();
            a.input = new_input[a.input];
            a
        })
        .collect();
    out.body = renumber_accesses(&c.body, &new_access);
    let values = input_order.iter().map(|&i| inputs[i]).collect();
    (out, values)
}

fn renumber_accesses(e: &Expr, map: &[usize]) -> Expr {
    let r = |x: &Expr| Box::new(renumber_accesses(x, map));
    match e {
        Expr::Access(i) => Expr::Access(map[*i]),
        Expr::Const(v, t) => Expr::Const(*v, *t),
        Expr::Binary(op, a, b) => Expr::Binary(*op, r(a), r(b)),
        Expr::Unary(op, a) => Expr::Unary(*op, r(a)),
        Expr::Cmp(op, a, b) => Expr::Cmp(*op, r(a), r(b)),
        Expr::Select(c, a, b) => Expr::Select(r(c), r(a), r(b)),
        Expr::Cast(t, a) => Expr::Cast(*t, r(a)),
    }
}

/// The operation state of a compute reading `inputs` (one value per
/// [`TeCompute::inputs`] entry); the caller sets location/span and creates it. The op
/// holds the model [`in_body_order`].
pub fn build_compute_op(ctx: &mut Context, c: &TeCompute, inputs: &[Value]) -> OperationState {
    let (c, inputs) = in_body_order(c, inputs);
    let c = &c;
    let mut st = OperationState::new(COMPUTE);
    st.operands = c.accesses.iter().map(|a| inputs[a.input]).collect();
    st.result_types = vec![c.result.to_type()];
    for a in compute_attrs(c) {
        st.add_attribute(a.name, a.value);
    }
    st.regions = vec![build_body_region(ctx, c)];
    st
}

fn strings(a: Option<&Attribute>, what: &str) -> Result<Vec<String>, String> {
    a.and_then(|a| a.as_array())
        .ok_or_else(|| format!("expected `{what}` to be an array of strings"))?
        .iter()
        .map(|x| {
            x.as_str()
                .map(str::to_string)
                .ok_or_else(|| format!("expected `{what}` to be an array of strings"))
        })
        .collect()
}

fn read_body(ctx: &Context, block: BlockId, args: &[Value]) -> Result<GenericBody, String> {
    let mut ops = Vec::new();
    let mut results: Vec<Value> = Vec::new();
    let lookup = |v: Value, results: &Vec<Value>| -> Result<BodyValue, String> {
        if let Some(i) = args.iter().position(|&a| a == v) {
            return Ok(BodyValue::Arg(i));
        }
        results
            .iter()
            .position(|&r| r == v)
            .map(BodyValue::Op)
            .ok_or_else(|| "te.compute bodies may only use values defined inside them".to_string())
    };
    let mut yielded = None;
    for op in ctx.block_ops(block) {
        let name = ctx.op_name(op);
        if name == YIELD {
            let ops_ = ctx.operands(op);
            if ops_.len() != 1 {
                return Err(format!("te.yield takes one value, got {}", ops_.len()));
            }
            yielded = Some(lookup(ops_[0], &results)?);
            continue;
        }
        if yielded.is_some() {
            return Err("te.yield must be the last operation of the body".into());
        }
        let iname = intern_op_name(name)
            .ok_or_else(|| format!("`{name}` is not allowed in a te.compute body"))?;
        let res = ctx.results(op);
        if res.len() != 1 {
            return Err(format!(
                "`{name}` in a te.compute body must have one result"
            ));
        }
        let result = ElemType::from_type(ctx.value_type(res[0]))
            .ok_or_else(|| format!("`{name}` has an unsupported result type"))?;
        let attr = match iname {
            "arith.constant" => {
                let a = ctx
                    .inherent_attr(op, "value")
                    .and_then(scalar_of)
                    .ok_or("arith.constant needs a scalar `value`")?;
                Some(BodyAttr::Value(a, result))
            }
            "arith.cmpf" | "arith.cmpi" => Some(BodyAttr::Predicate(
                ctx.inherent_attr(op, "predicate")
                    .and_then(|a| a.as_int())
                    .ok_or_else(|| format!("`{iname}` needs an integer `predicate`"))?,
            )),
            _ => None,
        };
        let operands = ctx
            .operands(op)
            .iter()
            .map(|&v| lookup(v, &results))
            .collect::<Result<Vec<_>, _>>()?;
        ops.push(BodyOp {
            name: iname,
            operands,
            result,
            attr,
        });
        results.push(res[0]);
    }
    Ok(GenericBody {
        ops,
        yielded: yielded.ok_or("the te.compute body must end with te.yield")?,
    })
}

/// Reads a `te.compute` op back into the model, with the distinct input values in order
/// of first use (`model.inputs[i]` is the type of `values[i]`).
pub fn compute_from_op(ctx: &Context, op: OpId) -> Result<(TeCompute, Vec<Value>), String> {
    let attr = |n: &str| ctx.inherent_attr(op, n);
    let domain = attr("domain")
        .and_then(|a| a.as_dense_ints())
        .ok_or("expected `domain = array<i64: ...>`")?
        .to_vec();
    let iters = strings(attr("iterator_types"), "iterator_types")?;
    if iters.len() != domain.len() {
        return Err(format!(
            "{} iterator_types for a domain of {} axes",
            iters.len(),
            domain.len()
        ));
    }
    let names = match attr("axis_names") {
        Some(a) => strings(Some(a), "axis_names")?,
        None => (0..domain.len()).map(|i| format!("d{i}")).collect(),
    };
    if names.len() != domain.len() {
        return Err(format!(
            "{} axis_names for {} axes",
            names.len(),
            domain.len()
        ));
    }
    let mut axes = Vec::new();
    for ((n, &e), k) in names.iter().zip(&domain).zip(&iters) {
        let kind = match k.as_str() {
            "parallel" => AxisKind::Parallel,
            "reduction" => AxisKind::Reduction,
            other => return Err(format!("unknown iterator type `{other}`")),
        };
        axes.push(Axis {
            name: n.clone(),
            extent: e,
            kind,
        });
    }
    let operands = ctx.operands(op);
    let maps: Vec<AffineMap> = attr("indexing_maps")
        .and_then(|a| a.as_array())
        .ok_or("expected `indexing_maps = [affine_map<...>, ...]`")?
        .iter()
        .map(|m| {
            m.as_affine_map()
                .cloned()
                .ok_or("indexing_maps must hold affine maps")
        })
        .collect::<Result<_, _>>()?;
    if maps.len() != operands.len() + 1 {
        return Err(format!(
            "{} indexing_maps for {} operands and one result",
            maps.len(),
            operands.len()
        ));
    }
    let pads: Vec<Option<f64>> = match attr("pad_values") {
        None => vec![None; operands.len()],
        Some(a) => {
            let v = a.as_array().ok_or("pad_values must be an array")?;
            if v.len() != operands.len() {
                return Err(format!(
                    "{} pad_values for {} operands",
                    v.len(),
                    operands.len()
                ));
            }
            v.iter()
                .map(|x| match x.kind() {
                    AttrKind::Unit => Ok(None),
                    _ => scalar_of(x)
                        .map(Some)
                        .ok_or("pad_values entries are numbers or unit"),
                })
                .collect::<Result<_, _>>()?
        }
    };
    let mut values: Vec<Value> = Vec::new();
    let mut inputs: Vec<TensorType> = Vec::new();
    let mut accesses = Vec::new();
    for (i, &v) in operands.iter().enumerate() {
        let input = match values.iter().position(|&x| x == v) {
            Some(k) => k,
            None => {
                let t = TensorType::from_type(ctx.value_type(v)).ok_or_else(|| {
                    format!(
                        "operand #{i} must be a static tensor of f32, f16, bf16, f64, i32, i8 or i1"
                    )
                })?;
                values.push(v);
                inputs.push(t);
                values.len() - 1
            }
        };
        accesses.push(Access {
            input,
            map: maps[i].clone(),
            pad: pads[i],
        });
    }
    let results = ctx.results(op);
    let [res] = results else {
        return Err("te.compute has one result".into());
    };
    let result = TensorType::from_type(ctx.value_type(*res))
        .ok_or("the result must be a static tensor of a te element type")?;
    let combiner = match attr("combiner") {
        None => None,
        Some(a) => Some(
            a.as_str()
                .and_then(Combiner::from_keyword)
                .ok_or("combiner must be \"sum\", \"max\", \"min\" or \"prod\"")?,
        ),
    };
    let may_pad = match attr("may_pad") {
        None => None,
        Some(a) => Some(MayPad {
            value: scalar_of(a).ok_or("may_pad must be a number")?,
        }),
    };
    let accumulator = match attr("accumulator") {
        None => None,
        Some(a) => Some(
            a.as_type()
                .and_then(ElemType::from_type)
                .ok_or("accumulator must be a te element type (`accumulator = f32`)")?,
        ),
    };
    let padded_from = match attr("padded_from") {
        None => None,
        Some(a) => Some(
            a.as_dense_ints()
                .ok_or("padded_from must be array<i64: ...>")?
                .to_vec(),
        ),
    };
    let regions = ctx.regions(op);
    let block = regions
        .first()
        .and_then(|r| ctx.region_blocks(*r).first().copied())
        .ok_or("te.compute needs a body region with one block")?;
    if regions.len() != 1 || ctx.region_blocks(regions[0]).len() != 1 {
        return Err("te.compute has exactly one region with one block".into());
    }
    let args = ctx.block_args(block).to_vec();
    if args.len() != operands.len() {
        return Err(format!(
            "the body has {} arguments for {} operands",
            args.len(),
            operands.len()
        ));
    }
    let mut tys = Vec::new();
    for (i, (&a, acc)) in args.iter().zip(&accesses).enumerate() {
        let t = ElemType::from_type(ctx.value_type(a));
        if t != Some(inputs[acc.input].elem) {
            return Err(format!(
                "body argument #{i} must have operand #{i}'s element type {}",
                inputs[acc.input].elem.keyword()
            ));
        }
        tys.push(inputs[acc.input].elem);
    }
    let g = read_body(ctx, block, &args)?;
    let body = ops_to_body(&g, &tys)?;
    // The result map must be the projection onto the parallel axes.
    let c = TeCompute {
        axes,
        inputs,
        accesses,
        body,
        combiner,
        result,
        may_pad,
        padded_from,
        accumulator,
    };
    if maps[operands.len()] != c.result_map() {
        return Err(
            "the result's indexing map must be (d0, ..) -> (d0, .., dP-1) over the parallel axes"
                .into(),
        );
    }
    Ok((c, values))
}

/// The type of the op's result as a builtin type (for custom parsers).
pub fn result_type(c: &TeCompute) -> Type {
    c.result.to_type()
}
