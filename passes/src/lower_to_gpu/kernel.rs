//! Lowers one `te.compute` under one rProgram to a `gpu.func` (built in a [`Context`]) and
//! its launch description, following Roller's rProgram loop nest (§3.2, Figure 6) and code
//! generation rules (§4): see `docs/passes/lower-to-gpu.md` for the kernel's shape.

use rtile::ir::affine::AffineExpr;
use rtile::ir::attributes::NamedAttribute;
use rtile::ir::{
    AttrKind, Attribute, BlockId, Context, DYNAMIC, DenseArray, OpId, Type, TypeKind, Value,
};
use rtile_dialects::arith::CmpIPredicate;
use rtile_dialects::te::generic::{
    binary_op_name, cmpf_predicate, cmpi_predicate, float_unary_op_name,
};
use rtile_dialects::te::model::{Combiner, ElemType, Expr, TeCompute, UnOp};

use super::adapter::{distinct_reads, expr_info, linearize};
use super::emit::Emitter;
use crate::construct_rtile::device_check::program_device;
use crate::construct_rtile::{AffineIndex, RProgram, TensorExprInfo};
use crate::device::{Device, KernelLimits};

/// Grid, block and dynamic shared memory of a kernel launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchDesc {
    pub grid: [u64; 3],
    pub block: [u64; 3],
    pub dynamic_shared_memory: u64,
}

/// One lowered kernel.
#[derive(Clone, Debug)]
pub struct LoweredKernel {
    pub name: String,
    /// The `gpu.func` op, built detached in the context it was lowered in (the caller
    /// inserts it into a `gpu.module`, or erases it).
    pub func: OpId,
    pub launch: LaunchDesc,
    /// Shared memory of the kernel's buffers, bytes (storage padding included): the static
    /// workgroup attributions, or the dynamic shared memory of the launch when the buffers
    /// exceed [`STATIC_SHARED_LIMIT`] (then laid out 16-byte aligned, see [`shared_layout`]).
    pub shared_bytes: u64,
    /// Accesses staged through shared memory (one flag per te access).
    pub staged: Vec<bool>,
    /// Accesses loaded with 16-byte vector loads.
    pub vectorized: Vec<bool>,
    /// Threads per output point of the cross-thread reduction (1: none).
    pub rsplit: i64,
    /// Whether the staged k-step tiles are register-prefetched (double buffered).
    pub prefetched: bool,
}

/// A staged access in the (possibly fused) view: indices linear over view axes, the view
/// shape, and the tensor's own dims behind each view dim.
type StagedView = (Vec<AffineIndex>, Vec<i64>, Vec<Vec<usize>>);

/// How one te access is read.
struct Acc {
    /// The access's index expressions over the original axes (for direct reads).
    map: Vec<AffineExpr>,
    input: usize,
    /// Original tensor shape.
    shape: Vec<i64>,
    elem: ElemType,
    pad: Option<f64>,
    /// The distinct read (input, index map) this access is: what `pad`, the construction's
    /// inputs and the shared buffers are indexed by.
    read: usize,
    /// Staged: view indices (linear over view axes), view shape, original dims per view dim.
    view: Option<StagedView>,
}

fn ty(e: ElemType) -> Type {
    e.to_type()
}

/// `#gpu.address_space<workgroup>`.
fn workgroup() -> Attribute {
    Attribute::new(AttrKind::Dialect {
        dialect: "gpu".into(),
        body: "address_space<workgroup>".into(),
    })
}

/// `memref<shape x e>` in the default memory space.
fn memref(shape: &[i64], e: ElemType) -> Type {
    Type::memref(shape.to_vec(), ty(e))
}

/// `memref<shape x e, #gpu.address_space<workgroup>>`: a shared buffer.
fn shared_memref(shape: &[i64], e: ElemType) -> Type {
    Type::new(TypeKind::MemRef {
        shape: shape.to_vec(),
        elem: ty(e),
        layout: None,
        memory_space: Some(workgroup()),
    })
}

/// `vector<n x e>`.
fn vector(n: i64, e: ElemType) -> Type {
    Type::new(TypeKind::Vector {
        shape: vec![n],
        scalable: vec![false],
        elem: ty(e),
    })
}

/// `array<i32: ...>`.
fn i32_array(values: &[i64]) -> Attribute {
    Attribute::new(AttrKind::DenseArray(DenseArray::Int {
        elem: Type::i32(),
        values: values.to_vec(),
    }))
}

/// `static_position = array<i64: l>` of `vector.extract` / `vector.insert`.
fn position(l: i64) -> (&'static str, Attribute) {
    ("static_position", Attribute::dense_i64_array(vec![l]))
}

/// Groups consecutive original dims whose extents multiply to each view dim (any grouping
/// with matching products gives the same row-major offsets, so 1-extents may go anywhere).
fn dim_groups(orig: &[i64], view: &[i64]) -> Option<Vec<Vec<usize>>> {
    let mut groups = Vec::new();
    let mut i = 0;
    for (j, &v) in view.iter().enumerate() {
        let mut g = Vec::new();
        let mut p = 1i64;
        while i < orig.len()
            && (g.is_empty() || p < v || (p == v && orig[i] == 1 && j + 1 == view.len()))
        {
            p *= orig[i];
            g.push(i);
            i += 1;
        }
        if p != v {
            return None;
        }
        groups.push(g);
    }
    // Trailing unit dims join the last group.
    while i < orig.len() && orig[i] == 1 {
        groups.last_mut()?.push(i);
        i += 1;
    }
    (i == orig.len()).then_some(groups)
}

/// The reference text (`rtile.te`): a `func.func` holding `c` in custom form, whose
/// operands are the kernel's inputs in order.
pub fn reference_text(c: &TeCompute) -> String {
    use rtile_dialects::te::expr::{print_body, print_header};
    let names: Vec<String> = (0..c.inputs.len()).map(|i| format!("in{i}")).collect();
    let args: Vec<String> = c
        .inputs
        .iter()
        .enumerate()
        .map(|(i, t)| format!("%in{i}: {}", t.text()))
        .collect();
    let r = c.result.text();
    format!(
        "func.func @ref({}) -> {r} {{ %r = te.compute {} {{ {} }} func.return %r : {r} }}",
        args.join(", "),
        print_header(c),
        print_body(c, &names)
    )
}

struct Ctx<'a> {
    c: &'a TeCompute,
    em: Emitter<'a>,
    /// The kernel's memref arguments: the inputs, then the output.
    ins: Vec<Value>,
    out: Value,
    /// The shared buffers by slot: per distinct staged read, and the cross-thread
    /// reduction's ([`RED_SLOT`]).
    shared: Vec<(usize, Value)>,
    /// View axes: extent, block, thread, reduction, original axes (outermost first).
    ext: Vec<i64>,
    blk: Vec<i64>,
    thr: Vec<i64>,
    red: Vec<bool>,
    groups: Vec<Vec<usize>>,
    accs: Vec<Acc>,
    /// Per view axis: the tile base (block base or k-step base).
    base: Vec<Value>,
    /// Per spatial view axis: the thread's coordinate and count along it.
    tc: Vec<Value>,
    nthr: Vec<i64>,
    /// Per view axis: whether the thread's points along it are blocked (runs of 4
    /// consecutive points, see [`Ctx::local_of`]) rather than interleaved.
    blocked: Vec<bool>,
    /// Per access: its staged tile's transposed shared layout, where it has one (see
    /// [`transposable`]).
    transposed: Vec<Option<Transpose>>,
    /// Storage padding per access and view dim.
    pads: Vec<Vec<i64>>,
    /// `memref.collapse_shape` views of the kernel's arguments, built at the kernel's
    /// entry: (source, reassociation) → view, and the ops (the kernel's prologue).
    collapses: Vec<(CollapseKey, Value)>,
    collapse_ops: Vec<OpId>,
    /// Shared memory the kernel may declare statically on its device.
    static_shared: u64,
}

/// A collapsed view's source and reassociation.
type CollapseKey = (Value, Vec<Vec<usize>>);

/// One index of a global access after collapsing: a fused view axis addressing a collapsed
/// group of the tensor's dims, or one of the access's own index expressions.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Item {
    Fused(usize),
    Expr(usize),
}

/// The original axes an index expression reads.
fn mark_dims(e: &AffineExpr, used: &mut [bool]) {
    match e {
        AffineExpr::Dim(d) => {
            if let Some(u) = used.get_mut(*d as usize) {
                *u = true;
            }
        }
        AffineExpr::Add(a, b)
        | AffineExpr::Mul(a, b)
        | AffineExpr::FloorDiv(a, b)
        | AffineExpr::CeilDiv(a, b)
        | AffineExpr::Mod(a, b) => {
            mark_dims(a, used);
            mark_dims(b, used);
        }
        AffineExpr::Constant(_) | AffineExpr::Symbol(_) => {}
    }
}

/// `[[0, 1], [2]]`: an MLIR reassociation attribute.
fn reassociation(groups: &[Vec<usize>]) -> Attribute {
    Attribute::new(AttrKind::Array(
        groups
            .iter()
            .map(|g| Attribute::array(g.iter().map(|&d| Attribute::i64(d as i64)).collect()))
            .collect(),
    ))
}

impl Ctx<'_> {
    /// The shared buffer of `slot` (made by [`shared_buffers`] before the body).
    fn sh(&self, slot: usize) -> Value {
        self.shared
            .iter()
            .find(|s| s.0 == slot)
            .map_or(self.out, |s| s.1)
    }

    fn spatial(&self) -> Vec<usize> {
        (0..self.ext.len()).filter(|&a| !self.red[a]).collect()
    }
    fn reduction(&self) -> Vec<usize> {
        (0..self.ext.len()).filter(|&a| self.red[a]).collect()
    }

    /// Decomposes `v` (index) by `extents`, row-major, the first coordinate unbounded.
    fn decompose(&mut self, v: Value, extents: &[i64]) -> Vec<Value> {
        let mut out = vec![v; extents.len()];
        let mut rem = v;
        for j in (0..extents.len()).rev() {
            if j == 0 {
                out[0] = rem;
            } else if extents[j] == 1 {
                out[j] = self.em.idx(0);
            } else {
                let e = self.em.idx(extents[j]);
                out[j] = self.em.ibin("arith.remui", rem, e);
                rem = self.em.ibin("arith.divui", rem, e);
            }
        }
        out
    }

    /// Original axis values from view axis values, decomposing only the fused view axes
    /// that cover an axis in `needed` (the others' values stay `None`).
    fn orig_axes_needed(
        &mut self,
        view_vals: &[Option<Value>],
        needed: &[bool],
    ) -> Vec<Option<Value>> {
        let mut out = vec![None; self.c.axes.len()];
        for (va, g) in self.groups.clone().iter().enumerate() {
            let Some(v) = view_vals[va] else { continue };
            if !g.iter().any(|&a| needed.get(a).copied().unwrap_or(true)) {
                continue;
            }
            if g.len() == 1 {
                out[g[0]] = Some(v);
                continue;
            }
            let exts: Vec<i64> = g.iter().map(|&a| self.c.axes[a].extent).collect();
            for (a, x) in g.iter().zip(self.decompose(v, &exts)) {
                out[*a] = Some(x);
            }
        }
        out
    }

    /// `mem` (a kernel argument of `shape`) with the dims of each group merged: a
    /// `memref.collapse_shape` built once at the kernel's entry (the argument itself when
    /// no group merges dims).
    fn collapsed(
        &mut self,
        mem: Value,
        shape: &[i64],
        elem: ElemType,
        groups: &[Vec<usize>],
    ) -> Value {
        if groups.iter().all(|g| g.len() == 1) {
            return mem;
        }
        let dims: Vec<i64> = groups
            .iter()
            .map(|g| g.iter().map(|&d| shape[d]).product())
            .collect();
        let key = (mem, groups.to_vec());
        if let Some((_, v)) = self.collapses.iter().find(|c| c.0 == key) {
            return *v;
        }
        let (op, v) = self.em.at_entry(
            "memref.collapse_shape",
            &[mem],
            &[("reassociation", reassociation(groups))],
            memref(&dims, elem),
        );
        self.collapse_ops.push(op);
        self.collapses.push((key, v));
        v
    }

    /// How a global access of `shape` through `map` (over the original axes) is indexed:
    /// each run of index results that is exactly a fused view axis's original axes, in order,
    /// over tensor dims of the same extents, is one collapsed dim indexed by the fused value
    /// itself (row-major offsets agree), so no `divui`/`remui` delinearizes it; the other
    /// results stay as they are. Returns the reassociation and the items, one per index.
    fn plan_access(&self, map: &[AffineExpr], shape: &[i64]) -> (Vec<Vec<usize>>, Vec<Item>) {
        let (mut groups, mut items) = (Vec::new(), Vec::new());
        let mut d = 0;
        while d < map.len() {
            let run = match &map[d] {
                AffineExpr::Dim(a0) => self.groups.iter().position(|g| {
                    g.len() > 1
                        && g[0] == *a0 as usize
                        && d + g.len() <= map.len()
                        && g.iter().enumerate().all(|(i, &a)| {
                            matches!(&map[d + i], AffineExpr::Dim(x) if *x as usize == a)
                                && shape.get(d + i) == Some(&self.c.axes[a].extent)
                        })
                }),
                _ => None,
            };
            match run {
                Some(va) => {
                    let len = self.groups[va].len();
                    groups.push((d..d + len).collect());
                    items.push(Item::Fused(va));
                    d += len;
                }
                None => {
                    groups.push(vec![d]);
                    items.push(Item::Expr(d));
                    d += 1;
                }
            }
        }
        (groups, items)
    }

    /// A global access's memref (collapsed where [`Self::plan_access`] merges dims), its
    /// indices and shape at the point `vals` (view axis values).
    fn direct_access(
        &mut self,
        mem: Value,
        map: &[AffineExpr],
        shape: &[i64],
        elem: ElemType,
        vals: &[Option<Value>],
    ) -> Result<(Value, Vec<Value>, Vec<i64>), String> {
        let (mut groups, mut items) = self.plan_access(map, shape);
        if items
            .iter()
            .any(|it| matches!(it, Item::Fused(va) if vals[*va].is_none()))
        {
            groups = (0..map.len()).map(|d| vec![d]).collect();
            items = (0..map.len()).map(Item::Expr).collect();
        }
        let mut needed = vec![false; self.c.axes.len()];
        for it in &items {
            if let Item::Expr(d) = it {
                mark_dims(&map[*d], &mut needed);
            }
        }
        let orig = self.orig_axes_needed(vals, &needed);
        let mut idx = Vec::new();
        for it in &items {
            idx.push(match it {
                Item::Fused(va) => vals[*va].ok_or("axis without a value")?,
                Item::Expr(d) => self.affine(&map[*d], &orig)?,
            });
        }
        let cshape: Vec<i64> = groups
            .iter()
            .map(|g| g.iter().map(|&d| shape[d]).product())
            .collect();
        let m = self.collapsed(mem, shape, elem, &groups);
        Ok((m, idx, cshape))
    }

    fn affine(&mut self, e: &AffineExpr, vals: &[Option<Value>]) -> Result<Value, String> {
        Ok(match e {
            AffineExpr::Dim(d) => vals
                .get(*d as usize)
                .cloned()
                .flatten()
                .ok_or("index uses an axis with no value here")?,
            AffineExpr::Constant(k) => self.em.idx(*k),
            AffineExpr::Add(a, b) => {
                let (x, y) = (self.affine(a, vals)?, self.affine(b, vals)?);
                self.em.add(x, y)
            }
            AffineExpr::Mul(a, b) => match (a.as_constant(), b.as_constant()) {
                (_, Some(k)) => {
                    let x = self.affine(a, vals)?;
                    self.em.mul_const(x, k)
                }
                (Some(k), _) => {
                    let x = self.affine(b, vals)?;
                    self.em.mul_const(x, k)
                }
                _ => return Err("non-affine product in an index".into()),
            },
            AffineExpr::FloorDiv(a, b) | AffineExpr::CeilDiv(a, b) | AffineExpr::Mod(a, b) => {
                let (x, y) = (self.affine(a, vals)?, self.affine(b, vals)?);
                match e {
                    AffineExpr::FloorDiv(..) => self.em.ibin("arith.floordivsi", x, y),
                    AffineExpr::CeilDiv(..) => self.em.ibin("arith.ceildivsi", x, y),
                    _ => {
                        let q = self.em.ibin("arith.floordivsi", x, y);
                        let m = self.em.ibin("arith.muli", q, y);
                        self.em.ibin("arith.subi", x, m)
                    }
                }
            }
            AffineExpr::Symbol(_) => return Err("symbols in index maps are not supported".into()),
        })
    }

    /// `0 <= idx[d] < shape[d]` for the dims that need it.
    fn in_bounds(&mut self, idx: &[Value], shape: &[i64], check: &[(bool, bool)]) -> Option<Value> {
        let mut cond = None;
        for d in 0..idx.len() {
            let (lo, hi) = check[d];
            if lo {
                let z = self.em.idx(0);
                let c = self.em.cmp(CmpIPredicate::Sge, idx[d], z);
                cond = self.em.and(cond, c);
            }
            if hi {
                let s = self.em.idx(shape[d]);
                let c = self.em.cmp(CmpIPredicate::Slt, idx[d], s);
                cond = self.em.and(cond, c);
            }
        }
        cond
    }

    fn pad_value(&self, a: &Acc) -> f64 {
        a.pad.or(self.c.may_pad.map(|m| m.value)).unwrap_or(0.0)
    }

    /// Reads a value from global memory at original indices, guarded by `cond`.
    fn guarded_load(
        &mut self,
        mem: Value,
        idx: &[Value],
        cond: Option<Value>,
        elem: ElemType,
        pad: f64,
    ) -> Value {
        let t = ty(elem);
        let mut args = vec![mem];
        args.extend_from_slice(idx);
        match cond {
            None => self.em.op("memref.load", &args, &[], t),
            Some(cond) => {
                let r = self.em.begin_if(cond, std::slice::from_ref(&t));
                let v = self.em.op("memref.load", &args, &[], t);
                self.em.else_(&[v]);
                let p = self.constant(pad, elem);
                self.em.end_if(Some(&[p]));
                r[0]
            }
        }
    }

    fn constant(&mut self, v: f64, e: ElemType) -> Value {
        if e.is_float() {
            self.em.float(v, e)
        } else if e == ElemType::I1 {
            self.em
                .constant(Attribute::new(AttrKind::Bool(v as i64 != 0)))
        } else {
            self.em.constant(Attribute::int(v as i64, ty(e)))
        }
    }

    fn body(&mut self, e: &Expr, vals: &[Value]) -> Result<(Value, ElemType), String> {
        let tys = self.c.access_types();
        let t = e.ty(&tys).ok_or("ill-typed body")?;
        let k = ty(t);
        Ok(match e {
            Expr::Access(i) => (vals[*i], t),
            Expr::Const(v, et) => (self.constant(*v, *et), t),
            Expr::Binary(op, a, b) => {
                let (x, _) = self.body(a, vals)?;
                let (y, _) = self.body(b, vals)?;
                let f = t.is_float();
                let name = binary_op_name(*op, f);
                (self.arith(name, &[x, y], k, f), t)
            }
            Expr::Unary(op, a) => {
                let (x, _) = self.body(a, vals)?;
                let f = t.is_float();
                let v = match (op, f) {
                    (UnOp::Neg, true) => self.arith("arith.negf", &[x], k, true),
                    (UnOp::Neg, false) => {
                        let z = self.constant(0.0, t);
                        self.em.op("arith.subi", &[z, x], &[], k)
                    }
                    (UnOp::Abs, false) => self.em.op("math.absi", &[x], &[], k),
                    (u, _) => self.arith(float_unary_op_name(*u), &[x], k, true),
                };
                (v, t)
            }
            Expr::Cmp(op, a, b) => {
                let (x, at) = self.body(a, vals)?;
                let (y, _) = self.body(b, vals)?;
                let (name, p) = if at.is_float() {
                    ("arith.cmpf", cmpf_predicate(*op))
                } else {
                    ("arith.cmpi", cmpi_predicate(*op))
                };
                let pred = ("predicate", Attribute::i64(p));
                let props = if at.is_float() {
                    vec![("fastmath", fastmath("none")), pred]
                } else {
                    vec![pred]
                };
                (self.em.op(name, &[x, y], &props, Type::i1()), t)
            }
            Expr::Select(cnd, a, b) => {
                let (cv, _) = self.body(cnd, vals)?;
                let (x, _) = self.body(a, vals)?;
                let (y, _) = self.body(b, vals)?;
                (self.em.op("arith.select", &[cv, x, y], &[], k), t)
            }
            Expr::Cast(to, a) => {
                let (x, from) = self.body(a, vals)?;
                if from == *to {
                    return Ok((x, t));
                }
                let name = match (from.is_float(), to.is_float()) {
                    (true, true) if to.width() > from.width() => "arith.extf",
                    (true, true) => "arith.truncf",
                    (false, true) => "arith.sitofp",
                    (true, false) => "arith.fptosi",
                    (false, false) if to.width() > from.width() => "arith.extsi",
                    (false, false) => "arith.trunci",
                };
                (self.em.op(name, &[x], &[], k), t)
            }
        })
    }

    /// A float op carries `fastmath = #arith.fastmath<contract>`: a multiply feeding an add
    /// may become one fused multiply-add (one rounding instead of two), as nvcc's default
    /// `-fmad=true`, Triton and HIP-Clang allow; without it every `+= a·b` of a reduction
    /// costs two instructions. No other relaxation (reassociation, NaN/Inf assumptions).
    fn arith(&mut self, name: &str, args: &[Value], res: Type, float: bool) -> Value {
        if float && (name.starts_with("arith.") || name.starts_with("math.")) {
            self.em
                .op(name, args, &[("fastmath", fastmath("contract"))], res)
        } else {
            self.em.op(name, args, &[], res)
        }
    }

    fn combine(&mut self, comb: Combiner, acc: Value, v: Value, e: ElemType) -> Value {
        let f = e.is_float();
        let name = match (comb, f) {
            (Combiner::Sum, true) => "arith.addf",
            (Combiner::Prod, true) => "arith.mulf",
            (Combiner::Max, true) => "arith.maximumf",
            (Combiner::Min, true) => "arith.minimumf",
            (Combiner::Sum, false) => "arith.addi",
            (Combiner::Prod, false) => "arith.muli",
            (Combiner::Max, false) => "arith.maxsi",
            (Combiner::Min, false) => "arith.minsi",
        };
        self.arith(name, &[acc, v], ty(e), f)
    }
}

/// `#arith.fastmath<flags>`.
fn fastmath(flags: &str) -> Attribute {
    Attribute::new(AttrKind::Dialect {
        dialect: "arith".into(),
        body: format!("fastmath<{flags}>"),
    })
}
/// How many threads share the reduction of each output point (§4 "cross-thread
/// reduction" for reduction-heavy operators).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CrossThread {
    /// Split when the program leaves few threads per block for a long reduction (see
    /// [`auto_split`]).
    Auto,
    /// Never split (the program's threads, one reduction per thread).
    Off,
    /// Split by this power of two.
    Split(u32),
}

/// The automatic split: reduction-heavy computes (at least 64 reduction points per output)
/// whose program gives a block at most 64 threads get `s` threads per output point, `s` the
/// largest power of two with `s ≤ 32`, `threads·s ≤ 256` and `s ≤` the split axis's tile.
pub fn auto_split(threads: i64, red_points: i64, split_tile: i64) -> i64 {
    if red_points < 64 || threads > 64 {
        return 1;
    }
    let mut s = 1;
    while s * 2 <= 32 && threads * s * 2 <= 256 && s * 2 <= split_tile {
        s *= 2;
    }
    s
}

/// Shared memory a kernel can declare statically on NVIDIA devices (48 KiB per block); a
/// kernel whose buffers need more gets them from dynamic shared memory instead. The
/// lowering takes the limit of the program's device ([`kernel_limits`]): this is its value
/// on every built-in NVIDIA device and on a device the lowering cannot read.
pub const STATIC_SHARED_LIMIT: u64 = 48 * 1024;

/// The per-kernel limits of the program's device (threads per block, static shared memory,
/// registers: `passes/devices/*.toml`'s `[target]`), or NVIDIA's when the device cannot be
/// read (a hand-written program naming an unknown device).
pub fn kernel_limits(p: &RProgram) -> KernelLimits {
    match program_device(p) {
        Ok(d) => d.kernel_limits(),
        Err(_) => KernelLimits {
            threads_per_block: 1024,
            static_shared_bytes: STATIC_SHARED_LIMIT,
            registers_per_thread: 255,
        },
    }
}

/// Shared memory one block may use on the program's device: the per-block capacity of its
/// description's shared layer (§3.3; the opt-in maximum, e.g. 227 KiB on H100, 163 KiB on
/// A100). The device is the one the program names (`device`, or `device_file`).
pub fn device_shared_limit(p: &RProgram) -> Result<u64, String> {
    let dev = program_device(p).map_err(|e| {
        format!(
            "cannot tell how much shared memory a block of device '{}' may use: {e}",
            p.device
        )
    })?;
    Ok(dev.layers[Device::SHARED].capacity_bytes)
}

/// Refuses a kernel whose shared memory exceeds what a block of the device may use.
fn check_shared_limit(k: &LoweredKernel, p: &RProgram, limit: u64) -> Result<(), String> {
    if k.shared_bytes > limit {
        let split = if k.rsplit > 1 {
            format!(" (with a {}-lane cross-thread reduction buffer)", k.rsplit)
        } else {
            String::new()
        };
        return Err(format!(
            "the kernel needs {} bytes of shared memory per block{split}, more than the {limit} a block of device '{}' may use",
            k.shared_bytes, p.device
        ));
    }
    Ok(())
}

/// The most points a thread tile may have for its register tile to be unrolled (Roller §4,
/// the register layer rTile). An unrolled tile keeps one accumulator per point in a
/// register, plus the operands of one reduction index (a row of A and a column of B for a
/// matmul: `TM + TN`) and the addresses. 128 accumulators and their operands still fit the
/// 255 registers a thread may have; more cannot stay in registers at all (and a block of
/// `t` threads has only `65536 / t` each). The devices' register layer (512 bytes: 128
/// registers for operands and accumulators) keeps every constructed program below the cap;
/// larger hand-written tiles keep the loop form with the accumulators in a private array.
pub const MAX_UNROLLED_POINTS: i64 = 128;

/// A thread's accumulators.
enum RegTile {
    /// One SSA value per point (the points unrolled): carried as `scf.for` `iter_args`.
    Values(Vec<Value>),
    /// A `memref.alloca` of the points, indexed by the point loops.
    Memory(Value),
}

/// One point of an unrolled thread tile: per view axis its value and its coordinate in the
/// block tile (spatial axes only).
struct Point {
    vals: Vec<Option<Value>>,
    locals: Vec<Option<Value>>,
    /// Per blocked axis: the block-local start of the point's run of 4 and its lane in it.
    runs: Vec<Option<(Value, i64)>>,
}

impl Ctx<'_> {
    /// The block-local coordinate of the thread's point `j` (a constant) along spatial axis
    /// `s`, and on a blocked axis the start of its run of 4 and its lane.
    ///
    /// Interleaved: `j·nthr + tc`, so neighbouring threads take neighbouring points.
    /// Blocked (`thread[s]` a multiple of 4): `(j / 4)·(4·nthr) + 4·tc + j mod 4`: each
    /// thread owns runs of 4 consecutive points, the runs of neighbouring threads are
    /// neighbours (a warp still covers one contiguous span per run index), so the 4 values a
    /// thread needs from a staged tile whose last dim is `s` are one 16-byte-aligned
    /// `vector<4xf32>` in shared memory.
    fn local_of(&mut self, s: usize, j: i64) -> (Value, Option<(Value, i64)>) {
        let tc = self.tc[s];
        if !self.blocked[s] {
            let off = self.em.idx(j * self.nthr[s]);
            return (self.em.add(off, tc), None);
        }
        let tc4 = self.em.mul_const(tc, 4);
        let off = self.em.idx((j / 4) * 4 * self.nthr[s]);
        let run = self.em.add(off, tc4);
        let lane = self.em.idx(j % 4);
        (self.em.add(run, lane), Some((run, j % 4)))
    }

    /// [`Ctx::local_of`] for a point index `j` held in an SSA value (the loop forms).
    fn local_of_value(&mut self, s: usize, j: Value) -> Value {
        let tc = self.tc[s];
        if !self.blocked[s] {
            let jn = self.em.mul_const(j, self.nthr[s]);
            return self.em.add(jn, tc);
        }
        let four = self.em.idx(4);
        let run = self.em.ibin("arith.divui", j, four);
        let lane = self.em.ibin("arith.remui", j, four);
        let off = self.em.mul_const(run, 4 * self.nthr[s]);
        let tc4 = self.em.mul_const(tc, 4);
        let start = self.em.add(off, tc4);
        self.em.add(start, lane)
    }
}

/// The spatial axis along which access `i`'s staged tile can be read 4 values at a time
/// by a blocked thread: 32-bit elements, the tile's last dim indexed by that axis alone
/// with coefficient 1 (its tile-local index is then the point's block-local coordinate, a
/// multiple of 4 at a run's start), no other dim depending on it, the padded row a
/// multiple of 4 (so every row starts 16-byte aligned; the buffer itself is 16-byte
/// aligned, see [`shared_layout`]), and a thread tile of a multiple of 4 along it.
fn shared_vector_axis(cx: &Ctx, i: usize) -> Option<usize> {
    let (vidx, _, _) = cx.accs[i].view.as_ref()?;
    if cx.accs[i].elem.width() != 32 {
        return None;
    }
    let last = vidx.len().checked_sub(1)?;
    let s = vidx[last].single_axis()?;
    let others_free = vidx[..last]
        .iter()
        .all(|ix| ix.terms.iter().all(|&(a, _)| a != s));
    let blk: Vec<u64> = cx.blk.iter().map(|&b| b as u64).collect();
    let row = vidx[last].span(&blk) as i64 + cx_pad(cx, cx.accs[i].read, last);
    (!cx.red[s] && cx.thr[s] % 4 == 0 && others_free && row % 4 == 0).then_some(s)
}

/// A staged tile stored transposed in shared memory: its dim `dim`, indexed by the blocked
/// spatial axis `axis`, becomes the last dim (swapped with the tile's last dim, which a
/// reduction axis indexes), `pitch` elements long with the padding (see [`transposable`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Transpose {
    dim: usize,
    axis: usize,
    pitch: i64,
}

impl Transpose {
    /// Per-dim values in the tensor's dim order → the shared layout's order.
    fn permute<T: Clone>(&self, coord: &[T]) -> Vec<T> {
        let mut c = coord.to_vec();
        let last = c.len() - 1;
        c.swap(self.dim, last);
        c
    }
}

/// Whether access `i`'s staged tile is read by the compute along a spatial axis `s` that
/// indexes one of its dims `d` other than the last, while the last dim is a reduction axis
/// (a matmul's `A[m, k]` tile): returns `(d, s)`. Stored transposed (`As[k][m]`), a
/// blocked thread's run of 4 along `s` is then one 16-byte `vector<4xf32>` of a row, as
/// [`shared_vector_axis`] gives B's. Plain tiles only: 32-bit elements, every dim one axis
/// with coefficient 1 (or a constant), so no halo, stride, negative coefficient or
/// division; `s` and the reduction axis each index one dim alone; `thread[s] % 4 == 0`.
/// Of several such dims the innermost is taken.
fn transposable(cx: &Ctx, i: usize) -> Option<(usize, usize)> {
    let (vidx, _, _) = cx.accs[i].view.as_ref()?;
    if cx.accs[i].elem.width() != 32 || vidx.len() < 2 {
        return None;
    }
    let plain = vidx
        .iter()
        .all(|ix| ix.div <= 1 && (ix.terms.is_empty() || ix.single_axis().is_some()));
    if !plain {
        return None;
    }
    let last = vidx.len() - 1;
    let r = vidx[last].single_axis()?;
    let uses = |a: usize| {
        vidx.iter()
            .filter(|ix| ix.terms.iter().any(|&(b, _)| b == a))
            .count()
    };
    if !cx.red[r] || uses(r) != 1 {
        return None;
    }
    (0..last).rev().find_map(|d| {
        let s = vidx[d].single_axis()?;
        (!cx.red[s] && cx.thr[s] % 4 == 0 && uses(s) == 1).then_some((d, s))
    })
}

/// The row pitch (elements, padding included) of a tile of `tile` elements per dim stored
/// with its dims `dim` and last swapped, filled by a cooperative load of `v`-element units
/// along the original last dim (unit `e` at `decompose(e)`, its `v` values stored as `v`
/// scalar stores, lane `l` by all threads at once).
///
/// A multiple of 4 (every row of the transposed tile 16-byte aligned for the compute's
/// vector reads), and, of the 8 such pitches from the span up, the one whose scalar stores
/// conflict least (then the smallest). Bank of an element: its word address mod 32. A warp
/// stores 32 consecutive units (thread `tid` takes units `tid + j·threads`); for a matmul's
/// `A[m, k]` tile with `k`-tile 8 and 16-byte units, a warp covers 16 rows `m` and both
/// units `q ∈ {0, 1}` of each: lane `l` writes `As[4q + l][m]`, word `(4q + l)·P + m`. The
/// two `q` groups lie `4P` words apart, so with `P ≡ 4 (mod 8)` (`4P ≡ 16 mod 32`) the 16
/// rows of `q = 0` take 16 banks and those of `q = 1` the other 16: conflict-free, where the
/// unpadded `P = 192` (`4P ≡ 0`) would be 2-way. Counting it, rather than a formula, covers
/// the other tile shapes (scalar units, `k`-tiles of 16 or 4, several rows per warp).
fn transposed_pitch(tile: &[i64], v: i64, dim: usize) -> i64 {
    let rank = tile.len();
    let last = rank - 1;
    let mut units = tile.to_vec();
    units[last] /= v;
    let total: i64 = units.iter().product();
    let start = (tile[dim] + 3) / 4 * 4;
    let cost = |pitch: i64| -> (usize, usize) {
        let mut shape = tile.to_vec();
        shape.swap(dim, last);
        shape[last] = pitch;
        let (mut worst, mut sum) = (0usize, 0usize);
        let mut e0 = 0;
        while e0 < total {
            for l in 0..v {
                let mut banks = [0usize; 32];
                for e in e0..(e0 + 32).min(total) {
                    let mut c = vec![0i64; rank];
                    let mut rem = e;
                    for d in (0..rank).rev() {
                        c[d] = rem % units[d];
                        rem /= units[d];
                    }
                    c[last] = c[last] * v + l;
                    c.swap(dim, last);
                    let addr = c.iter().zip(&shape).fold(0i64, |a, (x, n)| a * n + x);
                    banks[(addr % 32) as usize] += 1;
                }
                let w = banks.iter().copied().max().unwrap_or(0);
                worst = worst.max(w);
                sum += w;
            }
            e0 += 32;
        }
        (worst, sum)
    };
    (0..8)
        .map(|j| start + 4 * j)
        .min_by_key(|&p| (cost(p), p))
        .unwrap_or(start)
}

/// Elements per cooperative-load unit of a staged tile read through `vidx` from a view of
/// `vshape`: 4 (one 16-byte `vector<4xf32>` along the tensor's last dim) when the element is
/// 32 bits, the tile row and the tensor row are multiples of 4 and the tile origin is
/// 4-aligned for every block and k-step; else 1. (A tile stored untransposed also needs its
/// padded shared row to be a multiple of 4 for the vector store.)
fn load_unit(cx: &Ctx, vidx: &[AffineIndex], vshape: &[i64], elem: ElemType, tile: &[i64]) -> i64 {
    let last = vidx.len() - 1;
    let origin_aligned = vidx[last].constant % 4 == 0
        && vidx[last]
            .terms
            .iter()
            .all(|&(a, cf)| cf > 0 && (cf * cx.blk[a]) % 4 == 0);
    if elem.width() == 32 && tile[last] % 4 == 0 && vshape[last] % 4 == 0 && origin_aligned {
        4
    } else {
        1
    }
}

/// The thread's points, row-major over the thread tile (the order of the accumulators):
/// spatial axis `s` takes `base + local` for the constant `j < thread[s]` (see
/// [`Ctx::local_of`]). The absolute values (`vals`) are written only when `absolute`
/// (guards, global addresses).
fn unrolled_points(cx: &mut Ctx, sp: &[usize], absolute: bool) -> Vec<Point> {
    let n = cx.ext.len();
    let mut pts = vec![Point {
        vals: vec![None; n],
        locals: vec![None; n],
        runs: vec![None; n],
    }];
    for &s in sp {
        let mut next = Vec::new();
        for pt in &pts {
            for j in 0..cx.thr[s] {
                let (local, run) = cx.local_of(s, j);
                let base = cx.base[s];
                let mut vals = pt.vals.clone();
                let mut locals = pt.locals.clone();
                let mut runs = pt.runs.clone();
                if absolute {
                    vals[s] = Some(cx.em.add(base, local));
                }
                locals[s] = Some(local);
                runs[s] = run;
                next.push(Point { vals, locals, runs });
            }
        }
        pts = next;
    }
    pts
}

/// `point < extent` on the spatial axes the grid pads (`E % B ≠ 0`); `None` when none is.
fn point_guard(cx: &mut Ctx, sp: &[usize], vals: &[Option<Value>]) -> Option<Value> {
    let mut cond = None;
    for &s in sp {
        if cx.ext[s] % cx.blk[s] != 0 {
            let e = cx.em.idx(cx.ext[s]);
            let Some(v) = vals[s] else { continue };
            let c = cx.em.cmp(CmpIPredicate::Slt, v, e);
            cond = cx.em.and(cond, c);
        }
    }
    cond
}

/// Whether evaluating `e` on a pad value may be undefined: integer division (`arith.divsi`
/// by zero is undefined behaviour in LLVM), so such bodies are not computed past the extent.
fn may_trap(e: &Expr, c: &TeCompute) -> bool {
    let tys = c.access_types();
    match e {
        Expr::Binary(op, a, b) => {
            (*op == rtile_dialects::te::model::BinOp::Div
                && e.ty(&tys).is_some_and(|t| !t.is_float()))
                || may_trap(a, c)
                || may_trap(b, c)
        }
        Expr::Unary(_, a) | Expr::Cast(_, a) => may_trap(a, c),
        Expr::Cmp(_, a, b) => may_trap(a, c) || may_trap(b, c),
        Expr::Select(x, a, b) => may_trap(x, c) || may_trap(a, c) || may_trap(b, c),
        Expr::Access(_) | Expr::Const(..) => false,
    }
}

/// Threads of blocks of `threads` threads and `shared` bytes that one core holds at once
/// (its thread, block and shared-memory limits). Registers are left out: a split lane keeps
/// the same register tile, so registers bound every split alike (up to block granularity,
/// which the construction's conservative register count would distort).
fn resident_threads(dev: &Device, threads: u64, shared: u64) -> u64 {
    threads * dev.resident_blocks(threads, shared, None)
}

/// Lowers `c` under program `p` into kernel `name` (cross-thread reductions automatic).
///
/// The automatic split ([`auto_split`]) gives a small block more threads, but its reduction
/// buffer (`outputs per thread × split × threads` elements) comes on top of the program's
/// staged tiles, which the construction sized without it. Of the split and its halvings
/// (down to no split) that fit what a block of the program's device may use
/// ([`device_shared_limit`]; over 48 KiB the buffers are dynamic shared memory), the one
/// that keeps the most threads resident per core (thread, block and shared-memory limits of
/// the device) is kept, the larger split on ties. A kernel over the device's limit is refused.
///
/// The kernel's `gpu.func` is built detached in `ctx` ([`LoweredKernel::func`]).
pub fn lower_compute(
    ctx: &mut Context,
    c: &TeCompute,
    p: &RProgram,
    name: &str,
) -> Result<LoweredKernel, String> {
    lower_compute_opts(ctx, c, p, name, LowerOptions::default())
}

/// Options of the lowering (the library form of `--lower-to-gpu`'s pass options).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LowerOptions {
    /// The cross-thread reduction: `None` searches the automatic split and its halvings as
    /// [`lower_compute`] does; `Some(c)` lowers with `c` as [`lower_compute_with`] does.
    pub cross: Option<CrossThread>,
    /// Register-prefetch double buffering of the staged k-step tiles where it applies (see
    /// `docs/passes/lower-to-gpu.md`); `false` keeps the load-barrier-compute-barrier form.
    pub prefetch: bool,
    /// How a thread's points are spread along each spatial axis (see [`ThreadMapping`]).
    pub thread_mapping: ThreadMapping,
}

/// The thread-to-point mapping along the spatial axes of a reduction kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ThreadMapping {
    /// Blocked (runs of 4 consecutive points per thread) on the axes where that lets the
    /// compute read a staged tile with 16-byte `vector.load`s, interleaved elsewhere.
    #[default]
    Auto,
    /// As `Auto`, and a staged tile read along a spatial axis that is not its last dim (a
    /// matmul's `A[m, k]`) is stored transposed (`As[k][m]`) so that axis is blocked and
    /// read 16 bytes at a time too. Opt-in: ptxas gives such kernels many more registers
    /// (Table-1 m2 on H100 108 → 155, bmm 128 → 165: fewer blocks per SM) and 2 of the 139
    /// top-10 H100 candidates spill, so whether the vector reads pay is for a GPU to say.
    Transposed,
    /// Every axis interleaved: point `base + j·nthr + tc`.
    Interleaved,
}

impl ThreadMapping {
    /// Parses the `thread-mapping` pass option's value.
    pub fn parse(s: &str) -> Option<ThreadMapping> {
        match s {
            "auto" => Some(ThreadMapping::Auto),
            "transposed" => Some(ThreadMapping::Transposed),
            "interleaved" => Some(ThreadMapping::Interleaved),
            _ => None,
        }
    }
}

impl Default for LowerOptions {
    fn default() -> Self {
        LowerOptions {
            cross: None,
            prefetch: true,
            thread_mapping: ThreadMapping::Auto,
        }
    }
}

/// Lowers `c` under program `p` into kernel `name` with `opts` (built detached in `ctx`;
/// the candidates not kept are erased).
pub fn lower_compute_opts(
    ctx: &mut Context,
    c: &TeCompute,
    p: &RProgram,
    name: &str,
    opts: LowerOptions,
) -> Result<LoweredKernel, String> {
    let pf = (opts.prefetch, opts.thread_mapping);
    if let Some(cross) = opts.cross {
        let limit = device_shared_limit(p)?;
        let k = lower_kernel(ctx, c, p, name, cross, pf)?;
        if let Err(e) = check_shared_limit(&k, p, limit) {
            ctx.erase_op(k.func);
            return Err(e);
        }
        return Ok(k);
    }
    let limit = device_shared_limit(p)?;
    let dev = program_device(p)?;
    let first = lower_kernel(ctx, c, p, name, CrossThread::Auto, pf)?;
    let mut split = first.rsplit;
    let mut best: Option<(u64, LoweredKernel)> = None;
    let mut candidate = Some(first);
    let result = loop {
        let lowered = match candidate.take() {
            Some(k) => Ok(k),
            None if split > 1 => {
                lower_kernel(ctx, c, p, name, CrossThread::Split(split as u32), pf)
            }
            None => lower_kernel(ctx, c, p, name, CrossThread::Off, pf),
        };
        let k = match lowered {
            Ok(k) => k,
            Err(e) => break Err(e),
        };
        if k.shared_bytes <= limit {
            let r = resident_threads(&dev, k.launch.block[0], k.shared_bytes);
            if best.as_ref().is_none_or(|(b, _)| r > *b) {
                if let Some((_, old)) = best.replace((r, k)) {
                    ctx.erase_op(old.func);
                }
            } else {
                ctx.erase_op(k.func);
            }
        } else {
            let over = check_shared_limit(&k, p, limit);
            ctx.erase_op(k.func);
            if split <= 1
                && let Err(e) = over
            {
                break Err(e);
            }
        }
        if split <= 1 {
            break Ok(());
        }
        split /= 2;
    };
    if let Err(e) = result {
        if let Some((_, k)) = best {
            ctx.erase_op(k.func);
        }
        return Err(e);
    }
    best.map(|(_, k)| k)
        .ok_or_else(|| "internal error: no split was lowered".to_string())
}

/// Lowers `c` under program `p` into kernel `name` with the cross-thread reduction `cross`;
/// refuses a kernel whose shared memory exceeds what a block of the program's device may use.
pub fn lower_compute_with(
    ctx: &mut Context,
    c: &TeCompute,
    p: &RProgram,
    name: &str,
    cross: CrossThread,
) -> Result<LoweredKernel, String> {
    lower_compute_opts(
        ctx,
        c,
        p,
        name,
        LowerOptions {
            cross: Some(cross),
            ..LowerOptions::default()
        },
    )
}

/// The lowering proper (no device limit). A kernel that cannot be lowered leaves nothing
/// behind in `ctx`.
fn lower_kernel(
    ctx: &mut Context,
    c: &TeCompute,
    p: &RProgram,
    name: &str,
    cross: CrossThread,
    pf: (bool, ThreadMapping),
) -> Result<LoweredKernel, String> {
    let mut entry = None;
    let lowered = build_kernel(ctx, c, p, name, cross, pf, &mut entry);
    if lowered.is_err()
        && let Some(b) = entry
    {
        ctx.erase_block(b);
    }
    lowered
}

/// Builds the kernel; `entry` is its entry block once made (for [`lower_kernel`] to erase
/// on failure).
fn build_kernel(
    ctx: &mut Context,
    c: &TeCompute,
    p: &RProgram,
    name: &str,
    cross: CrossThread,
    (prefetch, mapping): (bool, ThreadMapping),
    entry_out: &mut Option<BlockId>,
) -> Result<LoweredKernel, String> {
    if p.tensor_core {
        return Err("tensor-core programs are not lowered yet (SIMT kernels only)".into());
    }
    let info = expr_info(c);
    let names: Vec<&str> = info.axes.iter().map(|a| a.name.as_str()).collect();
    let (view, groups): (TensorExprInfo, Vec<Vec<usize>>) =
        if p.axes.is_empty() || p.axes.iter().map(String::as_str).eq(names.iter().copied()) {
            (
                info.clone(),
                (0..info.axes.len()).map(|a| vec![a]).collect(),
            )
        } else {
            let (f, g) = info
                .fuse_axes()
                .ok_or("the program's axes do not match the compute")?;
            if !p
                .axes
                .iter()
                .map(String::as_str)
                .eq(f.axes.iter().map(|a| a.name.as_str()))
            {
                return Err(format!(
                    "the program's axes {:?} do not match the compute",
                    p.axes
                ));
            }
            (f, g)
        };
    let n = view.axes.len();
    if p.block.len() != n || p.thread.len() != n {
        return Err(format!("the program's tiles must have {n} sizes"));
    }
    let ext: Vec<i64> = view.axes.iter().map(|a| a.extent as i64).collect();
    let blk: Vec<i64> = p.block.iter().map(|&x| x as i64).collect();
    let thr: Vec<i64> = p.thread.iter().map(|&x| x as i64).collect();
    let red: Vec<bool> = view.axes.iter().map(|a| a.reduction).collect();
    if (0..n).any(|a| blk[a] <= 0 || thr[a] <= 0 || blk[a] % thr[a] != 0) {
        return Err("block tiles must be positive multiples of thread tiles".into());
    }
    let nthr: Vec<i64> = (0..n)
        .map(|a| if red[a] { 1 } else { blk[a] / thr[a] })
        .collect();
    let threads: i64 = nthr.iter().product();
    let limits = kernel_limits(p);
    if threads as u64 != p.threads || !(1..=limits.threads_per_block as i64).contains(&threads) {
        return Err(format!(
            "{} threads do not match the tiles ({threads})",
            p.threads
        ));
    }
    let nv = c.axes.len();
    let reads = distinct_reads(c);
    let mut accs = Vec::new();
    for a in &c.accesses {
        let t = &c.inputs[a.input];
        let read = reads
            .iter()
            .position(|&j| c.accesses[j].input == a.input && c.accesses[j].map == a.map)
            .ok_or("internal error: an access without its distinct read")?;
        let linear = a.map.results.iter().all(|e| linearize(e, nv).is_some());
        let view_acc = &view.inputs[read];
        let vshape: Vec<i64> = view_acc.shape.iter().map(|&d| d as i64).collect();
        let staged = p.staged && linear;
        let view = if staged {
            let g = dim_groups(&t.shape, &vshape)
                .ok_or("cannot map a fused tensor view back to its tensor")?;
            Some((view_acc.indices.clone(), vshape, g))
        } else {
            None
        };
        accs.push(Acc {
            map: a.map.results.clone(),
            input: a.input,
            shape: t.shape.clone(),
            elem: t.elem,
            pad: a.pad,
            read,
            view,
        });
    }
    // The kernel's entry block, detached until the `gpu.func` is built around it: the
    // inputs, then the output (shared buffers join as workgroup attributions later).
    let mut arg_types: Vec<Type> = c.inputs.iter().map(|t| memref(&t.shape, t.elem)).collect();
    arg_types.push(memref(&c.result.shape, c.result.elem));
    let entry = ctx.create_block(arg_types.clone());
    *entry_out = Some(entry);
    let args = ctx.block_args(entry).to_vec();
    let (ins, out) = (args[..args.len() - 1].to_vec(), args[args.len() - 1]);
    let mut cx = Ctx {
        c,
        em: Emitter::new(ctx, entry),
        ins,
        out,
        shared: Vec::new(),
        ext,
        blk,
        thr,
        red,
        groups,
        accs,
        // Placeholders: every axis gets its base (and spatial axes their thread
        // coordinate) before it is read.
        base: vec![out; n],
        tc: vec![out; n],
        nthr,
        blocked: vec![false; n],
        transposed: Vec::new(),
        pads: p
            .pad
            .iter()
            .map(|v| v.iter().map(|&x| x as i64).collect())
            .collect(),
        collapses: Vec::new(),
        collapse_ops: Vec::new(),
        static_shared: kernel_limits(p).static_shared_bytes,
    };
    let sp = cx.spatial();
    let rd = cx.reduction();
    // Blocked thread mapping on the spatial axes where it turns a staged tile's reads into
    // 16-byte vector loads (unrolled register tiles of reduction kernels only: elsewhere
    // the points are not unrolled, so nothing would be merged).
    let unrolled = c.combiner.is_some()
        && !rd.is_empty()
        && sp.iter().map(|&s| cx.thr[s]).product::<i64>() <= MAX_UNROLLED_POINTS;
    cx.transposed = vec![None; cx.accs.len()];
    if mapping != ThreadMapping::Interleaved && unrolled {
        for i in 0..cx.accs.len() {
            if let Some(s) = shared_vector_axis(&cx, i) {
                cx.blocked[s] = true;
            }
        }
    }
    if mapping == ThreadMapping::Transposed && unrolled {
        // Tiles read along a spatial axis that is not their last dim (A[m, k]) are stored
        // transposed so that axis can be blocked and read 16 bytes at a time too, unless
        // their own padding pushes the staged tiles past what a block of the device may use.
        let blk: Vec<u64> = cx.blk.iter().map(|&b| b as u64).collect();
        for i in 0..cx.accs.len() {
            let (Some((dim, axis)), Some((vidx, vshape, _))) =
                (transposable(&cx, i), cx.accs[i].view.clone())
            else {
                continue;
            };
            let tile: Vec<i64> = vidx.iter().map(|ix| ix.span(&blk) as i64).collect();
            let v = load_unit(&cx, &vidx, &vshape, cx.accs[i].elem, &tile);
            let pitch = transposed_pitch(&tile, v, dim);
            cx.transposed[i] = Some(Transpose { dim, axis, pitch });
        }
        let over = device_shared_limit(p).is_ok_and(|limit| plan_staged(&cx, p).2 > limit);
        if over {
            cx.transposed = vec![None; cx.accs.len()];
        }
        for t in cx.transposed.iter().flatten() {
            cx.blocked[t.axis] = true;
        }
    }
    // The reduction axis split across threads: the one with the largest block tile.
    let split_axis = rd
        .iter()
        .copied()
        .max_by_key(|&r| (cx.blk[r], std::cmp::Reverse(r)));
    let red_points: i64 = rd.iter().map(|&r| cx.ext[r]).product();
    let rsplit: i64 = match (cross, split_axis) {
        (_, None) => 1,
        (CrossThread::Off, _) => 1,
        (CrossThread::Split(k), _) => i64::from(k.max(1)),
        (CrossThread::Auto, Some(r)) => auto_split(threads, red_points, cx.blk[r]),
    };
    if rsplit > 1 && (rsplit & (rsplit - 1)) != 0 {
        return Err("the cross-thread split must be a power of two".into());
    }
    let all_threads = threads * rsplit;
    let max_threads = kernel_limits(p).threads_per_block as i64;
    if all_threads > max_threads {
        return Err(format!(
            "{all_threads} threads per block exceed the device's {max_threads}"
        ));
    }
    let grid: Vec<i64> = sp
        .iter()
        .map(|&s| (cx.ext[s] + cx.blk[s] - 1) / cx.blk[s])
        .collect();
    let nblocks: i64 = grid.iter().product();
    if nblocks > i32::MAX as i64 {
        return Err("grid too large".into());
    }
    let res_elem = c.result.elem;
    let q_total: i64 = sp.iter().map(|&s| cx.thr[s]).product();
    // The staged data tiles (one shared buffer per distinct staged read, in access order),
    // and the cross-thread reduction's buffer, made before the body that uses them.
    let (tiles, mut shared_decls, mut shared_bytes, vectorized) = plan_staged(&cx, p);
    let staged_any = !shared_decls.is_empty();
    if c.combiner.is_some() && rsplit > 1 {
        let red_t = shared_memref(&[q_total, rsplit, threads], res_elem);
        let bytes = (q_total * rsplit * threads) as u64 * (res_elem.width() as u64).div_ceil(8);
        shared_decls.push((RED_SLOT, red_t, bytes));
        shared_bytes += bytes;
    }
    let (attributions, dsm, prologue) = shared_buffers(&mut cx, &shared_decls);
    let shared_bytes = if dsm > 0 { dsm } else { shared_bytes };
    // Block and thread coordinates: blocks row-major over the scale-out grid, threads
    // row-major over the block tile (the last spatial axis fastest, for coalescing).
    let bid = cx.em.id_x("gpu.block_id");
    let tid = cx.em.id_x("gpu.thread_id");
    let bc = cx.decompose(bid, &grid);
    let tn: Vec<i64> = sp.iter().map(|&s| cx.nthr[s]).collect();
    // With a cross-thread reduction, thread `tid` is reduction lane `tid / threads` of
    // spatial thread `tid % threads` (spatial neighbours stay neighbours).
    let (ts, tr) = if rsplit > 1 {
        let t = cx.em.idx(threads);
        (
            cx.em.ibin("arith.remui", tid, t),
            cx.em.ibin("arith.divui", tid, t),
        )
    } else {
        (tid, cx.em.idx(0))
    };
    let tcs = cx.decompose(ts, &tn);
    for (j, &s) in sp.iter().enumerate() {
        cx.base[s] = cx.em.mul_const(bc[j], cx.blk[s]);
        cx.tc[s] = tcs[j];
    }
    let rt = ty(res_elem);
    let acc_mem = memref(&[q_total], res_elem);
    let combiner = c.combiner;
    // The register tile: SSA values carried through the loops when the thread's points are
    // unrolled (they then live in registers), else a private array indexed by loops.
    let mut tile = match combiner {
        Some(comb) if q_total <= MAX_UNROLLED_POINTS => {
            let id = cx.constant(comb.identity(res_elem), res_elem);
            Some(RegTile::Values(vec![id; q_total as usize]))
        }
        Some(comb) => {
            let a = cx.em.op(
                "memref.alloca",
                &[],
                &[("operandSegmentSizes", i32_array(&[0, 0]))],
                acc_mem,
            );
            let (z, one, qt) = (cx.em.idx(0), cx.em.idx(1), cx.em.idx(q_total));
            let (q, _, _) = cx.em.begin_for(z, qt, one, &[]);
            let id = cx.constant(comb.identity(res_elem), res_elem);
            cx.em.op0("memref.store", &[id, a, q], &[]);
            cx.em.end_for(&[]);
            Some(RegTile::Memory(a))
        }
        None => None,
    };
    // The reduction axes with more than one k-step.
    let stepping: Vec<(usize, i64)> = rd
        .iter()
        .map(|&r| (r, (cx.ext[r] + cx.blk[r] - 1) / cx.blk[r]))
        .filter(|&(_, k)| k > 1)
        .collect();
    let ksteps: i64 = stepping.iter().map(|&(_, k)| k).product();
    // Register-prefetch double buffering: staged tiles, more than one k-step, and one
    // step's share of the tiles within the thread's register headroom ([`prefetch_budget`]).
    let prefetched = prefetch && staged_any && !stepping.is_empty() && {
        let regs = prefetch_registers(&tiles, all_threads);
        regs <= prefetch_budget(&view, p, all_threads)
    };
    let tid_c = tid;
    if prefetched {
        // Prologue: k-step 0 global → registers → shared, then a barrier (every reduction
        // axis at its first step).
        for &r in &rd {
            cx.base[r] = cx.em.idx(0);
        }
        let vals: Vec<Vec<Value>> = tiles
            .iter()
            .map(|t| prefetch_load(&mut cx, t, tid_c, all_threads))
            .collect();
        for (t, v) in tiles.iter().zip(&vals) {
            prefetch_store(&mut cx, t, v, tid_c, all_threads);
        }
        cx.em.barrier();
    }
    // The reduction loop over k-steps (one scf.for per reduction axis with more than one),
    // carrying an unrolled register tile; `kresults` holds each loop's results.
    let mut kloops = 0;
    let mut kresults: Vec<Vec<Value>> = Vec::new();
    let inits_of = |tile: &Option<RegTile>| -> Vec<Value> {
        match tile {
            Some(RegTile::Values(v)) => v.clone(),
            _ => Vec::new(),
        }
    };
    // With prefetch: the next step's base per stepping axis and the condition that it exists.
    let mut next_step: Option<(Value, Vec<(usize, Value)>)> = None;
    if prefetched && stepping.len() > 1 {
        // Several stepping axes: one loop over the linearized k-steps (row-major, the first
        // axis outermost: the nested loops' order), so "the next step" is `s + 1`.
        for &r in &rd {
            cx.base[r] = cx.em.idx(0);
        }
        let ks: Vec<i64> = stepping.iter().map(|&(_, k)| k).collect();
        let (z, ub, one) = (cx.em.idx(0), cx.em.idx(ksteps), cx.em.idx(1));
        let (s, args, res) = cx.em.begin_for(z, ub, one, &inits_of(&tile));
        if let Some(RegTile::Values(v)) = &mut tile {
            *v = args;
        }
        kresults.push(res);
        kloops = 1;
        let cur = cx.decompose(s, &ks);
        let next = cx.em.add(s, one);
        let has_next = cx.em.cmp(CmpIPredicate::Slt, next, ub);
        let nxt = cx.decompose(next, &ks);
        let mut bases = Vec::new();
        for (j, &(r, _)) in stepping.iter().enumerate() {
            cx.base[r] = cx.em.mul_const(cur[j], cx.blk[r]);
            bases.push((r, cx.em.mul_const(nxt[j], cx.blk[r])));
        }
        next_step = Some((has_next, bases));
    } else {
        for &r in &rd {
            let k = (cx.ext[r] + cx.blk[r] - 1) / cx.blk[r];
            if k == 1 {
                cx.base[r] = cx.em.idx(0);
                continue;
            }
            let (z, ub, st) = (cx.em.idx(0), cx.em.idx(k * cx.blk[r]), cx.em.idx(cx.blk[r]));
            let (iv, args, res) = cx.em.begin_for(z, ub, st, &inits_of(&tile));
            if let Some(RegTile::Values(v)) = &mut tile {
                *v = args;
            }
            kresults.push(res);
            cx.base[r] = iv;
            kloops += 1;
            if prefetched {
                // The only stepping axis: the next step starts at `iv + B`.
                let next = cx.em.add(iv, st);
                let has_next = cx.em.cmp(CmpIPredicate::Slt, next, ub);
                next_step = Some((has_next, vec![(r, next)]));
            }
        }
    }
    // With prefetch: the next-step condition and the next step's values, in registers.
    let mut pending: Option<(Value, Vec<Vec<Value>>)> = None;
    if let Some((has_next, bases)) = next_step {
        // The next k-step's loads are issued before this step's compute, so their latency
        // overlaps it; the last step loads nothing (its values are pads, never stored).
        let tys: Vec<Type> = tiles
            .iter()
            .flat_map(|t| vec![t.lane_type(); t.per_thread(all_threads) as usize])
            .collect();
        let res = cx.em.begin_if(has_next, &tys);
        let saved: Vec<Value> = bases.iter().map(|(r, _)| cx.base[*r]).collect();
        for &(r, b) in &bases {
            cx.base[r] = b;
        }
        let mut loaded = Vec::new();
        for t in &tiles {
            loaded.extend(prefetch_load(&mut cx, t, tid_c, all_threads));
        }
        for ((r, _), b) in bases.iter().zip(saved) {
            cx.base[*r] = b;
        }
        cx.em.else_(&loaded);
        let mut pads = Vec::new();
        for t in &tiles {
            let pv = t.pad_lane(&mut cx);
            for _ in 0..t.per_thread(all_threads) {
                pads.push(pv);
            }
        }
        cx.em.end_if(Some(&pads));
        // The results, split per tile.
        let mut it = res.into_iter();
        let per_tile = tiles
            .iter()
            .map(|t| {
                it.by_ref()
                    .take(t.per_thread(all_threads) as usize)
                    .collect()
            })
            .collect();
        pending = Some((has_next, per_tile));
    }
    if !prefetched {
        // Cooperative loads of the staged data tiles into shared memory.
        for t in &tiles {
            loop_load(&mut cx, t, tid_c, all_threads);
        }
        if staged_any {
            cx.em.barrier();
        }
    }
    // The end of a k-step: the next step overwrites the shared tiles every thread just read,
    // so a barrier first; with prefetch the registers are stored, and a barrier makes them
    // visible to the next step's compute.
    let end_kstep = |cx: &mut Ctx| {
        if !staged_any || ksteps <= 1 {
            return;
        }
        cx.em.barrier();
        if let Some((has_next, vals)) = &pending {
            cx.em.begin_then(*has_next);
            for (t, v) in tiles.iter().zip(vals) {
                prefetch_store(cx, t, v, tid_c, all_threads);
            }
            cx.em.end_then();
            cx.em.barrier();
        }
    };
    // The thread's points: spatial axis s takes values base + j·nthr + tc, j < thread[s]
    // (threads interleave, so neighbouring threads touch neighbouring elements).
    let open_points = |cx: &mut Ctx| -> (Vec<Option<Value>>, Value, usize, usize) {
        let mut vals = vec![None; n];
        let mut q = cx.em.idx(0);
        let mut opened = 0;
        for &s in &sp {
            let j = if cx.thr[s] == 1 {
                cx.em.idx(0)
            } else {
                let (z, ub, one) = (cx.em.idx(0), cx.em.idx(cx.thr[s]), cx.em.idx(1));
                opened += 1;
                cx.em.begin_for(z, ub, one, &[]).0
            };
            let qs = cx.em.mul_const(q, cx.thr[s]);
            q = cx.em.add(qs, j);
            let local = cx.local_of_value(s, j);
            let base = cx.base[s];
            vals[s] = Some(cx.em.add(base, local));
        }
        // Guard: only axes whose padded extent exceeds the tensor.
        let mut cond = None;
        for &s in &sp {
            if grid_pad(cx, s) {
                let e = cx.em.idx(cx.ext[s]);
                let Some(v) = vals[s] else { continue };
                let c = cx.em.cmp(CmpIPredicate::Slt, v, e);
                cond = cx.em.and(cond, c);
            }
        }
        let guarded = usize::from(cond.is_some());
        if let Some(c) = cond {
            cx.em.begin_then(c);
        }
        (vals, q, opened, guarded)
    };
    fn grid_pad(cx: &Ctx, s: usize) -> bool {
        cx.ext[s] % cx.blk[s] != 0
    }
    let close_points = |cx: &mut Ctx, opened: usize, guarded: usize| {
        if guarded > 0 {
            cx.em.end_then();
        }
        for _ in 0..opened {
            cx.em.end_for(&[]);
        }
    };
    if let (Some(comb), Some(mut tile)) = (combiner, tile) {
        let red_loop = |cx: &mut Ctx, r: usize| -> (Value, Value, Value) {
            // The split axis: each reduction lane takes every rsplit-th point.
            if Some(r) == split_axis && rsplit > 1 {
                (tr, cx.em.idx(cx.blk[r]), cx.em.idx(rsplit))
            } else {
                (cx.em.idx(0), cx.em.idx(cx.blk[r]), cx.em.idx(1))
            }
        };
        let red_guard = |cx: &mut Ctx, vals: &[Option<Value>]| -> Option<Value> {
            // The reduction axes padded past their extent.
            let mut cond = None;
            for &r in &rd {
                if cx.ext[r] % cx.blk[r] != 0 {
                    let e = cx.em.idx(cx.ext[r]);
                    let Some(v) = vals[r] else { continue };
                    let c = cx.em.cmp(CmpIPredicate::Slt, v, e);
                    cond = cx.em.and(cond, c);
                }
            }
            cond
        };
        match &mut tile {
            RegTile::Values(accs) => {
                // Register layer (Roller §4): per reduction index, every point of the thread
                // tile combines into its own accumulator; the points are unrolled, so the
                // accumulators are SSA values and loads shared by points are written once.
                // Staged reads see pad-filled shared tiles at points past the tensor's extent,
                // so only direct (global) reads, and bodies that may trap on the pad value,
                // need the per-point guard; the store is guarded in the epilogue.
                let direct = cx.accs.iter().any(|a| a.view.is_none());
                let guard_points = direct || may_trap(&c.body, c);
                let pts = unrolled_points(&mut cx, &sp, guard_points);
                let conds: Vec<Option<Value>> = pts
                    .iter()
                    .map(|pt| {
                        if guard_points {
                            point_guard(&mut cx, &sp, &pt.vals)
                        } else {
                            None
                        }
                    })
                    .collect();
                let mut vals = vec![None; n];
                let mut locals = vec![None; n];
                let mut stack = Vec::new();
                for &r in &rd {
                    let (z, ub, st) = red_loop(&mut cx, r);
                    let (lr, args, res) = cx.em.begin_for(z, ub, st, accs);
                    // The absolute index, for the padding guard and direct reads only.
                    if cx.ext[r] % cx.blk[r] != 0 || direct {
                        let base = cx.base[r];
                        vals[r] = Some(cx.em.add(base, lr));
                    }
                    locals[r] = Some(lr);
                    stack.push(res);
                    *accs = args;
                }
                let rts: Vec<Type> = accs.iter().map(|_| rt).collect();
                let cond = red_guard(&mut cx, &vals);
                let if_res = cond.map(|c| cx.em.begin_if(c, &rts));
                let mut next = Vec::new();
                for (q, pt) in pts.iter().enumerate() {
                    let mut pv = vals.clone();
                    let mut pl = locals.clone();
                    for &s in &sp {
                        pv[s] = pt.vals[s];
                        pl[s] = pt.locals[s];
                    }
                    let a = accs[q];
                    if let Some(c) = conds[q] {
                        let r = cx.em.begin_if(c, std::slice::from_ref(&rt));
                        let v = point_value(&mut cx, &pv, &pl, &pt.runs)?;
                        let na = cx.combine(comb, a, v, res_elem);
                        cx.em.else_(&[na]);
                        cx.em.end_if(Some(&[a]));
                        next.push(r[0]);
                    } else {
                        let v = point_value(&mut cx, &pv, &pl, &pt.runs)?;
                        next.push(cx.combine(comb, a, v, res_elem));
                    }
                }
                let mut cur = next;
                if let Some(r) = if_res {
                    cx.em.else_(&cur);
                    cx.em.end_if(Some(accs));
                    cur = r;
                }
                for res in stack.into_iter().rev() {
                    cx.em.end_for(&cur);
                    cur = res;
                }
                end_kstep(&mut cx);
                for res in kresults.into_iter().rev() {
                    cx.em.end_for(&cur);
                    cur = res;
                }
                *accs = cur;
            }
            RegTile::Memory(acc) => {
                let (mut vals, q, opened, guarded) = open_points(&mut cx);
                let a0 = cx.em.op("memref.load", &[*acc, q], &[], rt);
                // Inner reduction loops over the k-step's tile, the accumulator carried.
                let mut a = a0;
                let mut stack = Vec::new();
                for &r in &rd {
                    let (z, ub, st) = red_loop(&mut cx, r);
                    let (lr, args, res) = cx.em.begin_for(z, ub, st, &[a]);
                    let base = cx.base[r];
                    vals[r] = Some(cx.em.add(base, lr));
                    stack.push(res[0]);
                    a = args[0];
                }
                let cond = red_guard(&mut cx, &vals);
                let if_res = cond.map(|c| cx.em.begin_if(c, std::slice::from_ref(&rt)));
                let v = point_value(&mut cx, &vals, &[], &[])?;
                let na = cx.combine(comb, a, v, res_elem);
                let mut cur = na;
                if let Some(r) = if_res {
                    cx.em.else_(&[cur]);
                    cx.em.end_if(Some(&[a]));
                    cur = r[0];
                }
                for &res in stack.iter().rev() {
                    cx.em.end_for(&[cur]);
                    cur = res;
                }
                cx.em.op0("memref.store", &[cur, *acc, q], &[]);
                close_points(&mut cx, opened, guarded);
                end_kstep(&mut cx);
                for _ in 0..kloops {
                    cx.em.end_for(&[]);
                }
            }
        }
        if rsplit > 1 {
            // Cross-thread reduction: partial accumulators to shared memory, then a tree
            // over the reduction lanes, one barrier per level.
            let red = cx.sh(RED_SLOT);
            let (z, one, qt) = (cx.em.idx(0), cx.em.idx(1), cx.em.idx(q_total));
            match &tile {
                RegTile::Values(accs) => {
                    for (q, &v) in accs.iter().enumerate() {
                        let qc = cx.em.idx(q as i64);
                        cx.em.op0("memref.store", &[v, red, qc, tr, ts], &[]);
                    }
                }
                RegTile::Memory(acc) => {
                    let (q, _, _) = cx.em.begin_for(z, qt, one, &[]);
                    let v = cx.em.op("memref.load", &[*acc, q], &[], rt);
                    cx.em.op0("memref.store", &[v, red, q, tr, ts], &[]);
                    cx.em.end_for(&[]);
                }
            }
            cx.em.barrier();
            let mut half = rsplit / 2;
            while half >= 1 {
                let h = cx.em.idx(half);
                let cnd = cx.em.cmp(CmpIPredicate::Ult, tr, h);
                cx.em.begin_then(cnd);
                let (q, _, _) = cx.em.begin_for(z, qt, one, &[]);
                let other = cx.em.add(tr, h);
                let a = cx.em.op("memref.load", &[red, q, tr, ts], &[], rt);
                let b = cx.em.op("memref.load", &[red, q, other, ts], &[], rt);
                let s2 = cx.combine(comb, a, b, res_elem);
                cx.em.op0("memref.store", &[s2, red, q, tr, ts], &[]);
                cx.em.end_for(&[]);
                cx.em.end_then();
                cx.em.barrier();
                half /= 2;
            }
            // Lane 0 stores the result.
            let z0 = cx.em.idx(0);
            let lead = cx.em.cmp(CmpIPredicate::Eq, tr, z0);
            cx.em.begin_then(lead);
            let (vals, q, opened, guarded) = open_points(&mut cx);
            let v = cx.em.op("memref.load", &[red, q, z0, ts], &[], rt);
            store_out(&mut cx, &vals, v)?;
            close_points(&mut cx, opened, guarded);
            cx.em.end_then();
        } else {
            // Epilogue: the register tile to the output (guarded on padded spatial axes).
            match &tile {
                RegTile::Values(accs) => {
                    let pts = unrolled_points(&mut cx, &sp, true);
                    // Consecutive points under the same guard (the same padded coordinates)
                    // share one scf.if. On a blocked axis whose extent is a multiple of 4 a
                    // run (4-aligned) is wholly inside or outside the tensor, so its 4 points
                    // share the run start's guard, and their stores stay adjacent for the
                    // back end to merge into one 16-byte store.
                    let conds: Vec<Option<Value>> = pts
                        .iter()
                        .map(|pt| {
                            let mut gv = pt.vals.clone();
                            for &s in &sp {
                                if let Some((run, _)) = pt.runs[s]
                                    && cx.ext[s] % 4 == 0
                                {
                                    let base = cx.base[s];
                                    gv[s] = Some(cx.em.add(base, run));
                                }
                            }
                            point_guard(&mut cx, &sp, &gv)
                        })
                        .collect();
                    let mut open: Option<Value> = None;
                    for ((pt, &v), cond) in pts.iter().zip(accs).zip(conds) {
                        if open.is_some() && open != cond {
                            cx.em.end_then();
                            open = None;
                        }
                        if open.is_none()
                            && let Some(c) = cond
                        {
                            cx.em.begin_then(c);
                            open = cond;
                        }
                        store_out(&mut cx, &pt.vals, v)?;
                    }
                    if open.is_some() {
                        cx.em.end_then();
                    }
                }
                RegTile::Memory(acc) => {
                    let (vals, q, opened, guarded) = open_points(&mut cx);
                    let v = cx.em.op("memref.load", &[*acc, q], &[], rt);
                    store_out(&mut cx, &vals, v)?;
                    close_points(&mut cx, opened, guarded);
                }
            }
        }
    } else if !sp.is_empty() {
        elementwise(&mut cx, &sp)?;
    } else {
        // No reduction: each point's value goes straight to the output.
        let (vals, _, opened, guarded) = open_points(&mut cx);
        let v = point_value(&mut cx, &vals, &[], &[])?;
        store_out(&mut cx, &vals, v)?;
        close_points(&mut cx, opened, guarded);
    }
    // Assemble the gpu.func around the entry block.
    let mut prologue_ops = std::mem::take(&mut cx.collapse_ops);
    prologue_ops.extend(prologue);
    let launch = LaunchDesc {
        grid: [nblocks as u64, 1, 1],
        block: [all_threads as u64, 1, 1],
        dynamic_shared_memory: dsm,
    };
    let staged = cx.accs.iter().map(|a| a.view.is_some()).collect();
    cx.em.finish(&prologue_ops);
    let func = build_gpu_func(
        ctx,
        entry,
        arg_types,
        name,
        &launch,
        (attributions, reference_text(c)),
    );
    Ok(LoweredKernel {
        name: name.to_string(),
        func,
        launch,
        shared_bytes,
        staged,
        vectorized,
        rsplit,
        prefetched,
    })
}

/// Wraps `entry` (the kernel's body) in a detached `gpu.func` named `name` over memrefs of
/// `arg_types`, with `attributions` workgroup attributions (the entry block's last
/// arguments), the launch's `known_*_size`, and the `rtile.launch` and `rtile.te`
/// (`reference`) attributes.
fn build_gpu_func(
    ctx: &mut Context,
    entry: BlockId,
    arg_types: Vec<Type>,
    name: &str,
    launch: &LaunchDesc,
    (attributions, reference): (usize, String),
) -> OpId {
    let [nblocks, ..] = launch.grid;
    let [all_threads, ..] = launch.block;
    let (nblocks, all_threads) = (nblocks as i64, all_threads as i64);
    let region = ctx.create_region();
    ctx.append_block(region, entry);
    let named = |name: &str, value: Attribute| NamedAttribute {
        name: name.into(),
        value,
    };
    let rtile_launch = Attribute::dictionary(vec![
        named("block", i32_array(&[all_threads, 1, 1])),
        named(
            "dynamic_shared_memory",
            Attribute::i64(launch.dynamic_shared_memory as i64),
        ),
        named("grid", i32_array(&[nblocks, 1, 1])),
    ]);
    let mut b = rtile::ir::Builder::new(ctx);
    b.op("gpu.func")
        .property(
            "function_type",
            Attribute::new(AttrKind::Type(Type::function(arg_types, vec![]))),
        )
        .property("known_block_size", i32_array(&[all_threads, 1, 1]))
        .property("known_grid_size", i32_array(&[nblocks, 1, 1]))
        .region(region)
        .attr("gpu.kernel", Attribute::unit())
        .attr("rtile.launch", rtile_launch)
        .attr("rtile.te", Attribute::string(reference))
        .attr("sym_name", Attribute::string(name))
        .attr(
            "workgroup_attributions",
            Attribute::i64(attributions as i64),
        )
        .build()
}

/// The slot of the cross-thread reduction's buffer among the shared buffers (the others'
/// slots are their distinct reads).
const RED_SLOT: usize = usize::MAX;

/// Makes the shared buffers `(slot, type, bytes)`: static workgroup attributions (entry
/// block arguments after the memrefs) while they fit the device's static limit
/// ([`kernel_limits`], [`STATIC_SHARED_LIMIT`] on NVIDIA), else views
/// into the launch's dynamic shared memory, built at the kernel's entry. Returns the number
/// of attributions, the dynamic shared memory (bytes, 0 when static) and the views' ops.
fn shared_buffers(cx: &mut Ctx, decls: &[(usize, Type, u64)]) -> (usize, u64, Vec<OpId>) {
    let sizes: Vec<u64> = decls.iter().map(|d| d.2).collect();
    let (offsets, laid_out) = shared_layout(&sizes);
    if laid_out <= cx.static_shared {
        let entry = cx.em.entry();
        for (slot, t, _) in decls {
            let v = cx
                .em
                .builder()
                .ctx_mut()
                .add_block_argument(entry, *t, None);
            cx.shared.push((*slot, v));
        }
        return (decls.len(), 0, Vec::new());
    }
    // Each buffer is a `memref.view` of `gpu.dynamic_shared_memory` at its byte offset, so
    // the body addresses it exactly as it would a workgroup attribution.
    let base_t = TypeKind::MemRef {
        shape: vec![DYNAMIC],
        elem: Type::int(8),
        layout: None,
        memory_space: Some(workgroup()),
    };
    let (base_op, base) = cx
        .em
        .at_entry("gpu.dynamic_shared_memory", &[], &[], Type::new(base_t));
    let mut ops = vec![base_op];
    for ((slot, t, _), &off) in decls.iter().zip(&offsets) {
        let value = Attribute::int(off as i64, Type::index());
        let (c_op, c) = cx
            .em
            .at_entry("arith.constant", &[], &[("value", value)], Type::index());
        let (v_op, v) = cx.em.at_entry("memref.view", &[base, c], &[], *t);
        ops.extend([c_op, v_op]);
        cx.shared.push((*slot, v));
    }
    (0, laid_out, ops)
}

/// Alignment of each shared buffer in dynamic shared memory: the widest shared access is a
/// 16-byte `vector<4xf32>`, and CUDA/HIP guarantee the dynamic allocation itself 16 bytes.
pub const DYNAMIC_SHARED_ALIGN: u64 = 16;

/// Byte offsets of shared buffers of `sizes` bytes laid out one after another in declaration
/// order, each [`DYNAMIC_SHARED_ALIGN`]-aligned (so they never overlap), and the total bytes
/// (the end of the last buffer, rounded up to the alignment).
pub fn shared_layout(sizes: &[u64]) -> (Vec<u64>, u64) {
    let mut offsets = Vec::with_capacity(sizes.len());
    let mut end = 0u64;
    for &n in sizes {
        offsets.push(end);
        end = (end + n).next_multiple_of(DYNAMIC_SHARED_ALIGN);
    }
    (offsets, end)
}

/// The body's value at one point (`vals`: view axis values; `locals`, where given, the
/// same minus the tile base, so staged reads need no subtraction; `runs`, where given, the
/// blocked axes' runs, see [`Point`]).
fn point_value(
    cx: &mut Ctx,
    vals: &[Option<Value>],
    locals: &[Option<Value>],
    runs: &[Option<(Value, i64)>],
) -> Result<Value, String> {
    let avals = point_loads(cx, vals, locals, runs)?;
    let body = cx.c.body.clone();
    Ok(cx.body(&body, &avals)?.0)
}

/// The most points of a thread tile an elementwise kernel loads before it uses them.
pub const ELEMENTWISE_UNROLL: i64 = 8;

/// Whether every access and the output of an elementwise kernel can move 16 bytes at a time
/// along the last spatial view axis `s`: 32-bit elements, unpadded direct reads, and in every
/// tensor `s` indexes the last (collapsed) dim alone, whose size is a multiple of 4, while
/// no other index depends on it. With `thread[s]` and the extent multiples of 4, a thread's
/// 4-element chunks start 16-byte aligned and lie wholly inside or outside the tensor.
fn vector_ok(cx: &Ctx, s: usize) -> bool {
    if cx.thr[s] % 4 != 0 || cx.ext[s] % 4 != 0 || cx.c.result.elem.width() != 32 {
        return false;
    }
    let nv = cx.c.axes.len();
    let g = cx.groups[s].clone();
    let contiguous = |map: &[AffineExpr], shape: &[i64]| -> bool {
        let (groups, items) = cx.plan_access(map, shape);
        let (Some(last), Some(lg)) = (items.last(), groups.last()) else {
            return false;
        };
        let last_ok = match last {
            Item::Fused(va) => *va == s,
            Item::Expr(d) => {
                g.len() == 1 && matches!(&map[*d], AffineExpr::Dim(a) if *a as usize == g[0])
            }
        };
        let row: i64 = lg.iter().map(|&d| shape[d]).product();
        let others_free = items[..items.len() - 1].iter().all(|it| match it {
            Item::Fused(va) => *va != s,
            Item::Expr(d) => {
                let mut used = vec![false; nv];
                mark_dims(&map[*d], &mut used);
                g.iter().all(|&a| !used[a])
            }
        });
        last_ok && others_free && row % 4 == 0
    };
    let np = cx.c.num_parallel();
    let out_map: Vec<AffineExpr> = (0..np as u32).map(AffineExpr::Dim).collect();
    cx.accs.iter().all(|a| {
        a.view.is_none() && a.pad.is_none() && a.elem.width() == 32 && contiguous(&a.map, &a.shape)
    }) && contiguous(&out_map, &cx.c.result.shape)
}

/// An elementwise kernel (no reduction axis), written for memory-level parallelism: the
/// loops over the thread's points are unrolled from the innermost spatial axis outwards, up
/// to [`ELEMENTWISE_UNROLL`] points, all the unrolled points' loads are written before any use (so
/// that many are in flight per thread: a store waiting on a load would stall the next load
/// behind it), and when [`vector_ok`] the thread moves 4 consecutive elements with one
/// 16-byte `vector.load`/`vector.store`: point `base + (j·nthr + tc)·4 + l`, so neighbouring
/// threads still touch neighbouring 16-byte chunks (coalesced warps).
fn elementwise(cx: &mut Ctx, sp: &[usize]) -> Result<(), String> {
    let n = cx.ext.len();
    let s_last = *sp
        .last()
        .ok_or("an elementwise kernel needs a spatial axis")?;
    let v = if vector_ok(cx, s_last) { 4 } else { 1 };
    let cnt: Vec<i64> = sp
        .iter()
        .map(|&s| {
            if s == s_last {
                cx.thr[s] / v
            } else {
                cx.thr[s]
            }
        })
        .collect();
    // Unroll factors from the innermost axis outwards, up to ELEMENTWISE_UNROLL points in
    // all; an outer axis is unrolled only once every inner one is whole (a transpose's
    // [.., 4, 2] thread tile gives 8 loads in flight, not the innermost axis's 2).
    let mut unroll = vec![1i64; sp.len()];
    let mut room = ELEMENTWISE_UNROLL;
    for i in (0..sp.len()).rev() {
        let u = (1..=room).rev().find(|d| cnt[i] % d == 0).unwrap_or(1);
        unroll[i] = u;
        room /= u;
        if u < cnt[i] || room <= 1 {
            break;
        }
    }
    let mut js = Vec::with_capacity(sp.len());
    let mut opened = 0;
    for i in 0..sp.len() {
        js.push(if cnt[i] == unroll[i] {
            cx.em.idx(0)
        } else {
            let (z, ub, st) = (cx.em.idx(0), cx.em.idx(cnt[i]), cx.em.idx(unroll[i]));
            opened += 1;
            cx.em.begin_for(z, ub, st, &[]).0
        });
    }
    // The unrolled points, row-major over the unrolled offsets (the innermost fastest).
    let total: i64 = unroll.iter().product();
    let mut pts = Vec::new();
    for flat in 0..total {
        let mut rem = flat;
        let mut offs = vec![0i64; sp.len()];
        for i in (0..sp.len()).rev() {
            offs[i] = rem % unroll[i];
            rem /= unroll[i];
        }
        let mut vals = vec![None; n];
        for (i, &s) in sp.iter().enumerate() {
            let j = if unroll[i] > 1 {
                let kc = cx.em.idx(offs[i]);
                cx.em.add(js[i], kc)
            } else {
                js[i]
            };
            let jn = cx.em.mul_const(j, cx.nthr[s]);
            let tc = cx.tc[s];
            let mut local = cx.em.add(jn, tc);
            if s == s_last {
                local = cx.em.mul_const(local, v);
            }
            let base = cx.base[s];
            vals[s] = Some(cx.em.add(base, local));
        }
        pts.push(vals);
    }
    let conds: Vec<Option<Value>> = pts.iter().map(|p| point_guard(cx, sp, p)).collect();
    let lane_ty = |e: ElemType| if v > 1 { vector(v, e) } else { ty(e) };
    let tys: Vec<Type> = cx.accs.iter().map(|a| lane_ty(a.elem)).collect();
    // Every unrolled point's loads first.
    let mut loaded = Vec::new();
    for (p, cond) in pts.iter().zip(&conds) {
        let load = |cx: &mut Ctx| -> Result<Vec<Value>, String> {
            if v == 1 {
                return point_loads(cx, p, &[], &[]);
            }
            let mut out = Vec::new();
            for i in 0..cx.accs.len() {
                let (map, shape) = (cx.accs[i].map.clone(), cx.accs[i].shape.clone());
                let elem = cx.accs[i].elem;
                let gm = cx.ins[cx.accs[i].input];
                let (m, idx, _) = cx.direct_access(gm, &map, &shape, elem, p)?;
                let mut args = vec![m];
                args.extend(idx);
                out.push(cx.em.op("vector.load", &args, &[], lane_ty(elem)));
            }
            Ok(out)
        };
        let av = match *cond {
            None => load(cx)?,
            Some(c) => {
                let r = cx.em.begin_if(c, &tys);
                let av = load(cx)?;
                cx.em.else_(&av);
                let mut pads = Vec::new();
                for (i, t) in tys.iter().enumerate() {
                    let e = cx.accs[i].elem;
                    let pv = cx.pad_value(&cx.accs[i]);
                    let mut k = cx.constant(pv, e);
                    if v > 1 {
                        k = cx.em.op("vector.broadcast", &[k], &[], *t);
                    }
                    pads.push(k);
                }
                cx.em.end_if(Some(&pads));
                r
            }
        };
        loaded.push(av);
    }
    // Then the bodies and stores, each under its point's guard.
    let body = cx.c.body.clone();
    for ((p, cond), av) in pts.iter().zip(&conds).zip(&loaded) {
        if let Some(c) = *cond {
            cx.em.begin_then(c);
        }
        if v == 1 {
            let r = cx.body(&body, av)?.0;
            store_out(cx, p, r)?;
        } else {
            let vt = lane_ty(cx.c.result.elem);
            let mut vec_val = None;
            for l in 0..v {
                let ets: Vec<Type> = cx.accs.iter().map(|a| ty(a.elem)).collect();
                let lanes: Vec<Value> = av
                    .iter()
                    .zip(ets)
                    .map(|(&x, et)| cx.em.op("vector.extract", &[x], &[position(l)], et))
                    .collect();
                let r = cx.body(&body, &lanes)?.0;
                vec_val = Some(match vec_val {
                    None => cx.em.op("vector.broadcast", &[r], &[], vt),
                    Some(acc) => cx.em.op("vector.insert", &[r, acc], &[position(l)], vt),
                });
            }
            let vec_val = vec_val.ok_or("internal error: an empty vector")?;
            let np = cx.c.num_parallel();
            let map: Vec<AffineExpr> = (0..np as u32).map(AffineExpr::Dim).collect();
            let shape = cx.c.result.shape.clone();
            let (m, idx, _) = cx.direct_access(cx.out, &map, &shape, cx.c.result.elem, p)?;
            let mut args = vec![vec_val, m];
            args.extend(idx);
            cx.em.op0("vector.store", &args, &[]);
        }
        if cond.is_some() {
            cx.em.end_then();
        }
    }
    for _ in 0..opened {
        cx.em.end_for(&[]);
    }
    Ok(())
}

/// The values of every access at one point (see [`point_value`]).
fn point_loads(
    cx: &mut Ctx,
    vals: &[Option<Value>],
    locals: &[Option<Value>],
    runs: &[Option<(Value, i64)>],
) -> Result<Vec<Value>, String> {
    let mut avals = Vec::new();
    for i in 0..cx.accs.len() {
        let elem = cx.accs[i].elem;
        let et = ty(elem);
        if let Some((vidx, _, _)) = cx.accs[i].view.clone() {
            // A blocked point reads its run's 4 values along the tile's last dim with one
            // 16-byte load and takes its lane; the run's other points reuse the load (the
            // emitter's value numbering), so a run costs one `ld.shared.v4` instead of 4.
            // Bank conflicts: 128-bit shared loads are served per 8-thread phase; threads
            // neighbouring along this axis read neighbouring 16-byte chunks of one row (8
            // of them cover the 32 banks once), and threads differing along the other axes
            // read the same row and chunk (a broadcast) — conflict-free either way.
            let transpose = cx.transposed.get(i).copied().flatten();
            let vec_run = shared_vector_axis(cx, i)
                .or(transpose.map(|t| t.axis))
                .and_then(|s| runs.get(s).copied().flatten().map(|r| (s, r)));
            // Tile-local coordinates: Σ c·(value − base), shifted for negative coefficients.
            let mut idx = Vec::new();
            for ix in &vidx {
                let mut o = cx.em.idx(0);
                for &(a, cf) in &ix.terms {
                    let run_start = vec_run
                        .filter(|(s, _)| *s == a)
                        .map(|(_, (start, _))| start);
                    let l = match run_start.or_else(|| locals.get(a).copied().flatten()) {
                        Some(l) => l,
                        None => {
                            let v = vals[a].ok_or("axis without a value")?;
                            let base = cx.base[a];
                            cx.em.ibin("arith.subi", v, base)
                        }
                    };
                    let l = if cf < 0 {
                        let off = cx.em.idx(cx.blk[a] - 1);
                        let t = cx.em.ibin("arith.subi", l, off);
                        cx.em.mul_const(t, cf)
                    } else {
                        cx.em.mul_const(l, cf)
                    };
                    o = cx.em.add(o, l);
                }
                idx.push(o);
            }
            // A transposed tile (`As[k][m]`): the blocked axis's run is along its last dim.
            let idx = transpose.map_or(idx.clone(), |t| t.permute(&idx));
            let mut args = vec![cx.sh(cx.accs[i].read)];
            args.extend(idx);
            if let Some((_, (_, lane))) = vec_run {
                let vt = vector(4, elem);
                let v = cx.em.op("vector.load", &args, &[], vt);
                avals.push(cx.em.op("vector.extract", &[v], &[position(lane)], et));
            } else {
                avals.push(cx.em.op("memref.load", &args, &[], et));
            }
        } else {
            let map = cx.accs[i].map.clone();
            let shape = cx.accs[i].shape.clone();
            let gm = cx.ins[cx.accs[i].input];
            let (m, idx, cshape) = cx.direct_access(gm, &map, &shape, elem, vals)?;
            let checks: Vec<(bool, bool)> = vec![(true, true); idx.len()];
            let cond = if cx.accs[i].pad.is_some() {
                cx.in_bounds(&idx, &cshape, &checks)
            } else {
                None
            };
            let padv = cx.pad_value(&cx.accs[i]);
            avals.push(cx.guarded_load(m, &idx, cond, elem, padv));
        }
    }
    Ok(avals)
}

fn cx_pad(cx: &Ctx, i: usize, d: usize) -> i64 {
    cx.pads.get(i).and_then(|p| p.get(d)).copied().unwrap_or(0)
}

fn store_out(cx: &mut Ctx, vals: &[Option<Value>], v: Value) -> Result<(), String> {
    let np = cx.c.num_parallel();
    let map: Vec<AffineExpr> = (0..np as u32).map(AffineExpr::Dim).collect();
    let shape = cx.c.result.shape.clone();
    let elem = cx.c.result.elem;
    let (m, idx, _) = cx.direct_access(cx.out, &map, &shape, elem, vals)?;
    let mut args = vec![v, m];
    args.extend(idx);
    cx.em.op0("memref.store", &args, &[]);
    Ok(())
}

/// One staged data tile: the shared buffer of a distinct staged read and how the block's
/// threads fill it (Roller §4: the shared-memory layer's data tile, loaded cooperatively).
struct StagedTile {
    /// The (first) te access of the read.
    acc: usize,
    /// The shared buffer's slot (the distinct read, see [`Ctx::sh`]).
    sh: usize,
    elem: ElemType,
    /// The tile's dims in load units (the last divided by `v`).
    dims: Vec<i64>,
    /// Elements per load: 4 (`vector<4xf32>`) or 1.
    v: i64,
    vidx: Vec<AffineIndex>,
    vshape: Vec<i64>,
    dgroups: Vec<Vec<usize>>,
    /// Per view dim: whether an index below 0 / at or past the extent can occur.
    checks: Vec<(bool, bool)>,
    padv: f64,
    /// The transposed shared layout, if the tile has one: its units are then stored as
    /// scalars, lane by lane.
    transpose: Option<Transpose>,
}

impl StagedTile {
    /// Load units of the tile.
    fn total(&self) -> i64 {
        self.dims.iter().product()
    }
    /// Load units one thread of `threads` moves: `⌈total / threads⌉`.
    fn per_thread(&self, threads: i64) -> i64 {
        (self.total() + threads - 1) / threads
    }
    /// The type of one load unit.
    fn lane_type(&self) -> Type {
        if self.v > 1 {
            vector(self.v, self.elem)
        } else {
            ty(self.elem)
        }
    }
    /// The pad value as one load unit (built where it is used).
    fn pad_lane(&self, cx: &mut Ctx) -> Value {
        let p = cx.constant(self.padv, self.elem);
        if self.v > 1 {
            cx.em.op("vector.broadcast", &[p], &[], self.lane_type())
        } else {
            p
        }
    }
}

/// The staged tiles of the kernel (one per distinct staged read, in access order), their
/// shared buffers `(slot, type, bytes)`, the bytes, and which accesses load 16 bytes at a
/// time. Builds nothing: origins and loads are built where the k-step base is known.
#[allow(clippy::type_complexity)]
fn plan_staged(
    cx: &Ctx,
    p: &RProgram,
) -> (Vec<StagedTile>, Vec<(usize, Type, u64)>, u64, Vec<bool>) {
    let mut tiles = Vec::new();
    let mut decls = Vec::new();
    let mut bytes_all = 0u64;
    let mut vectorized = vec![false; cx.accs.len()];
    for (i, vec_flag) in vectorized.iter_mut().enumerate() {
        let Some((vidx, vshape, dgroups)) = cx.accs[i].view.clone() else {
            continue;
        };
        // One shared tile per distinct read: a repeated read reuses the first one's.
        let read = cx.accs[i].read;
        if cx.accs[..i].iter().any(|a| a.read == read) {
            continue;
        }
        let elem = cx.accs[i].elem;
        let rank = vidx.len();
        let tile: Vec<i64> = vidx.iter().map(|ix| ix.span(&p.block) as i64).collect();
        let pad: Vec<i64> = (0..rank)
            .map(|d| p.pad.get(read).and_then(|v| v.get(d)).copied().unwrap_or(0) as i64)
            .collect();
        let transpose = cx.transposed.get(i).copied().flatten();
        // A transposed tile takes its own padding (only its new last dim's, see
        // [`transposed_pitch`]) instead of the program's, which was chosen for the
        // untransposed rows.
        let padded: Vec<i64> = match transpose {
            Some(t) => {
                let mut d = t.permute(&tile);
                if let Some(last) = d.last_mut() {
                    *last = t.pitch;
                }
                d
            }
            None => tile.iter().zip(&pad).map(|(a, b)| a + b).collect(),
        };
        let sh_ty = shared_memref(&padded, elem);
        let bytes = padded.iter().product::<i64>() as u64 * (elem.width() as u64).div_ceil(8);
        bytes_all += bytes;
        decls.push((read, sh_ty, bytes));
        // The static range of the tile origin over all blocks and k-steps, per dim.
        let mut checks = Vec::new();
        for (d, ix) in vidx.iter().enumerate() {
            let (mut lo, mut hi) = (ix.constant, ix.constant);
            for &(a, cf) in &ix.terms {
                let top = ((cx.ext[a] + cx.blk[a] - 1) / cx.blk[a] - 1) * cx.blk[a];
                let (x, y) = if cf < 0 {
                    (cf * (top + cx.blk[a] - 1), cf * (cx.blk[a] - 1))
                } else {
                    (0, cf * top)
                };
                lo += x;
                hi += y;
            }
            checks.push((lo < 0, hi + tile[d] > vshape[d]));
        }
        let last = rank - 1;
        let v = match load_unit(cx, &vidx, &vshape, elem, &tile) {
            4 if transpose.is_some() || padded[last] % 4 == 0 => 4,
            _ => 1,
        };
        *vec_flag = v == 4;
        let mut dims = tile.clone();
        dims[last] /= v;
        tiles.push(StagedTile {
            acc: i,
            sh: read,
            elem,
            dims,
            v,
            vidx,
            vshape,
            dgroups,
            checks,
            padv: cx.pad_value(&cx.accs[i]),
            transpose,
        });
    }
    (tiles, decls, bytes_all, vectorized)
}

/// The tile origin per view dim at the current tile bases (`cx.base`: block origins and
/// the k-step's base); negative coefficients start from the block's last index.
fn tile_origin(cx: &mut Ctx, t: &StagedTile) -> Vec<Value> {
    let mut origin = Vec::new();
    for ix in &t.vidx {
        let mut o = cx.em.idx(ix.constant);
        for &(a, cf) in &ix.terms {
            let b = if cf < 0 {
                let off = cx.em.idx(cx.blk[a] - 1);
                let base = cx.base[a];
                cx.em.add(base, off)
            } else {
                cx.base[a]
            };
            let term = cx.em.mul_const(b, cf);
            o = cx.em.add(o, term);
        }
        origin.push(o);
    }
    origin
}

/// Load unit `e` of tile `t`: its coordinates in the shared tile (elements), and the global
/// memref (collapsed to the view's shape, so view indices need no delinearization), the
/// global indices and the bounds condition (`None`: statically in bounds).
#[allow(clippy::type_complexity)]
fn unit_access(
    cx: &mut Ctx,
    t: &StagedTile,
    origin: &[Value],
    e: Value,
) -> (Vec<Value>, Value, Vec<Value>, Option<Value>) {
    let last = t.dims.len() - 1;
    let mut coord = cx.decompose(e, &t.dims);
    if t.v > 1 {
        coord[last] = cx.em.mul_const(coord[last], t.v);
    }
    let g: Vec<Value> = (0..coord.len())
        .map(|d| cx.em.add(origin[d], coord[d]))
        .collect();
    let cond = cx.in_bounds(&g, &t.vshape, &t.checks);
    let a = &cx.accs[t.acc];
    let (mem, shape) = (cx.ins[a.input], a.shape.clone());
    let gm = cx.collapsed(mem, &shape, t.elem, &t.dgroups);
    (coord, gm, g, cond)
}

/// The shared store of one load unit `val` at tile coordinates `coord`.
fn store_unit(cx: &mut Ctx, t: &StagedTile, val: Value, coord: &[Value]) {
    if let Some(tr) = t.transpose {
        // The unit's lanes run along the tensor's last dim, which is not the shared tile's
        // last: one scalar store per lane (bank conflicts: see [`transposed_pitch`]).
        let last = coord.len() - 1;
        for l in 0..t.v {
            let x = if t.v > 1 {
                cx.em
                    .op("vector.extract", &[val], &[position(l)], ty(t.elem))
            } else {
                val
            };
            let mut c = coord.to_vec();
            let off = cx.em.idx(l);
            c[last] = cx.em.add(coord[last], off);
            store_scalar(cx, t, x, &tr.permute(&c));
        }
        return;
    }
    let name = if t.v > 1 {
        "vector.store"
    } else {
        "memref.store"
    };
    let mut st = vec![val, cx.sh(t.sh)];
    st.extend_from_slice(coord);
    cx.em.op0(name, &st, &[]);
}

/// A scalar `memref.store` of `val` into tile `t` at shared-layout coordinates `coord`.
fn store_scalar(cx: &mut Ctx, t: &StagedTile, val: Value, coord: &[Value]) {
    let mut st = vec![val, cx.sh(t.sh)];
    st.extend_from_slice(coord);
    cx.em.op0("memref.store", &st, &[]);
}

/// Today's cooperative load of one staged tile (no prefetch): `scf.for e = tid to total step
/// threads { v = load global; store shared }`, out-of-range elements written with the pad.
fn loop_load(cx: &mut Ctx, t: &StagedTile, tid: Value, threads: i64) {
    let thr_c = cx.em.idx(threads);
    let origin = tile_origin(cx, t);
    let last = t.dims.len() - 1;
    let ub = cx.em.idx(t.total());
    let (e, _, _) = cx.em.begin_for(tid, ub, thr_c, &[]);
    let (coord, gm, gi, cond) = unit_access(cx, t, &origin, e);
    if t.v > 1 {
        if let Some(cnd) = cond {
            cx.em.begin_if(cnd, &[]);
        }
        let mut la = vec![gm];
        la.extend_from_slice(&gi);
        let val = cx.em.op("vector.load", &la, &[], t.lane_type());
        store_unit(cx, t, val, &coord);
        if cond.is_some() {
            cx.em.else_(&[]);
            let pv = cx.constant(t.padv, t.elem);
            for l in 0..t.v {
                let off = cx.em.idx(l);
                let mut c = coord.clone();
                c[last] = cx.em.add(coord[last], off);
                let c = t.transpose.map_or(c.clone(), |tr| tr.permute(&c));
                store_scalar(cx, t, pv, &c);
            }
            cx.em.end_if(Some(&[]));
        }
    } else {
        let val = cx.guarded_load(gm, &gi, cond, t.elem, t.padv);
        store_unit(cx, t, val, &coord);
    }
    cx.em.end_for(&[]);
}

/// The most 32-bit registers a thread may hold prefetched values in. The prefetched values
/// are live across the whole compute of a k-step, next to the register tile the
/// construction charged (data and accumulators, plus `THREAD_REGISTER_OVERHEAD` = 24 for
/// addresses, indices and counters, which the prefetch's address arithmetic shares since
/// it ends at the load), so they must fit the headroom between that charge and the
/// block's `.maxnreg` share ([`prefetch_budget`]). 32 (8 16-byte loads in flight per
/// thread) also caps the unrolled load code; the Table-1 programs need at most 16.
pub const PREFETCH_MAX_REGISTERS: i64 = 32;

/// 32-bit registers a thread of `threads` needs to prefetch one k-step's share of every
/// tile: per load unit its value (4 registers for a `vector<4xf32>`) and one more for the
/// unit's tile coordinates, which do not change from step to step, so the compiler hoists
/// them out of the k-loop and keeps them live across it. Counting values alone let the
/// big-block convolutions (Table-1 c1/c2 on H100, 22 scalar units in a 24-register
/// headroom; c1 on A100 and V100) spill.
fn prefetch_registers(tiles: &[StagedTile], threads: i64) -> i64 {
    tiles
        .iter()
        .map(|t| t.per_thread(threads) * (t.v * (t.elem.width() as u64).div_ceil(32) as i64 + 1))
        .sum()
}

/// Registers a thread may spend on prefetched values: [`PREFETCH_MAX_REGISTERS`], at most
/// half the headroom between the block's register share (`regs_per_core / threads`, rounded
/// down to the allocation granularity of 8, at most 255: the `.maxnreg` the back end sets)
/// and what the construction charges the thread tile (`thread_registers`); 0 on a device
/// the lowering cannot describe. Half, because the unrolled loads' address arithmetic
/// costs more than the one register per unit counted: with the whole headroom the
/// second-ranked H100 programs of Table-1 c1 and c2 (512 threads, 128 registers) spilled
/// 64 and 92 bytes.
fn prefetch_budget(view: &TensorExprInfo, p: &RProgram, threads: i64) -> i64 {
    use crate::construct_rtile::rtile::{register_bytes, thread_registers};
    let Ok(dev) = program_device(p) else {
        return 0;
    };
    let warps_threads = (threads.max(1) as u64).next_multiple_of(32);
    let share =
        ((dev.regs_per_core / warps_threads) / 8 * 8).min(dev.target().max_registers_per_thread);
    let charged = thread_registers(register_bytes(view, &p.thread, 1));
    ((share.saturating_sub(charged) / 2) as i64).min(PREFETCH_MAX_REGISTERS)
}

/// One thread's share of tile `t` at the current bases, global → registers: load unit
/// `tid + j·threads` for `j < ⌈total/threads⌉`, unrolled (every load written before any use,
/// so they are all in flight at once); the tail unit is guarded by `e < total` when
/// `threads ∤ total`, and out-of-range units (tail or tensor bounds) are the pad value.
fn prefetch_load(cx: &mut Ctx, t: &StagedTile, tid: Value, threads: i64) -> Vec<Value> {
    let origin = tile_origin(cx, t);
    let lt = t.lane_type();
    let mut out = Vec::new();
    for j in 0..t.per_thread(threads) {
        let off = cx.em.idx(j * threads);
        let e = cx.em.add(tid, off);
        let (_, gm, gi, bounds) = unit_access(cx, t, &origin, e);
        let tail = if (j + 1) * threads > t.total() {
            let tot = cx.em.idx(t.total());
            Some(cx.em.cmp(CmpIPredicate::Slt, e, tot))
        } else {
            None
        };
        let cond = match (tail, bounds) {
            (Some(a), b) => b.map(|b| cx.em.and(Some(a), b)).unwrap_or(Some(a)),
            (None, b) => b,
        };
        let mut la = vec![gm];
        la.extend_from_slice(&gi);
        let name = if t.v > 1 {
            "vector.load"
        } else {
            "memref.load"
        };
        out.push(match cond {
            None => cx.em.op(name, &la, &[], lt),
            Some(c) => {
                let r = cx.em.begin_if(c, std::slice::from_ref(&lt));
                let v = cx.em.op(name, &la, &[], lt);
                cx.em.else_(&[v]);
                let p = t.pad_lane(cx);
                cx.em.end_if(Some(&[p]));
                r[0]
            }
        });
    }
    out
}

/// Stores one thread's prefetched share `vals` of tile `t` to shared memory (the tail unit
/// only when `e < total`).
fn prefetch_store(cx: &mut Ctx, t: &StagedTile, vals: &[Value], tid: Value, threads: i64) {
    for (j, &val) in vals.iter().enumerate() {
        let j = j as i64;
        let off = cx.em.idx(j * threads);
        let e = cx.em.add(tid, off);
        let last = t.dims.len() - 1;
        let mut coord = cx.decompose(e, &t.dims);
        if t.v > 1 {
            coord[last] = cx.em.mul_const(coord[last], t.v);
        }
        let tail = (j + 1) * threads > t.total();
        if tail {
            let tot = cx.em.idx(t.total());
            let c = cx.em.cmp(CmpIPredicate::Slt, e, tot);
            cx.em.begin_then(c);
        }
        store_unit(cx, t, val, &coord);
        if tail {
            cx.em.end_then();
        }
    }
}
