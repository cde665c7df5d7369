//! `memref`: upstream MLIR's memref subset (`alloc`, `alloca`, `load`, `store`, `subview`,
//! `collapse_shape`, `expand_shape`; `view`, `global`, `get_global` for host code)
//! with upstream generic syntax and verification rules. Address spaces are attributes on
//! the memref type (`#gpu.address_space<workgroup>`).

use rtile::diagnostics::Diagnostic;
use rtile::dialect::{Dialect, OpDefinition, OpTraits};
use rtile::ir::types::{DYNAMIC, Type};
use rtile::ir::{AttrKind, Attribute, DenseArray, NamedAttribute, OperationState, TypeKind};
use rtile::ir::{Context, OpId};
use rtile::parser::OpAsmParser;
use rtile::printer::OpAsmPrinter;

use crate::gpu::common::{
    all_index, counts, custom, op, parse_attrs, parse_load, parse_store, print_attrs, print_load,
    print_store, pure,
};

/// The `memref` dialect subset.
pub struct MemRefDialect;

impl Dialect for MemRefDialect {
    fn namespace(&self) -> &'static str {
        "memref"
    }
    fn description(&self) -> &'static str {
        "upstream memref subset: allocation, element loads and stores, subviews"
    }
    fn models_upstream_in_part(&self) -> bool {
        true
    }
    fn ops(&self) -> Vec<Box<dyn OpDefinition>> {
        vec![
            custom(
                "memref.alloc",
                "allocates a buffer",
                OpTraits::default(),
                verify_alloc,
                parse_alloc,
                print_alloc,
            ),
            custom(
                "memref.alloca",
                "allocates a buffer in the enclosing scope (per thread on GPUs)",
                OpTraits::default(),
                verify_alloc,
                parse_alloc,
                print_alloc,
            ),
            op(
                "memref.dealloc",
                "frees a buffer from memref.alloc",
                OpTraits::default(),
                |ctx, o| {
                    counts(ctx, o, 1, 0)?;
                    memref_of(ctx, o, 0).map(|_| ())
                },
            ),
            custom(
                "memref.load",
                "loads one element",
                OpTraits::default(),
                verify_load,
                |p, s| parse_load(p, s, false),
                |c, o, p| print_load(c, o, p, false),
            ),
            custom(
                "memref.store",
                "stores one element",
                OpTraits::default(),
                verify_store,
                |p, s| parse_store(p, s, false),
                |c, o, p| print_store(c, o, p, false),
            ),
            custom(
                "memref.collapse_shape",
                "a view of a contiguous buffer with groups of consecutive dims merged",
                pure(),
                verify_collapse_shape,
                parse_collapse_shape,
                print_collapse_shape,
            ),
            op(
                "memref.expand_shape",
                "a view of a contiguous buffer with dims split into groups of consecutive dims",
                pure(),
                verify_expand_shape,
            ),
            op(
                "memref.subview",
                "a strided view of a buffer",
                pure(),
                verify_subview,
            ),
            // Generic-form only (parsed, verified structurally, not lowered to or simulated).
            op(
                "memref.cast",
                "casts between compatible memref types",
                pure(),
                |ctx, o| counts(ctx, o, 1, 1),
            ),
            op(
                "memref.view",
                "a typed view of an i8 buffer at a byte offset",
                pure(),
                |ctx, o| {
                    if ctx.operands(o).len() < 2 || ctx.results(o).len() != 1 {
                        return Err("expects a source, a byte shift, sizes, and one result".into());
                    }
                    Ok(())
                },
            ),
            op(
                "memref.copy",
                "copies one buffer into another",
                OpTraits::default(),
                |ctx, o| counts(ctx, o, 2, 0),
            ),
            op(
                "memref.dim",
                "the size of one dimension",
                pure(),
                |ctx, o| counts(ctx, o, 2, 1),
            ),
            op(
                "memref.global",
                "a global buffer",
                OpTraits {
                    symbol: true,
                    ..OpTraits::default()
                },
                |_, _| Ok(()),
            ),
            op(
                "memref.get_global",
                "the buffer of a memref.global",
                pure(),
                |ctx, o| counts(ctx, o, 0, 1),
            ),
            op(
                "memref.reinterpret_cast",
                "a view with explicit offset, sizes and strides",
                pure(),
                |_, _| Ok(()),
            ),
        ]
    }
}

/// `memref.alloc(%d0, ..) : memref<..>` / `memref.alloca() : memref<..>` (dynamic sizes
/// only; no alignment or symbol operands).
fn parse_alloc(p: &mut OpAsmParser<'_, '_>, state: &mut OperationState) -> Result<(), Diagnostic> {
    p.parse_punct("(")?;
    let sizes = p.parse_operand_list()?;
    p.parse_punct(")")?;
    parse_attrs(p, state)?;
    let t = p.parse_colon_type()?;
    for o in &sizes {
        let v = p.resolve_operand(o, &Type::index())?;
        state.operands.push(v);
    }
    state.properties = Some(Attribute::dictionary(vec![NamedAttribute {
        name: "operandSegmentSizes".into(),
        value: Attribute::new(AttrKind::DenseArray(DenseArray::Int {
            elem: Type::i32(),
            values: vec![sizes.len() as i64, 0],
        })),
    }]));
    state.result_types.push(t);
    Ok(())
}

fn print_alloc(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    p.write("(");
    p.print_operands(ctx.operands(op));
    p.write(")");
    print_attrs(ctx, op, p);
    if let Some(&r) = ctx.results(op).first() {
        p.write(" : ");
        p.print_type(ctx.value_type(r));
    }
}

/// `(shape, elem)` of operand `i` when it is a ranked memref.
pub fn memref_of(ctx: &Context, o: OpId, i: usize) -> Result<(Vec<i64>, Type), String> {
    let v = *ctx.operands(o).get(i).ok_or("missing memref operand")?;
    match ctx.value_type(v).kind() {
        TypeKind::MemRef { shape, elem, .. } => Ok((shape.clone(), Type::new((**elem).clone()))),
        _ => Err(format!("operand #{i} must be memref of any type values")),
    }
}

fn verify_alloc(ctx: &Context, o: OpId) -> Result<(), String> {
    if ctx.results(o).len() != 1 {
        return Err("requires one result".into());
    }
    let TypeKind::MemRef { shape, .. } = (ctx.value_type(ctx.result(o, 0))).kind() else {
        return Err("result must be a memref".into());
    };
    let dynamic = shape.iter().filter(|&&d| d == DYNAMIC).count();
    let ops = ctx.operands(o);
    all_index(ctx, ops, "dynamic sizes")?;
    if ops.len() < dynamic {
        return Err("dimension operand count does not equal memref dynamic dimension count".into());
    }
    Ok(())
}

fn verify_load(ctx: &Context, o: OpId) -> Result<(), String> {
    let (shape, elem) = memref_of(ctx, o, 0)?;
    let ops = ctx.operands(o);
    if ops.len() != shape.len() + 1 {
        return Err(
            "incorrect number of indices for load, expected ".to_string()
                + &shape.len().to_string(),
        );
    }
    all_index(ctx, &ops[1..], "indices")?;
    if ctx.results(o).len() != 1 || *ctx.value_type(ctx.result(o, 0)) != elem {
        return Err("result type must match the memref element type".into());
    }
    Ok(())
}

fn verify_store(ctx: &Context, o: OpId) -> Result<(), String> {
    let (shape, elem) = memref_of(ctx, o, 1)?;
    let ops = ctx.operands(o);
    if ops.len() != shape.len() + 2 {
        return Err(format!(
            "store index operand count not equal to memref rank {}",
            shape.len()
        ));
    }
    all_index(ctx, &ops[2..], "indices")?;
    if *ctx.value_type(ops[0]) != elem || !ctx.results(o).is_empty() {
        return Err("value to store must have the memref element type".into());
    }
    Ok(())
}

fn verify_subview(ctx: &Context, o: OpId) -> Result<(), String> {
    let (shape, elem) = memref_of(ctx, o, 0)?;
    if ctx.results(o).len() != 1 {
        return Err("requires one result".into());
    }
    all_index(ctx, &ctx.operands(o)[1..], "offsets, sizes and strides")?;
    match (ctx.value_type(ctx.result(o, 0))).kind() {
        TypeKind::MemRef {
            shape: s, elem: e, ..
        } if *e == elem && s.len() <= shape.len() => Ok(()),
        _ => Err("result must be a memref of the source element type and at most its rank".into()),
    }
}

/// `memref.collapse_shape %src [[0, 1], [2]] attr-dict : memref<..> into memref<..>`: the
/// reassociation (groups of consecutive source dims, one per result dim) is the
/// `reassociation` property, as upstream.
fn parse_collapse_shape(
    p: &mut OpAsmParser<'_, '_>,
    state: &mut OperationState,
) -> Result<(), Diagnostic> {
    let src = p.parse_operand()?;
    let reassociation = p.parse_attribute()?;
    parse_attrs(p, state)?;
    let st = p.parse_colon_type()?;
    p.parse_keyword("into")?;
    let rt = p.parse_type()?;
    let v = p.resolve_operand(&src, &st)?;
    state.operands.push(v);
    state.properties = Some(Attribute::dictionary(vec![NamedAttribute {
        name: "reassociation".into(),
        value: reassociation,
    }]));
    state.result_types.push(rt);
    Ok(())
}

fn print_collapse_shape(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    if let Some(&s) = ctx.operands(op).first() {
        p.print_operand(s);
        p.write(" ");
    }
    if let Some(r) = ctx.inherent_attr(op, "reassociation") {
        p.print_attribute(r);
    }
    print_attrs(ctx, op, p);
    if let (Some(&s), Some(&r)) = (ctx.operands(op).first(), ctx.results(op).first()) {
        p.write(" : ");
        p.print_type(ctx.value_type(s));
        p.write(" into ");
        p.print_type(ctx.value_type(r));
    }
}

/// The reassociation groups of a `reassociation` attribute (`[[0, 1], [2]]`).
pub fn reassociation(a: &Attribute) -> Option<Vec<Vec<usize>>> {
    let AttrKind::Array(groups) = a.kind() else {
        return None;
    };
    groups
        .iter()
        .map(|g| match g.kind() {
            AttrKind::Array(dims) => dims
                .iter()
                .map(|d| match d.kind() {
                    AttrKind::Integer { value, .. } => usize::try_from(*value).ok(),
                    _ => None,
                })
                .collect(),
            _ => None,
        })
        .collect()
}

/// Upstream's rules for a collapse of identity-layout memrefs: the groups list every source
/// dim once, in order, each group non-empty; one group per result dim, whose size is the
/// product of its source dims (dynamic when one of them is); same element type and memory
/// space; strided layouts as [`collapsed_layout_matches`] checks them.
fn verify_collapse_shape(ctx: &Context, o: OpId) -> Result<(), String> {
    counts(ctx, o, 1, 1)?;
    let st = ctx.value_type(ctx.operands(o)[0]);
    let rt = ctx.value_type(ctx.result(o, 0));
    let (
        TypeKind::MemRef {
            shape: ss,
            elem: se,
            layout: sl,
            memory_space: sm,
        },
        TypeKind::MemRef {
            shape: rs,
            elem: re,
            layout: rl,
            memory_space: rm,
        },
    ) = (st.kind(), rt.kind())
    else {
        return Err("source and result must be ranked memrefs".into());
    };
    if se != re || sm != rm {
        return Err("source and result must have the same element type and memory space".into());
    }
    let groups = ctx
        .inherent_attr(o, "reassociation")
        .and_then(reassociation)
        .ok_or("requires a 'reassociation' array of arrays of dims")?;
    if groups.len() != rs.len() {
        return Err(format!(
            "expected {} reassociation groups (the result rank), got {}",
            rs.len(),
            groups.len()
        ));
    }
    let mut next = 0;
    for (j, g) in groups.iter().enumerate() {
        if g.is_empty() {
            return Err(format!("reassociation group #{j} is empty"));
        }
        for &d in g {
            if d != next {
                return Err(
                    "expected reassociation indices to be consecutive, covering every source dim in order"
                        .into(),
                );
            }
            next += 1;
        }
        let want = if g.iter().any(|&d| ss.get(d) == Some(&DYNAMIC)) {
            DYNAMIC
        } else {
            g.iter()
                .try_fold(1i64, |acc, &d| {
                    acc.checked_mul(ss.get(d).copied().unwrap_or(1))
                })
                .ok_or("collapsed size overflows")?
        };
        if rs[j] != want {
            let show = |x: i64| {
                if x == DYNAMIC {
                    "?".to_string()
                } else {
                    x.to_string()
                }
            };
            return Err(format!(
                "expected collapsed dim #{j} to be {}, got {}",
                show(want),
                show(rs[j])
            ));
        }
    }
    if next != ss.len() {
        return Err(
            "expected reassociation indices to be consecutive, covering every source dim in order"
                .into(),
        );
    }
    collapsed_layout_matches(ss, sl.as_ref(), &groups, rs, rl.as_ref())
}

/// `memref.expand_shape` (generic form, static output shapes): each source dim is the
/// product of its reassociation group of result dims, in order, same element type and
/// memory space; layouts are checked only when both are the identity (the views the
/// lowering makes), as strided results need upstream's stride rules.
fn verify_expand_shape(ctx: &Context, o: OpId) -> Result<(), String> {
    if ctx.operands(o).is_empty() || ctx.results(o).len() != 1 {
        return Err("expects a source memref and one result".into());
    }
    let st = ctx.value_type(ctx.operands(o)[0]);
    let rt = ctx.value_type(ctx.result(o, 0));
    let (
        TypeKind::MemRef {
            shape: ss,
            elem: se,
            memory_space: sm,
            ..
        },
        TypeKind::MemRef {
            shape: rs,
            elem: re,
            memory_space: rm,
            ..
        },
    ) = (st.kind(), rt.kind())
    else {
        return Err("source and result must be ranked memrefs".into());
    };
    if se != re || sm != rm {
        return Err("source and result must have the same element type and memory space".into());
    }
    let groups = ctx
        .inherent_attr(o, "reassociation")
        .and_then(reassociation)
        .ok_or("requires a 'reassociation' array of arrays of dims")?;
    if groups.len() != ss.len() {
        return Err(format!(
            "expected {} reassociation groups (the source rank), got {}",
            ss.len(),
            groups.len()
        ));
    }
    let flat: Vec<usize> = groups.iter().flatten().copied().collect();
    if groups.iter().any(Vec::is_empty) || flat != (0..rs.len()).collect::<Vec<_>>() {
        return Err(
            "expected reassociation indices to be consecutive, covering every result dim in order"
                .into(),
        );
    }
    for (j, g) in groups.iter().enumerate() {
        if ss[j] == DYNAMIC || g.iter().any(|&d| rs[d] == DYNAMIC) {
            continue;
        }
        let prod = g.iter().try_fold(1i64, |acc, &d| acc.checked_mul(rs[d]));
        if prod != Some(ss[j]) {
            return Err(format!(
                "expected the dims of group #{j} to multiply to source dim {}",
                ss[j]
            ));
        }
    }
    Ok(())
}

/// Strides and offset of a memref layout: the identity's row-major strides, a `strided<>`
/// layout's own; `None` for an affine map (not checked).
fn strides_of(shape: &[i64], layout: Option<&Attribute>) -> Option<(Vec<i64>, i64)> {
    match layout.map(|x| x.kind()) {
        None => {
            let mut strides = vec![1i64; shape.len()];
            for i in (0..shape.len().saturating_sub(1)).rev() {
                let (s, d) = (strides[i + 1], shape[i + 1]);
                strides[i] = if s == DYNAMIC || d == DYNAMIC {
                    DYNAMIC
                } else {
                    s.checked_mul(d).unwrap_or(DYNAMIC)
                };
            }
            Some((strides, 0))
        }
        Some(AttrKind::Strided { strides, offset }) => Some((strides.clone(), *offset)),
        Some(_) => None,
    }
}

/// Upstream's collapsed layout: each group takes the stride of its innermost dim, the
/// offset stays. Checked when both layouts are identity or `strided<>`.
fn collapsed_layout_matches(
    ss: &[i64],
    sl: Option<&Attribute>,
    groups: &[Vec<usize>],
    rs: &[i64],
    rl: Option<&Attribute>,
) -> Result<(), String> {
    let (Some((src, src_off)), Some((res, res_off))) = (strides_of(ss, sl), strides_of(rs, rl))
    else {
        return Ok(());
    };
    let want: Vec<i64> = groups
        .iter()
        .map(|g| {
            g.last()
                .and_then(|&d| src.get(d))
                .copied()
                .unwrap_or(DYNAMIC)
        })
        .collect();
    if want != res || src_off != res_off {
        return Err("the result layout does not match the collapsed source layout".into());
    }
    Ok(())
}
