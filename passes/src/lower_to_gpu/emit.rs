//! A small writer of upstream generic-form MLIR text: numbered SSA values, constants hoisted
//! to the kernel's entry block (so they dominate every use), and structured `scf.for` /
//! `scf.if` regions opened and closed in order.
//!
//! The writer value-numbers what it emits: a pure op (`arith`, `math`, `gpu.thread_id`,
//! `gpu.block_id`, `vector.extract`/`broadcast`/`insert`) with the same name, operands, properties and result type as one already
//! written in an enclosing region is not written again, and neither is a load
//! (`memref.load`, `vector.load`) repeated within one straight-line stretch of a region with
//! no store, barrier or region boundary in between. The unrolled register tile relies on it
//! (Roller §4 "code generation", the register layer): the points of a thread tile that share
//! a row of A or a column of B read it from shared memory once per reduction index.

use std::collections::HashMap;
use std::fmt::Write;

use rtile_dialects::arith::CmpIPredicate;

/// The text of an f64 constant as an MLIR float literal of type `ty` (non-finite values as
/// the hex bit pattern MLIR prints).
pub fn float_literal(v: f64, ty: &str) -> String {
    if v.is_finite() {
        return format!("{v:.17e}");
    }
    let bits: u64 = match ty {
        "f64" => v.to_bits(),
        "f16" => match () {
            _ if v.is_nan() => 0x7e00,
            _ if v > 0.0 => 0x7c00,
            _ => 0xfc00,
        },
        "bf16" => (((v as f32).to_bits()) >> 16) as u64,
        _ => (v as f32).to_bits() as u64,
    };
    let width = match ty {
        "f64" => 16,
        "f16" | "bf16" => 4,
        _ => 8,
    };
    format!("0x{bits:0width$X}")
}

/// A value and its type.
pub type Typed = (String, String);

/// The writer.
#[derive(Default)]
pub struct Emitter {
    consts: String,
    body: String,
    cache: HashMap<(String, String), String>,
    /// Pure ops written so far, visible where their region still encloses the cursor: the
    /// op's text without its result → the result. `scopes` lists the keys each open region
    /// added (index 0: the kernel's body), so closing a region forgets them.
    pure: HashMap<String, String>,
    scopes: Vec<Vec<String>>,
    /// Loads since the last store, barrier or region boundary.
    loads: HashMap<String, String>,
    next: usize,
    indent: usize,
    /// Footers of the regions being written: (text after the region, results).
    open: Vec<String>,
}

impl Emitter {
    /// A fresh value name.
    pub fn fresh(&mut self) -> String {
        self.next += 1;
        format!("%v{}", self.next)
    }

    /// Writes one line of the body.
    pub fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.body.push_str("  ");
        }
        self.body.push_str(s);
        self.body.push('\n');
    }

    /// An `arith.constant` (hoisted, deduplicated).
    pub fn constant(&mut self, text: &str, ty: &str) -> String {
        if let Some(v) = self.cache.get(&(text.to_string(), ty.to_string())) {
            return v.clone();
        }
        let v = self.fresh();
        let _ = writeln!(
            self.consts,
            "{v} = \"arith.constant\"() <{{value = {text} : {ty}}}> : () -> {ty}"
        );
        self.cache.insert((text.into(), ty.into()), v.clone());
        v
    }

    /// An index constant.
    pub fn idx(&mut self, v: i64) -> String {
        self.constant(&v.to_string(), "index")
    }

    /// A float constant.
    pub fn float(&mut self, v: f64, ty: &str) -> String {
        let t = float_literal(v, ty);
        self.constant(&t, ty)
    }

    /// A one-result op: `%r = "name"(args) <{props}> : (types) -> res`; a pure op or load
    /// already available here (see the module doc) returns the earlier result instead.
    pub fn op(&mut self, name: &str, args: &[Typed], props: &str, res: &str) -> String {
        let text = Self::generic(name, args, props, &[res]);
        let pure = Self::is_pure(name);
        let load = matches!(name, "memref.load" | "vector.load");
        if pure && let Some(v) = self.pure.get(&text) {
            return v.clone();
        }
        if load && let Some(v) = self.loads.get(&text) {
            return v.clone();
        }
        let r = self.fresh();
        self.line(&format!("{r} = {text}"));
        if pure {
            if self.scopes.is_empty() {
                self.scopes.push(Vec::new());
            }
            if let Some(s) = self.scopes.last_mut() {
                s.push(text.clone());
            }
            self.pure.insert(text, r.clone());
        } else if load {
            self.loads.insert(text, r.clone());
        } else {
            self.loads.clear();
        }
        r
    }

    /// Ops without side effects whose result depends only on their operands.
    fn is_pure(name: &str) -> bool {
        name.starts_with("arith.")
            || name.starts_with("math.")
            || matches!(
                name,
                "gpu.thread_id"
                    | "gpu.block_id"
                    | "vector.extract"
                    | "vector.broadcast"
                    | "vector.insert"
            )
    }

    /// A zero-result op (a store or barrier: loads written before it are not reused).
    pub fn op0(&mut self, name: &str, args: &[Typed], props: &str) {
        let line = Self::generic(name, args, props, &[]);
        self.line(&line);
        self.loads.clear();
    }

    /// A region opens: what is written inside may be forgotten when it closes, and loads
    /// from before it are not reused inside (a loop body may run after its own stores).
    fn open_scope(&mut self) {
        if self.scopes.is_empty() {
            self.scopes.push(Vec::new());
        }
        self.scopes.push(Vec::new());
        self.loads.clear();
    }

    /// The innermost region closes: its values no longer dominate what follows.
    fn close_scope(&mut self) {
        if self.scopes.len() > 1
            && let Some(keys) = self.scopes.pop()
        {
            for k in keys {
                self.pure.remove(&k);
            }
        }
        self.loads.clear();
    }

    fn generic(name: &str, args: &[Typed], props: &str, res: &[&str]) -> String {
        let names: Vec<&str> = args.iter().map(|a| a.0.as_str()).collect();
        let tys: Vec<&str> = args.iter().map(|a| a.1.as_str()).collect();
        let props = if props.is_empty() {
            String::new()
        } else {
            format!(" <{{{props}}}>")
        };
        let res = match res {
            [one] => one.to_string(),
            _ => format!("({})", res.join(", ")),
        };
        format!(
            "\"{name}\"({}){props} : ({}) -> {res}",
            names.join(", "),
            tys.join(", ")
        )
    }

    /// Index arithmetic: `arith.addi` etc. on two index values (`x - 0` folds to `x`).
    pub fn ibin(&mut self, name: &str, a: &str, b: &str) -> String {
        if name == "arith.subi" && b == self.idx(0) {
            return a.into();
        }
        self.op(
            name,
            &[(a.into(), "index".into()), (b.into(), "index".into())],
            "",
            "index",
        )
    }

    /// `a + b` on index values, folding zero constants away.
    pub fn add(&mut self, a: &str, b: &str) -> String {
        let zero = self.idx(0);
        if a == zero {
            return b.into();
        }
        if b == zero {
            return a.into();
        }
        self.ibin("arith.addi", a, b)
    }

    /// `a * c` for a constant `c`, folding 0 and 1.
    pub fn mul_const(&mut self, a: &str, c: i64) -> String {
        if a == self.idx(0) {
            return a.into();
        }
        match c {
            0 => self.idx(0),
            1 => a.into(),
            _ => {
                let k = self.idx(c);
                self.ibin("arith.muli", a, &k)
            }
        }
    }

    /// `arith.cmpi` of two index values.
    pub fn cmp(&mut self, pred: CmpIPredicate, a: &str, b: &str) -> String {
        self.op(
            "arith.cmpi",
            &[(a.into(), "index".into()), (b.into(), "index".into())],
            &format!("predicate = {} : i64", pred.value()),
            "i1",
        )
    }

    /// `a && b` on i1 (`None` = true).
    pub fn and(&mut self, a: Option<String>, b: String) -> Option<String> {
        Some(match a {
            None => b,
            Some(a) => self.op(
                "arith.andi",
                &[(a, "i1".into()), (b, "i1".into())],
                "",
                "i1",
            ),
        })
    }

    /// Opens `scf.for %iv = lb to ub step s iter_args(inits)`; returns `(iv, region args,
    /// results)`. Close with [`Self::end_for`].
    pub fn begin_for(
        &mut self,
        lb: &str,
        ub: &str,
        step: &str,
        inits: &[Typed],
    ) -> (String, Vec<String>, Vec<String>) {
        let r = self.fresh();
        let results: Vec<String> = match inits.len() {
            0 => vec![],
            1 => vec![r.clone()],
            n => (0..n).map(|i| format!("{r}#{i}")).collect(),
        };
        let lhs = match inits.len() {
            0 => String::new(),
            1 => format!("{r} = "),
            n => format!("{r}:{n} = "),
        };
        let mut ops = vec![lb.to_string(), ub.to_string(), step.to_string()];
        ops.extend(inits.iter().map(|i| i.0.clone()));
        self.line(&format!("{lhs}\"scf.for\"({}) ({{", ops.join(", ")));
        let iv = self.fresh();
        let args: Vec<String> = inits.iter().map(|_| self.fresh()).collect();
        let mut params = vec![format!("{iv}: index")];
        params.extend(args.iter().zip(inits).map(|(a, i)| format!("{a}: {}", i.1)));
        self.indent += 1;
        self.open_scope();
        self.line(&format!("^bb0({}):", params.join(", ")));
        let tys: Vec<&str> = inits.iter().map(|i| i.1.as_str()).collect();
        let mut sig = vec!["index", "index", "index"];
        sig.extend(tys.iter().copied());
        let res = match tys.len() {
            1 => tys[0].to_string(),
            _ => format!("({})", tys.join(", ")),
        };
        self.open
            .push(format!("}}) : ({}) -> {res}", sig.join(", ")));
        (iv, args, results)
    }

    /// Closes the innermost `scf.for`, yielding `yields`.
    pub fn end_for(&mut self, yields: &[Typed]) {
        self.yield_(yields);
        self.close_scope();
        self.indent -= 1;
        let f = self.open.pop().unwrap_or_default();
        self.line(&f);
    }

    fn yield_(&mut self, yields: &[Typed]) {
        let l = Self::generic("scf.yield", yields, "", &[]);
        self.line(&l);
    }

    /// Opens `scf.if %cond` with result types `res`; returns the results. Write the then
    /// region, call [`Self::else_`] with its yields, write the else region, then
    /// [`Self::end_if`].
    pub fn begin_if(&mut self, cond: &str, res: &[&str]) -> Vec<String> {
        let r = self.fresh();
        let (lhs, results) = match res.len() {
            0 => (String::new(), vec![]),
            1 => (format!("{r} = "), vec![r.clone()]),
            n => (
                format!("{r}:{n} = "),
                (0..n).map(|i| format!("{r}#{i}")).collect(),
            ),
        };
        self.line(&format!("{lhs}\"scf.if\"({cond}) ({{"));
        self.indent += 1;
        self.open_scope();
        let rt = match res.len() {
            1 => res[0].to_string(),
            _ => format!("({})", res.join(", ")),
        };
        self.open.push(format!("}}) : (i1) -> {rt}"));
        results
    }

    /// Ends the then region (yielding `yields`) and opens the else region.
    pub fn else_(&mut self, yields: &[Typed]) {
        self.yield_(yields);
        self.close_scope();
        self.indent -= 1;
        self.line("}, {");
        self.indent += 1;
        self.open_scope();
    }

    /// Ends an `scf.if` (the else region yields `yields`; with no results and an empty
    /// else region pass `None`).
    pub fn end_if(&mut self, yields: Option<&[Typed]>) {
        if let Some(y) = yields {
            self.yield_(y);
        }
        self.close_scope();
        self.indent -= 1;
        let f = self.open.pop().unwrap_or_default();
        self.line(&f);
    }

    /// `scf.if %cond { ... }` with no results and no else: call then [`Self::end_then`].
    pub fn begin_then(&mut self, cond: &str) {
        self.begin_if(cond, &[]);
    }

    /// Closes [`Self::begin_then`].
    pub fn end_then(&mut self) {
        self.yield_(&[]);
        self.close_scope();
        self.indent -= 1;
        self.line("}, {");
        let f = self.open.pop().unwrap_or_default();
        self.line(&f);
    }

    /// Sets the indentation of the body (the kernel's nesting depth).
    pub fn set_indent(&mut self, n: usize) {
        self.indent = n;
    }

    /// Hoisted constants followed by the body.
    pub fn finish(self, const_indent: usize) -> String {
        let pad = "  ".repeat(const_indent);
        let mut s = String::new();
        for l in self.consts.lines() {
            s.push_str(&pad);
            s.push_str(l);
            s.push('\n');
        }
        s.push_str(&self.body);
        s
    }
}
