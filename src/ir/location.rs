//! Locations: MLIR's `loc(...)` attributes, and the source span every parsed op keeps
//! for diagnostics.

use super::attributes::Attribute;
use super::identifier::Identifier;

/// A byte range in one of the context's source files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    /// Index into [`crate::ir::Context::sources`].
    pub file: u32,
    /// Byte offset of the first character.
    pub start: u32,
    /// Byte offset one past the last character.
    pub end: u32,
}

impl Span {
    /// A span in file `file`.
    pub fn new(file: u32, start: usize, end: usize) -> Span {
        Span {
            file,
            start: start as u32,
            end: end.max(start) as u32,
        }
    }
    /// The smallest span covering both (same file assumed).
    pub fn join(self, other: Span) -> Span {
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// MLIR location attributes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Location {
    /// `loc(unknown)`.
    Unknown,
    /// `loc("file.mlir":3:7)`.
    FileLineCol {
        file: Identifier,
        line: u32,
        col: u32,
    },
    /// `loc("name")` or `loc("name"(child))`.
    Name {
        name: String,
        child: Option<Box<Location>>,
    },
    /// `loc(callsite(callee at caller))`.
    CallSite {
        callee: Box<Location>,
        caller: Box<Location>,
    },
    /// `loc(fused[a, b])` or `loc(fused<#meta>[a, b])`.
    Fused {
        locations: Vec<Location>,
        metadata: Option<Box<Attribute>>,
    },
}
