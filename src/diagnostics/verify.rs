//! `--verify-diagnostics`, as mlir-opt does it: the input carries comments such as
//! `// expected-error @+1 {{message}}`, and the diagnostics produced must match them
//! exactly (each expectation produced once, nothing unexpected).
//!
//! Supported: `expected-error`, `expected-warning`, `expected-note`, `expected-remark`,
//! their `-re` forms (`{{...}}` segments inside the message are regular expressions:
//! literals, `.`, `[...]` classes, `\d \w \s` and escapes, with `*`, `+`, `?`), and the
//! line designators `@+N`, `@-N`, `@above`, `@below` (the nearest line above/below that
//! is not itself an expectation) and `@unknown` (a diagnostic without location).
//! Messages are substring matches, as in MLIR.

use super::render::{line_col, location_prefix};
use super::{Diagnostic, Severity};
use crate::ir::{Context, Span};

/// Which line an expectation applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExpectedLine {
    /// A 1-based line of the file.
    Line(usize),
    /// A diagnostic with no location (`@unknown`).
    Unknown,
}

/// One `expected-*` comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expectation {
    pub severity: Severity,
    pub line: ExpectedLine,
    /// The text between `{{` and `}}`.
    pub message: String,
    /// True for `expected-*-re`: `{{...}}` segments in `message` are regexes.
    pub regex: bool,
    /// Where the comment is (for "was not produced" messages).
    pub span: Span,
}

/// Collects the expectations written in source `file`. Malformed expectation comments
/// are returned as errors (as MLIR reports them).
pub fn collect_expectations(ctx: &Context, file: u32) -> Result<Vec<Expectation>, Vec<String>> {
    let Some(src) = ctx.sources.get(file as usize) else {
        return Ok(Vec::new());
    };
    let text = &src.text;
    let mut out = Vec::new();
    let mut errors = Vec::new();
    // `@below` expectations waiting for the next line without an expectation.
    let mut pending_below: Vec<usize> = Vec::new();
    let mut last_plain_line: Option<usize> = None;
    let mut offset = 0usize;
    for (idx, line_text) in text.split('\n').enumerate() {
        let line_no = idx + 1;
        let line_start = offset;
        offset += line_text.len() + 1;
        let mut found_any = false;
        let mut search_from = 0usize;
        while let Some(rel) = line_text[search_from..].find("expected-") {
            let at = search_from + rel;
            search_from = at + "expected-".len();
            let rest = &line_text[search_from..];
            let Some((severity, kind_len)) = severity_prefix(rest) else {
                continue;
            };
            let mut rest = &rest[kind_len..];
            let regex = rest.starts_with("-re");
            if regex {
                rest = &rest[3..];
            }
            // The keyword must end here (`expected-errors` is not an expectation).
            if rest
                .chars()
                .next()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-')
            {
                continue;
            }
            found_any = true;
            let span = Span::new(file, line_start + at, line_start + line_text.len());
            let rest_trim = rest.trim_start();
            let (designator, after) = match rest_trim.strip_prefix('@') {
                Some(d) => {
                    let end = d
                        .find(|c: char| !(c.is_alphanumeric() || c == '+' || c == '-'))
                        .unwrap_or(d.len());
                    (Some(&d[..end]), d[end..].trim_start())
                }
                None => (None, rest_trim),
            };
            let Some(message) = after
                .strip_prefix("{{")
                .and_then(|m| m.rfind("}}").map(|e| &m[..e]))
            else {
                errors.push(format!(
                    "{}: error: expected '{{{{' and '}}}}' around the expected message",
                    location_prefix(ctx, Some(span))
                ));
                continue;
            };
            let line = match designator {
                None => ExpectedLine::Line(line_no),
                Some("unknown") => ExpectedLine::Unknown,
                Some("above") => match last_plain_line {
                    Some(l) => ExpectedLine::Line(l),
                    None => {
                        errors.push(format!(
                            "{}: error: expected-{} @above has no line above it",
                            location_prefix(ctx, Some(span)),
                            severity.as_str()
                        ));
                        continue;
                    }
                },
                Some("below") => {
                    pending_below.push(out.len());
                    // Fixed up when the next plain line is seen.
                    ExpectedLine::Line(0)
                }
                Some(d) => match parse_offset(d).and_then(|n| line_no.checked_add_signed(n)) {
                    Some(l) if l >= 1 => ExpectedLine::Line(l),
                    _ => {
                        errors.push(format!(
                            "{}: error: bad line designator '@{d}' (expected @+N, @-N, @above, @below or @unknown)",
                            location_prefix(ctx, Some(span))
                        ));
                        continue;
                    }
                },
            };
            out.push(Expectation {
                severity,
                line,
                message: message.to_string(),
                regex,
                span,
            });
        }
        if !found_any {
            last_plain_line = Some(line_no);
            for i in pending_below.drain(..) {
                out[i].line = ExpectedLine::Line(line_no);
            }
        }
    }
    for i in pending_below {
        errors.push(format!(
            "{}: error: expected-{} @below has no line below it",
            location_prefix(ctx, Some(out[i].span)),
            out[i].severity.as_str()
        ));
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

fn severity_prefix(s: &str) -> Option<(Severity, usize)> {
    [
        ("error", Severity::Error),
        ("warning", Severity::Warning),
        ("note", Severity::Note),
        ("remark", Severity::Remark),
    ]
    .into_iter()
    .find(|(w, _)| s.starts_with(w))
    .map(|(w, sev)| (sev, w.len()))
}

fn parse_offset(d: &str) -> Option<isize> {
    let (sign, digits) = match d.as_bytes().first()? {
        b'+' => (1, &d[1..]),
        b'-' => (-1, &d[1..]),
        _ => return None,
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<isize>().ok().map(|n| sign * n)
}

/// Checks `produced` (and the notes attached to them) against the expectations in source
/// `file`. Diagnostics located in other files are always unexpected.
///
/// On mismatch, returns one MLIR-style line per problem:
/// `file:line:col: error: expected error "msg" was not produced` and
/// `file:line:col: error: unexpected error: msg`.
pub fn verify_diagnostics(
    ctx: &Context,
    file: u32,
    produced: &[Diagnostic],
) -> Result<(), Vec<String>> {
    let expectations = collect_expectations(ctx, file)?;
    let mut matched = vec![false; expectations.len()];
    let mut errors = Vec::new();

    let mut flat: Vec<&Diagnostic> = Vec::new();
    for d in produced {
        flatten(d, &mut flat);
    }
    for d in flat {
        let line = match d.span {
            None => Some(ExpectedLine::Unknown),
            Some(s) if s.file == file => Some(ExpectedLine::Line(line_col(ctx, s).0)),
            Some(_) => None,
        };
        let hit = line.and_then(|line| {
            expectations.iter().enumerate().position(|(i, e)| {
                !matched[i]
                    && e.severity == d.severity
                    && e.line == line
                    && message_matches(e, &d.message)
            })
        });
        match hit {
            Some(i) => matched[i] = true,
            None => errors.push(format!(
                "{}: error: unexpected {}: {}",
                location_prefix(ctx, d.span),
                d.severity.as_str(),
                d.message
            )),
        }
    }
    for (e, m) in expectations.iter().zip(&matched) {
        if !m {
            errors.push(format!(
                "{}: error: expected {} \"{}\" was not produced",
                location_prefix(ctx, Some(e.span)),
                e.severity.as_str(),
                e.message
            ));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

fn flatten<'a>(d: &'a Diagnostic, out: &mut Vec<&'a Diagnostic>) {
    out.push(d);
    for n in &d.notes {
        flatten(n, out);
    }
}

fn message_matches(e: &Expectation, message: &str) -> bool {
    if !e.regex {
        return message.contains(&e.message);
    }
    match Pattern::compile(&e.message) {
        Some(p) => (0..=message.len())
            .filter(|&i| message.is_char_boundary(i))
            .any(|i| p.matches_prefix(&message[i..])),
        None => false,
    }
}

/// A tiny regex: enough for MLIR's `{{...}}` segments in `expected-*-re`.
#[derive(Debug)]
struct Pattern {
    items: Vec<(Atom, Rep)>,
}

#[derive(Debug)]
enum Atom {
    Char(char),
    Any,
    /// `[...]`: (negated, ranges).
    Class(bool, Vec<(char, char)>),
}

#[derive(Debug, Clone, Copy)]
enum Rep {
    One,
    Star,
    Plus,
    Opt,
}

impl Atom {
    fn matches(&self, c: char) -> bool {
        match self {
            Atom::Char(x) => *x == c,
            Atom::Any => c != '\n',
            Atom::Class(neg, ranges) => ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi) != *neg,
        }
    }
}

fn escape_class(c: char) -> Option<Atom> {
    let digit = vec![('0', '9')];
    let word = vec![('a', 'z'), ('A', 'Z'), ('0', '9'), ('_', '_')];
    let space = vec![(' ', ' '), ('\t', '\t'), ('\n', '\n'), ('\r', '\r')];
    Some(match c {
        'd' => Atom::Class(false, digit),
        'D' => Atom::Class(true, digit),
        'w' => Atom::Class(false, word),
        'W' => Atom::Class(true, word),
        's' => Atom::Class(false, space),
        'S' => Atom::Class(true, space),
        _ => return None,
    })
}

impl Pattern {
    /// Literal text with `{{regex}}` segments.
    fn compile(s: &str) -> Option<Pattern> {
        let mut items = Vec::new();
        let mut rest = s;
        while let Some(open) = rest.find("{{") {
            items.extend(rest[..open].chars().map(|c| (Atom::Char(c), Rep::One)));
            let after = &rest[open + 2..];
            let close = after.find("}}")?;
            Self::compile_regex(&after[..close], &mut items)?;
            rest = &after[close + 2..];
        }
        items.extend(rest.chars().map(|c| (Atom::Char(c), Rep::One)));
        Some(Pattern { items })
    }

    fn compile_regex(re: &str, items: &mut Vec<(Atom, Rep)>) -> Option<()> {
        let chars: Vec<char> = re.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let atom = match chars[i] {
                '.' => Atom::Any,
                '\\' => {
                    i += 1;
                    let c = *chars.get(i)?;
                    escape_class(c).unwrap_or(Atom::Char(c))
                }
                '[' => {
                    i += 1;
                    let neg = chars.get(i) == Some(&'^');
                    if neg {
                        i += 1;
                    }
                    let mut ranges = Vec::new();
                    while *chars.get(i)? != ']' {
                        let lo = chars[i];
                        if chars.get(i + 1) == Some(&'-')
                            && chars.get(i + 2).is_some_and(|&c| c != ']')
                        {
                            ranges.push((lo, chars[i + 2]));
                            i += 3;
                        } else {
                            ranges.push((lo, lo));
                            i += 1;
                        }
                    }
                    Atom::Class(neg, ranges)
                }
                '*' | '+' | '?' | '(' | ')' | '|' => return None,
                c => Atom::Char(c),
            };
            i += 1;
            let rep = match chars.get(i) {
                Some('*') => Rep::Star,
                Some('+') => Rep::Plus,
                Some('?') => Rep::Opt,
                _ => Rep::One,
            };
            if !matches!(rep, Rep::One) {
                i += 1;
            }
            items.push((atom, rep));
        }
        Some(())
    }

    /// True when the pattern matches a prefix of `s` (backtracking).
    fn matches_prefix(&self, s: &str) -> bool {
        let chars: Vec<char> = s.chars().collect();
        Self::go(&self.items, &chars)
    }

    fn go(items: &[(Atom, Rep)], s: &[char]) -> bool {
        let Some(((atom, rep), rest)) = items.split_first() else {
            return true;
        };
        match rep {
            Rep::One => s.first().is_some_and(|&c| atom.matches(c)) && Self::go(rest, &s[1..]),
            Rep::Opt => {
                (s.first().is_some_and(|&c| atom.matches(c)) && Self::go(rest, &s[1..]))
                    || Self::go(rest, s)
            }
            Rep::Star | Rep::Plus => {
                let n = s.iter().take_while(|&&c| atom.matches(c)).count();
                let min = if matches!(rep, Rep::Plus) { 1 } else { 0 };
                (min..=n).rev().any(|k| Self::go(rest, &s[k..]))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(text: &str) -> (Context, u32) {
        let mut ctx = Context::default();
        let f = ctx.add_source("v.mlir", text);
        (ctx, f)
    }

    /// A span at the start of 1-based line `line`.
    fn at_line(ctx: &Context, f: u32, line: usize) -> Option<Span> {
        let text = &ctx.sources[f as usize].text;
        let off: usize = text.split('\n').take(line - 1).map(|l| l.len() + 1).sum();
        Some(Span::new(f, off, off + 1))
    }

    #[test]
    fn designators() {
        let text = "\
// expected-error @+1 {{one}}
op1
op2
// expected-warning @-1 {{two}}
// expected-note @above {{three}}
// expected-remark @below {{four}}
// expected-error @below {{five}}
op3
// expected-error @unknown {{seven}}
";
        let (ctx, f) = setup(text);
        let ex = collect_expectations(&ctx, f).unwrap_or_default();
        let lines: Vec<_> = ex.iter().map(|e| (e.severity, e.line)).collect();
        use ExpectedLine::*;
        assert_eq!(
            lines,
            vec![
                (Severity::Error, Line(2)),
                (Severity::Warning, Line(3)),
                (Severity::Note, Line(3)),
                (Severity::Remark, Line(8)),
                (Severity::Error, Line(8)),
                (Severity::Error, Unknown),
            ]
        );
        assert_eq!(ex[0].message, "one");
    }

    #[test]
    fn exact_match_passes() {
        let text = "// expected-error @+1 {{bad thing}}\nop\n// expected-note @-2 {{see}}\n";
        let (ctx, f) = setup(text);
        let d = Diagnostic::error(at_line(&ctx, f, 2), "a bad thing happened")
            .with_note(Diagnostic::note(at_line(&ctx, f, 1), "see here"));
        assert_eq!(verify_diagnostics(&ctx, f, &[d]), Ok(()));
    }

    #[test]
    fn mismatches_are_reported() {
        let text = "op // expected-error {{wanted}}\nop2\n";
        let (ctx, f) = setup(text);
        let d = Diagnostic::error(at_line(&ctx, f, 2), "surprise");
        let errs = verify_diagnostics(&ctx, f, &[d]).err().unwrap_or_default();
        assert_eq!(
            errs,
            vec![
                "v.mlir:2:1: error: unexpected error: surprise".to_string(),
                "v.mlir:1:7: error: expected error \"wanted\" was not produced".to_string(),
            ]
        );
    }

    #[test]
    fn wrong_severity_or_line_does_not_match() {
        let text = "op // expected-warning {{w}}\nop2\n";
        let (ctx, f) = setup(text);
        let errs = verify_diagnostics(&ctx, f, &[Diagnostic::error(at_line(&ctx, f, 1), "w")])
            .err()
            .unwrap_or_default();
        assert_eq!(errs.len(), 2);
        let errs = verify_diagnostics(&ctx, f, &[Diagnostic::warning(at_line(&ctx, f, 2), "w")])
            .err()
            .unwrap_or_default();
        assert_eq!(errs.len(), 2);
    }

    #[test]
    fn each_expectation_matches_once() {
        let text = "op // expected-error {{x}}\n";
        let (ctx, f) = setup(text);
        let d = Diagnostic::error(at_line(&ctx, f, 1), "x");
        assert!(verify_diagnostics(&ctx, f, std::slice::from_ref(&d)).is_ok());
        let errs = verify_diagnostics(&ctx, f, &[d.clone(), d])
            .err()
            .unwrap_or_default();
        assert_eq!(
            errs,
            vec!["v.mlir:1:1: error: unexpected error: x".to_string()]
        );
    }

    #[test]
    fn unknown_location() {
        let (ctx, f) = setup("// expected-error @unknown {{nowhere}}\n");
        assert!(verify_diagnostics(&ctx, f, &[Diagnostic::error(None, "from nowhere")]).is_ok());
    }

    #[test]
    fn regex_segments() {
        let text = "op // expected-error-re {{value {{[0-9]+}} is {{.*}}}}\n";
        let (ctx, f) = setup(text);
        let ok = Diagnostic::error(at_line(&ctx, f, 1), "the value 42 is out of range");
        assert!(verify_diagnostics(&ctx, f, &[ok]).is_ok());
        let bad = Diagnostic::error(at_line(&ctx, f, 1), "the value x is out of range");
        assert!(verify_diagnostics(&ctx, f, &[bad]).is_err());
        // Without -re, braces are literal text.
        let (ctx, f) = setup("op // expected-error {{a {{b}}}}\n");
        let lit = Diagnostic::error(at_line(&ctx, f, 1), "a {{b}}");
        assert!(verify_diagnostics(&ctx, f, &[lit]).is_ok());
    }

    #[test]
    fn malformed_and_dangling() {
        let (ctx, f) = setup("op\n// expected-error @below {{x}}");
        assert!(collect_expectations(&ctx, f).is_err());
        let (ctx, f) = setup("op // expected-error @+x {{x}}\n");
        assert!(collect_expectations(&ctx, f).is_err());
        let (ctx, f) = setup("op // expected-error no braces\n");
        assert!(collect_expectations(&ctx, f).is_err());
        // Prose mentioning the word is not an expectation.
        let (ctx, f) = setup("// the expected-errors list\n");
        assert_eq!(collect_expectations(&ctx, f), Ok(Vec::new()));
    }
}
