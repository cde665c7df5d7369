//! The graph walk: inputs, topological order, nodes (folded or emitted), outputs.

use super::attrs::ProtoAttrs;
use super::emit::{Emitter, ir_type, sanitize};
use super::tensor::{const_from_tensor, const_type, te_elem, tensor_from_proto};
use super::{ImportError, ImportOptions, Val};
use crate::eval::{const_to_tensor, eval_expansion};
use crate::ops::{self, ConstTensor, Expansion, NodeInfo, OpInput, Src, Step, ValueType};
use crate::proto::{GraphProto, NodeProto, ValueInfoProto, type_proto};
use rtile::ir::{BlockId, Context, Value};
use rtile_dialects::te::model::TensorType;
use rtile_runtime::interp::Accumulate;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

/// A node input's type and, when known at import time, its value.
type InputInfo = Option<(ValueType, Option<Arc<ConstTensor>>)>;

/// The values by ONNX name, and constants already materialised in the IR.
struct Scope {
    vals: HashMap<String, Val>,
    materialized: HashMap<String, Value>,
}

fn model_err(m: impl Into<String>) -> ImportError {
    ImportError::Model(m.into())
}

/// The static type of a graph input from its `ValueInfoProto` and the options.
fn input_type(vi: &ValueInfoProto, opts: &ImportOptions) -> Result<ValueType, ImportError> {
    let name = vi.name();
    let Some(type_proto::Value::TensorType(tt)) = vi.r#type.as_ref().and_then(|t| t.value.as_ref())
    else {
        return Err(model_err(format!("graph input '{name}' is not a tensor")));
    };
    let elem = te_elem(tt.elem_type())
        .map_err(|m| model_err(format!("graph input '{name}': {m}")))?
        .ok_or_else(|| {
            model_err(format!(
                "graph input '{name}' has element type {}: te computes on float, int32, int8 and bool tensors, int64 values must be constants",
                super::tensor::dtype_name(tt.elem_type())
            ))
        })?;
    let given = opts
        .input_shapes
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, s)| s);
    let dims: Vec<Option<i64>> = match &tt.shape {
        Some(s) => s
            .dim
            .iter()
            .map(|d| match d.value {
                Some(crate::proto::tensor_shape_proto::dimension::Value::DimValue(v)) if v > 0 => {
                    Some(v)
                }
                _ => None,
            })
            .collect(),
        None => {
            let s = given.ok_or_else(|| {
                model_err(format!(
                    "graph input '{name}' has no shape: give one with --input-shape {name}=DxDx..."
                ))
            })?;
            return Ok(ValueType {
                shape: s.clone(),
                elem: Some(elem),
            });
        }
    };
    let shape = match given {
        Some(s) => {
            if s.len() != dims.len() || dims.iter().zip(s).any(|(d, &v)| d.is_some_and(|d| d != v)) {
                return Err(model_err(format!(
                    "--input-shape for '{name}' is {s:?}, which does not fit the model's shape {}",
                    dims_text(&dims)
                )));
            }
            s.clone()
        }
        None => dims
            .iter()
            .map(|d| {
                d.ok_or_else(|| {
                    model_err(format!(
                        "graph input '{name}' has the symbolic shape {}: give a static one with --input-shape {name}=DxDx...",
                        dims_text(&dims)
                    ))
                })
            })
            .collect::<Result<_, _>>()?,
    };
    Ok(ValueType {
        shape,
        elem: Some(elem),
    })
}

fn dims_text(dims: &[Option<i64>]) -> String {
    let v: Vec<String> = dims
        .iter()
        .map(|d| d.map_or("?".to_string(), |d| d.to_string()))
        .collect();
    format!("[{}]", v.join(", "))
}

/// The nodes in a topological order: the graph's order where it is one (a node waits
/// only for the producers of its inputs). Undefined inputs and cycles are errors.
fn topo_order(graph: &GraphProto, defined: &HashSet<String>) -> Result<Vec<usize>, ImportError> {
    let mut producer: HashMap<&str, usize> = HashMap::new();
    for (i, n) in graph.node.iter().enumerate() {
        for o in n.output.iter().filter(|o| !o.is_empty()) {
            if defined.contains(o.as_str()) || producer.insert(o, i).is_some() {
                return Err(node_err(
                    i,
                    n,
                    format!("output '{o}' is defined twice in the graph"),
                ));
            }
        }
    }
    let mut waiting: Vec<usize> = vec![0; graph.node.len()];
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); graph.node.len()];
    for (i, n) in graph.node.iter().enumerate() {
        for inp in n.input.iter().filter(|s| !s.is_empty()) {
            match producer.get(inp.as_str()) {
                Some(&p) => {
                    waiting[i] += 1;
                    users[p].push(i);
                }
                None if defined.contains(inp.as_str()) => {}
                None => {
                    return Err(node_err(
                        i,
                        n,
                        format!("input '{inp}' is not defined in the graph"),
                    ));
                }
            }
        }
    }
    let mut ready: BTreeSet<usize> = (0..graph.node.len()).filter(|&i| waiting[i] == 0).collect();
    let mut order = Vec::with_capacity(graph.node.len());
    while let Some(i) = ready.pop_first() {
        order.push(i);
        for &u in &users[i] {
            waiting[u] -= 1;
            if waiting[u] == 0 {
                ready.insert(u);
            }
        }
    }
    if order.len() < graph.node.len() {
        let i = (0..graph.node.len()).find(|&i| waiting[i] > 0).unwrap_or(0);
        return Err(node_err(
            i,
            &graph.node[i],
            "the node is on a cycle of the graph".to_string(),
        ));
    }
    Ok(order)
}

fn node_err(index: usize, n: &NodeProto, message: String) -> ImportError {
    ImportError::Node {
        index,
        name: n.name().to_string(),
        op_type: n.op_type().to_string(),
        message,
    }
}

/// Imports `graph` as `func.func` into `module_block`.
pub(super) fn import_graph(
    ctx: &mut Context,
    module_block: BlockId,
    graph: &GraphProto,
    opset: i64,
    opts: &ImportOptions,
) -> Result<(), ImportError> {
    let mut scope = Scope {
        vals: HashMap::new(),
        materialized: HashMap::new(),
    };
    for t in &graph.initializer {
        let c = tensor_from_proto(t)
            .map_err(|m| model_err(format!("initializer '{}': {m}", t.name())))?;
        scope
            .vals
            .insert(t.name().to_string(), Val::Const(Arc::new(c)));
    }
    if !graph.sparse_initializer.is_empty() {
        return Err(model_err("sparse initializers are not supported"));
    }
    for (n, _) in &opts.input_shapes {
        if !graph
            .input
            .iter()
            .any(|vi| vi.name() == n && !scope.vals.contains_key(n))
        {
            return Err(model_err(format!(
                "--input-shape names '{n}', which is not an input of the graph"
            )));
        }
    }
    let mut arg_types = Vec::new();
    let mut arg_names = Vec::new();
    for vi in graph
        .input
        .iter()
        .filter(|vi| !scope.vals.contains_key(vi.name()))
    {
        let ty = input_type(vi, opts)?;
        if !super::tensor::num_elements(&ty.shape).is_ok_and(|n| n <= super::fold::VALUE_LIMIT) {
            return Err(model_err(format!(
                "graph input '{}' of shape {:?} is too large",
                vi.name(),
                ty.shape
            )));
        }
        arg_types.push(ir_type(&ty).ok_or_else(|| model_err("internal: input type"))?);
        arg_names.push((vi.name().to_string(), ty));
    }
    let fname = match graph.name() {
        "" => "main".to_string(),
        n => sanitize(n),
    };
    let (mut em, f, args) = Emitter::new_func(ctx, module_block, &fname, &arg_types);
    for ((name, ty), v) in arg_names.into_iter().zip(args) {
        scope.vals.insert(name, Val::Dyn(ty, v));
    }
    let defined: HashSet<String> = scope.vals.keys().cloned().collect();
    for i in topo_order(graph, &defined)? {
        let n = &graph.node[i];
        import_node(&mut em, &mut scope, n, opset).map_err(|m| node_err(i, n, m))?;
    }
    let mut results = Vec::new();
    for o in &graph.output {
        let v = use_value(&mut em, &mut scope, o.name(), o.name())
            .map_err(|m| model_err(format!("graph output '{}': {m}", o.name())))?;
        results.push(v);
    }
    em.finish(f, &results);
    Ok(())
}

/// The SSA value of the graph value `name`, materialising a constant on first use.
fn use_value(em: &mut Emitter, scope: &mut Scope, name: &str, hint: &str) -> Result<Value, String> {
    if let Some(&v) = scope.materialized.get(name) {
        return Ok(v);
    }
    match scope.vals.get(name) {
        None => Err(format!("'{name}' is not defined")),
        Some(Val::Dyn(_, v)) => Ok(*v),
        Some(Val::Const(c)) => {
            let c = c.clone();
            let v = materialize(em, &c, hint)?;
            scope.materialized.insert(name.to_string(), v);
            Ok(v)
        }
    }
}

fn materialize(em: &mut Emitter, c: &ConstTensor, hint: &str) -> Result<Value, String> {
    let elem = const_type(c).elem.ok_or_else(|| {
        format!(
            "the constant '{hint}' of element type {} would be tensor data: te computes on float, int32, int8 and bool tensors, int64 only as folded shape values",
            super::tensor::dtype_name(super::tensor::data_dtype(&c.data))
        )
    })?;
    if c.shape.iter().any(|&d| d <= 0) {
        return Err(format!(
            "the constant '{hint}' has no elements (shape {:?})",
            c.shape
        ));
    }
    Ok(em.constant(c, elem, hint))
}

/// Folds or emits one node; `Err` is the message (the caller names the node).
fn import_node(
    em: &mut Emitter,
    scope: &mut Scope,
    n: &NodeProto,
    opset: i64,
) -> Result<(), String> {
    if !matches!(n.domain(), "" | "ai.onnx") {
        return Err(format!(
            "operators of domain '{}' are not supported",
            n.domain()
        ));
    }
    let mut types: Vec<InputInfo> = Vec::new();
    for name in &n.input {
        types.push(match name.as_str() {
            "" => None,
            s => Some(match scope.vals.get(s) {
                Some(Val::Const(c)) => (const_type(c), Some(c.clone())),
                Some(Val::Dyn(t, _)) => (t.clone(), None),
                None => return Err(format!("input '{s}' is not defined")),
            }),
        });
    }
    let inputs: Vec<Option<OpInput>> = types
        .iter()
        .map(|t| {
            t.as_ref().map(|(ty, v)| OpInput {
                ty,
                value: v.as_deref(),
            })
        })
        .collect();
    let info = NodeInfo {
        op_type: n.op_type(),
        opset,
        num_outputs: n.output.len(),
    };
    let attrs = ProtoAttrs(&n.attribute);
    let all_const = inputs.iter().flatten().all(|i| i.value.is_some());
    if all_const && let Some(r) = super::fold::fold(info, &inputs, &attrs) {
        let outs = r.map_err(|e| e.0)?;
        return bind_consts(scope, n, outs);
    }
    let exp = ops::expand(info, &inputs, &attrs)
        .ok_or_else(|| format!("the operator {} is not supported", n.op_type()))?
        .map_err(|e| e.0)?;
    if exp.outputs.len() < n.output.iter().filter(|o| !o.is_empty()).count() {
        return Err(format!(
            "the expansion has {} outputs, the node declares {}",
            exp.outputs.len(),
            n.output.len()
        ));
    }
    super::fold::check_sizes(&exp, super::fold::VALUE_LIMIT)?;
    // A node of constants is folded unless a value is too large to hold at import time;
    // then its stages run with the model.
    if all_const
        && !exp.steps.is_empty()
        && super::fold::check_sizes(&exp, super::fold::FOLD_LIMIT).is_ok()
    {
        // Inputs te cannot hold (int64 axes, shapes) are read by the expansion as
        // constants only; a step that reads one is an error of the expansion.
        let tensors: Vec<Option<_>> = inputs
            .iter()
            .map(|i| i.and_then(|i| i.value.and_then(const_to_tensor)))
            .collect();
        let reads_missing = exp.steps.iter().any(|s| {
            let srcs: Vec<ops::Src> = match s {
                ops::Step::Compute { operands, .. } => operands.clone(),
                ops::Step::Reshape { src, .. } => vec![*src],
            };
            srcs.iter().any(|&src| {
                matches!(src, ops::Src::Input(k) if tensors.get(k).is_none_or(|t| t.is_none()))
            })
        });
        if reads_missing {
            return Err(
                "cannot fold the node: a te stage reads an input that is not a float, int32, int8 or bool tensor"
                    .to_string(),
            );
        }
        let outs = eval_expansion(&exp, &tensors, Accumulate::Native)
            .map_err(|m| format!("folding the node failed: {m}"))?;
        let outs = outs
            .iter()
            .map(const_from_tensor)
            .collect::<Result<Vec<_>, _>>()?;
        return bind_consts(scope, n, outs);
    }
    emit_expansion(em, scope, n, &exp, &types)
}

fn bind_consts(scope: &mut Scope, n: &NodeProto, outs: Vec<ConstTensor>) -> Result<(), String> {
    for (name, c) in n.output.iter().zip(outs) {
        if !name.is_empty() {
            scope.vals.insert(name.clone(), Val::Const(Arc::new(c)));
        }
    }
    Ok(())
}

/// Emits the steps of `exp` and binds the node's outputs.
fn emit_expansion(
    em: &mut Emitter,
    scope: &mut Scope,
    n: &NodeProto,
    exp: &Expansion,
    types: &[InputInfo],
) -> Result<(), String> {
    let base = match n.name() {
        "" => n.output.first().map(String::as_str).unwrap_or("const"),
        s => s,
    };
    let mut consts: HashMap<usize, Value> = HashMap::new();
    let mut steps: Vec<(Value, TensorType)> = Vec::new();
    let mut get = |em: &mut Emitter,
                   scope: &mut Scope,
                   src: Src,
                   steps: &[(Value, TensorType)]|
     -> Result<(Value, TensorType), String> {
        match src {
            Src::Input(i) => {
                let name = n
                    .input
                    .get(i)
                    .filter(|s| !s.is_empty())
                    .ok_or_else(|| format!("input {i} is absent"))?;
                let (ty, _) = types
                    .get(i)
                    .and_then(|t| t.as_ref())
                    .ok_or_else(|| format!("input {i} is absent"))?;
                let v = use_value(em, scope, name, name)?;
                let tt = TensorType::new(
                    ty.shape.clone(),
                    ty.elem
                        .ok_or_else(|| format!("input '{name}' is not te data"))?,
                );
                Ok((v, tt))
            }
            Src::Const(i) => {
                let c = exp
                    .consts
                    .get(i)
                    .ok_or_else(|| format!("internal: constant {i} missing"))?;
                let v = match consts.get(&i) {
                    Some(&v) => v,
                    None => {
                        let v = materialize(em, c, &format!("{base}_c{i}"))?;
                        consts.insert(i, v);
                        v
                    }
                };
                let elem = const_type(c).elem.ok_or("internal: constant type")?;
                Ok((v, TensorType::new(c.shape.clone(), elem)))
            }
            Src::Step(i) => steps
                .get(i)
                .cloned()
                .ok_or_else(|| format!("internal: step {i} used before it is built")),
        }
    };
    for step in &exp.steps {
        let out = match step {
            Step::Compute { compute, operands } => {
                let mut vals = Vec::new();
                for (k, &s) in operands.iter().enumerate() {
                    let (v, t) = get(em, scope, s, &steps)?;
                    if compute.inputs.get(k) != Some(&t) {
                        return Err(format!(
                            "internal: operand {k} of a stage is {}, the stage reads {:?}",
                            t.text(),
                            compute.inputs.get(k).map(|t| t.text())
                        ));
                    }
                    vals.push(v);
                }
                (em.compute(compute, &vals), compute.result.clone())
            }
            Step::Reshape { src, shape } => {
                let (v, t) = get(em, scope, *src, &steps)?;
                if super::tensor::num_elements(shape)? as i64 != t.num_elements() {
                    return Err(format!("internal: reshape of {} to {shape:?}", t.text()));
                }
                (
                    em.reshape(v, &t, shape),
                    TensorType::new(shape.clone(), t.elem),
                )
            }
        };
        steps.push(out);
    }
    for (name, &src) in n.output.iter().zip(&exp.outputs) {
        if name.is_empty() {
            continue;
        }
        let val = match src {
            Src::Const(i) => Val::Const(Arc::new(
                exp.consts
                    .get(i)
                    .cloned()
                    .ok_or("internal: constant missing")?,
            )),
            Src::Input(i) => {
                let iname = n.input.get(i).ok_or("internal: input missing")?;
                scope
                    .vals
                    .get(iname)
                    .cloned()
                    .ok_or("internal: input missing")?
            }
            Src::Step(i) => {
                let (v, t) = steps.get(i).cloned().ok_or("internal: step missing")?;
                Val::Dyn(
                    ValueType {
                        shape: t.shape,
                        elem: Some(t.elem),
                    },
                    v,
                )
            }
        };
        scope.vals.insert(name.clone(), val);
    }
    Ok(())
}
