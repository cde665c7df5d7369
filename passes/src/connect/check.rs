//! The device- and propagation-dependent rules of `tilegraph.kernel`
//! ([`rtile_dialects::tilegraph::verify::KernelCheck`]; docs/dialects/tilegraph.md rules
//! 5–7): a known device, tiles consistent with propagation (§3.1), footprints within each
//! layer's capacity (§3.1, §4.1).

use rtile::dialect::DialectRegistry;
use rtile::ir::{Context, OpId};
use rtile_dialects::tilegraph::ops::body_ops;
use rtile_dialects::tilegraph::verify::{KernelCheck, TilegraphAttrVerifier};
use rtile_dialects::tilegraph::{LayerTiles, Level, NAMESPACE, connect_levels, tiles};

use super::graph::build_graph;
use super::model::footprint;
use super::propagate::{SubGraph, uses_dim, value_tile};
use super::tiling::register_groups;
use crate::device::Device;

/// Installs the kernel checks into the `tilegraph` attribute verifier.
pub fn register_dialect_extensions(reg: &mut DialectRegistry) {
    reg.set_attribute_verifier(
        NAMESPACE,
        Box::new(TilegraphAttrVerifier::with_kernel_check(Box::new(
            KernelChecker,
        ))),
    );
}

/// Checks kernels against their device and the propagation rules.
pub struct KernelChecker;

impl KernelCheck for KernelChecker {
    fn check(&self, ctx: &Context, kernel: OpId, device: &str) -> Result<(), String> {
        let dev = Device::builtin(device).map_err(|e| e.message)?;
        let ops = body_ops(ctx, kernel);
        let g = build_graph(ctx, &ops)?;
        let mut levels = Vec::new();
        let mut tl: Vec<LayerTiles> = Vec::new();
        for &o in &ops {
            levels.push(connect_levels(ctx, o)?.unwrap_or_default());
            tl.push(tiles(ctx, o)?.unwrap_or_default());
        }
        // Rule 6: every connected edge, at its level and every layer outward in the kernel.
        for (n, node) in g.nodes.iter().enumerate() {
            for (i, inp) in node.inputs.iter().enumerate() {
                let Some(p) = inp.producer else { continue };
                let lv = levels[n][i];
                for l in Level::IN_KERNEL.into_iter().filter(|&l| l >= lv) {
                    let (Some(tn), Some(tp)) = (tl[n].get(l), tl[p].get(l)) else {
                        return Err(format!(
                            "body ops #{p} and #{n} are connected at '{}' but do not both have a '{}' tile",
                            lv.name(),
                            l.name()
                        ));
                    };
                    for r in node.reduction_dims() {
                        if uses_dim(inp, r) && tn[r] != node.domain[r] {
                            return Err(format!(
                                "body op #{n}: reduction dim {r} reads the tile connected from body op #{p}, so its '{}' tile takes it whole ({}), not {}",
                                l.name(),
                                node.domain[r],
                                tn[r]
                            ));
                        }
                    }
                    // All of this op's reads of the producer together (a stencil's halo).
                    let want = value_tile(node, inp.value, tn);
                    let np = g.nodes[p].num_parallel;
                    if tp[..np] != want[..] {
                        return Err(format!(
                            "body op #{p}'s '{}' tile {:?} is not the tile {want:?} that body op #{n} reads through operand #{i} (§3.1 propagation)",
                            l.name(),
                            &tp[..np]
                        ));
                    }
                }
            }
        }
        // Rule 7: footprints.
        let members: Vec<usize> = (0..g.nodes.len()).collect();
        let conn = |_: usize, _: usize| true;
        let sg = SubGraph {
            graph: &g,
            members: members.clone(),
            connected: &conn,
        };
        let dom: Vec<Vec<u64>> = tl
            .iter()
            .map(|t| t.shared.clone().unwrap_or_default())
            .collect();
        let stored = |n: usize| {
            sg.is_output(n)
                || g.consumers[n]
                    .iter()
                    .any(|&(c, i)| levels[c][i] == Level::Shared)
        };
        let fp = footprint(&sg, &dom, &stored);
        let cap = dev.layers[Device::SHARED].capacity_bytes;
        if fp > cap {
            return Err(format!(
                "footprint of {fp} B in 'shared' exceeds the {cap} B of '{device}' (§3.1 MemFootprint, best fit, 32-byte aligned)"
            ));
        }
        let rcap = dev.layers[Device::REGISTER].capacity_bytes;
        for grp in register_groups(&g, &members, &levels) {
            let rconn = |c: usize, i: usize| levels[c][i] == Level::Register;
            let rsg = SubGraph {
                graph: &g,
                members: grp.clone(),
                connected: &rconn,
            };
            let rdom: Vec<Vec<u64>> = grp
                .iter()
                .map(|&n| tl[n].register.clone().unwrap_or_default())
                .collect();
            let rstored = |n: usize| rsg.is_output(n);
            let rfp = footprint(&rsg, &rdom, &rstored);
            if rfp > rcap {
                return Err(format!(
                    "footprint of {rfp} B per thread in 'register' exceeds the {rcap} B of '{device}'"
                ));
            }
        }
        Ok(())
    }
}
