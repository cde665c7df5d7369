//! A compact type spelling for parser diagnostics (the printer owns the real one; the
//! parser must not depend on it to report errors).

use crate::ir::{DYNAMIC, Signedness, Type, TypeKind};

fn dims(shape: &[i64], scalable: Option<&[bool]>, out: &mut String) {
    for (i, d) in shape.iter().enumerate() {
        let s = if *d == DYNAMIC {
            "?".to_string()
        } else {
            d.to_string()
        };
        if scalable.and_then(|v| v.get(i)).copied().unwrap_or(false) {
            out.push_str(&format!("[{s}]x"));
        } else {
            out.push_str(&s);
            out.push('x');
        }
    }
}

fn list(ts: &[Type]) -> String {
    ts.iter().map(type_text).collect::<Vec<_>>().join(", ")
}

/// The MLIR spelling of `t` (attributes inside types abbreviated).
pub(crate) fn type_text(t: &Type) -> String {
    match t.kind() {
        TypeKind::Integer { width, signedness } => match signedness {
            Signedness::Signless => format!("i{width}"),
            Signedness::Signed => format!("si{width}"),
            Signedness::Unsigned => format!("ui{width}"),
        },
        TypeKind::Float(k) => k.keyword().to_string(),
        TypeKind::Index => "index".into(),
        TypeKind::None => "none".into(),
        TypeKind::Tensor { shape, elem, .. } => {
            let mut s = "tensor<".to_string();
            dims(shape, None, &mut s);
            format!("{s}{}>", type_text(elem))
        }
        TypeKind::UnrankedTensor { elem } => format!("tensor<*x{}>", type_text(elem)),
        TypeKind::MemRef { shape, elem, .. } => {
            let mut s = "memref<".to_string();
            dims(shape, None, &mut s);
            format!("{s}{}>", type_text(elem))
        }
        TypeKind::UnrankedMemRef { elem, .. } => format!("memref<*x{}>", type_text(elem)),
        TypeKind::Vector {
            shape,
            scalable,
            elem,
        } => {
            let mut s = "vector<".to_string();
            dims(shape, Some(scalable), &mut s);
            format!("{s}{}>", type_text(elem))
        }
        TypeKind::Complex(e) => format!("complex<{}>", type_text(e)),
        TypeKind::Tuple(ts) => format!("tuple<{}>", list(ts)),
        TypeKind::Function { inputs, results } => {
            if results.len() == 1 && !matches!((results[0]).kind(), TypeKind::Function { .. }) {
                format!("({}) -> {}", list(inputs), type_text(&results[0]))
            } else {
                format!("({}) -> ({})", list(inputs), list(results))
            }
        }
        TypeKind::Dialect { dialect, body } => format!("!{dialect}.{body}"),
    }
}

/// `'i32'`, quoted as MLIR quotes types in messages.
pub(crate) fn quoted_type(t: &Type) -> String {
    format!("'{}'", type_text(t))
}
