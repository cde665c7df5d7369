//! Text of types, attributes, affine maps and locations, as MLIR's AsmPrinter writes
//! them (mlir/lib/IR/AsmPrinter.cpp). Everything appends to a `String`: these run for
//! every operand type of every op, so they avoid intermediate allocations.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::ir::{
    AffineExpr, AffineMap, AttrKind, Attribute, DYNAMIC, DenseArray, DenseLiteral, FloatFormat,
    FloatKind, IntegerSet, Location, NamedAttribute, Signedness, TextAlias, Type, TypeKind,
};

/// Attribute aliases (`#map`, `#set1`), numbered in first-use order as MLIR's
/// AliasInitializer does.
#[derive(Default, Debug)]
pub(crate) struct Aliases {
    pub maps: HashMap<AffineMap, usize>,
    pub sets: HashMap<IntegerSet, usize>,
    /// Definitions in order: `(alias name, printed attribute)`.
    pub order: Vec<AliasDef>,
    /// Op locations (debug info): alias number, once [`Aliases::finish_locations`] ran.
    pub locs: HashMap<Location, usize>,
    /// Locations in first-visit order: (location, alias depth, visit number,
    /// deferrable). Op locations are deferred (defined after the op); block argument
    /// locations are not (defined at the top, though printed inline).
    loc_list: Vec<(Location, u32, usize, bool)>,
    /// Visit numbers of `order`'s entries.
    order_seq: Vec<usize>,
    /// Counts first visits of every aliasable attribute, for MLIR's ordering.
    seq: usize,
    /// Indices into `loc_list` by alias number.
    loc_sorted: Vec<usize>,
    /// Aliases named inside dialect attribute or type text, defined again as written.
    pub text: Vec<TextAlias>,
    /// Handles of printed `dense_resource` attributes, in first-visit order.
    pub resources_used: Vec<String>,
    /// Aliased `distinct` attributes (those with a non-unit value), by alias number.
    distincts: HashMap<Attribute, usize>,
    /// Alias depth of each aliased `distinct` attribute: one more than the deepest alias its
    /// value names (0 when none), so that it is defined after them, as MLIR orders aliases.
    distinct_depth: HashMap<Attribute, u32>,
    /// Input ID of a `distinct` attribute -> printed ID, in print order (alias
    /// definitions first: they are numbered before the op is printed).
    distinct_ids: std::cell::RefCell<HashMap<u64, u64>>,
}

/// An entry of the alias list printed before the op.
#[derive(Clone, Copy)]
enum AliasRef {
    /// Index into `Aliases::order`.
    Attr(usize),
    /// Index into `Aliases::loc_list`.
    Loc(usize),
    /// Index into `Aliases::text`.
    Text(usize),
}

/// One aliased attribute.
#[derive(Debug)]
pub(crate) enum AliasDef {
    Map(AffineMap),
    Set(IntegerSet),
    Distinct(Attribute),
}

fn alias_name(out: &mut String, prefix: &str, n: usize) {
    out.push('#');
    out.push_str(prefix);
    if n > 0 {
        push_u64(out, n as u64);
    }
}

impl Aliases {
    /// Records `m` if it is not known yet.
    pub fn visit_map(&mut self, m: &AffineMap) {
        if !self.maps.contains_key(m) {
            self.maps.insert(m.clone(), self.maps.len());
            self.order.push(AliasDef::Map(m.clone()));
            self.order_seq.push(self.seq);
            self.seq += 1;
        }
    }
    /// Records a location and the locations printed inside it (children first, as
    /// MLIR's AliasInitializer walks them); returns its alias depth.
    pub fn visit_location(&mut self, l: &Location, deferrable: bool) -> u32 {
        if let Some(&i) = self.locs.get(l) {
            if !deferrable && self.loc_list[i].3 {
                // Now needed before the op: so are the locations inside it.
                self.loc_list[i].3 = false;
                self.visit_children(l, false);
            }
            return self.loc_list[i].1;
        }
        let depth = self.visit_children(l, deferrable).map_or(0, |d| d + 1);
        self.locs.insert(l.clone(), self.loc_list.len());
        self.loc_list.push((l.clone(), depth, self.seq, deferrable));
        self.seq += 1;
        depth
    }
    fn visit_children(&mut self, l: &Location, deferrable: bool) -> Option<u32> {
        match l {
            Location::Unknown | Location::FileLineCol { .. } => None,
            Location::Name { child, .. } => match child {
                Some(c) if **c != Location::Unknown => Some(self.visit_location(c, deferrable)),
                _ => None,
            },
            Location::CallSite { callee, caller } => {
                let a = self.visit_location(callee, deferrable);
                let b = self.visit_location(caller, deferrable);
                Some(a.max(b))
            }
            Location::Fused {
                locations,
                metadata,
            } => {
                // MLIR walks the metadata first; a location there is aliased too.
                let meta = match metadata.as_deref() {
                    Some(a) if let AttrKind::Location(m) = a.kind() => {
                        Some(self.visit_location(m, deferrable))
                    }
                    Some(a) => {
                        self.visit_attr(a);
                        None
                    }
                    None => None,
                };
                locations
                    .iter()
                    .map(|c| self.visit_location(c, deferrable))
                    .chain(meta)
                    .max()
            }
        }
    }
    /// Numbers the location aliases: by depth, then first visit (MLIR sorts aliases so
    /// that an alias is defined before the aliases that use it).
    pub fn finish_locations(&mut self) {
        let mut idx: Vec<usize> = (0..self.loc_list.len()).collect();
        idx.sort_by_key(|&i| self.loc_list[i].1);
        for (rank, &i) in idx.iter().enumerate() {
            if let Some(v) = self.locs.get_mut(&self.loc_list[i].0) {
                *v = rank;
            }
        }
        self.loc_sorted = idx;
    }
    fn loc_definition(&self, out: &mut String, l: &Location) {
        let f = Fmt {
            aliases: Some(self),
        };
        alias_name(out, "loc", self.locs.get(l).copied().unwrap_or(0));
        out.push_str(" = loc(");
        f.location_body(out, l);
        out.push_str(")\n");
    }
    /// The deferred location alias definitions (`#loc1 = loc(...)`), printed after the op.
    pub fn location_definitions(&self, out: &mut String) {
        for &i in &self.loc_sorted {
            let (l, _, _, deferred) = &self.loc_list[i];
            if *deferred {
                self.loc_definition(out, l);
            }
        }
    }
    fn text_definition(&self, out: &mut String, t: &TextAlias) {
        let f = Fmt {
            aliases: Some(self),
        };
        match t {
            TextAlias::Attr(name, a) => {
                out.push('#');
                out.push_str(name);
                out.push_str(" = ");
                f.attr(out, a, false);
            }
            TextAlias::Type(name, ty) => {
                out.push('!');
                out.push_str(name);
                out.push_str(" = ");
                f.ty(out, ty);
            }
        }
        out.push('\n');
    }
    /// Gives the generated aliases (`#mapN`, `#setN`, `#distinctN`, `#locN`) their numbers,
    /// in the order they had, around the names of text aliases: a text alias keeps the
    /// name it was read with, so a generated alias skips that name, unless the text alias
    /// stands for the very value the generated alias would define; then the two are one
    /// definition and the text one is dropped (else `#map = #map` would be printed,
    /// defining `#map` twice).
    pub fn number_around_text_aliases(&mut self) {
        let mut dropped = vec![false; self.text.len()];
        let maps: Vec<AffineMap> = self
            .order
            .iter()
            .filter_map(|d| match d {
                AliasDef::Map(m) => Some(m.clone()),
                _ => None,
            })
            .collect();
        let sets: Vec<IntegerSet> = self
            .order
            .iter()
            .filter_map(|d| match d {
                AliasDef::Set(s) => Some(s.clone()),
                _ => None,
            })
            .collect();
        let mut distincts: Vec<(Attribute, usize)> =
            self.distincts.iter().map(|(a, &n)| (*a, n)).collect();
        distincts.sort_by_key(|&(_, n)| n);
        let mut locs: Vec<(Location, usize)> =
            self.locs.iter().map(|(l, &n)| (l.clone(), n)).collect();
        locs.sort_by_key(|(_, n)| *n);
        let text = &self.text;
        let mut number = |prefix: &str, values: Vec<AttrKind>| -> Vec<usize> {
            let mut next = 0;
            let mut out = Vec::with_capacity(values.len());
            for value in values {
                loop {
                    let mut name = String::new();
                    alias_name(&mut name, prefix, next);
                    let clash = text
                        .iter()
                        .position(|t| matches!(t, TextAlias::Attr(n, _) if *n == name[1..]));
                    let Some(i) = clash else { break };
                    if matches!(&text[i], TextAlias::Attr(_, a) if *a.kind() == value) {
                        dropped[i] = true;
                        break;
                    }
                    next += 1;
                }
                out.push(next);
                next += 1;
            }
            out
        };
        let map_numbers = number(
            "map",
            maps.iter().cloned().map(AttrKind::AffineMap).collect(),
        );
        let set_numbers = number(
            "set",
            sets.iter().cloned().map(AttrKind::IntegerSet).collect(),
        );
        let distinct_numbers = number(
            "distinct",
            distincts.iter().map(|(a, _)| a.kind().clone()).collect(),
        );
        let loc_numbers = number(
            "loc",
            locs.iter()
                .map(|(l, _)| AttrKind::Location(l.clone()))
                .collect(),
        );
        self.maps.extend(maps.into_iter().zip(map_numbers));
        self.sets.extend(sets.into_iter().zip(set_numbers));
        for ((a, _), n) in distincts.into_iter().zip(distinct_numbers) {
            self.distincts.insert(a, n);
        }
        for ((l, _), n) in locs.into_iter().zip(loc_numbers) {
            self.locs.insert(l, n);
        }
        let mut keep = dropped.iter().map(|d| !d);
        self.text.retain(|_| keep.next().unwrap_or(true));
    }
    /// Records `s` if it is not known yet.
    pub fn visit_set(&mut self, s: &IntegerSet) {
        if !self.sets.contains_key(s) {
            self.sets.insert(s.clone(), self.sets.len());
            self.order.push(AliasDef::Set(s.clone()));
            self.order_seq.push(self.seq);
            self.seq += 1;
        }
    }
    /// Records every aliasable attribute nested in `t`.
    pub fn visit_type(&mut self, t: &Type) {
        match t.kind() {
            TypeKind::Tensor { elem, encoding, .. } => {
                self.visit_type(elem);
                if let Some(e) = encoding {
                    self.visit_attr(e);
                }
            }
            TypeKind::UnrankedTensor { elem }
            | TypeKind::Complex(elem)
            | TypeKind::Vector { elem, .. } => self.visit_type(elem),
            TypeKind::MemRef {
                elem,
                layout,
                memory_space,
                ..
            } => {
                self.visit_type(elem);
                if let Some(l) = layout
                    && !is_identity_layout(l)
                {
                    self.visit_attr(l);
                }
                if let Some(m) = memory_space {
                    self.visit_attr(m);
                }
            }
            TypeKind::UnrankedMemRef { elem, memory_space } => {
                self.visit_type(elem);
                if let Some(m) = memory_space {
                    self.visit_attr(m);
                }
            }
            TypeKind::Tuple(ts) => ts.iter().for_each(|t| self.visit_type(t)),
            TypeKind::Function { inputs, results } => {
                inputs.iter().for_each(|t| self.visit_type(t));
                results.iter().for_each(|t| self.visit_type(t));
            }
            _ => {}
        }
    }
    /// Records every aliasable attribute nested in `a` (itself included).
    pub fn visit_attr(&mut self, a: &Attribute) {
        match a.kind() {
            AttrKind::AffineMap(m) => self.visit_map(m),
            AttrKind::IntegerSet(s) => self.visit_set(s),
            AttrKind::Type(t) | AttrKind::DenseElements { ty: t, .. } => self.visit_type(t),
            AttrKind::Array(v) => v.iter().for_each(|a| self.visit_attr(a)),
            AttrKind::Dictionary(v) => v.iter().for_each(|n| self.visit_attr(&n.value)),
            AttrKind::String { ty: Some(t), .. } | AttrKind::Bytes { ty: Some(t), .. } => {
                self.visit_type(t)
            }
            // The builtin dialect aliases every location used as an attribute (`#loc`),
            // defined before the op.
            AttrKind::Location(l) => {
                self.visit_location(l, false);
            }
            AttrKind::Distinct { value, .. } if **value != AttrKind::Unit => {
                if !self.distincts.contains_key(a) {
                    self.distincts.insert(*a, self.distincts.len());
                    self.order.push(AliasDef::Distinct(*a));
                    self.order_seq.push(self.seq);
                    self.seq += 1;
                }
                self.visit_attr(value);
                let depth = self.alias_depth(value).map_or(0, |d| d + 1);
                self.distinct_depth.insert(*a, depth);
            }
            AttrKind::TypedDialect { ty, .. } | AttrKind::Sparse { ty, .. } => self.visit_type(ty),
            AttrKind::DenseResource { handle, ty } => {
                if !self.resources_used.contains(handle) {
                    self.resources_used.push(handle.clone());
                }
                self.visit_type(ty);
            }
            _ => {}
        }
    }
    /// The deepest alias depth among the aliases `a` names once visited (maps and sets 0,
    /// locations their depth, `distinct`s theirs); `None` when it names none.
    fn alias_depth(&self, a: &Attribute) -> Option<u32> {
        match a.kind() {
            AttrKind::AffineMap(_) | AttrKind::IntegerSet(_) => Some(0),
            AttrKind::Location(l) => self.locs.get(l).map(|&i| self.loc_list[i].1),
            AttrKind::Distinct { .. } => self.distinct_depth.get(a).copied(),
            AttrKind::Array(v) => v.iter().filter_map(|x| self.alias_depth(x)).max(),
            AttrKind::Dictionary(v) => v.iter().filter_map(|n| self.alias_depth(&n.value)).max(),
            _ => None,
        }
    }
    /// The alias definitions printed before the op, one line each
    /// (`#map = affine_map<...>`), ordered by depth then first visit.
    pub fn definitions(&self, out: &mut String) {
        // MLIR's order: by depth, type aliases first, then by alias name, then by first
        // visit. (depth, is attribute, name, visit number, what): maps and sets have
        // depth 0; text aliases come before everything visited.
        let mut top: Vec<(u32, bool, &str, usize, AliasRef)> = self
            .order_seq
            .iter()
            .enumerate()
            .map(|(i, &seq)| {
                let (name, depth) = match &self.order[i] {
                    AliasDef::Map(_) => ("map", 0),
                    AliasDef::Set(_) => ("set", 0),
                    AliasDef::Distinct(a) => {
                        ("distinct", self.distinct_depth.get(a).copied().unwrap_or(0))
                    }
                };
                (depth, true, name, seq, AliasRef::Attr(i))
            })
            .collect();
        for (i, e) in self.loc_list.iter().enumerate() {
            if !e.3 {
                top.push((e.1, true, "loc", e.2, AliasRef::Loc(i)));
            }
        }
        for (i, t) in self.text.iter().enumerate() {
            match t {
                // After the aliases its value prints with (`#id = #map3`), as MLIR orders them.
                TextAlias::Attr(name, a) => {
                    let depth = self.alias_depth(a).map_or(0, |d| d + 1);
                    top.push((depth, true, name, i, AliasRef::Text(i)))
                }
                TextAlias::Type(name, _) => top.push((0, false, name, i, AliasRef::Text(i))),
            }
        }
        top.sort_by(|a, b| (a.0, a.1, a.2, a.3).cmp(&(b.0, b.1, b.2, b.3)));
        for (_, _, _, _, what) in top {
            let i = match what {
                AliasRef::Attr(i) => i,
                AliasRef::Loc(i) => {
                    self.loc_definition(out, &self.loc_list[i].0);
                    continue;
                }
                AliasRef::Text(i) => {
                    self.text_definition(out, &self.text[i]);
                    continue;
                }
            };
            match &self.order[i] {
                AliasDef::Map(m) => {
                    alias_name(out, "map", self.maps[m]);
                    out.push_str(" = ");
                    write_affine_map_attr(out, m);
                    out.push('\n');
                }
                AliasDef::Set(s) => {
                    alias_name(out, "set", self.sets[s]);
                    out.push_str(" = ");
                    write_integer_set_attr(out, s);
                    out.push('\n');
                }
                AliasDef::Distinct(a) => {
                    alias_name(out, "distinct", self.distincts[a]);
                    out.push_str(" = ");
                    Fmt {
                        aliases: Some(self),
                    }
                    .distinct_body(out, a);
                    out.push('\n');
                }
            }
        }
    }
    /// Numbers the `distinct` attributes of the alias definitions, which are printed
    /// (at the top) before the op's own: definitions in order, each before what it holds.
    pub fn number_distincts(&self) {
        let mut defs: Vec<(&Attribute, usize)> =
            self.distincts.iter().map(|(a, &n)| (a, n)).collect();
        defs.sort_by_key(|&(_, n)| n);
        for (a, _) in defs {
            self.walk_distinct_ids(a, true);
        }
    }
    fn walk_distinct_ids(&self, a: &Attribute, top: bool) {
        match a.kind() {
            AttrKind::Distinct { id, value } => {
                if !top && self.distincts.contains_key(a) {
                    return; // printed as its alias
                }
                self.distinct_id(*id);
                self.walk_distinct_ids(value, false);
            }
            AttrKind::Array(v) => v.iter().for_each(|x| self.walk_distinct_ids(x, false)),
            AttrKind::Dictionary(v) => v
                .iter()
                .for_each(|n| self.walk_distinct_ids(&n.value, false)),
            _ => {}
        }
    }
    /// The printed ID of the distinct attribute read as `id`, numbered on first use.
    fn distinct_id(&self, id: u64) -> u64 {
        let mut ids = self.distinct_ids.borrow_mut();
        let next = ids.len() as u64;
        *ids.entry(id).or_insert(next)
    }
}

/// A memref layout that MLIR drops: the identity affine map.
fn is_identity_layout(a: &Attribute) -> bool {
    matches!(a.kind(), AttrKind::AffineMap(m) if m.is_identity())
}

/// A memory space that MLIR drops: integer 0.
fn is_default_memory_space(a: &Attribute) -> bool {
    matches!(a.kind(), AttrKind::Integer { value: 0, ty } if *ty == Type::i64())
}

/// Appends a decimal integer (faster than `write!` on the hot path of value names).
pub(crate) fn push_u64(out: &mut String, mut n: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // The buffer holds ASCII digits only.
    out.push_str(std::str::from_utf8(&buf[i..]).unwrap_or("0"));
}

fn push_i64(out: &mut String, n: i64) {
    if n < 0 {
        out.push('-');
    }
    push_u64(out, n.unsigned_abs());
}

/// Formats types and attributes, with or without aliases.
#[derive(Clone, Copy)]
pub(crate) struct Fmt<'x> {
    pub aliases: Option<&'x Aliases>,
}

impl Fmt<'_> {
    /// Appends type `t`.
    pub fn ty(&self, out: &mut String, t: &Type) {
        match t.kind() {
            TypeKind::Integer { width, signedness } => {
                out.push_str(match signedness {
                    Signedness::Signless => "i",
                    Signedness::Signed => "si",
                    Signedness::Unsigned => "ui",
                });
                push_u64(out, *width as u64);
            }
            TypeKind::Float(k) => out.push_str(k.keyword()),
            TypeKind::Index => out.push_str("index"),
            TypeKind::None => out.push_str("none"),
            TypeKind::Tensor {
                shape,
                elem,
                encoding,
            } => {
                out.push_str("tensor<");
                shape_prefix(out, shape, None);
                self.ty(out, elem);
                if let Some(e) = encoding {
                    out.push_str(", ");
                    self.attr(out, e, false);
                }
                out.push('>');
            }
            TypeKind::UnrankedTensor { elem } => {
                out.push_str("tensor<*x");
                self.ty(out, elem);
                out.push('>');
            }
            TypeKind::MemRef {
                shape,
                elem,
                layout,
                memory_space,
            } => {
                out.push_str("memref<");
                shape_prefix(out, shape, None);
                self.ty(out, elem);
                if let Some(l) = layout
                    && !is_identity_layout(l)
                {
                    out.push_str(", ");
                    self.attr(out, l, true);
                }
                if let Some(m) = memory_space
                    && !is_default_memory_space(m)
                {
                    out.push_str(", ");
                    self.attr(out, m, true);
                }
                out.push('>');
            }
            TypeKind::UnrankedMemRef { elem, memory_space } => {
                out.push_str("memref<*x");
                self.ty(out, elem);
                if let Some(m) = memory_space
                    && !is_default_memory_space(m)
                {
                    out.push_str(", ");
                    self.attr(out, m, true);
                }
                out.push('>');
            }
            TypeKind::Vector {
                shape,
                scalable,
                elem,
            } => {
                out.push_str("vector<");
                shape_prefix(out, shape, Some(scalable));
                self.ty(out, elem);
                out.push('>');
            }
            TypeKind::Complex(e) => {
                out.push_str("complex<");
                self.ty(out, e);
                out.push('>');
            }
            TypeKind::Tuple(ts) => {
                out.push_str("tuple<");
                self.types(out, ts);
                out.push('>');
            }
            TypeKind::Function { inputs, results } => self.function_type(out, inputs, results),
            TypeKind::Dialect { dialect, body } => dialect_symbol(out, '!', dialect, body),
        }
    }

    /// Appends a comma-separated type list.
    pub fn types(&self, out: &mut String, ts: &[Type]) {
        for (i, t) in ts.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            self.ty(out, t);
        }
    }

    /// `(ins) -> out`, `(ins) -> (a, b)`; a single function-typed result is wrapped.
    pub fn function_type(&self, out: &mut String, inputs: &[Type], results: &[Type]) {
        out.push('(');
        self.types(out, inputs);
        out.push_str(") -> ");
        let wrap = results.len() != 1 || matches!((results[0]).kind(), TypeKind::Function { .. });
        if wrap {
            out.push('(');
        }
        self.types(out, results);
        if wrap {
            out.push(')');
        }
    }

    /// Appends attribute `a`. `may_elide` is MLIR's `AttrTypeElision::May`: the `: i64`
    /// and `: f64` of integers and floats are left out (array elements, memory spaces).
    pub fn attr(&self, out: &mut String, a: &Attribute, may_elide: bool) {
        match a.kind() {
            AttrKind::Unit => out.push_str("unit"),
            AttrKind::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            AttrKind::Integer { value, ty } => {
                if *ty == Type::i1() {
                    out.push_str(if *value & 1 != 0 { "true" } else { "false" });
                    return;
                }
                write_int(out, *value, ty);
                if !(may_elide && *ty == Type::i64()) {
                    out.push_str(" : ");
                    self.ty(out, ty);
                }
            }
            AttrKind::Float { value, ty } => {
                let kind = match ty.kind() {
                    TypeKind::Float(k) => *k,
                    _ => FloatKind::F64,
                };
                write_float(out, value.get(), kind);
                if !(may_elide && kind == FloatKind::F64) {
                    out.push_str(" : ");
                    self.ty(out, ty);
                }
            }
            AttrKind::String { value, ty } => {
                escaped_string(out, value);
                if let Some(t) = ty
                    && *t != Type::new(TypeKind::None)
                {
                    out.push_str(" : ");
                    self.ty(out, t);
                }
            }
            AttrKind::Bytes { value, ty } => {
                escaped_bytes(out, value);
                if let Some(t) = ty
                    && *t != Type::new(TypeKind::None)
                {
                    out.push_str(" : ");
                    self.ty(out, t);
                }
            }
            AttrKind::Type(t) => self.ty(out, t),
            AttrKind::Array(v) => {
                out.push('[');
                for (i, a) in v.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.attr(out, a, true);
                }
                out.push(']');
            }
            AttrKind::DenseArray(d) => self.dense_array(out, d),
            AttrKind::Dictionary(v) => self.dictionary(out, v),
            AttrKind::SymbolRef { root, nested } => {
                symbol_ref(out, root);
                for n in nested {
                    out.push_str("::");
                    symbol_ref(out, n);
                }
            }
            AttrKind::AffineMap(m) => match self.aliases.and_then(|al| al.maps.get(m)) {
                Some(n) => alias_name(out, "map", *n),
                None => write_affine_map_attr(out, m),
            },
            AttrKind::IntegerSet(s) => match self.aliases.and_then(|al| al.sets.get(s)) {
                Some(n) => alias_name(out, "set", *n),
                None => write_integer_set_attr(out, s),
            },
            AttrKind::DenseElements { literal, ty } => {
                out.push_str("dense<");
                dense_elements(out, literal, ty);
                out.push_str("> : ");
                self.ty(out, ty);
            }
            AttrKind::Strided { strides, offset } => {
                out.push_str("strided<[");
                for (i, s) in strides.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    dim(out, *s);
                }
                out.push(']');
                if *offset != 0 {
                    out.push_str(", offset: ");
                    dim(out, *offset);
                }
                out.push('>');
            }
            AttrKind::Location(l) => {
                if let Some(n) = self.aliases.and_then(|a| a.locs.get(l)) {
                    alias_name(out, "loc", *n);
                } else {
                    out.push_str("loc(");
                    self.location_body(out, l);
                    out.push(')');
                }
            }
            AttrKind::Dialect { dialect, body } => dialect_symbol(out, '#', dialect, body),
            AttrKind::TypedDialect { dialect, body, ty } => {
                dialect_symbol(out, '#', dialect, body);
                out.push_str(" : ");
                self.ty(out, ty);
            }
            AttrKind::Distinct { .. } => match self.aliases {
                Some(al) if al.distincts.contains_key(a) => {
                    alias_name(out, "distinct", al.distincts[a]);
                }
                _ => self.distinct_body(out, a),
            },
            AttrKind::Sparse {
                indices,
                index_shape,
                values,
                value_shape,
                ty,
            } => {
                out.push_str("sparse<");
                if index_shape.iter().product::<i64>() != 0 {
                    // Printed as the two dense attributes MLIR stores: i64 coordinates and
                    // values of the element type (splats folded the same way).
                    let tensor = |shape: &[i64], elem: Type| Type::tensor(shape.to_vec(), elem);
                    dense_elements(out, indices, &tensor(index_shape, Type::i64()));
                    out.push_str(", ");
                    let elem = ty.element_type().cloned().unwrap_or(Type::i64());
                    dense_elements(out, values, &tensor(value_shape, elem));
                }
                out.push_str("> : ");
                self.ty(out, ty);
            }
            AttrKind::DenseResource { handle, ty } => {
                out.push_str("dense_resource<");
                super::resources::keyword_or_string(out, handle);
                out.push_str("> : ");
                self.ty(out, ty);
            }
        }
    }

    /// `distinct[N]<value>` spelled out, `N` renumbered in print order.
    fn distinct_body(&self, out: &mut String, a: &Attribute) {
        let AttrKind::Distinct { id, value } = a.kind() else {
            return;
        };
        out.push_str("distinct[");
        let n = self.aliases.map_or(*id, |al| al.distinct_id(*id));
        push_u64(out, n);
        out.push_str("]<");
        if **value != AttrKind::Unit {
            self.attr(out, value, false);
        }
        out.push('>');
    }

    fn dense_array(&self, out: &mut String, d: &DenseArray) {
        out.push_str("array<");
        match d {
            DenseArray::Int { elem, values } => {
                self.ty(out, elem);
                if !values.is_empty() {
                    out.push_str(": ");
                }
                let is_bool = *elem == Type::i1();
                for (i, v) in values.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    if is_bool {
                        out.push_str(if *v != 0 { "true" } else { "false" });
                    } else {
                        write_int(out, *v as i128, elem);
                    }
                }
            }
            DenseArray::Float { elem, values } => {
                self.ty(out, elem);
                if !values.is_empty() {
                    out.push_str(": ");
                }
                let kind = match elem.kind() {
                    TypeKind::Float(k) => *k,
                    _ => FloatKind::F64,
                };
                for (i, v) in values.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    write_float(out, v.get(), kind);
                }
            }
        }
        out.push('>');
    }

    /// `{a = 1 : i32, b}`.
    pub fn dictionary(&self, out: &mut String, v: &[NamedAttribute]) {
        out.push('{');
        for (i, n) in v.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            self.named_attr(out, n);
        }
        out.push('}');
    }

    /// `name = value`, or a bare `name` for a unit attribute.
    pub fn named_attr(&self, out: &mut String, n: &NamedAttribute) {
        keyword_or_string(out, &n.name);
        if n.value != Attribute::unit() {
            out.push_str(" = ");
            self.attr(out, &n.value, false);
        }
    }

    /// The inside of `loc(...)`: `#locN` when the location has an alias.
    pub fn location(&self, out: &mut String, l: &Location) {
        if let Some(n) = self.aliases.and_then(|a| a.locs.get(l)) {
            alias_name(out, "loc", *n);
            return;
        }
        self.location_body(out, l);
    }

    /// The inside of `loc(...)`, spelled out (nested locations may use aliases).
    pub fn location_body(&self, out: &mut String, l: &Location) {
        match l {
            Location::Unknown => out.push_str("unknown"),
            Location::FileLineCol { file, line, col } => {
                escaped_string(out, file);
                out.push(':');
                push_u64(out, *line as u64);
                out.push(':');
                push_u64(out, *col as u64);
            }
            Location::Name { name, child } => {
                escaped_string(out, name);
                if let Some(c) = child
                    && **c != Location::Unknown
                {
                    out.push('(');
                    self.location(out, c);
                    out.push(')');
                }
            }
            Location::CallSite { callee, caller } => {
                out.push_str("callsite(");
                self.location(out, callee);
                out.push_str(" at ");
                self.location(out, caller);
                out.push(')');
            }
            Location::Fused {
                locations,
                metadata,
            } => {
                out.push_str("fused");
                if let Some(m) = metadata {
                    out.push('<');
                    self.attr(out, m, false);
                    out.push('>');
                }
                out.push('[');
                for (i, l) in locations.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.location(out, l);
                }
                out.push(']');
            }
        }
    }
}

/// `4x?x` (and `[8]x` for scalable vector dims) before the element type.
fn shape_prefix(out: &mut String, shape: &[i64], scalable: Option<&Vec<bool>>) {
    for (i, d) in shape.iter().enumerate() {
        let sc = scalable.is_some_and(|s| s.get(i).copied().unwrap_or(false));
        if sc {
            out.push('[');
        }
        dim(out, *d);
        if sc {
            out.push(']');
        }
        out.push('x');
    }
}

fn dim(out: &mut String, d: i64) {
    if d == DYNAMIC {
        out.push('?');
    } else {
        push_i64(out, d);
    }
}

/// An integer attribute's value as MLIR's APInt prints it: signed unless the type is
/// unsigned, after truncation to the type's width.
fn write_int(out: &mut String, value: i128, ty: &Type) {
    let (width, unsigned) = match ty.kind() {
        TypeKind::Integer { width, signedness } => (*width, *signedness == Signedness::Unsigned),
        _ => (64, false),
    };
    if width == 0 || width >= 128 {
        let _ = write!(out, "{value}");
        return;
    }
    let mask: u128 = (1u128 << width) - 1;
    let bits = (value as u128) & mask;
    if unsigned {
        let _ = write!(out, "{bits}");
    } else {
        let sign = 1u128 << (width - 1);
        let v = if bits & sign != 0 {
            (bits | !mask) as i128
        } else {
            bits as i128
        };
        if let Ok(small) = i64::try_from(v) {
            push_i64(out, small);
        } else {
            let _ = write!(out, "{v}");
        }
    }
}

/// MLIR's `isBareIdentifier`: `[a-zA-Z_][a-zA-Z0-9_$.]*`.
fn is_bare_identifier(s: &str) -> bool {
    let mut chars = s.bytes();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == b'_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c == b'.')
}

/// A name printed bare when it is an identifier, else as an escaped string.
pub(crate) fn keyword_or_string(out: &mut String, s: &str) {
    if is_bare_identifier(s) {
        out.push_str(s);
    } else {
        escaped_string(out, s);
    }
}

/// `@name`, or `@"name"` when it is not a bare identifier.
pub(crate) fn symbol_ref(out: &mut String, s: &str) {
    out.push('@');
    keyword_or_string(out, s);
}

/// `"text"` with llvm::printEscapedString's escaping: `\\`, and `\XX` (upper-case hex)
/// for `"` and anything not printable ASCII.
pub(crate) fn escaped_string(out: &mut String, s: &str) {
    escaped_bytes(out, s.as_bytes());
}

/// Appends `bytes` as an MLIR string literal: printable ASCII as is, `\\`, and every
/// other byte as `\XX`.
pub(crate) fn escaped_bytes(out: &mut String, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    out.push('"');
    let mut start = 0;
    for (i, &c) in bytes.iter().enumerate() {
        let plain = (0x20..0x7f).contains(&c) && c != b'"' && c != b'\\';
        if plain {
            continue;
        }
        // Only printable ASCII lies between escapes; slicing bytes, not the str, since
        // `start` may be inside a multi-byte character whose bytes are all escaped.
        out.extend(bytes[start..i].iter().map(|&b| b as char));
        start = i + 1;
        if c == b'\\' {
            out.push_str("\\\\");
        } else {
            out.push('\\');
            out.push(HEX[(c >> 4) as usize] as char);
            out.push(HEX[(c & 15) as usize] as char);
        }
    }
    out.extend(bytes[start..].iter().map(|&b| b as char));
    out.push('"');
}

/// MLIR's `isDialectSymbolSimpleEnoughForPrettyForm`.
fn pretty_dialect_body(body: &str) -> bool {
    if !body.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return false;
    }
    let rest = body.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '.' || c == '_');
    rest.is_empty() || (rest.starts_with('<') && rest.ends_with('>'))
}

/// `!d.body` / `#d.body`, or the opaque `!d<"body">` when the body is not simple.
fn dialect_symbol(out: &mut String, sigil: char, dialect: &str, body: &str) {
    out.push(sigil);
    out.push_str(dialect);
    if body.starts_with('<') {
        // The namespace form `#d<...>`, kept verbatim by the parser.
        out.push_str(body);
    } else if body.is_empty() {
        // `#d.` has no symbol data: MLIR prints `#d<>`.
        out.push_str("<>");
    } else if pretty_dialect_body(body) {
        out.push('.');
        out.push_str(body);
    } else {
        out.push('<');
        escaped_string(out, body);
        out.push('>');
    }
}

/// Above this many elements MLIR prints a dense attribute as a hex blob.
const HEX_THRESHOLD: usize = 100;

/// One scalar element of a dense attribute, normalised to its element type.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Elem {
    Int(i128),
    /// Bits in the element's float format.
    Float(u64),
}

/// The inside of `dense<...>` as MLIR prints it: one element for a splat, the
/// elements nested by the shape, or a little-endian hex blob above 100 elements.
fn dense_elements(out: &mut String, literal: &DenseLiteral, ty: &Type) {
    let elem_ty = ty.element_type();
    let int_width = match elem_ty.map(|x| x.kind()) {
        Some(TypeKind::Integer { width, .. }) => Some(*width),
        Some(TypeKind::Index) => Some(64),
        _ => None,
    };
    let float_kind = match elem_ty.map(|x| x.kind()) {
        Some(TypeKind::Float(k)) => Some(*k),
        _ => None,
    };
    let shape = ty.shape().filter(|s| s.iter().all(|&d| d >= 0));
    let (Some(shape), Some(elem_ty)) = (shape, elem_ty) else {
        return dense_literal(out, literal, float_kind.unwrap_or(FloatKind::F64));
    };
    if int_width.is_none() && float_kind.is_none() {
        // Complex, string and other element types: print what was written (splats
        // folded); no elements print as `dense<>`, as for numbers.
        if shape.contains(&0) {
            return;
        }
        let kind = match elem_ty.kind() {
            TypeKind::Complex(e) => match **e {
                TypeKind::Float(k) => k,
                _ => FloatKind::F64,
            },
            _ => FloatKind::F64,
        };
        return dense_literal(out, splat_of(literal).unwrap_or(literal), kind);
    }
    let count: usize = shape.iter().map(|&d| d as usize).product();
    let width = int_width.unwrap_or_else(|| float_kind.map_or(64, |k| k.width()));
    let to_elem = |l: &DenseLiteral| -> Option<Elem> {
        Some(match (l, float_kind) {
            (DenseLiteral::Int(v), None) => Elem::Int(*v),
            (DenseLiteral::Bool(b), None) => Elem::Int(*b as i128),
            (DenseLiteral::Float(f), Some(k)) => Elem::Float(to_bits(f.get(), k)),
            // The parser takes an integer among float elements only in hex: a bit pattern.
            (DenseLiteral::Int(v), Some(k)) => Elem::Float(*v as u64 & width_mask(k.width())),
            _ => return None,
        })
    };
    let mut elems: Vec<Elem> = Vec::new();
    let ok = match literal {
        DenseLiteral::Hex(h) => decode_hex(h, width, float_kind.is_some(), &mut elems),
        _ => flatten(literal, &to_elem, &mut elems),
    };
    if !ok || elems.is_empty() && count != 0 {
        return dense_literal(out, literal, float_kind.unwrap_or(FloatKind::F64));
    }
    if count == 0 {
        return;
    }
    let print_elem = |out: &mut String, e: Elem| match e {
        Elem::Int(v) if width == 1 => out.push_str(if v & 1 != 0 { "true" } else { "false" }),
        Elem::Int(v) => write_int(out, v, elem_ty),
        Elem::Float(b) => {
            let k = float_kind.unwrap_or(FloatKind::F64);
            write_float(out, from_bits(b, k), k)
        }
    };
    if elems.iter().all(|e| *e == elems[0]) {
        return print_elem(out, elems[0]);
    }
    if elems.len() != count {
        return dense_literal(out, literal, float_kind.unwrap_or(FloatKind::F64));
    }
    if count > HEX_THRESHOLD && width.is_multiple_of(8) && width <= 64 {
        const HEX: &[u8; 16] = b"0123456789ABCDEF";
        out.push_str("\"0x");
        for e in &elems {
            let bits: u64 = match *e {
                Elem::Int(v) => v as u64,
                Elem::Float(b) => b,
            };
            for byte in 0..width / 8 {
                let x = (bits >> (8 * byte)) as u8;
                out.push(HEX[(x >> 4) as usize] as char);
                out.push(HEX[(x & 15) as usize] as char);
            }
        }
        out.push('"');
        return;
    }
    // Nested by the shape, innermost dimension last.
    let mut next = 0usize;
    nested(out, shape, &elems, &mut next, &print_elem);
}

fn nested(
    out: &mut String,
    shape: &[i64],
    elems: &[Elem],
    next: &mut usize,
    print_elem: &dyn Fn(&mut String, Elem),
) {
    let Some((&d, rest)) = shape.split_first() else {
        if let Some(&e) = elems.get(*next) {
            print_elem(out, e);
        }
        *next += 1;
        return;
    };
    out.push('[');
    for i in 0..d {
        if i > 0 {
            out.push_str(", ");
        }
        nested(out, rest, elems, next, print_elem);
    }
    out.push(']');
}

fn flatten(
    l: &DenseLiteral,
    to_elem: &dyn Fn(&DenseLiteral) -> Option<Elem>,
    out: &mut Vec<Elem>,
) -> bool {
    match l {
        DenseLiteral::List(v) => v.iter().all(|e| flatten(e, to_elem, out)),
        DenseLiteral::Empty => true,
        e => match to_elem(e) {
            Some(x) => {
                out.push(x);
                true
            }
            None => false,
        },
    }
}

/// Decodes `0x...` little-endian element data (one element for a splat).
fn decode_hex(h: &str, width: u32, is_float: bool, out: &mut Vec<Elem>) -> bool {
    let Some(hex) = h.strip_prefix("0x").or_else(|| h.strip_prefix("0X")) else {
        return false;
    };
    if !width.is_multiple_of(8) || width > 64 || !hex.len().is_multiple_of(2) {
        return false;
    }
    let bytes: Option<Vec<u8>> = (0..hex.len() / 2)
        .map(|i| u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok())
        .collect();
    let Some(bytes) = bytes else { return false };
    let n = (width / 8) as usize;
    if bytes.is_empty() || !bytes.len().is_multiple_of(n) {
        return false;
    }
    for chunk in bytes.chunks(n) {
        let mut bits = 0u64;
        for (i, b) in chunk.iter().enumerate() {
            bits |= (*b as u64) << (8 * i);
        }
        out.push(if is_float {
            Elem::Float(bits)
        } else {
            Elem::Int(bits as i128)
        });
    }
    true
}

/// The single value of a literal whose leaves are all equal (MLIR stores such dense
/// attributes as splats and prints them as one element).
fn splat_of(l: &DenseLiteral) -> Option<&DenseLiteral> {
    fn first(l: &DenseLiteral) -> Option<&DenseLiteral> {
        match l {
            DenseLiteral::List(v) => v.first().and_then(first),
            DenseLiteral::Hex(_) | DenseLiteral::Empty => None,
            x => Some(x),
        }
    }
    fn all_eq(l: &DenseLiteral, x: &DenseLiteral) -> bool {
        match l {
            DenseLiteral::List(v) => v.iter().all(|e| all_eq(e, x)),
            e => e == x,
        }
    }
    if !matches!(l, DenseLiteral::List(_)) {
        return None;
    }
    let f = first(l)?;
    all_eq(l, f).then_some(f)
}

fn dense_literal(out: &mut String, l: &DenseLiteral, kind: FloatKind) {
    match l {
        DenseLiteral::Int(v) => {
            let _ = write!(out, "{v}");
        }
        DenseLiteral::Float(f) => write_float(out, f.get(), kind),
        DenseLiteral::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        DenseLiteral::Complex(re, im) => {
            out.push('(');
            dense_literal(out, re, kind);
            out.push(',');
            dense_literal(out, im, kind);
            out.push(')');
        }
        DenseLiteral::List(v) => {
            out.push('[');
            for (i, e) in v.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                dense_literal(out, e, kind);
            }
            out.push(']');
        }
        DenseLiteral::Hex(h) => {
            out.push('"');
            out.push_str(h);
            out.push('"');
        }
        DenseLiteral::Str(bytes) => escaped_bytes(out, bytes),
        DenseLiteral::Empty => {}
    }
}

// ----- affine maps -------------------------------------------------------------------

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

// ----- floats ------------------------------------------------------------------------

/// The format a kind's values are printed through; f80 and f128 are carried as f64.
fn format_of(kind: FloatKind) -> FloatFormat {
    FloatFormat::of(kind).unwrap_or(FloatFormat::F64)
}

/// Significand precision in bits (for APFloat's default digit count).
fn precision_bits(kind: FloatKind) -> usize {
    match kind {
        FloatKind::F80 => 64,
        FloatKind::F128 => 113,
        k => format_of(k).precision() as usize,
    }
}

fn width_mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// Rounds `x` to the format (round to nearest even) and returns its bit pattern.
fn to_bits(x: f64, kind: FloatKind) -> u64 {
    format_of(kind).encode(x)
}

/// Bits of the format back to an f64 (exact: every supported format fits in f64).
fn from_bits(b: u64, kind: FloatKind) -> f64 {
    format_of(kind).decode(b)
}

/// Parses a decimal into the format, as APFloat's string constructor would.
fn parse_as(s: &str, kind: FloatKind) -> Option<u64> {
    match kind {
        FloatKind::F64 | FloatKind::F80 | FloatKind::F128 => {
            s.parse::<f64>().ok().map(f64::to_bits)
        }
        FloatKind::F32 => s.parse::<f32>().ok().map(|f| f.to_bits() as u64),
        _ => s.parse::<f64>().ok().map(|f| to_bits(f, kind)),
    }
}

/// Appends a float the way MLIR's `printFloatValue` does: APFloat's `%.6e`-like form
/// when that round-trips, else APFloat's default `toString` (enough digits for the
/// format) when it has a `.`, else the bit pattern in hex (NaN, infinities, some
/// integral values).
pub(crate) fn write_float(out: &mut String, value: f64, kind: FloatKind) {
    let bits = to_bits(value, kind);
    let v = from_bits(bits, kind);
    if v.is_finite() {
        let start = out.len();
        apfloat_to_string(out, v, 6, 0, false);
        if parse_as(&out[start..], kind) == Some(bits) {
            return;
        }
        out.truncate(start);
        let precision = 2 + precision_bits(kind) * 59 / 196;
        apfloat_to_string(out, v, precision, 3, true);
        if out[start..].contains('.') {
            return;
        }
        out.truncate(start);
    }
    let _ = write!(out, "0x{bits:X}");
}

/// A little-endian big unsigned integer, just enough for exact float-to-decimal.
struct Big(Vec<u32>);

impl Big {
    fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for limb in &mut self.0 {
            let x = *limb as u64 * m as u64 + carry;
            *limb = x as u32;
            carry = x >> 32;
        }
        if carry != 0 {
            self.0.push(carry as u32);
        }
    }
    fn shl(&mut self, n: u32) {
        let (limbs, bits) = ((n / 32) as usize, n % 32);
        if bits != 0 {
            let mut carry = 0u32;
            for limb in &mut self.0 {
                let x = ((*limb as u64) << bits) | carry as u64;
                *limb = x as u32;
                carry = (x >> 32) as u32;
            }
            if carry != 0 {
                self.0.push(carry);
            }
        }
        if limbs > 0 {
            self.0.splice(0..0, std::iter::repeat_n(0, limbs));
        }
    }
    /// Divides by 10 in place, returning the remainder.
    fn div10(&mut self) -> u8 {
        let mut rem = 0u64;
        for limb in self.0.iter_mut().rev() {
            let x = (rem << 32) | *limb as u64;
            *limb = (x / 10) as u32;
            rem = x % 10;
        }
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
        rem as u8
    }
    /// Number of significant bits.
    fn active_bits(&self) -> usize {
        match self.0.last() {
            Some(&top) => self.0.len() * 32 - top.leading_zeros() as usize,
            None => 0,
        }
    }
}

/// Port of `APFloat::toString(Str, FormatPrecision, FormatMaxPadding, TruncateZero)`
/// for a finite value (exactly representable in f64, as every supported format is).
/// Its quirks matter for matching mlir-opt byte for byte: low digits beyond what the
/// precision needs are discarded before rounding half-up.
fn apfloat_to_string(
    out: &mut String,
    v: f64,
    precision: usize,
    max_padding: usize,
    truncate_zero: bool,
) {
    if v.is_sign_negative() {
        out.push('-');
    }
    if v == 0.0 {
        if max_padding == 0 {
            if truncate_zero {
                out.push_str("0.0E+0");
            } else {
                out.push_str("0.0");
                for _ in 1..precision {
                    out.push('0');
                }
                out.push_str("e+00");
            }
        } else {
            out.push('0');
        }
        return;
    }
    // v = mant * 2^e2 with mant odd.
    let b = v.abs().to_bits();
    let field = ((b >> 52) & 0x7ff) as i64;
    let (mut mant, mut e2) = if field == 0 {
        (b & ((1u64 << 52) - 1), -1074i64)
    } else {
        ((b & ((1u64 << 52) - 1)) | (1u64 << 52), field - 1075)
    };
    let tz = mant.trailing_zeros();
    mant >>= tz;
    e2 += tz as i64;
    let mut sig = Big(vec![mant as u32, (mant >> 32) as u32]);
    while sig.0.last() == Some(&0) {
        sig.0.pop();
    }
    let mut exp: i64 = 0;
    if e2 > 0 {
        sig.shl(e2 as u32);
    } else if e2 < 0 {
        // N * 2^-e == N * 5^e * 10^-e.
        let mut t = -e2;
        while t >= 13 {
            sig.mul_small(1_220_703_125); // 5^13
            t -= 13;
        }
        for _ in 0..t {
            sig.mul_small(5);
        }
        exp = e2;
    }
    let required = (precision * 196).div_ceil(59);
    let mut discard = sig.active_bits().saturating_sub(required) * 59 / 196;
    // Digits, least significant first.
    let mut buffer: Vec<u8> = Vec::with_capacity(24);
    let mut in_trail = true;
    while !sig.0.is_empty() {
        let d = sig.div10();
        if discard > 0 {
            discard -= 1;
            exp += 1;
            continue;
        }
        if in_trail && d == 0 {
            exp += 1;
        } else {
            in_trail = false;
            buffer.push(b'0' + d);
        }
    }
    if buffer.is_empty() {
        buffer.push(b'0');
    }
    if buffer.len() > precision {
        let mut first_sig = buffer.len() - precision;
        if buffer[first_sig - 1] < b'5' {
            while first_sig < buffer.len() && buffer[first_sig] == b'0' {
                first_sig += 1;
            }
        } else {
            // Decimal add-with-carry; carried-through nines become dropped zeros.
            let start = first_sig;
            for d in &mut buffer[start..] {
                if *d == b'9' {
                    first_sig += 1;
                } else {
                    *d += 1;
                    break;
                }
            }
        }
        exp += first_sig as i64;
        buffer.drain(..first_sig);
        if buffer.is_empty() {
            buffer.push(b'1');
        }
    }
    let digits = buffer.len();
    let scientific = if max_padding == 0 {
        true
    } else if exp >= 0 {
        exp as usize > max_padding || digits + exp as usize > precision
    } else {
        let msd = exp + digits as i64 - 1;
        msd < 0 && (-msd) as usize > max_padding
    };
    let digit = |i: usize| buffer[i] as char;
    if scientific {
        exp += digits as i64 - 1;
        out.push(digit(digits - 1));
        out.push('.');
        if digits == 1 && truncate_zero {
            out.push('0');
        } else {
            for i in (0..digits - 1).rev() {
                out.push(digit(i));
            }
        }
        if !truncate_zero && precision + 1 > digits {
            for _ in 0..=(precision - digits) {
                out.push('0');
            }
        }
        out.push(if truncate_zero { 'E' } else { 'e' });
        out.push(if exp < 0 { '-' } else { '+' });
        if !truncate_zero && exp.abs() < 10 {
            out.push('0');
        }
        push_u64(out, exp.unsigned_abs());
        return;
    }
    if exp >= 0 {
        for i in (0..digits).rev() {
            out.push(digit(i));
        }
        for _ in 0..exp {
            out.push('0');
        }
        return;
    }
    let unit_place = (-exp) as usize;
    if unit_place < digits {
        for i in (unit_place..digits).rev() {
            out.push(digit(i));
        }
        out.push('.');
        for i in (0..unit_place).rev() {
            out.push(digit(i));
        }
    } else {
        out.push_str("0.");
        for _ in digits..unit_place {
            out.push('0');
        }
        for i in (0..digits).rev() {
            out.push(digit(i));
        }
    }
}
