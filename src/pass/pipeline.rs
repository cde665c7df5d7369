//! MLIR's textual pass pipeline syntax and the flag form.
//!
//! ```text
//! pipeline ::= op-name `(` element (`,` element)* `)`
//! element  ::= op-name `(` element (`,` element)* `)`      nested, op-anchored
//!            | pass-or-pipeline-name (`{` options `}`)?
//! ```
//!
//! The pipeline text is registered as a source in [`Context::sources`], so errors carry
//! spans into it and render like file errors.

use super::manager::{OpPassManager, PipelineEntry};
use super::options::parse_option_string;
use super::{Pass, PassRegistry};
use crate::diagnostics::Diagnostic;
use crate::ir::{Context, Span};

/// The source name MLIR uses for pipeline-parse errors.
const SOURCE_NAME: &str = "MLIR Textual PassPipeline Parser";

/// Named pipelines may expand into each other; this bounds the recursion.
const MAX_PIPELINE_DEPTH: usize = 16;

/// Parses `anchor(elements)` (e.g. `builtin.module(func.func(cse),symbol-dce)`).
pub fn parse_pass_pipeline(
    ctx: &mut Context,
    registry: &PassRegistry,
    text: &str,
) -> Result<OpPassManager, Diagnostic> {
    let file = ctx.add_source(SOURCE_NAME, text);
    let trimmed_start = text.len() - text.trim_start().len();
    let t = text.trim();
    let wrapped = t.ends_with(')')
        && t.find('(')
            .is_some_and(|p| !t[..p].trim().is_empty() && !t[..p].contains([',', '{', '}']));
    if !wrapped {
        return Err(Diagnostic::error(
            Some(Span::new(file, trimmed_start, trimmed_start + t.len())),
            "expected pass pipeline to be wrapped with the anchor operation type, e.g. 'builtin.module(...)'",
        ));
    }
    let open = t.find('(').unwrap_or(0);
    let anchor = t[..open].trim();
    let mut pm = OpPassManager::new(anchor);
    let mut p = Parser {
        text,
        file,
        pos: trimmed_start + open + 1,
        end: trimmed_start + t.len() - 1,
        registry,
        depth: 0,
    };
    p.parse_elements(ctx, &mut pm, None)?;
    Ok(pm)
}

/// Parses a comma-separated list of pipeline elements (no anchor wrapper) into `pm`,
/// e.g. the text of a named pipeline. `source_name` names the text in diagnostics.
pub fn parse_pass_pipeline_elements(
    ctx: &mut Context,
    registry: &PassRegistry,
    source_name: &str,
    text: &str,
    pm: &mut OpPassManager,
) -> Result<(), Diagnostic> {
    let file = ctx.add_source(source_name, text);
    let mut p = Parser {
        text,
        file,
        pos: 0,
        end: text.len(),
        registry,
        depth: 0,
    };
    p.parse_elements(ctx, pm, None)
}

/// Builds a pipeline anchored on `root_anchor` from the flag form: an ordered list of
/// `(pass name, option string)` (`--symbol-dce`, `--print-op-stats="json"`). Passes
/// anchored on another op (e.g. `func.func`) are nested automatically, consecutive ones
/// sharing one nested pipeline.
pub fn pipeline_from_flags(
    ctx: &mut Context,
    registry: &PassRegistry,
    root_anchor: &str,
    flags: &[(String, String)],
) -> Result<OpPassManager, Diagnostic> {
    let mut pm = OpPassManager::new(root_anchor);
    for (name, opts) in flags {
        if let Some(pl) = registry.get_pipeline(name) {
            let text = pl.text.clone();
            parse_pass_pipeline_elements(ctx, registry, &format!("--{name}"), &text, &mut pm)?;
            continue;
        }
        let Some(mut pass) = registry.create(name) else {
            return Err(Diagnostic::error(
                None,
                format!("'{name}' does not refer to a registered pass or pass pipeline"),
            ));
        };
        let file = ctx.add_source(format!("--{name}"), opts.as_str());
        apply_options(pass.as_mut(), opts, file, 0)?;
        match pass.anchor() {
            Some(a) if a != root_anchor && root_anchor != "any" => {
                pm.nest(a).add_pass_unchecked(pass, opts.clone());
            }
            _ => pm.add_pass_unchecked(pass, opts.clone()),
        }
    }
    Ok(pm)
}

/// Sets the options written in `text` (at byte `base` of source `file`) on `pass`.
fn apply_options(
    pass: &mut dyn Pass,
    text: &str,
    file: u32,
    base: usize,
) -> Result<(), Diagnostic> {
    let span = |(s, e): (usize, usize)| Some(Span::new(file, base + s, base + e));
    let entries = parse_option_string(text).map_err(|(msg, r)| Diagnostic::error(span(r), msg))?;
    for e in entries {
        let Some(spec) = pass.options().iter().find(|s| s.name == e.key).copied() else {
            return Err(Diagnostic::error(
                span(e.key_range),
                format!("no such option '{}' for pass '{}'", e.key, pass.name()),
            )
            .with_label("unknown option"));
        };
        let value = match (&e.value, spec.kind) {
            (Some(v), _) => v.as_str(),
            (None, super::OptionKind::Bool) => "true",
            (None, _) => {
                return Err(Diagnostic::error(
                    span(e.key_range),
                    format!(
                        "option '{}' of pass '{}' requires a value",
                        e.key,
                        pass.name()
                    ),
                ));
            }
        };
        pass.set_option(&e.key, value).map_err(|msg| {
            Diagnostic::error(
                span(e.value_range),
                format!(
                    "invalid value for option '{}' of pass '{}': {msg}",
                    e.key,
                    pass.name()
                ),
            )
            .with_label("bad value")
        })?;
    }
    Ok(())
}

struct Parser<'a> {
    text: &'a str,
    file: u32,
    pos: usize,
    /// One past the last byte this parser may read.
    end: usize,
    registry: &'a PassRegistry,
    depth: usize,
}

impl Parser<'_> {
    fn span(&self, s: usize, e: usize) -> Option<Span> {
        Some(Span::new(self.file, s, e))
    }
    fn peek(&self) -> Option<u8> {
        (self.pos < self.end).then(|| self.text.as_bytes()[self.pos])
    }
    fn skip_ws(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    /// Parses elements until the end of the text, or until the `)` matching the `(` at
    /// `open` (which it consumes).
    fn parse_elements(
        &mut self,
        ctx: &mut Context,
        pm: &mut OpPassManager,
        open: Option<usize>,
    ) -> Result<(), Diagnostic> {
        self.skip_ws();
        // An empty pipeline is valid.
        match self.peek() {
            None if open.is_none() => return Ok(()),
            Some(b')') if open.is_some() => {
                self.pos += 1;
                return Ok(());
            }
            _ => {}
        }
        loop {
            self.skip_ws();
            let start = self.pos;
            while self
                .peek()
                .is_some_and(|c| !matches!(c, b'(' | b')' | b'{' | b'}' | b','))
            {
                self.pos += 1;
            }
            let raw = &self.text[start..self.pos];
            let name = raw.trim();
            let name_start = start + (raw.len() - raw.trim_start().len());
            let name_span = self.span(name_start, name_start + name.len().max(1));
            match self.peek() {
                Some(b'(') => {
                    let paren = self.pos;
                    if name.is_empty() {
                        return Err(Diagnostic::error(
                            self.span(paren, paren + 1),
                            "expected an operation name before '(' of a nested pipeline",
                        ));
                    }
                    self.pos += 1;
                    let mut nested = OpPassManager::new(name);
                    self.parse_elements(ctx, &mut nested, Some(paren))?;
                    pm.entries.push(PipelineEntry::Nested {
                        pm: nested,
                        time: Default::default(),
                    });
                }
                c => {
                    let mut opts: Option<(usize, usize)> = None;
                    if c == Some(b'{') {
                        let brace = self.pos;
                        let close = self.matching_brace(brace).ok_or_else(|| {
                            Diagnostic::error(
                                self.span(brace, brace + 1),
                                "missing closing '}' while processing pass options",
                            )
                        })?;
                        opts = Some((brace + 1, close));
                        self.pos = close + 1;
                    }
                    self.add_element(ctx, pm, name, name_span, opts)?;
                }
            }
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b')') => {
                    if open.is_some() {
                        self.pos += 1;
                        return Ok(());
                    }
                    return Err(Diagnostic::error(
                        self.span(self.pos, self.pos + 1),
                        "encountered extra closing ')' creating unbalanced parentheses while parsing pipeline",
                    ));
                }
                None => {
                    return match open {
                        Some(p) => Err(Diagnostic::error(
                            self.span(p, p + 1),
                            "encountered unbalanced parentheses while parsing pipeline",
                        )
                        .with_label("this '(' is never closed")),
                        None => Ok(()),
                    };
                }
                Some(c) => {
                    return Err(Diagnostic::error(
                        self.span(self.pos, self.pos + 1),
                        format!(
                            "expected ',' or ')' after a pipeline element, found '{}'",
                            c as char
                        ),
                    ));
                }
            }
        }
    }

    /// The index of the `}` matching the `{` at `open`, respecting quotes and nesting.
    fn matching_brace(&self, open: usize) -> Option<usize> {
        let b = self.text.as_bytes();
        let mut depth = 0i32;
        let mut quote: Option<u8> = None;
        for (i, &c) in b.iter().enumerate().take(self.end).skip(open) {
            match quote {
                Some(q) if c == q => quote = None,
                Some(_) => {}
                None => match c {
                    b'"' | b'\'' => quote = Some(c),
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i);
                        }
                    }
                    _ => {}
                },
            }
        }
        None
    }

    /// Adds pass (or named pipeline) `name` with the options text at `opts` to `pm`.
    fn add_element(
        &mut self,
        ctx: &mut Context,
        pm: &mut OpPassManager,
        name: &str,
        name_span: Option<Span>,
        opts: Option<(usize, usize)>,
    ) -> Result<(), Diagnostic> {
        if let Some(pl) = self.registry.get_pipeline(name) {
            if self.depth >= MAX_PIPELINE_DEPTH {
                return Err(Diagnostic::error(
                    name_span,
                    format!("pass pipeline '{name}' expands into itself"),
                ));
            }
            if let Some((s, e)) = opts {
                return Err(Diagnostic::error(
                    self.span(s, e),
                    format!("pass pipeline '{name}' takes no options"),
                ));
            }
            let text = pl.text.clone();
            let file = ctx.add_source(format!("pass pipeline '{name}'"), text.as_str());
            let mut sub = Parser {
                text: &text,
                file,
                pos: 0,
                end: text.len(),
                registry: self.registry,
                depth: self.depth + 1,
            };
            return sub.parse_elements(ctx, pm, None);
        }
        let Some(mut pass) = self.registry.create(name) else {
            return Err(Diagnostic::error(
                name_span,
                format!("'{name}' does not refer to a registered pass or pass pipeline"),
            ));
        };
        let opts_text = match opts {
            Some((s, e)) => {
                apply_options(pass.as_mut(), &self.text[s..e], self.file, s)?;
                self.text[s..e].trim().to_string()
            }
            None => String::new(),
        };
        pm.add_pass(pass, opts_text)
            .map_err(|msg| Diagnostic::error(name_span, msg))
    }
}
