//! The decisions of [`KernelPlan::new`](super::KernelPlan::new), one per concern: the view
//! axes and their tiles, where each input comes from, the thread mapping, the cross-thread
//! split, and the stage's body and epilogue.

use rtile_dialects::rtile::reads::{group_of_access, read_groups};
use rtile_dialects::te::model::TeCompute;

use super::super::access::dim_groups;
use super::super::adapter::{expr_info, linearize};
use super::super::elementwise::plan_elementwise;
use super::super::reduction::{CrossThread, MAX_UNROLLED_POINTS, auto_split};
use super::super::staging::plan_staged;
use super::super::thread_map::{
    ThreadMapping, Transpose, load_unit, runs_can_merge, shared_vector_axis, transposable,
    transposed_pitch,
};
use super::{
    AxisPlan, CrossThreadPlan, Epilogue, InputPlan, InputSource, ReductionPlan, RegisterTile,
    SharedRead, StageBody, StagePlan,
};
use crate::construct_rtile::{RProgram, TensorExprInfo};
use crate::device::Device;

/// The program's view of `c` (its axes, fused where the program fuses them) and the view
/// axes with their tiles.
pub(super) fn plan_axes(
    c: &TeCompute,
    p: &RProgram,
) -> Result<(TensorExprInfo, Vec<AxisPlan>), String> {
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
    let mut axes = Vec::with_capacity(n);
    for (a, (axis, original_axes)) in view.axes.iter().zip(groups).enumerate() {
        let (block_tile, thread_tile) = (p.block[a] as i64, p.thread[a] as i64);
        if block_tile <= 0 || thread_tile <= 0 || block_tile % thread_tile != 0 {
            return Err("block tiles must be positive multiples of thread tiles".into());
        }
        axes.push(AxisPlan {
            name: axis.name.clone(),
            extent: axis.extent as i64,
            block_tile,
            thread_tile,
            reduction: axis.reduction,
            threads: if axis.reduction {
                1
            } else {
                block_tile / thread_tile
            },
            original_axes,
            blocked: false,
        });
    }
    Ok((view, axes))
}

/// Each te access: staged (read from a shared tile) when the program stages and its index
/// expressions are linear, else global.
pub(super) fn plan_inputs(
    c: &TeCompute,
    p: &RProgram,
    view: &TensorExprInfo,
) -> Result<Vec<InputPlan>, String> {
    let nv = c.axes.len();
    let groups = read_groups(c);
    let group_of = group_of_access(&groups, c.accesses.len());
    let mut inputs = Vec::new();
    for (ai, a) in c.accesses.iter().enumerate() {
        let t = &c.inputs[a.input];
        let read = group_of[ai];
        let linear = a.map.results.iter().all(|e| linearize(e, nv).is_some());
        let view_acc = &view.inputs[read];
        let vshape: Vec<i64> = view_acc.shape.iter().map(|&d| d as i64).collect();
        // A scalar (rank 0) has no tile to stage: every thread reads its one word.
        let source = if p.staged && linear && !vshape.is_empty() {
            let g = dim_groups(&t.shape, &vshape)
                .ok_or("cannot map a fused tensor view back to its tensor")?;
            // The access's offset in the box per view dim (a fused view dim linearizes the
            // offsets of the tensor dims it covers; those are 0 in practice: a dim with a
            // halo never fuses).
            let off = groups[read]
                .offset_of(ai)
                .ok_or("internal error: an access outside its read group")?;
            let offset = g
                .iter()
                .map(|dims| {
                    dims.iter()
                        .fold(0i64, |acc, &d| acc * t.shape[d].max(1) + off[d])
                })
                .collect();
            InputSource::Shared(SharedRead {
                indices: view_acc.indices.clone(),
                view_shape: vshape,
                tensor_dims: g,
                vector_axis: None,
                transpose: None,
                offset,
            })
        } else {
            InputSource::Global
        };
        inputs.push(InputPlan {
            map: a.map.results.clone(),
            input: a.input,
            shape: t.shape.clone(),
            elem: t.elem,
            pad: a.pad,
            read,
            source,
        });
    }
    Ok(inputs)
}

/// The thread mapping: blocked spatial axes where that turns a staged tile's reads into
/// 16-byte vector loads (unrolled register tiles of reduction kernels only: elsewhere the
/// points are not unrolled, so nothing would be merged), and with
/// [`ThreadMapping::Transposed`] the tiles stored transposed so that they can be too.
pub(super) fn plan_thread_map(
    stage: &mut StagePlan,
    p: &RProgram,
    device: Option<&Device>,
    mapping: ThreadMapping,
) {
    let spatial = stage.spatial();
    let unrolled = runs_can_merge(
        stage.compute.combiner.is_some() && !stage.reduction_axes().is_empty(),
        spatial.iter().map(|&s| stage.axes[s].thread_tile).product(),
    );
    for i in 0..stage.inputs.len() {
        let axis = shared_vector_axis(stage, i);
        if let InputSource::Shared(read) = &mut stage.inputs[i].source {
            read.vector_axis = axis;
        }
        if mapping != ThreadMapping::Interleaved
            && unrolled
            && let Some(s) = axis
        {
            stage.axes[s].blocked = true;
        }
    }
    if mapping != ThreadMapping::Transposed || !unrolled {
        return;
    }
    // Tiles read along a spatial axis that is not their last dim (A[m, k]) are stored
    // transposed so that axis can be blocked and read 16 bytes at a time too, unless
    // their own padding pushes the staged tiles past what a block of the device may use.
    let block: Vec<u64> = stage.axes.iter().map(|a| a.block_tile as u64).collect();
    let mut transposed = vec![None; stage.inputs.len()];
    for (i, slot) in transposed.iter_mut().enumerate() {
        let (Some((dim, axis)), Some(read)) = (transposable(stage, i), stage.shared_read(i)) else {
            continue;
        };
        let tile: Vec<i64> = read
            .indices
            .iter()
            .map(|ix| ix.span(&block) as i64)
            .collect();
        let v = load_unit(
            stage,
            &read.indices,
            &read.view_shape,
            stage.inputs[i].elem,
            &tile,
        );
        let pitch = transposed_pitch(&tile, v, dim);
        *slot = Some(Transpose { dim, axis, pitch });
    }
    set_transposes(stage, &transposed);
    let limit = device.map(|d| d.layers[Device::SHARED].capacity_bytes);
    if limit.is_some_and(|limit| plan_staged(stage, p).2 > limit) {
        set_transposes(stage, &vec![None; stage.inputs.len()]);
    }
    for t in transposed_of(stage) {
        stage.axes[t.axis].blocked = true;
    }
}

/// Sets each staged input's transposed layout.
pub(super) fn set_transposes(stage: &mut StagePlan, transposed: &[Option<Transpose>]) {
    for (input, t) in stage.inputs.iter_mut().zip(transposed) {
        if let InputSource::Shared(read) = &mut input.source {
            read.transpose = *t;
        }
    }
}

/// The staged inputs' transposed layouts.
pub(super) fn transposed_of(stage: &StagePlan) -> Vec<Transpose> {
    (0..stage.inputs.len())
        .filter_map(|i| stage.shared_read(i).and_then(|r| r.transpose))
        .collect()
}

/// The cross-thread split: along the reduction axis with the largest block tile.
pub(super) fn plan_split(
    stage: &StagePlan,
    cross: CrossThread,
    threads: i64,
) -> Result<CrossThreadPlan, String> {
    let reduction = stage.reduction_axes();
    let axis = reduction
        .iter()
        .copied()
        .max_by_key(|&r| (stage.axes[r].block_tile, std::cmp::Reverse(r)));
    let red_points: i64 = reduction.iter().map(|&r| stage.axes[r].extent).product();
    let lanes: i64 = match (cross, axis) {
        (_, None) => 1,
        (CrossThread::Off, _) => 1,
        (CrossThread::Split(k), _) => i64::from(k.max(1)),
        (CrossThread::Auto, Some(r)) => auto_split(threads, red_points, stage.axes[r].block_tile),
    };
    if lanes > 1 && (lanes & (lanes - 1)) != 0 {
        return Err("the cross-thread split must be a power of two".into());
    }
    Ok(CrossThreadPlan { axis, lanes })
}

/// The stage's body and epilogue; `points` is the thread tile's size.
pub(super) fn plan_body(stage: &StagePlan, points: i64) -> Result<(StageBody, Epilogue), String> {
    let c = &stage.compute;
    if let Some(combiner) = c.combiner {
        let register_tile = if points <= MAX_UNROLLED_POINTS {
            RegisterTile::Unrolled { points }
        } else {
            RegisterTile::Array { points }
        };
        let epilogue = if stage.split.lanes > 1 {
            Epilogue::CrossThreadTree {
                lanes: stage.split.lanes,
            }
        } else {
            Epilogue::StoreRegisterTile
        };
        let body = StageBody::Reduction(ReductionPlan {
            combiner,
            axes: stage.reduction_axes(),
            register_tile,
        });
        return Ok((body, epilogue));
    }
    let spatial = stage.spatial();
    if spatial.is_empty() {
        return Ok((StageBody::SinglePoint, Epilogue::StoreEachPoint));
    }
    Ok((
        StageBody::Elementwise(plan_elementwise(stage, &spatial)?),
        Epilogue::StoreEachPoint,
    ))
}
