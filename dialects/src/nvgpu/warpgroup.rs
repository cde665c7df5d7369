//! The sm_90a TMA and warpgroup-MMA ops of upstream's NVGPU dialect (`NVGPUOps.td`), with
//! upstream's names, operand orders, custom forms and the checks of its verifiers:
//!
//! - `nvgpu.tma.async.load`: one thread's bulk tensor copy of a box from global memory into
//!   shared memory through a tensor map, completing its bytes on an mbarrier (PTX
//!   `cp.async.bulk.tensor`, PTX ISA §9.7.9.25.5);
//! - `nvgpu.tma.prefetch.descriptor`: prefetches the tensor map (`prefetch.tensormap`);
//! - `nvgpu.warpgroup.generate.descriptor`: the wgmma matrix descriptor of a shared tile that
//!   TMA loads wrote (PTX ISA §9.7.15.5.1, "Matrix Descriptor");
//! - `nvgpu.warpgroup.mma.init.accumulator`, `nvgpu.warpgroup.mma` and
//!   `nvgpu.warpgroup.mma.store`: the warpgroup's (4 warps) matrix multiply-accumulate as a
//!   sequence of `wgmma.mma_async` m64nNk16 between a fence and a wait, and the store of its
//!   fragmented f32 accumulator (PTX ISA §9.7.15).
//!
//! Types are written in their full form (`!nvgpu.tensormap.descriptor<..>`); upstream also
//! accepts and prints the short form (`<..>` after the colon), which rtile does not read.

use rtile::diagnostics::Diagnostic;
use rtile::dialect::{OpDefinition, OpTraits};
use rtile::ir::attributes::{Attribute, DenseArray};
use rtile::ir::types::Type;
use rtile::ir::{AttrKind, Context, NamedAttribute, OpId, OperationState, TypeKind, Value};
use rtile::parser::OpAsmParser;
use rtile::printer::{OpAsmPrinter, type_to_string as ts};

use super::mbarrier::is_group;
use super::mbarrier::{parse_barrier, print_barrier};
use super::sm90_types::{AccumulatorType, TensorMapType, WarpgroupDescriptorType};
use super::syntax::{
    parse_bracketed, parse_dict, parse_indexed, parse_optional_predicate, print_dict,
    print_indexed, print_optional_predicate, set_props,
};
use super::{in_workgroup, memref_parts};
use crate::gpu::common::{custom, parse_attrs, print_attrs};

/// The ops, for [`super::NvgpuDialect`].
pub(super) fn ops() -> Vec<Box<dyn OpDefinition>> {
    let t = OpTraits::default;
    vec![
        custom(
            "nvgpu.tma.async.load",
            "copies a box of a tensor from global to shared memory through a TMA tensor map, completing on an mbarrier (cp.async.bulk.tensor)",
            t(),
            verify_tma_load,
            parse_tma_load,
            print_tma_load,
        ),
        custom(
            "nvgpu.tma.create.descriptor",
            "host: builds the TMA tensor map of a global tensor (cuTensorMapEncodeTiled)",
            t(),
            verify_create_descriptor,
            parse_create_descriptor,
            print_create_descriptor,
        ),
        custom(
            "nvgpu.tma.prefetch.descriptor",
            "prefetches a TMA tensor map (prefetch.tensormap)",
            t(),
            verify_prefetch,
            parse_prefetch,
            print_prefetch,
        ),
        custom(
            "nvgpu.warpgroup.generate.descriptor",
            "the wgmma matrix descriptor of a shared-memory tile written by TMA loads",
            t(),
            verify_generate,
            parse_generate,
            print_generate,
        ),
        custom(
            "nvgpu.warpgroup.mma.init.accumulator",
            "a warpgroup accumulator of zeros",
            t(),
            verify_init_acc,
            parse_init_acc,
            print_init_acc,
        ),
        custom(
            "nvgpu.warpgroup.mma",
            "warpgroup matrix multiply-accumulate from shared-memory descriptors (wgmma.mma_async)",
            t(),
            verify_mma,
            parse_mma,
            print_mma,
        ),
        custom(
            "nvgpu.warpgroup.mma.store",
            "stores a warpgroup accumulator's fragments to a memref of its shape",
            t(),
            verify_store,
            parse_store,
            print_store,
        ),
    ]
}

/// The operand segments of a `tma.async.load`: dst, barriers, tensorMap, coordinates,
/// mbarId, multicastMask, predicate.
pub fn tma_load_segments(ctx: &Context, o: OpId) -> Option<[usize; 7]> {
    super::operand_segments(ctx, o)
}

fn tensor_map(ctx: &Context, v: Value, what: &str) -> Result<TensorMapType, String> {
    TensorMapType::of(ctx.value_type(v))
        .ok_or_else(|| format!("{what} must be a !nvgpu.tensormap.descriptor"))?
}

fn accumulator(ctx: &Context, v: Value, what: &str) -> Result<AccumulatorType, String> {
    AccumulatorType::of(ctx.value_type(v))
        .ok_or_else(|| format!("{what} must be a !nvgpu.warpgroup.accumulator"))?
}

fn descriptor(ctx: &Context, v: Value, what: &str) -> Result<WarpgroupDescriptorType, String> {
    WarpgroupDescriptorType::of(ctx.value_type(v))
        .ok_or_else(|| format!("{what} must be a !nvgpu.warpgroup.descriptor"))?
}

fn is_type(ctx: &Context, v: Value, t: &Type) -> bool {
    ctx.value_type(v) == t
}

/// Upstream `TmaAsyncLoadOp::verify`, plus what the tensor map implies: shared
/// destination with the box's shape and element type, one index coordinate per box
/// dimension (at most 5), and with a swizzle, a box row of exactly the swizzle span.
fn verify_tma_load(ctx: &Context, o: OpId) -> Result<(), String> {
    let ops = ctx.operands(o);
    let [nd, nb, nt, nc, ni, nm, np] =
        tma_load_segments(ctx, o).ok_or("requires 'operandSegmentSizes' matching its operands")?;
    if [nd, nb, nt, ni] != [1, 1, 1, 1] || nm > 1 || np > 1 || !ctx.results(o).is_empty() {
        return Err("expects dst, barriers, tensorMap, coordinates, mbarId and optional multicastMask and predicate".into());
    }
    let (dst, bars, tm) = (ops[0], ops[1], ops[2]);
    let coords = &ops[3..3 + nc];
    let map = tensor_map(ctx, tm, "operand #2")?;
    if !is_group(ctx.value_type(bars)) {
        return Err("operand #1 must be mbarrier barrier type".into());
    }
    if !coords
        .iter()
        .chain(&ops[3 + nc..4 + nc])
        .all(|&v| is_type(ctx, v, &Type::index()))
    {
        return Err("coordinates and mbarId must be index".into());
    }
    if nm == 1 && !is_type(ctx, ops[4 + nc], &Type::int(16)) {
        return Err("multicastMask must be i16".into());
    }
    if np == 1 && !is_type(ctx, ops[4 + nc + nm], &Type::i1()) {
        return Err("predicate must be i1".into());
    }
    let dt = ctx.value_type(dst);
    let (shape, elem, _) = memref_parts(dt).ok_or("destination must be a memref")?;
    if !in_workgroup(dt) {
        return Err("the destination memref must be in shared memory".into());
    }
    if nc != map.box_shape.len() || nc > 5 {
        return Err(format!(
            "has {nc} coordinates; the tensor map's box has rank {} (at most 5)",
            map.box_shape.len()
        ));
    }
    if *elem != map.elem || shape != map.box_shape.as_slice() {
        return Err(format!(
            "the destination {} is not the tensor map's box {:?} of {}",
            ts(dt),
            map.box_shape,
            ts(&map.elem)
        ));
    }
    let inner = *map.box_shape.last().unwrap_or(&0) as u64 * map.elem_bytes();
    let span = map.swizzle.bytes();
    if span != 0 && inner != span {
        return Err(format!(
            "the tensormap descriptor must have last dimension of {span} bytes but it is {inner} bytes"
        ));
    }
    Ok(())
}

/// Upstream `TmaCreateDescriptorOp::verify`: an unranked memref of the map's element type,
/// one box extent per box dimension (given as index values; rtile's host code passes
/// constants equal to the map's box).
fn verify_create_descriptor(ctx: &Context, o: OpId) -> Result<(), String> {
    let ops = ctx.operands(o);
    if ops.is_empty() || ctx.results(o).len() != 1 {
        return Err("expects a tensor, box dimensions and one result".into());
    }
    let map = tensor_map(ctx, ctx.result(o, 0), "result #0")?;
    let elem = match ctx.value_type(ops[0]).kind() {
        TypeKind::UnrankedMemRef { elem, .. } => *elem,
        _ => return Err("operand #0 must be an unranked memref".into()),
    };
    if elem != map.elem {
        return Err("the tensor's element type must be the tensor map's".into());
    }
    if ops.len() - 1 != map.box_shape.len()
        || ops[1..].iter().any(|&v| !is_type(ctx, v, &Type::index()))
    {
        return Err(format!(
            "needs {} index box dimensions, one per dimension of the tensor map's box",
            map.box_shape.len()
        ));
    }
    Ok(())
}

/// `$tensor box[$dims] attr-dict : type($tensor) -> type($map)`.
fn parse_create_descriptor(
    p: &mut OpAsmParser<'_, '_>,
    state: &mut OperationState,
) -> Result<(), Diagnostic> {
    let t = p.parse_operand()?;
    p.parse_keyword("box")?;
    let dims = parse_bracketed(p)?;
    parse_attrs(p, state)?;
    let tt = p.parse_colon_type()?;
    p.parse_punct("->")?;
    let rt = p.parse_type()?;
    let v = p.resolve_operand(&t, &tt)?;
    state.operands.push(v);
    for d in &dims {
        let v = p.resolve_operand(d, &Type::index())?;
        state.operands.push(v);
    }
    state.result_types.push(rt);
    Ok(())
}

fn print_create_descriptor(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    let ops = ctx.operands(op);
    let Some(&t) = ops.first() else { return };
    p.print_operand(t);
    p.write(" box[");
    p.print_operands(&ops[1..]);
    p.write("]");
    print_attrs(ctx, op, p);
    p.write(" : ");
    p.print_type(ctx.value_type(t));
    print_result_type(ctx, op, p);
}

fn verify_prefetch(ctx: &Context, o: OpId) -> Result<(), String> {
    let ops = ctx.operands(o);
    if ops.is_empty() || ops.len() > 2 || !ctx.results(o).is_empty() {
        return Err("expects a tensor map and an optional predicate".into());
    }
    tensor_map(ctx, ops[0], "operand #0")?;
    if ops.len() == 2 && !is_type(ctx, ops[1], &Type::i1()) {
        return Err("predicate must be i1".into());
    }
    Ok(())
}

/// Upstream `WarpgroupGenerateDescriptorOp::verify`: a 2-d shared tile whose layout the
/// tensor map's swizzle gives; rtile also requires the tile to be whole boxes (outer extent
/// equal, inner a multiple of the box's), since the descriptor reads it as TMA wrote it —
/// or the transpose of whole boxes: a K-major B is the logical `k × n` operand of boxes of
/// `n` rows × k (`nvgpu.warpgroup.mma` without `transposeB` decodes which).
fn verify_generate(ctx: &Context, o: OpId) -> Result<(), String> {
    let ops = ctx.operands(o);
    if ops.len() != 2 || ctx.results(o).len() != 1 {
        return Err("expects a shared tile, a tensor map and one result".into());
    }
    let tt = ctx.value_type(ops[0]);
    let (shape, elem, _) = memref_parts(tt).ok_or("operand #0 must be a memref")?;
    if !in_workgroup(tt) || shape.len() != 2 {
        return Err("operand #0 must be a 2-d memref in shared memory".into());
    }
    let map = tensor_map(ctx, ops[1], "operand #1")?;
    let d = descriptor(ctx, ctx.result(o, 0), "result #0")?;
    if d.shape != shape || d.elem != *elem {
        return Err("the descriptor's tensor must be the operand's memref type".into());
    }
    // A batched operand's box is one slice of each batch axis (`[1, rows, cols]`,
    // `[rows, 1, cols]`, ..): its matrix is rows × the last dimension.
    let (b0, b1) = match (map.box_shape.len(), map.matrix_box()) {
        (2.., Some(rc)) => rc,
        _ => {
            return Err(
                "the tensor map's box must be 2-d, or have extents of 1 but on its rows and last dimension (one batch slice)"
                    .into(),
            );
        }
    };
    let whole = |rows: i64, cols: i64| rows == b0 && cols % b1 == 0;
    if map.elem != *elem || !(whole(shape[0], shape[1]) || whole(shape[1], shape[0])) {
        return Err(format!(
            "memref and tensor map shapes mismatch '{}' != '{}'",
            render_box(&map),
            ts(tt)
        ));
    }
    Ok(())
}

fn render_box(map: &TensorMapType) -> String {
    let dims: Vec<String> = map.box_shape.iter().map(|d| d.to_string()).collect();
    format!("memref<{}x{}, 3>", dims.join("x"), ts(&map.elem))
}

fn verify_init_acc(ctx: &Context, o: OpId) -> Result<(), String> {
    if !ctx.operands(o).is_empty() || ctx.results(o).len() != 1 {
        return Err("expects no operands and one result".into());
    }
    accumulator(ctx, ctx.result(o, 0), "result #0").map(|_| ())
}

/// Upstream `WarpgroupMmaOp::verify`: A is M×K, B is K×N, C and D are M×N with M a
/// multiple of 64 and K of 16; one operand element type for A and B.
fn verify_mma(ctx: &Context, o: OpId) -> Result<(), String> {
    let ops = ctx.operands(o);
    if ops.len() != 3 || ctx.results(o).len() != 1 {
        return Err("expects descriptorA, descriptorB, matrixC and one result".into());
    }
    let a = descriptor(ctx, ops[0], "operand #0")?;
    let b = descriptor(ctx, ops[1], "operand #1")?;
    let c = accumulator(ctx, ops[2], "operand #2")?;
    if ctx.value_type(ctx.result(o, 0)) != ctx.value_type(ops[2]) {
        return Err("the result type must be matrixC's type".into());
    }
    let (m, k, kb, n) = (a.shape[0], a.shape[1], b.shape[0], b.shape[1]);
    if a.elem != b.elem {
        return Err("descriptorA and descriptorB must have one element type".into());
    }
    if m != c.m || n != c.n || k != kb {
        return Err(format!(
            "shapes do not compose: A {m}x{k}, B {kb}x{n}, accumulator {}x{}",
            c.m, c.n
        ));
    }
    if k % 16 != 0 {
        return Err(format!("K ({k}) must be a multiple of 16 (wgmma k16)"));
    }
    // PTX `imm-trans-a` exists for f16/bf16 operands only (§9.7.15.5.2).
    let half = a.elem == Type::float(rtile::ir::FloatKind::F16)
        || a.elem == Type::float(rtile::ir::FloatKind::BF16);
    if ctx.inherent_attr(o, "transposeA").is_some() && !half {
        return Err("transposeA (an MN-major A) needs f16 or bf16 operands".into());
    }
    Ok(())
}

/// Upstream `WarpgroupMmaStoreOp::verify`: the destination has the accumulator's shape.
fn verify_store(ctx: &Context, o: OpId) -> Result<(), String> {
    let ops = ctx.operands(o);
    if ops.len() != 2 || !ctx.results(o).is_empty() {
        return Err("expects matrixD and a destination memref".into());
    }
    let d = accumulator(ctx, ops[0], "operand #0")?;
    let (shape, elem, _) =
        memref_parts(ctx.value_type(ops[1])).ok_or("operand #1 must be a memref")?;
    if shape != [d.m, d.n] || *elem != Type::f32() {
        return Err(format!(
            "results [{}][{}] values. However, destination memref{shape:?} of {} does not have same size as results",
            d.m,
            d.n,
            ts(elem)
        ));
    }
    Ok(())
}

/// `$tm[$coords], $barriers[$mbarId] to $dst (multicast_mask = $m)? (, predicate = $p)?
/// attr-dict : type($tm), type($barriers) -> type($dst)`.
fn parse_tma_load(
    p: &mut OpAsmParser<'_, '_>,
    state: &mut OperationState,
) -> Result<(), Diagnostic> {
    let (tm, coords) = parse_indexed(p)?;
    p.parse_punct(",")?;
    let (bars, id) = parse_barrier(p)?;
    p.parse_keyword("to")?;
    let dst = p.parse_operand()?;
    let mask = if p.parse_optional_keyword("multicast_mask") {
        p.parse_punct("=")?;
        Some(p.parse_operand()?)
    } else {
        None
    };
    let pred = parse_optional_predicate(p)?;
    let mut props = Vec::new();
    parse_dict(p, state, &[], &mut props)?;
    let tt = p.parse_colon_type()?;
    p.parse_punct(",")?;
    let bt = p.parse_type()?;
    p.parse_punct("->")?;
    let dt = p.parse_type()?;
    for (x, t) in [(&dst, dt), (&bars, bt), (&tm, tt)] {
        let v = p.resolve_operand(x, &t)?;
        state.operands.push(v);
    }
    for x in coords.iter().chain([&id]) {
        let v = p.resolve_operand(x, &Type::index())?;
        state.operands.push(v);
    }
    if let Some(x) = &mask {
        let v = p.resolve_operand(x, &Type::int(16))?;
        state.operands.push(v);
    }
    if let Some(x) = &pred {
        let v = p.resolve_operand(x, &Type::i1())?;
        state.operands.push(v);
    }
    let seg = [
        1,
        1,
        1,
        coords.len(),
        1,
        usize::from(mask.is_some()),
        usize::from(pred.is_some()),
    ];
    props.push(NamedAttribute {
        name: "operandSegmentSizes".into(),
        value: Attribute::new(AttrKind::DenseArray(DenseArray::Int {
            elem: Type::i32(),
            values: seg.iter().map(|&x| x as i64).collect(),
        })),
    });
    set_props(state, props);
    Ok(())
}

fn print_tma_load(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    let ops = ctx.operands(op);
    let Some([_, _, _, nc, _, nm, np]) = tma_load_segments(ctx, op) else {
        return;
    };
    print_indexed(p, ops[2], &ops[3..3 + nc]);
    p.write(", ");
    print_barrier(p, ops[1], ops[3 + nc]);
    p.write(" to ");
    p.print_operand(ops[0]);
    if nm == 1 {
        p.write(" multicast_mask = ");
        p.print_operand(ops[4 + nc]);
    }
    print_optional_predicate(p, (np == 1).then(|| ops[4 + nc + nm]));
    print_dict(ctx, op, p, &["operandSegmentSizes"]);
    p.write(" : ");
    p.print_type(ctx.value_type(ops[2]));
    p.write(", ");
    p.print_type(ctx.value_type(ops[1]));
    p.write(" -> ");
    p.print_type(ctx.value_type(ops[0]));
}

/// `$tm (, predicate = $p)? attr-dict : type($tm)`.
fn parse_prefetch(
    p: &mut OpAsmParser<'_, '_>,
    state: &mut OperationState,
) -> Result<(), Diagnostic> {
    let tm = p.parse_operand()?;
    let pred = parse_optional_predicate(p)?;
    parse_attrs(p, state)?;
    let tt = p.parse_colon_type()?;
    let v = p.resolve_operand(&tm, &tt)?;
    state.operands.push(v);
    if let Some(x) = &pred {
        let v = p.resolve_operand(x, &Type::i1())?;
        state.operands.push(v);
    }
    Ok(())
}

fn print_prefetch(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    let ops = ctx.operands(op);
    let Some(&tm) = ops.first() else { return };
    p.print_operand(tm);
    print_optional_predicate(p, ops.get(1).copied());
    print_attrs(ctx, op, p);
    p.write(" : ");
    p.print_type(ctx.value_type(tm));
}

/// `$tensor, $tm attr-dict : type($tensor), type($tm) -> type($descriptor)`.
fn parse_generate(
    p: &mut OpAsmParser<'_, '_>,
    state: &mut OperationState,
) -> Result<(), Diagnostic> {
    let t = p.parse_operand()?;
    p.parse_punct(",")?;
    let tm = p.parse_operand()?;
    parse_attrs(p, state)?;
    let ttype = p.parse_colon_type()?;
    p.parse_punct(",")?;
    let mtype = p.parse_type()?;
    p.parse_punct("->")?;
    let rt = p.parse_type()?;
    for (x, ty) in [(&t, ttype), (&tm, mtype)] {
        let v = p.resolve_operand(x, &ty)?;
        state.operands.push(v);
    }
    state.result_types.push(rt);
    Ok(())
}

fn print_generate(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    let ops = ctx.operands(op);
    if ops.len() != 2 {
        return;
    }
    p.print_operand(ops[0]);
    p.write(", ");
    p.print_operand(ops[1]);
    print_attrs(ctx, op, p);
    p.write(" : ");
    p.print_type(ctx.value_type(ops[0]));
    p.write(", ");
    p.print_type(ctx.value_type(ops[1]));
    print_result_type(ctx, op, p);
}

fn print_result_type(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    if let Some(&r) = ctx.results(op).first() {
        p.write(" -> ");
        p.print_type(ctx.value_type(r));
    }
}

/// `attr-dict -> type`.
fn parse_init_acc(
    p: &mut OpAsmParser<'_, '_>,
    state: &mut OperationState,
) -> Result<(), Diagnostic> {
    parse_attrs(p, state)?;
    p.parse_punct("->")?;
    let t = p.parse_type()?;
    state.result_types.push(t);
    Ok(())
}

fn print_init_acc(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    print_attrs(ctx, op, p);
    print_result_type(ctx, op, p);
}

/// `$a, $b, $c attr-dict : type($a), type($b), type($c) -> type($d)`; `waitGroup`,
/// `transposeA` and `transposeB` are properties.
fn parse_mma(p: &mut OpAsmParser<'_, '_>, state: &mut OperationState) -> Result<(), Diagnostic> {
    let vals = p.parse_operand_list()?;
    let mut props = Vec::new();
    parse_dict(
        p,
        state,
        &["waitGroup", "transposeA", "transposeB"],
        &mut props,
    )?;
    let tys = {
        p.parse_punct(":")?;
        p.parse_type_list()?
    };
    p.parse_punct("->")?;
    let rt = p.parse_type()?;
    if tys.len() != vals.len() {
        return Err(p.error_here(format!("expected {} operand types", vals.len())));
    }
    for (v, t) in vals.iter().zip(&tys) {
        let r = p.resolve_operand(v, t)?;
        state.operands.push(r);
    }
    state.result_types.push(rt);
    set_props(state, props);
    Ok(())
}

fn print_mma(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    let ops = ctx.operands(op);
    p.print_operands(ops);
    print_dict(ctx, op, p, &[]);
    p.write(" : ");
    let tys: Vec<Type> = ops.iter().map(|&v| *ctx.value_type(v)).collect();
    p.print_types(&tys);
    print_result_type(ctx, op, p);
}

/// `$d, $dst attr-dict : type($d) to type($dst)`.
fn parse_store(p: &mut OpAsmParser<'_, '_>, state: &mut OperationState) -> Result<(), Diagnostic> {
    let d = p.parse_operand()?;
    p.parse_punct(",")?;
    let dst = p.parse_operand()?;
    parse_attrs(p, state)?;
    let dt = p.parse_colon_type()?;
    p.parse_keyword("to")?;
    let mt = p.parse_type()?;
    for (x, t) in [(&d, dt), (&dst, mt)] {
        let v = p.resolve_operand(x, &t)?;
        state.operands.push(v);
    }
    Ok(())
}

fn print_store(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    let ops = ctx.operands(op);
    if ops.len() != 2 {
        return;
    }
    p.print_operand(ops[0]);
    p.write(", ");
    p.print_operand(ops[1]);
    print_attrs(ctx, op, p);
    p.write(" : ");
    p.print_type(ctx.value_type(ops[0]));
    p.write(" to ");
    p.print_type(ctx.value_type(ops[1]));
}

/// Whether `t` is one of the sm_90 opaque types (tensor map, warpgroup descriptor or
/// accumulator, mbarrier group or token).
pub fn is_sm90_type(t: &Type) -> bool {
    matches!(t.kind(), TypeKind::Dialect { dialect, body } if dialect == "nvgpu"
        && ["tensormap.descriptor<", "warpgroup.descriptor<", "warpgroup.accumulator<", "mbarrier.group<"]
            .iter().any(|p| body.starts_with(p)) || body == "mbarrier.token")
}
