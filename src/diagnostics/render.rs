//! Rendering diagnostics as text: an MLIR-style first line (`file:line:col: error: msg`,
//! which lit/FileCheck tests match), then a miette snippet of the labelled span.
//!
//! The output is deterministic when colour is off (the default unless stderr is a
//! terminal): fixed width, unicode box drawing, no ANSI escapes.

use std::fmt;
use std::io::IsTerminal;

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceCode};

use super::Diagnostic;
use crate::ir::{Context, Span};

/// Width miette wraps the snippet at; fixed so output does not depend on the terminal.
const WIDTH: usize = 100;

/// 1-based line and column (in characters) of the start of `span`.
///
/// Offsets past the end of the text clamp to the end; an offset inside a multi-byte
/// character counts as that character. An unknown file gives `(0, 0)`.
pub fn line_col(ctx: &Context, span: Span) -> (usize, usize) {
    match ctx.sources.get(span.file as usize) {
        Some(src) => line_col_in(&src.text, span.start as usize),
        None => (0, 0),
    }
}

/// 1-based line and column (in characters) of byte offset `offset` in `text`.
pub fn line_col_in(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    let col = text[line_start..offset].chars().count() + 1;
    (line, col)
}

/// The `file:line:col` prefix MLIR prints for a location (`<unknown>:0` when there is none).
pub fn location_prefix(ctx: &Context, span: Option<Span>) -> String {
    match span {
        Some(span) => {
            let name = ctx
                .sources
                .get(span.file as usize)
                .map(|s| s.name.as_str())
                .unwrap_or("<unknown>");
            let (line, col) = line_col(ctx, span);
            format!("{name}:{line}:{col}")
        }
        None => "<unknown>:0".to_string(),
    }
}

/// The one-line MLIR form: `file:line:col: error: message`.
pub fn render_line(ctx: &Context, d: &Diagnostic) -> String {
    format!(
        "{}: {}: {}",
        location_prefix(ctx, d.span),
        d.severity.as_str(),
        d.message
    )
}

/// Renders `d` and its notes: for each, the MLIR line then a miette snippet.
///
/// Colour is used only when stderr is a terminal and `NO_COLOR` is unset.
pub fn render(ctx: &Context, d: &Diagnostic) -> String {
    let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    render_with(ctx, d, color)
}

/// [`render`] with colour chosen by the caller (tests use `false`).
pub fn render_with(ctx: &Context, d: &Diagnostic, color: bool) -> String {
    let mut out = String::new();
    render_one(ctx, d, color, &mut out);
    for note in &d.notes {
        render_one(ctx, note, color, &mut out);
        // Notes of notes are rare; flatten them in order.
        for sub in &note.notes {
            render_one(ctx, sub, color, &mut out);
        }
    }
    out
}

fn render_one(ctx: &Context, d: &Diagnostic, color: bool, out: &mut String) {
    out.push_str(&render_line(ctx, d));
    out.push('\n');
    if let Some(snippet) = snippet(ctx, d, color) {
        out.push_str(&snippet);
        if !snippet.ends_with('\n') {
            out.push('\n');
        }
    }
}

/// The miette snippet for `d`'s span, without miette's own header line (the MLIR line
/// above already says what went wrong).
fn snippet(ctx: &Context, d: &Diagnostic, color: bool) -> Option<String> {
    let span = d.span?;
    let src = ctx.sources.get(span.file as usize)?;
    let len = src.text.len();
    let start = (span.start as usize).min(len);
    let end = (span.end as usize).clamp(start, len);
    let report = Snippet {
        message: d.message.clone(),
        source: NamedSource::new(src.name.clone(), src.text.to_string()),
        label: LabeledSpan::new(d.label.clone(), start, end - start),
    };
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(WIDTH)
        .with_links(false)
        .without_syntax_highlighting();
    let mut text = String::new();
    handler.render_report(&mut text, &report).ok()?;
    // Drop miette's `× message` header: everything before the snippet frame.
    let lines: Vec<&str> = text.lines().collect();
    let first = lines
        .iter()
        .position(|l| l.contains("╭─[") || l.contains(",-["))
        .unwrap_or(0);
    let body = lines[first..].join("\n");
    Some(body.trim_end().to_string() + "\n")
}

/// The miette view of one diagnostic: message, source and one labelled span.
struct Snippet {
    message: String,
    source: NamedSource<String>,
    label: LabeledSpan,
}

impl fmt::Debug for Snippet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Snippet")
            .field("message", &self.message)
            .finish()
    }
}

impl fmt::Display for Snippet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Snippet {}

impl miette::Diagnostic for Snippet {
    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&self.source)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(std::iter::once(self.label.clone())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx_with(text: &str) -> (Context, u32) {
        let mut ctx = Context::default();
        let f = ctx.add_source("t.mlir", text);
        (ctx, f)
    }

    #[test]
    fn line_col_basics() {
        let text = "ab\ncdé f\n\nx";
        assert_eq!(line_col_in(text, 0), (1, 1));
        assert_eq!(line_col_in(text, 1), (1, 2));
        assert_eq!(line_col_in(text, 2), (1, 3)); // the newline itself
        assert_eq!(line_col_in(text, 3), (2, 1));
        // 'é' is two bytes: ' ' after it is column 4 in chars, byte 7.
        assert_eq!(line_col_in(text, 7), (2, 4));
        // Inside a multi-byte char: that char's column.
        assert_eq!(line_col_in(text, 6), (2, 3));
        assert_eq!(line_col_in(text, 10), (3, 1));
        assert_eq!(line_col_in(text, 11), (4, 1));
        // Past the end clamps.
        assert_eq!(line_col_in(text, 1000), (4, 2));
    }

    #[test]
    fn line_col_through_context() {
        let (ctx, f) = ctx_with("module {\n  %0 = foo\n}\n");
        assert_eq!(line_col(&ctx, Span::new(f, 11, 13)), (2, 3));
        assert_eq!(line_col(&ctx, Span::new(7, 0, 1)), (0, 0));
    }

    #[test]
    fn first_line_is_mlir_style() {
        let (ctx, f) = ctx_with("func.func @f() {\n  %x = \"a.b\"() : () -> i32\n}\n");
        let d = Diagnostic::error(Some(Span::new(f, 24, 29)), "bad op").with_label("here");
        let r = render_with(&ctx, &d, false);
        let first = r.lines().next().unwrap_or_default();
        assert_eq!(first, "t.mlir:2:8: error: bad op");
        assert!(r.contains("here"), "{r}");
        assert!(r.contains("t.mlir:2:8"), "{r}");
        assert!(!r.contains('\u{1b}'), "no ANSI escapes: {r}");
        // Deterministic.
        assert_eq!(r, render_with(&ctx, &d, false));
    }

    #[test]
    fn notes_get_their_own_lines() {
        let (ctx, f) = ctx_with("a\nb\nc\n");
        let d = Diagnostic::error(Some(Span::new(f, 4, 5)), "redefinition")
            .with_note(Diagnostic::note(Some(Span::new(f, 0, 1)), "previous here"));
        let r = render_with(&ctx, &d, false);
        let mlir_lines: Vec<&str> = r.lines().filter(|l| l.starts_with("t.mlir")).collect();
        assert_eq!(
            mlir_lines,
            vec![
                "t.mlir:3:1: error: redefinition",
                "t.mlir:1:1: note: previous here"
            ]
        );
    }

    #[test]
    fn unknown_location() {
        let ctx = Context::default();
        let d = Diagnostic::warning(None, "no loc");
        assert_eq!(
            render_with(&ctx, &d, false),
            "<unknown>:0: warning: no loc\n"
        );
    }
}
