//! `nvgpu`: the subset of upstream MLIR's NVGPU dialect that rtile's tensor-core kernels use
//! (sm_80): `nvgpu.mma.sync`, `nvgpu.ldmatrix`, `nvgpu.device_async_copy`,
//! `nvgpu.device_async_create_group` and `nvgpu.device_async_wait`, with upstream's names,
//! custom and generic syntax, properties and verification rules (upstream
//! `mlir/Dialect/NVGPU/IR/NVGPUOps.td`), so `mlir-opt-22` accepts what rtile prints. The
//! fragment shapes follow the PTX ISA's warp-level matrix fragments (PTX ISA §9.7.14.5,
//! "Matrix Fragments for mma.m16n8k16"): each lane of the warp holds its share of A, B
//! and C as a vector of 32-bit registers, `vector<regs x (32 / bits) x elem>`.

pub mod mbarrier;
pub mod sm90_types;
mod syntax;
pub mod warpgroup;

use rtile::dialect::{Dialect, OpDefinition, OpTraits};
use rtile::ir::types::Type;
use rtile::ir::{AttrKind, Context, FloatKind, OpId, TypeKind, Value};

use crate::gpu::common::{custom, is_address_space, memory_space, pure};

/// The token type of an asynchronous copy or group, `!nvgpu.device.async.token`.
pub fn token_type() -> Type {
    Type::new(TypeKind::Dialect {
        dialect: "nvgpu".into(),
        body: "device.async.token".into(),
    })
}

/// The `nvgpu` dialect subset.
pub struct NvgpuDialect;

impl Dialect for NvgpuDialect {
    fn namespace(&self) -> &'static str {
        "nvgpu"
    }
    fn description(&self) -> &'static str {
        "upstream NVGPU subset: warp-level MMA, ldmatrix, cp.async copies and groups (sm_80); mbarriers, TMA loads and warpgroup MMA (sm_90a)"
    }
    fn models_upstream_in_part(&self) -> bool {
        true
    }
    fn ops(&self) -> Vec<Box<dyn OpDefinition>> {
        use syntax::*;
        vec![
            custom(
                "nvgpu.mma.sync",
                "warp-level matrix multiply-accumulate (PTX mma.sync.aligned)",
                pure(),
                verify_mma,
                parse_mma,
                print_mma,
            ),
            custom(
                "nvgpu.ldmatrix",
                "warp-collective load of 8x8 matrices from shared memory (PTX ldmatrix)",
                OpTraits::default(),
                verify_ldmatrix,
                parse_ldmatrix,
                print_ldmatrix,
            ),
            custom(
                "nvgpu.device_async_copy",
                "asynchronous global to shared copy of 4, 8 or 16 bytes (PTX cp.async)",
                OpTraits::default(),
                verify_async_copy,
                parse_async_copy,
                print_async_copy,
            ),
            custom(
                "nvgpu.device_async_create_group",
                "commits the thread's pending asynchronous copies as one group",
                OpTraits::default(),
                verify_create_group,
                parse_create_group,
                print_create_group,
            ),
            custom(
                "nvgpu.device_async_wait",
                "waits until at most numGroups of the thread's groups are pending",
                OpTraits::default(),
                verify_wait,
                parse_wait,
                print_wait,
            ),
        ]
        .into_iter()
        .chain(mbarrier::ops())
        .chain(warpgroup::ops())
        .collect()
    }
}

/// `(shape, elem)` of a vector type.
fn vector_of(t: &Type) -> Option<(&[i64], &Type)> {
    match t.kind() {
        TypeKind::Vector { shape, elem, .. } => Some((shape, elem)),
        _ => None,
    }
}

/// Bit width of a scalar element type.
fn bits(t: &Type) -> Option<i64> {
    match t.kind() {
        TypeKind::Float(k) => Some(match k {
            FloatKind::F16 | FloatKind::BF16 => 16,
            FloatKind::F32 | FloatKind::TF32 => 32,
            FloatKind::F64 => 64,
            FloatKind::F80 => 80,
            FloatKind::F128 => 128,
            FloatKind::F6E2M3FN | FloatKind::F6E3M2FN => 6,
            FloatKind::F4E2M1FN => 4,
            _ => 8,
        }),
        TypeKind::Integer { width, .. } if *width > 0 => Some(i64::from(*width)),
        _ => None,
    }
}

fn elem_count(shape: &[i64]) -> i64 {
    shape.iter().product()
}

/// The `mmaShape = [m, n, k]` property.
pub fn mma_shape(ctx: &Context, o: OpId) -> Option<[i64; 3]> {
    let a = ctx.inherent_attr(o, "mmaShape")?.as_array()?;
    let v: Vec<i64> = a.iter().filter_map(|x| x.as_int()).collect();
    <[i64; 3]>::try_from(v).ok().filter(|_| a.len() == 3)
}

/// Upstream `MmaSyncOp::verify`: the per-lane fragments of A (m×k), B (k×n) and C (m×n)
/// hold one warp's share of the matrices, `(32 / bits)` elements per 32-bit register.
fn verify_mma(ctx: &Context, o: OpId) -> Result<(), String> {
    let ops = ctx.operands(o);
    if ops.len() != 3 || ctx.results(o).len() != 1 {
        return Err("expects 3 operands (A, B, C) and one result".into());
    }
    let [m, n, k] = mma_shape(ctx, o).ok_or("requires 'mmaShape' = [m, n, k] of 3 integers")?;
    let ty = |v: Value| ctx.value_type(v);
    let (Some((sa, ea)), Some((sb, eb)), Some((sc, ec))) = (
        vector_of(ty(ops[0])),
        vector_of(ty(ops[1])),
        vector_of(ty(ops[2])),
    ) else {
        return Err("operands must be vectors".into());
    };
    if ea != eb {
        return Err("failed to verify that matrixA and matrixB have same element type".into());
    }
    if ty(ctx.result(o, 0)) != ty(ops[2]) {
        return Err("result type must match matrix C's type".into());
    }
    let tf32 = ctx.inherent_attr(o, "tf32Enabled").is_some();
    if tf32 && !matches!(ea.kind(), TypeKind::Float(FloatKind::F32)) {
        return Err("expected tf32 tensor cores only for F32 operands".into());
    }
    let b = bits(ea).ok_or("unsupported element type")?;
    let per_reg = (32 / b).max(1);
    if sa.len() != 2 || sb.len() != 2 || sc.len() != 2 {
        return Err("fragments must be 2-D vectors (registers x elements per register)".into());
    }
    for (name, s, want) in [("A", sa, m * k), ("B", sb, k * n), ("C", sc, m * n)] {
        if elem_count(s) * 32 != want {
            return Err(format!("expected {want} warp-wide matrix {name} elements"));
        }
    }
    if sa[1] != per_reg || sb[1] != per_reg {
        return Err(format!(
            "expected A and B vectors of {per_reg} elements per register (vector<?x{per_reg}x..>)"
        ));
    }
    let cb = bits(ec).ok_or("unsupported accumulator type")?;
    if sc[1] != (64 / cb).max(1) && sc[1] != (32 / cb).max(1) {
        return Err("unexpected accumulator register shape".into());
    }
    Ok(())
}

/// True when `t` is a memref in workgroup (shared) memory (`3` or
/// `#gpu.address_space<workgroup>`).
pub(crate) fn in_workgroup(t: &Type) -> bool {
    let ms = memory_space(t);
    is_address_space(ms, "workgroup") || ms.and_then(|a| a.as_int()) == Some(3)
}

pub(crate) fn memref_parts(t: &Type) -> Option<(&[i64], &Type, bool)> {
    match t.kind() {
        TypeKind::MemRef {
            shape,
            elem,
            layout,
            ..
        } => Some((shape, elem, layout.is_none())),
        _ => None,
    }
}

fn indices_ok(ctx: &Context, vals: &[Value]) -> bool {
    vals.iter().all(|&v| *ctx.value_type(v) == Type::index())
}

/// Upstream `LdMatrixOp::verify`: shared source, `numTiles` ∈ {1, 2, 4} 8×8 matrices of
/// 32-bit rows per lane, transpose only for 16-bit elements.
fn verify_ldmatrix(ctx: &Context, o: OpId) -> Result<(), String> {
    let ops = ctx.operands(o);
    if ops.is_empty() || ctx.results(o).len() != 1 {
        return Err("expects a memref, indices and one result".into());
    }
    let mt = ctx.value_type(ops[0]);
    let (shape, elem, _) = memref_parts(mt).ok_or("source must be a memref")?;
    if ops.len() != shape.len() + 1 || !indices_ok(ctx, &ops[1..]) {
        return Err(format!("expected {} indices of type 'index'", shape.len()));
    }
    if !in_workgroup(mt) {
        return Err("expected nvgpu.ldmatrix srcMemref must have a memory space attribute of IntegerAttr(3) or gpu::AddressSpaceAttr(Workgroup)".into());
    }
    let tiles = ctx
        .inherent_attr(o, "numTiles")
        .and_then(|a| a.as_int())
        .ok_or("requires 'numTiles'")?;
    let transpose = match ctx.inherent_attr(o, "transpose").map(|a| a.kind()) {
        Some(AttrKind::Bool(b)) => *b,
        _ => return Err("requires 'transpose' (a bool)".into()),
    };
    if ![1, 2, 4].contains(&tiles) {
        return Err("expected numTiles to be 1, 2 or 4".into());
    }
    let (rs, re) = vector_of(ctx.value_type(ctx.result(o, 0))).ok_or("result must be a vector")?;
    let b = bits(elem).ok_or("unsupported element type")?;
    if re != elem {
        return Err("expected result and source element types to match".into());
    }
    if rs.len() != 2 || rs[0] != tiles {
        return Err("expected vector register shape[0] and numTiles to match".into());
    }
    if rs[1] != 32 / b.max(1) {
        return Err(format!(
            "expected vector register shape[1] = {}",
            32 / b.max(1)
        ));
    }
    if transpose && b != 16 {
        return Err("nvgpu.ldmatrix transpose works only at 16b granularity".into());
    }
    Ok(())
}

/// The operand groups of a `device_async_copy`: `(dst, dst indices, src, src indices,
/// srcElements)` from its `operandSegmentSizes`, as upstream orders them.
pub fn async_copy_segments(ctx: &Context, o: OpId) -> Option<[usize; 5]> {
    operand_segments(ctx, o)
}

/// The `operandSegmentSizes` property as `N` counts, when they add up to the operands.
pub fn operand_segments<const N: usize>(ctx: &Context, o: OpId) -> Option<[usize; N]> {
    let seg = ctx
        .inherent_attr(o, "operandSegmentSizes")?
        .as_dense_ints()?;
    let s: [usize; N] = seg
        .iter()
        .map(|&x| usize::try_from(x).ok())
        .collect::<Option<Vec<_>>>()?
        .try_into()
        .ok()?;
    (s.iter().sum::<usize>() == ctx.operands(o).len()).then_some(s)
}

/// Upstream `DeviceAsyncCopyOp::verify`: global source, shared destination, one element
/// type, unit innermost stride, a copy of 4, 8 or 16 bytes (`bypassL1` only with 16).
fn verify_async_copy(ctx: &Context, o: OpId) -> Result<(), String> {
    let ops = ctx.operands(o);
    let [nd, ndi, ns, nsi, ne] = async_copy_segments(ctx, o)
        .ok_or("requires 'operandSegmentSizes' matching its operands")?;
    if nd != 1 || ns != 1 || ne > 1 || ctx.results(o).len() != 1 {
        return Err("expects a destination, a source, optional srcElements and a token".into());
    }
    let (dst, src) = (ops[0], ops[1 + ndi]);
    let (dt, st) = (ctx.value_type(dst), ctx.value_type(src));
    let (ds, de, dl) = memref_parts(dt).ok_or("destination must be a memref")?;
    let (ss, se, sl) = memref_parts(st).ok_or("source must be a memref")?;
    if !dl || !sl {
        return Err(
            "source and destination must have the identity layout (unit innermost stride)".into(),
        );
    }
    if ndi != ds.len() {
        return Err(format!(
            "expected {} destination indices, got {ndi}",
            ds.len()
        ));
    }
    if nsi != ss.len() {
        return Err(format!("expected {} source indices, got {nsi}", ss.len()));
    }
    if !indices_ok(ctx, &ops[1..1 + ndi]) || !indices_ok(ctx, &ops[2 + ndi..]) {
        return Err("indices and srcElements must be of type 'index'".into());
    }
    if se != de {
        return Err("source and destination must have the same element type".into());
    }
    if !in_workgroup(dt) {
        return Err("destination memref must have a memory space attribute of IntegerAttr(3) or gpu::AddressSpaceAttr(Workgroup)".into());
    }
    if in_workgroup(st) {
        return Err("source memref must be in global memory".into());
    }
    if *ctx.value_type(ctx.result(o, 0)) != token_type() {
        return Err("result must be !nvgpu.device.async.token".into());
    }
    let n = ctx
        .inherent_attr(o, "dstElements")
        .and_then(|a| a.as_int())
        .ok_or("requires 'dstElements'")?;
    let b = bits(de).ok_or("unsupported element type")?;
    let bytes = n * b / 8;
    if ![4, 8, 16].contains(&bytes) || n * b % 8 != 0 {
        let ok: Vec<String> = [4, 8, 16]
            .iter()
            .filter(|&&x| x * 8 % b == 0)
            .map(|x| (x * 8 / b).to_string())
            .collect();
        return Err(format!(
            "Requested copy elements is {n} with width {b}. But copy elements could be one of {}.",
            ok.join(", ")
        ));
    }
    if ctx.inherent_attr(o, "bypassL1").is_some() && bytes != 16 {
        return Err(format!(
            "bypassL1 does not satify alignment for {} with destination element {n}. Unset bypassL1, or set destination element to {}",
            rtile::printer::type_to_string(dt),
            128 / b
        ));
    }
    Ok(())
}

fn all_tokens(ctx: &Context, vals: &[Value]) -> bool {
    vals.iter().all(|&v| *ctx.value_type(v) == token_type())
}

fn verify_create_group(ctx: &Context, o: OpId) -> Result<(), String> {
    let ops = ctx.operands(o);
    if ops.is_empty() || !all_tokens(ctx, ops) {
        return Err("expects one or more !nvgpu.device.async.token operands".into());
    }
    if ctx.results(o).len() != 1 || !all_tokens(ctx, ctx.results(o)) {
        return Err("requires one !nvgpu.device.async.token result".into());
    }
    Ok(())
}

fn verify_wait(ctx: &Context, o: OpId) -> Result<(), String> {
    let ops = ctx.operands(o);
    if ops.len() != 1 || !all_tokens(ctx, ops) || !ctx.results(o).is_empty() {
        return Err("expects one !nvgpu.device.async.token operand and no result".into());
    }
    if let Some(a) = ctx.inherent_attr(o, "numGroups") {
        match a.as_int() {
            Some(n) if n >= 0 => {}
            _ => return Err("'numGroups' must be a non-negative i32".into()),
        }
    }
    Ok(())
}
