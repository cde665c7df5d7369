//! Passes declared once, as MLIR's `Passes.td`: [`declare_pass!`](crate::declare_pass)
//! turns one declaration (flag, display name, summary, description, anchor, a typed options
//! struct, statistics) into a [`PassDecl`] and a [`PassDeclaration`] impl. From these come
//! `--help` ([`super::PassRegistry::help_text`]), option parsing in pipelines and pass
//! flags (with the error texts of LLVM's `cl::opt`), defaults, and mlir-opt's printing of
//! a pass with its options (`--dump-pass-pipeline`).

use super::options::{OptionKind, OptionValue, PassOptionSpec};

/// A Rust type usable as a pass option: how it is written in option strings.
pub trait OptionType: Sized {
    /// The kind shown in `--help` (`<int>`, `<bool>`, ...).
    const KIND: OptionKind;
    /// Parses option text; the error follows LLVM's `cl::opt` wording.
    fn parse_option(text: &str) -> Result<Self, String>;
    /// The value as mlir-opt prints it in a pipeline; `None` prints nothing (an empty
    /// list, as LLVM's `ListOption`).
    fn print_option(&self) -> Option<String>;
}

impl OptionType for bool {
    const KIND: OptionKind = OptionKind::Bool;
    fn parse_option(text: &str) -> Result<Self, String> {
        match OptionValue::parse(OptionKind::Bool, text)? {
            OptionValue::Bool(b) => Ok(b),
            _ => Err(format!(
                "'{text}' is invalid value for boolean argument! Try 0 or 1"
            )),
        }
    }
    fn print_option(&self) -> Option<String> {
        Some(self.to_string())
    }
}

impl OptionType for i64 {
    const KIND: OptionKind = OptionKind::Int;
    fn parse_option(text: &str) -> Result<Self, String> {
        match OptionValue::parse(OptionKind::Int, text)? {
            OptionValue::Int(i) => Ok(i),
            _ => Err(format!("'{text}' value invalid for integer argument!")),
        }
    }
    fn print_option(&self) -> Option<String> {
        Some(self.to_string())
    }
}

impl OptionType for f64 {
    const KIND: OptionKind = OptionKind::Float;
    fn parse_option(text: &str) -> Result<Self, String> {
        match OptionValue::parse(OptionKind::Float, text)? {
            OptionValue::Float(x) => Ok(x),
            _ => Err(format!(
                "'{text}' value invalid for floating point argument!"
            )),
        }
    }
    /// LLVM's `raw_ostream << double`: C's `%e` (`2.000000e-01`).
    fn print_option(&self) -> Option<String> {
        if !self.is_finite() {
            return Some(self.to_string());
        }
        let s = format!("{self:.6e}");
        let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let (sign, digits) = match exp.strip_prefix('-') {
            Some(d) => ('-', d),
            None => ('+', exp),
        };
        Some(format!("{mantissa}e{sign}{digits:0>2}"))
    }
}

impl OptionType for String {
    const KIND: OptionKind = OptionKind::String;
    fn parse_option(text: &str) -> Result<Self, String> {
        match OptionValue::parse(OptionKind::String, text)? {
            OptionValue::String(s) => Ok(s),
            _ => Ok(text.to_string()),
        }
    }
    fn print_option(&self) -> Option<String> {
        Some(mlir_string(self))
    }
}

impl OptionType for Vec<i64> {
    const KIND: OptionKind = OptionKind::IntList;
    fn parse_option(text: &str) -> Result<Self, String> {
        match OptionValue::parse(OptionKind::IntList, text)? {
            OptionValue::IntList(v) => Ok(v),
            _ => Err(format!("'{text}' value invalid for integer argument!")),
        }
    }
    fn print_option(&self) -> Option<String> {
        (!self.is_empty()).then(|| OptionValue::IntList(self.clone()).to_string())
    }
}

impl OptionType for Vec<String> {
    const KIND: OptionKind = OptionKind::StringList;
    fn parse_option(text: &str) -> Result<Self, String> {
        match OptionValue::parse(OptionKind::StringList, text)? {
            OptionValue::StringList(v) => Ok(v),
            _ => Ok(vec![text.to_string()]),
        }
    }
    fn print_option(&self) -> Option<String> {
        let parts: Vec<String> = self.iter().map(|s| mlir_string(s)).collect();
        (!self.is_empty()).then(|| parts.join(","))
    }
}

/// A string option as mlir-opt prints it: as is, or in braces when it holds whitespace
/// (`label={a b}`) unless it is already bracketed or quoted text; empty prints nothing.
fn mlir_string(s: &str) -> String {
    if s.contains(char::is_whitespace) && !s.contains(['{', '"', '\'']) {
        format!("{{{s}}}")
    } else {
        s.to_string()
    }
}

/// A declared pass statistic (MLIR's `Pass::Statistic`): its name and description. The
/// value lives in [`super::PassStatistics`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StatisticDecl {
    pub name: &'static str,
    pub description: &'static str,
}

/// Everything declared about a pass, in one static.
#[derive(Clone, Copy, Debug)]
pub struct PassDecl {
    /// The flag name (`construct-rtile`).
    pub flag: &'static str,
    /// The name in IR dumps, timing and statistics (`ConstructRTile`, MLIR's class name).
    pub display_name: &'static str,
    /// One line for `--help`.
    pub summary: &'static str,
    /// Longer documentation (may be empty).
    pub description: &'static str,
    /// The op the pass runs on; `None` = any op.
    pub anchor: Option<&'static str>,
    pub options: &'static [PassOptionSpec],
    pub statistics: &'static [StatisticDecl],
}

/// What [`declare_pass!`](crate::declare_pass) generates for a pass type: its declaration,
/// typed option setting and mlir-opt-style option printing. [`super::Pass`] requires it.
pub trait PassDeclaration {
    /// The static declaration.
    fn decl(&self) -> &'static PassDecl;
    /// Parses `value` into option `key`'s field (an error message on a bad value).
    fn set_option(&mut self, key: &str, value: &str) -> Result<(), String>;
    /// `(name, value)` of every option as mlir-opt prints it in a pipeline, in
    /// declaration order; `None` for an option that prints nothing (an empty list).
    fn option_texts(&self) -> Vec<(&'static str, Option<String>)>;

    /// The flag name, e.g. `symbol-dce`.
    fn name(&self) -> &'static str {
        self.decl().flag
    }
    /// The name MLIR shows in IR dumps, statistics and timing (`SymbolDCE`).
    fn display_name(&self) -> &'static str {
        self.decl().display_name
    }
    /// One line for `--help` (the declared summary).
    fn summary(&self) -> &'static str {
        self.decl().summary
    }
    /// The declared options.
    fn options(&self) -> &'static [PassOptionSpec] {
        self.decl().options
    }
    /// The op name this pass runs on; `None` = any op.
    fn anchor(&self) -> Option<&'static str> {
        self.decl().anchor
    }
    /// The pass as mlir-opt's `--dump-pass-pipeline` prints it: `flag` alone without
    /// options, else `flag{a=1 b=x}` with every option, sorted by name (LLVM's
    /// `PassOptions::print`).
    fn textual_form(&self) -> String {
        let mut opts = self.option_texts();
        if opts.is_empty() {
            return self.name().to_string();
        }
        opts.sort_by_key(|(k, _)| *k);
        let parts: Vec<String> = opts
            .into_iter()
            .map(|(k, v)| v.map(|v| format!("{k}={v}")).unwrap_or_default())
            .collect();
        format!("{}{{{}}}", self.name(), parts.join(" "))
    }
}

/// Declares a pass: its [`PassDecl`], a typed options struct with `Default` (the declared
/// defaults), and the [`PassDeclaration`] impl that parses into and prints from it.
/// Statistics become associated [`StatisticDecl`] constants of the pass type.
///
/// ```
/// use rtile::diagnostics::Diagnostic;
/// use rtile::ir::{Context, OpId};
/// use rtile::pass::{Pass, PassDeclaration, PassStatistics};
///
/// #[derive(Default)]
/// pub struct CountOps { opts: CountOpsOptions }
/// rtile::declare_pass! {
///     pass CountOps {
///         flag: "count-ops", display_name: "CountOps",
///         summary: "Count the ops of one name", description: "",
///         options(opts: CountOpsOptions) {
///             /// the op name to count
///             name: String = "func.func", "op-name";
///         }
///         statistics { FOUND: "found", "Ops of that name"; }
///     }
/// }
/// impl Pass for CountOps {
///     fn run(&mut self, ctx: &mut Context, op: OpId, stats: &mut PassStatistics) -> Result<(), Diagnostic> {
///         let n = ctx.collect_ops(op).into_iter().filter(|&o| ctx.op_name(o) == self.opts.name).count();
///         stats.add(Self::FOUND, n as u64);
///         Ok(())
///     }
/// }
///
/// let mut p = CountOps::default();
/// p.set_option("op-name", "test.op").unwrap();
/// assert_eq!(p.opts.name, "test.op");
/// assert_eq!(p.textual_form(), "count-ops{op-name=test.op}");
/// assert_eq!(p.options()[0].default, "func.func");
/// ```
///
/// The pass type (declared by the caller, with a field `opts` of the options struct)
/// then implements only [`super::Pass::run`]. A default is option text, as in MLIR's
/// tablegen (`"10"`, `"1,2"`, `""`); `check = f` names a `fn(&T) -> Result<(), String>`
/// run after parsing. `anchor: "op.name",` may follow `description`.
#[macro_export]
macro_rules! declare_pass {
    (
        pass $pass:ident {
            flag: $flag:literal,
            display_name: $display:literal,
            summary: $summary:literal,
            description: $desc:literal,
            $(anchor: $anchor:literal,)?
            $(options($field:ident : $opts:ident) {
                $(
                    $(#[doc = $fdoc:literal])+
                    $fname:ident : $fty:ty = $fdefault:literal, $fflag:literal
                        $(, check = $check:path)? ;
                )*
            })?
            $(statistics {
                $( $sconst:ident : $sname:literal, $sdesc:literal ; )*
            })?
        }
    ) => {
        $(
            #[doc = concat!("The options of `--", $flag, "` (declared with `declare_pass!`).")]
            #[derive(Clone, Debug, PartialEq)]
            pub struct $opts {
                $(
                    $(#[doc = $fdoc])+
                    pub $fname: $fty,
                )*
            }

            impl ::std::default::Default for $opts {
                fn default() -> Self {
                    $opts {
                        $(
                            // A default that does not parse is a bug in the declaration;
                            // `every_declared_default_parses` tests catch it.
                            $fname: <$fty as $crate::pass::OptionType>::parse_option($fdefault)
                                .unwrap_or_default(),
                        )*
                    }
                }
            }

            impl $opts {
                /// The option specs, in declaration order.
                pub const SPECS: &'static [$crate::pass::PassOptionSpec] = &[
                    $(
                        $crate::pass::PassOptionSpec {
                            name: $fflag,
                            kind: <$fty as $crate::pass::OptionType>::KIND,
                            default: $fdefault,
                            description: concat!($($fdoc),+).trim_ascii(),
                        },
                    )*
                ];

                /// Parses `value` into option `key`'s field, then runs its check.
                pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
                    match key {
                        $(
                            $fflag => {
                                let v = <$fty as $crate::pass::OptionType>::parse_option(value)?;
                                $( $check(&v)?; )?
                                self.$fname = v;
                                Ok(())
                            }
                        )*
                        _ => Err(format!("no such option {key}")),
                    }
                }

                /// `(flag, printed value)` per option, in declaration order.
                pub fn texts(&self) -> Vec<(&'static str, Option<String>)> {
                    vec![
                        $(
                            ($fflag, $crate::pass::OptionType::print_option(&self.$fname)),
                        )*
                    ]
                }
            }
        )?

        impl $pass {
            $($(
                #[doc = concat!("Statistic `", $sname, "`: ", $sdesc, ".")]
                pub const $sconst: $crate::pass::StatisticDecl =
                    $crate::pass::StatisticDecl { name: $sname, description: $sdesc };
            )*)?

            /// Parses `value` into option `key` (also `PassDeclaration::set_option`, here
            /// so that callers need not import the trait).
            #[allow(unused_variables)]
            pub fn set_option(&mut self, key: &str, value: &str) -> Result<(), String> {
                $( return self.$field.set(key, value); )?
                #[allow(unreachable_code)]
                Err(format!("no such option {key}"))
            }

            /// The pass's declaration.
            pub const DECL: $crate::pass::PassDecl = $crate::pass::PassDecl {
                flag: $flag,
                display_name: $display,
                summary: $summary,
                description: $desc,
                anchor: $crate::declare_pass!(@anchor $($anchor)?),
                options: $crate::declare_pass!(@specs $($opts)?),
                statistics: &[$($( $pass::$sconst, )*)?],
            };
        }

        impl $crate::pass::PassDeclaration for $pass {
            fn decl(&self) -> &'static $crate::pass::PassDecl {
                static DECL: $crate::pass::PassDecl = $pass::DECL;
                &DECL
            }
            fn set_option(&mut self, key: &str, value: &str) -> Result<(), String> {
                $pass::set_option(self, key, value)
            }
            fn option_texts(&self) -> Vec<(&'static str, Option<String>)> {
                $( return self.$field.texts(); )?
                #[allow(unreachable_code)]
                Vec::new()
            }
        }
    };
    (@anchor $a:literal) => { Some($a) };
    (@anchor) => { None };
    (@specs $o:ident) => { $o::SPECS };
    (@specs) => { &[] };
}
