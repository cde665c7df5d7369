//! Operations in generic and custom form, regions and blocks.

use super::lexer::{self, Token};
use super::{
    MAX_RESULTS, OpAsmParser, State, TrailingLoc, UnresolvedOperand, move_inherent_to_properties,
};
use crate::diagnostics::Diagnostic;
use crate::dialect::dialect_of;
use crate::ir::{
    AttrKind, Attribute, BlockId, OpId, OperationState, RegionId, Span, Type, TypeKind,
};

impl<'s> State<'s> {
    // ----- operations --------------------------------------------------------------

    /// Parses one operation and appends it to `block`.
    pub(super) fn parse_operation(&mut self, block: BlockId) -> Result<OpId, Diagnostic> {
        self.enter()?;
        let r = self.parse_operation_inner(block);
        self.leave();
        r
    }

    fn parse_operation_inner(&mut self, block: BlockId) -> Result<OpId, Diagnostic> {
        let start = self.cur.start();
        let mut results: Vec<(&'s str, u32, Span)> = Vec::new();
        if self.at(Token::PercentId) {
            loop {
                if !self.at(Token::PercentId) {
                    return Err(self.err_expected("SSA value name"));
                }
                let t = self.bump();
                let mut count = 1u32;
                if self.eat_punct(":") {
                    if !self.at(Token::Integer) {
                        return Err(self.err_expected("integer number of results"));
                    }
                    let n = self.bump();
                    count = n
                        .text
                        .parse::<u32>()
                        .ok()
                        .filter(|c| *c > 0 && *c < MAX_RESULTS)
                        .ok_or_else(|| {
                            self.error_at(
                                n.span,
                                "expected named operation to have at least 1 result",
                            )
                        })?;
                }
                results.push((t.text, count, t.span));
                if !self.eat_punct(",") {
                    break;
                }
            }
            if !self.at_punct("=") {
                return Err(self.err_expected("'=' after SSA name"));
            }
            self.bump();
        }
        let num_results: usize = results.iter().map(|r| r.1 as usize).sum();
        let name_tok = self.cur;
        let (state, deferred) = match self.cur.token {
            Token::String => self.parse_generic_op(start)?,
            Token::BareId => self.parse_custom_op(start, num_results)?,
            _ => return Err(self.err_expected("operation name in quotes")),
        };
        let op = self.ctx.create_op(state);
        if let Some((name, span)) = deferred {
            self.deferred_locs.push((op, name, span));
        }
        let nres = self.ctx.results(op).len();
        if !results.is_empty() && nres != num_results {
            return Err(self.error_at(
                self.span_of(start, name_tok.end()),
                format!("operation defines {nres} results but was provided {num_results} to bind"),
            ));
        }
        let mut k = 0;
        for (name, count, span) in results {
            for i in 0..count {
                let v = self.ctx.result(op, k);
                self.define_value(name, i, v, span)?;
                k += 1;
            }
        }
        self.ctx.append_op(block, op);
        Ok(op)
    }

    #[allow(clippy::type_complexity)]
    fn parse_generic_op(
        &mut self,
        start: usize,
    ) -> Result<(OperationState, Option<(String, Span)>), Diagnostic> {
        let name_tok = self.bump();
        let raw = &name_tok.text[1..name_tok.text.len() - 1];
        // Fast path: op names almost never contain escapes.
        let name = if raw.contains('\\') {
            lexer::unescape(name_tok.text).map_err(|e| self.bad_escape(name_tok.span, e))?
        } else {
            raw.to_string()
        };
        if name.is_empty() {
            return Err(self.error_at(name_tok.span, "empty operation name is invalid"));
        }
        let registry = self.registry.clone();
        let def = registry.op(&name);
        if def.is_none() {
            let dialect = dialect_of(&name);
            if registry.is_partial(dialect) {
                // An upstream op rtile does not model: opaque (generic form, no
                // verification) when unregistered ops are allowed, as mlir-opt would keep it.
                if !self.ctx.allow_unregistered {
                    return Err(self.error_at(
                        name_tok.span,
                        format!(
                            "operation '{name}' of registered dialect '{dialect}' is not modelled by rtile; use --allow-unregistered-dialect to pass it through unverified"
                        ),
                    ));
                }
            } else if registry.has_dialect(dialect) {
                return Err(self.error_at(
                    name_tok.span,
                    format!(
                        "unregistered operation '{name}' found in dialect ('{dialect}') that does not allow unknown operations"
                    ),
                ));
            }
            if !self.ctx.allow_unregistered {
                return Err(self.error_at(
                    name_tok.span,
                    "operation being parsed with an unregistered dialect. If this is intended, please use -allow-unregistered-dialect with the MLIR tool used",
                ));
            }
        }
        let isolated = def.is_some_and(|d| d.traits().isolated_from_above);
        let mut state = OperationState::new(self.intern(&name));

        self.expect_punct("(")?;
        let mut operands = Vec::new();
        if !self.at_punct(")") {
            loop {
                operands.push(self.parse_ssa_use_raw()?);
                if !self.eat_punct(",") {
                    break;
                }
            }
        }
        if !self.eat_punct(")") {
            return Err(self.err_expected("')' to end operand list"));
        }
        if self.eat_punct("[") {
            loop {
                let b = self.parse_successor()?;
                state.successors.push(b);
                if !self.eat_punct(",") {
                    break;
                }
            }
            self.expect_punct("]")?;
        }
        if self.at_punct("<") && self.peek_next().token == Token::LBrace {
            self.bump();
            let props = self.parse_dictionary()?;
            state.properties = Some(Attribute::new(AttrKind::Dictionary(props)));
            self.expect_punct(">")?;
        }
        if self.at_punct("(") && self.peek_next().token == Token::LBrace {
            self.bump();
            loop {
                let r = self.parse_region_impl(&[], isolated)?;
                state.regions.push(r);
                if !self.eat_punct(",") {
                    break;
                }
            }
            if !self.eat_punct(")") {
                return Err(self.err_expected("')' to end region list"));
            }
        }
        if self.at_punct("{") {
            state.attributes = self.parse_dictionary()?;
        }
        // Without `<{...}>`, a registered op's inherent attributes come from the
        // attribute dictionary (MLIR's setPropertiesFromAttr); then the defaults of the
        // properties not written at all.
        if let Some(d) = def {
            if state.properties.is_none() {
                move_inherent_to_properties(&mut state, d.inherent_attributes());
            }
            state.fill_default_properties(d.default_properties());
        }
        if !self.at_punct(":") {
            return Err(self.err_expected("':' followed by operation type"));
        }
        self.bump();
        let ty_start = self.cur.span;
        let ty = self.parse_type()?;
        let TypeKind::Function { inputs, results } = ty.kind() else {
            return Err(self.error_at(ty_start, "expected function type"));
        };
        if inputs.len() != operands.len() {
            return Err(self.error_at(
                ty_start,
                format!(
                    "expected {} operand type{} but had {}",
                    operands.len(),
                    if operands.len() == 1 { "" } else { "s" },
                    inputs.len()
                ),
            ));
        }
        for (&(name, index, span), t) in operands.iter().zip(inputs) {
            let v = self.resolve_use(name, index, span, t)?;
            state.operands.push(v);
        }
        state.result_types = results.clone();
        state.span = Some(self.span_of(start, name_tok.end()));
        state.location = self.file_location(name_tok.start());
        let deferred = self.finish_location(&mut state)?;
        Ok((state, deferred))
    }

    #[allow(clippy::type_complexity)]
    fn parse_custom_op(
        &mut self,
        start: usize,
        num_results: usize,
    ) -> Result<(OperationState, Option<(String, Span)>), Diagnostic> {
        let name_tok = self.bump();
        let written = name_tok.text;
        let registry = self.registry.clone();
        let (full, def) = if written.contains('.') {
            match registry.op(written) {
                Some(d) => (written.to_string(), d),
                None => {
                    let dialect = dialect_of(written);
                    let defaulted = self
                        .default_dialects
                        .last()
                        .map(|d| format!("{d}.{written}"))
                        .and_then(|n| registry.op(&n).map(|d| (n, d)));
                    match defaulted {
                        Some(x) => x,
                        None if !registry.has_dialect(dialect) => {
                            let mut known: Vec<&str> =
                                registry.dialects().iter().map(|d| d.0).collect();
                            known.sort_unstable();
                            return Err(self
                                .error_at(
                                    name_tok.span,
                                    format!(
                                        "Dialect `{dialect}' not found for custom op '{written}' "
                                    ),
                                )
                                .with_note(Diagnostic::note(
                                    Some(name_tok.span),
                                    format!(
                                        "Available dialects: {} ; for more info on dialect registration see https://mlir.llvm.org/getting_started/Faq/#registered-loaded-dependent-whats-up-with-dialects-management",
                                        known.join(", ")
                                    ),
                                )));
                        }
                        None if registry.is_partial(dialect) => {
                            return Err(self.error_at(
                                name_tok.span,
                                format!(
                                    "custom op '{written}' of registered dialect '{dialect}' is not modelled by rtile; write it in generic form with --allow-unregistered-dialect to pass it through unverified"
                                ),
                            ));
                        }
                        None => {
                            return Err(self.error_at(
                                name_tok.span,
                                format!("custom op '{written}' is unknown"),
                            ));
                        }
                    }
                }
            }
        } else {
            let builtin = format!("builtin.{written}");
            if let Some(d) = registry.op(&builtin) {
                (builtin, d)
            } else {
                let defaulted = self
                    .default_dialects
                    .last()
                    .map(|d| format!("{d}.{written}"))
                    .and_then(|n| registry.op(&n).map(|d| (n, d)));
                match defaulted {
                    Some(x) => x,
                    None => {
                        // At top level the default dialect is builtin's, as in MLIR.
                        let d = self
                            .default_dialects
                            .last()
                            .map_or("builtin", |d| d.as_str());
                        let tried = format!(" (tried '{d}.{written}' as well)");
                        return Err(self.error_at(
                            name_tok.span,
                            format!("custom op '{written}' is unknown{tried}"),
                        ));
                    }
                }
            }
        };
        if !def.has_custom_assembly() {
            return Err(self.error_at(
                name_tok.span,
                format!("custom op '{full}' has no custom assembly form"),
            ));
        }
        let mut state = OperationState::new(self.intern(&full));
        state.span = Some(self.span_of(start, name_tok.end()));
        state.location = self.file_location(name_tok.start());
        self.default_dialects.push(dialect_of(&full).to_string());
        self.isolated.push(def.traits().isolated_from_above);
        let saved = std::mem::replace(&mut self.num_results, num_results);
        let r = {
            let mut p = OpAsmParser::new(self);
            def.parse(&mut p, &mut state)
        };
        self.num_results = saved;
        self.isolated.pop();
        self.default_dialects.pop();
        r?;
        // Custom parsers may add attributes in any order; keep MLIR's sorted dictionary.
        state.attributes.sort_by_key(|a| a.name);
        let deferred = self.finish_location(&mut state)?;
        Ok((state, deferred))
    }

    // ----- regions -----------------------------------------------------------------

    /// `{ blocks }`; `entry_args` become the entry block's arguments.
    pub(crate) fn parse_region_impl(
        &mut self,
        entry_args: &[(UnresolvedOperand, Type)],
        isolated: bool,
    ) -> Result<RegionId, Diagnostic> {
        if !self.at_punct("{") {
            return Err(self.err_expected("'{' to begin a region"));
        }
        self.enter()?;
        self.bump();
        self.push_region_scope(isolated);
        let r = self.parse_region_body(entry_args);
        let popped = self.pop_region_scope(isolated);
        self.leave();
        let region = r?;
        popped?;
        Ok(region)
    }

    fn parse_region_body(
        &mut self,
        entry_args: &[(UnresolvedOperand, Type)],
    ) -> Result<RegionId, Diagnostic> {
        let region = self.ctx.create_region();
        if self.at_punct("}") && entry_args.is_empty() {
            self.bump();
            return Ok(region);
        }
        if self.at(Token::CaretId) {
            if !entry_args.is_empty() {
                return Err(self.error_here("invalid block name in region with named arguments"));
            }
        } else {
            let block = self.ctx.create_block(Vec::new());
            self.ctx.append_block(region, block);
            for (i, (o, ty)) in entry_args.iter().enumerate() {
                let v = self.ctx.add_block_argument(block, *ty, Some(o.span));
                let loc = self
                    .pending_arg_locs
                    .remove(&o.span.start)
                    .unwrap_or(TrailingLoc::None);
                self.set_arg_location(block, i, o.span, loc);
                self.define_value(&o.name, 0, v, o.span)?;
            }
            self.parse_block_body(block)?;
        }
        while self.at(Token::CaretId) {
            self.parse_labeled_block(region)?;
        }
        if !self.at_punct("}") {
            return Err(self.err_expected("'}' to end a region"));
        }
        self.bump();
        Ok(region)
    }

    fn parse_block_body(&mut self, block: BlockId) -> Result<(), Diagnostic> {
        loop {
            match self.cur.token {
                Token::CaretId | Token::RBrace => return Ok(()),
                Token::Eof => return Err(self.err_expected("'}' to end a region")),
                _ => {
                    self.parse_operation(block)?;
                }
            }
        }
    }

    fn parse_labeled_block(&mut self, region: RegionId) -> Result<(), Diagnostic> {
        let t = self.bump();
        let block = self.block_ref(t.text, t.span)?;
        if let Some(rs) = self.regions.last_mut()
            && let Some(e) = rs.blocks.get_mut(t.text)
        {
            if e.defined {
                return Err(self.error_at(t.span, format!("redefinition of block '{}'", t.text)));
            }
            e.defined = true;
            e.span = t.span;
        }
        self.ctx.append_block(region, block);
        self.ctx.set_block_span(block, t.span);
        if self.eat_punct("(") {
            if !self.at_punct(")") {
                loop {
                    let o = self.parse_ssa_use()?;
                    self.expect_punct(":")?;
                    let ty = self.parse_type()?;
                    let loc = self.parse_trailing_location()?;
                    let v = self.ctx.add_block_argument(block, ty, Some(o.span));
                    let i = self.ctx.block_args(block).len() - 1;
                    self.set_arg_location(block, i, o.span, loc);
                    self.define_value(&o.name, o.index, v, o.span)?;
                    if !self.eat_punct(",") {
                        break;
                    }
                }
            }
            self.expect_punct(")")?;
        }
        if !self.at_punct(":") {
            return Err(self.err_expected("':' after block name"));
        }
        self.bump();
        self.parse_block_body(block)
    }
}
