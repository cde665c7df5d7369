//! Reading the gpu-level IR generically: ops are recognised by name, operands,
//! properties and attributes with upstream MLIR semantics, so the back ends work on any
//! `gpu.module` in generic form (hand-written, printed by mlir-opt-22, or produced by
//! `--lower-to-gpu`) without depending on rtile's own gpu/scf/memref dialect definitions.

use rtile::diagnostics::Diagnostic;
use rtile::ir::{
    AttrKind, Attribute, BlockId, Context, OpId, Span, Type, TypeKind, Value, WalkOrder,
};
use rtile_gpu_vocab::GpuOp;

/// An error at `op`'s source position.
pub fn op_error(ctx: &Context, op: OpId, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::error(ctx.op(op).span, msg)
}

/// An error with no better position than the op that holds the value.
pub fn span_of(ctx: &Context, op: OpId) -> Option<Span> {
    ctx.op(op).span
}

/// Memory space of a memref (the vocabulary's address space).
pub use rtile_gpu_vocab::AddressSpace as MemSpace;

/// A memref type with a static shape, row-major (or static strided) layout.
#[derive(Clone, Debug, PartialEq)]
pub struct MemRefInfo {
    /// Static extents.
    pub shape: Vec<i64>,
    /// Element strides (row-major unless the layout says otherwise).
    pub strides: Vec<i64>,
    /// Element offset of the first element.
    pub offset: i64,
    /// Element type.
    pub elem: Type,
    /// Memory space.
    pub space: MemSpace,
}

impl MemRefInfo {
    /// Number of elements.
    pub fn num_elements(&self) -> i64 {
        self.shape.iter().product()
    }
    /// Extent of the addressed buffer in elements (offset + last reachable element + 1).
    pub fn span_elements(&self) -> i64 {
        if self.shape.contains(&0) {
            return 0;
        }
        self.offset
            + self
                .shape
                .iter()
                .zip(&self.strides)
                .map(|(d, s)| (d - 1) * s)
                .sum::<i64>()
            + 1
    }
}

/// Memory space of a memref's `memory_space` attribute.
pub fn mem_space(attr: Option<&Attribute>) -> Option<MemSpace> {
    MemSpace::of(attr)
}

/// Static memref information of `ty`, or why it is not supported.
pub fn memref_info(ty: &Type) -> Result<MemRefInfo, String> {
    let TypeKind::MemRef {
        shape,
        elem,
        layout,
        memory_space,
    } = ty.kind()
    else {
        return Err("expected a memref type".into());
    };
    if shape.iter().any(|&d| d < 0) {
        return Err("memrefs with dynamic extents are not supported (static shapes only)".into());
    }
    let space = mem_space(memory_space.as_ref())
        .ok_or_else(|| "unsupported memref memory space".to_string())?;
    let (strides, offset) = match layout.as_ref().map(|x| x.kind()) {
        None => (row_major_strides(shape), 0),
        Some(AttrKind::Strided { strides, offset }) => {
            if strides.contains(&rtile::ir::DYNAMIC) || *offset == rtile::ir::DYNAMIC {
                return Err(
                    "strided layouts with dynamic strides or offset are not supported".into(),
                );
            }
            (strides.clone(), *offset)
        }
        Some(AttrKind::AffineMap(m)) if is_identity_map(m, shape.len()) => {
            (row_major_strides(shape), 0)
        }
        Some(_) => {
            return Err("only identity and static strided memref layouts are supported".into());
        }
    };
    Ok(MemRefInfo {
        shape: shape.clone(),
        strides,
        offset,
        elem: Type::new((**elem).clone()),
        space,
    })
}

fn is_identity_map(m: &rtile::ir::AffineMap, rank: usize) -> bool {
    use rtile::ir::AffineExpr;
    m.num_dims as usize == rank
        && m.results.len() == rank
        && m.results
            .iter()
            .enumerate()
            .all(|(i, e)| matches!(e, AffineExpr::Dim(d) if *d as usize == i))
}

/// Row-major element strides of a static shape.
pub fn row_major_strides(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![1i64; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * shape[i + 1].max(1);
    }
    strides
}

/// The `x|y|z` of a `dimension = #gpu<dim x>` property (0, 1, 2).
pub fn dimension(ctx: &Context, op: OpId) -> Option<usize> {
    match (ctx.inherent_attr(op, "dimension")?).kind() {
        AttrKind::Dialect { body, .. } => {
            let b = body.trim_start_matches('<').trim_end_matches('>');
            let last = b.split_whitespace().last()?;
            let last = last.trim_start_matches("dim<").trim_end_matches('>');
            match last {
                "x" => Some(0),
                "y" => Some(1),
                "z" => Some(2),
                _ => None,
            }
        }
        AttrKind::Integer { value, .. } if (0..3).contains(value) => Some(*value as usize),
        _ => None,
    }
}

pub use rtile_gpu_vocab::Launch;
pub use rtile_gpu_vocab::attrs::attr_words;

/// Reads the launch description of a `gpu.func`.
pub fn launch_of(ctx: &Context, func: OpId) -> Launch {
    Launch::of(ctx, func)
}

/// One `gpu.func` and what the back ends need to know about it.
#[derive(Clone, Debug)]
pub struct KernelInfo {
    /// The `gpu.func` op.
    pub op: OpId,
    /// Symbol name.
    pub name: String,
    /// `gpu.kernel` is set.
    pub is_kernel: bool,
    /// The entry block.
    pub entry: BlockId,
    /// Function arguments (the leading entry-block arguments; their types are
    /// `launch.args`).
    pub args: Vec<Value>,
    /// Workgroup attributions (shared memory buffers).
    pub workgroup: Vec<Value>,
    /// Private attributions (per-thread buffers).
    pub private: Vec<Value>,
    /// Launch description.
    pub launch: Launch,
}

/// Every `gpu.module` under `root`, in order, with its symbol name.
pub fn gpu_modules(ctx: &Context, root: OpId) -> Vec<(OpId, String)> {
    let mut out = Vec::new();
    ctx.walk(root, WalkOrder::PreOrder, &mut |_, op| {
        if ctx.op_name(op) == "gpu.module" {
            let name = ctx
                .inherent_attr(op, "sym_name")
                .and_then(|a| a.as_str())
                .unwrap_or("gpu_module")
                .to_string();
            out.push((op, name));
        }
    });
    out
}

/// The `gpu.func` ops directly inside a `gpu.module`.
pub fn gpu_funcs(ctx: &Context, module: OpId) -> Vec<OpId> {
    let mut out = Vec::new();
    for &r in ctx.regions(module) {
        for &b in ctx.region_blocks(r) {
            for op in ctx.block_ops(b) {
                if ctx.op_name(op) == "gpu.func" {
                    out.push(op);
                }
            }
        }
    }
    out
}

/// Reads a `gpu.func`'s signature, attributions and launch description.
pub fn kernel_info(ctx: &Context, func: OpId) -> Result<KernelInfo, Diagnostic> {
    let name = ctx
        .inherent_attr(func, "sym_name")
        .and_then(|a| a.as_str())
        .ok_or_else(|| op_error(ctx, func, "gpu.func without a sym_name"))?
        .to_string();
    // A back end translates functions without results only; the arguments themselves are
    // the launch's ([`Launch::args`]), read from the signature once.
    match rtile_dialects::gpu::function_type(ctx, func) {
        Some((_, results)) if !results.is_empty() => {
            return Err(op_error(
                ctx,
                func,
                format!("gpu.func @{name}: functions with results are not supported"),
            ));
        }
        Some(_) => {}
        None => return Err(op_error(ctx, func, "gpu.func without a function_type")),
    }
    let launch = launch_of(ctx, func);
    let n_inputs = launch.args.len();
    let region = *ctx
        .regions(func)
        .first()
        .ok_or_else(|| op_error(ctx, func, "gpu.func without a body"))?;
    let blocks = ctx.region_blocks(region);
    let Some(&entry) = blocks.first() else {
        return Err(op_error(
            ctx,
            func,
            "gpu.func without a body (external functions are not supported)",
        ));
    };
    if blocks.len() > 1 {
        return Err(op_error(
            ctx,
            func,
            format!(
                "gpu.func @{name}: bodies with several blocks (cf branches) are not supported; use scf"
            ),
        ));
    }
    let all = ctx.block_args(entry).to_vec();
    let n_wg = ctx
        .inherent_attr(func, "workgroup_attributions")
        .and_then(|a| a.as_int())
        .unwrap_or(0)
        .max(0) as usize;
    if all.len() < n_inputs + n_wg {
        return Err(op_error(
            ctx,
            func,
            format!(
                "gpu.func @{name}: {} entry-block arguments for {n_inputs} inputs and {n_wg} workgroup attributions",
                all.len()
            ),
        ));
    }
    Ok(KernelInfo {
        op: func,
        is_kernel: ctx.attr(func, "gpu.kernel").is_some()
            || ctx.inherent_attr(func, "gpu.kernel").is_some(),
        name,
        entry,
        args: all[..n_inputs].to_vec(),
        workgroup: all[n_inputs..n_inputs + n_wg].to_vec(),
        private: all[n_inputs + n_wg..].to_vec(),
        launch,
    })
}

/// `arg` and the views of it inside `func` (`memref.cast`, `memref.collapse_shape`, of
/// `arg` or of such a view): what a store or load may go through to reach `arg`'s buffer.
fn aliases(ctx: &Context, func: OpId, arg: Value) -> Vec<Value> {
    let mut set = vec![arg];
    // Pre-order visits a view's definition before its uses, so one walk finds chains.
    ctx.walk(func, WalkOrder::PreOrder, &mut |_, op| {
        if matches!(ctx.op_name(op), "memref.cast" | "memref.collapse_shape")
            && ctx.operands(op).first().is_some_and(|v| set.contains(v))
        {
            set.extend(ctx.results(op).iter().copied());
        }
    });
    set
}

/// True when some `memref.store`/`vector.store` (or `nvgpu.warpgroup.mma.store`) inside
/// `func` writes through `arg` (or a view of it).
pub fn is_written(ctx: &Context, func: OpId, arg: Value) -> bool {
    let set = aliases(ctx, func, arg);
    let mut written = false;
    ctx.walk(func, WalkOrder::PreOrder, &mut |_, op| {
        let ops = ctx.operands(op);
        match ctx.op_name(op) {
            "memref.store"
            | "vector.store"
            | "vector.transfer_write"
            | "vector.maskedstore"
            | "memref.atomic_rmw"
            | "nvgpu.warpgroup.mma.store"
                if ops.get(1).is_some_and(|v| set.contains(v)) =>
            {
                written = true;
            }
            _ => {}
        }
    });
    written
}

/// True when something inside `func` reads through `arg` (or a view of it).
pub fn is_read(ctx: &Context, func: OpId, arg: Value) -> bool {
    let set = aliases(ctx, func, arg);
    let mut read = false;
    ctx.walk(func, WalkOrder::PreOrder, &mut |_, op| {
        let ops = ctx.operands(op);
        if matches!(ctx.op_name(op), "memref.load" | "vector.load")
            && ops.first().is_some_and(|v| set.contains(v))
        {
            read = true;
        }
    });
    read
}

/// The name of a scalar element type for manifests and C (`f32`, `i32`, ...).
pub fn dtype_name(t: &Type) -> Option<&'static str> {
    use rtile::ir::{FloatKind, Signedness};
    Some(match t.kind() {
        TypeKind::Float(FloatKind::F16) => "f16",
        TypeKind::Float(FloatKind::BF16) => "bf16",
        TypeKind::Float(FloatKind::F32) => "f32",
        TypeKind::Float(FloatKind::F64) => "f64",
        TypeKind::Integer { width: 1, .. } => "i1",
        TypeKind::Integer {
            width,
            signedness: Signedness::Unsigned,
        } => match width {
            8 => "u8",
            16 => "u16",
            32 => "u32",
            64 => "u64",
            _ => return None,
        },
        TypeKind::Integer { width, .. } => match width {
            8 => "i8",
            16 => "i16",
            32 => "i32",
            64 => "i64",
            _ => return None,
        },
        TypeKind::Index => "i64",
        _ => return None,
    })
}

/// The fewest operands and results an op of the gpu-level set has ([`GpuOp::min_arity`];
/// `(0, 0)` for an op outside the vocabulary, which loading refuses anyway).
pub fn min_arity(name: &str) -> (usize, usize) {
    match name {
        "arith.cmpi" | "arith.cmpf" => (2, 1),
        _ => GpuOp::from_name(name).map_or((0, 0), GpuOp::min_arity),
    }
}

/// A diagnostic when `op` has fewer operands or results than its kind needs.
pub fn check_arity(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    let name = ctx.op_name(op);
    let (o, r) = min_arity(name);
    if ctx.operands(op).len() < o || ctx.results(op).len() < r {
        return Err(op_error(
            ctx,
            op,
            format!(
                "'{name}' needs at least {o} operand(s) and {r} result(s), has {} and {}",
                ctx.operands(op).len(),
                ctx.results(op).len()
            ),
        ));
    }
    Ok(())
}

/// The first block of `op`'s region `i` (the single block of an `scf` region).
pub fn region_block(ctx: &Context, op: OpId, i: usize) -> Option<BlockId> {
    let r = *ctx.regions(op).get(i)?;
    ctx.region_blocks(r).first().copied()
}

/// An `scf.while` without loop-carried values, as both back ends translate it: the ops of
/// its `before` region up to `scf.condition`, the condition, and the `after` block.
pub struct WhileLoop {
    /// The `before` region's ops, `scf.condition` left out.
    pub before: Vec<OpId>,
    /// The value `scf.condition` tests.
    pub condition: Value,
    /// The `after` region's block.
    pub after: BlockId,
}

/// Takes `op` (an `scf.while`) apart; why not, as a message, when it has loop-carried
/// values or is malformed.
pub fn while_loop(ctx: &Context, op: OpId) -> Result<WhileLoop, &'static str> {
    if !ctx.operands(op).is_empty() || !ctx.results(op).is_empty() {
        return Err("scf.while with loop-carried values is not translated");
    }
    let (Some(before), Some(after)) = (region_block(ctx, op, 0), region_block(ctx, op, 1)) else {
        return Err("scf.while needs a before and an after region");
    };
    let mut ops = Vec::new();
    let mut condition = None;
    for o in ctx.block_ops(before) {
        if ctx.op_name(o) == "scf.condition" {
            condition = ctx.operands(o).first().copied();
        } else {
            ops.push(o);
        }
    }
    let condition = condition.ok_or("scf.while without scf.condition")?;
    Ok(WhileLoop {
        before: ops,
        condition,
        after,
    })
}
