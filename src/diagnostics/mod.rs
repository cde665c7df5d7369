//! Diagnostics: errors, warnings, notes and remarks attached to source spans.
//!
//! A [`Diagnostic`] is plain data; rendering to text goes through miette (see
//! [`render`]), and `--verify-diagnostics` matching lives in [`verify`].

pub mod render;
pub mod verify;

pub use render::{line_col, render};
pub use verify::verify_diagnostics;

use crate::ir::{Context, OpId, Span};

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
    Note,
    Remark,
}

impl Severity {
    /// The word MLIR uses (`error`, `warning`, `note`, `remark`).
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
            Severity::Remark => "remark",
        }
    }
}

/// One diagnostic, with optional attached notes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    /// Where it points; `None` for diagnostics with no source location.
    pub span: Option<Span>,
    /// Short text shown under the span.
    pub label: Option<String>,
    /// Notes attached to this diagnostic (each may carry its own span).
    pub notes: Vec<Diagnostic>,
}

impl Diagnostic {
    /// An error at `span`.
    pub fn error(span: Option<Span>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            span,
            label: None,
            notes: Vec::new(),
        }
    }
    /// A warning at `span`.
    pub fn warning(span: Option<Span>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(span, message)
        }
    }
    /// A note at `span`.
    pub fn note(span: Option<Span>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Note,
            ..Diagnostic::error(span, message)
        }
    }
    /// A remark at `span`.
    pub fn remark(span: Option<Span>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Remark,
            ..Diagnostic::error(span, message)
        }
    }
    /// An error pointing at `op`, prefixed with the op name as MLIR does
    /// (`'te.compute' op ...`).
    pub fn op_error(ctx: &Context, op: OpId, message: impl AsRef<str>) -> Self {
        Diagnostic::error(
            ctx.op(op).span,
            format!("'{}' op {}", ctx.op_name(op), message.as_ref()),
        )
    }
    /// Sets the label.
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }
    /// Attaches a note.
    pub fn with_note(mut self, note: Diagnostic) -> Self {
        self.notes.push(note);
        self
    }
}

/// Result of an operation that reports a diagnostic on failure.
pub type DiagResult<T> = Result<T, Diagnostic>;
