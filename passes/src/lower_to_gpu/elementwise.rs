//! Elementwise stages (no reduction axis), written for memory-level parallelism: the loops
//! over the thread's points are unrolled from the innermost spatial axis outwards, up to
//! [`ELEMENTWISE_UNROLL`] points, all the unrolled points' loads are written before any use
//! (so that many are in flight per thread: a store waiting on a load would stall the next
//! load behind it), and where `vector_ok` the thread moves 4 consecutive elements with
//! one 16-byte `vector.load`/`vector.store`: point `base + (j·nthr + tc)·4 + l`, so
//! neighbouring threads still touch neighbouring 16-byte chunks (coalesced warps).

use rtile::ir::affine::AffineExpr;
use rtile::ir::{Type, Value};
use rtile_dialects::te::model::ElemType;

use super::access::{Item, mark_dims, output_map, pad_value, plan_access};
use super::context::Lowering;
use super::plan::{ElementwisePlan, InputSource, StagePlan};
use super::types::{position, ty, vector};

/// The most points of a thread tile an elementwise kernel loads before it uses them.
pub const ELEMENTWISE_UNROLL: i64 = 8;

/// Whether every access and the output of an elementwise kernel can move 16 bytes at a time
/// along the last spatial view axis `s`: 32-bit elements, unpadded direct reads, and in every
/// tensor `s` indexes the last (collapsed) dim alone, whose size is a multiple of 4, while
/// no other index depends on it. With `thread[s]` and the extent multiples of 4, a thread's
/// 4-element chunks start 16-byte aligned and lie wholly inside or outside the tensor.
fn vector_ok(stage: &StagePlan, s: usize) -> bool {
    let c = &stage.compute;
    let axis = &stage.axes[s];
    if axis.thread_tile % 4 != 0 || axis.extent % 4 != 0 || c.result.elem.width() != 32 {
        return false;
    }
    let nv = c.axes.len();
    let g = &axis.original_axes;
    let contiguous = |map: &[AffineExpr], shape: &[i64]| -> bool {
        let (groups, items) = plan_access(&stage.axes, c, map, shape);
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
    stage.inputs.iter().all(|a| {
        a.source == InputSource::Global
            && a.pad.is_none()
            && a.elem.width() == 32
            && contiguous(&a.map, &a.shape)
    }) && contiguous(&output_map(c), &c.result.shape)
}

/// The vector width and unrolling of an elementwise stage over its `spatial` axes.
pub(super) fn plan_elementwise(
    stage: &StagePlan,
    spatial: &[usize],
) -> Result<ElementwisePlan, String> {
    let s_last = *spatial
        .last()
        .ok_or("an elementwise kernel needs a spatial axis")?;
    plan_elementwise_lanes(stage, spatial, vector_ok(stage, s_last))
}

/// [`plan_elementwise`] with 16-byte vectors allowed or not (a fused kernel whose inputs
/// include recomputed reductions reads them point by point).
pub(super) fn plan_elementwise_lanes(
    stage: &StagePlan,
    spatial: &[usize],
    vector: bool,
) -> Result<ElementwisePlan, String> {
    let s_last = *spatial
        .last()
        .ok_or("an elementwise kernel needs a spatial axis")?;
    let v = if vector { 4 } else { 1 };
    let units: Vec<i64> = spatial
        .iter()
        .map(|&s| {
            let t = stage.axes[s].thread_tile;
            if s == s_last { t / v } else { t }
        })
        .collect();
    // Unroll factors from the innermost axis outwards, up to ELEMENTWISE_UNROLL points in
    // all; an outer axis is unrolled only once every inner one is whole (a transpose's
    // [.., 4, 2] thread tile gives 8 loads in flight, not the innermost axis's 2).
    let mut unroll = vec![1i64; spatial.len()];
    let mut room = ELEMENTWISE_UNROLL;
    for i in (0..spatial.len()).rev() {
        let u = (1..=room).rev().find(|d| units[i] % d == 0).unwrap_or(1);
        unroll[i] = u;
        room /= u;
        if u < units[i] || room <= 1 {
            break;
        }
    }
    Ok(ElementwisePlan {
        vector_lanes: v,
        units,
        unroll,
    })
}

impl Lowering<'_> {
    /// The elementwise stage's body and stores (see the module's documentation).
    pub fn elementwise(&mut self, plan: &ElementwisePlan) -> Result<(), String> {
        let stage = self.stage;
        let spatial = stage.spatial();
        let (units, unroll) = (&plan.units, &plan.unroll);
        let mut js = Vec::with_capacity(spatial.len());
        let mut opened = 0;
        for i in 0..spatial.len() {
            js.push(if units[i] == unroll[i] {
                self.em.idx(0)
            } else {
                let (z, ub, st) = (
                    self.em.idx(0),
                    self.em.idx(units[i]),
                    self.em.idx(unroll[i]),
                );
                opened += 1;
                self.em.begin_for(z, ub, st, &[]).0
            });
        }
        let pts = self.elementwise_points(plan, &spatial, &js);
        let conds: Vec<Option<Value>> = pts.iter().map(|p| self.point_guard(&spatial, p)).collect();
        // Every unrolled point's loads first.
        let mut loaded = Vec::new();
        for (p, cond) in pts.iter().zip(&conds) {
            loaded.push(self.elementwise_loads(plan, p, *cond)?);
        }
        // Then the bodies and stores, each under its point's guard.
        for ((p, cond), av) in pts.iter().zip(&conds).zip(&loaded) {
            if let Some(c) = *cond {
                self.em.begin_then(c);
            }
            self.elementwise_store(plan, p, av)?;
            if cond.is_some() {
                self.em.end_then();
            }
        }
        for _ in 0..opened {
            self.em.end_for(&[]);
        }
        Ok(())
    }

    /// The unrolled points, row-major over the unrolled offsets (the innermost fastest):
    /// per view axis its value, from the loops' indices `js`.
    fn elementwise_points(
        &mut self,
        plan: &ElementwisePlan,
        spatial: &[usize],
        js: &[Value],
    ) -> Vec<Vec<Option<Value>>> {
        let (n, v) = (self.stage.axes.len(), plan.vector_lanes);
        let s_last = spatial.last().copied();
        let unroll = &plan.unroll;
        let total: i64 = unroll.iter().product();
        let mut pts = Vec::new();
        for flat in 0..total {
            let mut rem = flat;
            let mut offs = vec![0i64; spatial.len()];
            for i in (0..spatial.len()).rev() {
                offs[i] = rem % unroll[i];
                rem /= unroll[i];
            }
            let mut vals = vec![None; n];
            for (i, &s) in spatial.iter().enumerate() {
                let j = if unroll[i] > 1 {
                    let kc = self.em.idx(offs[i]);
                    self.em.add(js[i], kc)
                } else {
                    js[i]
                };
                let jn = self.em.mul_const(j, self.axis(s).threads);
                let tc = self.thread_coord[s];
                let mut local = self.em.add(jn, tc);
                if Some(s) == s_last {
                    local = self.em.mul_const(local, v);
                }
                let base = self.tile_base[s];
                vals[s] = Some(self.em.add(base, local));
            }
            pts.push(vals);
        }
        pts
    }

    /// The type one access of element type `e` moves per load.
    fn elementwise_lane_type(plan: &ElementwisePlan, e: ElemType) -> Type {
        if plan.vector_lanes > 1 {
            vector(plan.vector_lanes, e)
        } else {
            ty(e)
        }
    }

    /// Every access's value at point `p` (vectors of 4 when vectorized), the pads where
    /// `cond` is false.
    fn elementwise_loads(
        &mut self,
        plan: &ElementwisePlan,
        p: &[Option<Value>],
        cond: Option<Value>,
    ) -> Result<Vec<Value>, String> {
        let stage = self.stage;
        let tys: Vec<Type> = stage
            .inputs
            .iter()
            .map(|a| Self::elementwise_lane_type(plan, a.elem))
            .collect();
        let load = |cx: &mut Lowering| -> Result<Vec<Value>, String> {
            if plan.vector_lanes == 1 {
                return cx.point_loads(p, &[], &[]);
            }
            let mut out = Vec::new();
            for input in &stage.inputs {
                let gm = cx.inputs[input.input];
                let (m, idx, _) = cx.direct_access(gm, &input.map, &input.shape, input.elem, p)?;
                let mut args = vec![m];
                args.extend(idx);
                let lt = Self::elementwise_lane_type(plan, input.elem);
                out.push(cx.em.op("vector.load", &args, &[], lt));
            }
            Ok(out)
        };
        let Some(c) = cond else {
            return load(self);
        };
        let r = self.em.begin_if(c, &tys);
        let av = load(self)?;
        self.em.else_(&av);
        let mut pads = Vec::new();
        for (input, t) in stage.inputs.iter().zip(&tys) {
            let pv = pad_value(self.compute, input);
            let mut k = self.constant(pv, input.elem);
            if plan.vector_lanes > 1 {
                k = self.em.op("vector.broadcast", &[k], &[], *t);
            }
            pads.push(k);
        }
        self.em.end_if(Some(&pads));
        Ok(r)
    }

    /// The body at point `p` from the accesses' values `av`, stored to the output (lane by
    /// lane into one 16-byte vector when vectorized).
    fn elementwise_store(
        &mut self,
        plan: &ElementwisePlan,
        p: &[Option<Value>],
        av: &[Value],
    ) -> Result<(), String> {
        let c = self.compute;
        if plan.vector_lanes == 1 {
            let r = self.body(&c.body, av)?.0;
            return self.store_out(p, r);
        }
        let vt = Self::elementwise_lane_type(plan, c.result.elem);
        let mut vec_val = None;
        for l in 0..plan.vector_lanes {
            let ets: Vec<Type> = self.stage.inputs.iter().map(|a| ty(a.elem)).collect();
            let lanes: Vec<Value> = av
                .iter()
                .zip(ets)
                .map(|(&x, et)| self.em.op("vector.extract", &[x], &[position(l)], et))
                .collect();
            let r = self.body(&c.body, &lanes)?.0;
            vec_val = Some(match vec_val {
                None => self.em.op("vector.broadcast", &[r], &[], vt),
                Some(acc) => self.em.op("vector.insert", &[r, acc], &[position(l)], vt),
            });
        }
        let vec_val = vec_val.ok_or("internal error: an empty vector")?;
        let (m, idx, _) = self.direct_access(
            self.output,
            &output_map(c),
            &c.result.shape,
            c.result.elem,
            p,
        )?;
        let mut args = vec![vec_val, m];
        args.extend(idx);
        self.em.op0("vector.store", &args, &[]);
        Ok(())
    }
}
