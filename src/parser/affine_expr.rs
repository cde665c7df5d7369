//! Affine maps and sets: the token adapter fed to the lalrpop grammar
//! (`affine.lalrpop`), the raw syntax tree it builds, and the semantic pass that
//! resolves identifiers and checks affinity with MLIR's messages.

use crate::ir::{AffineExpr, AffineMap, IntegerSet};

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, clippy::pedantic, unused_parens, dead_code)]
    grammar,
    "/parser/affine.rs"
);

/// Tokens of the affine sub-language, adapted from the MLIR lexer's tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AffTok<'s> {
    LParen,
    RParen,
    LBracket,
    RBracket,
    Comma,
    Colon,
    Arrow,
    Plus,
    Minus,
    Star,
    Ge,
    Le,
    EqEq,
    FloorDiv,
    CeilDiv,
    Mod,
    Id(&'s str),
    Int(i64),
}

/// A user error raised from the grammar (unused: all semantic checks happen later).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AffErr {
    pub start: usize,
    pub end: usize,
    pub message: String,
}

/// A dim or symbol name with its byte range.
#[derive(Clone, Copy, Debug)]
pub struct RawId<'s> {
    pub name: &'s str,
    pub start: usize,
    pub end: usize,
}

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RawBin {
    Add,
    Sub,
    Mul,
    FloorDiv,
    CeilDiv,
    Mod,
}

/// Expression syntax tree with byte ranges.
#[derive(Clone, Debug)]
pub enum RawExpr<'s> {
    Id(RawId<'s>),
    Int(i64, usize, usize),
    Neg(Box<RawExpr<'s>>, usize, usize),
    Bin(RawBin, Box<RawExpr<'s>>, Box<RawExpr<'s>>, usize, usize),
}

/// `(dims)[syms] -> (results)`.
#[derive(Clone, Debug)]
pub struct RawMap<'s> {
    pub dims: Vec<RawId<'s>>,
    pub syms: Vec<RawId<'s>>,
    pub results: Vec<RawExpr<'s>>,
}

/// Constraint comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConsKind {
    Ge,
    Le,
    Eq,
}

/// `lhs >= rhs` and friends.
#[derive(Clone, Debug)]
pub struct RawCons<'s> {
    pub lhs: RawExpr<'s>,
    pub rhs: RawExpr<'s>,
    pub kind: ConsKind,
    pub start: usize,
    pub end: usize,
}

/// `(dims)[syms] : (constraints)`.
#[derive(Clone, Debug)]
pub struct RawSet<'s> {
    pub dims: Vec<RawId<'s>>,
    pub syms: Vec<RawId<'s>>,
    pub constraints: Vec<RawCons<'s>>,
}

/// An error with a byte range (the caller adds the file).
pub type AffineError = (usize, usize, String);

type Spanned<'s> = (usize, AffTok<'s>, usize);

fn describe(t: &AffTok<'_>) -> String {
    let p = match t {
        AffTok::Id(s) => return format!("identifier '{s}'"),
        AffTok::Int(v) => return format!("integer '{v}'"),
        AffTok::LParen => "(",
        AffTok::RParen => ")",
        AffTok::LBracket => "[",
        AffTok::RBracket => "]",
        AffTok::Comma => ",",
        AffTok::Colon => ":",
        AffTok::Arrow => "->",
        AffTok::Plus => "+",
        AffTok::Minus => "-",
        AffTok::Star => "*",
        AffTok::Ge => ">=",
        AffTok::Le => "<=",
        AffTok::EqEq => "==",
        AffTok::FloorDiv => "floordiv",
        AffTok::CeilDiv => "ceildiv",
        AffTok::Mod => "mod",
    };
    format!("'{p}'")
}

fn convert_error(
    e: lalrpop_util::ParseError<usize, AffTok<'_>, AffErr>,
    end: usize,
) -> AffineError {
    use lalrpop_util::ParseError as P;
    let exp = |expected: &[String]| {
        if expected.is_empty() {
            String::new()
        } else {
            let names: Vec<String> = expected
                .iter()
                .map(|e| match e.as_str() {
                    "\"id\"" => "identifier".to_string(),
                    "\"int\"" => "integer".to_string(),
                    other => other.replace('"', "'"),
                })
                .collect();
            format!(", expected one of: {}", names.join(", "))
        }
    };
    match e {
        P::InvalidToken { location } => (location, location + 1, "invalid token".into()),
        P::UnrecognizedEof { location, expected } => (
            location,
            end.max(location),
            format!("unexpected end of affine expression{}", exp(&expected)),
        ),
        P::UnrecognizedToken {
            token: (l, t, r),
            expected,
        } => (
            l,
            r,
            format!(
                "unexpected {} in affine expression{}",
                describe(&t),
                exp(&expected)
            ),
        ),
        P::ExtraToken { token: (l, t, r) } => (
            l,
            r,
            format!("unexpected {} after affine expression", describe(&t)),
        ),
        P::User { error } => (error.start, error.end, error.message),
    }
}

struct Names<'a, 's> {
    dims: &'a [RawId<'s>],
    syms: &'a [RawId<'s>],
}

fn check_names(dims: &[RawId<'_>], syms: &[RawId<'_>]) -> Result<(), AffineError> {
    let mut seen: Vec<&str> = Vec::new();
    for id in dims.iter().chain(syms) {
        if seen.contains(&id.name) {
            return Err((
                id.start,
                id.end,
                format!("redefinition of identifier '{}'", id.name),
            ));
        }
        seen.push(id.name);
    }
    Ok(())
}

fn has_dim(e: &AffineExpr) -> bool {
    match e {
        AffineExpr::Dim(_) => true,
        AffineExpr::Symbol(_) | AffineExpr::Constant(_) => false,
        AffineExpr::Add(a, b)
        | AffineExpr::Mul(a, b)
        | AffineExpr::FloorDiv(a, b)
        | AffineExpr::CeilDiv(a, b)
        | AffineExpr::Mod(a, b) => has_dim(a) || has_dim(b),
    }
}

fn lower(e: &RawExpr<'_>, n: &Names<'_, '_>) -> Result<AffineExpr, AffineError> {
    Ok(match e {
        RawExpr::Id(id) => {
            if let Some(i) = n.dims.iter().position(|d| d.name == id.name) {
                AffineExpr::Dim(i as u32)
            } else if let Some(i) = n.syms.iter().position(|d| d.name == id.name) {
                AffineExpr::Symbol(i as u32)
            } else {
                return Err((
                    id.start,
                    id.end,
                    format!("use of undeclared identifier '{}'", id.name),
                ));
            }
        }
        RawExpr::Int(v, _, _) => AffineExpr::Constant(*v),
        RawExpr::Neg(a, _, _) => AffineExpr::mul(lower(a, n)?, AffineExpr::Constant(-1)),
        RawExpr::Bin(op, a, b, l, r) => {
            let (x, y) = (lower(a, n)?, lower(b, n)?);
            let opname = match op {
                RawBin::FloorDiv => "floordiv",
                RawBin::CeilDiv => "ceildiv",
                RawBin::Mod => "mod",
                _ => "",
            };
            match op {
                RawBin::Add => AffineExpr::add(x, y),
                RawBin::Sub => AffineExpr::sub(x, y),
                RawBin::Mul => {
                    if has_dim(&x) && has_dim(&y) {
                        return Err((
                            *l,
                            *r,
                            "non-affine expression: at least one of the multiply operands has \
                             to be either a constant or symbolic"
                                .into(),
                        ));
                    }
                    AffineExpr::mul(x, y)
                }
                RawBin::FloorDiv | RawBin::CeilDiv | RawBin::Mod => {
                    if has_dim(&y) {
                        return Err((
                            *l,
                            *r,
                            format!(
                                "non-affine expression: right operand of {opname} has to be \
                                 either a constant or symbolic"
                            ),
                        ));
                    }
                    match op {
                        RawBin::FloorDiv => AffineExpr::floordiv(x, y),
                        RawBin::CeilDiv => AffineExpr::ceildiv(x, y),
                        _ => AffineExpr::rem(x, y),
                    }
                }
            }
        }
    })
}

/// Parses the tokens of `(dims)[syms] -> (exprs)`; `end` is where the tokens stop.
pub fn parse_map(toks: Vec<Spanned<'_>>, end: usize) -> Result<AffineMap, AffineError> {
    let raw = grammar::MapParser::new()
        .parse(toks.into_iter().map(Ok::<_, AffErr>))
        .map_err(|e| convert_error(e, end))?;
    check_names(&raw.dims, &raw.syms)?;
    let n = Names {
        dims: &raw.dims,
        syms: &raw.syms,
    };
    let results = raw
        .results
        .iter()
        .map(|e| lower(e, &n))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(AffineMap::new(
        raw.dims.len() as u32,
        raw.syms.len() as u32,
        results,
    ))
}

/// Parses the tokens of `(dims)[syms] : (constraints)`.
pub fn parse_set(toks: Vec<Spanned<'_>>, end: usize) -> Result<IntegerSet, AffineError> {
    let raw = grammar::SetParser::new()
        .parse(toks.into_iter().map(Ok::<_, AffErr>))
        .map_err(|e| convert_error(e, end))?;
    check_names(&raw.dims, &raw.syms)?;
    let n = Names {
        dims: &raw.dims,
        syms: &raw.syms,
    };
    let mut constraints = Vec::new();
    for c in &raw.constraints {
        let (a, b) = (lower(&c.lhs, &n)?, lower(&c.rhs, &n)?);
        // Normalised as MLIR does: `a >= b` is `a - b >= 0`, `a <= b` is `b - a >= 0`.
        let (e, eq) = match c.kind {
            ConsKind::Ge => (sub_folded(a, b), false),
            ConsKind::Le => (sub_folded(b, a), false),
            ConsKind::Eq => (sub_folded(a, b), true),
        };
        constraints.push((e, eq));
    }
    Ok(IntegerSet {
        num_dims: raw.dims.len() as u32,
        num_symbols: raw.syms.len() as u32,
        constraints,
    })
}

fn sub_folded(a: AffineExpr, b: AffineExpr) -> AffineExpr {
    if b.as_constant() == Some(0) {
        a
    } else {
        AffineExpr::sub(a, b)
    }
}
