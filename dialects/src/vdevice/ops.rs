//! `vdevice.device`, `vdevice.roperator`, `vdevice.program`: declarations, custom forms and
//! verifiers (docs/dialects/vdevice.md).
//!
//! ```mlir
//! vdevice.device @fig9 {sms = 1, veus_per_sm = 2, threads = 256, smem = 0, regs = 32,
//!                       sm_limits = array<i64: 32, 2048, 65536, 98304>}
//! vdevice.roperator @matmul {kernels = [{rtasks = 2, threads = 256, smem = 0, regs = 32, us = 1.0}]}
//! vdevice.roperator @conv(@matmul, @relu) {kernels = [...]}
//! vdevice.program @p0 on @fig9 [
//!   veu 0: @matmul[0:2], barrier [<1, 3>], @conv[0]
//!   veu 1: @relu[0:4], barrier [<0, 1>], @conv[1]
//! ]
//! ```

use rtile::diagnostics::Diagnostic;
use rtile::dialect::OpTraits;
use rtile::dialect::decl::{Assembly, Constraint, OpDecl, Verify};
use rtile::ir::attributes::Attribute;
use rtile::ir::{Context, NamedAttribute, OpId, OperationState};
use rtile::parser::OpAsmParser;
use rtile::printer::OpAsmPrinter;

use super::{DEVICE, Entry, PROGRAM, Program, ROPERATOR, ROperator, VDevice, lookup};

const SYMBOL: OpTraits = OpTraits {
    symbol: true,
    ..OpTraits::NONE
};
const NO_OPERANDS: Constraint = Constraint::Operands(0, "takes no operands");
const NO_RESULTS: Constraint = Constraint::Results(0, "has no results");
const NO_REGIONS: Constraint = Constraint::Regions(0, "has no regions");

/// `vdevice.device`.
pub const DEVICE_OP: OpDecl = OpDecl {
    name: DEVICE,
    summary: "a vDevice: SMs × vEUs per SM persistent blocks of one shape (Rammer §3.2, §4.1.2)",
    traits: SYMBOL,
    inherent: &["sym_name"],
    constraints: &[NO_OPERANDS, NO_RESULTS, NO_REGIONS],
    verify: Verify::Message(verify_device),
    assembly: Some(Assembly {
        parse: parse_symbol_op,
        print: print_symbol_op,
    }),
};

/// `vdevice.roperator`.
pub const ROPERATOR_OP: OpDecl = OpDecl {
    name: ROPERATOR,
    summary: "an rOperator: its DFG predecessors and rKernel variants (Rammer §3.1)",
    traits: SYMBOL,
    inherent: &["sym_name"],
    constraints: &[NO_OPERANDS, NO_RESULTS, NO_REGIONS],
    verify: Verify::Message(verify_roperator),
    assembly: Some(Assembly {
        parse: parse_roperator,
        print: print_roperator,
    }),
};

/// `vdevice.program`.
pub const PROGRAM_OP: OpDecl = OpDecl {
    name: PROGRAM,
    summary: "an rProgram prog[vEU][order] with barrier-rTasks: one launch (Rammer §3.2)",
    traits: SYMBOL,
    inherent: &["sym_name"],
    constraints: &[NO_OPERANDS, NO_RESULTS, NO_REGIONS],
    verify: Verify::Message(verify_program),
    assembly: Some(Assembly {
        parse: parse_program,
        print: print_program,
    }),
};

fn set_sym_name(state: &mut OperationState, name: String) {
    state.properties = Some(Attribute::dictionary(vec![NamedAttribute {
        name: "sym_name".into(),
        value: Attribute::string(name),
    }]));
}

fn sym(ctx: &Context, op: OpId) -> &str {
    rtile::verifier::symbol_name(ctx, op).unwrap_or("")
}

fn parse_attrs(p: &mut OpAsmParser<'_, '_>, state: &mut OperationState) -> Result<(), Diagnostic> {
    let mut attrs = Vec::new();
    p.parse_optional_attr_dict(&mut attrs)?;
    for a in attrs {
        state.add_attribute(a.name, a.value);
    }
    Ok(())
}

/// `@name attr-dict`.
fn parse_symbol_op(
    p: &mut OpAsmParser<'_, '_>,
    state: &mut OperationState,
) -> Result<(), Diagnostic> {
    let name = p.parse_symbol_name()?;
    set_sym_name(state, name);
    parse_attrs(p, state)
}

fn print_symbol_op(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    p.write(" ");
    p.print_symbol_name(sym(ctx, op));
    p.print_optional_attr_dict(&ctx.op(op).attributes, &["sym_name"]);
}

/// `@name (@pred, ...)? attr-dict`: the predecessors go to `deps`.
fn parse_roperator(
    p: &mut OpAsmParser<'_, '_>,
    state: &mut OperationState,
) -> Result<(), Diagnostic> {
    let name = p.parse_symbol_name()?;
    set_sym_name(state, name);
    if p.parse_optional_punct("(") {
        let mut deps = Vec::new();
        if !p.parse_optional_punct(")") {
            loop {
                deps.push(Attribute::symbol(p.parse_symbol_name()?));
                if p.parse_optional_punct(")") {
                    break;
                }
                p.parse_punct(",")?;
            }
        }
        state.add_attribute("deps", Attribute::array(deps));
    }
    parse_attrs(p, state)
}

fn print_roperator(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    p.write(" ");
    p.print_symbol_name(sym(ctx, op));
    let deps = ctx.attr(op, "deps").and_then(|a| a.as_array());
    let deps: Option<Vec<&str>> = deps.and_then(|v| v.iter().map(|a| a.as_flat_symbol()).collect());
    let mut elided = vec!["sym_name"];
    if let Some(d) = deps.filter(|d| !d.is_empty()) {
        p.write("(");
        for (i, s) in d.iter().enumerate() {
            if i > 0 {
                p.write(", ");
            }
            p.print_symbol_name(s);
        }
        p.write(")");
        elided.push("deps");
    }
    p.print_optional_attr_dict(&ctx.op(op).attributes, &elided);
}

/// One entry: `(N:)? @op[a]`, `(N:)? @op[a:b]` or `barrier [<v, o>, ...]`; the order label
/// of the expanded form is checked against the running order.
fn parse_entry(
    p: &mut OpAsmParser<'_, '_>,
    order: &mut u64,
    list: &mut Vec<Entry>,
) -> Result<(), Diagnostic> {
    if p.parse_optional_keyword("barrier") {
        p.parse_punct("[")?;
        let mut pairs = Vec::new();
        loop {
            p.parse_punct("<")?;
            let v = nonneg(p)?;
            p.parse_punct(",")?;
            let o = nonneg(p)?;
            p.parse_punct(">")?;
            pairs.push((v, o));
            if p.parse_optional_punct("]") {
                break;
            }
            p.parse_punct(",")?;
        }
        list.push(Entry::Barrier(pairs));
        return Ok(());
    }
    let here = p.current_span();
    let label = nonneg(p)?;
    if label != *order {
        return Err(p.error_at(
            here,
            format!("order label {label} does not match the rTask's order {order}"),
        ));
    }
    p.parse_punct(":")?;
    parse_tasks(p, None, order, list)
}

fn parse_tasks(
    p: &mut OpAsmParser<'_, '_>,
    name: Option<String>,
    order: &mut u64,
    list: &mut Vec<Entry>,
) -> Result<(), Diagnostic> {
    let op = match name {
        Some(n) => n,
        None => p.parse_symbol_name()?,
    };
    p.parse_punct("[")?;
    let here = p.current_span();
    let first = nonneg(p)?;
    let end = if p.parse_optional_punct(":") {
        nonneg(p)?
    } else {
        first + 1
    };
    p.parse_punct("]")?;
    if end <= first {
        return Err(p.error_at(here, format!("empty rTask range [{first}:{end}]")));
    }
    *order += end - first;
    let mut prog = Program {
        veus: vec![std::mem::take(list)],
    };
    for id in first..end {
        prog.append(&op, id, 0);
    }
    *list = prog.veus.pop().unwrap_or_default();
    Ok(())
}

fn nonneg(p: &mut OpAsmParser<'_, '_>) -> Result<u64, Diagnostic> {
    let here = p.current_span();
    let v = p.parse_integer()?;
    u64::try_from(v).map_err(|_| p.error_at(here, "expected a non-negative integer"))
}

/// `@name on @device [ (veu N : entry (, entry)*)* ] attr-dict`.
fn parse_program(
    p: &mut OpAsmParser<'_, '_>,
    state: &mut OperationState,
) -> Result<(), Diagnostic> {
    let name = p.parse_symbol_name()?;
    set_sym_name(state, name);
    p.parse_keyword("on")?;
    let dev = p.parse_symbol_name()?;
    state.add_attribute("device", Attribute::symbol(dev));
    p.parse_punct("[")?;
    let mut prog = Program::default();
    while !p.parse_optional_punct("]") {
        let here = p.current_span();
        p.parse_keyword("veu")?;
        let v = nonneg(p)?;
        if v as usize != prog.veus.len() {
            return Err(p.error_at(
                here,
                format!(
                    "expected 'veu {}' (vEUs are listed in order)",
                    prog.veus.len()
                ),
            ));
        }
        p.parse_punct(":")?;
        let mut list = Vec::new();
        let mut order = 0;
        if p.peek_keyword().is_none_or(|k| k != "veu") && !p.peek_punct("]") {
            loop {
                match p.parse_optional_symbol_name() {
                    Some(n) => parse_tasks(p, Some(n), &mut order, &mut list)?,
                    None => parse_entry(p, &mut order, &mut list)?,
                }
                if !p.parse_optional_punct(",") {
                    break;
                }
            }
        }
        prog.veus.push(list);
    }
    state.add_attribute("schedule", prog.to_attr());
    parse_attrs(p, state)
}

/// The compact form: one line per vEU, rTask runs as ranges. With the unit attribute
/// `expanded`, Fig. 9's form: one line per rTask or barrier, rTasks labelled with their
/// order.
fn print_program(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    p.write(" ");
    p.print_symbol_name(sym(ctx, op));
    let dev = ctx.attr(op, "device").and_then(|a| a.as_flat_symbol());
    let prog = ctx.attr(op, "schedule").map(Program::from_attr);
    let (Some(dev), Some(Ok(prog))) = (dev, prog) else {
        // Not printable in the custom form: keep every attribute visible.
        p.print_optional_attr_dict(&ctx.op(op).attributes, &["sym_name"]);
        return;
    };
    let expanded = ctx.attr(op, "expanded").is_some();
    p.write(" on ");
    p.print_symbol_name(dev);
    p.write(" [");
    for (v, list) in prog.veus.iter().enumerate() {
        p.write(&format!("\n  veu {v}:"));
        let mut order = 0;
        let mut first = true;
        for e in list {
            let items: Vec<String> = match e {
                Entry::Barrier(pairs) => {
                    let s: Vec<String> = pairs.iter().map(|(u, o)| format!("<{u}, {o}>")).collect();
                    vec![format!("barrier [{}]", s.join(", "))]
                }
                Entry::Tasks { op, first, count } if expanded => (*first..first + count)
                    .map(|id| {
                        order += 1;
                        format!("{}: @{op}[{id}]", order - 1)
                    })
                    .collect(),
                Entry::Tasks { op, first, count } => {
                    order += count;
                    if *count == 1 {
                        vec![format!("@{op}[{first}]")]
                    } else {
                        vec![format!("@{op}[{first}:{}]", first + count)]
                    }
                }
            };
            for it in items {
                let sep = if first { "" } else { "," };
                first = false;
                if expanded {
                    p.write(&format!("{sep}\n    {it}"));
                } else {
                    p.write(&format!("{sep} {it}"));
                }
            }
        }
    }
    p.write("\n]");
    p.print_optional_attr_dict(&ctx.op(op).attributes, &["sym_name", "device", "schedule"]);
}

fn verify_device(ctx: &Context, op: OpId) -> Result<(), String> {
    let d = VDevice::from_op(ctx, op)?;
    let occ = d.occupancy();
    if d.veus_per_sm > occ {
        return Err(format!(
            "{} vEUs per SM, but only {occ} blocks of {} threads, {} bytes of shared memory and {} registers per thread fit on one SM",
            d.veus_per_sm, d.threads, d.smem, d.regs
        ));
    }
    Ok(())
}

fn verify_roperator(ctx: &Context, op: OpId) -> Result<(), String> {
    let r = ROperator::from_op(ctx, op)?;
    for d in &r.deps {
        if d == &r.name {
            return Err("depends on itself".into());
        }
        if lookup(ctx, op, ROPERATOR, d).is_none() {
            return Err(format!(
                "depends on @{d}, which is not a vdevice.roperator here"
            ));
        }
    }
    Ok(())
}

/// The rules of docs/dialects/vdevice.md, "Verification".
fn verify_program(ctx: &Context, op: OpId) -> Result<(), String> {
    let dev_name = ctx
        .attr(op, "device")
        .and_then(|a| a.as_flat_symbol())
        .ok_or("requires 'device', a symbol reference to a vdevice.device")?;
    let prog = Program::from_attr(
        ctx.attr(op, "schedule")
            .ok_or("requires 'schedule', one array of entries per vEU")?,
    )?;
    let dev_op = lookup(ctx, op, DEVICE, dev_name)
        .ok_or_else(|| format!("device @{dev_name} is not a vdevice.device here"))?;
    let dev = VDevice::from_op(ctx, dev_op).map_err(|m| format!("device @{dev_name}: {m}"))?;
    if prog.veus.len() as u64 > dev.veus() {
        return Err(format!(
            "lists {} vEUs, but @{dev_name} has {} ({} SMs × {})",
            prog.veus.len(),
            dev.veus(),
            dev.sms,
            dev.veus_per_sm
        ));
    }
    let cap = dev.capacity();
    if prog.has_cross_veu_barrier() && prog.veus.len() as u64 > cap {
        return Err(format!(
            "has barriers across vEUs but launches {} vEUs, more than the {cap} blocks that can be co-resident ({} SMs × {} per SM): a waiting block could hold the SM its awaited block needs, a deadlock",
            prog.veus.len(),
            dev.sms,
            dev.occupancy()
        ));
    }
    prog.check_barriers()?;
    let place = prog.placements()?;
    let mut ops: Vec<String> = place.keys().map(|k| k.0.clone()).collect();
    ops.sort();
    ops.dedup();
    let mut deps = Vec::new();
    for name in &ops {
        let rop_op = lookup(ctx, op, ROPERATOR, name)
            .ok_or_else(|| format!("@{name} is not a vdevice.roperator here"))?;
        let r = ROperator::from_op(ctx, rop_op).map_err(|m| format!("@{name}: {m}"))?;
        let k = r.kernel();
        if k.threads > dev.threads || k.smem > dev.smem || k.regs > dev.regs {
            return Err(format!(
                "@{name}'s rTasks need {} threads, {} bytes of shared memory and {} registers per thread, more than a vEU of @{dev_name} has ({}, {}, {})",
                k.threads, k.smem, k.regs, dev.threads, dev.smem, dev.regs
            ));
        }
        let n = place.keys().filter(|key| &key.0 == name).count() as u64;
        if let Some(id) = (0..k.rtasks).find(|&i| !place.contains_key(&(name.clone(), i))) {
            return Err(format!(
                "rTask {id} of @{name} is not scheduled ({n} of its {} rTasks are)",
                k.rtasks
            ));
        }
        if n != k.rtasks {
            return Err(format!(
                "schedules rTask ids of @{name} beyond its {} rTasks",
                k.rtasks
            ));
        }
        deps.extend(
            r.deps
                .iter()
                .filter(|d| ops.contains(d))
                .map(|d| (d.clone(), name.clone())),
        );
    }
    prog.simulate(&|_| 1.0)?;
    prog.check_dependencies(&deps)
}
