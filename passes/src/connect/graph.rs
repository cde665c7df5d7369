//! The operator graph Welder schedules (§3.1): the te computes and tensor reshapes of one
//! function body, in program (topological) order, each input a read through an index map.
//!
//! The index maps are reduced to what tile propagation needs: per input dimension, the
//! affine form of `construct_rtile` ([`AffineIndex`], strides, offsets and `floordiv` by a
//! constant), `mod` by a constant around it, or "not analysable" (the conservative bound of
//! §3.1: the whole dimension).

use std::collections::HashMap;

use rtile::ir::affine::AffineExpr;
use rtile::ir::{Context, OpId, Value};
use rtile_dialects::te::ir::{COMPUTE, compute_from_op};
use rtile_dialects::te::model::{AxisKind, TeCompute, TensorType};
use rtile_dialects::tensor::{COLLAPSE, EXPAND, reassociation_of};

use crate::construct_rtile::expr_info::AffineIndex;

/// How one input dimension's index depends on the node's iteration domain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DimIndex {
    /// `⌊(Σ c·axis + k) / d⌋`.
    Affine(AffineIndex),
    /// `(⌊(Σ c·axis + k) / d⌋) mod m`.
    Mod(AffineIndex, u64),
    /// Not analysable (symbols, `ceildiv`, nested non-linear forms): bounded by the whole
    /// dimension (§3.1 "a conservative upper bound").
    Unknown,
}

/// One input of a node: a read of an SSA value through one index per dimension.
#[derive(Clone, Debug)]
pub struct Input {
    /// The value read.
    pub value: Value,
    /// The graph node producing it (`None`: a function argument or a non-graph op).
    pub producer: Option<usize>,
    /// Its shape.
    pub shape: Vec<u64>,
    /// Bytes per element.
    pub elem_bytes: u64,
    /// One index per dimension of `shape`.
    pub index: Vec<DimIndex>,
}

/// One operator: a te compute or a reshape (a view: no arithmetic).
#[derive(Clone, Debug)]
pub struct Node {
    /// The op.
    pub op: OpId,
    /// Iteration domain: a compute's axes (parallel, then reduction), a reshape's result.
    pub domain: Vec<u64>,
    /// Number of parallel (output) dims: the first `num_parallel` of `domain`.
    pub num_parallel: usize,
    /// One per operand of the op.
    pub inputs: Vec<Input>,
    /// Result shape (= the parallel extents).
    pub out_shape: Vec<u64>,
    /// Bytes per result element.
    pub out_bytes: u64,
    /// Arithmetic per domain point (0 for a reshape).
    pub flops_per_point: f64,
    /// Its result value.
    pub result: Value,
    /// The result's element type (`f32`, ...).
    pub dtype: String,
    /// The element type its arithmetic runs in, whose SIMT peak bounds it: the
    /// accumulator's when the compute names one (`acc(f32)`), else the result's.
    pub compute_dtype: String,
    /// A compute's te form and the values of its distinct inputs (`compute_from_op`'s;
    /// `None` for a reshape): what `--connect` hands the lowering to ask whether a
    /// candidate kernel fits ([`super::fit`]).
    pub compute: Option<(TeCompute, Vec<Value>)>,
}

impl Node {
    /// The reduction dims of the domain.
    pub fn reduction_dims(&self) -> std::ops::Range<usize> {
        self.num_parallel..self.domain.len()
    }
}

/// The graph of one function body.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    /// Nodes in program order (a topological order).
    pub nodes: Vec<Node>,
    /// Per node, its consumers in the graph: `(node, input)`.
    pub consumers: Vec<Vec<(usize, usize)>>,
    /// Per node, whether an op outside the graph (e.g. `func.return`) uses its result, or
    /// nothing does (a dead result is still a sink of the graph).
    pub external_use: Vec<bool>,
}

fn bytes_of(t: &TensorType) -> u64 {
    u64::from(t.elem.width().div_ceil(8))
}

fn shape_of(t: &TensorType) -> Vec<u64> {
    t.shape.iter().map(|&d| d.max(0) as u64).collect()
}

/// The index form of one access dimension.
fn dim_index(e: &AffineExpr, dims: usize) -> DimIndex {
    let affine = |e: &AffineExpr| -> Option<AffineIndex> {
        let (inner, div) = match e {
            AffineExpr::FloorDiv(a, b) => match **b {
                AffineExpr::Constant(d) if d > 0 => (a.as_ref(), d as u64),
                _ => return None,
            },
            _ => (e, 1),
        };
        let (coeffs, k) = inner.linear_form(dims)?;
        let terms: Vec<(usize, i64)> = coeffs
            .into_iter()
            .enumerate()
            .filter(|(_, c)| *c != 0)
            .collect();
        Some(AffineIndex::floor_div(&terms, k, div))
    };
    if let AffineExpr::Mod(a, b) = e
        && let AffineExpr::Constant(m) = **b
        && m > 0
        && let Some(i) = affine(a)
    {
        return DimIndex::Mod(i, m as u64);
    }
    affine(e).map_or(DimIndex::Unknown, DimIndex::Affine)
}

/// A reshape's reads: for a collapse, input dim `k` of group `r` is
/// `(r floordiv stride_k) mod size_k`; for an expand, the input dim of group `g` is
/// `Σ stride_j · r_j` (row-major).
fn reshape_index(
    expand: bool,
    groups: &[Vec<usize>],
    in_shape: &[u64],
    out_shape: &[u64],
) -> Vec<DimIndex> {
    if expand {
        return groups
            .iter()
            .map(|g| {
                let mut stride = 1i64;
                let mut terms = Vec::new();
                for &j in g.iter().rev() {
                    terms.push((j, stride));
                    stride *= out_shape[j] as i64;
                }
                DimIndex::Affine(AffineIndex::affine(&terms, 0))
            })
            .collect();
    }
    let mut idx = vec![DimIndex::Unknown; in_shape.len()];
    for (r, g) in groups.iter().enumerate() {
        let mut stride = 1u64;
        for &k in g.iter().rev() {
            let base = AffineIndex::floor_div(&[(r, 1)], 0, stride);
            idx[k] = if k == g[0] {
                DimIndex::Affine(base)
            } else {
                DimIndex::Mod(base, in_shape[k])
            };
            stride *= in_shape[k];
        }
    }
    idx
}

/// Builds the graph of the te computes and reshapes among `ops` (one function body, in
/// order); other ops are left out (their uses of node results count as external uses).
/// A compute the te model cannot read is an error with the reason.
pub fn build_graph(ctx: &Context, ops: &[OpId]) -> Result<Graph, String> {
    let mut g = Graph::default();
    let mut by_value: HashMap<Value, usize> = HashMap::new();
    for &op in ops {
        let name = ctx.op_name(op);
        let node = if name == COMPUTE {
            let (c, vals) = compute_from_op(ctx, op)?;
            let operands = ctx.operands(op);
            if operands.len() != c.accesses.len() {
                return Err("a te.compute with one operand per access was expected".into());
            }
            let dims = c.axes.len();
            let inputs = c
                .accesses
                .iter()
                .zip(operands)
                .map(|(a, &v)| Input {
                    value: v,
                    producer: by_value.get(&v).copied(),
                    shape: shape_of(&c.inputs[a.input]),
                    elem_bytes: bytes_of(&c.inputs[a.input]),
                    index: a.map.results.iter().map(|e| dim_index(e, dims)).collect(),
                })
                .collect();
            let np = c
                .axes
                .iter()
                .filter(|a| a.kind == AxisKind::Parallel)
                .count();
            Node {
                op,
                domain: c.extents().iter().map(|&e| e.max(0) as u64).collect(),
                num_parallel: np,
                inputs,
                out_shape: shape_of(&c.result),
                out_bytes: bytes_of(&c.result),
                flops_per_point: crate::construct_rtile::te_adapter::flops_per_point(&c),
                result: ctx.result(op, 0),
                dtype: c.result.elem.keyword().to_string(),
                compute_dtype: crate::construct_rtile::te_adapter::compute_elem(&c)
                    .keyword()
                    .to_string(),
                compute: Some((c, vals)),
            }
        } else if name == COLLAPSE || name == EXPAND {
            let src = ctx.operands(op)[0];
            let res = ctx.result(op, 0);
            let (Some(st), Some(rt)) = (
                TensorType::from_type(ctx.value_type(src)),
                TensorType::from_type(ctx.value_type(res)),
            ) else {
                return Err(format!("'{name}' of a non-static tensor"));
            };
            let groups = ctx
                .inherent_attr(op, "reassociation")
                .and_then(reassociation_of)
                .ok_or_else(|| format!("'{name}' without a reassociation"))?;
            let (is, os) = (shape_of(&st), shape_of(&rt));
            Node {
                op,
                domain: os.clone(),
                num_parallel: os.len(),
                inputs: vec![Input {
                    value: src,
                    producer: by_value.get(&src).copied(),
                    shape: is.clone(),
                    elem_bytes: bytes_of(&st),
                    index: reshape_index(name == EXPAND, &groups, &is, &os),
                }],
                out_shape: os,
                out_bytes: bytes_of(&rt),
                flops_per_point: 0.0,
                result: res,
                dtype: rt.elem.keyword().to_string(),
                compute_dtype: rt.elem.keyword().to_string(),
                compute: None,
            }
        } else {
            continue;
        };
        by_value.insert(node.result, g.nodes.len());
        g.nodes.push(node);
    }
    g.consumers = vec![Vec::new(); g.nodes.len()];
    for (n, node) in g.nodes.iter().enumerate() {
        for (i, inp) in node.inputs.iter().enumerate() {
            if let Some(p) = inp.producer {
                g.consumers[p].push((n, i));
            }
        }
    }
    g.external_use = g
        .nodes
        .iter()
        .map(|n| {
            let uses = ctx.uses(n.result);
            uses.is_empty() || uses.iter().any(|u| !g.nodes.iter().any(|m| m.op == u.op))
        })
        .collect();
    Ok(g)
}
