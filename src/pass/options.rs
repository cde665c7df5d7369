//! Pass option text: the [`PassOptionSpec`]s that `declare_pass!` generates for `--help` and
//! pipeline parsing, the option-string splitter, and value parsing with LLVM's error texts
//! (which the typed [`super::OptionType`] impls reuse). [`PassOptions`] is an untyped value
//! map over a spec list, for code that handles options generically; passes never use it
//! (their options are fields of their declared struct).
//!
//! Option strings follow MLIR's syntax: `key=value` pairs separated by spaces, a value may
//! be quoted (`"a b"`, `'a b'`) or braced (`{a b}`, braces stripped), lists are comma
//! separated (`sizes=1,2,3`), and a bare `key` sets a boolean option to true.

use std::fmt;

/// The type of an option's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    Bool,
    Int,
    Float,
    String,
    IntList,
    StringList,
}

impl OptionKind {
    /// The word shown in `--help` (`<bool>`, `<int>`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            OptionKind::Bool => "bool",
            OptionKind::Int => "int",
            OptionKind::Float => "number",
            OptionKind::String => "string",
            OptionKind::IntList => "int,...",
            OptionKind::StringList => "string,...",
        }
    }
}

/// One declared option of a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PassOptionSpec {
    /// The key, as written in `{key=value}` and `--pass="key=value"`.
    pub name: &'static str,
    pub kind: OptionKind,
    /// The default, in option-string syntax (`"false"`, `"8"`, `"1,2"`, `""`).
    pub default: &'static str,
    /// One line for `--help`.
    pub description: &'static str,
}

/// A parsed option value.
#[derive(Clone, Debug, PartialEq)]
pub enum OptionValue {
    Bool(bool),
    Int(i64),
    Float(f64),
    String(String),
    IntList(Vec<i64>),
    StringList(Vec<String>),
}

impl OptionValue {
    /// Parses `text` as a value of `kind`; the error text follows LLVM's `cl::opt`.
    pub fn parse(kind: OptionKind, text: &str) -> Result<OptionValue, String> {
        let t = text.trim();
        let int = |s: &str| -> Result<i64, String> {
            let s = s.trim();
            let parsed = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
                i64::from_str_radix(h, 16).ok()
            } else {
                s.parse::<i64>().ok()
            };
            parsed.ok_or_else(|| format!("'{s}' value invalid for integer argument!"))
        };
        Ok(match kind {
            OptionKind::Bool => match t {
                "" | "true" | "TRUE" | "True" | "1" => OptionValue::Bool(true),
                "false" | "FALSE" | "False" | "0" => OptionValue::Bool(false),
                _ => {
                    return Err(format!(
                        "'{t}' is invalid value for boolean argument! Try 0 or 1"
                    ));
                }
            },
            OptionKind::Int => OptionValue::Int(int(t)?),
            OptionKind::Float => OptionValue::Float(
                t.parse::<f64>()
                    .map_err(|_| format!("'{t}' value invalid for floating point argument!"))?,
            ),
            OptionKind::String => OptionValue::String(unquote(t).to_string()),
            OptionKind::IntList => OptionValue::IntList(
                split_list(t)
                    .into_iter()
                    .map(|e| int(unquote(e)))
                    .collect::<Result<_, _>>()?,
            ),
            OptionKind::StringList => OptionValue::StringList(
                split_list(t)
                    .into_iter()
                    .map(|e| unquote(e.trim()).to_string())
                    .collect(),
            ),
        })
    }
}

impl fmt::Display for OptionValue {
    /// Option-string syntax, so that a printed pipeline parses back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let quote = |s: &str| {
            if s.is_empty() || s.contains([' ', ',', '{', '}', '(', ')', '=', '"', '\'']) {
                format!("\"{s}\"")
            } else {
                s.to_string()
            }
        };
        match self {
            OptionValue::Bool(b) => write!(f, "{b}"),
            OptionValue::Int(i) => write!(f, "{i}"),
            OptionValue::Float(x) => write!(f, "{x}"),
            OptionValue::String(s) => write!(f, "{}", quote(s)),
            OptionValue::IntList(v) => {
                let parts: Vec<String> = v.iter().map(|i| i.to_string()).collect();
                write!(f, "{}", parts.join(","))
            }
            OptionValue::StringList(v) => {
                let parts: Vec<String> = v.iter().map(|s| quote(s)).collect();
                write!(f, "{}", parts.join(","))
            }
        }
    }
}

/// Strips one level of matching quotes or braces.
pub fn unquote(s: &str) -> &str {
    let b = s.as_bytes();
    if b.len() >= 2 {
        let (first, last) = (b[0], b[b.len() - 1]);
        if (first == b'"' && last == b'"')
            || (first == b'\'' && last == b'\'')
            || (first == b'{' && last == b'}')
        {
            return &s[1..s.len() - 1];
        }
    }
    s
}

/// Splits a list value on top-level commas (commas inside quotes or brackets stay).
pub fn split_list(s: &str) -> Vec<&str> {
    if s.trim().is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut quote: Option<u8> = None;
    let mut start = 0;
    for (i, &c) in s.as_bytes().iter().enumerate() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                b'"' | b'\'' => quote = Some(c),
                b'{' | b'(' | b'[' => depth += 1,
                b'}' | b')' | b']' => depth -= 1,
                b',' if depth == 0 => {
                    out.push(s[start..i].trim());
                    start = i + 1;
                }
                _ => {}
            },
        }
    }
    out.push(s[start..].trim());
    out
}

/// One `key[=value]` entry of an option string, with byte ranges into that string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionEntry {
    pub key: String,
    pub key_range: (usize, usize),
    /// The value with outer quotes/braces stripped; `None` for a bare key.
    pub value: Option<String>,
    pub value_range: (usize, usize),
}

/// Splits an option string into entries. Errors carry a byte range into `text`.
pub fn parse_option_string(text: &str) -> Result<Vec<OptionEntry>, (String, (usize, usize))> {
    let b = text.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        if b[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let ks = i;
        while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'=' {
            i += 1;
        }
        let key = &text[ks..i];
        if key.is_empty() {
            return Err(("expected an option name before '='".into(), (ks, ks + 1)));
        }
        let key_range = (ks, i);
        if i < b.len() && b[i] == b'=' {
            i += 1;
            let vs = i;
            let mut depth = 0i32;
            let mut quote: Option<u8> = None;
            while i < b.len() {
                let c = b[i];
                match quote {
                    Some(q) if c == q => quote = None,
                    Some(_) => {}
                    None => match c {
                        b'"' | b'\'' => quote = Some(c),
                        b'{' | b'(' | b'[' => depth += 1,
                        b'}' | b')' | b']' => depth -= 1,
                        c if c.is_ascii_whitespace() && depth <= 0 => break,
                        _ => {}
                    },
                }
                i += 1;
            }
            if let Some(q) = quote {
                return Err((
                    format!(
                        "missing closing {} in the value of option '{key}'",
                        q as char
                    ),
                    (vs, i),
                ));
            }
            if depth > 0 {
                return Err((
                    format!("unbalanced brackets in the value of option '{key}'"),
                    (vs, i),
                ));
            }
            out.push(OptionEntry {
                key: key.to_string(),
                key_range,
                value: Some(unquote(&text[vs..i]).to_string()),
                value_range: (vs, i),
            });
        } else {
            out.push(OptionEntry {
                key: key.to_string(),
                key_range,
                value: None,
                value_range: key_range,
            });
        }
    }
    Ok(out)
}

/// The parsed values of one pass's declared options.
#[derive(Clone, Debug)]
pub struct PassOptions {
    specs: &'static [PassOptionSpec],
    values: Vec<OptionValue>,
}

impl PassOptions {
    /// The defaults of `specs`. A default that does not parse (a bug in the pass, not
    /// user input) falls back to the kind's zero value.
    pub fn new(specs: &'static [PassOptionSpec]) -> PassOptions {
        let values = specs
            .iter()
            .map(|s| {
                OptionValue::parse(s.kind, s.default).unwrap_or(match s.kind {
                    OptionKind::Bool => OptionValue::Bool(false),
                    OptionKind::Int => OptionValue::Int(0),
                    OptionKind::Float => OptionValue::Float(0.0),
                    OptionKind::String => OptionValue::String(String::new()),
                    OptionKind::IntList => OptionValue::IntList(Vec::new()),
                    OptionKind::StringList => OptionValue::StringList(Vec::new()),
                })
            })
            .collect();
        PassOptions { specs, values }
    }
    /// The declared options.
    pub fn specs(&self) -> &'static [PassOptionSpec] {
        self.specs
    }
    /// Parses and stores `value` for option `key`.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let Some(i) = self.specs.iter().position(|s| s.name == key) else {
            return Err(format!("no such option {key}"));
        };
        self.values[i] = OptionValue::parse(self.specs[i].kind, value)?;
        Ok(())
    }
    /// The value of option `key`, if declared.
    pub fn get(&self, key: &str) -> Option<&OptionValue> {
        let i = self.specs.iter().position(|s| s.name == key)?;
        self.values.get(i)
    }
    /// A boolean option (false when undeclared or of another kind).
    pub fn get_bool(&self, key: &str) -> bool {
        matches!(self.get(key), Some(OptionValue::Bool(true)))
    }
    /// An integer option (0 when undeclared or of another kind).
    pub fn get_int(&self, key: &str) -> i64 {
        match self.get(key) {
            Some(OptionValue::Int(i)) => *i,
            _ => 0,
        }
    }
    /// A float option (0.0 when undeclared or of another kind).
    pub fn get_float(&self, key: &str) -> f64 {
        match self.get(key) {
            Some(OptionValue::Float(x)) => *x,
            Some(OptionValue::Int(i)) => *i as f64,
            _ => 0.0,
        }
    }
    /// A string option ("" when undeclared or of another kind).
    pub fn get_str(&self, key: &str) -> &str {
        match self.get(key) {
            Some(OptionValue::String(s)) => s,
            _ => "",
        }
    }
    /// An integer-list option (empty when undeclared or of another kind).
    pub fn get_int_list(&self, key: &str) -> &[i64] {
        match self.get(key) {
            Some(OptionValue::IntList(v)) => v,
            _ => &[],
        }
    }
    /// A string-list option (empty when undeclared or of another kind).
    pub fn get_string_list(&self, key: &str) -> &[String] {
        match self.get(key) {
            Some(OptionValue::StringList(v)) => v,
            _ => &[],
        }
    }
}

impl fmt::Display for PassOptions {
    /// `key=value key2=value2`, in declaration order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (s, v)) in self.specs.iter().zip(&self.values).enumerate() {
            if i > 0 {
                write!(f, " ")?;
            }
            write!(f, "{}={}", s.name, v)?;
        }
        Ok(())
    }
}
