//! Building the IR of an imported graph: the function, `te.compute`s, reshapes and
//! `arith.constant dense_resource<...>` constants with their blobs.

use super::tensor::data_bytes;
use crate::ops::{ConstTensor, ValueType};
use rtile::ir::affine::{AffineExpr, AffineMap};
use rtile::ir::attributes::{DenseLiteral, FloatBits};
use rtile::ir::{
    AttrKind, Attribute, BlockId, Builder, Context, OpId, OperationState, ResourceGroup,
    ResourceValue, Type, Value,
};
use rtile_dialects::te::ir::build_compute_op;
use rtile_dialects::te::model::{Access, Axis, AxisKind, ElemType, Expr, TeCompute, TensorType};
use std::collections::HashSet;

/// The function being built and the resource handles taken so far.
pub struct Emitter<'c> {
    pub b: Builder<'c>,
    handles: HashSet<String>,
}

/// A resource handle from an ONNX name: letters, digits and `_` kept, others become `_`,
/// a leading digit gets a `_` in front (so the handle prints as a bare keyword).
pub fn sanitize(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    s
}

/// A builtin `builtin.module` holding one block, and that block.
pub fn new_module(ctx: &mut Context) -> (OpId, BlockId) {
    let mut state = OperationState::new("builtin.module");
    let region = ctx.create_region();
    let block = ctx.create_block(Vec::new());
    ctx.append_block(region, block);
    state.regions.push(region);
    (ctx.create_op(state), block)
}

/// The builtin type of a te value type (`None` when te holds no such elements).
pub fn ir_type(t: &ValueType) -> Option<Type> {
    Some(TensorType::new(t.shape.clone(), t.elem?).to_type())
}

impl<'c> Emitter<'c> {
    /// Builds `func.func @name(args) -> results` in `module_block`; returns the emitter
    /// positioned in the entry block, and the function's arguments.
    pub fn new_func(
        ctx: &'c mut Context,
        module_block: BlockId,
        name: &str,
        args: &[Type],
    ) -> (Emitter<'c>, OpId, Vec<Value>) {
        let mut b = Builder::at_end(ctx, module_block);
        let f = b
            .op("func.func")
            .property(
                "function_type",
                Attribute::new(AttrKind::Type(Type::function(args.to_vec(), vec![]))),
            )
            .property("sym_name", Attribute::string(name))
            .regions(1)
            .build();
        let entry = b.create_block_in(b.ctx().regions(f)[0], args);
        let vals = b.ctx().block_args(entry).to_vec();
        (
            Emitter {
                b,
                handles: HashSet::new(),
            },
            f,
            vals,
        )
    }

    /// Ends the function with `func.return` and sets its result types.
    pub fn finish(mut self, f: OpId, results: &[Value]) {
        let tys: Vec<Type> = results
            .iter()
            .map(|&v| *self.b.ctx().value_type(v))
            .collect();
        let args: Vec<Type> = match self
            .b
            .ctx()
            .inherent_attr(f, "function_type")
            .and_then(|a| a.as_type().copied())
            .map(|t| t.kind().clone())
        {
            Some(rtile::ir::TypeKind::Function { inputs, .. }) => inputs.clone(),
            _ => Vec::new(),
        };
        self.b.op("func.return").operands(results).build();
        let ctx = self.b.ctx_mut();
        let data = ctx.op_mut(f);
        let mut props: Vec<rtile::ir::NamedAttribute> = data
            .properties
            .as_ref()
            .and_then(|p| p.as_dictionary())
            .map(<[_]>::to_vec)
            .unwrap_or_default();
        props.retain(|a| a.name.as_str() != "function_type");
        props.push(rtile::ir::NamedAttribute {
            name: "function_type".into(),
            value: Attribute::new(AttrKind::Type(Type::function(args, tys))),
        });
        data.properties = Some(Attribute::dictionary(props));
    }

    /// A fresh handle for a blob named after `hint`.
    fn handle(&mut self, hint: &str) -> String {
        let base = sanitize(hint);
        let mut h = base.clone();
        let mut k = 1;
        while self.handles.contains(&h) {
            h = format!("{base}_{k}");
            k += 1;
        }
        self.handles.insert(h.clone());
        h
    }

    /// `arith.constant dense_resource<handle> : tensor<...>` holding `c`, its blob in
    /// the context's builtin `dialect_resources`; `arith.constant dense<v>` when every
    /// element is `v`.
    pub fn constant(&mut self, c: &ConstTensor, elem: ElemType, hint: &str) -> Value {
        let ty = TensorType::new(c.shape.clone(), elem).to_type();
        let (bytes, align) = data_bytes(&c.data);
        // All elements alike (a scalar, a ConstantOfShape fill): a `dense<v>` splat.
        let w = align as usize;
        if !bytes.is_empty() && bytes.chunks_exact(w).all(|ch| ch == &bytes[..w]) {
            let v = super::tensor::data_f64(&c.data)[0];
            let literal = if elem.is_float() {
                DenseLiteral::Float(FloatBits::new(v))
            } else if elem == ElemType::I1 {
                DenseLiteral::Bool(v != 0.0)
            } else {
                DenseLiteral::Int(v as i128)
            };
            return self
                .b
                .op("arith.constant")
                .property(
                    "value",
                    Attribute::new(AttrKind::DenseElements { literal, ty }),
                )
                .result(ty)
                .value();
        }
        let handle = self.handle(hint);
        let mut hex = String::with_capacity(10 + 2 * bytes.len());
        hex.push_str("0x");
        for b in align.to_le_bytes().iter().chain(&bytes) {
            hex.push_str(&format!("{b:02X}"));
        }
        let res = &mut self.b.ctx_mut().resources.dialect;
        let group = match res.iter().position(|g| g.owner == "builtin") {
            Some(i) => &mut res[i],
            None => {
                res.push(ResourceGroup {
                    owner: "builtin".into(),
                    entries: Vec::new(),
                });
                res.last_mut().expect("just pushed")
            }
        };
        group
            .entries
            .push((handle.clone(), ResourceValue::String(hex)));
        self.b
            .op("arith.constant")
            .property(
                "value",
                Attribute::new(AttrKind::DenseResource { handle, ty }),
            )
            .result(ty)
            .value()
    }

    /// A `te.compute` of `c` over `operands`.
    pub fn compute(&mut self, c: &TeCompute, operands: &[Value]) -> Value {
        let st = build_compute_op(self.b.ctx_mut(), c, operands);
        let op = self.b.create(st);
        self.b.ctx().results(op)[0]
    }

    /// `v` (of type `from`) under the row-major shape `to`: nothing when the shapes
    /// agree, `tensor.collapse_shape` / `tensor.expand_shape` when the new shape merges
    /// or splits contiguous dims, else a te copy with `floordiv`/`mod` indices.
    pub fn reshape(&mut self, v: Value, from: &TensorType, to: &[i64]) -> Value {
        if from.shape == to {
            return v;
        }
        let result = TensorType::new(to.to_vec(), from.elem);
        let (expand, big, small) = if to.len() > from.shape.len() {
            (true, to, &from.shape[..])
        } else {
            (false, &from.shape[..], to)
        };
        if let Some(groups) = reassociation(big, small) {
            let st = rtile_dialects::tensor::reshape_state(expand, v, result.to_type(), &groups);
            let op = self.b.create(st);
            return self.b.ctx().results(op)[0];
        }
        let c = reshape_copy(from, to);
        self.compute(&c, &[v])
    }
}

/// The groups of `big`'s dims whose products are `small`'s dims, in order, when
/// `small` is `big` with contiguous dims merged (trailing 1s join the last group).
pub fn reassociation(big: &[i64], small: &[i64]) -> Option<Vec<Vec<usize>>> {
    if small.is_empty() || big.len() == small.len() {
        return None;
    }
    let mut groups = Vec::with_capacity(small.len());
    let mut i = 0;
    for &d in small {
        let mut g = vec![];
        let mut p = 1i64;
        loop {
            let &b = big.get(i)?;
            p = p.checked_mul(b)?;
            g.push(i);
            i += 1;
            if p == d {
                break;
            }
            if p > d {
                return None;
            }
        }
        groups.push(g);
    }
    let last = groups.last_mut()?;
    while i < big.len() {
        if big[i] != 1 {
            return None;
        }
        last.push(i);
        i += 1;
    }
    Some(groups)
}

/// A te copy of `from` into the row-major shape `to`: each source index is the result
/// point's linear position split by `floordiv`/`mod` over the source's strides.
pub fn reshape_copy(from: &TensorType, to: &[i64]) -> TeCompute {
    let n = to.len() as u32;
    let mut linear = AffineExpr::constant(0);
    let mut stride = 1;
    for (i, &d) in to.iter().enumerate().rev() {
        linear = AffineExpr::add(
            AffineExpr::mul(AffineExpr::dim(i as u32), AffineExpr::constant(stride)),
            linear,
        );
        stride *= d;
    }
    let mut idx = Vec::with_capacity(from.shape.len());
    let mut s = 1;
    for &d in from.shape.iter().rev() {
        let e = AffineExpr::floordiv(linear.clone(), AffineExpr::constant(s));
        idx.push(AffineExpr::rem(e, AffineExpr::constant(d)));
        s *= d;
    }
    idx.reverse();
    TeCompute {
        axes: (0..to.len())
            .map(|i| Axis {
                name: format!("d{i}"),
                extent: to[i],
                kind: AxisKind::Parallel,
            })
            .collect(),
        inputs: vec![from.clone()],
        accesses: vec![Access {
            input: 0,
            map: AffineMap::new(n, 0, idx),
            pad: None,
        }],
        body: Expr::Access(0),
        combiner: None,
        result: TensorType::new(to.to_vec(), from.elem),
        may_pad: None,
        padded_from: None,
        accumulator: None,
    }
}
