//! Printing the `{-# ... #-}` resource section after the top-level op, as mlir-opt does.

use super::format::escaped_string;
use crate::ir::{FileResources, ResourceValue};

/// Appends `s` bare when it is an MLIR bare identifier, else as an escaped string
/// (MLIR's `printKeywordOrString`).
pub(crate) fn keyword_or_string(out: &mut String, s: &str) {
    let mut chars = s.chars();
    let bare = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || "_$.".contains(c));
    if bare {
        out.push_str(s);
    } else {
        escaped_string(out, s);
    }
}

fn value(out: &mut String, v: &ResourceValue) {
    match v {
        ResourceValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        // A blob prints its bytes in upper-case hex.
        ResourceValue::String(s)
            if s.len() > 2
                && s.starts_with("0x")
                && s[2..].bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            out.push_str("\"0x");
            out.push_str(&s[2..].to_ascii_uppercase());
            out.push('"');
        }
        ResourceValue::String(s) => escaped_string(out, s),
    }
}

/// One `owner: { key: value, ... }` group at two levels of indentation.
fn group(out: &mut String, owner: &str, entries: &[(&str, &ResourceValue)], last: bool) {
    out.push_str("    ");
    keyword_or_string(out, owner);
    out.push_str(": {\n");
    for (i, (k, v)) in entries.iter().enumerate() {
        out.push_str("      ");
        keyword_or_string(out, k);
        out.push_str(": ");
        value(out, v);
        out.push_str(if i + 1 < entries.len() { ",\n" } else { "\n" });
    }
    out.push_str(if last { "    }\n" } else { "    },\n" });
}

/// Appends the resource section, if there is anything to print: builtin blobs that a
/// printed `dense_resource` names (in the order `used` lists them), other dialects'
/// entries and external entries as read.
pub(crate) fn write_resources(out: &mut String, res: &FileResources, used: &[String]) {
    let builtin: Vec<(&str, &ResourceValue)> = used
        .iter()
        .filter_map(|k| res.builtin_blob(k).map(|v| (k.as_str(), v)))
        .collect();
    let mut dialect: Vec<(&str, Vec<(&str, &ResourceValue)>)> = Vec::new();
    if !builtin.is_empty() {
        dialect.push(("builtin", builtin));
    }
    for g in res.dialect.iter().filter(|g| g.owner != "builtin") {
        dialect.push((
            &g.owner,
            g.entries.iter().map(|(k, v)| (k.as_str(), v)).collect(),
        ));
    }
    let external: Vec<(&str, Vec<(&str, &ResourceValue)>)> = res
        .external
        .iter()
        .map(|g| {
            (
                g.owner.as_str(),
                g.entries.iter().map(|(k, v)| (k.as_str(), v)).collect(),
            )
        })
        .collect();
    if dialect.is_empty() && external.is_empty() {
        return;
    }
    out.push_str("\n{-#\n");
    let sections = [
        ("dialect_resources", dialect),
        ("external_resources", external),
    ];
    let present: Vec<_> = sections.iter().filter(|(_, g)| !g.is_empty()).collect();
    for (si, (name, groups)) in present.iter().enumerate() {
        out.push_str("  ");
        out.push_str(name);
        out.push_str(": {\n");
        for (gi, (owner, entries)) in groups.iter().enumerate() {
            group(out, owner, entries, gi + 1 == groups.len());
        }
        out.push_str(if si + 1 < present.len() {
            "  },\n"
        } else {
            "  }\n"
        });
    }
    out.push_str("#-}\n");
}
