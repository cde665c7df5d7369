//! Inputs and process measurement for `rtile-bench parse`.
//!
//! Three deterministic generic-form shapes, so that parse+print speed and memory are not
//! judged on one file's profile only:
//! - [`Shape::Mixed`]: functions of nested unregistered ops with regions, block arguments,
//!   multi-result ops, attribute dictionaries and a few repeated types (the original file);
//! - [`Shape::Nested`]: regions nested hundreds deep, each level with block arguments and a
//!   few ops, so that the cost of scopes, region bookkeeping and indentation shows;
//! - [`Shape::OpDense`]: long flat blocks of ops with many distinct types (shapes vary per
//!   op) and `dense<...>` attributes of various sizes, so that type/attribute storage shows.
//!
//! Every process run is measured for wall time and for its peak resident set (`ru_maxrss`
//! of that child alone, from `wait4`), so speed and memory are compared paired.

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The generated file's structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Shape {
    /// Functions of nested ops with regions, block arguments, attributes (the original file).
    Mixed,
    /// Regions nested hundreds deep.
    Nested,
    /// Flat blocks of ops with many distinct types and dense attributes.
    OpDense,
}

impl Shape {
    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Mixed => "mixed",
            Shape::Nested => "nested",
            Shape::OpDense => "op-dense",
        }
    }
}

/// Generates a module of `shape`, deterministic, about `target` bytes.
pub fn generate(shape: Shape, target: usize) -> String {
    let mut s = String::with_capacity(target + 64 * 1024);
    s.push_str("\"builtin.module\"() ({\n");
    let mut k = 0usize;
    while s.len() < target {
        match shape {
            Shape::Mixed => gen_mixed_func(&mut s, k),
            Shape::Nested => gen_nested_func(&mut s, k),
            Shape::OpDense => gen_dense_func(&mut s, k),
        }
        k += 1;
    }
    s.push_str("}) : () -> ()\n");
    s
}

// Writing to a String cannot fail: the `writeln!` results below are ignored on purpose.

/// One function: ~2 KB of generic ops, with a loop nest three deep.
fn gen_mixed_func(s: &mut String, k: usize) {
    let t = "tensor<4x?xf32>";
    let m = "memref<8x16xf16>";
    let _ = writeln!(s, "  \"bench.func\"() ({{");
    let _ = writeln!(s, "  ^bb0(%arg0: {t}, %arg1: i32, %arg2: index):");
    let _ = writeln!(
        s,
        "    %c{k} = \"bench.const\"() {{value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, {}.0]> : tensor<4xf32>}} : () -> tensor<4xf32>",
        k % 97
    );
    let _ = writeln!(
        s,
        "    %s0 = \"bench.add\"(%arg1, %arg1) {{flags = [1, 2, {}], name = \"add_{k}\"}} : (i32, i32) -> i32",
        k % 13
    );
    let _ = writeln!(
        s,
        "    %p:2 = \"bench.split\"(%arg0) {{map = affine_map<(d0, d1) -> (d1, d0 + {})>}} : ({t}) -> ({t}, {m})",
        k % 7
    );
    let depth = 3;
    for d in 0..depth {
        let ind = "  ".repeat(d + 2);
        let acc_in = if d == 0 {
            "%s0".to_string()
        } else {
            format!("%acc{}", d - 1)
        };
        let _ = writeln!(s, "{ind}%l{d} = \"bench.loop\"(%arg2, {acc_in}) ({{");
        let _ = writeln!(s, "{ind}^bb0(%i{d}: index, %acc{d}: i32):");
        for j in 0..3 {
            let _ = writeln!(
                s,
                "{ind}  %v{d}_{j} = \"bench.mul\"(%acc{d}, %s0) {{overflow = #bench.flags<nsw>, step = {j} : i64}} : (i32, i32) -> i32"
            );
        }
        let _ = writeln!(
            s,
            "{ind}  %f{d} = \"bench.cast\"(%p#1, %i{d}) : ({m}, index) -> !bench.buf<{d}>"
        );
        if d + 1 < depth {
            continue;
        }
        // Innermost: yield, then close every loop from the inside out.
        for e in (0..depth).rev() {
            let ind = "  ".repeat(e + 2);
            let _ = writeln!(s, "{ind}  \"bench.yield\"(%v{e}_2) : (i32) -> ()");
            let _ = writeln!(
                s,
                "{ind}}}) {{dims = array<i64: 1, 2, {e}>, scale = 1.500000e+00 : f32}} : (index, i32) -> i32"
            );
            if e > 0 {
                // The loop result feeds the enclosing loop's ops.
                let outer = "  ".repeat(e + 1);
                let _ = writeln!(
                    s,
                    "{outer}  %r{e} = \"bench.add\"(%l{e}, %v{}_0) : (i32, i32) -> i32",
                    e - 1
                );
            }
        }
    }
    let _ = writeln!(
        s,
        "    \"bench.return\"(%l0, %p#1, %c{k}) : (i32, {m}, tensor<4xf32>) -> ()"
    );
    let _ = writeln!(
        s,
        "  }}) {{cfg = {{a = 1 : i64, b = \"s\"}}, sym_name = \"f{k}\"}} : () -> ()"
    );
}

/// One function whose body is a chain of single-block regions nested `depth` deep; every
/// level takes a block argument, uses values of every enclosing level, and yields.
fn gen_nested_func(s: &mut String, k: usize) {
    let depth = 200 + k % 56;
    let _ = writeln!(s, "\"bench.func\"() ({{");
    let _ = writeln!(s, "^bb0(%a: index, %b: f32):");
    for d in 0..depth {
        let outer = if d == 0 {
            "%b".to_string()
        } else {
            format!("%x{}", d - 1)
        };
        let _ = writeln!(s, "%r{d} = \"bench.scope\"({outer}) ({{");
        let _ = writeln!(s, "^bb0(%x{d}: f32, %i{d}: index):");
        let _ = writeln!(
            s,
            "%m{d} = \"bench.mul\"(%x{d}, {outer}) {{level = {d} : i32}} : (f32, f32) -> f32"
        );
        let _ = writeln!(
            s,
            "%c{d} = \"bench.cmp\"(%i{d}, %a) {{predicate = {} : i64}} : (index, index) -> i1",
            d % 10
        );
    }
    for d in (0..depth).rev() {
        let _ = writeln!(
            s,
            "\"bench.yield\"(%m{d}, %c{d}) : (f32, i1) -> ()\n}}) : (f32) -> f32"
        );
    }
    let _ = writeln!(s, "\"bench.return\"(%r0) : (f32) -> ()");
    let _ = writeln!(s, "}}) {{sym_name = \"nested{k}\"}} : () -> ()");
}

/// One function: 400 ops in one block over many distinct ranked tensor and memref types,
/// with dense attributes of 1 to 64 elements and dense arrays.
fn gen_dense_func(s: &mut String, k: usize) {
    let _ = writeln!(s, "  \"bench.func\"() ({{");
    let _ = writeln!(s, "  ^bb0(%arg0: index):");
    let elems = ["f32", "f16", "bf16", "i32", "i8", "f64", "i64", "i1"];
    let mut first = String::new();
    for j in 0..400usize {
        let h = k.wrapping_mul(7919).wrapping_add(j.wrapping_mul(104_729));
        let e = elems[h % elems.len()];
        let (d0, d1, d2) = (1 + h % 64, 1 + (h / 64) % 32, 1 + (h / 2048) % 8);
        let n = 1 + h % 64;
        let vals = dense_values(e, n, h);
        let ty = format!("tensor<{n}x{e}>");
        let _ = writeln!(
            s,
            "    %d{j} = \"bench.const\"() {{value = dense<[{vals}]> : {ty}}} : () -> {ty}"
        );
        let _ = writeln!(
            s,
            "    %t{j} = \"bench.reshape\"(%d{j}, %arg0) {{perm = array<i64: {}, {}, {}>, tag = \"op{j}\"}} : ({ty}, index) -> tensor<{d0}x{d1}x{d2}x{e}>",
            h % 3,
            (h + 1) % 3,
            (h + 2) % 3
        );
        let buf = format!("memref<{d1}x{d0}x{e}, {}>", 1 + h % 4);
        let _ = writeln!(
            s,
            "    %b{j} = \"bench.buffer\"(%t{j}) : (tensor<{d0}x{d1}x{d2}x{e}>) -> {buf}"
        );
        if j == 0 {
            first = buf;
        }
    }
    let _ = writeln!(s, "    \"bench.return\"(%b0) : ({first}) -> ()");
    let _ = writeln!(s, "  }}) {{sym_name = \"dense{k}\"}} : () -> ()");
}

/// `n` literals of element type `e`, as MLIR prints them in `dense<[...]>`.
fn dense_values(e: &str, n: usize, seed: usize) -> String {
    let mut out = String::with_capacity(n * 14);
    for i in 0..n {
        if i > 0 {
            out.push_str(", ");
        }
        let v = seed.wrapping_add(i * 31) % 1000;
        let _ = match e {
            "i1" => write!(
                out,
                "{}",
                if v.is_multiple_of(2) { "true" } else { "false" }
            ),
            "i8" => write!(out, "{}", (v % 256) as i64 - 128),
            "i32" | "i64" => write!(out, "{}", v as i64 - 500),
            // Values exact in every float type used (multiples of 1/4 below 256).
            _ => write!(out, "{:.2}", (v % 1024) as f64 / 4.0),
        };
    }
    out
}

/// What one process run cost.
#[derive(Clone, Copy, Debug)]
pub struct ProcessCost {
    /// Wall time from spawn to exit.
    pub wall: Duration,
    /// Peak resident set size of the process, in KiB (`ru_maxrss`).
    pub max_rss_kib: u64,
}

/// Runs `cmd args file -o /dev/null` and measures it; `Err` with its stderr on failure.
pub fn run_measured(cmd: &Path, args: &[&str], file: &Path) -> Result<ProcessCost, String> {
    let start = Instant::now();
    let child = Command::new(cmd)
        .args(args)
        .arg(file)
        .args(["-o", "/dev/null"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not run {}: {e}", cmd.display()))?;
    let pid = child.id() as libc::pid_t;
    // Read stderr before waiting so that a chatty child cannot block on a full pipe.
    let mut stderr = String::new();
    if let Some(mut e) = child.stderr {
        use std::io::Read as _;
        let _ = e.read_to_string(&mut stderr);
    }
    let mut status: libc::c_int = 0;
    // SAFETY: `rusage` is plain data that wait4 fills in; `pid` is our own child, which
    // has not been waited for (std's `Child` is not used to wait).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    if r != pid {
        return Err(format!(
            "could not wait for {}: {}",
            cmd.display(),
            std::io::Error::last_os_error()
        ));
    }
    if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
        let head: String = stderr.lines().take(10).collect::<Vec<_>>().join("\n");
        return Err(format!(
            "{} failed (wait status {status}):\n{head}",
            cmd.display()
        ));
    }
    Ok(ProcessCost {
        wall,
        max_rss_kib: usage.ru_maxrss.max(0) as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shape_is_deterministic_and_near_the_target_size() {
        for shape in [Shape::Mixed, Shape::Nested, Shape::OpDense] {
            let a = generate(shape, 200_000);
            assert_eq!(a, generate(shape, 200_000), "{shape:?}");
            assert!(
                a.len() >= 200_000 && a.len() < 300_000,
                "{shape:?}: {}",
                a.len()
            );
        }
    }

    #[test]
    fn every_shape_parses_and_round_trips() {
        use rtile::ir::Context;
        use rtile::parser::parse_str;
        use rtile::printer::{PrintOptions, print_op};
        use std::sync::Arc;
        for shape in [Shape::Mixed, Shape::Nested, Shape::OpDense] {
            let text = generate(shape, 60_000);
            let print = |text: &str| {
                let mut ctx = Context::new(Arc::new(crate::dialect_registry()));
                ctx.allow_unregistered = true;
                let out = parse_str(&mut ctx, "bench.mlir", text)
                    .unwrap_or_else(|d| panic!("{shape:?}: {}", d.message));
                let opts = PrintOptions {
                    generic: true,
                    ..PrintOptions::default()
                };
                print_op(&ctx, out.module, &opts)
            };
            let once = print(&text);
            assert_eq!(
                once,
                print(&once),
                "{shape:?}: printing is not a fixed point"
            );
            assert!(once.contains("bench.return"), "{shape:?}");
        }
    }

    #[test]
    fn nested_shape_nests_hundreds_deep() {
        let text = generate(Shape::Nested, 100);
        let depth = text.matches("\"bench.scope\"").count();
        assert!(depth >= 200, "{depth}");
    }

    #[test]
    fn op_dense_shape_has_many_distinct_types() {
        let text = generate(Shape::OpDense, 100_000);
        let types: std::collections::HashSet<&str> = text
            .split(" -> ")
            .skip(1)
            .filter_map(|t| t.split_whitespace().next())
            .collect();
        assert!(types.len() > 500, "{}", types.len());
    }

    #[test]
    fn measuring_a_process_reports_its_memory() {
        let cost =
            run_measured(Path::new("/bin/sh"), &["-c", "true"], Path::new("x")).expect("sh runs");
        assert!(cost.max_rss_kib > 0);
        let bad = run_measured(Path::new("/bin/sh"), &["-c", "exit 3"], Path::new("x"));
        assert!(bad.is_err());
    }
}
