//! Attribute and location aliases printed before the op (`#map`, `#set1`, `#loc3`,
//! `#distinct`): collecting them in first-use order, numbering them as MLIR's
//! AliasInitializer does, and writing their definitions.

use std::collections::HashMap;

use super::affine::{write_affine_map_attr, write_integer_set_attr};
use super::format::{Fmt, is_identity_layout, push_u64};
use crate::ir::{AffineMap, AttrKind, Attribute, IntegerSet, Location, TextAlias, Type, TypeKind};

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
    pub(super) distincts: HashMap<Attribute, usize>,
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

pub(super) fn alias_name(out: &mut String, prefix: &str, n: usize) {
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
                // A location is written out: through its `#locN` alias it could name a
                // definition that comes only after the op (op locations are deferred).
                if let AttrKind::Location(l) = a.kind() {
                    out.push_str("loc(");
                    Fmt { aliases: None }.location_body(out, l);
                    out.push(')');
                } else {
                    f.attr(out, a, false);
                }
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
    pub(super) fn distinct_id(&self, id: u64) -> u64 {
        let mut ids = self.distinct_ids.borrow_mut();
        let next = ids.len() as u64;
        *ids.entry(id).or_insert(next)
    }
}
