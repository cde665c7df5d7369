//! A small stand-alone reader for files of `func.func`s holding custom-form
//! `te.compute`s (the operator suite in `bench/ops/`), for tests and tools that need the
//! models without the IR parser. It understands exactly the header layout that
//! [`super::expr::print_header`] prints:
//!
//! ```text
//! %R = te.compute (%p, ..) reduce (%r, ..) in [E, ..] padded_from [E, ..] may_pad V
//!        : (tensor<..>, ..) -> tensor<..> { body }
//! ```
//!
//! The IR parser reads the same text through `OpAsmParser`; this reader is not a
//! substitute for it (no SSA resolution, no attributes, no generic form).

use super::expr::{CustomHeader, ExprError, ParsedBody, build_compute, parse_body};
use super::model::{ElemType, TensorType};

/// One compute found in a file.
#[derive(Clone, Debug)]
pub struct ScannedCompute {
    /// The enclosing `func.func` symbol, without `@`.
    pub func: String,
    /// The result name without `%`.
    pub result: String,
    pub parsed: ParsedBody,
}

/// Parses `tensor<2x3xf32>`.
pub fn parse_tensor_type(s: &str) -> Option<TensorType> {
    let inner = s.trim().strip_prefix("tensor<")?.strip_suffix('>')?;
    let mut parts: Vec<&str> = inner.split('x').collect();
    let elem = ElemType::from_keyword(parts.pop()?)?;
    let shape = parts
        .iter()
        .map(|p| p.parse::<i64>().ok())
        .collect::<Option<Vec<_>>>()?;
    Some(TensorType::new(shape, elem))
}

struct Cursor<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn ws(&mut self) {
        while self.pos < self.s.len() {
            let rest = &self.s[self.pos..];
            if rest.starts_with("//") {
                self.pos += rest.find('\n').unwrap_or(rest.len());
            } else if rest.starts_with(char::is_whitespace) {
                self.pos += rest.chars().next().map(char::len_utf8).unwrap_or(1);
            } else {
                break;
            }
        }
    }
    fn eat(&mut self, p: &str) -> bool {
        self.ws();
        if self.s[self.pos..].starts_with(p) {
            self.pos += p.len();
            true
        } else {
            false
        }
    }
    fn expect(&mut self, p: &str) -> Result<(), String> {
        if self.eat(p) {
            Ok(())
        } else {
            Err(format!(
                "expected `{p}` at byte {} near `{}`",
                self.pos,
                &self.s[self.pos..(self.pos + 20).min(self.s.len())]
            ))
        }
    }
    fn word(&mut self) -> &'a str {
        self.ws();
        let rest = &self.s[self.pos..];
        let n = rest
            .find(|c: char| !(c.is_alphanumeric() || "%_.-$".contains(c)))
            .unwrap_or(rest.len());
        self.pos += n;
        &rest[..n]
    }
    fn names(&mut self) -> Result<Vec<String>, String> {
        self.expect("(")?;
        let mut v = Vec::new();
        while !self.eat(")") {
            let w = self.word();
            v.push(
                w.strip_prefix('%')
                    .ok_or_else(|| format!("expected %name, got `{w}`"))?
                    .to_string(),
            );
            self.eat(",");
        }
        Ok(v)
    }
    fn ints(&mut self) -> Result<Vec<i64>, String> {
        self.expect("[")?;
        let mut v = Vec::new();
        while !self.eat("]") {
            let w = self.word();
            v.push(
                w.parse()
                    .map_err(|_| format!("expected an integer, got `{w}`"))?,
            );
            self.eat(",");
        }
        Ok(v)
    }
    fn ty(&mut self) -> Result<TensorType, String> {
        self.ws();
        let rest = &self.s[self.pos..];
        let end = rest.find('>').ok_or("unterminated type")? + 1;
        self.pos += end;
        parse_tensor_type(&rest[..end]).ok_or_else(|| format!("bad type `{}`", &rest[..end]))
    }
    /// The text between a balanced `{` `}` pair, and its start offset.
    fn braced(&mut self) -> Result<(&'a str, usize), String> {
        self.expect("{")?;
        let start = self.pos;
        let mut depth = 1;
        for (i, c) in self.s[start..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        self.pos = start + i + 1;
                        return Ok((&self.s[start..start + i], start));
                    }
                }
                _ => {}
            }
        }
        Err("unbalanced braces".into())
    }
}

/// Parses the header text after `te.compute` up to (not including) the body's `{`,
/// returning the header and the cursor position.
fn header(c: &mut Cursor<'_>) -> Result<CustomHeader, String> {
    let parallel = c.names()?;
    let reduction = if c.eat("reduce") { c.names()? } else { vec![] };
    c.expect("in")?;
    let extents = c.ints()?;
    let padded_from = if c.eat("padded_from") {
        Some(c.ints()?)
    } else {
        None
    };
    let may_pad = if c.eat("may_pad") {
        let w = c.word();
        Some(match w {
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            _ => w.parse().map_err(|_| format!("bad may_pad value `{w}`"))?,
        })
    } else {
        None
    };
    c.expect(":")?;
    c.expect("(")?;
    let mut input_types = Vec::new();
    while !c.eat(")") {
        input_types.push(c.ty()?);
        c.eat(",");
    }
    c.expect("->")?;
    let result = c.ty()?;
    Ok(CustomHeader {
        parallel,
        reduction,
        extents,
        input_types,
        result,
        may_pad,
        padded_from,
    })
}

/// Reads every custom-form `te.compute` in `text`. Errors carry byte offsets into `text`.
pub fn scan_computes(text: &str) -> Result<Vec<ScannedCompute>, ExprError> {
    let mut out = Vec::new();
    let mut func = String::new();
    let mut pos = 0;
    while pos < text.len() {
        let rest = &text[pos..];
        let next_func = rest.find("func.func @");
        let next_te = rest.find("te.compute");
        match (next_func, next_te) {
            (Some(f), t) if t.is_none_or(|t| f < t) => {
                let start = pos + f + "func.func @".len();
                let end = text[start..]
                    .find('(')
                    .map(|i| start + i)
                    .unwrap_or(text.len());
                func = text[start..end].to_string();
                pos = end;
            }
            (_, Some(t)) => {
                let at = pos + t;
                // The result name: `%R = ` before the op name on the same line.
                let line_start = text[..at].rfind('\n').map(|i| i + 1).unwrap_or(0);
                let result = text[line_start..at]
                    .trim()
                    .trim_end_matches('=')
                    .trim()
                    .trim_start_matches('%')
                    .to_string();
                let mut c = Cursor {
                    s: text,
                    pos: at + "te.compute".len(),
                };
                let h = header(&mut c).map_err(|m| ExprError {
                    start: at,
                    end: c.pos,
                    message: m,
                })?;
                let (body, off) = c.braced().map_err(|m| ExprError {
                    start: at,
                    end: c.pos,
                    message: m,
                })?;
                let shift = |mut e: ExprError| {
                    e.start += off;
                    e.end += off;
                    e
                };
                let p = parse_body(body).map_err(shift)?;
                let parsed = build_compute(&h, &p, body.len()).map_err(shift)?;
                out.push(ScannedCompute {
                    func: func.clone(),
                    result,
                    parsed,
                });
                pos = c.pos;
            }
            _ => break,
        }
    }
    Ok(out)
}
