//! Reading the stage's inputs at one point: global reads (through collapsed views of the
//! kernel's arguments where a fused view axis covers several tensor dims, guarded where the
//! access is padded) and reads of staged shared tiles (16 bytes at a time along a blocked
//! axis), plus the index arithmetic they share.

use rtile::ir::Value;
use rtile::ir::affine::AffineExpr;
use rtile_dialects::arith::CmpIPredicate;
use rtile_dialects::te::model::{ElemType, TeCompute};

use super::context::Lowering;
use super::fuse::{ReSrc, Recompute};
use super::plan::{AxisPlan, InputPlan, InputSource};
use super::types::{memref, position, ty, vector};
use rtile_dialects::tensor::reassociation_attr as reassociation;

/// One index of a global access after collapsing: a fused view axis addressing a collapsed
/// group of the tensor's dims, or one of the access's own index expressions.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Item {
    Fused(usize),
    Expr(usize),
}

/// The original axes an index expression reads.
pub(super) fn mark_dims(e: &AffineExpr, used: &mut [bool]) {
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

/// Groups consecutive original dims whose extents multiply to each view dim (any grouping
/// with matching products gives the same row-major offsets, so 1-extents may go anywhere).
pub(super) fn dim_groups(orig: &[i64], view: &[i64]) -> Option<Vec<Vec<usize>>> {
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

/// How a global access of `shape` through `map` (over the original axes of `c`) is indexed:
/// each run of index results that is exactly a fused view axis's original axes, in order,
/// over tensor dims of the same extents, is one collapsed dim indexed by the fused value
/// itself (row-major offsets agree), so no `divui`/`remui` delinearizes it; the other
/// results stay as they are. Returns the reassociation and the items, one per index.
pub(super) fn plan_access(
    axes: &[AxisPlan],
    c: &TeCompute,
    map: &[AffineExpr],
    shape: &[i64],
) -> (Vec<Vec<usize>>, Vec<Item>) {
    let (mut groups, mut items) = (Vec::new(), Vec::new());
    let mut d = 0;
    while d < map.len() {
        let run = match &map[d] {
            AffineExpr::Dim(a0) => axes.iter().position(|axis| {
                let g = &axis.original_axes;
                g.len() > 1
                    && g[0] == *a0 as usize
                    && d + g.len() <= map.len()
                    && g.iter().enumerate().all(|(i, &a)| {
                        matches!(&map[d + i], AffineExpr::Dim(x) if *x as usize == a)
                            && shape.get(d + i) == Some(&c.axes[a].extent)
                    })
            }),
            _ => None,
        };
        match run {
            Some(va) => {
                let len = axes[va].original_axes.len();
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

/// The value an out-of-range read of `input` gives: its own pad, else the compute's.
pub(super) fn pad_value(c: &TeCompute, input: &InputPlan) -> f64 {
    input.pad.or(c.may_pad.map(|m| m.value)).unwrap_or(0.0)
}

/// The identity index map of the output (its dims are the parallel axes, in order).
pub(super) fn output_map(c: &TeCompute) -> Vec<AffineExpr> {
    (0..c.num_parallel() as u32).map(AffineExpr::Dim).collect()
}

impl Lowering<'_> {
    /// Original axis values from view axis values, decomposing only the fused view axes
    /// that cover an axis in `needed` (the others' values stay `None`).
    fn orig_axes_needed(
        &mut self,
        view_vals: &[Option<Value>],
        needed: &[bool],
    ) -> Vec<Option<Value>> {
        let c = self.compute;
        let mut out = vec![None; c.axes.len()];
        for (va, axis) in self.stage.axes.iter().enumerate() {
            let g = &axis.original_axes;
            let Some(v) = view_vals[va] else { continue };
            if !g.iter().any(|&a| needed.get(a).copied().unwrap_or(true)) {
                continue;
            }
            if g.len() == 1 {
                out[g[0]] = Some(v);
                continue;
            }
            let exts: Vec<i64> = g.iter().map(|&a| c.axes[a].extent).collect();
            for (a, x) in g.iter().zip(self.decompose(v, &exts)) {
                out[*a] = Some(x);
            }
        }
        out
    }

    /// `mem` (a kernel argument of `shape`) with the dims of each group merged: a
    /// `memref.collapse_shape` built once at the kernel's entry (the argument itself when
    /// no group merges dims).
    pub fn collapsed(
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

    /// A global access's memref (collapsed where [`plan_access`] merges dims), its
    /// indices and shape at the point `vals` (view axis values).
    pub fn direct_access(
        &mut self,
        mem: Value,
        map: &[AffineExpr],
        shape: &[i64],
        elem: ElemType,
        vals: &[Option<Value>],
    ) -> Result<(Value, Vec<Value>, Vec<i64>), String> {
        let (mut groups, mut items) = plan_access(&self.stage.axes, self.compute, map, shape);
        if items
            .iter()
            .any(|it| matches!(it, Item::Fused(va) if vals[*va].is_none()))
        {
            groups = (0..map.len()).map(|d| vec![d]).collect();
            items = (0..map.len()).map(Item::Expr).collect();
        }
        let mut needed = vec![false; self.compute.axes.len()];
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

    /// The index arithmetic of `e` over the original axis values `vals`.
    pub(super) fn affine(
        &mut self,
        e: &AffineExpr,
        vals: &[Option<Value>],
    ) -> Result<Value, String> {
        self.em.affine(e, vals)
    }

    /// `0 <= idx[d] < shape[d]` for the dims that need it.
    pub fn in_bounds(
        &mut self,
        idx: &[Value],
        shape: &[i64],
        check: &[(bool, bool)],
    ) -> Option<Value> {
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

    /// Reads a value from global memory at original indices, guarded by `cond`.
    pub fn guarded_load(
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

    /// The body's value at one point (`vals`: view axis values; `locals`, where given, the
    /// same minus the tile base, so staged reads need no subtraction; `runs`, where given,
    /// the blocked axes' runs, see [`super::thread_map::Point`]).
    pub fn point_value(
        &mut self,
        vals: &[Option<Value>],
        locals: &[Option<Value>],
        runs: &[Option<(Value, i64)>],
    ) -> Result<Value, String> {
        let avals = self.point_loads(vals, locals, runs)?;
        let c = self.compute;
        Ok(self.body(&c.body, &avals)?.0)
    }

    /// The index an access `map` over the compute's (original) axes takes at the point
    /// `vals` (view axis values), in the accessed tensor's index space: how inputs that
    /// are not the stage's own (recomputed reductions, shared stages) are read.
    pub(super) fn index_at_point(
        &mut self,
        map: &[AffineExpr],
        vals: &[Option<Value>],
    ) -> Result<Vec<Value>, String> {
        let mut needed = vec![false; self.compute.axes.len()];
        for e in map {
            mark_dims(e, &mut needed);
        }
        let orig = self.orig_axes_needed(vals, &needed);
        map.iter().map(|e| self.affine(e, &orig)).collect()
    }

    /// The values of every access at one point (see [`Self::point_value`]).
    pub fn point_loads(
        &mut self,
        vals: &[Option<Value>],
        locals: &[Option<Value>],
        runs: &[Option<(Value, i64)>],
    ) -> Result<Vec<Value>, String> {
        let stage = self.stage;
        let mut avals = Vec::new();
        for input in &stage.inputs {
            if let Some(src @ (ReSrc::Recompute(_) | ReSrc::Shared(_))) =
                self.plan.sources.get(input.input)
            {
                let at = self.index_at_point(&input.map, vals)?;
                let t = &self.compute.inputs[input.input];
                let pad = input.pad.map(|_| pad_value(self.compute, input));
                avals.push(self.source_load(src, &at, t, pad)?);
                continue;
            }
            let v = match &input.source {
                InputSource::Shared(_) => self.shared_read(input, vals, locals, runs)?,
                InputSource::Global => {
                    let gm = self.inputs[input.input];
                    let (m, idx, cshape) =
                        self.direct_access(gm, &input.map, &input.shape, input.elem, vals)?;
                    let checks: Vec<(bool, bool)> = vec![(true, true); idx.len()];
                    let cond = if input.pad.is_some() {
                        self.in_bounds(&idx, &cshape, &checks)
                    } else {
                        None
                    };
                    let padv = pad_value(self.compute, input);
                    self.guarded_load(m, &idx, cond, input.elem, padv)
                }
            };
            avals.push(v);
        }
        Ok(avals)
    }

    /// The value of staged `input` at one point, from its shared tile.
    fn shared_read(
        &mut self,
        input: &InputPlan,
        vals: &[Option<Value>],
        locals: &[Option<Value>],
        runs: &[Option<(Value, i64)>],
    ) -> Result<Value, String> {
        let InputSource::Shared(read) = &input.source else {
            return Err("internal error: a global input read as a shared tile".into());
        };
        let elem = input.elem;
        let et = ty(elem);
        // A blocked point reads its run's 4 values along the tile's last dim with one
        // 16-byte load and takes its lane; the run's other points reuse the load (the
        // emitter's value numbering), so a run costs one `ld.shared.v4` instead of 4.
        // Bank conflicts: 128-bit shared loads are served per 8-thread phase; threads
        // neighbouring along this axis read neighbouring 16-byte chunks of one row (8
        // of them cover the 32 banks once), and threads differing along the other axes
        // read the same row and chunk (a broadcast) — conflict-free either way.
        let transpose = read.transpose;
        let vec_run = read
            .vector_axis
            .or(transpose.map(|t| t.axis))
            .and_then(|s| runs.get(s).copied().flatten().map(|r| (s, r)));
        // Tile-local coordinates: Σ c·(value − base), shifted for negative coefficients,
        // plus the access's offset in its read group's box (a stencil's tap).
        let mut idx = Vec::new();
        for (d, ix) in read.indices.iter().enumerate() {
            let mut o = self.em.idx(read.offset.get(d).copied().unwrap_or(0));
            for &(a, cf) in &ix.terms {
                let run_start = vec_run
                    .filter(|(s, _)| *s == a)
                    .map(|(_, (start, _))| start);
                let l = match run_start.or_else(|| locals.get(a).copied().flatten()) {
                    Some(l) => l,
                    None => {
                        let v = vals[a].ok_or("axis without a value")?;
                        let base = self.tile_base[a];
                        self.em.ibin("arith.subi", v, base)
                    }
                };
                let l = if cf < 0 {
                    let off = self.em.idx(self.axis(a).block_tile - 1);
                    let t = self.em.ibin("arith.subi", l, off);
                    self.em.mul_const(t, cf)
                } else {
                    self.em.mul_const(l, cf)
                };
                o = self.em.add(o, l);
            }
            idx.push(o);
        }
        // A transposed tile (`As[k][m]`): the blocked axis's run is along its last dim.
        let idx = transpose.map_or(idx.clone(), |t| t.permute(&idx));
        let mut args = vec![self.shared_buffer(input.read)];
        args.extend(idx);
        Ok(if let Some((_, (_, lane))) = vec_run {
            let vt = vector(4, elem);
            let v = self.em.op("vector.load", &args, &[], vt);
            self.em.op("vector.extract", &[v], &[position(lane)], et)
        } else {
            self.em.op("memref.load", &args, &[], et)
        })
    }

    /// A register-connected producer's value at its output point `at` (Welder §3.4, the
    /// producer computed in its consumer's loop): for a reduction, one `scf.for` over its
    /// reduction points, linearized, accumulating its body; for an element-wise op, its
    /// body at the point. Its inputs are read from the kernel's arguments or shared stages
    /// (bounds-checked where they carry a pad value) or recomputed in turn.
    pub(super) fn recompute(&mut self, rc: &Recompute, at: &[Value]) -> Result<Value, String> {
        let c = &rc.compute;
        let Some(comb) = c.combiner else {
            let axes: Vec<Option<Value>> = at.iter().map(|&v| Some(v)).collect();
            let avals = self.recompute_loads(rc, &axes)?;
            return Ok(self.body_with(&c.body, &avals, &c.access_types())?.0);
        };
        let init = self.constant(comb.identity(c.acc_type()), c.acc_type());
        let acc = self.fold(rc, at, init, None, None)?;
        Ok(self.acc_to_result(c, acc))
    }

    /// The values of `rc`'s accesses at the point whose axis values are `axes`.
    fn recompute_loads(
        &mut self,
        rc: &Recompute,
        axes: &[Option<Value>],
    ) -> Result<Vec<Value>, String> {
        let c = &rc.compute;
        let mut avals = Vec::new();
        for a in &c.accesses {
            let idx = a
                .map
                .results
                .iter()
                .map(|e| self.affine(e, axes))
                .collect::<Result<Vec<_>, _>>()?;
            let t = &c.inputs[a.input];
            avals.push(self.source_load(&rc.srcs[a.input], &idx, t, a.pad)?);
        }
        Ok(avals)
    }

    /// `init` folded with `rc`'s body over its reduction points at the output point `at`
    /// (in its accumulator type); with `range = Some((axis, base, size))`, reduction axis
    /// `axis` (an index into `rc`'s axes) only over `base .. base + size`: one k-step of a
    /// stepped shared stage (Welder §3.1: input tiles along a reduction axis "loaded and
    /// consumed sequentially by accumulating their results to the output tile"). With
    /// `lanes = Some((lane, n))`, only the flattened reduction points `lane, lane + n, ..`
    /// (one lane's part of a point shared by `n` threads, `super::shared_lanes`).
    pub(super) fn fold(
        &mut self,
        rc: &Recompute,
        at: &[Value],
        init: Value,
        range: Option<(usize, Value, i64)>,
        lanes: Option<(Value, i64)>,
    ) -> Result<Value, String> {
        let c = &rc.compute;
        let comb = c
            .combiner
            .ok_or("internal error: a recomputed op without a reduction")?;
        let np = c.num_parallel();
        let mut red: Vec<i64> = c.axes[np..].iter().map(|a| a.extent).collect();
        if let Some((axis, _, size)) = range {
            red[axis - np] = size;
        }
        let total: i64 = red.iter().product();
        let (start, step) = match lanes {
            Some((lane, n)) => (lane, self.em.idx(n)),
            None => (self.em.idx(0), self.em.idx(1)),
        };
        let n = self.em.idx(total);
        let (iv, accs, res) = self.em.begin_for(start, n, step, &[init]);
        let mut coords = self.decompose(iv, &red);
        if let Some((axis, base, _)) = range {
            coords[axis - np] = self.em.add(coords[axis - np], base);
        }
        let mut axes: Vec<Option<Value>> = at.iter().map(|&v| Some(v)).collect();
        axes.extend(coords.into_iter().map(Some));
        let avals = self.recompute_loads(rc, &axes)?;
        let (v, _) = self.body_with(&c.body, &avals, &c.access_types())?;
        let acc = self.combine(comb, accs[0], v, c.acc_type());
        self.em.end_for(&[acc]);
        Ok(res[0])
    }
}
