//! The naive reference kernel of a `te.compute`: one thread per output element, the
//! reduction axes as a loop nest, every read straight from global memory, in gpu-level IR
//! (generic form, upstream ops only). `rtile-run --reference` checks tuned kernels against
//! it on the GPU; at small sizes the CPU GPU-simulator can check it against the te
//! interpreter. No tiling, no shared memory: obviously right rather than fast.

use std::collections::HashMap;
use std::fmt::Write as _;

use rtile::ir::affine::AffineExpr;
use rtile::ir::{Context, OpId};
use rtile_dialects::te::generic::{
    binary_op_name, cmpf_predicate, cmpi_predicate, float_unary_op_name,
};
use rtile_dialects::te::ir::compute_from_op;
use rtile_dialects::te::model::{AxisKind, Combiner, ElemType, Expr, TeCompute, TensorType, UnOp};
use rtile_dialects::te::walk::{compute_ops, enclosing_func};
use rtile_gpu_vocab::attrs::cmpi_from_value;
use rtile_gpu_vocab::{CmpFPredicate, CmpIPredicate, GpuOp as G, MathFn};

/// ` <{predicate = N : i64}>`: the properties of an `arith.cmpi` with predicate `p`.
fn cmpi_property(p: CmpIPredicate) -> String {
    format!(" <{{predicate = {} : i64}}>", p.value())
}

/// Threads per block of the naive kernels.
pub const BLOCK: i64 = 256;

fn float_bits(v: f64, t: ElemType) -> String {
    use rtile::ir::FloatFormat;
    match t {
        ElemType::F64 => format!("0x{:016X}", v.to_bits()),
        ElemType::F32 => format!("0x{:08X}", (v as f32).to_bits()),
        ElemType::F16 => format!("0x{:04X}", FloatFormat::F16.encode(v)),
        _ => format!("0x{:04X}", FloatFormat::BF16.encode(v)),
    }
}

struct Gen {
    consts: String,
    consts_seen: HashMap<String, String>,
    n: usize,
}

impl Gen {
    fn fresh(&mut self) -> String {
        self.n += 1;
        format!("%v{}", self.n)
    }

    /// A constant, defined once at the top of the kernel (dominates every use).
    fn konst(&mut self, lit: &str, ty: &str) -> String {
        let key = format!("{lit}:{ty}");
        if let Some(v) = self.consts_seen.get(&key) {
            return v.clone();
        }
        let v = self.fresh();
        let _ = writeln!(
            self.consts,
            "      {v} = \"arith.constant\"() <{{value = {lit} : {ty}}}> : () -> {ty}"
        );
        self.consts_seen.insert(key, v.clone());
        v
    }

    fn index(&mut self, c: i64) -> String {
        self.konst(&c.to_string(), "index")
    }

    fn scalar_const(&mut self, v: f64, t: ElemType) -> String {
        let lit = match t {
            ElemType::I1 => (if v != 0.0 { "true" } else { "false" }).to_string(),
            ElemType::I32 | ElemType::I8 => {
                let (lo, hi) = rtile_dialects::te::model::int_range(t);
                (v.clamp(lo as f64, hi as f64) as i64).to_string()
            }
            _ => float_bits(v, t),
        };
        if t == ElemType::I1 {
            let v2 = self.fresh();
            let key = format!("{lit}:i1");
            if let Some(x) = self.consts_seen.get(&key) {
                return x.clone();
            }
            let _ = writeln!(
                self.consts,
                "      {v2} = \"arith.constant\"() <{{value = {lit}}}> : () -> i1"
            );
            self.consts_seen.insert(key, v2.clone());
            return v2;
        }
        self.konst(&lit, t.keyword())
    }
}

/// Writes one generic-form op `r = "name"(args) props : (tys) -> rty` (a line of text;
/// the arguments are its fields).
#[allow(clippy::too_many_arguments)]
fn op1(
    out: &mut String,
    ind: &str,
    r: &str,
    name: &str,
    args: &[&str],
    tys: &[&str],
    rty: &str,
    props: &str,
) {
    let _ = writeln!(
        out,
        "{ind}{r} = \"{name}\"({}){props} : ({}) -> {rty}",
        args.join(", "),
        tys.join(", ")
    );
}

/// The naive gpu-level module (generic form) for every `te.compute` under `root`: one
/// `gpu.module @naive` with one kernel per compute, named `<func>_<i>`, with
/// `rtile.launch` set (block 256, grid ⌈outputs/256⌉).
pub fn naive_module(ctx: &Context, root: OpId) -> Result<String, String> {
    let mut comps = Vec::new();
    for op in compute_ops(ctx, root) {
        let fname = enclosing_func(ctx, op).unwrap_or("kernel").to_string();
        comps.push((compute_from_op(ctx, op)?.0, fname));
    }
    naive_module_from(&comps)
}

/// Parses `text` (e.g. `bench/ops/*.mlir`) with the IR parser and builds the naive module
/// of its `te.compute`s.
pub fn naive_module_from_text(text: &str) -> Result<String, String> {
    let found = rtile_dialects::te::module::parse_computes("input", text)?;
    let comps: Vec<(TeCompute, String)> = found.into_iter().map(|f| (f.compute, f.func)).collect();
    naive_module_from(&comps)
}

/// The naive module of the given computes (each with its function's name).
pub fn naive_module_from(comps: &[(TeCompute, String)]) -> Result<String, String> {
    if comps.is_empty() {
        return Err("the input has no te.compute".into());
    }
    let mut kernels = String::new();
    for (i, (c, fname)) in comps.iter().enumerate() {
        kernels.push_str(&kernel(c, &format!("{fname}_{i}"))?);
    }
    Ok(format!(
        "\"builtin.module\"() ({{\n  \"gpu.module\"() <{{sym_name = \"naive\"}}> ({{\n{kernels}  }}) : () -> ()\n}}) {{gpu.container_module}} : () -> ()\n"
    ))
}

fn kernel(c: &TeCompute, name: &str) -> Result<String, String> {
    let mut g = Gen {
        consts: String::new(),
        consts_seen: HashMap::new(),
        n: 0,
    };
    let np = c.num_parallel();
    let ext = c.extents();
    let total: i64 = ext[..np].iter().product();
    let grid = (total.max(1) + BLOCK - 1) / BLOCK;
    if grid > i32::MAX as i64 {
        return Err(format!(
            "{name}: {total} outputs need more than 2^31 blocks"
        ));
    }
    let mut args: Vec<String> = c.inputs.iter().map(TensorType::memref_text).collect();
    args.push(c.result.memref_text());
    let arg_names: Vec<String> = (0..args.len()).map(|i| format!("%arg{i}")).collect();
    let out_name = arg_names[args.len() - 1].clone();
    let t = c.result.elem;
    let tk = t.keyword();

    let mut body = String::new();
    let ind = "      ";
    let tid = g.fresh();
    let _ = writeln!(
        body,
        "{ind}{tid} = \"gpu.thread_id\"() <{{dimension = #gpu<dim x>}}> : () -> index"
    );
    let bid = g.fresh();
    let _ = writeln!(
        body,
        "{ind}{bid} = \"gpu.block_id\"() <{{dimension = #gpu<dim x>}}> : () -> index"
    );
    let cb = g.index(BLOCK);
    let m = g.fresh();
    op1(
        &mut body,
        ind,
        &m,
        G::MulI.name(),
        &[&bid, &cb],
        &["index", "index"],
        "index",
        "",
    );
    let gid = g.fresh();
    op1(
        &mut body,
        ind,
        &gid,
        G::AddI.name(),
        &[&m, &tid],
        &["index", "index"],
        "index",
        "",
    );
    let ctot = g.index(total);
    let inb = g.fresh();
    op1(
        &mut body,
        ind,
        &inb,
        G::CmpI(CmpIPredicate::Ult).name(),
        &[&gid, &ctot],
        &["index", "index"],
        "i1",
        &cmpi_property(CmpIPredicate::Ult),
    );
    let _ = writeln!(body, "{ind}\"scf.if\"({inb}) ({{");
    let ind2 = "        ";
    // Parallel indices from the linear id, row-major (last axis fastest: coalesced stores).
    let mut dims: Vec<String> = vec![String::new(); ext.len()];
    let mut rest = gid.clone();
    for d in (0..np).rev() {
        let e = g.index(ext[d]);
        if d == 0 {
            dims[d] = rest.clone();
        } else {
            let r = g.fresh();
            op1(
                &mut body,
                ind2,
                &r,
                G::RemUI.name(),
                &[&rest, &e],
                &["index", "index"],
                "index",
                "",
            );
            let q = g.fresh();
            op1(
                &mut body,
                ind2,
                &q,
                G::DivUI.name(),
                &[&rest, &e],
                &["index", "index"],
                "index",
                "",
            );
            dims[d] = r;
            rest = q;
        }
    }
    let value = if let Some(comb) = c.combiner {
        // The fold runs in the accumulator type (te's `acc(f32)`), rounded to the result's
        // type once, at the store: what the interpreter and the tensor cores do.
        let acc_t = c.acc_type();
        let init = g.scalar_const(comb.identity(acc_t), acc_t);
        let folded = reduce_nest(&mut g, c, &mut dims, np, &init, comb, &mut body, 8)?;
        convert(&mut g, &mut body, ind2, &folded, acc_t, t)
    } else {
        eval_point(&mut g, c, &dims, &mut body, ind2)?
    };
    let pidx: Vec<&str> = dims[..np].iter().map(String::as_str).collect();
    let mut sargs = vec![value.as_str(), out_name.as_str()];
    sargs.extend(pidx.iter().copied());
    let mut stys = vec![tk.to_string(), c.result.memref_text()];
    stys.extend(pidx.iter().map(|_| "index".to_string()));
    let _ = writeln!(
        body,
        "{ind2}\"memref.store\"({}) : ({}) -> ()",
        sargs.join(", "),
        stys.join(", ")
    );
    let _ = writeln!(body, "{ind2}\"scf.yield\"() : () -> ()");
    let _ = writeln!(body, "{ind}}}, {{\n{ind}}}) : (i1) -> ()");
    let _ = writeln!(body, "{ind}\"gpu.return\"() : () -> ()");

    let sig: Vec<String> = args
        .iter()
        .zip(&arg_names)
        .map(|(t, n)| format!("{n}: {t}"))
        .collect();
    let mut k = String::new();
    let _ = writeln!(
        k,
        "    \"gpu.func\"() <{{function_type = ({}) -> (), known_block_size = array<i32: {BLOCK}, 1, 1>}}> ({{",
        args.join(", ")
    );
    let _ = writeln!(k, "    ^bb0({}):", sig.join(", "));
    k.push_str(&g.consts);
    k.push_str(&body);
    let _ = writeln!(
        k,
        "    }}) {{gpu.kernel, rtile.launch = {{block = array<i32: {BLOCK}, 1, 1>, dynamic_shared_memory = 0 : i64, grid = array<i32: {grid}, 1, 1>}}, sym_name = \"{name}\", workgroup_attributions = 0 : i64}} : () -> ()"
    );
    Ok(k)
}

/// The loop nest over reduction axes `from..`; returns the reduced value.
#[allow(clippy::too_many_arguments)]
fn reduce_nest(
    g: &mut Gen,
    c: &TeCompute,
    dims: &mut Vec<String>,
    axis: usize,
    acc_in: &str,
    comb: Combiner,
    out: &mut String,
    depth: usize,
) -> Result<String, String> {
    let ind = " ".repeat(depth);
    let t = c.acc_type();
    let tk = t.keyword();
    if axis == c.axes.len() {
        let v = eval_point(g, c, dims, out, &ind)?;
        let r = g.fresh();
        let name = match (comb, t.is_float()) {
            (Combiner::Sum, true) => G::AddF.name(),
            (Combiner::Sum, false) => G::AddI.name(),
            (Combiner::Prod, true) => G::MulF.name(),
            (Combiner::Prod, false) => G::MulI.name(),
            (Combiner::Max, true) => G::MaximumF.name(),
            (Combiner::Max, false) => G::MaxSI.name(),
            (Combiner::Min, true) => G::MinimumF.name(),
            (Combiner::Min, false) => G::MinSI.name(),
        };
        op1(out, &ind, &r, name, &[acc_in, &v], &[tk, tk], tk, "");
        return Ok(r);
    }
    debug_assert_eq!(c.axes[axis].kind, AxisKind::Reduction);
    let (lb, ub, st) = (g.index(0), g.index(c.axes[axis].extent), g.index(1));
    let res = g.fresh();
    let iv = g.fresh();
    let acc = g.fresh();
    let _ = writeln!(
        out,
        "{ind}{res} = \"scf.for\"({lb}, {ub}, {st}, {acc_in}) ({{"
    );
    let _ = writeln!(out, "{ind}^bb0({iv}: index, {acc}: {tk}):");
    dims[axis] = iv;
    let inner = reduce_nest(g, c, dims, axis + 1, &acc, comb, out, depth + 2)?;
    let _ = writeln!(out, "{ind}  \"scf.yield\"({inner}) : ({tk}) -> ()");
    let _ = writeln!(out, "{ind}}}) : (index, index, index, {tk}) -> {tk}");
    Ok(res)
}

/// `x` of type `from` as `to` (`x` itself when they agree): the arith cast MLIR would use.
fn convert(
    g: &mut Gen,
    out: &mut String,
    ind: &str,
    x: &str,
    from: ElemType,
    to: ElemType,
) -> String {
    if from == to {
        return x.to_string();
    }
    let name = match (from.is_float(), to.is_float()) {
        (true, true) if to.width() > from.width() => G::ExtF.name(),
        (true, true) => G::TruncF.name(),
        (false, true) if from == ElemType::I1 => G::UIToFP.name(),
        (false, true) => G::SIToFP.name(),
        (true, false) => G::FPToSI.name(),
        (false, false) if from == ElemType::I1 => G::ExtUI.name(),
        (false, false) if to.width() > from.width() => G::ExtSI.name(),
        (false, false) => G::TruncI.name(),
    };
    let r = g.fresh();
    op1(
        out,
        ind,
        &r,
        name,
        &[x],
        &[from.keyword()],
        to.keyword(),
        "",
    );
    r
}

fn affine(
    g: &mut Gen,
    e: &AffineExpr,
    dims: &[String],
    out: &mut String,
    ind: &str,
) -> Result<String, String> {
    let bin = |g: &mut Gen, out: &mut String, name: &str, a: &str, b: &str| -> String {
        let r = g.fresh();
        op1(
            out,
            ind,
            &r,
            name,
            &[a, b],
            &["index", "index"],
            "index",
            "",
        );
        r
    };
    Ok(match e {
        AffineExpr::Dim(d) => dims
            .get(*d as usize)
            .cloned()
            .ok_or("affine dim out of range")?,
        AffineExpr::Symbol(_) => return Err("te access maps have no symbols".into()),
        AffineExpr::Constant(c) => g.index(*c),
        AffineExpr::Add(a, b) => {
            let (x, y) = (affine(g, a, dims, out, ind)?, affine(g, b, dims, out, ind)?);
            bin(g, out, G::AddI.name(), &x, &y)
        }
        AffineExpr::Mul(a, b) => {
            let (x, y) = (affine(g, a, dims, out, ind)?, affine(g, b, dims, out, ind)?);
            bin(g, out, G::MulI.name(), &x, &y)
        }
        AffineExpr::FloorDiv(a, b) => {
            let (x, y) = (affine(g, a, dims, out, ind)?, affine(g, b, dims, out, ind)?);
            bin(g, out, G::FloorDivSI.name(), &x, &y)
        }
        AffineExpr::CeilDiv(a, b) => {
            let (x, y) = (affine(g, a, dims, out, ind)?, affine(g, b, dims, out, ind)?);
            bin(g, out, G::CeilDivSI.name(), &x, &y)
        }
        AffineExpr::Mod(a, b) => {
            // Affine `mod` is never negative: r = a rem b; r < 0 ? r + b : r.
            let (x, y) = (affine(g, a, dims, out, ind)?, affine(g, b, dims, out, ind)?);
            let r = bin(g, out, G::RemSI.name(), &x, &y);
            let rb = bin(g, out, G::AddI.name(), &r, &y);
            let zero = g.index(0);
            let neg = g.fresh();
            op1(
                out,
                ind,
                &neg,
                G::CmpI(CmpIPredicate::Slt).name(),
                &[&r, &zero],
                &["index", "index"],
                "i1",
                &cmpi_property(CmpIPredicate::Slt),
            );
            let s = g.fresh();
            op1(
                out,
                ind,
                &s,
                G::Select.name(),
                &[&neg, &rb, &r],
                &["i1", "index", "index"],
                "index",
                "",
            );
            s
        }
    })
}

/// Loads every access at the current point and evaluates the body.
fn eval_point(
    g: &mut Gen,
    c: &TeCompute,
    dims: &[String],
    out: &mut String,
    ind: &str,
) -> Result<String, String> {
    let mut vals = Vec::new();
    for (k, a) in c.accesses.iter().enumerate() {
        let input = c.inputs.get(a.input).ok_or("access to a missing input")?;
        let mty = input.memref_text();
        let ek = input.elem.keyword();
        let mut idx = Vec::new();
        for e in &a.map.results {
            idx.push(affine(g, e, dims, out, ind)?);
        }
        let src = format!("%arg{}", a.input);
        let mut largs = vec![src.as_str()];
        largs.extend(idx.iter().map(String::as_str));
        let mut ltys = vec![mty.as_str()];
        ltys.extend(idx.iter().map(|_| "index"));
        let v = match a.pad {
            None => {
                let v = g.fresh();
                op1(out, ind, &v, G::Load.name(), &largs, &ltys, ek, "");
                v
            }
            Some(p) => {
                // Out-of-bounds reads give the pad value (conv zero padding).
                let mut cond: Option<String> = None;
                for (i, x) in idx.iter().enumerate() {
                    let zero = g.index(0);
                    let extent = *input
                        .shape
                        .get(i)
                        .ok_or("access rank does not match its input")?;
                    let dim = g.index(extent);
                    let ge = g.fresh();
                    op1(
                        out,
                        ind,
                        &ge,
                        G::CmpI(CmpIPredicate::Sge).name(),
                        &[x, &zero],
                        &["index", "index"],
                        "i1",
                        &cmpi_property(CmpIPredicate::Sge),
                    );
                    let lt = g.fresh();
                    op1(
                        out,
                        ind,
                        &lt,
                        G::CmpI(CmpIPredicate::Slt).name(),
                        &[x, &dim],
                        &["index", "index"],
                        "i1",
                        &cmpi_property(CmpIPredicate::Slt),
                    );
                    let both = g.fresh();
                    op1(
                        out,
                        ind,
                        &both,
                        G::AndI.name(),
                        &[&ge, &lt],
                        &["i1", "i1"],
                        "i1",
                        "",
                    );
                    cond = Some(match cond {
                        None => both,
                        Some(prev) => {
                            let r = g.fresh();
                            op1(
                                out,
                                ind,
                                &r,
                                G::AndI.name(),
                                &[&prev, &both],
                                &["i1", "i1"],
                                "i1",
                                "",
                            );
                            r
                        }
                    });
                }
                let cond = match cond {
                    Some(c) => c,
                    None => g.scalar_const(1.0, ElemType::I1),
                };
                let padv = g.scalar_const(p, input.elem);
                let v = g.fresh();
                let lv = g.fresh();
                let _ = writeln!(out, "{ind}{v} = \"scf.if\"({cond}) ({{");
                op1(
                    out,
                    &format!("{ind}  "),
                    &lv,
                    G::Load.name(),
                    &largs,
                    &ltys,
                    ek,
                    "",
                );
                let _ = writeln!(out, "{ind}  \"scf.yield\"({lv}) : ({ek}) -> ()");
                let _ = writeln!(out, "{ind}}}, {{");
                let _ = writeln!(out, "{ind}  \"scf.yield\"({padv}) : ({ek}) -> ()");
                let _ = writeln!(out, "{ind}}}) : (i1) -> {ek}");
                v
            }
        };
        let _ = k;
        vals.push((v, input.elem));
    }
    let (v, _) = expr(g, &c.body, &vals, out, ind)?;
    Ok(v)
}

fn expr(
    g: &mut Gen,
    e: &Expr,
    vals: &[(String, ElemType)],
    out: &mut String,
    ind: &str,
) -> Result<(String, ElemType), String> {
    Ok(match e {
        Expr::Access(i) => vals.get(*i).cloned().ok_or("access index out of range")?,
        Expr::Const(v, t) => (g.scalar_const(*v, *t), *t),
        Expr::Binary(op, a, b) => {
            let (x, t) = expr(g, a, vals, out, ind)?;
            let (y, _) = expr(g, b, vals, out, ind)?;
            let f = t.is_float();
            let name = binary_op_name(*op, f);
            let r = g.fresh();
            let k = t.keyword();
            op1(out, ind, &r, name, &[&x, &y], &[k, k], k, "");
            (r, t)
        }
        Expr::Unary(op, a) => {
            let (x, t) = expr(g, a, vals, out, ind)?;
            let k = t.keyword();
            let r = g.fresh();
            if !t.is_float() {
                match op {
                    UnOp::Neg => {
                        let z = g.scalar_const(0.0, t);
                        op1(out, ind, &r, G::SubI.name(), &[&z, &x], &[k, k], k, "");
                    }
                    _ => op1(
                        out,
                        ind,
                        &r,
                        G::Math(MathFn::AbsI).name(),
                        &[&x],
                        &[k],
                        k,
                        "",
                    ),
                }
                return Ok((r, t));
            }
            let name = float_unary_op_name(*op);
            op1(out, ind, &r, name, &[&x], &[k], k, "");
            (r, t)
        }
        Expr::Cmp(op, a, b) => {
            let (x, t) = expr(g, a, vals, out, ind)?;
            let (y, _) = expr(g, b, vals, out, ind)?;
            let k = t.keyword();
            let cmp = if t.is_float() {
                CmpFPredicate::from_value(cmpf_predicate(*op)).map(G::CmpF)
            } else {
                cmpi_from_value(cmpi_predicate(*op)).map(G::CmpI)
            }
            .ok_or("a te comparison without an arith predicate")?;
            let (name, pred) = (cmp.name(), cmp.predicate_value().unwrap_or_default());
            let r = g.fresh();
            op1(
                out,
                ind,
                &r,
                name,
                &[&x, &y],
                &[k, k],
                "i1",
                &format!(" <{{predicate = {pred} : i64}}>"),
            );
            (r, ElemType::I1)
        }
        Expr::Select(cnd, a, b) => {
            let (cv, _) = expr(g, cnd, vals, out, ind)?;
            let (x, t) = expr(g, a, vals, out, ind)?;
            let (y, _) = expr(g, b, vals, out, ind)?;
            let k = t.keyword();
            let r = g.fresh();
            op1(
                out,
                ind,
                &r,
                G::Select.name(),
                &[&cv, &x, &y],
                &["i1", k, k],
                k,
                "",
            );
            (r, t)
        }
        Expr::Cast(to, a) => {
            let (x, from) = expr(g, a, vals, out, ind)?;
            (convert(g, out, ind, &x, from, *to), *to)
        }
    })
}
