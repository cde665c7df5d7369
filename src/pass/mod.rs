//! The pass manager, as MLIR's: passes registered by flag name with typed options,
//! op-anchored nested pipelines (`builtin.module(func.func(cse),symbol-dce{k=v})`),
//! verification after each pass, IR printing before/after passes, timing and statistics.
//!
//! - [`Pass`]: what a pass implements; [`PassOptions`] parses its declared options.
//! - [`PassRegistry`]: passes (and named pipelines) by flag name, for the pipeline parser
//!   and `--help`.
//! - [`parse_pass_pipeline`] / [`pipeline_from_flags`]: textual and flag forms → [`OpPassManager`].
//! - [`PassManager`]: runs a pipeline with [`PassManagerConfig`] instrumentation.

mod manager;
mod options;
mod pipeline;
mod registry;

#[cfg(test)]
mod tests;

pub use manager::{OpPassManager, PassManager, PassManagerConfig, PipelineEntry};
pub use options::{
    OptionEntry, OptionKind, OptionValue, PassOptionSpec, PassOptions, parse_option_string,
    split_list, unquote,
};
pub use pipeline::{parse_pass_pipeline, parse_pass_pipeline_elements, pipeline_from_flags};
pub use registry::{PassFactory, PassInfo, PassRegistry};

use crate::diagnostics::Diagnostic;
use crate::ir::{Context, OpId};

/// A transformation or analysis over one op (and what is nested in it).
pub trait Pass: Send {
    /// The flag name, e.g. `symbol-dce`.
    fn name(&self) -> &'static str;
    /// The name MLIR shows in IR dumps, statistics and timing (`SymbolDCE`); defaults to
    /// the flag name.
    fn display_name(&self) -> &'static str {
        self.name()
    }
    /// One line for `--help`.
    fn description(&self) -> &'static str;
    /// The declared options (empty by default).
    fn options(&self) -> &[PassOptionSpec] {
        &[]
    }
    /// Sets option `key` from its textual `value` (an error message on a bad value).
    fn set_option(&mut self, key: &str, _value: &str) -> Result<(), String> {
        Err(format!("no such option {key}"))
    }
    /// The op name this pass runs on; `None` = any op.
    fn anchor(&self) -> Option<&'static str> {
        None
    }
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
    fn slot(&mut self, name: &'static str, description: &'static str) -> &mut Statistic {
        let i = match self.stats.iter().position(|s| s.name == name) {
            Some(i) => i,
            None => {
                self.stats.push(Statistic {
                    name,
                    description,
                    value: 0,
                });
                self.stats.len() - 1
            }
        };
        &mut self.stats[i]
    }
    /// Declares a statistic (value 0) so it is reported even if never incremented.
    pub fn declare(&mut self, name: &'static str, description: &'static str) {
        self.slot(name, description);
    }
    /// Adds `delta` to statistic `name`.
    pub fn add(&mut self, name: &'static str, description: &'static str, delta: u64) {
        self.slot(name, description).value += delta;
    }
    /// Sets statistic `name` to `value`.
    pub fn set(&mut self, name: &'static str, description: &'static str, value: u64) {
        self.slot(name, description).value = value;
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
