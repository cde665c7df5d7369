//! The host function of a lowered te function (a whole model: computes, reshapes, tensor
//! constants). Every te value lives in one *storage*: a function argument (inputs, then
//! one output memref per result), a `memref.global` (tensor constants), or a buffer of the
//! intermediates' arena (`arena.rs`). Reshapes are views of their operand's storage
//! (`memref.collapse_shape` / `memref.expand_shape`, no copy); a result computed under a
//! reshape is written through the inverse view of the output memref; a result no kernel
//! writes (an argument, a constant, a view of one, a value returned twice) is copied into
//! its output memref by a host `gpu.memcpy` after the launches. See
//! `docs/passes/lower-to-gpu.md`, "Host code".

use std::collections::{HashMap, HashSet};

use rtile::diagnostics::Diagnostic;
use rtile::ir::attributes::Attribute;
use rtile::ir::{AttrKind, BlockId, Builder, Context, OpId, Type, TypeKind, Value};
use rtile_dialects::te::ir::{COMPUTE, compute_from_op};
use rtile_dialects::te::model::{TeCompute, TensorType};
use rtile_dialects::tensor::{COLLAPSE, EXPAND};
use rtile_dialects::tilegraph::{DEVICE as TG_DEVICE, KERNEL};

use super::arena::{Lifetime, assign};
use super::fuse::{fuse_kernel, fuse_kernel_results, result_members};
use super::kernel::{LowerOptions, LoweredKernel, lower_compute_opts, lower_fused};
use super::pass::{func_name, memref_of, segment_sizes, selected_program, set_locations};
use super::persistent::Packing;
use super::tile_program::program_from_tiles;
use crate::autoschedule_beam::pass::ROOT as BEAM_ROOT;
use crate::device::Device;
use rtile_dialects::tilegraph::CONFIG;

pub use rtile_dialects::rtile::PEAK_BYTES;
use rtile_dialects::rtile::SPLIT_RESULT;

/// One launch of a function: its kernel (an index into the kernels), the te values it
/// reads in kernel-argument order, and the results it writes, in output order (one but
/// for a `tilegraph.kernel` with several results lowered as one kernel).
pub(super) struct ComputeLaunch {
    kernel: usize,
    inputs: Vec<Value>,
    results: Vec<Value>,
}

/// Where a storage's root value lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Root {
    /// Host argument `i` (an input).
    Input(usize),
    /// A tensor constant: index into the function's constants.
    Const(usize),
    /// A compute's result written into output `j`, whose te value is the returned one.
    Output(usize, Value),
    /// A compute's result in the arena: index into the intermediates.
    Temp(usize),
}

/// The te function read for lowering: launches, reshapes (result -> (operand, op)),
/// constants (value -> its elements attribute) and the returned values.
struct TeFunc {
    launches: Vec<ComputeLaunch>,
    parent: HashMap<Value, (Value, OpId)>,
    constants: Vec<(Value, Attribute)>,
    returned: Vec<Value>,
    /// The `func.return` (diagnostics about results point at it).
    ret: Option<OpId>,
}

/// The module's `memref.global`s of tensor constants, by value attribute (each distinct
/// constant once per module) and the symbol names taken.
#[derive(Default)]
pub(crate) struct Globals {
    by_value: HashMap<Attribute, String>,
    taken: HashSet<String>,
}

impl Globals {
    /// With the names of `module`'s existing symbols taken.
    pub(super) fn new(ctx: &Context, module: OpId) -> Globals {
        let mut g = Globals::default();
        if let Some(body) = ctx
            .regions(module)
            .first()
            .and_then(|r| ctx.region_blocks(*r).first().copied())
        {
            for op in ctx.block_ops(body) {
                if let Some(n) = ctx.inherent_attr(op, "sym_name").and_then(|a| a.as_str()) {
                    g.taken.insert(n.to_string());
                }
            }
        }
        g
    }

    /// The global holding `value` (a tensor constant), built before `anchor` the first
    /// time: `memref.global "private" constant @__constant_<handle or shape>`.
    fn global_for(&mut self, b: &mut Builder, anchor: OpId, value: Attribute, ty: &Type) -> String {
        let stem = match value.kind() {
            AttrKind::DenseResource { handle, .. } => handle
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect::<String>(),
            _ => {
                let t = TensorType::from_type(ty);
                t.map(|t| {
                    t.shape
                        .iter()
                        .map(|d| format!("{d}x"))
                        .chain([t.elem.keyword().to_string()])
                        .collect::<String>()
                })
                .unwrap_or_else(|| "tensor".into())
            }
        };
        self.global_named(b, anchor, value, ty, &stem)
    }

    /// The global holding `value` (a tensor constant of type `ty`), built before `anchor`
    /// the first time as `@__constant_<stem>` (a suffix makes the name unique).
    pub(super) fn global_named(
        &mut self,
        b: &mut Builder,
        anchor: OpId,
        value: Attribute,
        ty: &Type,
        stem: &str,
    ) -> String {
        if let Some(n) = self.by_value.get(&value) {
            return n.clone();
        }
        let base = format!("__constant_{stem}");
        let mut name = base.clone();
        let mut n = 0;
        while self.taken.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.taken.insert(name.clone());
        self.by_value.insert(value, name.clone());
        let ip = b.insertion_point();
        b.set_insertion_point(anchor);
        b.op("memref.global")
            .property("constant", Attribute::unit())
            .property("initial_value", value)
            .property("sym_name", Attribute::string(name.clone()))
            .property("sym_visibility", Attribute::string("private"))
            .property("type", Attribute::new(AttrKind::Type(memref_type(ty))))
            .build();
        b.restore_insertion_point(ip);
        name
    }
}

/// The memref of the same shape and element type as tensor type `t`.
fn memref_type(t: &Type) -> Type {
    Type::memref(
        t.shape().map(<[i64]>::to_vec).unwrap_or_default(),
        t.element_type().cloned().unwrap_or_else(Type::f32),
    )
}

/// Bytes of a tensor of type `t` on the device (an `i1` takes a byte).
fn tensor_bytes(t: &TensorType) -> u64 {
    t.num_elements().max(0) as u64 * u64::from(t.elem.width().div_ceil(8))
}

/// The tensor-typed value of an `arith.constant` (dense or dense_resource elements).
fn tensor_constant(ctx: &Context, op: OpId) -> Option<Attribute> {
    let v = *ctx.inherent_attr(op, "value")?;
    match v.kind() {
        AttrKind::DenseElements { ty, .. } | AttrKind::DenseResource { ty, .. }
            if TensorType::from_type(ty).is_some() =>
        {
            Some(v)
        }
        _ => None,
    }
}

/// The kernels generated so far in a module, by what determines their code: the compute
/// (its `Debug` form: axes, inputs, accesses, body, combiner, result, padding) and the
/// program and options it is lowered with. A model repeats layers of one shape (ResNet-50's
/// 179 computes need 77 distinct kernels), and each distinct kernel costs code generation
/// and ptxas time; the copies would differ only in their locations.
pub(super) struct KernelKeys {
    /// Off (`dedup-kernels=false`): every compute gets its own kernel.
    enabled: bool,
    by_key: HashMap<String, usize>,
    /// Launches that reuse a kernel (the `reused-kernels` statistic).
    pub(super) reused: u64,
}

impl KernelKeys {
    pub(super) fn new(enabled: bool) -> KernelKeys {
        KernelKeys {
            enabled,
            by_key: HashMap::new(),
            reused: 0,
        }
    }
}

/// Reads `f`'s body, lowering each compute to a kernel (appended to `kernels`, or an
/// identical one reused, see [`KernelKeys`]).
fn read_func(
    ctx: &mut Context,
    body: BlockId,
    kernels: &mut Vec<LoweredKernel>,
    seen: &mut KernelKeys,
    (opts, packed): (LowerOptions, bool),
    name: &str,
) -> Result<TeFunc, Diagnostic> {
    let mut known: HashSet<Value> = ctx.block_args(body).iter().copied().collect();
    let mut tf = TeFunc {
        launches: Vec::new(),
        parent: HashMap::new(),
        constants: Vec::new(),
        returned: Vec::new(),
        ret: None,
    };
    let ops: Vec<OpId> = ctx.block_ops(body).collect();
    for op in ops {
        match ctx.op_name(op) {
            COMPUTE => {
                let (c, vals) =
                    compute_from_op(ctx, op).map_err(|m| Diagnostic::op_error(ctx, op, m))?;
                let p = selected_program(ctx, op)?;
                // A packed compute (`packed`) is an rOperator: lowered as the pack counted
                // its rTasks, with their cross-thread split (`persistent::RTaskShape`).
                let opts = if packed {
                    let shape = super::persistent::RTaskShape::of(&c, &p);
                    super::persistent::rtask_options(opts, shape)
                } else {
                    opts
                };
                let inputs = compute_inputs(ctx, op, &c, &vals)?;
                let key = format!("{c:?}|{p:?}|{opts:?}");
                if let Some(&k) = seen.by_key.get(&key).filter(|_| seen.enabled) {
                    if inputs.iter().any(|v| !known.contains(v)) {
                        return Err(undefined_input(ctx, op));
                    }
                    let result = ctx.result(op, 0);
                    known.insert(result);
                    tf.launches.push(ComputeLaunch {
                        kernel: k,
                        inputs,
                        results: vec![result],
                    });
                    seen.reused += 1;
                    continue;
                }
                seen.by_key.insert(key, kernels.len());
                let kname = format!("{name}_{}", kernels.len());
                let k = lower_compute_opts(ctx, &c, &p, &kname, opts)
                    .map_err(|m| Diagnostic::op_error(ctx, op, format!("cannot lower: {m}")))?;
                super::persistent::mark_rop(ctx, op, k.func);
                let result = ctx.result(op, 0);
                push_launch(
                    ctx,
                    op,
                    k,
                    inputs,
                    vec![result],
                    &mut known,
                    &mut tf,
                    kernels,
                )?;
            }
            KERNEL => {
                // One kernel writing every result (`results.rs`) where it plans and lowers.
                let kname = format!("{name}_{}", kernels.len());
                let one = (opts.one_kernel_results && ctx.results(op).len() > 1)
                    .then(|| fuse_kernel_results(ctx, op).ok())
                    .flatten()
                    .and_then(|g| Some((lower_fused(ctx, &g, &kname, opts).ok()?, g.args)));
                if let Some((k, args)) = one {
                    carry_root(ctx, op, k.func);
                    let results = ctx.results(op).to_vec();
                    push_launch(ctx, op, k, args, results, &mut known, &mut tf, kernels)?;
                    continue;
                }
                // Else one kernel per result (see `fuse::result_members`).
                let subs = result_members(ctx, op).map_err(|e| {
                    Diagnostic::op_error(ctx, op, format!("cannot lower as one fused kernel: {e}"))
                })?;
                for (i, members) in subs.iter().enumerate() {
                    let kname = format!("{name}_{}", kernels.len());
                    let (k, inputs) = lower_tilegraph_kernel(ctx, op, members, opts, &kname)?;
                    carry_root(ctx, op, k.func);
                    if subs.len() > 1 {
                        let at = Attribute::dense_i64_array(vec![i as i64, subs.len() as i64]);
                        ctx.set_attr(k.func, SPLIT_RESULT, at);
                    }
                    let result = ctx.result(op, i);
                    push_launch(
                        ctx,
                        op,
                        k,
                        inputs,
                        vec![result],
                        &mut known,
                        &mut tf,
                        kernels,
                    )?;
                }
            }
            COLLAPSE | EXPAND => {
                let src = ctx.operands(op).first().copied();
                let Some(src) = src.filter(|v| known.contains(v)) else {
                    return Err(Diagnostic::op_error(
                        ctx,
                        op,
                        "reshapes a value that is not defined earlier in the function",
                    ));
                };
                let r = ctx.result(op, 0);
                if TensorType::from_type(ctx.value_type(r)).is_none() {
                    return Err(Diagnostic::op_error(ctx, op, "must give a static tensor"));
                }
                known.insert(r);
                tf.parent.insert(r, (src, op));
            }
            "arith.constant" => {
                let Some(v) = tensor_constant(ctx, op) else {
                    return Err(Diagnostic::op_error(
                        ctx,
                        op,
                        "only tensor constants (dense or dense_resource elements of a static tensor type) are lowered in a function lowered to the GPU",
                    ));
                };
                let r = ctx.result(op, 0);
                known.insert(r);
                tf.constants.push((r, v));
            }
            "func.return" => {
                tf.returned = ctx.operands(op).to_vec();
                tf.ret = Some(op);
            }
            other => {
                return Err(Diagnostic::op_error(
                    ctx,
                    op,
                    format!("cannot lower '{other}' inside a function lowered to the GPU"),
                ));
            }
        }
    }
    Ok(tf)
}

/// Copies the search's root stage (`beam.root`, set by `--autoschedule-beam` on a
/// `tilegraph.kernel`) and `--connect`'s configuration key (`tilegraph.config`) to a
/// `gpu.func` lowered from that kernel: a kernel timed alone on a GPU names the search's
/// kernel it implements (`rtile-bench records --measured`) or the configuration it is
/// (`rtile-bench connect-profile`).
fn carry_root(ctx: &mut Context, kernel: OpId, func: OpId) {
    for name in [BEAM_ROOT, CONFIG] {
        if let Some(a) = ctx.attr(kernel, name).cloned() {
            ctx.set_attr(func, name, a);
        }
    }
}

/// The values `c` (the compute `op`) reads, in kernel-argument order (one per input).
fn compute_inputs(
    ctx: &Context,
    op: OpId,
    c: &TeCompute,
    vals: &[Value],
) -> Result<Vec<Value>, Diagnostic> {
    (0..c.inputs.len())
        .map(|i| {
            c.accesses
                .iter()
                .position(|a| a.input == i)
                .and_then(|ai| vals.get(ai).copied())
                .ok_or_else(|| Diagnostic::op_error(ctx, op, "an input is never read"))
        })
        .collect()
}

fn undefined_input(ctx: &Context, op: OpId) -> Diagnostic {
    Diagnostic::op_error(
        ctx,
        op,
        "an input is not an argument, a constant, a reshape or an earlier compute",
    )
}

/// Records the launch of kernel `k` for `op` (a compute, or a `tilegraph.kernel` of
/// which `k` computes `results`) reading `inputs`, which must be defined earlier.
#[allow(clippy::too_many_arguments)]
fn push_launch(
    ctx: &mut Context,
    op: OpId,
    k: LoweredKernel,
    inputs: Vec<Value>,
    results: Vec<Value>,
    known: &mut HashSet<Value>,
    tf: &mut TeFunc,
    kernels: &mut Vec<LoweredKernel>,
) -> Result<(), Diagnostic> {
    if inputs.iter().any(|v| !known.contains(v)) {
        ctx.erase_op(k.func);
        return Err(undefined_input(ctx, op));
    }
    let loc = ctx.op(op).location.clone();
    set_locations(ctx, k.func, &loc);
    known.extend(results.iter().copied());
    tf.launches.push(ComputeLaunch {
        kernel: kernels.len(),
        inputs,
        results,
    });
    kernels.push(k);
    Ok(())
}

/// The te ops `members` of a `tilegraph.kernel` `op` (after `--connect`; one entry of
/// [`result_members`]) as one kernel: a single te op under its selected program (or,
/// without one, the program of its `tilegraph.tiles`), several as one fused kernel
/// (`fuse.rs`). Returns the kernel and the values it reads in order.
fn lower_tilegraph_kernel(
    ctx: &mut Context,
    op: OpId,
    members: &[OpId],
    opts: LowerOptions,
    kname: &str,
) -> Result<(LoweredKernel, Vec<Value>), Diagnostic> {
    if let [m] = *members
        && ctx.op_name(m) == COMPUTE
    {
        let (c, vals) = compute_from_op(ctx, m).map_err(|e| Diagnostic::op_error(ctx, m, e))?;
        let p = match selected_program(ctx, m) {
            Ok(p) => p,
            Err(_) => {
                let device = ctx
                    .attr(op, TG_DEVICE)
                    .and_then(|a| a.as_str())
                    .unwrap_or_default()
                    .to_string();
                single_program(ctx, m, &c, &device)
                    .map_err(|e| Diagnostic::op_error(ctx, m, format!("cannot lower: {e}")))?
            }
        };
        let k = lower_compute_opts(ctx, &c, &p, kname, opts)
            .map_err(|e| Diagnostic::op_error(ctx, m, format!("cannot lower: {e}")))?;
        let inputs = compute_inputs(ctx, m, &c, &vals)?;
        return Ok((k, inputs));
    }
    let g = fuse_kernel(ctx, op, members).map_err(|e| {
        Diagnostic::op_error(ctx, op, format!("cannot lower as one fused kernel: {e}"))
    })?;
    let k = lower_fused(ctx, &g, kname, opts).map_err(|e| {
        Diagnostic::op_error(ctx, op, format!("cannot lower the fused kernel: {e}"))
    })?;
    Ok((k, g.args))
}

/// The program of a kernel's only te op `m` without a selected one: the tiles `--connect`
/// chose (`tilegraph.tiles`) when they name both layers, else Roller's best program for
/// the op alone (as `--construct-rtile` would attach; Welder-none runs one such kernel
/// per op).
fn single_program(
    ctx: &Context,
    m: OpId,
    c: &TeCompute,
    device: &str,
) -> Result<crate::construct_rtile::RProgram, String> {
    if let Ok(p) = program_from_tiles(ctx, m, c, device) {
        return Ok(p);
    }
    let dev = crate::device::Device::builtin(device).map_err(|e| e.message)?;
    let opts = crate::construct_rtile::ConstructOptions {
        top_k: 1,
        axis_fusion: false,
        ..Default::default()
    };
    let e = crate::construct_rtile::te_adapter::expr_from_compute(c)?;
    crate::construct_rtile::construct(&e, &dev, &opts)?
        .programs
        .into_iter()
        .next()
        .ok_or_else(|| format!("no rProgram fits on '{device}'"))
}

impl TeFunc {
    /// `v`, the value it reshapes, and so on up to the storage's root value.
    fn ancestors(&self, v: Value) -> Vec<Value> {
        let mut out = vec![v];
        let mut x = v;
        while let Some(&(p, _)) = self.parent.get(&x) {
            out.push(p);
            x = p;
        }
        out
    }
    fn root(&self, v: Value) -> Value {
        *self.ancestors(v).last().unwrap_or(&v)
    }
}

/// The storage of every root value: inputs, constants, outputs (each result that is a
/// compute's result, possibly reshaped, whose storage no earlier result holds) and the
/// intermediates with their lifetimes in launch order. The other results (an argument, a
/// constant, a view of one, or a value an earlier result already holds) are written by a
/// host copy: `(j, value)` per such result `j`.
fn storages(ctx: &Context, f: OpId, args: &[Value], tf: &TeFunc) -> Result<Storages, Diagnostic> {
    let mut roots: HashMap<Value, Root> = HashMap::new();
    for (i, &a) in args.iter().enumerate() {
        roots.insert(a, Root::Input(i));
    }
    for (i, (v, _)) in tf.constants.iter().enumerate() {
        roots.insert(*v, Root::Const(i));
    }
    let computed: HashSet<Value> = tf
        .launches
        .iter()
        .flat_map(|l| l.results.iter().copied())
        .collect();
    let mut copies = Vec::new();
    for (j, &r) in tf.returned.iter().enumerate() {
        let root = tf.root(r);
        if !computed.contains(&root) || roots.contains_key(&root) {
            copies.push((j, r));
        } else {
            roots.insert(root, Root::Output(j, r));
        }
    }
    let mut lifetimes = Vec::new();
    for (i, l) in tf.launches.iter().enumerate() {
        for &result in &l.results {
            if roots.contains_key(&result) {
                continue;
            }
            let last = tf
                .launches
                .iter()
                .enumerate()
                .filter(|(_, m)| m.inputs.iter().any(|&v| tf.root(v) == result))
                .map(|(k, _)| k)
                .max()
                .unwrap_or(i);
            let t = TensorType::from_type(ctx.value_type(result))
                .ok_or_else(|| Diagnostic::op_error(ctx, f, "results must be static tensors"))?;
            roots.insert(result, Root::Temp(lifetimes.len()));
            lifetimes.push(Lifetime {
                bytes: tensor_bytes(&t),
                first: i,
                last,
            });
        }
    }
    Ok(Storages {
        roots,
        lifetimes,
        copies,
    })
}

/// What [`storages`] finds: each root value's storage, the intermediates' lifetimes, and
/// the results a host copy writes (`(result index, returned value)`).
struct Storages {
    roots: HashMap<Value, Root>,
    lifetimes: Vec<Lifetime>,
    copies: Vec<(usize, Value)>,
}

/// The host signature of `f`: its arguments, then one output memref per result.
fn host_params(
    ctx: &Context,
    f: OpId,
    body: BlockId,
    tf: &TeFunc,
) -> Result<Vec<Type>, Diagnostic> {
    let mut params = Vec::new();
    for &v in ctx.block_args(body).iter().chain(&tf.returned) {
        let t = TensorType::from_type(ctx.value_type(v)).ok_or_else(|| {
            Diagnostic::op_error(ctx, f, "arguments and results must be static tensors")
        })?;
        params.push(memref_of(&t));
    }
    Ok(params)
}

/// Emits the memrefs of te values in the host function as they are first needed.
/// The TMA tensor maps a kernel takes after its memrefs (`rtile.tensor_map_of`), built in
/// host code as upstream does: the memref cast to unranked, then
/// `nvgpu.tma.create.descriptor` with the map's box.
fn tensor_maps(
    b: &mut Builder,
    views: &mut Views,
    k: &LoweredKernel,
    memrefs: &[Value],
) -> Vec<Value> {
    use rtile_dialects::nvgpu::sm90_types::TensorMapType;
    let of = b
        .ctx()
        .attr(k.func, rtile_dialects::rtile::TENSOR_MAP_OF)
        .and_then(|a| a.as_dense_ints().map(|v| v.to_vec()))
        .unwrap_or_default();
    let maps: Vec<(Type, TensorMapType)> = k
        .launch
        .args
        .iter()
        .filter_map(|t| Some((*t, TensorMapType::of(t)?.ok()?)))
        .collect();
    let mut out = Vec::new();
    for (&i, (ty, map)) in of.iter().zip(maps) {
        let Some(&m) = usize::try_from(i).ok().and_then(|i| memrefs.get(i)) else {
            continue;
        };
        let unranked = Type::new(TypeKind::UnrankedMemRef {
            elem: map.elem,
            memory_space: None,
        });
        let u = b.op("memref.cast").operand(m).result(unranked).value();
        let mut args = vec![u];
        for &d in &map.box_shape {
            args.push(views.index(b, d as u64));
        }
        out.push(
            b.op("nvgpu.tma.create.descriptor")
                .operands(&args)
                .result(ty)
                .value(),
        );
    }
    out
}

struct Views<'t> {
    tf: &'t TeFunc,
    roots: HashMap<Value, Root>,
    offsets: Vec<u64>,
    held: HashMap<Value, Value>,
    params: Vec<Value>,
    n_inputs: usize,
    arena: Option<Value>,
    consts: HashMap<u64, Value>,
}

impl Views<'_> {
    fn index(&mut self, b: &mut Builder, n: u64) -> Value {
        *self.consts.entry(n).or_insert_with(|| {
            b.op("arith.constant")
                .property("value", Attribute::int(n as i64, Type::index()))
                .result(Type::index())
                .value()
        })
    }

    /// The memref holding te value `v` (`None`: an intermediate without an arena, which
    /// [`storages`] never makes).
    fn memref(
        &mut self,
        b: &mut Builder,
        globals: &mut Globals,
        anchor: OpId,
        v: Value,
    ) -> Option<Value> {
        if let Some(&m) = self.held.get(&v) {
            return Some(m);
        }
        let root = self.tf.root(v);
        let ty = |b: &Builder, x: Value| memref_type(b.ctx().value_type(x));
        // The value whose memref the storage gives directly, built on first use.
        let base_value = match self.roots[&root] {
            Root::Output(_, r) => r,
            _ => root,
        };
        if !self.held.contains_key(&base_value) {
            let base = match self.roots[&root] {
                Root::Input(i) => self.params[i],
                Root::Output(j, _) => self.params[self.n_inputs + j],
                Root::Const(i) => {
                    let (cv, attr) = self.tf.constants[i];
                    let t = *b.ctx().value_type(cv);
                    let name = globals.global_for(b, anchor, attr, &t);
                    b.op("memref.get_global")
                        .property("name", Attribute::symbol(name))
                        .result(memref_type(&t))
                        .value()
                }
                Root::Temp(k) => {
                    let off = self.index(b, self.offsets[k]);
                    let arena = self.arena?;
                    let t = ty(b, root);
                    b.op("memref.view")
                        .operands(&[arena, off])
                        .result(t)
                        .value()
                }
            };
            self.held.insert(base_value, base);
        }
        // Up from the base to the common ancestor through inverse views, then down.
        let up = self.tf.ancestors(base_value);
        let down = self.tf.ancestors(v);
        let meet = down
            .iter()
            .position(|x| up.contains(x))
            .unwrap_or(down.len() - 1);
        let lca = down[meet];
        let mut cur = self.held[&base_value];
        for w in up.iter().take_while(|&&x| x != lca) {
            let (src, op) = self.tf.parent[w];
            cur = match self.held.get(&src) {
                Some(&m) => m,
                None => {
                    let m = reshape_view(b, op, cur, ty(b, src), true);
                    self.held.insert(src, m);
                    m
                }
            };
        }
        cur = self.held.get(&lca).copied().unwrap_or(cur);
        for w in down[..meet].iter().rev() {
            let (_, op) = self.tf.parent[w];
            cur = match self.held.get(w) {
                Some(&m) => m,
                None => {
                    let m = reshape_view(b, op, cur, ty(b, *w), false);
                    self.held.insert(*w, m);
                    m
                }
            };
        }
        Some(cur)
    }
}

impl Views<'_> {
    /// The host copies of the results no kernel writes (`copies`, from [`storages`]),
    /// after every launch: one upstream `gpu.memcpy` per result, from the memref of the
    /// value it returns (an argument, a `memref.get_global`, a view of either, or the
    /// output memref an earlier result holds, viewed) into its output memref.
    fn copy_results(
        &mut self,
        b: &mut Builder,
        globals: &mut Globals,
        anchor: OpId,
        copies: &[(usize, Value)],
    ) -> Result<(), Diagnostic> {
        for &(j, v) in copies {
            // Every copied value's storage is an argument, a constant or an output.
            let src = self.memref(b, globals, anchor, v).ok_or_else(|| {
                Diagnostic::op_error(b.ctx(), anchor, "internal error: a copy from the arena")
            })?;
            let dst = self.params[self.n_inputs + j];
            b.op("gpu.memcpy").operands(&[dst, src]).build();
        }
        Ok(())
    }
}

/// The view of `src` that te reshape `op` (or, `inverse`, its inverse) gives: a
/// `memref.collapse_shape` or `memref.expand_shape` with the same reassociation.
fn reshape_view(b: &mut Builder, op: OpId, src: Value, result: Type, inverse: bool) -> Value {
    let groups = b.ctx().inherent_attr(op, "reassociation").copied();
    let expand = (b.ctx().op_name(op) == EXPAND) != inverse;
    let shape = result.shape().map(<[i64]>::to_vec).unwrap_or_default();
    let mut d = b
        .op(if expand {
            "memref.expand_shape"
        } else {
            "memref.collapse_shape"
        })
        .operand(src);
    if let Some(g) = groups {
        d = d.property("reassociation", g);
    }
    if expand {
        d = d.property("static_output_shape", Attribute::dense_i64_array(shape));
    }
    d.result(result).value()
}

/// Lowers one function: its kernels are appended to `kernels`, and its host function
/// (the arena, views, constants, one `gpu.launch_func` per compute) is built in front of
/// `f`, which is left for the caller to erase. Returns the host function and its peak.
pub(super) fn lower_func(
    ctx: &mut Context,
    f: OpId,
    kernels: &mut Vec<LoweredKernel>,
    globals: &mut Globals,
    seen: &mut KernelKeys,
    opts: LowerOptions,
    pack: Option<(&Packing, &Device)>,
) -> Result<(OpId, u64), Diagnostic> {
    let name = func_name(ctx, f);
    let body = ctx
        .regions(f)
        .first()
        .and_then(|r| ctx.region_blocks(*r).first().copied())
        .ok_or_else(|| Diagnostic::op_error(ctx, f, "has no body"))?;
    // A function packed into vdevice.programs launches one persistent kernel per program.
    let pack = pack.filter(|(p, _)| p.covers(ctx, f));
    // Its rTasks are its computes' own kernels, each marked with its rOperator: none is
    // shared with another compute.
    let mut own = KernelKeys::new(false);
    let keys = if pack.is_some() { &mut own } else { seen };
    // ... and each is lowered as the pack counted its rTasks (`read_func`).
    let mut tf = read_func(ctx, body, kernels, keys, (opts, pack.is_some()), &name)?;
    let groups = match pack {
        Some((p, _)) => {
            // A packed function's launches are its computes' (one result each).
            let results: Vec<Value> = tf
                .launches
                .iter()
                .filter_map(|l| l.results.last().copied())
                .collect();
            let g = p.order(ctx, f, &results)?;
            let mut slots: Vec<Option<ComputeLaunch>> = std::mem::take(&mut tf.launches)
                .into_iter()
                .map(Some)
                .collect();
            tf.launches = g.order.iter().filter_map(|&i| slots[i].take()).collect();
            Some(g)
        }
        None => None,
    };
    let params = host_params(ctx, f, body, &tf)?;
    let args = ctx.block_args(body).to_vec();
    let Storages {
        roots,
        mut lifetimes,
        copies,
    } = storages(ctx, f, &args, &tf)?;
    if let Some(g) = &groups {
        g.widen(&mut lifetimes);
    }
    let plan = assign(&lifetimes);
    let reference = super::reference::reference_text(ctx, f);
    let mut b = Builder::new(ctx);
    b.set_insertion_point(f);
    b.set_location(b.ctx().op(f).location.clone());
    let host = b
        .op("func.func")
        .property(
            "function_type",
            Attribute::new(AttrKind::Type(Type::function(params.clone(), vec![]))),
        )
        .property("sym_name", Attribute::string(name))
        .attr(PEAK_BYTES, Attribute::i64(plan.peak_bytes as i64))
        .attr("rtile.te", Attribute::string(reference))
        .regions(1)
        .build();
    let entry = b.create_block_in(b.ctx().regions(host)[0], &params);
    // The arguments stand for the te function's: they get its location too.
    let loc = b.location().clone();
    for i in 0..params.len() {
        b.ctx_mut().set_block_arg_location(entry, i, loc.clone());
    }
    // A packed function's step counters follow the intermediates in the arena.
    let step_ints: usize = match (&groups, pack) {
        (Some(g), Some((p, _))) => g.groups.iter().map(|(i, _)| p.veus(*i)).sum(),
        _ => 0,
    };
    let step_at = plan.peak_bytes.next_multiple_of(super::arena::ARENA_ALIGN);
    let arena_bytes = if step_ints > 0 {
        step_at + 4 * step_ints as u64
    } else {
        plan.peak_bytes
    };
    let arena = (arena_bytes > 0).then(|| {
        b.op("memref.alloc")
            .property("operandSegmentSizes", segment_sizes(&[0, 0]))
            .result(Type::memref(vec![arena_bytes as i64], Type::int(8)))
            .value()
    });
    let mut views = Views {
        tf: &tf,
        roots,
        offsets: plan.offsets.clone(),
        held: HashMap::new(),
        params: b.ctx().block_args(entry).to_vec(),
        n_inputs: args.len(),
        arena,
        consts: HashMap::new(),
    };
    if let (Some(g), Some((p, dev)), Some(arena)) = (&groups, pack, arena) {
        let step_view = |b: &mut Builder, at: u64, n: usize| {
            let off = b
                .op("arith.constant")
                .property("value", Attribute::int(at as i64, Type::index()))
                .result(Type::index())
                .value();
            b.op("memref.view")
                .operands(&[arena, off])
                .result(Type::memref(vec![n as i64], Type::i32()))
                .value()
        };
        let all = step_view(&mut b, step_at, step_ints);
        let reset_name = format!("{}_steps_reset", func_name(b.ctx(), f));
        let mut packed = vec![super::persistent::reset_steps(
            &mut b,
            &reset_name,
            step_ints,
            all,
        )];
        let mut at = step_at;
        for (prog, members) in &g.groups {
            let mut ls = Vec::new();
            for &pos in members {
                let l = &tf.launches[pos];
                let mut mems = Vec::new();
                for &v in l.inputs.iter().chain(&l.results) {
                    let m = views.memref(&mut b, globals, host, v).ok_or_else(|| {
                        Diagnostic::op_error(
                            b.ctx(),
                            f,
                            "internal error: an intermediate without an arena",
                        )
                    })?;
                    mems.push(m);
                }
                ls.push((l.kernel, mems));
            }
            let n = p.veus(*prog);
            let step = step_view(&mut b, at, n);
            at += 4 * n as u64;
            packed.push(super::persistent::launch_program(
                &mut b,
                (&mut *globals, host),
                p,
                *prog,
                &ls,
                kernels,
                dev,
                step,
            )?);
        }
        views.copy_results(&mut b, globals, host, &copies)?;
        b.op("memref.dealloc").operand(arena).build();
        b.op("func.return").build();
        // The computes' own kernels live on inside the persistent ones.
        let first = tf
            .launches
            .iter()
            .map(|l| l.kernel)
            .min()
            .unwrap_or(kernels.len());
        for k in kernels.drain(first..) {
            ctx.erase_op(k.func);
        }
        kernels.extend(packed);
        return Ok((host, plan.peak_bytes));
    }
    for l in &tf.launches {
        let k = &kernels[l.kernel];
        let (Some(grid), Some(block)) = (k.launch.grid, k.launch.block) else {
            return Err(Diagnostic::op_error(
                b.ctx(),
                f,
                format!("internal error: kernel @{} has no grid or block", k.name),
            ));
        };
        let mut operands = Vec::new();
        for d in grid.into_iter().chain(block).map(u64::from) {
            operands.push(views.index(&mut b, d));
        }
        for &v in l.inputs.iter().chain(&l.results) {
            let Some(m) = views.memref(&mut b, globals, host, v) else {
                return Err(Diagnostic::op_error(
                    b.ctx(),
                    f,
                    "internal error: an intermediate without an arena",
                ));
            };
            operands.push(m);
        }
        let memrefs = operands[6..].to_vec();
        for m in tensor_maps(&mut b, &mut views, k, &memrefs) {
            operands.push(m);
        }
        let nargs = (operands.len() - 6) as i64;
        b.op("gpu.launch_func")
            .operands(&operands)
            .property(
                "kernel",
                Attribute::new(AttrKind::SymbolRef {
                    root: "kernels".into(),
                    nested: vec![k.name.clone()],
                }),
            )
            .property(
                "operandSegmentSizes",
                segment_sizes(&[0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, nargs, 0]),
            )
            .build();
    }
    views.copy_results(&mut b, globals, host, &copies)?;
    if let Some(a) = arena {
        b.op("memref.dealloc").operand(a).build();
    }
    b.op("func.return").build();
    Ok((host, plan.peak_bytes))
}
