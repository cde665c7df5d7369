//! Running a `func.func` of te ops on host tensors (the IR side of `rtile-run
//! --interpret`). Supported ops: `te.compute`, `func.return`, `func.call` (to a function
//! in the same module), the pure reshapes `tensor.collapse_shape` /
//! `tensor.expand_shape` that `--axis-fusion` inserts, and tensor `arith.constant`s
//! (`dense<...>` elements, splats, and `dense_resource` blobs of the file's resources).

use std::borrow::Cow;
use std::collections::HashMap;

use rtile::ir::{AttrKind, Context, OpId, TypeKind, Value, dense_values_f64};
use rtile_dialects::te::ir::compute_from_op;
use rtile_dialects::te::model::TensorType;

use crate::interp::{Accumulate, eval_compute_refs};
use crate::tensor::Tensor;

/// The symbol name of a `func.func`.
pub fn func_name(ctx: &Context, op: OpId) -> Option<&str> {
    ctx.inherent_attr(op, "sym_name").and_then(|a| a.as_str())
}

/// The argument types of a `func.func` (from `function_type`, else its entry block).
pub fn func_input_types(ctx: &Context, op: OpId) -> Result<Vec<TensorType>, String> {
    match (ctx
        .inherent_attr(op, "function_type")
        .and_then(|a| a.as_type()))
    .map(|x| x.kind())
    {
        Some(TypeKind::Function { inputs, .. }) => inputs
            .iter()
            .map(|t| {
                TensorType::from_type(t)
                    .ok_or_else(|| "function arguments must be static tensors".to_string())
            })
            .collect(),
        // Without a function_type, the entry block's arguments say the same.
        _ => {
            let block = ctx
                .regions(op)
                .first()
                .and_then(|r| ctx.region_blocks(*r).first().copied())
                .ok_or("func.func without a function_type or a body")?;
            ctx.block_args(block)
                .iter()
                .map(|&v| {
                    TensorType::from_type(ctx.value_type(v))
                        .ok_or_else(|| "function arguments must be static tensors".to_string())
                })
                .collect()
        }
    }
}

/// Finds `func.func @name` among the ops of `module`'s body.
pub fn find_func(ctx: &Context, module: OpId, name: &str) -> Option<OpId> {
    let region = *ctx.regions(module).first()?;
    let block = *ctx.region_blocks(region).first()?;
    ctx.block_ops(block)
        .find(|&op| ctx.op_name(op) == "func.func" && func_name(ctx, op) == Some(name))
}

/// Runs `func` on `args`; `module` resolves `func.call`s. Returns the returned tensors.
pub fn run_func(
    ctx: &Context,
    module: Option<OpId>,
    func: OpId,
    args: Vec<Tensor>,
    mode: Accumulate,
) -> Result<Vec<Tensor>, String> {
    run_func_depth(ctx, module, func, args, mode, 0)
}

fn run_func_depth(
    ctx: &Context,
    module: Option<OpId>,
    func: OpId,
    args: Vec<Tensor>,
    mode: Accumulate,
    depth: usize,
) -> Result<Vec<Tensor>, String> {
    if depth > 64 {
        return Err("func.call nesting deeper than 64 (recursion?)".into());
    }
    let name = func_name(ctx, func).unwrap_or("?").to_string();
    let region = *ctx
        .regions(func)
        .first()
        .ok_or_else(|| format!("@{name} has no body"))?;
    let block = *ctx
        .region_blocks(region)
        .first()
        .ok_or_else(|| format!("@{name} has no body"))?;
    let params = ctx.block_args(block);
    if params.len() != args.len() {
        return Err(format!(
            "@{name} takes {} arguments, got {}",
            params.len(),
            args.len()
        ));
    }
    let mut env: HashMap<Value, Tensor> = HashMap::new();
    for (&p, a) in params.iter().zip(args) {
        env.insert(p, a);
    }
    let get = |env: &HashMap<Value, Tensor>, v: Value| -> Result<Tensor, String> {
        env.get(&v)
            .cloned()
            .ok_or_else(|| format!("@{name}: a value is used before it is computed"))
    };
    for op in ctx.block_ops(block) {
        let opname = ctx.op_name(op);
        match opname {
            "te.compute" => {
                let (c, values) = compute_from_op(ctx, op).map_err(|e| format!("@{name}: {e}"))?;
                let mut ins: Vec<Cow<'_, Tensor>> = Vec::with_capacity(values.len());
                for (&v, want) in values.iter().zip(&c.inputs) {
                    let t = env
                        .get(&v)
                        .ok_or_else(|| format!("@{name}: a value is used before it is computed"))?;
                    // In f64 mode an earlier compute may have produced f64 data for an f32
                    // operand: feed it as the declared type without rounding.
                    ins.push(if t.dtype == want.elem {
                        Cow::Borrowed(t)
                    } else {
                        let mut t = t.clone();
                        t.dtype = want.elem;
                        Cow::Owned(t)
                    });
                }
                let refs: Vec<&Tensor> = ins.iter().map(|t| t.as_ref()).collect();
                let out =
                    eval_compute_refs(&c, &refs, mode).map_err(|e| format!("@{name}: {e}"))?;
                env.insert(ctx.result(op, 0), out);
            }
            "arith.constant" => {
                let t = constant_tensor(ctx, op).map_err(|e| format!("@{name}: {e}"))?;
                env.insert(ctx.result(op, 0), t);
            }
            "tensor.collapse_shape" | "tensor.expand_shape" => {
                let src = get(&env, ctx.operands(op)[0])?;
                let res = ctx.result(op, 0);
                let shape = match ctx.value_type(res).kind() {
                    TypeKind::Tensor { shape, .. } => shape.clone(),
                    _ => return Err(format!("@{name}: {opname} must produce a tensor")),
                };
                let mut t = src;
                t.shape = shape;
                if t.shape.iter().product::<i64>() as usize != t.data.len() {
                    return Err(format!("@{name}: {opname} changes the element count"));
                }
                env.insert(res, t);
            }
            "func.call" => {
                let callee = ctx
                    .inherent_attr(op, "callee")
                    .and_then(|a| a.as_flat_symbol())
                    .ok_or_else(|| format!("@{name}: func.call without a callee"))?;
                let f = module
                    .and_then(|m| find_func(ctx, m, callee))
                    .ok_or_else(|| format!("@{name}: no function @{callee}"))?;
                let ins = ctx
                    .operands(op)
                    .iter()
                    .map(|&v| get(&env, v))
                    .collect::<Result<Vec<_>, _>>()?;
                let outs = run_func_depth(ctx, module, f, ins, mode, depth + 1)?;
                for (&r, t) in ctx.results(op).iter().zip(outs) {
                    env.insert(r, t);
                }
            }
            "func.return" => {
                return ctx.operands(op).iter().map(|&v| get(&env, v)).collect();
            }
            other => return Err(format!("@{name}: the interpreter does not run `{other}`")),
        }
    }
    Err(format!("@{name} does not end with func.return"))
}

/// The value of a tensor `arith.constant`: its `dense<...>` elements or its
/// `dense_resource` blob, as a tensor of the result type.
pub fn constant_tensor(ctx: &Context, op: OpId) -> Result<Tensor, String> {
    let res = ctx
        .results(op)
        .first()
        .ok_or("arith.constant without a result")?;
    let ty = ctx.value_type(*res);
    let tt = TensorType::from_type(ty).ok_or_else(|| {
        format!(
            "the interpreter runs tensor constants of te element types only, not {}",
            rtile::printer::type_to_string(ty)
        )
    })?;
    let value = ctx
        .inherent_attr(op, "value")
        .ok_or("arith.constant without a value")?;
    let data = match value.kind() {
        AttrKind::DenseElements { literal, ty } => dense_values_f64(literal, ty),
        AttrKind::DenseResource { handle, ty } => ctx.resources.blob_f64(handle, ty),
        _ => Err("the constant's value is not dense elements or a dense_resource".into()),
    }
    .map_err(|e| format!("arith.constant: {e}"))?;
    Tensor::from_data(tt.shape, tt.elem, data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtile::dialect::DialectRegistry;
    use rtile::ir::{AttrKind, Attribute, NamedAttribute, OperationState, Type};
    use rtile_dialects::te::expr::{CustomHeader, parse_custom};
    use rtile_dialects::te::ir::build_compute_op;
    use rtile_dialects::te::model::ElemType;
    use std::sync::Arc;

    /// func.func @f(%X: tensor<3x4xf32>) -> tensor<3xf32>:
    ///   %S = te.sum over j of X; %R = relu(%S); call @g(%R); return.
    #[test]
    fn runs_a_chain_with_a_call() {
        let mut ctx = Context::new(Arc::new(DialectRegistry::with_builtin()));
        let f32t = |s: &[i64]| TensorType::new(s.to_vec(), ElemType::F32);
        // @g: identity via te.compute copy.
        let g_block = ctx.create_block(vec![f32t(&[3]).to_type()]);
        let gx = ctx.block_args(g_block)[0];
        let h = CustomHeader {
            parallel: vec!["i".into()],
            reduction: vec![],
            extents: vec![3],
            input_types: vec![f32t(&[3])],
            result: f32t(&[3]),
            may_pad: None,
            padded_from: None,
            accumulator: None,
        };
        let copy = parse_custom(&h, "%Y[%i] * 2.0").expect("parse").compute;
        let st = build_compute_op(&mut ctx, &copy, &[gx]);
        let c = ctx.create_op(st);
        ctx.append_op(g_block, c);
        let mut ret = OperationState::new("func.return");
        ret.operands = vec![ctx.result(c, 0)];
        let r = ctx.create_op(ret);
        ctx.append_op(g_block, r);
        let g_region = ctx.create_region();
        ctx.append_block(g_region, g_block);
        let mut gst = OperationState::new("func.func");
        gst.attributes = vec![
            NamedAttribute {
                name: "function_type".into(),
                value: Attribute::new(AttrKind::Type(Type::function(
                    vec![f32t(&[3]).to_type()],
                    vec![f32t(&[3]).to_type()],
                ))),
            },
            NamedAttribute {
                name: "sym_name".into(),
                value: Attribute::string("g"),
            },
        ];
        gst.regions = vec![g_region];
        let g = ctx.create_op(gst);

        let f_block = ctx.create_block(vec![f32t(&[3, 4]).to_type()]);
        let x = ctx.block_args(f_block)[0];
        let h = CustomHeader {
            parallel: vec!["i".into()],
            reduction: vec!["j".into()],
            extents: vec![3, 4],
            input_types: vec![f32t(&[3, 4])],
            result: f32t(&[3]),
            may_pad: None,
            padded_from: None,
            accumulator: None,
        };
        let sum = parse_custom(&h, "te.sum(%X[%i, %j])")
            .expect("parse")
            .compute;
        let st = build_compute_op(&mut ctx, &sum, &[x]);
        let s = ctx.create_op(st);
        ctx.append_op(f_block, s);
        let mut call = OperationState::new("func.call");
        call.operands = vec![ctx.result(s, 0)];
        call.result_types = vec![f32t(&[3]).to_type()];
        call.attributes = vec![NamedAttribute {
            name: "callee".into(),
            value: Attribute::symbol("g"),
        }];
        let cl = ctx.create_op(call);
        ctx.append_op(f_block, cl);
        let mut ret = OperationState::new("func.return");
        ret.operands = vec![ctx.result(cl, 0)];
        let r = ctx.create_op(ret);
        ctx.append_op(f_block, r);
        let f_region = ctx.create_region();
        ctx.append_block(f_region, f_block);
        let mut fst = OperationState::new("func.func");
        fst.attributes = vec![NamedAttribute {
            name: "sym_name".into(),
            value: Attribute::string("f"),
        }];
        fst.regions = vec![f_region];
        let f = ctx.create_op(fst);

        // A module holding both.
        let m_block = ctx.create_block(vec![]);
        ctx.append_op(m_block, g);
        ctx.append_op(m_block, f);
        let m_region = ctx.create_region();
        ctx.append_block(m_region, m_block);
        let mut mst = OperationState::new("builtin.module");
        mst.regions = vec![m_region];
        let module = ctx.create_op(mst);

        assert_eq!(find_func(&ctx, module, "g"), Some(g));
        assert_eq!(func_input_types(&ctx, g).expect("types"), vec![f32t(&[3])]);
        let x = Tensor::from_data(vec![3, 4], ElemType::F32, (0..12).map(f64::from).collect())
            .expect("tensor");
        let out = run_func(&ctx, Some(module), f, vec![x], Accumulate::F64).expect("runs");
        assert_eq!(out[0].data, vec![12.0, 44.0, 76.0]);
        // The rtile-run driver over the same module.
        let opts = crate::driver::RunOptions {
            func: Some("f".into()),
            seed: 7,
            inputs: vec![],
            mode: Accumulate::F64,
            files: Default::default(),
        };
        let runs = crate::driver::interpret_module(&ctx, module, &opts).expect("driver");
        let report = crate::driver::checksum_report(&runs);
        assert!(
            report.starts_with("@f result 0: tensor<3xf64> sum="),
            "{report}"
        );
        let all = crate::driver::RunOptions { func: None, ..opts };
        assert_eq!(
            crate::driver::interpret_module(&ctx, module, &all)
                .expect("all")
                .len(),
            2
        );
    }
}
