//! The upstream `tensor` reshapes that `--axis-fusion` inserts: `tensor.collapse_shape`
//! and `tensor.expand_shape`, with upstream syntax, generic form (`reassociation`,
//! `static_output_shape`) and verification, for static shapes.
//!
//! ```text
//! %0 = tensor.collapse_shape %a [[0, 1], [2]] : tensor<4x5x6xf32> into tensor<20x6xf32>
//! %1 = tensor.expand_shape %0 [[0, 1], [2]] output_shape [4, 5, 6] : tensor<20x6xf32> into tensor<4x5x6xf32>
//! ```

use rtile::diagnostics::Diagnostic;
use rtile::dialect::decl::{Assembly, OpDecl, Verify};
use rtile::dialect::{Dialect, OpDefinition, OpTraits};
use rtile::ir::types::DYNAMIC;
use rtile::ir::{AttrKind, Attribute, Context, NamedAttribute, OpId, OperationState, Type};
use rtile::parser::OpAsmParser;
use rtile::printer::{OpAsmPrinter, type_to_string};

/// `tensor.collapse_shape`.
pub const COLLAPSE: &str = "tensor.collapse_shape";
/// `tensor.expand_shape`.
pub const EXPAND: &str = "tensor.expand_shape";

/// `tensor`: the reshapes (subset of upstream's tensor dialect).
pub struct TensorDialect;

impl Dialect for TensorDialect {
    fn namespace(&self) -> &'static str {
        "tensor"
    }
    fn description(&self) -> &'static str {
        "tensor reshapes (upstream MLIR's tensor dialect, collapse_shape and expand_shape)"
    }
    fn models_upstream_in_part(&self) -> bool {
        true
    }
    fn ops(&self) -> Vec<Box<dyn OpDefinition>> {
        vec![COLLAPSE_OP.boxed(), EXPAND_OP.boxed()]
    }
}

/// The `reassociation` attribute for `groups`.
pub fn reassociation_attr(groups: &[Vec<usize>]) -> Attribute {
    Attribute::new(AttrKind::Array(
        groups
            .iter()
            .map(|g| Attribute::array(g.iter().map(|&d| Attribute::i64(d as i64)).collect()))
            .collect(),
    ))
}

/// The groups of a `reassociation` attribute.
pub fn reassociation_of(a: &Attribute) -> Option<Vec<Vec<usize>>> {
    a.as_array()?
        .iter()
        .map(|g| {
            g.as_array()?
                .iter()
                .map(|d| d.as_int().and_then(|d| usize::try_from(d).ok()))
                .collect()
        })
        .collect()
}

/// The operation state of a reshape of `src` (of type `src_ty`) to `result` by `groups`
/// (groups index the dims of the higher-ranked side).
pub fn reshape_state(
    expand: bool,
    src: rtile::ir::Value,
    result: Type,
    groups: &[Vec<usize>],
) -> OperationState {
    let mut st = OperationState::new(if expand { EXPAND } else { COLLAPSE });
    st.operands = vec![src];
    let mut props = vec![NamedAttribute {
        name: "reassociation".into(),
        value: reassociation_attr(groups),
    }];
    if expand {
        props.push(NamedAttribute {
            name: "static_output_shape".into(),
            value: Attribute::dense_i64_array(
                result.shape().map(<[i64]>::to_vec).unwrap_or_default(),
            ),
        });
    }
    st.result_types = vec![result];
    st.properties = Some(Attribute::dictionary(props));
    st
}

/// `tensor.collapse_shape` (`expand: false`) or `tensor.expand_shape`.
struct Reshape {
    expand: bool,
}

impl Reshape {
    fn check(&self, ctx: &Context, op: OpId) -> Result<(), String> {
        let [src] = ctx.operands(op) else {
            return Err("expects one operand".into());
        };
        let [res] = ctx.results(op) else {
            return Err("expects one result".into());
        };
        let (st, rt) = (ctx.value_type(*src), ctx.value_type(*res));
        let (Some(ss), Some(rs)) = (st.shape(), rt.shape()) else {
            return Err("expects ranked tensors".into());
        };
        if st.element_type() != rt.element_type() {
            return Err(format!(
                "expects the same element type, got '{}' and '{}'",
                type_to_string(st),
                type_to_string(rt)
            ));
        }
        let groups = ctx
            .inherent_attr(op, "reassociation")
            .and_then(reassociation_of)
            .ok_or("requires attribute 'reassociation' (an array of arrays of dims)")?;
        let (big, small) = if self.expand { (rs, ss) } else { (ss, rs) };
        if groups.len() != small.len() {
            return Err(format!(
                "expected rank of the collapsed type({}) to be the number of reassociation maps({})",
                small.len(),
                groups.len()
            ));
        }
        let mut next = 0;
        for (i, g) in groups.iter().enumerate() {
            if g.is_empty() || g.iter().enumerate().any(|(k, &d)| d != next + k) {
                return Err("expected reassociation map #".to_string()
                    + &i.to_string()
                    + " to be valid and contiguous");
            }
            next += g.len();
            if next > big.len() {
                return Err(format!(
                    "expected rank of the expanded type({}) to be covered by the reassociation maps",
                    big.len()
                ));
            }
            // As upstream: a group with a dynamic extent collapses to a dynamic extent;
            // only all-static groups have a product to compare.
            if g.iter().any(|&d| big[d] == DYNAMIC) {
                if small[i] != DYNAMIC {
                    return Err(format!(
                        "expected dimension {i} of collapsed type to be dynamic since one or more of the corresponding dimensions in the expanded type is dynamic"
                    ));
                }
                continue;
            }
            let prod = g.iter().try_fold(1i64, |acc, &d| acc.checked_mul(big[d]));
            if prod != Some(small[i]) {
                let prod = prod.map_or("an overflowing product".to_string(), |p| p.to_string());
                return Err(format!(
                    "expected dimension {i} of collapsed type to be static value of {prod}"
                ));
            }
        }
        if next != big.len() {
            return Err(format!(
                "expected rank of the expanded type({}) to be covered by the reassociation maps",
                big.len()
            ));
        }
        if self.expand {
            let out = ctx
                .inherent_attr(op, "static_output_shape")
                .and_then(|a| a.as_dense_ints());
            if out.is_some_and(|o| o != rs) {
                return Err("static_output_shape does not match the result type".into());
            }
        }
        Ok(())
    }
}

/// `tensor.collapse_shape`.
pub const COLLAPSE_OP: OpDecl = OpDecl {
    name: COLLAPSE,
    summary: "merges groups of adjacent dimensions of a tensor (row-major, no data movement)",
    traits: OpTraits::PURE,
    verify: Verify::Message(|ctx, op| Reshape { expand: false }.check(ctx, op)),
    assembly: Some(Assembly {
        parse: |p, state| Reshape { expand: false }.parse(p, state),
        print: |ctx, op, p| Reshape { expand: false }.print(ctx, op, p),
    }),
    ..OpDecl::EMPTY
};

/// `tensor.expand_shape`.
pub const EXPAND_OP: OpDecl = OpDecl {
    name: EXPAND,
    summary: "splits dimensions of a tensor (row-major, no data movement)",
    traits: OpTraits::PURE,
    verify: Verify::Message(|ctx, op| Reshape { expand: true }.check(ctx, op)),
    assembly: Some(Assembly {
        parse: |p, state| Reshape { expand: true }.parse(p, state),
        print: |ctx, op, p| Reshape { expand: true }.print(ctx, op, p),
    }),
    ..OpDecl::EMPTY
};

/// The custom form of both reshapes.
impl Reshape {
    fn parse(
        &self,
        p: &mut OpAsmParser<'_, '_>,
        state: &mut OperationState,
    ) -> Result<(), Diagnostic> {
        let src = p.parse_operand()?;
        let at = p.current_span();
        let groups = p
            .parse_attribute()
            .ok()
            .as_ref()
            .and_then(reassociation_of)
            .ok_or_else(|| p.error_at(at, "expected a reassociation `[[0, 1], [2]]`"))?;
        if self.expand {
            p.parse_keyword("output_shape")?;
            p.parse_punct("[")?;
            if !p.parse_optional_punct("]") {
                loop {
                    p.parse_integer()?;
                    if p.parse_optional_punct("]") {
                        break;
                    }
                    p.parse_punct(",")?;
                }
            }
        }
        let mut attrs = Vec::new();
        p.parse_optional_attr_dict(&mut attrs)?;
        for a in attrs {
            state.add_attribute(a.name, a.value);
        }
        p.parse_punct(":")?;
        let st = p.parse_type()?;
        p.parse_keyword("into")?;
        let rt = p.parse_type()?;
        let v = p.resolve_operand(&src, &st)?;
        let built = reshape_state(self.expand, v, rt, &groups);
        state.operands = built.operands;
        state.result_types = built.result_types;
        state.properties = built.properties;
        Ok(())
    }
    fn print(&self, ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
        let Some(&src) = ctx.operands(op).first() else {
            return;
        };
        p.write(" ");
        p.print_operand(src);
        p.write(" ");
        if let Some(a) = ctx.inherent_attr(op, "reassociation") {
            p.print_attribute(a);
        }
        let res = ctx.results(op).first().map(|&r| *ctx.value_type(r));
        if self.expand {
            let shape = res
                .as_ref()
                .and_then(|t| t.shape())
                .map(|s| {
                    s.iter()
                        .map(|d| d.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default();
            p.write(&format!(" output_shape [{shape}]"));
        }
        p.print_optional_attr_dict(&ctx.op(op).attributes, &[]);
        p.write(" : ");
        p.print_type(&ctx.value_type(src).clone());
        p.write(" into ");
        if let Some(t) = res {
            p.print_type(&t);
        }
    }
}
