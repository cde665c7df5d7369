//! `--print-op-stats`: MLIR's PrintOpStats. Counts the operations nested in the op it
//! runs on (itself included) by name and prints the table to stderr, in mlir-opt's
//! layout (names aligned on the dialect prefix) or, with `json`, as a JSON object.

use std::collections::BTreeMap;
use std::io::Write;

use rtile::diagnostics::Diagnostic;
use rtile::ir::{Context, OpId, WalkOrder};
use rtile::pass::{Pass, PassStatistics};

rtile::declare_pass! {
    pass PrintOpStats {
        flag: "print-op-stats",
        display_name: "PrintOpStats",
        summary: "Print statistics of operations",
        description: "Counts the operations nested in the op it runs on, by name, and prints the table to stderr (MLIR's PrintOpStats).",
        options(opts: PrintOpStatsOptions) {
            /// print the stats as JSON
            json: bool = "false", "json";
        }
    }
}

/// The `print-op-stats` pass.
pub struct PrintOpStats {
    opts: PrintOpStatsOptions,
    out: Option<Box<dyn Write + Send>>,
}

impl Default for PrintOpStats {
    fn default() -> Self {
        Self::new()
    }
}

impl PrintOpStats {
    /// Prints to stderr.
    pub fn new() -> Self {
        PrintOpStats {
            opts: PrintOpStatsOptions::default(),
            out: None,
        }
    }
    /// Prints to `out` instead of stderr.
    pub fn with_output(out: Box<dyn Write + Send>) -> Self {
        PrintOpStats {
            opts: PrintOpStatsOptions::default(),
            out: Some(out),
        }
    }
}

/// Op name → count over `op` and everything nested in it, sorted by name.
pub fn count_ops(ctx: &Context, op: OpId) -> BTreeMap<String, u64> {
    let mut counts = BTreeMap::new();
    ctx.walk(op, WalkOrder::PreOrder, &mut |_, o| {
        *counts.entry(ctx.op_name(o).to_string()).or_insert(0) += 1;
    });
    counts
}

/// mlir-opt's text summary: dialect prefixes right-aligned, op names left-aligned.
pub fn format_summary(counts: &BTreeMap<String, u64>) -> String {
    let split = |name: &str| -> (String, String) {
        match name.split_once('.') {
            Some((d, o)) => (d.to_string(), o.to_string()),
            None => (String::new(), name.to_string()),
        }
    };
    let (mut wd, mut wo) = (0, 0);
    for k in counts.keys() {
        let (d, o) = split(k);
        wd = wd.max(d.len());
        wo = wo.max(o.len());
    }
    let mut out = String::from("Operations encountered:\n-----------------------\n");
    for (k, n) in counts {
        let (d, o) = split(k);
        if d.is_empty() {
            out.push_str(&" ".repeat(wd + 3));
        } else {
            out.push_str(&format!("{d:>w$}.", w = wd + 2));
        }
        out.push_str(&format!("{o:<wo$} , {n}\n"));
    }
    out
}

/// mlir-opt's JSON summary.
pub fn format_json(counts: &BTreeMap<String, u64>) -> String {
    let mut out = String::from("{\n");
    let n = counts.len();
    for (i, (k, c)) in counts.iter().enumerate() {
        out.push_str(&format!("  \"{k}\" : {c}"));
        out.push_str(if i + 1 == n { "\n" } else { ",\n" });
    }
    out.push_str("}\n");
    out
}

impl Pass for PrintOpStats {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: OpId,
        _stats: &mut PassStatistics,
    ) -> Result<(), Diagnostic> {
        let counts = count_ops(ctx, op);
        let text = if self.opts.json {
            format_json(&counts)
        } else {
            format_summary(&counts)
        };
        // Output is best effort, like MLIR's raw_ostream: a closed stderr is not an IR error.
        match &mut self.out {
            Some(w) => {
                let _ = w.write_all(text.as_bytes());
            }
            None => {
                let _ = std::io::stderr().write_all(text.as_bytes());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::*;
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Buf(Arc<Mutex<Vec<u8>>>);
    impl Write for Buf {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0
                .lock()
                .map_err(|_| std::io::Error::other("poisoned"))?
                .extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// The module of mlir-opt's example: two funcs, two addi, two returns.
    fn example() -> (Context, OpId) {
        let mut c = ctx();
        let (m, mb) = module(&mut c, None);
        for name in ["dead", "f"] {
            let f = func(&mut c, mb, name, None);
            let body = c.region_blocks(c.regions(f)[0])[0];
            if name == "f" {
                for _ in 0..2 {
                    let o = c.create_op(rtile::ir::OperationState::new("arith.addi"));
                    c.append_op(body, o);
                }
            }
            let r = c.create_op(rtile::ir::OperationState::new("func.return"));
            c.append_op(body, r);
        }
        (c, m)
    }

    #[test]
    fn text_matches_mlir_opt() {
        let (mut c, m) = example();
        let buf = Buf::default();
        let mut p = PrintOpStats::with_output(Box::new(buf.clone()));
        p.run(&mut c, m, &mut PassStatistics::default()).unwrap();
        let out = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        // Captured from `mlir-opt-22 --print-op-stats` on the same module.
        assert_eq!(
            out,
            "Operations encountered:
-----------------------
    arith.addi   , 2
  builtin.module , 1
     func.func   , 2
     func.return , 2
"
        );
    }

    #[test]
    fn json_matches_mlir_opt() {
        let (mut c, m) = example();
        let buf = Buf::default();
        let mut p = PrintOpStats::with_output(Box::new(buf.clone()));
        p.set_option("json", "true").unwrap();
        p.run(&mut c, m, &mut PassStatistics::default()).unwrap();
        let out = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        assert_eq!(
            out,
            "{\n  \"arith.addi\" : 2,\n  \"builtin.module\" : 1,\n  \"func.func\" : 2,\n  \"func.return\" : 2\n}\n"
        );
        assert!(p.set_option("json", "maybe").is_err());
    }

    #[test]
    fn names_without_dialect_are_indented() {
        let mut counts = BTreeMap::new();
        counts.insert("plain".to_string(), 3);
        counts.insert("ab.cd".to_string(), 1);
        assert_eq!(
            format_summary(&counts),
            "Operations encountered:\n-----------------------\n  ab.cd    , 1\n     plain , 3\n"
        );
    }

    #[test]
    fn registered_and_runs_through_a_pipeline() {
        let mut reg = rtile::pass::PassRegistry::new();
        crate::register_all_passes(&mut reg);
        assert!(reg.get("print-op-stats").is_some());
        assert!(reg.get("symbol-dce").is_some());
        let (mut c, m) = example();
        let pm = rtile::pass::parse_pass_pipeline(
            &mut c,
            &reg,
            "builtin.module(symbol-dce,print-op-stats{json=true})",
        )
        .unwrap();
        rtile::pass::PassManager::new(pm).run(&mut c, m).unwrap();
    }
}
