//! `--connect`: Welder's tile-graph scheduling (OSDI'23 §3–§4) on te functions
//! (docs/passes/connect.md).
//!
//! - [`graph`]: the operator graph of a function body, each read reduced to index forms.
//! - [`propagate`]: tile propagation, output tile → every operator's tile (§3.1).
//! - [`model`]: `MemTraffic`, `MemFootprint` (best fit) and the §4.1 penalties.
//! - [`fit`]: whether the lowering's shared-memory plan of a candidate kernel fits a block.
//! - [`tiling`]: `SubGraphTiling` (Fig. 7 lines 12–25) over Roller's aligned tile sizes.
//! - [`schedule`]: `GraphConnecting` (Fig. 7 lines 1–11), greedy per edge.
//! - [`pass`]: the pass, writing `tilegraph.kernel`s.
//! - [`check`]: the device half of the `tilegraph` verifier.

pub(crate) mod alone;
pub mod check;
pub mod fit;
pub mod graph;
pub mod model;
pub mod pass;
pub mod profile;
pub mod propagate;
pub mod schedule;
pub mod tiling;

pub use check::register_dialect_extensions;

#[cfg(test)]
mod fit_tests;
#[cfg(test)]
mod tests;
