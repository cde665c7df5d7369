//! The kernel builder of `--lower-to-gpu`: ops are created with the IR [`Builder`], constants
//! hoisted to the kernel's entry block (so they dominate every use), and structured
//! `scf.for` / `scf.if` regions opened and closed in order.
//!
//! The builder value-numbers what it creates: a pure op (`arith`, `math`, `gpu.thread_id`,
//! `gpu.block_id`, `vector.extract`/`broadcast`/`insert`) with the same name, operands,
//! properties and result type as one already built in an enclosing region is not built
//! again, and neither is a load (`memref.load`, `vector.load`) repeated within one
//! straight-line stretch of a region with no store, barrier or region boundary in between.
//! The unrolled register tile relies on it (Roller §4 "code generation", the register
//! layer): the points of a thread tile that share a row of A or a column of B read it from
//! shared memory once per reduction index.

use std::collections::HashMap;

use rtile::ir::affine::AffineExpr;
use rtile::ir::attributes::{Attribute, NamedAttribute};
use rtile::ir::{
    AttrKind, BlockId, Builder, Context, FloatFormat, InsertionPoint, OpId, Type, TypeKind, Value,
};
use rtile_dialects::arith::CmpIPredicate;
use rtile_dialects::te::model::ElemType;

/// An op's identity for value numbering: name, operands, properties and result type.
type OpKey = (String, Vec<Value>, Vec<NamedAttribute>, Type);

/// The builder of one kernel body.
pub struct Emitter<'c> {
    b: Builder<'c>,
    /// The kernel's entry block, where constants are hoisted.
    entry: BlockId,
    /// The hoisted constants, in creation order (the entry block is put in order by
    /// [`Self::finish`]).
    consts: Vec<OpId>,
    cache: HashMap<Attribute, Value>,
    /// Pure ops built so far, visible where their region still encloses the insertion
    /// point. `scopes` lists the keys each open region added (index 0: the kernel's body),
    /// so closing a region forgets them.
    pure: HashMap<OpKey, Value>,
    scopes: Vec<Vec<OpKey>>,
    /// Loads since the last store, barrier or region boundary.
    loads: HashMap<OpKey, Value>,
    /// The regions being built: the op whose region is open, and the insertion point to
    /// return to when it closes.
    open: Vec<(OpId, Option<InsertionPoint>)>,
}

/// A float attribute of element type `e` holding `v` rounded to the type's format, as the
/// parser reads a literal (a NaN is the quiet NaN).
pub fn float_attr(v: f64, e: ElemType) -> Attribute {
    let ty = e.to_type();
    let v = match ty.kind() {
        _ if v.is_nan() => f64::NAN,
        TypeKind::Float(k) => FloatFormat::of(*k).map_or(v, |f| f.round(v)),
        _ => v,
    };
    Attribute::float(v, ty)
}

/// `#gpu<dim x>`.
fn dim_x() -> Attribute {
    Attribute::new(AttrKind::Dialect {
        dialect: "gpu".into(),
        body: "<dim x>".into(),
    })
}

impl<'c> Emitter<'c> {
    /// A builder of the body of a kernel whose entry block is `entry` (ops go to its end).
    pub fn new(ctx: &'c mut Context, entry: BlockId) -> Self {
        Emitter {
            b: Builder::at_end(ctx, entry),
            entry,
            consts: Vec::new(),
            cache: HashMap::new(),
            pure: HashMap::new(),
            scopes: Vec::new(),
            loads: HashMap::new(),
            open: Vec::new(),
        }
    }

    /// The context.
    pub fn ctx(&self) -> &Context {
        self.b.ctx()
    }

    /// The underlying builder, for ops the emitter does not wrap.
    pub fn builder(&mut self) -> &mut Builder<'c> {
        &mut self.b
    }

    /// The kernel's entry block.
    pub fn entry(&self) -> BlockId {
        self.entry
    }

    /// The type of `v`.
    pub fn ty(&self, v: Value) -> Type {
        *self.b.ctx().value_type(v)
    }

    /// An `arith.constant` of `value` (hoisted, deduplicated).
    pub fn constant(&mut self, value: Attribute) -> Value {
        if let Some(&v) = self.cache.get(&value) {
            return v;
        }
        let ty = match value.kind() {
            AttrKind::Integer { ty, .. }
            | AttrKind::Float { ty, .. }
            | AttrKind::DenseElements { ty, .. } => *ty,
            _ => Type::i1(),
        };
        let ip = self.b.insertion_point();
        self.b.set_insertion_point_to_end(self.entry);
        let op = self
            .b
            .op("arith.constant")
            .property("value", value)
            .result(ty)
            .build();
        self.b.restore_insertion_point(ip);
        self.consts.push(op);
        let v = self.b.ctx().result(op, 0);
        self.cache.insert(value, v);
        v
    }

    /// A one-result op built in the entry block wherever the insertion point is (for the
    /// kernel's prologue: pass it to [`Self::finish`]); never deduplicated.
    pub fn at_entry(
        &mut self,
        name: &str,
        args: &[Value],
        props: &[(&str, Attribute)],
        res: Type,
    ) -> (OpId, Value) {
        let ip = self.b.insertion_point();
        self.b.set_insertion_point_to_end(self.entry);
        let mut d = self.b.op(name).operands(args).result(res);
        for (n, a) in props {
            d = d.property(n, *a);
        }
        let op = d.build();
        self.b.restore_insertion_point(ip);
        (op, self.b.ctx().result(op, 0))
    }

    /// The index arithmetic of `e` over the axis values `vals` (`None`: an axis with no value
    /// here).
    pub fn affine(&mut self, e: &AffineExpr, vals: &[Option<Value>]) -> Result<Value, String> {
        Ok(match e {
            AffineExpr::Dim(d) => vals
                .get(*d as usize)
                .cloned()
                .flatten()
                .ok_or("index uses an axis with no value here")?,
            AffineExpr::Constant(k) => self.idx(*k),
            AffineExpr::Add(a, b) => {
                let (x, y) = (self.affine(a, vals)?, self.affine(b, vals)?);
                self.add(x, y)
            }
            AffineExpr::Mul(a, b) => match (a.as_constant(), b.as_constant()) {
                (_, Some(k)) => {
                    let x = self.affine(a, vals)?;
                    self.mul_const(x, k)
                }
                (Some(k), _) => {
                    let x = self.affine(b, vals)?;
                    self.mul_const(x, k)
                }
                _ => return Err("non-affine product in an index".into()),
            },
            AffineExpr::FloorDiv(a, b) | AffineExpr::CeilDiv(a, b) | AffineExpr::Mod(a, b) => {
                let (x, y) = (self.affine(a, vals)?, self.affine(b, vals)?);
                match e {
                    AffineExpr::FloorDiv(..) => self.ibin("arith.floordivsi", x, y),
                    AffineExpr::CeilDiv(..) => self.ibin("arith.ceildivsi", x, y),
                    _ => {
                        let q = self.ibin("arith.floordivsi", x, y);
                        let m = self.ibin("arith.muli", q, y);
                        self.ibin("arith.subi", x, m)
                    }
                }
            }
            AffineExpr::Symbol(_) => return Err("symbols in index maps are not supported".into()),
        })
    }

    /// An index constant.
    pub fn idx(&mut self, v: i64) -> Value {
        self.constant(Attribute::int(v, Type::index()))
    }

    /// A float constant of element type `e`.
    pub fn float(&mut self, v: f64, e: ElemType) -> Value {
        self.constant(float_attr(v, e))
    }

    /// A one-result op `name(args) <{props}> : res`; a pure op or load already available
    /// here (see the module doc) returns the earlier result instead.
    pub fn op(
        &mut self,
        name: &str,
        args: &[Value],
        props: &[(&str, Attribute)],
        res: Type,
    ) -> Value {
        let mut named: Vec<NamedAttribute> = props
            .iter()
            .map(|(n, a)| NamedAttribute {
                name: (*n).to_string().into(),
                value: *a,
            })
            .collect();
        named.sort_by_key(|a| a.name);
        let key: OpKey = (name.to_string(), args.to_vec(), named, res);
        let pure = Self::is_pure(name);
        let load = matches!(name, "memref.load" | "vector.load");
        if pure && let Some(&v) = self.pure.get(&key) {
            return v;
        }
        if load && let Some(&v) = self.loads.get(&key) {
            return v;
        }
        let mut d = self.b.op(name).operands(args).result(res);
        for (n, a) in props {
            d = d.property(n, *a);
        }
        let r = d.value();
        if pure {
            if self.scopes.is_empty() {
                self.scopes.push(Vec::new());
            }
            if let Some(s) = self.scopes.last_mut() {
                s.push(key.clone());
            }
            self.pure.insert(key, r);
        } else if load {
            self.loads.insert(key, r);
        } else {
            self.loads.clear();
        }
        r
    }

    /// Ops without side effects whose result depends only on their operands.
    fn is_pure(name: &str) -> bool {
        name.starts_with("arith.")
            || name.starts_with("math.")
            || matches!(
                name,
                "gpu.thread_id"
                    | "gpu.block_id"
                    | "vector.extract"
                    | "vector.broadcast"
                    | "vector.insert"
            )
    }

    /// A zero-result op (a store or barrier: loads built before it are not reused).
    pub fn op0(&mut self, name: &str, args: &[Value], props: &[(&str, Attribute)]) {
        let mut d = self.b.op(name).operands(args);
        for (n, a) in props {
            d = d.property(n, *a);
        }
        d.build();
        self.loads.clear();
    }

    /// `gpu.barrier`.
    pub fn barrier(&mut self) {
        self.op0("gpu.barrier", &[], &[]);
    }

    /// `gpu.block_id x` or `gpu.thread_id x`.
    pub fn id_x(&mut self, name: &str) -> Value {
        self.op(name, &[], &[("dimension", dim_x())], Type::index())
    }

    /// A region opens: what is built inside may be forgotten when it closes, and loads
    /// from before it are not reused inside (a loop body may run after its own stores).
    fn open_scope(&mut self) {
        if self.scopes.is_empty() {
            self.scopes.push(Vec::new());
        }
        self.scopes.push(Vec::new());
        self.loads.clear();
    }

    /// The innermost region closes: its values no longer dominate what follows.
    fn close_scope(&mut self) {
        if self.scopes.len() > 1
            && let Some(keys) = self.scopes.pop()
        {
            for k in keys {
                self.pure.remove(&k);
            }
        }
        self.loads.clear();
    }

    /// Index arithmetic: `arith.addi` etc. on two index values (`x - 0` folds to `x`).
    pub fn ibin(&mut self, name: &str, a: Value, b: Value) -> Value {
        if name == "arith.subi" && b == self.idx(0) {
            return a;
        }
        self.op(name, &[a, b], &[], Type::index())
    }

    /// `a + b` on index values, folding zero constants away.
    pub fn add(&mut self, a: Value, b: Value) -> Value {
        let zero = self.idx(0);
        if a == zero {
            return b;
        }
        if b == zero {
            return a;
        }
        self.ibin("arith.addi", a, b)
    }

    /// `a * c` for a constant `c`, folding 0 and 1.
    pub fn mul_const(&mut self, a: Value, c: i64) -> Value {
        if a == self.idx(0) {
            return a;
        }
        match c {
            0 => self.idx(0),
            1 => a,
            _ => {
                let k = self.idx(c);
                self.ibin("arith.muli", a, k)
            }
        }
    }

    /// `arith.cmpi` of two index values.
    pub fn cmp(&mut self, pred: CmpIPredicate, a: Value, b: Value) -> Value {
        self.op(
            "arith.cmpi",
            &[a, b],
            &[("predicate", Attribute::i64(pred.value()))],
            Type::i1(),
        )
    }

    /// `a && b` on i1 (`None` = true).
    pub fn and(&mut self, a: Option<Value>, b: Value) -> Option<Value> {
        Some(match a {
            None => b,
            Some(a) => self.op("arith.andi", &[a, b], &[], Type::i1()),
        })
    }

    /// Opens a region of `op` (its region `i`) with one block of `args`, and moves the
    /// insertion point into it.
    fn open_region(
        &mut self,
        op: OpId,
        i: usize,
        args: &[Type],
        ip: Option<InsertionPoint>,
    ) -> BlockId {
        let r = self.b.ctx().regions(op)[i];
        let blk = self.b.create_block_in(r, args);
        self.open_scope();
        self.open.push((op, ip));
        blk
    }

    /// Opens `scf.for %iv = lb to ub step s iter_args(inits)`; returns `(iv, region args,
    /// results)`. Close with [`Self::end_for`].
    pub fn begin_for(
        &mut self,
        lb: Value,
        ub: Value,
        step: Value,
        inits: &[Value],
    ) -> (Value, Vec<Value>, Vec<Value>) {
        let tys: Vec<Type> = inits.iter().map(|&v| self.ty(v)).collect();
        let op = self
            .b
            .op("scf.for")
            .operands(&[lb, ub, step])
            .operands(inits)
            .results(tys.clone())
            .regions(1)
            .build();
        let results = self.b.ctx().results(op).to_vec();
        let ip = self.b.insertion_point();
        let mut args = vec![Type::index()];
        args.extend(tys);
        let blk = self.open_region(op, 0, &args, ip);
        let bargs = self.b.ctx().block_args(blk).to_vec();
        (bargs[0], bargs[1..].to_vec(), results)
    }

    /// Closes the innermost region, yielding `yields`, and returns to where it was opened.
    fn close_region(&mut self, yields: &[Value]) {
        self.b.op("scf.yield").operands(yields).build();
        self.close_scope();
        if let Some((_, ip)) = self.open.pop() {
            self.b.restore_insertion_point(ip);
        }
    }

    /// Closes the innermost `scf.for`, yielding `yields`.
    pub fn end_for(&mut self, yields: &[Value]) {
        self.close_region(yields);
    }

    /// Opens `scf.if %cond` with result types `res`; returns the results. Build the then
    /// region, call [`Self::else_`] with its yields, build the else region, then
    /// [`Self::end_if`].
    pub fn begin_if(&mut self, cond: Value, res: &[Type]) -> Vec<Value> {
        let op = self
            .b
            .op("scf.if")
            .operand(cond)
            .results(res.iter().cloned())
            .regions(2)
            .build();
        let results = self.b.ctx().results(op).to_vec();
        let ip = self.b.insertion_point();
        self.open_region(op, 0, &[], ip);
        results
    }

    /// Ends the then region (yielding `yields`) and opens the else region.
    pub fn else_(&mut self, yields: &[Value]) {
        let Some(&(op, _)) = self.open.last() else {
            return;
        };
        self.b.op("scf.yield").operands(yields).build();
        self.close_scope();
        if let Some((_, ip)) = self.open.pop() {
            self.open_region(op, 1, &[], ip);
        }
    }

    /// Ends an `scf.if` (the else region yields `yields`; with no results and an empty
    /// else region pass `None`).
    pub fn end_if(&mut self, yields: Option<&[Value]>) {
        match yields {
            Some(y) => self.close_region(y),
            None => {
                self.close_scope();
                if let Some((_, ip)) = self.open.pop() {
                    self.b.restore_insertion_point(ip);
                }
            }
        }
    }

    /// `scf.if %cond { ... }` with no results and no else: call then [`Self::end_then`].
    pub fn begin_then(&mut self, cond: Value) {
        self.begin_if(cond, &[]);
    }

    /// Closes [`Self::begin_then`] (the else region stays empty).
    pub fn end_then(&mut self) {
        self.close_region(&[]);
    }

    /// Puts the entry block in order, `prologue` ops first (as given), then the hoisted
    /// constants, then the body, and ends it with `gpu.return`.
    pub fn finish(mut self, prologue: &[OpId]) {
        let ctx = self.b.ctx_mut();
        let body: Vec<OpId> = ctx
            .block_ops(self.entry)
            .filter(|o| !prologue.contains(o) && !self.consts.contains(o))
            .collect();
        for &op in prologue.iter().chain(&self.consts).chain(&body) {
            ctx.detach_op(op);
            ctx.append_op(self.entry, op);
        }
        self.b.set_insertion_point_to_end(self.entry);
        self.b.op("gpu.return").build();
    }
}
