//! Affine maps, integer sets and affine expressions (`affine_map<...>`,
//! `affine_set<...>`) as MLIR prints them.

use std::fmt::Write as _;

use super::format::{push_i64, push_u64};
use crate::ir::{AffineExpr, AffineMap, IntegerSet};

/// `affine_map<(d0)[s0] -> (d0 + s0)>`.
pub(crate) fn write_affine_map_attr(out: &mut String, m: &AffineMap) {
    out.push_str("affine_map<");
    write_affine_map(out, m);
    out.push('>');
}

/// `affine_set<(d0) : (d0 >= 0)>`.
pub(crate) fn write_integer_set_attr(out: &mut String, s: &IntegerSet) {
    out.push_str("affine_set<");
    dims_and_symbols(out, s.num_dims, s.num_symbols);
    out.push_str(" : (");
    if s.constraints.is_empty() {
        // MLIR prints the empty (always true) set as a trivial equality.
        out.push_str("0 == 0");
    }
    for (i, (e, eq)) in s.constraints.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_affine_expr(out, e);
        out.push_str(if *eq { " == 0" } else { " >= 0" });
    }
    out.push_str(")>");
}

fn dims_and_symbols(out: &mut String, nd: u32, ns: u32) {
    out.push('(');
    for i in 0..nd {
        if i > 0 {
            out.push_str(", ");
        }
        out.push('d');
        push_u64(out, i as u64);
    }
    out.push(')');
    if ns > 0 {
        out.push('[');
        for i in 0..ns {
            if i > 0 {
                out.push_str(", ");
            }
            out.push('s');
            push_u64(out, i as u64);
        }
        out.push(']');
    }
}

/// `(d0)[s0] -> (d0 + s0)` (the inside of `affine_map<...>`).
pub(crate) fn write_affine_map(out: &mut String, m: &AffineMap) {
    dims_and_symbols(out, m.num_dims, m.num_symbols);
    out.push_str(" -> (");
    for (i, e) in m.results.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_affine_expr(out, e);
    }
    out.push(')');
}

/// One affine expression, as `AsmPrinter::printAffineExpr`.
pub(crate) fn write_affine_expr(out: &mut String, e: &AffineExpr) {
    affine_expr(out, e, false);
}

fn neg_str(out: &mut String, c: i64) {
    let _ = write!(out, "{}", -(c as i128));
}

/// MLIR's `printAffineExprInternal`; `strong` is `BindingStrength::Strong`.
fn affine_expr(out: &mut String, e: &AffineExpr, strong: bool) {
    use AffineExpr as E;
    let (lhs, rhs, spelling) = match e {
        E::Dim(i) => {
            out.push('d');
            push_u64(out, *i as u64);
            return;
        }
        E::Symbol(i) => {
            out.push('s');
            push_u64(out, *i as u64);
            return;
        }
        E::Constant(c) => {
            push_i64(out, *c);
            return;
        }
        E::Add(a, b) => (a, b, " + "),
        E::Mul(a, b) => (a, b, " * "),
        E::FloorDiv(a, b) => (a, b, " floordiv "),
        E::CeilDiv(a, b) => (a, b, " ceildiv "),
        E::Mod(a, b) => (a, b, " mod "),
    };
    if strong {
        out.push('(');
    }
    if !matches!(e, E::Add(..)) {
        if matches!(e, E::Mul(..)) && rhs.as_constant() == Some(-1) {
            out.push('-');
            affine_expr(out, lhs, true);
        } else {
            affine_expr(out, lhs, true);
            out.push_str(spelling);
            affine_expr(out, rhs, true);
        }
    } else {
        let mut done = false;
        if let E::Mul(rl, rr) = &**rhs
            && let Some(c) = rr.as_constant()
        {
            if c == -1 {
                affine_expr(out, lhs, false);
                out.push_str(" - ");
                affine_expr(out, rl, matches!(**rl, E::Add(..)));
                done = true;
            } else if c < -1 {
                affine_expr(out, lhs, false);
                out.push_str(" - ");
                affine_expr(out, rl, true);
                out.push_str(" * ");
                neg_str(out, c);
                done = true;
            }
        }
        if !done {
            if let Some(c) = rhs.as_constant()
                && c < 0
            {
                affine_expr(out, lhs, false);
                out.push_str(" - ");
                neg_str(out, c);
            } else {
                affine_expr(out, lhs, false);
                out.push_str(" + ");
                affine_expr(out, rhs, false);
            }
        }
    }
    if strong {
        out.push(')');
    }
}
