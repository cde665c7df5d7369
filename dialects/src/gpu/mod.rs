//! `gpu`: the subset of upstream MLIR's gpu dialect that rtile's kernels use, with upstream
//! names, generic syntax and verification rules (`gpu.module`, `gpu.func`, the id ops,
//! `gpu.barrier`, `gpu.return`, `gpu.launch_func`, `gpu.memcpy`).

pub mod common;
pub mod target;

use rtile::dialect::{Dialect, OpDefinition, OpTraits};
use rtile::ir::attributes::{Attribute, DenseArray};
use rtile::ir::types::Type;
use rtile::ir::{AttrKind, Context, OpId, Signedness, TypeKind, Value};

use common::{
    counts, custom, is_address_space, memory_space, op, parse_attrs, parse_values, print_attrs,
    print_values, pure, terminator,
};
use rtile::diagnostics::Diagnostic;
use rtile::ir::{NamedAttribute, OperationState};
use rtile::parser::OpAsmParser;
use rtile::printer::OpAsmPrinter;

/// `gpu.thread_id x`: the dimension keyword, then an optional attribute dictionary.
fn parse_id(p: &mut OpAsmParser<'_, '_>, state: &mut OperationState) -> Result<(), Diagnostic> {
    let d = p.parse_any_keyword()?;
    if !["x", "y", "z"].contains(&d.as_str()) {
        return Err(p.error_here("expected dimension x, y or z"));
    }
    state.properties = Some(Attribute::dictionary(vec![NamedAttribute {
        name: "dimension".into(),
        value: Attribute::new(AttrKind::Dialect {
            dialect: "gpu".into(),
            body: format!("<dim {d}>"),
        }),
    }]));
    parse_attrs(p, state)?;
    state.result_types.push(Type::index());
    Ok(())
}

/// `gpu.module @name [#target, ...] attributes {...} { ... }`: the optional target list is
/// the `targets` property (`#nvvm.target<chip = "sm_90">`, `#rocdl.target<chip = "gfx90a">`),
/// as upstream's `GPUModuleOp` declares it.
fn parse_module(p: &mut OpAsmParser<'_, '_>, state: &mut OperationState) -> Result<(), Diagnostic> {
    let name = p.parse_symbol_name()?;
    let mut props = vec![NamedAttribute {
        name: "sym_name".into(),
        value: Attribute::new(AttrKind::String {
            value: name,
            ty: None,
        }),
    }];
    if p.peek_punct("[") {
        let targets = p.parse_attribute()?;
        props.push(NamedAttribute {
            name: "targets".into(),
            value: targets,
        });
    }
    state.properties = Some(Attribute::dictionary(props));
    let mut attrs = Vec::new();
    p.parse_optional_attr_dict_with_keyword(&mut attrs)?;
    state.attributes.extend(attrs);
    let r = p.parse_region(&[])?;
    state.regions.push(r);
    Ok(())
}

fn print_module(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    let name = ctx
        .inherent_attr(op, "sym_name")
        .and_then(|a| a.as_str())
        .unwrap_or("");
    p.print_symbol_name(name);
    if let Some(t) = ctx.inherent_attr(op, "targets") {
        p.write(" ");
        p.print_attribute(t);
    }
    p.print_optional_attr_dict_with_keyword(&ctx.op(op).attributes, &[]);
    if let Some(&r) = ctx.regions(op).first() {
        p.write(" ");
        p.print_region(r, false, false);
    }
}

/// Inherent attributes of `gpu.func` stored as properties (as mlir-opt-22 stores them).
const FUNC_PROPS: [&str; 6] = [
    "arg_attrs",
    "known_block_size",
    "known_grid_size",
    "private_attrib_attrs",
    "res_attrs",
    "workgroup_attrib_attrs",
];

fn parse_arg_list(
    p: &mut OpAsmParser<'_, '_>,
) -> Result<Vec<(rtile::parser::UnresolvedOperand, Type)>, Diagnostic> {
    let mut v = Vec::new();
    p.parse_punct("(")?;
    if p.parse_optional_punct(")") {
        return Ok(v);
    }
    loop {
        let (a, t) = p.parse_argument(true)?;
        v.push((a, t.unwrap_or(Type::new(TypeKind::None))));
        if !p.parse_optional_punct(",") {
            break;
        }
    }
    p.parse_punct(")")?;
    Ok(v)
}

/// `gpu.func @k(%a: T, ...) [-> (R)] [workgroup(...)] [private(...)] [kernel]
/// [attributes {...}] { ... }`.
fn parse_func(p: &mut OpAsmParser<'_, '_>, state: &mut OperationState) -> Result<(), Diagnostic> {
    let name = p.parse_symbol_name()?;
    let args = parse_arg_list(p)?;
    let mut results = Vec::new();
    if p.parse_optional_punct("->") {
        if p.parse_optional_punct("(") {
            if !p.parse_optional_punct(")") {
                results = p.parse_type_list()?;
                p.parse_punct(")")?;
            }
        } else {
            results.push(p.parse_type()?);
        }
    }
    let wg = if p.parse_optional_keyword("workgroup") {
        parse_arg_list(p)?
    } else {
        Vec::new()
    };
    let private = if p.parse_optional_keyword("private") {
        parse_arg_list(p)?
    } else {
        Vec::new()
    };
    let kernel = p.parse_optional_keyword("kernel");
    let mut attrs = Vec::new();
    p.parse_optional_attr_dict_with_keyword(&mut attrs)?;
    let mut props = vec![NamedAttribute {
        name: "function_type".into(),
        value: Attribute::new(AttrKind::Type(Type::new(TypeKind::Function {
            inputs: args.iter().map(|a| a.1).collect(),
            results,
        }))),
    }];
    for a in attrs {
        if FUNC_PROPS.contains(&a.name.as_str()) {
            props.push(a);
        } else {
            state.attributes.push(a);
        }
    }
    state.properties = Some(Attribute::dictionary(props));
    state.attributes.push(NamedAttribute {
        name: "sym_name".into(),
        value: Attribute::new(AttrKind::String {
            value: name,
            ty: None,
        }),
    });
    state.attributes.push(NamedAttribute {
        name: "workgroup_attributions".into(),
        value: Attribute::new(AttrKind::Integer {
            value: wg.len() as i128,
            ty: Type::i64(),
        }),
    });
    if kernel {
        state.attributes.push(NamedAttribute {
            name: "gpu.kernel".into(),
            value: Attribute::unit(),
        });
    }
    state.attributes.sort_by_key(|a| a.name);
    let mut entry = args;
    entry.extend(wg);
    entry.extend(private);
    let r = p.parse_region(&entry)?;
    state.regions.push(r);
    Ok(())
}

fn print_func(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    let name = ctx
        .inherent_attr(op, "sym_name")
        .and_then(|a| a.as_str())
        .unwrap_or("");
    p.print_symbol_name(name);
    let (ninputs, results) = function_type(ctx, op)
        .map(|(i, r)| (i.len(), r.to_vec()))
        .unwrap_or_default();
    let wg = workgroup_attributions(ctx, op);
    let region = ctx.regions(op).first().copied();
    let args: Vec<rtile::ir::Value> = region
        .and_then(|r| ctx.region_blocks(r).first().copied())
        .map(|b| ctx.block_args(b).to_vec())
        .unwrap_or_default();
    // Attributions print as `%a : T` (upstream's spacing), arguments as `%a: T`.
    let list = |p: &mut OpAsmPrinter<'_>, vs: &[rtile::ir::Value], spaced: bool| {
        p.write("(");
        for (i, &v) in vs.iter().enumerate() {
            if i > 0 {
                p.write(", ");
            }
            if spaced {
                p.print_operand(v);
                p.write(" : ");
                p.print_type(ctx.value_type(v));
            } else {
                p.print_region_argument(v);
            }
        }
        p.write(")");
    };
    let n = ninputs.min(args.len());
    list(p, &args[..n], false);
    if !results.is_empty() {
        p.write(" -> (");
        p.print_types(&results);
        p.write(")");
    }
    let w = (n + wg).min(args.len());
    if w > n {
        p.write(" workgroup");
        list(p, &args[n..w], true);
    }
    if args.len() > w {
        p.write(" private");
        list(p, &args[w..], true);
    }
    if ctx.attr(op, "gpu.kernel").is_some() {
        p.write(" kernel");
    }
    let mut attrs: Vec<NamedAttribute> = ctx
        .op(op)
        .properties
        .as_ref()
        .and_then(|d| d.as_dictionary())
        .map(|d| d.to_vec())
        .unwrap_or_default();
    attrs.extend(ctx.op(op).attributes.iter().cloned());
    attrs.retain(|a| {
        ![
            "function_type",
            "sym_name",
            "workgroup_attributions",
            "gpu.kernel",
        ]
        .contains(&a.name.as_str())
    });
    attrs.sort_by_key(|a| a.name);
    p.print_optional_attr_dict_with_keyword(&attrs, &[]);
    if let Some(r) = region {
        p.write(" ");
        p.print_region(r, false, true);
    }
}

fn print_id(ctx: &Context, op: OpId, p: &mut OpAsmPrinter<'_>) {
    let d = match ctx.inherent_attr(op, "dimension").map(|x| x.kind()) {
        Some(AttrKind::Dialect { body, .. }) => body
            .trim_start_matches("<dim ")
            .trim_end_matches('>')
            .to_string(),
        _ => "x".into(),
    };
    // Upstream prints the (empty) attribute dictionary slot before the dimension, hence two
    // spaces: `gpu.thread_id  x`.
    p.write(&format!("  {d}"));
    print_attrs(ctx, op, p);
}

/// The `gpu` dialect subset.
pub struct GpuDialect;

impl Dialect for GpuDialect {
    fn namespace(&self) -> &'static str {
        "gpu"
    }
    fn description(&self) -> &'static str {
        "upstream gpu subset: kernels, thread/block ids, barriers, launches"
    }
    fn models_upstream_in_part(&self) -> bool {
        true
    }
    fn ops(&self) -> Vec<Box<dyn OpDefinition>> {
        let id = |name, summary| custom(name, summary, pure(), verify_id, parse_id, print_id);
        vec![
            custom(
                "gpu.module",
                "a module of kernels (a symbol table, no terminator)",
                OpTraits {
                    symbol_table: true,
                    symbol: true,
                    no_terminator: true,
                    single_block: true,
                    isolated_from_above: true,
                    ..OpTraits::default()
                },
                verify_module,
                parse_module,
                print_module,
            ),
            custom(
                "gpu.func",
                "a device function; `gpu.kernel` marks an entry point",
                OpTraits {
                    symbol: true,
                    isolated_from_above: true,
                    ..OpTraits::default()
                },
                verify_func,
                parse_func,
                print_func,
            ),
            id("gpu.thread_id", "the thread index within its block"),
            id("gpu.block_id", "the block index within the grid"),
            id("gpu.block_dim", "the block size"),
            id("gpu.grid_dim", "the grid size"),
            custom(
                "gpu.barrier",
                "waits until every thread of the block reaches it; shared memory is synchronised",
                OpTraits::default(),
                |ctx, o| counts(ctx, o, 0, 0),
                parse_attrs,
                print_attrs,
            ),
            custom(
                "gpu.return",
                "returns from a gpu.func",
                terminator(),
                verify_return,
                parse_values,
                print_values,
            ),
            // Generic-form only (parsed, verified structurally, not lowered to or simulated).
            op(
                "gpu.shuffle",
                "exchanges values between lanes of a subgroup",
                pure(),
                |ctx, o| counts(ctx, o, 3, 2),
            ),
            op(
                "gpu.dynamic_shared_memory",
                "the block's dynamic shared memory as a memref<?xi8> in workgroup memory",
                pure(),
                |ctx, o| counts(ctx, o, 0, 1),
            ),
            op(
                "gpu.lane_id",
                "the lane index within the subgroup",
                pure(),
                |ctx, o| counts(ctx, o, 0, 1),
            ),
            op(
                "gpu.subgroup_id",
                "the subgroup index within the block",
                pure(),
                |ctx, o| counts(ctx, o, 0, 1),
            ),
            op(
                "gpu.global_id",
                "the global thread index",
                pure(),
                |ctx, o| counts(ctx, o, 0, 1),
            ),
            op(
                "gpu.launch_func",
                "launches a kernel on a grid of blocks",
                OpTraits::default(),
                verify_launch,
            ),
            op(
                "gpu.memcpy",
                "copies a memref's contents to another memref (host code)",
                OpTraits::default(),
                verify_memcpy,
            ),
        ]
    }
}

fn verify_id(ctx: &Context, o: OpId) -> Result<(), String> {
    counts(ctx, o, 0, 1)?;
    if *ctx.value_type(ctx.result(o, 0)) != Type::index() {
        return Err("result #0 must be index".into());
    }
    match ctx.inherent_attr(o, "dimension").map(|x| x.kind()) {
        Some(AttrKind::Dialect { dialect, body })
            if dialect == "gpu" && ["<dim x>", "<dim y>", "<dim z>"].contains(&body.as_str()) =>
        {
            Ok(())
        }
        _ => Err("requires attribute 'dimension' (#gpu<dim x|y|z>)".into()),
    }
}

fn verify_module(ctx: &Context, o: OpId) -> Result<(), String> {
    counts(ctx, o, 0, 0)?;
    match ctx.inherent_attr(o, "targets").map(|x| x.kind()) {
        None => {}
        Some(AttrKind::Array(v)) if !v.is_empty() => {}
        Some(_) => {
            return Err("attribute 'targets' failed to satisfy constraint: array of GPU target attributes with at least 1 elements".into());
        }
    }
    match ctx.inherent_attr(o, "sym_name").map(|x| x.kind()) {
        Some(AttrKind::String { .. }) => Ok(()),
        _ => Err("requires attribute 'sym_name'".into()),
    }
}

/// The function type of a `gpu.func` / `func.func`.
pub fn function_type(ctx: &Context, o: OpId) -> Option<(&[Type], &[Type])> {
    match ctx.inherent_attr(o, "function_type")?.as_type()?.kind() {
        TypeKind::Function { inputs, results } => Some((inputs, results)),
        _ => None,
    }
}

/// `workgroup_attributions` of a `gpu.func` (0 when absent).
pub fn workgroup_attributions(ctx: &Context, o: OpId) -> usize {
    match ctx
        .inherent_attr(o, "workgroup_attributions")
        .map(|x| x.kind())
    {
        Some(AttrKind::Integer { value, .. }) => usize::try_from(*value).unwrap_or(0),
        _ => 0,
    }
}

fn verify_func(ctx: &Context, o: OpId) -> Result<(), String> {
    counts(ctx, o, 0, 0)?;
    if !matches!(
        ctx.inherent_attr(o, "sym_name").map(|x| x.kind()),
        Some(AttrKind::String { .. })
    ) {
        return Err("requires attribute 'sym_name'".into());
    }
    let (inputs, results) =
        function_type(ctx, o).ok_or("requires attribute 'function_type' of function type")?;
    if ctx
        .parent_op(o)
        .is_none_or(|p| ctx.op_name(p) != "gpu.module")
    {
        return Err("expects parent op 'gpu.module'".into());
    }
    let kernel = ctx.attr(o, "gpu.kernel").is_some();
    if kernel && !results.is_empty() {
        return Err("expected void return type for kernel function".into());
    }
    let Some(&region) = ctx.regions(o).first() else {
        return Err("requires one region".into());
    };
    let Some(&entry) = ctx.region_blocks(region).first() else {
        return Ok(()); // a declaration
    };
    let args = ctx.block_args(entry);
    let wg = workgroup_attributions(ctx, o);
    if args.len() < inputs.len() + wg {
        return Err(format!(
            "expected at least {} arguments to body region",
            inputs.len() + wg
        ));
    }
    for (i, (a, t)) in args.iter().zip(inputs).enumerate() {
        if ctx.value_type(*a) != t {
            return Err(format!("type of function argument {i} does not match"));
        }
    }
    // As upstream, only a `#gpu.address_space` memory space is checked: one already
    // lowered to a target's number (`memref<4xf32, 5>`) or left out is accepted.
    let wrong = |a: &Value, space: &str| {
        let ms = memory_space(ctx.value_type(*a));
        matches!(ms.map(|x| x.kind()), Some(AttrKind::Dialect { dialect, body }) if dialect == "gpu" && body.starts_with("address_space"))
            && !is_address_space(ms, space)
    };
    for (i, a) in args[inputs.len()..inputs.len() + wg].iter().enumerate() {
        if wrong(a, "workgroup") {
            return Err(format!(
                "expected memory space workgroup in attribution {i}"
            ));
        }
    }
    for (i, a) in args[inputs.len() + wg..].iter().enumerate() {
        if wrong(a, "private") {
            return Err(format!("expected memory space private in attribution {i}"));
        }
    }
    Ok(())
}

fn verify_return(ctx: &Context, o: OpId) -> Result<(), String> {
    let Some(func) = ctx.parent_op(o) else {
        return Err("expects parent op 'gpu.func'".into());
    };
    if ctx.op_name(func) != "gpu.func" {
        return Err("expects parent op 'gpu.func'".into());
    }
    let results = function_type(ctx, func)
        .map(|f| f.1.to_vec())
        .unwrap_or_default();
    let ops = ctx.operands(o);
    if ops.len() != results.len() {
        return Err(format!(
            "expected {} result operands, but found {}",
            results.len(),
            ops.len()
        ));
    }
    if ops
        .iter()
        .zip(&results)
        .any(|(v, t)| ctx.value_type(*v) != t)
    {
        return Err("operand types do not match the function result types".into());
    }
    Ok(())
}

/// `!gpu.async.token`.
fn is_async_token(t: &Type) -> bool {
    matches!(t.kind(), TypeKind::Dialect { dialect, body } if dialect == "gpu" && body == "async.token")
}

/// Upstream's `gpu.memcpy`: async dependencies (`!gpu.async.token`), the destination and
/// the source memrefs, with the same element type and compatible shapes (a dynamic size
/// matches any), and an optional async token result.
fn verify_memcpy(ctx: &Context, o: OpId) -> Result<(), String> {
    let ops = ctx.operands(o);
    let [deps @ .., dst, src] = ops else {
        return Err("expects a destination and a source memref".into());
    };
    if deps.iter().any(|&v| !is_async_token(ctx.value_type(v))) {
        return Err("async dependencies must be of type '!gpu.async.token'".into());
    }
    match ctx.results(o) {
        [] => {}
        [t] if is_async_token(ctx.value_type(*t)) => {}
        _ => return Err("expects at most one result, of type '!gpu.async.token'".into()),
    }
    let memref = |v: &Value| match ctx.value_type(*v).kind() {
        TypeKind::MemRef { shape, elem, .. } => Some((shape.clone(), *elem)),
        TypeKind::UnrankedMemRef { elem, .. } => Some((Vec::new(), *elem)),
        _ => None,
    };
    let (Some((ds, de)), Some((ss, se))) = (memref(dst), memref(src)) else {
        return Err("operands must be memrefs".into());
    };
    if de != se {
        return Err("arguments have incompatible element type".into());
    }
    let ranked = |v: &Value| matches!(ctx.value_type(*v).kind(), TypeKind::MemRef { .. });
    if ranked(dst)
        && ranked(src)
        && (ds.len() != ss.len()
            || ds
                .iter()
                .zip(&ss)
                .any(|(&a, &b)| a >= 0 && b >= 0 && a != b))
    {
        return Err("arguments have incompatible shape".into());
    }
    Ok(())
}

fn verify_launch(ctx: &Context, o: OpId) -> Result<(), String> {
    if !matches!(
        ctx.inherent_attr(o, "kernel").map(|x| x.kind()),
        Some(AttrKind::SymbolRef { nested, .. }) if nested.len() == 1
    ) {
        return Err("requires attribute 'kernel' of the form @module::@kernel".into());
    }
    let ops = ctx.operands(o);
    // Upstream's segments: async dependencies, grid x/y/z, block x/y/z, then clusters,
    // shared memory size, arguments and the async object; without them (rtile's own
    // launches) the sizes come first.
    let first = match ctx
        .inherent_attr(o, "operandSegmentSizes")
        .map(|x| x.kind())
    {
        Some(AttrKind::DenseArray(DenseArray::Int { values, .. })) if values.len() >= 7 => {
            if values[1..7].iter().any(|&n| n != 1) {
                return Err("expects one operand for each grid and block size".into());
            }
            usize::try_from(values[0]).map_err(|_| "invalid operandSegmentSizes")?
        }
        _ => 0,
    };
    if ops.len() < first + 6 {
        return Err("expects grid and block sizes (6 operands) before the arguments".into());
    }
    // Upstream's `LaunchIndx`: index, i32 or i64 each.
    if ops[first..first + 6].iter().any(|&v| {
        !matches!(
            ctx.value_type(v).kind(),
            TypeKind::Index
                | TypeKind::Integer {
                    width: 32 | 64,
                    signedness: Signedness::Signless
                }
        )
    }) {
        return Err("grid and block sizes must be of type 'index', 'i32' or 'i64'".into());
    }
    Ok(())
}
