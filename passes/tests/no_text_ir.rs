//! Passes build IR with `rtile::ir::Builder` / `Rewriter`, never by writing MLIR text and
//! parsing it back. This test scans `passes/src` for the two halves of a text round trip:
//! a call into the parser, and generic-form op text (`\"dialect.op\"(` or a `<{`
//! properties dictionary) inside Rust string literals.
//!
//! No file is exempt: `--lower-to-gpu`'s kernels, the last IR built as text, are built
//! with the builder too.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("readable source dir")
        .map(|e| e.expect("dir entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// True when `line` (code, not a comment) calls the parser or holds generic op text.
fn builds_text_ir(line: &str) -> bool {
    let code = line.trim_start();
    if code.starts_with("//") {
        return false;
    }
    if code.contains("parse_str(") || code.contains("parse_source(") {
        return true;
    }
    // A properties dictionary of generic form inside a string literal.
    if code.contains("<{{") || code.contains("\"<{") || code.contains(" <{") {
        return code.contains('"');
    }
    generic_op_name(code)
}

/// `\"dialect.op\"(` as it appears in a Rust literal that spells a generic op.
fn generic_op_name(code: &str) -> bool {
    let mut rest = code;
    while let Some(i) = rest.find("\\\"") {
        let after = &rest[i + 2..];
        let name_len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .unwrap_or(after.len());
        let name = &after[..name_len];
        if name.contains('.') && after[name_len..].starts_with("\\\"(") {
            return true;
        }
        rest = after;
    }
    false
}

#[test]
fn scanner_finds_text_ir() {
    assert!(generic_op_name(
        r#"lines.push(format!("{n} = \"memref.alloc\"() : () -> {t}"));"#
    ));
    assert!(builds_text_ir(
        r#"let p = rtile::parser::parse_str(ctx, "<gen>", &text);"#
    ));
    assert!(builds_text_ir(
        r#"format!("\"arith.constant\"() <{{value = {v} : index}}> : () -> index")"#
    ));
    assert!(!builds_text_ir(
        r#"b.op("arith.constant").property("value", v)"#
    ));
    assert!(!builds_text_ir("// \"arith.addi\"(%a, %b) in a comment"));
}

#[test]
fn passes_do_not_build_ir_from_text() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 10, "the scan finds the sources: {files:?}");
    let mut offending = Vec::new();
    for f in &files {
        let rel = f
            .strip_prefix(&src)
            .expect("under src")
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(f).expect("readable source");
        for (n, line) in text.lines().enumerate() {
            if builds_text_ir(line) {
                offending.push(format!("{rel}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        offending.is_empty(),
        "passes must build IR with rtile::ir::Builder, not text:\n{}",
        offending.join("\n")
    );
}
