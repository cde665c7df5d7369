//! Helpers shared by the tools' integration tests.

use rtile_tools::{OptOptions, Pipeline, run_opt};

/// Runs the `rtile-opt` pass flags `flags` (in order) on `text`, without colour: the
/// printed module, or the log of diagnostics when a pass fails.
pub fn opt_flags(text: &str, flags: Vec<(String, String)>) -> Result<String, String> {
    let opts = OptOptions {
        pipeline: Pipeline::Flags(flags),
        color: Some(false),
        ..OptOptions::default()
    };
    let out = run_opt(&opts, "f.mlir", text.to_string());
    if out.success {
        Ok(out.output)
    } else {
        Err(out.log)
    }
}
