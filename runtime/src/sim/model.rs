//! Whole-model execution in the simulator: a lowered host function (`rtile-opt
//! --lower-to-gpu` on a multi-op te function) is read into a launch sequence over device
//! buffers, the [`ModelManifest`] (no IR: inputs, outputs, constants, the intermediates'
//! arena, and per launch the kernel and where each argument points), and the sequence is
//! run kernel by kernel in the simulator, every buffer held as bytes as on the device. The
//! same manifest is what `rtile-run cuda` is to run on a GPU (`docs/simulator.md`).

use std::collections::{HashMap, HashSet};

use rtile::diagnostics::Diagnostic;
use rtile::ir::ResourceValue;
use rtile::ir::attributes::DenseLiteral;
use rtile::ir::{AttrKind, Attribute, Context, OpId, Type, TypeKind, Value};
use rtile_manifest::model::{
    ArgRef, Buffer, ConstantSpec, CopyStep, ExecuteError, Executor, LaunchStep, MODEL_VERSION,
    ModelManifest, Place, Step, TensorSpec, execute,
};

use super::ops::Num;
use super::{Kernel, compile_kernel, kernels, launch_of, run_aliased, to_diagnostic};
use crate::tensor::Tensor;
use rtile_dialects::te::model::{ElemType, TensorType};

/// `(shape, element type)` of a static memref or tensor type.
fn shaped(t: &Type) -> Option<(Vec<i64>, Type)> {
    match t.kind() {
        TypeKind::MemRef { shape, elem, .. } | TypeKind::Tensor { shape, elem, .. } => {
            Some((shape.clone(), *elem))
        }
        _ => None,
    }
}

/// The manifest's dtype name of an element type.
fn dtype(t: &Type) -> Option<String> {
    ElemType::from_type(t).map(|e| e.keyword().to_string())
}

fn spec(ctx: &Context, op: OpId, t: &Type) -> Result<TensorSpec, Diagnostic> {
    let (shape, elem) = shaped(t)
        .filter(|(s, _)| s.iter().all(|&d| d >= 0))
        .ok_or_else(|| Diagnostic::op_error(ctx, op, "expects statically shaped memrefs"))?;
    let dtype = dtype(&elem).ok_or_else(|| {
        Diagnostic::op_error(ctx, op, "has an element type the runtime does not hold")
    })?;
    Ok(TensorSpec { shape, dtype })
}

/// The `memref.global` called `name` directly in `module`.
fn find_global(ctx: &Context, module: OpId, name: &str) -> Option<OpId> {
    let body = ctx
        .regions(module)
        .first()
        .and_then(|r| ctx.region_blocks(*r).first().copied())?;
    ctx.block_ops(body).find(|&o| {
        ctx.op_name(o) == "memref.global"
            && ctx.inherent_attr(o, "sym_name").and_then(|a| a.as_str()) == Some(name)
    })
}

/// The `gpu.func` kernel called `name` under `module`.
pub fn find_kernel(ctx: &Context, module: OpId, name: &str) -> Option<OpId> {
    kernels(ctx, module)
        .into_iter()
        .find(|&k| ctx.inherent_attr(k, "sym_name").and_then(|a| a.as_str()) == Some(name))
}

/// Reads host function `host` of `module` into its launch sequence; its first `n_inputs`
/// arguments are inputs, the rest outputs. Also returns each constant's `memref.global`.
pub fn model_manifest(
    ctx: &Context,
    module: OpId,
    host: OpId,
    n_inputs: usize,
) -> Result<(ModelManifest, Vec<OpId>), Diagnostic> {
    let err = |op: OpId, m: &str| Diagnostic::op_error(ctx, op, m);
    let body = ctx
        .regions(host)
        .first()
        .and_then(|r| ctx.region_blocks(*r).first().copied())
        .ok_or_else(|| err(host, "has no body"))?;
    let mut m = ModelManifest {
        version: MODEL_VERSION,
        function: ctx
            .inherent_attr(host, "sym_name")
            .and_then(|a| a.as_str())
            .unwrap_or("")
            .to_string(),
        module: "kernels".into(),
        inputs: Vec::new(),
        outputs: Vec::new(),
        arena_bytes: 0,
        constants: Vec::new(),
        constants_file: None,
        steps: Vec::new(),
    };
    // Memref value -> (buffer, byte offset); index constants by value.
    let mut at: HashMap<Value, (Buffer, u64)> = HashMap::new();
    let mut ints: HashMap<Value, i64> = HashMap::new();
    let mut globals = Vec::new();
    for (i, &a) in ctx.block_args(body).iter().enumerate() {
        let s = spec(ctx, host, ctx.value_type(a))?;
        if i < n_inputs {
            at.insert(a, (Buffer::Input(i), 0));
            m.inputs.push(s);
        } else {
            at.insert(a, (Buffer::Output(i - n_inputs), 0));
            m.outputs.push(s);
        }
    }
    let mut const_offset = 0u64;
    let mut maps: HashSet<Value> = HashSet::new();
    for op in ctx.block_ops(body) {
        let src = |k: usize| {
            ctx.operands(op)
                .get(k)
                .and_then(|v| at.get(v).copied())
                .ok_or_else(|| err(op, "uses a memref the host function does not define"))
        };
        match ctx.op_name(op) {
            "arith.constant" => {
                let v = ctx
                    .inherent_attr(op, "value")
                    .and_then(|a| a.as_int())
                    .ok_or_else(|| err(op, "only index constants are expected in host code"))?;
                ints.insert(ctx.result(op, 0), v);
            }
            "memref.alloc" => {
                if m.arena_bytes > 0 {
                    return Err(err(op, "a second arena: host code allocates one"));
                }
                let s = spec(ctx, op, ctx.value_type(ctx.result(op, 0)))?;
                m.arena_bytes = s.bytes().unwrap_or(0);
                at.insert(ctx.result(op, 0), (Buffer::Arena, 0));
            }
            "memref.view" => {
                let (b, base) = src(0)?;
                let off = ctx
                    .operands(op)
                    .get(1)
                    .and_then(|v| ints.get(v))
                    .ok_or_else(|| err(op, "needs a constant byte offset"))?;
                at.insert(ctx.result(op, 0), (b, base + *off as u64));
            }
            // `memref.cast` to unranked feeds `nvgpu.tma.create.descriptor`: the same bytes.
            "memref.collapse_shape" | "memref.expand_shape" | "memref.cast" => {
                let s = src(0)?;
                at.insert(ctx.result(op, 0), s);
            }
            // A TMA tensor map (sm_90a kernels): derived from the memref it maps, which the
            // kernel also takes and names in `rtile.tensor_map_of`; a launch step passes
            // the memrefs only (see `launch_step`).
            "nvgpu.tma.create.descriptor" => {
                src(0)?;
                maps.insert(ctx.result(op, 0));
            }
            "memref.get_global" => {
                let name = ctx
                    .inherent_attr(op, "name")
                    .and_then(|a| a.as_flat_symbol())
                    .ok_or_else(|| err(op, "needs a 'name' symbol"))?;
                let g = find_global(ctx, module, name)
                    .ok_or_else(|| err(op, &format!("no memref.global @{name} in the module")))?;
                let idx = match globals.iter().position(|&x| x == g) {
                    Some(i) => i,
                    None => {
                        let s = spec(ctx, op, ctx.value_type(ctx.result(op, 0)))?;
                        let bytes = s.bytes().unwrap_or(0);
                        m.constants.push(ConstantSpec {
                            name: name.to_string(),
                            shape: s.shape,
                            dtype: s.dtype,
                            offset: const_offset,
                            bytes,
                        });
                        const_offset += bytes;
                        globals.push(g);
                        globals.len() - 1
                    }
                };
                at.insert(ctx.result(op, 0), (Buffer::Constant(idx), 0));
            }
            "gpu.launch_func" => m.steps.push(Step::Launch(launch_step(
                ctx, module, op, &at, &ints, &maps,
            )?)),
            "gpu.memcpy" => {
                // Checked here, to point at the op (the buffers it names are known).
                let s = Step::Copy(copy_step(ctx, op, &at)?);
                m.check_step(&s)
                    .map_err(|e| err(op, &format!("step {} (copy): {e}", m.steps.len())))?;
                m.steps.push(s);
            }
            "memref.dealloc" | "func.return" => {}
            other => {
                return Err(err(op, &format!("'{other}' is not run in host code")));
            }
        }
    }
    m.check().map_err(|e| err(host, &e))?;
    Ok((m, globals))
}

/// One `gpu.memcpy %dst, %src` (synchronous: no async dependencies or token): the bytes
/// of its source memref, from where the source points to where the destination does.
fn copy_step(
    ctx: &Context,
    op: OpId,
    at: &HashMap<Value, (Buffer, u64)>,
) -> Result<CopyStep, Diagnostic> {
    let err = |m: &str| Diagnostic::op_error(ctx, op, m);
    let (&[dst, src], []) = (ctx.operands(op), ctx.results(op)) else {
        return Err(err(
            "only a synchronous gpu.memcpy (no async dependencies or token) is run in host code",
        ));
    };
    let place = |v: Value| {
        at.get(&v)
            .map(|&(buffer, offset)| Place { buffer, offset })
            .ok_or_else(|| err("uses a memref the host function does not define"))
    };
    let (s, d) = (
        spec(ctx, op, ctx.value_type(src))?,
        spec(ctx, op, ctx.value_type(dst))?,
    );
    if s.bytes() != d.bytes() {
        return Err(err("copies between memrefs of different sizes"));
    }
    Ok(CopyStep {
        src: place(src)?,
        dst: place(dst)?,
        bytes: s.bytes().unwrap_or(0),
    })
}

/// One `gpu.launch_func`: the kernel, its grid and block (the launch's constant operands),
/// dynamic shared memory (the kernel's `rtile.launch`), and where its arguments point.
fn launch_step(
    ctx: &Context,
    module: OpId,
    op: OpId,
    at: &HashMap<Value, (Buffer, u64)>,
    ints: &HashMap<Value, i64>,
    maps: &HashSet<Value>,
) -> Result<LaunchStep, Diagnostic> {
    let err = |m: String| Diagnostic::op_error(ctx, op, m);
    let kernel = match ctx.inherent_attr(op, "kernel").map(|a| a.kind()) {
        Some(AttrKind::SymbolRef { nested, .. }) if nested.len() == 1 => nested[0].clone(),
        _ => return Err(err("needs a kernel symbol @module::@kernel".into())),
    };
    let k = find_kernel(ctx, module, &kernel)
        .ok_or_else(|| err(format!("no kernel @{kernel} in the module")))?;
    let smem = launch_of(ctx, k)?.dynamic_shared_memory;
    let ops = ctx.operands(op);
    if ops.len() < 6 {
        return Err(err("expects grid and block sizes".into()));
    }
    let dim = |i: usize| {
        ints.get(&ops[i])
            .and_then(|&v| u32::try_from(v).ok())
            .ok_or_else(|| err("grid and block sizes must be index constants".into()))
    };
    let grid = [dim(0)?, dim(1)?, dim(2)?];
    let block = [dim(3)?, dim(4)?, dim(5)?];
    let mut args = Vec::new();
    for &v in ops[6..].iter().filter(|v| !maps.contains(v)) {
        let (buffer, offset) = *at
            .get(&v)
            .ok_or_else(|| err("an argument is not a memref of the host function".into()))?;
        let s = spec(ctx, op, ctx.value_type(v))?;
        args.push(ArgRef {
            buffer,
            offset,
            shape: s.shape,
            dtype: s.dtype,
        });
    }
    Ok(LaunchStep {
        kernel,
        grid,
        block,
        dynamic_shared_memory: smem,
        args,
        tensor_maps: tensor_maps_of(ctx, k),
        coresident: coresident_of(ctx, k),
    })
}

/// The co-resident block count of a persistent kernel whose barriers span blocks
/// (`rtile.persistent` with `blocks_per_core`); `None` for any other kernel, whose blocks
/// need not be resident together.
fn coresident_of(ctx: &Context, k: OpId) -> Option<u64> {
    let a = ctx.attr(k, rtile_dialects::rtile::PERSISTENT)?;
    let field = |n: &str| {
        a.as_dictionary()?
            .iter()
            .find(|e| e.name == n)
            .and_then(|e| e.value.as_int())
    };
    field("blocks_per_core")?;
    field("coresident").and_then(|n| u64::try_from(n).ok())
}

/// The TMA tensor-map parameters of kernel `k` (`rtile.tensor_map_of` with the maps'
/// types), for the runtime to encode over the step's memref arguments: a kernel's memrefs
/// come first, so the memref parameter index is the step's argument index.
fn tensor_maps_of(ctx: &Context, k: OpId) -> Vec<rtile_manifest::TensorMapArg> {
    use rtile_gpu_vocab::nvgpu_sm90::TensorMapType;
    let of = ctx
        .attr(k, rtile_dialects::rtile::TENSOR_MAP_OF)
        .and_then(|a| a.as_dense_ints().map(|v| v.to_vec()))
        .unwrap_or_default();
    let types: Vec<TensorMapType> = ctx
        .regions(k)
        .first()
        .and_then(|&r| ctx.region_blocks(r).first().copied())
        .map(|b| {
            ctx.block_args(b)
                .iter()
                .filter_map(|&a| TensorMapType::of(ctx.value_type(a))?.ok())
                .collect()
        })
        .unwrap_or_default();
    of.iter()
        .zip(types)
        .map(|(&i, t)| rtile_manifest::TensorMapArg {
            of: i.max(0) as usize,
            box_shape: t.box_shape.clone(),
            swizzle: t.swizzle.bytes() as u32,
        })
        .collect()
}

/// The bytes of a tensor constant (`dense_resource` blobs from the file's resources, or
/// `dense` elements), little-endian row-major, checked against its type.
pub fn constant_bytes(ctx: &Context, value: &Attribute) -> Result<Vec<u8>, String> {
    let (ty, bytes) = match value.kind() {
        AttrKind::DenseResource { handle, ty } => {
            let Some(ResourceValue::String(hex)) = ctx.resources.builtin_blob(handle) else {
                return Err(format!(
                    "no blob '{handle}' in the file's dialect_resources"
                ));
            };
            let raw = hex
                .strip_prefix("0x")
                .filter(|h| h.len() % 2 == 0)
                .and_then(|h| {
                    (0..h.len())
                        .step_by(2)
                        .map(|i| u8::from_str_radix(&h[i..i + 2], 16).ok())
                        .collect::<Option<Vec<u8>>>()
                })
                .ok_or_else(|| format!("blob '{handle}' is not a hex string"))?;
            // The first 4 bytes are the blob's alignment.
            (ty, raw.get(4..).unwrap_or_default().to_vec())
        }
        AttrKind::DenseElements { literal, ty } => (ty, dense_bytes(literal, ty)?),
        _ => return Err("not a tensor constant".into()),
    };
    let t = TensorType::from_type(ty).ok_or("a constant must be a static tensor")?;
    let want = t.num_elements().max(0) as usize * t.elem.width().div_ceil(8) as usize;
    if bytes.len() != want {
        return Err(format!(
            "constant of type {} has {} bytes, expected {want}",
            t.text(),
            bytes.len()
        ));
    }
    Ok(bytes)
}

/// `dense<...>` elements as bytes: a splat, a nested list, or MLIR's hex form.
fn dense_bytes(literal: &DenseLiteral, ty: &Type) -> Result<Vec<u8>, String> {
    let (shape, elem) = shaped(ty).ok_or("dense elements need a shaped type")?;
    let num = Num::of(&elem).ok_or("unsupported element type")?;
    let n: i64 = shape.iter().product();
    let mut vals = Vec::new();
    fn flatten(l: &DenseLiteral, out: &mut Vec<f64>) -> Result<(), String> {
        match l {
            DenseLiteral::Int(i) => out.push(*i as f64),
            DenseLiteral::Float(f) => out.push(f.get()),
            DenseLiteral::Bool(b) => out.push(f64::from(u8::from(*b))),
            DenseLiteral::List(v) => v.iter().try_for_each(|x| flatten(x, out))?,
            _ => return Err("unsupported dense literal (complex or string)".into()),
        }
        Ok(())
    }
    if let DenseLiteral::Hex(h) = literal {
        let h = h.strip_prefix("0x").unwrap_or(h);
        let raw: Option<Vec<u8>> = (0..h.len() / 2)
            .map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).ok())
            .collect();
        let raw = raw.ok_or("bad hex elements")?;
        let size = num.bytes() as usize;
        // A hex splat holds one element.
        return Ok(if raw.len() == size && n != 1 {
            raw.repeat(n.max(0) as usize)
        } else {
            raw
        });
    }
    flatten(literal, &mut vals)?;
    if vals.len() == 1 && n != 1 {
        vals = vec![vals[0]; n.max(0) as usize];
    }
    let size = num.bytes() as usize;
    Ok(vals
        .iter()
        .flat_map(|&v| num.encode(num.round(v))[..size].to_vec())
        .collect())
}

/// The f64 values of `bytes` holding elements of dtype `dtype`.
fn decode(bytes: &[u8], num: Num) -> Vec<f64> {
    bytes
        .chunks_exact(num.bytes() as usize)
        .map(|c| num.decode(c))
        .collect()
}

fn num_of(dtype: &str) -> Result<Num, String> {
    ElemType::from_keyword(dtype)
        .and_then(|e| Num::of(&e.to_type()))
        .ok_or_else(|| format!("unsupported dtype '{dtype}'"))
}

/// The simulator as an [`Executor`]: kernels from `module`, every buffer bytes as on the
/// device; unwritten buffers (outputs, the arena) start as `0xff` bytes (NaN for floats),
/// and each launch's written argument (the last) is set to NaN before it runs, so an
/// element no kernel writes shows in the result.
struct SimExecutor<'c> {
    ctx: &'c Context,
    module: OpId,
    compiled: HashMap<OpId, Kernel>,
    bufs: HashMap<Buffer, Vec<u8>>,
}

impl Executor for SimExecutor<'_> {
    type Error = Diagnostic;

    fn alloc(&mut self, buffer: Buffer, bytes: u64, init: Option<&[u8]>) -> Result<(), Diagnostic> {
        let v = init.map_or_else(|| vec![0xff; bytes as usize], <[u8]>::to_vec);
        self.bufs.insert(buffer, v);
        Ok(())
    }

    fn copy(&mut self, index: usize, step: &CopyStep) -> Result<(), Diagnostic> {
        let fail = |m: &str| Diagnostic::error(None, format!("step {index} (copy): {m}"));
        let (lo, n) = (step.src.offset as usize, step.bytes as usize);
        let data = self
            .bufs
            .get(&step.src.buffer)
            .and_then(|b| b.get(lo..lo + n))
            .ok_or_else(|| fail("its source lies outside an allocated buffer"))?
            .to_vec();
        let at = step.dst.offset as usize;
        self.bufs
            .get_mut(&step.dst.buffer)
            .and_then(|b| b.get_mut(at..at + n))
            .ok_or_else(|| fail("its destination lies outside an allocated buffer"))?
            .copy_from_slice(&data);
        Ok(())
    }

    fn launch(&mut self, index: usize, step: &LaunchStep) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let fail =
            |m: String| Diagnostic::error(None, format!("step {index} (@{}): {m}", step.kernel));
        let k = find_kernel(ctx, self.module, &step.kernel)
            .ok_or_else(|| fail("no such kernel in the module".into()))?;
        if let std::collections::hash_map::Entry::Vacant(e) = self.compiled.entry(k) {
            e.insert(compile_kernel(ctx, k)?);
        }
        let kernel = &self.compiled[&k];
        let mut launch = launch_of(ctx, k)?;
        launch.grid = Some(step.grid);
        launch.block = Some(step.block);
        launch.dynamic_shared_memory = step.dynamic_shared_memory;
        let mut args = Vec::new();
        let mut before = Vec::new();
        for (i, a) in step.args.iter().enumerate() {
            let num = num_of(&a.dtype).map_err(fail)?;
            let (lo, hi) = a.range().ok_or_else(|| fail("bad argument".into()))?;
            let buf = self
                .bufs
                .get(&a.buffer)
                .ok_or_else(|| fail("unallocated buffer".into()))?;
            let bytes = buf
                .get(lo as usize..hi as usize)
                .ok_or_else(|| fail(format!("argument {i} outside its buffer")))?;
            if i + 1 == step.args.len() {
                args.push(vec![f64::NAN; bytes.len() / num.bytes() as usize]);
            } else {
                args.push(decode(bytes, num));
            }
            before.push(args[i].clone());
        }
        // Arguments viewing the same bytes as an earlier one (a reshape passed beside the
        // buffer it views: a persistent kernel's rTask reads what another writes) share its
        // memory, as on the device.
        let alias: Vec<usize> = step
            .args
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let same = |b: &&rtile_manifest::model::ArgRef| {
                    b.buffer == a.buffer && b.range() == a.range() && b.dtype == a.dtype
                };
                step.args[..i].iter().position(|b| same(&b)).unwrap_or(i)
            })
            .collect();
        run_aliased(kernel, &launch, &mut args, &alias)
            .map_err(|e| to_diagnostic(ctx, kernel, &e))?;
        // The last argument is the step's output; a kernel may write others too (a
        // persistent kernel writes every rTask's output): their changed elements go back.
        let last = step.args.len().saturating_sub(1);
        for (i, (a, out)) in step.args.iter().zip(&args).enumerate() {
            if !matches!(a.buffer, Buffer::Output(_) | Buffer::Arena) {
                continue;
            }
            let num = num_of(&a.dtype).map_err(fail)?;
            let size = num.bytes() as usize;
            let buf = self
                .bufs
                .get_mut(&a.buffer)
                .ok_or_else(|| fail("no buffer".into()))?;
            for (j, &v) in out.iter().enumerate() {
                let old = before[i][j];
                if i != last && (v == old || (v.is_nan() && old.is_nan())) {
                    continue;
                }
                let at = a.offset as usize + j * size;
                buf[at..at + size].copy_from_slice(&num.encode(v)[..size]);
            }
        }
        Ok(())
    }

    fn read(&mut self, buffer: Buffer) -> Result<Vec<u8>, Diagnostic> {
        self.bufs
            .get(&buffer)
            .cloned()
            .ok_or_else(|| Diagnostic::error(None, format!("{buffer:?} was never allocated")))
    }
}

/// Runs manifest `m`'s launches in the simulator through [`execute`] (the sequencing
/// every executor shares), the kernels taken from `module`, on `inputs` and the
/// constants' bytes; returns the outputs.
pub fn run_manifest(
    ctx: &Context,
    module: OpId,
    m: &ModelManifest,
    inputs: &[Tensor],
    constants: Vec<Vec<u8>>,
) -> Result<Vec<Tensor>, Diagnostic> {
    let fail = |s: String| Diagnostic::error(None, format!("@{}: {s}", m.function));
    let input_bytes = inputs
        .iter()
        .zip(&m.inputs)
        .map(|(t, s)| tensor_bytes(t, &s.dtype))
        .collect::<Result<Vec<_>, _>>()
        .map_err(fail)?;
    let mut exec = SimExecutor {
        ctx,
        module,
        compiled: HashMap::new(),
        bufs: HashMap::new(),
    };
    let outs = execute(m, &mut exec, &input_bytes, &constants).map_err(|e| match e {
        ExecuteError::Manifest(s) => fail(s),
        ExecuteError::Executor(d) => d,
    })?;
    m.outputs
        .iter()
        .zip(outs)
        .map(|(s, bytes)| tensor_of_bytes(s, &bytes).map_err(fail))
        .collect()
}

/// The little-endian row-major bytes of `t`'s elements stored as `dtype` (a manifest's
/// element type name), as a device buffer holds them.
pub fn tensor_bytes(t: &Tensor, dtype: &str) -> Result<Vec<u8>, String> {
    let num = num_of(dtype)?;
    let size = num.bytes() as usize;
    Ok(t.data
        .iter()
        .flat_map(|&v| num.encode(v)[..size].to_vec())
        .collect())
}

/// The tensor `spec` describes, from a device buffer's bytes.
pub fn tensor_of_bytes(spec: &TensorSpec, bytes: &[u8]) -> Result<Tensor, String> {
    let num = num_of(&spec.dtype)?;
    let dtype = ElemType::from_keyword(&spec.dtype)
        .ok_or_else(|| format!("unsupported dtype '{}'", spec.dtype))?;
    if spec.bytes() != Some(bytes.len() as u64) {
        return Err(format!(
            "{} bytes for a {:?} tensor of {}",
            bytes.len(),
            spec.shape,
            spec.dtype
        ));
    }
    Ok(Tensor {
        shape: spec.shape.clone(),
        dtype,
        data: decode(bytes, num),
    })
}
