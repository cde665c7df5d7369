//! The custom form's body language: parsing (lalrpop, see `expr.lalrpop`), name and type
//! resolution into a [`TeCompute`], and printing back.
//!
//! ```text
//! body    := expr
//! expr    := add (("==" | "!=" | "<" | "<=" | ">" | ">=") add)?
//! add     := add ("+" | "-") mul | mul
//! mul     := mul ("*" | "/" | "floordiv" | "ceildiv" | "mod") unary | unary
//! unary   := "-" unary | primary
//! primary := NUM (":" type)? | ("inf" | "nan") (":" type)? | IDENT "(" args ")" | "%axis"
//!          | "%tensor" "[" indices "]" ("pad" signed-num)? | "(" expr ")"
//! ```
//!
//! The top of a body with reduction axes is the combiner call `te.sum(e)`, `te.max(e)`,
//! `te.min(e)` or `te.prod(e)` (one argument); `te.max(a, b)`/`max(a, b)` with two
//! arguments is the elementwise maximum. Untyped literals take the type of their sibling
//! operand, else the type expected by their context (the result element type at the top).

use std::collections::HashMap;

use lalrpop_util::ParseError;
use lalrpop_util::lalrpop_mod;
use rtile::ir::affine::AffineExpr;
use rtile::ir::affine::AffineMap;

use super::model::{
    Access, Axis, AxisKind, BinOp, CmpOp, Combiner, ElemType, Expr, MayPad, TeCompute, TensorType,
    UnOp,
};

lalrpop_mod!(
    #[allow(clippy::all, clippy::pedantic, unused_parens, dead_code)]
    grammar,
    "/te/expr.rs"
);

/// A parse or resolution error with a byte range into the body text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExprError {
    pub start: usize,
    pub end: usize,
    pub message: String,
}

impl ExprError {
    fn new(start: usize, end: usize, message: impl Into<String>) -> Self {
        ExprError {
            start,
            end,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for ExprError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (bytes {}..{})", self.message, self.start, self.end)
    }
}

/// Untyped syntax tree node with its byte range.
#[derive(Clone, Debug, PartialEq)]
pub struct PExpr {
    pub start: usize,
    pub end: usize,
    pub kind: PKind,
}

/// Untyped syntax.
#[derive(Clone, Debug, PartialEq)]
pub enum PKind {
    /// Literal text (may start with `-`) and an optional `: type`.
    Num(String, Option<String>),
    /// A bare identifier (`inf`, `nan`, possibly negated as `-inf`).
    Ident(String),
    /// `name(args)`.
    Call(String, Vec<PExpr>),
    /// `%name` without `[`: an axis.
    Axis(String),
    /// `%name[indices] pad v`.
    Access(String, Vec<PExpr>, Option<Box<PExpr>>),
    /// Binary operator text.
    Bin(&'static str, Box<PExpr>, Box<PExpr>),
    /// Comparison operator text.
    Cmp(&'static str, Box<PExpr>, Box<PExpr>),
}

impl PExpr {
    /// `-a`: folded into literals, else `neg(a)`.
    pub fn negate(start: usize, end: usize, a: PExpr) -> PExpr {
        let kind = match a.kind {
            PKind::Num(t, ty) => PKind::Num(flip_sign(&t), ty),
            PKind::Ident(t) if t.trim_start_matches('-') == "inf" => PKind::Ident(flip_sign(&t)),
            kind => PKind::Call(
                "neg".into(),
                vec![PExpr {
                    start: a.start,
                    end: a.end,
                    kind,
                }],
            ),
        };
        PExpr { start, end, kind }
    }
}

fn flip_sign(t: &str) -> String {
    match t.strip_prefix('-') {
        Some(rest) => rest.to_string(),
        None => format!("-{t}"),
    }
}

/// Interns an operator spelling from the grammar.
pub fn static_op(op: &str) -> &'static str {
    match op {
        "+" => "+",
        "-" => "-",
        "*" => "*",
        "/" => "/",
        "floordiv" => "floordiv",
        "ceildiv" => "ceildiv",
        "mod" => "mod",
        "==" => "==",
        "!=" => "!=",
        "<" => "<",
        "<=" => "<=",
        ">" => ">",
        _ => ">=",
    }
}

/// Parses a body into the untyped tree.
pub fn parse_body(text: &str) -> Result<PExpr, ExprError> {
    // Built once: a new parser compiles its lexer's regular expressions, which cost more
    // than parsing a body (a tenth of a fused-kernel simulation test's time).
    static PARSER: std::sync::OnceLock<grammar::BodyParser> = std::sync::OnceLock::new();
    let parser = PARSER.get_or_init(grammar::BodyParser::new);
    parser.parse(text).map_err(|e| match e {
        ParseError::InvalidToken { location } => {
            ExprError::new(location, location + 1, "invalid token")
        }
        ParseError::UnrecognizedEof { location, expected } => ExprError::new(
            location,
            location,
            format!(
                "unexpected end of expression, expected one of {}",
                expected.join(", ")
            ),
        ),
        ParseError::UnrecognizedToken {
            token: (l, t, r),
            expected,
        } => ExprError::new(
            l,
            r,
            format!(
                "unexpected `{}`, expected one of {}",
                t.1,
                expected.join(", ")
            ),
        ),
        ParseError::ExtraToken { token: (l, t, r) } => {
            ExprError::new(l, r, format!("unexpected `{}`", t.1))
        }
        ParseError::User { error } => ExprError::new(0, 0, error.to_string()),
    })
}

/// The custom form's header:
/// `(%m, %n) reduce (%k) in [M, N, K] may_pad 0.0 acc(f32) : (ins) -> out`.
#[derive(Clone, Debug, PartialEq)]
pub struct CustomHeader {
    /// Parallel axis names without `%`.
    pub parallel: Vec<String>,
    /// Reduction axis names without `%`.
    pub reduction: Vec<String>,
    /// One extent per axis, parallel then reduction.
    pub extents: Vec<i64>,
    /// Operand types, in order of first use in the body.
    pub input_types: Vec<TensorType>,
    pub result: TensorType,
    pub may_pad: Option<f64>,
    /// `padded_from [..]`: the original extents of a padded compute.
    pub padded_from: Option<Vec<i64>>,
    /// `acc(f32)`: the accumulator type of a mixed-precision reduction.
    pub accumulator: Option<ElemType>,
}

/// A resolved custom-form body.
#[derive(Clone, Debug, PartialEq)]
pub struct ParsedBody {
    pub compute: TeCompute,
    /// The tensor names used (`%A` → `A`), in order of first use; `compute.inputs[i]` is
    /// `input_names[i]`.
    pub input_names: Vec<String>,
    /// Byte range of the first occurrence of each access (for diagnostics).
    pub access_spans: Vec<(usize, usize)>,
}

/// Parses and resolves a body against its header.
pub fn parse_custom(header: &CustomHeader, text: &str) -> Result<ParsedBody, ExprError> {
    let p = parse_body(text)?;
    build_compute(header, &p, text.len())
}

struct Builder<'h> {
    header: &'h CustomHeader,
    axes: HashMap<String, u32>,
    input_names: Vec<String>,
    accesses: Vec<Access>,
    access_spans: Vec<(usize, usize)>,
}

/// Resolves an untyped tree into a compute (names, indices, literal types, combiner).
pub fn build_compute(
    header: &CustomHeader,
    p: &PExpr,
    text_len: usize,
) -> Result<ParsedBody, ExprError> {
    let whole = |m: String| ExprError::new(0, text_len, m);
    if header.extents.len() != header.parallel.len() + header.reduction.len() {
        return Err(whole(format!(
            "domain has {} extents for {} axes",
            header.extents.len(),
            header.parallel.len() + header.reduction.len()
        )));
    }
    let mut axes = HashMap::new();
    for (i, n) in header
        .parallel
        .iter()
        .chain(header.reduction.iter())
        .enumerate()
    {
        if axes.insert(n.clone(), i as u32).is_some() {
            return Err(whole(format!("axis %{n} declared twice")));
        }
    }
    let mut b = Builder {
        header,
        axes,
        input_names: Vec::new(),
        accesses: Vec::new(),
        access_spans: Vec::new(),
    };
    // Inputs are numbered by first use, so collect names before typing anything.
    collect_inputs(p, &mut b.input_names);
    if b.input_names.len() != header.input_types.len() {
        return Err(whole(format!(
            "body reads {} tensors but the type lists {} operands",
            b.input_names.len(),
            header.input_types.len()
        )));
    }
    let (combiner, inner) = match &p.kind {
        PKind::Call(name, args) if args.len() == 1 && combiner_name(name).is_some() => {
            (combiner_name(name), &args[0])
        }
        _ => (None, p),
    };
    // Literals take the accumulator's type: the body yields it (see the model's semantics).
    let acc_ty = header.accumulator.unwrap_or(header.result.elem);
    match (combiner.is_some(), header.reduction.is_empty()) {
        (true, true) => {
            return Err(ExprError::new(
                p.start,
                p.end,
                "combiner without reduction axes: declare `reduce (%k)` or drop the combiner",
            ));
        }
        (false, false) => {
            // A nested combiner is the more precise complaint.
            b.elab(p, Some(acc_ty))?;
            return Err(ExprError::new(
                p.start,
                p.end,
                "a compute with reduction axes needs a combiner at the top: te.sum(...), te.max(...), te.min(...) or te.prod(...)",
            ));
        }
        _ => {}
    }
    let body = b.elab(inner, Some(acc_ty))?;
    let axes_v = header
        .parallel
        .iter()
        .map(|n| (n, AxisKind::Parallel))
        .chain(header.reduction.iter().map(|n| (n, AxisKind::Reduction)))
        .zip(header.extents.iter())
        .map(|((n, k), &e)| Axis {
            name: n.clone(),
            extent: e,
            kind: k,
        })
        .collect();
    Ok(ParsedBody {
        compute: TeCompute {
            axes: axes_v,
            inputs: header.input_types.clone(),
            accesses: b.accesses,
            body,
            combiner,
            result: header.result.clone(),
            may_pad: header.may_pad.map(|value| MayPad { value }),
            padded_from: header.padded_from.clone(),
            accumulator: header.accumulator,
        },
        input_names: b.input_names,
        access_spans: b.access_spans,
    })
}

fn combiner_name(n: &str) -> Option<Combiner> {
    n.strip_prefix("te.").and_then(Combiner::from_keyword)
}

fn collect_inputs(p: &PExpr, out: &mut Vec<String>) {
    match &p.kind {
        PKind::Access(n, idx, pad) => {
            if !out.contains(n) {
                out.push(n.clone());
            }
            for i in idx {
                collect_inputs(i, out);
            }
            if let Some(pad) = pad {
                collect_inputs(pad, out);
            }
        }
        PKind::Call(_, args) => args.iter().for_each(|a| collect_inputs(a, out)),
        PKind::Bin(_, a, b) | PKind::Cmp(_, a, b) => {
            collect_inputs(a, out);
            collect_inputs(b, out);
        }
        PKind::Num(..) | PKind::Ident(_) | PKind::Axis(_) => {}
    }
}

fn cast_target(name: &str) -> Option<ElemType> {
    ElemType::from_keyword(name)
}

impl Builder<'_> {
    fn input_elem(&self, name: &str) -> Option<ElemType> {
        let i = self.input_names.iter().position(|n| n == name)?;
        self.header.input_types.get(i).map(|t| t.elem)
    }

    /// The type an expression has regardless of context (`None`: untyped literals only).
    fn natural(&self, p: &PExpr) -> Option<ElemType> {
        match &p.kind {
            PKind::Num(_, Some(t)) => ElemType::from_keyword(t),
            PKind::Num(_, None) | PKind::Ident(_) | PKind::Axis(_) => None,
            PKind::Access(n, ..) => self.input_elem(n),
            PKind::Bin(_, a, b) => self.natural(a).or_else(|| self.natural(b)),
            PKind::Cmp(..) => Some(ElemType::I1),
            PKind::Call(name, args) => {
                if let Some(t) = cast_target(name) {
                    return Some(t);
                }
                match (name.as_str(), args.as_slice()) {
                    ("select", [_, a, b]) => self.natural(a).or_else(|| self.natural(b)),
                    (_, [a, b]) => self.natural(a).or_else(|| self.natural(b)),
                    (_, [a]) => self.natural(a),
                    _ => None,
                }
            }
        }
    }

    fn constant(&self, p: &PExpr, expected: Option<ElemType>) -> Result<Expr, ExprError> {
        let err = |m: String| ExprError::new(p.start, p.end, m);
        let (text, ty) = match &p.kind {
            PKind::Num(t, ty) => (t.as_str(), ty.as_deref()),
            PKind::Ident(t) => (t.as_str(), None),
            _ => return Err(err("expected a number".into())),
        };
        let ty = match ty {
            Some(k) => {
                ElemType::from_keyword(k).ok_or_else(|| err(format!("unknown type `{k}`")))?
            }
            None => expected.ok_or_else(|| {
                err("cannot infer the type of this literal; write it as `(1.0 : f32)`".into())
            })?,
        };
        let v = match text {
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            "nan" | "-nan" => f64::NAN,
            _ if ty.is_float() => text
                .parse::<f64>()
                .map_err(|_| err(format!("bad number `{text}`")))?,
            _ => {
                if text.contains(['.', 'e', 'E']) {
                    return Err(err(format!(
                        "`{text}` is not an integer literal of type {}",
                        ty.keyword()
                    )));
                }
                text.parse::<i64>()
                    .map_err(|_| err(format!("bad integer `{text}`")))? as f64
            }
        };
        if !ty.is_float() {
            if v.is_nan() || v.is_infinite() {
                return Err(err(format!("`{text}` is not a {} value", ty.keyword())));
            }
            let (lo, hi) = super::model::int_range(ty);
            if v < lo as f64 || v > hi as f64 {
                return Err(err(format!("{text} does not fit in {}", ty.keyword())));
            }
        }
        // A literal denotes the nearest value of its type (as the generic form's
        // `arith.constant` attribute does), so both forms hold the same model.
        Ok(Expr::Const(super::round::round_to(v, ty), ty))
    }

    fn index(&self, p: &PExpr) -> Result<AffineExpr, ExprError> {
        let err = |m: &str| ExprError::new(p.start, p.end, m.to_string());
        Ok(match &p.kind {
            PKind::Axis(n) => match self.axes.get(n) {
                Some(&d) => AffineExpr::Dim(d),
                None => return Err(err(&format!("unknown axis %{n}"))),
            },
            PKind::Num(t, None) => match t.parse::<i64>() {
                Ok(c) => AffineExpr::Constant(c),
                Err(_) => return Err(err("indices are integers")),
            },
            PKind::Call(n, args) if n == "neg" && args.len() == 1 => {
                AffineExpr::mul(self.index(&args[0])?, AffineExpr::Constant(-1))
            }
            PKind::Bin(op, a, b) => {
                let (a, b) = (self.index(a)?, self.index(b)?);
                match *op {
                    "+" => AffineExpr::add(a, b),
                    "-" => AffineExpr::sub(a, b),
                    "*" => {
                        if a.as_constant().is_none() && b.as_constant().is_none() {
                            return Err(err("not affine: a product of two axis expressions"));
                        }
                        AffineExpr::mul(a, b)
                    }
                    "floordiv" | "ceildiv" | "mod" => {
                        if b.as_constant().is_none_or(|c| c <= 0) {
                            return Err(err(&format!(
                                "`{op}` needs a positive constant on the right"
                            )));
                        }
                        match *op {
                            "floordiv" => AffineExpr::floordiv(a, b),
                            "ceildiv" => AffineExpr::ceildiv(a, b),
                            _ => AffineExpr::rem(a, b),
                        }
                    }
                    _ => return Err(err("`/` is not affine; use `floordiv`")),
                }
            }
            _ => return Err(err("not an affine index expression over the axes")),
        })
    }

    fn elab(&mut self, p: &PExpr, expected: Option<ElemType>) -> Result<Expr, ExprError> {
        let err = |m: String| ExprError::new(p.start, p.end, m);
        match &p.kind {
            PKind::Num(..) | PKind::Ident(_) => {
                if let PKind::Ident(n) = &p.kind
                    && !matches!(n.as_str(), "inf" | "-inf" | "nan" | "-nan")
                {
                    return Err(err(format!("unknown name `{n}`")));
                }
                self.constant(p, expected)
            }
            PKind::Axis(n) => Err(err(format!(
                "axis %{n} used as a value; axes may appear only inside `[...]` indices"
            ))),
            PKind::Access(n, idx, pad) => {
                let input = self
                    .input_names
                    .iter()
                    .position(|x| x == n)
                    .ok_or_else(|| err(format!("unknown tensor %{n}")))?;
                let results = idx
                    .iter()
                    .map(|i| self.index(i))
                    .collect::<Result<Vec<_>, _>>()?;
                let elem = self.header.input_types[input].elem;
                let pad = match pad {
                    None => None,
                    Some(pv) => match self.constant(pv, Some(elem))? {
                        Expr::Const(v, _) => Some(v),
                        _ => None,
                    },
                };
                let access = Access {
                    input,
                    map: AffineMap::new(self.axes.len() as u32, 0, results),
                    pad,
                };
                let pos = match self.accesses.iter().position(|a| same_access(a, &access)) {
                    Some(i) => i,
                    None => {
                        self.accesses.push(access);
                        self.access_spans.push((p.start, p.end));
                        self.accesses.len() - 1
                    }
                };
                Ok(Expr::Access(pos))
            }
            PKind::Bin(op, a, b) => {
                let bop = match *op {
                    "+" => BinOp::Add,
                    "-" => BinOp::Sub,
                    "*" => BinOp::Mul,
                    "/" => BinOp::Div,
                    _ => {
                        return Err(err(format!(
                            "`{op}` is an index operator; use `/` on values"
                        )));
                    }
                };
                self.binary(p, bop, a, b, expected)
            }
            PKind::Cmp(op, a, b) => {
                let t = self.natural(a).or_else(|| self.natural(b)).ok_or_else(|| {
                    err("cannot infer the operand type of this comparison".into())
                })?;
                let ea = self.elab(a, Some(t))?;
                let eb = self.elab(b, Some(t))?;
                self.check_same(p, &ea, &eb)?;
                let c = match *op {
                    "==" => CmpOp::Eq,
                    "!=" => CmpOp::Ne,
                    "<" => CmpOp::Lt,
                    "<=" => CmpOp::Le,
                    ">" => CmpOp::Gt,
                    _ => CmpOp::Ge,
                };
                Ok(Expr::Cmp(c, Box::new(ea), Box::new(eb)))
            }
            PKind::Call(name, args) => self.call(p, name, args, expected),
        }
    }

    fn check_same(&self, p: &PExpr, a: &Expr, b: &Expr) -> Result<(), ExprError> {
        let tys = self.access_types();
        match (a.ty(&tys), b.ty(&tys)) {
            (Some(x), Some(y)) if x == y => Ok(()),
            (Some(x), Some(y)) => Err(ExprError::new(
                p.start,
                p.end,
                format!(
                    "operand types differ: {} vs {}; insert a cast such as `{}(x)`",
                    x.keyword(),
                    y.keyword(),
                    x.keyword()
                ),
            )),
            _ => Err(ExprError::new(p.start, p.end, "ill-typed operands")),
        }
    }

    fn access_types(&self) -> Vec<ElemType> {
        self.accesses
            .iter()
            .map(|a| self.header.input_types[a.input].elem)
            .collect()
    }

    fn binary(
        &mut self,
        p: &PExpr,
        op: BinOp,
        a: &PExpr,
        b: &PExpr,
        expected: Option<ElemType>,
    ) -> Result<Expr, ExprError> {
        let t = self
            .natural(a)
            .or_else(|| self.natural(b))
            .or(expected)
            .filter(|t| *t != ElemType::I1);
        let ea = self.elab(a, t)?;
        let eb = self.elab(b, t)?;
        self.check_same(p, &ea, &eb)?;
        if ea.ty(&self.access_types()) == Some(ElemType::I1) {
            return Err(ExprError::new(
                p.start,
                p.end,
                "arithmetic on i1; use select",
            ));
        }
        Ok(Expr::Binary(op, Box::new(ea), Box::new(eb)))
    }

    fn call(
        &mut self,
        p: &PExpr,
        name: &str,
        args: &[PExpr],
        expected: Option<ElemType>,
    ) -> Result<Expr, ExprError> {
        let err = |m: String| ExprError::new(p.start, p.end, m);
        if let Some(c) = combiner_name(name)
            && args.len() == 1
        {
            return Err(err(format!(
                "the combiner te.{} may appear only at the top of the body",
                c.keyword()
            )));
        }
        if let Some(t) = cast_target(name) {
            let [a] = args else {
                return Err(err(format!("{name}(x) takes one argument")));
            };
            let inner = self.natural(a).or(Some(t));
            let e = self.elab(a, inner)?;
            return Ok(Expr::Cast(t, Box::new(e)));
        }
        match (name, args) {
            ("max" | "min" | "te.max" | "te.min", [a, b]) => {
                let op = if name.ends_with("max") {
                    BinOp::Max
                } else {
                    BinOp::Min
                };
                self.binary(p, op, a, b, expected)
            }
            ("pow", [a, b]) => self.binary(p, BinOp::Pow, a, b, expected),
            ("select", [c, a, b]) => {
                let ec = self.elab(c, Some(ElemType::I1))?;
                if ec.ty(&self.access_types()) != Some(ElemType::I1) {
                    return Err(ExprError::new(
                        c.start,
                        c.end,
                        "select's condition must be an i1 comparison",
                    ));
                }
                let t = self.natural(a).or_else(|| self.natural(b)).or(expected);
                let ea = self.elab(a, t)?;
                let eb = self.elab(b, t)?;
                self.check_same(p, &ea, &eb)?;
                Ok(Expr::Select(Box::new(ec), Box::new(ea), Box::new(eb)))
            }
            (_, [a]) if UnOp::from_name(name).is_some() => {
                let op = UnOp::from_name(name).unwrap_or(UnOp::Neg);
                let e = self.elab(a, expected)?;
                let t = e.ty(&self.access_types());
                if t == Some(ElemType::I1)
                    || (!t.is_some_and(|t| t.is_float()) && !matches!(op, UnOp::Neg | UnOp::Abs))
                {
                    return Err(err(format!(
                        "{name} needs a floating-point operand, got {}",
                        t.map(|t| t.keyword()).unwrap_or("?")
                    )));
                }
                Ok(Expr::Unary(op, Box::new(e)))
            }
            _ => Err(err(format!(
                "unknown function `{name}` with {} argument(s)",
                args.len()
            ))),
        }
    }
}

fn same_access(a: &Access, b: &Access) -> bool {
    a.input == b.input
        && a.map == b.map
        && match (a.pad, b.pad) {
            (None, None) => true,
            (Some(x), Some(y)) => x.to_bits() == y.to_bits(),
            _ => false,
        }
}

// ---------------------------------------------------------------------------------------
// Printing.

/// Formats a constant so that it parses back to the same value.
pub fn format_number(v: f64, t: ElemType) -> String {
    if !t.is_float() {
        return format!("{}", v as i64);
    }
    if v.is_nan() {
        "nan".into()
    } else if v.is_infinite() {
        if v > 0.0 { "inf".into() } else { "-inf".into() }
    } else if t == ElemType::F32 && (v as f32) as f64 == v {
        // The shortest text that rounds back to this f32 (`0.01`, not its f64 digits).
        format!("{:?}", v as f32)
    } else {
        format!("{v:?}")
    }
}

/// Prints an affine index with axis names.
pub fn print_index(e: &AffineExpr, axes: &[Axis]) -> String {
    print_index_prec(e, axes, 0)
}

fn print_index_prec(e: &AffineExpr, axes: &[Axis], prec: u8) -> String {
    let (s, p) = match e {
        AffineExpr::Dim(d) => (
            format!(
                "%{}",
                axes.get(*d as usize)
                    .map(|a| a.name.as_str())
                    .unwrap_or("?")
            ),
            3,
        ),
        AffineExpr::Symbol(s) => (format!("s{s}"), 3),
        AffineExpr::Constant(c) => (format!("{c}"), if *c < 0 { 2 } else { 3 }),
        AffineExpr::Add(a, b) => {
            let l = print_index_prec(a, axes, 1);
            let s = match (&**b, b.as_constant()) {
                (_, Some(c)) if c < 0 => format!("{l} - {}", c.unsigned_abs()),
                (AffineExpr::Mul(x, c), _) if c.as_constant() == Some(-1) => {
                    format!("{l} - {}", print_index_prec(x, axes, 2))
                }
                _ => format!("{l} + {}", print_index_prec(b, axes, 2)),
            };
            (s, 1)
        }
        AffineExpr::Mul(a, b) => (
            format!(
                "{} * {}",
                print_index_prec(a, axes, 2),
                print_index_prec(b, axes, 3)
            ),
            2,
        ),
        AffineExpr::FloorDiv(a, b) | AffineExpr::CeilDiv(a, b) | AffineExpr::Mod(a, b) => {
            let op = match e {
                AffineExpr::FloorDiv(..) => "floordiv",
                AffineExpr::CeilDiv(..) => "ceildiv",
                _ => "mod",
            };
            (
                format!(
                    "{} {op} {}",
                    print_index_prec(a, axes, 2),
                    print_index_prec(b, axes, 3)
                ),
                2,
            )
        }
    };
    if p < prec { format!("({s})") } else { s }
}

/// Prints a compute's body in the custom form (`input_names` without `%`).
pub fn print_body(c: &TeCompute, input_names: &[String]) -> String {
    let pr = Printer {
        c,
        names: input_names,
        tys: c.access_types(),
    };
    let inner = pr.expr(&c.body, Some(c.acc_type()), 0);
    match c.combiner {
        Some(k) => format!("te.{}({inner})", k.keyword()),
        None => inner,
    }
}

struct Printer<'a> {
    c: &'a TeCompute,
    names: &'a [String],
    tys: Vec<ElemType>,
}

impl Printer<'_> {
    /// What the parser would infer for `e` without context (`None` for bare literals).
    fn natural(&self, e: &Expr, bare_consts: bool) -> Option<ElemType> {
        match e {
            Expr::Const(_, t) => (!bare_consts).then_some(*t),
            Expr::Access(_) | Expr::Cast(..) | Expr::Cmp(..) => e.ty(&self.tys),
            Expr::Binary(_, a, b) => self
                .natural(a, bare_consts)
                .or_else(|| self.natural(b, bare_consts)),
            Expr::Select(_, a, b) => self
                .natural(a, bare_consts)
                .or_else(|| self.natural(b, bare_consts)),
            Expr::Unary(_, a) => self.natural(a, bare_consts),
        }
    }

    /// Prints `e` where the parser will expect `expected`; `prec` is the binding level the
    /// context needs (0 comparison, 1 additive, 2 multiplicative, 3 unary, 4 primary).
    fn expr(&self, e: &Expr, expected: Option<ElemType>, prec: u8) -> String {
        let (s, p) = match e {
            Expr::Const(v, t) => {
                let n = format_number(*v, *t);
                if Some(*t) == expected {
                    let neg = n.starts_with('-');
                    (n, if neg { 3 } else { 4 })
                } else {
                    (format!("({n} : {})", t.keyword()), 4)
                }
            }
            Expr::Access(i) => (self.access(*i), 4),
            Expr::Binary(op, a, b) => {
                let t = a.ty(&self.tys);
                // The parser types both operands with the first typed one, else `expected`.
                let inferred = self
                    .natural(a, true)
                    .or_else(|| self.natural(b, true))
                    .or(expected);
                let (ea, eb) = if inferred == t {
                    (t, t)
                } else {
                    // Force an explicit type on the left; the right then follows it.
                    (None, t)
                };
                match op {
                    BinOp::Max | BinOp::Min | BinOp::Pow => (
                        format!(
                            "{}({}, {})",
                            match op {
                                BinOp::Max => "max",
                                BinOp::Min => "min",
                                _ => "pow",
                            },
                            self.expr(a, ea, 0),
                            self.expr(b, eb, 0)
                        ),
                        4,
                    ),
                    _ => {
                        let (sym, lp, rp, mine) = match op {
                            BinOp::Add => ("+", 1, 2, 1),
                            BinOp::Sub => ("-", 1, 2, 1),
                            BinOp::Mul => ("*", 2, 3, 2),
                            _ => ("/", 2, 3, 2),
                        };
                        (
                            format!("{} {sym} {}", self.expr(a, ea, lp), self.expr(b, eb, rp)),
                            mine,
                        )
                    }
                }
            }
            Expr::Unary(op, a) => {
                if *op == UnOp::Neg && !matches!(**a, Expr::Const(..)) {
                    (format!("-{}", self.expr(a, expected, 3)), 3)
                } else {
                    (format!("{}({})", op.name(), self.expr(a, expected, 0)), 4)
                }
            }
            Expr::Cmp(op, a, b) => {
                let t = a.ty(&self.tys);
                let inferred = self.natural(a, true).or_else(|| self.natural(b, true));
                let (ea, eb) = if inferred == t { (t, t) } else { (None, t) };
                (
                    format!(
                        "{} {} {}",
                        self.expr(a, ea, 1),
                        op.symbol(),
                        self.expr(b, eb, 1)
                    ),
                    0,
                )
            }
            Expr::Select(c, a, b) => {
                let t = a.ty(&self.tys);
                let inferred = self
                    .natural(a, true)
                    .or_else(|| self.natural(b, true))
                    .or(expected);
                let (ea, eb) = if inferred == t { (t, t) } else { (None, t) };
                (
                    format!(
                        "select({}, {}, {})",
                        self.expr(c, Some(ElemType::I1), 0),
                        self.expr(a, ea, 0),
                        self.expr(b, eb, 0)
                    ),
                    4,
                )
            }
            Expr::Cast(t, a) => {
                let inner = self.natural(a, true).or(Some(*t));
                (format!("{}({})", t.keyword(), self.expr(a, inner, 0)), 4)
            }
        };
        if p < prec { format!("({s})") } else { s }
    }

    fn access(&self, i: usize) -> String {
        let Some(a) = self.c.accesses.get(i) else {
            return "%?[]".into();
        };
        let name = self.names.get(a.input).map(|s| s.as_str()).unwrap_or("?");
        let idx: Vec<String> = a
            .map
            .results
            .iter()
            .map(|e| print_index(e, &self.c.axes))
            .collect();
        let mut s = format!("%{name}[{}]", idx.join(", "));
        if let Some(p) = a.pad {
            let t = self
                .c
                .inputs
                .get(a.input)
                .map(|t| t.elem)
                .unwrap_or(ElemType::F32);
            s.push_str(&format!(" pad {}", format_number(p, t)));
        }
        s
    }
}

/// Prints the custom form's header after `te.compute` (without the body braces), e.g.
/// `(%m, %n) reduce (%k) in [4, 4, 8] : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>`.
pub fn print_header(c: &TeCompute) -> String {
    let names = |k: AxisKind| {
        c.axes
            .iter()
            .filter(|a| a.kind == k)
            .map(|a| format!("%{}", a.name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut s = format!("({})", names(AxisKind::Parallel));
    if c.axes.iter().any(|a| a.kind == AxisKind::Reduction) {
        s.push_str(&format!(" reduce ({})", names(AxisKind::Reduction)));
    }
    let ext: Vec<String> = c.axes.iter().map(|a| a.extent.to_string()).collect();
    s.push_str(&format!(" in [{}]", ext.join(", ")));
    if let Some(p) = &c.padded_from {
        let p: Vec<String> = p.iter().map(|e| e.to_string()).collect();
        s.push_str(&format!(" padded_from [{}]", p.join(", ")));
    }
    if let Some(mp) = c.may_pad {
        s.push_str(&format!(
            " may_pad {}",
            format_number(mp.value, c.result.elem)
        ));
    }
    if let Some(t) = c.accumulator {
        s.push_str(&format!(" acc({})", t.keyword()));
    }
    let ins: Vec<String> = c.inputs.iter().map(|t| t.text()).collect();
    s.push_str(&format!(" : ({}) -> {}", ins.join(", "), c.result.text()));
    s
}

/// The header of a compute, for re-parsing its printed body.
pub fn header_of(c: &TeCompute) -> CustomHeader {
    CustomHeader {
        parallel: c
            .axes
            .iter()
            .filter(|a| a.kind == AxisKind::Parallel)
            .map(|a| a.name.clone())
            .collect(),
        reduction: c
            .axes
            .iter()
            .filter(|a| a.kind == AxisKind::Reduction)
            .map(|a| a.name.clone())
            .collect(),
        extents: c.extents(),
        input_types: c.inputs.clone(),
        result: c.result.clone(),
        may_pad: c.may_pad.map(|m| m.value),
        padded_from: c.padded_from.clone(),
        accumulator: c.accumulator,
    }
}
