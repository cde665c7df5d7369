//! `amdgpu`: the subset of upstream MLIR's AMDGPU dialect that rtile's AMD matrix-core
//! kernels use: `amdgpu.mfma`, with upstream's name, custom syntax
//! (`amdgpu.mfma 32x32x8 %a * %b + %c attr-dict blgp = none : ta, tb, tc`), properties and
//! verification rules (upstream `mlir/Dialect/AMDGPU/IR/AMDGPU.td`, `MFMAOp::verify`), so
//! `mlir-opt-22` accepts what rtile prints.
//!
//! An MFMA (CDNA2 ISA §7 "Matrix Arithmetic Instructions") is wavefront-collective: the 64
//! lanes of a wave each hold `m·k·blocks / 64` elements of A, `k·n·blocks / 64` of B and
//! `m·n·blocks / 64` of C and D, so the per-lane fragment lengths follow from `m`, `n`, `k`
//! and `blocks`.

use rtile::diagnostics::Diagnostic;
use rtile::dialect::{Dialect, OpDefinition};
use rtile::ir::attributes::Attribute;
use rtile::ir::types::Type;
use rtile::ir::{AttrKind, Context, FloatKind, NamedAttribute, OpId, OperationState, TypeKind};
use rtile::parser::OpAsmParser;
use rtile::printer::OpAsmPrinter;

use crate::gpu::common::{custom, pure};

/// The lanes of an AMD CDNA wavefront, over which MFMA fragments are distributed.
pub const WAVE_SIZE: i64 = 64;

/// Upstream's `MFMAPermB` cases (`blgp`): how the lanes of B are permuted, in enum order.
pub const MFMA_PERM_B: [&str; 8] = [
    "none",
    "bcast_first_32",
    "bcast_second_32",
    "rotate_16_right",
    "bcast_first_16",
    "bcast_second_16",
    "bcast_third_16",
    "bcast_fourth_16",
];

/// The integer properties of `amdgpu.mfma` and their defaults (`None`: required).
const INT_PROPS: [(&str, Option<i64>); 6] = [
    ("m", None),
    ("n", None),
    ("k", None),
    ("blocks", Some(1)),
    ("cbsz", Some(0)),
    ("abid", Some(0)),
];

/// The unit (flag) properties of `amdgpu.mfma`.
const FLAG_PROPS: [&str; 4] = ["reducePrecision", "negateA", "negateB", "negateC"];

/// The `amdgpu` dialect subset.
pub struct AmdgpuDialect;

impl Dialect for AmdgpuDialect {
    fn namespace(&self) -> &'static str {
        "amdgpu"
    }
    fn description(&self) -> &'static str {
        "upstream AMDGPU subset: wavefront-level matrix fused multiply-add (MFMA, CDNA)"
    }
    fn models_upstream_in_part(&self) -> bool {
        true
    }
    fn ops(&self) -> Vec<Box<dyn OpDefinition>> {
        vec![custom(
            "amdgpu.mfma",
            "wavefront-level matrix fused multiply-add (v_mfma_*, CDNA matrix cores)",
            pure(),
            verify_mfma,
            parse_mfma,
            print_mfma,
        )]
    }
}

/// An integer property of an `amdgpu.mfma`, or its default.
pub fn mfma_int(ctx: &Context, o: OpId, name: &str) -> Option<i64> {
    let default = INT_PROPS.iter().find(|(n, _)| *n == name)?.1;
    match ctx.inherent_attr(o, name) {
        Some(a) => a.as_int(),
        None => default,
    }
}

/// The `blgp` case of an `amdgpu.mfma` (`#amdgpu<mfma_perm_b none>`; absent: `none`).
pub fn mfma_blgp(ctx: &Context, o: OpId) -> Option<&'static str> {
    match ctx.inherent_attr(o, "blgp").map(|a| a.kind()) {
        None => Some("none"),
        Some(AttrKind::Dialect { dialect, body }) if dialect == "amdgpu" => {
            let inner = body.trim().strip_prefix('<')?.strip_suffix('>')?.trim();
            let case = inner.strip_prefix("mfma_perm_b")?.trim();
            MFMA_PERM_B.iter().copied().find(|c| *c == case)
        }
        _ => None,
    }
}

/// Whether the unit property `name` (`reducePrecision`, `negateA`, ...) is set.
pub fn mfma_flag(ctx: &Context, o: OpId, name: &str) -> bool {
    match ctx.inherent_attr(o, name).map(|a| a.kind()) {
        Some(AttrKind::Unit) => true,
        Some(AttrKind::Bool(b)) => *b,
        _ => false,
    }
}

/// `(elements, element type)` of an MFMA operand: a vector's length, or 1 for a scalar.
fn operand_shape(t: &Type) -> Option<(i64, &Type)> {
    match t.kind() {
        TypeKind::Vector { shape, elem, .. } if shape.len() == 1 => Some((shape[0], elem)),
        TypeKind::Float(_) | TypeKind::Integer { .. } => Some((1, t)),
        _ => None,
    }
}

/// Upstream `MFMAOp::verify`: A and B of one element type, `m·k·blocks / 64` source values
/// and `m·n·blocks / 64` result values per lane, `abid < 2^cbsz`, lane permutations and
/// negation only where the hardware has them (double precision: negation, no permutation).
fn verify_mfma(ctx: &Context, o: OpId) -> Result<(), String> {
    let ops = ctx.operands(o);
    if ops.len() != 3 || ctx.results(o).len() != 1 {
        return Err("expects 3 operands (sourceA, sourceB, destC) and one result".into());
    }
    let get = |n: &str| mfma_int(ctx, o, n).ok_or(format!("requires attribute '{n}'"));
    let (m, n, k, blocks) = (get("m")?, get("n")?, get("k")?, get("blocks")?);
    let (cbsz, abid) = (get("cbsz")?, get("abid")?);
    let one_of = |name: &str, v: i64, ok: &[i64]| {
        if ok.contains(&v) {
            Ok(())
        } else {
            Err(format!(
                "attribute '{name}' failed to satisfy constraint: 32-bit signless integer attribute whose value is one of {ok:?}"
            ))
        }
    };
    one_of("m", m, &[4, 16, 32])?;
    one_of("n", n, &[4, 16, 32])?;
    one_of("k", k, &[1, 2, 4, 8, 16, 32, 64, 128])?;
    one_of("blocks", blocks, &[1, 2, 4, 16])?;
    if !(0..=4).contains(&cbsz) || !(0..=15).contains(&abid) {
        return Err("'cbsz' must be in [0, 4] and 'abid' in [0, 15]".into());
    }
    let blgp = mfma_blgp(ctx, o).ok_or("'blgp' must be #amdgpu<mfma_perm_b case>")?;
    let ty = |i: usize| ctx.value_type(ops[i]);
    let (Some((la, ea)), Some((lb, eb)), Some((lc, ec))) = (
        operand_shape(ty(0)),
        operand_shape(ty(1)),
        operand_shape(ty(2)),
    ) else {
        return Err("operands must be scalars or 1-D vectors".into());
    };
    if ctx.value_type(ctx.result(o, 0)) != ty(2) {
        return Err(
            "failed to verify that all of {destC, destD} have same type (destC and destD)".into(),
        );
    }
    if ea != eb {
        return Err("expected both non-small-float source operand types to match exactly".into());
    }
    let want_src = m * k * blocks / WAVE_SIZE;
    if la != want_src {
        return Err(format!(
            "expected {want_src} source values for this operation but got {la}"
        ));
    }
    if lb != la {
        return Err(format!(
            "expected {want_src} source values for this operation but got {lb}"
        ));
    }
    let want_dst = m * n * blocks / WAVE_SIZE;
    if lc != want_dst {
        return Err(format!(
            "expected {want_dst} result values for this operation but got {lc}"
        ));
    }
    if !matches!(ec.kind(), TypeKind::Float(FloatKind::F32 | FloatKind::F64))
        && !matches!(ec.kind(), TypeKind::Integer { width: 32, .. })
    {
        return Err("destC must hold f32, f64 or i32 values".into());
    }
    let f64_op = matches!(ea.kind(), TypeKind::Float(FloatKind::F64));
    if f64_op && blgp != "none" {
        return Err("double-precision ops do not support permuting lanes of B".into());
    }
    if f64_op && cbsz != 0 {
        return Err("double-precision ops do not support permuting lanes of A".into());
    }
    if abid >= (1 << cbsz) {
        return Err("block ID for permuting A (abid) must be below 2 ** cbsz".into());
    }
    let negates = ["negateA", "negateB", "negateC"]
        .iter()
        .any(|f| mfma_flag(ctx, o, f));
    if negates && !f64_op {
        return Err("negation flags only available for double-precision operations".into());
    }
    Ok(())
}

/// `MxNxK %a * %b + %c attr-dict blgp = case : ta, tb, tc`.
fn parse_mfma(p: &mut OpAsmParser<'_, '_>, state: &mut OperationState) -> Result<(), Diagnostic> {
    let dims_at = p.current_span();
    let dims = p.parse_dimension_list()?;
    let [m, n, k] = <[i64; 3]>::try_from(dims)
        .map_err(|_| p.error_at(dims_at, "expected 3 dimensions in MNK dimension list"))?;
    let a = p.parse_operand()?;
    p.parse_punct("*")?;
    let b = p.parse_operand()?;
    p.parse_punct("+")?;
    let c = p.parse_operand()?;
    let mut attrs = Vec::new();
    p.parse_optional_attr_dict(&mut attrs)?;
    p.parse_keyword("blgp")?;
    p.parse_punct("=")?;
    let case_at = p.current_span();
    let case = p.parse_any_keyword()?;
    if !MFMA_PERM_B.contains(&case.as_str()) {
        return Err(p.error_at(
            case_at,
            format!("expected one of {}", MFMA_PERM_B.join(", ")),
        ));
    }
    p.parse_punct(":")?;
    let ta = p.parse_type()?;
    p.parse_punct(",")?;
    let tb = p.parse_type()?;
    p.parse_punct(",")?;
    let tc = p.parse_type()?;
    for (v, t) in [(&a, &ta), (&b, &tb), (&c, &tc)] {
        let r = p.resolve_operand(v, t)?;
        state.operands.push(r);
    }
    state.result_types.push(tc);
    // Properties: m, n, k, blgp and the defaults, as upstream's generic form shows them;
    // other names in the dictionary are properties when upstream declares them.
    let i32a = |v: i64| Attribute::int(v, Type::i32());
    let mut props = vec![
        NamedAttribute {
            name: "m".into(),
            value: i32a(m),
        },
        NamedAttribute {
            name: "n".into(),
            value: i32a(n),
        },
        NamedAttribute {
            name: "k".into(),
            value: i32a(k),
        },
        NamedAttribute {
            name: "blgp".into(),
            value: Attribute::dialect("amdgpu", format!("<mfma_perm_b {case}>")),
        },
    ];
    for (name, default) in INT_PROPS.iter().skip(3) {
        if !attrs.iter().any(|a| a.name.as_str() == *name) {
            props.push(NamedAttribute {
                name: (*name).into(),
                value: i32a(default.unwrap_or(0)),
            });
        }
    }
    for a in attrs {
        let inherent = INT_PROPS.iter().any(|(n, _)| *n == a.name.as_str())
            || FLAG_PROPS.contains(&a.name.as_str());
        if inherent {
            props.push(a);
        } else {
            state.add_attribute(a.name, a.value);
        }
    }
    props.sort_by_key(|a| a.name);
    state.properties = Some(Attribute::dictionary(props));
    Ok(())
}

fn print_mfma(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    let get = |n: &str| mfma_int(ctx, op, n).unwrap_or(0);
    p.write(&format!("{}x{}x{} ", get("m"), get("n"), get("k")));
    let ops = ctx.operands(op);
    if ops.len() == 3 {
        p.print_operand(ops[0]);
        p.write(" * ");
        p.print_operand(ops[1]);
        p.write(" + ");
        p.print_operand(ops[2]);
    }
    // Default-valued properties are elided, as upstream's `DefaultValuedAttr`s.
    let mut dict: Vec<NamedAttribute> = ctx
        .op(op)
        .properties
        .as_ref()
        .and_then(|a| a.as_dictionary())
        .unwrap_or(&[])
        .iter()
        .filter(|a| {
            let default = INT_PROPS
                .iter()
                .find(|(n, _)| *n == a.name.as_str())
                .and_then(|(_, d)| *d);
            default.is_none() || a.value.as_int() != default
        })
        .cloned()
        .collect();
    dict.extend(ctx.op(op).attributes.iter().cloned());
    dict.sort_by_key(|a| a.name);
    p.print_optional_attr_dict(&dict, &["m", "n", "k", "blgp"]);
    p.write(&format!(
        " blgp = {} : ",
        mfma_blgp(ctx, op).unwrap_or("none")
    ));
    let tys: Vec<Type> = ops.iter().map(|&v| *ctx.value_type(v)).collect();
    p.print_types(&tys);
}
