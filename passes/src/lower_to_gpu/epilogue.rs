//! The epilogue: the results to the output tensor in global memory, guarded on the spatial
//! axes the grid pads.

use rtile::ir::Value;
use rtile_dialects::arith::CmpIPredicate;

use super::access::output_map;
use super::context::{Lowering, REDUCTION_SLOT};
use super::fuse::{ReSrc, TailStage};
use super::reduction::RegTile;
use super::thread_map::ThreadIds;
use super::types::ty;

impl Lowering<'_> {
    /// Stores `v` to the output at the point `vals` (view axis values).
    pub fn store_out(&mut self, vals: &[Option<Value>], v: Value) -> Result<(), String> {
        let c = self.compute;
        // A mixed-precision reduction converts its accumulator once, on the store (and
        // before a fused tail, which reads the stored result type).
        let v = self.acc_to_result(c, v);
        let plan = self.plan;
        let (v, result) = match &plan.tail {
            Some(t) => (self.tail_value(t, vals, v)?, &t.compute.result),
            None => (v, &c.result),
        };
        let (m, idx, _) = self.direct_access(
            self.output,
            &output_map(c),
            &result.shape,
            result.elem,
            vals,
        )?;
        let mut args = vec![v, m];
        args.extend(idx);
        self.em.op0("memref.store", &args, &[]);
        Ok(())
    }

    /// The epilogue stage at one point: the tail's body over the stage's value `v` (its
    /// reads of the anchor's result, all at this point), its global inputs read at the
    /// point, and its shared stages read from their tiles (Welder §3.4: a
    /// register-connected consumer computed in its producer's loop).
    fn tail_value(
        &mut self,
        t: &TailStage,
        vals: &[Option<Value>],
        v: Value,
    ) -> Result<Value, String> {
        let tc = &t.compute;
        let mut avals = Vec::new();
        for a in &tc.accesses {
            let shape = &tc.inputs[a.input].shape;
            let elem = tc.inputs[a.input].elem;
            match &t.srcs[a.input] {
                None => avals.push(v),
                Some(ReSrc::Arg(k)) => {
                    let mem = self.args[*k];
                    let (m, idx, cshape) =
                        self.direct_access(mem, &a.map.results, shape, elem, vals)?;
                    let cond = if a.pad.is_some() {
                        let checks = vec![(true, true); idx.len()];
                        self.in_bounds(&idx, &cshape, &checks)
                    } else {
                        None
                    };
                    let padv = a.pad.unwrap_or(0.0);
                    avals.push(self.guarded_load(m, &idx, cond, elem, padv));
                }
                Some(src) => {
                    // The map is over the anchor's parallel axes, the anchor's first axes.
                    let at = self.index_at_point(&a.map.results, vals)?;
                    avals.push(self.source_load(src, &at, &tc.inputs[a.input], a.pad)?);
                }
            }
        }
        Ok(self.body_with(&tc.body, &avals, &tc.access_types())?.0)
    }

    /// The register tile to the output (guarded on padded spatial axes).
    pub fn store_register_tile(&mut self, tile: &RegTile) -> Result<(), String> {
        let accs = match tile {
            RegTile::Values(accs) => accs,
            RegTile::Memory(acc) => {
                let loops = self.open_points();
                let rt = ty(self.compute.acc_type());
                let v = self.em.op("memref.load", &[*acc, loops.point], &[], rt);
                self.store_out(&loops.vals, v)?;
                self.close_points(&loops);
                return Ok(());
            }
        };
        let stage = self.stage;
        let spatial = stage.spatial();
        let pts = self.unrolled_points(&spatial, true);
        // Consecutive points under the same guard (the same padded coordinates) share one
        // scf.if. On a blocked axis whose extent is a multiple of 4 a run (4-aligned) is
        // wholly inside or outside the tensor, so its 4 points share the run start's guard,
        // and their stores stay adjacent for the back end to merge into one 16-byte store.
        let conds: Vec<Option<Value>> = pts
            .iter()
            .map(|pt| {
                let mut gv = pt.vals.clone();
                for &s in &spatial {
                    if let Some((run, _)) = pt.runs[s]
                        && stage.axes[s].extent % 4 == 0
                    {
                        let base = self.tile_base[s];
                        gv[s] = Some(self.em.add(base, run));
                    }
                }
                self.point_guard(&spatial, &gv)
            })
            .collect();
        let mut open: Option<Value> = None;
        for ((pt, &v), cond) in pts.iter().zip(accs).zip(conds) {
            if open.is_some() && open != cond {
                self.em.end_then();
                open = None;
            }
            if open.is_none()
                && let Some(c) = cond
            {
                self.em.begin_then(c);
                open = cond;
            }
            self.store_out(&pt.vals, v)?;
        }
        if open.is_some() {
            self.em.end_then();
        }
        Ok(())
    }

    /// After the cross-thread tree: lane 0 stores the result of each of its points.
    pub fn store_lane_zero(&mut self, ids: ThreadIds) -> Result<(), String> {
        let rt = ty(self.compute.acc_type());
        let red = self.shared_buffer(REDUCTION_SLOT);
        let z0 = self.em.idx(0);
        let lead = self.em.cmp(CmpIPredicate::Eq, ids.lane, z0);
        self.em.begin_then(lead);
        let loops = self.open_points();
        let v = self
            .em
            .op("memref.load", &[red, loops.point, z0, ids.spatial], &[], rt);
        self.store_out(&loops.vals, v)?;
        self.close_points(&loops);
        self.em.end_then();
        Ok(())
    }

    /// No reduction and no unrolling: each point's value goes straight to the output.
    pub fn store_each_point(&mut self) -> Result<(), String> {
        let loops = self.open_points();
        let v = self.point_value(&loops.vals, &[], &[])?;
        self.store_out(&loops.vals, v)?;
        self.close_points(&loops);
        Ok(())
    }
}
