//! SSA names and block labels: value definitions and uses (forward references
//! included) in nested region scopes, isolated-from-above scopes, and successor blocks.

use std::rc::Rc;

use super::lexer::Token;
use super::{
    BlockEntry, FxMap, IsolatedScope, MAX_RESULTS, RegionScope, State, UnresolvedOperand,
    ValueEntry, display,
};
use crate::diagnostics::Diagnostic;
use crate::ir::{BlockId, OperationState, Span, Type, Value};

impl<'s> State<'s> {
    // ----- SSA names ---------------------------------------------------------------

    pub(super) fn pop_isolated_scope(&mut self) -> Result<(), Diagnostic> {
        let Some(scope) = self.scopes.pop() else {
            return Ok(());
        };
        // The first forward reference never defined; `%x#N` past the results of a
        // defined `%x` is MLIR's "invalid result number".
        let mut first: Option<(Span, bool)> = None;
        for entries in scope.values.values() {
            let all = entries.all();
            let defined = all.iter().flatten().any(|e| !e.forward);
            for e in all.iter().flatten() {
                if e.forward && first.is_none_or(|(s, _)| e.span.start < s.start) {
                    first = Some((e.span, defined));
                }
            }
        }
        if let Some((span, defined)) = first {
            let msg = if defined {
                "reference to invalid result number"
            } else {
                "use of undeclared SSA value name"
            };
            return Err(self.error_at(span, msg));
        }
        Ok(())
    }

    pub(super) fn push_region_scope(&mut self, isolated: bool) {
        if isolated || self.scopes.is_empty() {
            let mut scope = IsolatedScope::default();
            // The outermost body (usually the module's) holds most names of the file:
            // size it from the source to avoid rehashing while it grows.
            if self.scopes.len() <= 1 && !self.reserved {
                self.reserved = true;
                scope.values.reserve(self.src.len() / 256);
            }
            self.scopes.push(scope);
        }
        if let Some(s) = self.scopes.last_mut() {
            s.region_defs.push(Vec::new());
        }
        self.regions.push(RegionScope {
            blocks: FxMap::default(),
        });
    }

    pub(super) fn pop_region_scope(&mut self, isolated: bool) -> Result<(), Diagnostic> {
        if let Some(rs) = self.regions.pop() {
            let mut undefined: Option<(Span, &String)> = None;
            for (name, b) in &rs.blocks {
                if !b.defined && undefined.is_none_or(|(s, _)| b.span.start < s.start) {
                    undefined = Some((b.span, name));
                }
            }
            if let Some((span, name)) = undefined {
                return Err(
                    self.error_at(span, format!("reference to an undefined block '{name}'"))
                );
            }
        }
        if let Some(s) = self.scopes.last_mut()
            && let Some(defs) = s.region_defs.pop()
        {
            for d in defs {
                if let Some(entries) = s.values.get(&d)
                    && entries.all().iter().flatten().all(|e| !e.forward)
                {
                    s.values.remove(&d);
                }
            }
        }
        if isolated {
            self.pop_isolated_scope()?;
        }
        Ok(())
    }

    /// Binds `name#index` to `value`, resolving a forward reference if there is one.
    pub(super) fn define_value(
        &mut self,
        name: &str,
        index: u32,
        value: Value,
        span: Span,
    ) -> Result<(), Diagnostic> {
        let Some(scope) = self.scopes.last_mut() else {
            return Ok(());
        };
        let entries = match scope.values.get_mut(name) {
            Some(e) => e,
            None => {
                let key: Rc<str> = Rc::from(name);
                if let Some(defs) = scope.region_defs.last_mut() {
                    defs.push(key.clone());
                }
                scope.values.entry(key).or_default()
            }
        };
        let prev = entries.set(
            index as usize,
            ValueEntry {
                value,
                span,
                forward: false,
            },
        );
        if let Some(prev) = prev {
            if !prev.forward {
                return Err(self
                    .error_at(span, format!("redefinition of SSA value '{name}'"))
                    .with_note(Diagnostic::note(Some(prev.span), "previously defined here")));
            }
            let (old_ty, new_ty) = (
                *self.ctx.value_type(prev.value),
                *self.ctx.value_type(value),
            );
            if old_ty != new_ty {
                return Err(self
                    .error_at(
                        span,
                        format!(
                            "definition of SSA value '{name}#{index}' has type {}",
                            display::quoted_type(&new_ty)
                        ),
                    )
                    .with_note(Diagnostic::note(
                        Some(prev.span),
                        format!(
                            "previously used here with type {}",
                            display::quoted_type(&old_ty)
                        ),
                    )));
            }
            self.ctx.replace_all_uses_with(prev.value, value);
            if let Some(ph) = self.ctx.defining_op(prev.value) {
                self.ctx.erase_op(ph);
            }
            // The name now belongs to this region for visibility purposes.
            if let Some(scope) = self.scopes.last_mut()
                && let Some((key, _)) = scope.values.get_key_value(name)
            {
                let key = key.clone();
                if let Some(defs) = scope.region_defs.last_mut() {
                    defs.push(key);
                }
            }
        }
        Ok(())
    }

    /// The value `name#index` used with type `ty` (a placeholder when not yet defined).
    pub(crate) fn resolve_use(
        &mut self,
        name: &str,
        index: u32,
        span: Span,
        ty: &Type,
    ) -> Result<Value, Diagnostic> {
        if let Some(scope) = self.scopes.last()
            && let Some(e) = scope.values.get(name).and_then(|v| v.get(index as usize))
        {
            let have = self.ctx.value_type(e.value);
            if have != ty {
                let shown = if index == 0 {
                    name.to_string()
                } else {
                    format!("{name}#{index}")
                };
                return Err(self
                    .error_at(
                        span,
                        format!(
                            "use of value '{shown}' expects different type than prior uses: {} vs {}",
                            display::quoted_type(ty),
                            display::quoted_type(have)
                        ),
                    )
                    .with_note(Diagnostic::note(Some(e.span), "prior use here")));
            }
            return Ok(e.value);
        }
        let mut st = OperationState::new("builtin.unrealized_forward_ref");
        st.result_types.push(*ty);
        st.span = Some(span);
        let ph = self.ctx.create_op(st);
        let v = self.ctx.result(ph, 0);
        let Some(scope) = self.scopes.last_mut() else {
            return Ok(v);
        };
        let entries = scope.values.entry(Rc::from(name)).or_default();
        entries.set(
            index as usize,
            ValueEntry {
                value: v,
                span,
                forward: true,
            },
        );
        Ok(v)
    }

    /// A defined (not forward-referenced) value.
    pub(crate) fn lookup_value(&self, name: &str, index: u32) -> Option<Value> {
        let e = self.scopes.last()?.values.get(name)?.get(index as usize)?;
        (!e.forward).then_some(e.value)
    }

    /// `%name` or `%name#N`.
    pub(crate) fn parse_ssa_use(&mut self) -> Result<UnresolvedOperand, Diagnostic> {
        let (name, index, span) = self.parse_ssa_use_raw()?;
        Ok(UnresolvedOperand {
            name: name.to_string(),
            index,
            span,
        })
    }

    /// `%name#N` as a source slice (no allocation).
    pub(super) fn parse_ssa_use_raw(&mut self) -> Result<(&'s str, u32, Span), Diagnostic> {
        if !self.at(Token::PercentId) {
            return Err(self.err_expected("SSA operand"));
        }
        let t = self.bump();
        let mut span = t.span;
        let mut index = 0;
        if self.at(Token::HashId) && self.cur.start() == t.end() {
            let h = self.bump();
            index = h.text[1..]
                .parse::<u32>()
                .ok()
                .filter(|i| *i < MAX_RESULTS)
                .ok_or_else(|| self.error_at(h.span, "invalid SSA value result number"))?;
            span = span.join(h.span);
        }
        Ok((t.text, index, span))
    }

    // ----- blocks ------------------------------------------------------------------

    /// The block named `name` in the current region, created on first reference.
    pub(super) fn block_ref(&mut self, name: &str, span: Span) -> Result<BlockId, Diagnostic> {
        let Some(rs) = self.regions.last_mut() else {
            return Err(self.error_at(span, "block reference outside of a region"));
        };
        if let Some(b) = rs.blocks.get(name) {
            return Ok(b.block);
        }
        let block = self.ctx.create_block(Vec::new());
        rs.blocks.insert(
            name.to_string(),
            BlockEntry {
                block,
                defined: false,
                span,
            },
        );
        Ok(block)
    }

    pub(crate) fn parse_successor(&mut self) -> Result<BlockId, Diagnostic> {
        if !self.at(Token::CaretId) {
            return Err(self.err_expected("block name"));
        }
        let t = self.bump();
        self.block_ref(t.text, t.span)
    }
}
