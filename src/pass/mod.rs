//! The pass manager, as MLIR's: passes registered by flag name with typed options,
//! op-anchored nested pipelines (`builtin.module(func.func(cse),symbol-dce{k=v})`),
//! verification after each pass, IR printing before/after passes, timing and statistics.
//!
//! - [`Pass`]: what a pass implements; [`declare_pass!`](crate::declare_pass) declares its
//!   flag, typed options and statistics once ([`PassDecl`]).
//! - [`PassRegistry`]: passes (and named pipelines) by flag name, for the pipeline parser
//!   and `--help`.
//! - [`parse_pass_pipeline`] / [`pipeline_from_flags`]: textual and flag forms → [`OpPassManager`].
//! - [`PassManager`]: runs a pipeline with [`PassManagerConfig`] instrumentation.

mod declare;
mod manager;
mod options;
mod pipeline;
mod registry;

#[cfg(test)]
mod tests;

pub use declare::{OptionType, PassDecl, PassDeclaration, StatisticDecl};
pub use manager::{OpPassManager, PassManager, PassManagerConfig, PipelineEntry};
pub use options::{
    OptionEntry, OptionKind, OptionValue, PassOptionSpec, PassOptions, parse_option_string,
    split_list, unquote,
};
pub use pipeline::{parse_pass_pipeline, parse_pass_pipeline_elements, pipeline_from_flags};
pub use registry::{PassFactory, PassInfo, PassRegistry};

use crate::diagnostics::Diagnostic;
use crate::ir::{Context, OpId};

/// A transformation or analysis over one op (and what is nested in it). Its flag, names,
/// options and statistics come from [`declare_pass!`](crate::declare_pass)
/// ([`PassDeclaration`]); a pass implements only `run`.
pub trait Pass: PassDeclaration + Send {
    /// Runs on `op`. Errors are reported as diagnostics and stop the pipeline.
    fn run(
        &mut self,
        ctx: &mut Context,
        op: OpId,
        stats: &mut PassStatistics,
    ) -> Result<(), Diagnostic>;
}

/// One pass statistic (MLIR's `Pass::Statistic`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Statistic {
    pub name: &'static str,
    pub description: &'static str,
    pub value: u64,
}

/// The statistics a pass accumulates over all the ops it ran on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PassStatistics {
    stats: Vec<Statistic>,
}

impl PassStatistics {
    /// The statistics of `decls`, all zero (so each is reported even if never incremented,
    /// as MLIR's are).
    pub fn declared(decls: &[StatisticDecl]) -> Self {
        let mut s = PassStatistics::default();
        for &d in decls {
            s.slot(d);
        }
        s
    }
    fn slot(&mut self, d: StatisticDecl) -> &mut Statistic {
        let i = match self.stats.iter().position(|s| s.name == d.name) {
            Some(i) => i,
            None => {
                self.stats.push(Statistic {
                    name: d.name,
                    description: d.description,
                    value: 0,
                });
                self.stats.len() - 1
            }
        };
        &mut self.stats[i]
    }
    /// Adds `delta` to a declared statistic.
    pub fn add(&mut self, stat: StatisticDecl, delta: u64) {
        self.slot(stat).value += delta;
    }
    /// Sets a declared statistic to `value`.
    pub fn set(&mut self, stat: StatisticDecl, value: u64) {
        self.slot(stat).value = value;
    }
    /// The value of statistic `name`.
    pub fn get(&self, name: &str) -> Option<u64> {
        self.stats.iter().find(|s| s.name == name).map(|s| s.value)
    }
    /// Every statistic, in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = &Statistic> {
        self.stats.iter()
    }
    /// True when nothing was declared.
    pub fn is_empty(&self) -> bool {
        self.stats.is_empty()
    }
}
