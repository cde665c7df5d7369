//! gpu-level IR → LLVM IR (textual), for NVPTX and AMDGPU.
//!
//! The module is written as LLVM assembly and handed to LLVM's own parser (through
//! inkwell, in [`crate::codegen`]), which verifies it; everything after that (O3 through
//! the pass builder, instruction selection, PTX/ISA emission) is LLVM through inkwell.
//! Text keeps the translation a readable one-op-one-snippet table and gives access to
//! everything the IR can say (sync scopes, fast-math flags, function attributes) without
//! unsafe FFI.
//!
//! Conventions:
//! - **Bare pointers.** A `memref` kernel argument is one pointer to its first element
//!   (`ptr addrspace(1)`, marked `noalias`: te arguments are distinct buffers); shapes
//!   are static, so `memref.load %m[%i, %j]` becomes `offset + i*stride0 + j*stride1`
//!   and an `inbounds` GEP. Scalar arguments are passed by value.
//! - Workgroup attributions and workgroup `memref.alloc`s are `addrspace(3)` globals
//!   (internal, `undef`-initialised, align 16); `gpu.dynamic_shared_memory` is the
//!   external `addrspace(3)` array `@__rtile_dynamic_shmem`, carved with `memref.view`.
//! - `memref.alloca` and private attributions are allocas in the entry block (SROA turns
//!   them into registers).
//! - `index` is `i64` (or `i32` with `index_bits = 32`).
//! - `scf.for`/`scf.if` become a CFG with phis; `scf.for` compares signed.
//! - `known_block_size` becomes `"nvvm.maxntid"` and `"nvvm.maxnreg"` (NVPTX; see
//!   [`block_register_share`]) or `"amdgpu-flat-work-group-size"` (AMDGPU), and
//!   `gpu.block_dim` folds to it.

use std::collections::{BTreeMap, HashMap};

pub mod amdgpu;
pub mod nvgpu;
#[path = "llvmir_sync.rs"]
mod sync;

/// The registers each thread of a block of `threads` may use so that one block fits an
/// NVIDIA SM's 65,536 (every architecture since Kepler): its share rounded down to the
/// allocation granularity of 8, at most 255. Emitted as `.maxnreg`: the construction sized
/// the block and the thread's register tile to the register file (Roller §3.3), and with
/// `.maxntid` alone ptxas 12.9 may hold a kernel to 64 registers and spill (Table-1
/// softmax's row sum at 256 threads: 8 bytes spilled at 64, none at its 98 registers).
pub fn block_register_share(threads: u64) -> u64 {
    let warps_threads = threads.max(1).next_multiple_of(32);
    ((65536 / warps_threads) / 8 * 8).clamp(8, 255)
}
use std::fmt::Write as _;

use rtile::diagnostics::Diagnostic;
use rtile::ir::{
    AttrKind, Attribute, BlockId, Context, DenseLiteral, FloatFormat, FloatKind, OpId, Type,
    TypeKind, Value,
};

use rtile_gpu_vocab::{FastMathFlags, GpuOp as G, MathFn};

use crate::gpuir::{
    KernelInfo, Launch, MemRefInfo, MemSpace, attr_words, dimension, gpu_funcs, kernel_info,
    memref_info, op_error,
};

/// The GPU family the LLVM IR is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// `nvptx64-nvidia-cuda`.
    Nvptx,
    /// `amdgcn-amd-amdhsa`.
    Amdgpu,
}

impl Flavor {
    /// Target triple.
    pub fn triple(self) -> &'static str {
        match self {
            Flavor::Nvptx => "nvptx64-nvidia-cuda",
            Flavor::Amdgpu => "amdgcn-amd-amdhsa",
        }
    }
}

/// Options of the LLVM IR emission.
#[derive(Clone, Debug)]
pub struct LlvmOptions {
    /// Target family.
    pub flavor: Flavor,
    /// `target datalayout` string (from the target machine).
    pub datalayout: String,
    /// Width of `index` (64, as upstream, or 32).
    pub index_bits: u32,
    /// Put `fast` on every floating-point operation (like `-ffast-math`).
    pub fast_math: bool,
    /// The per-thread register limit of NVPTX kernels with a known block size.
    pub max_registers: RegisterLimit,
}

/// `.maxnreg` of an NVPTX kernel with a known block size (`rtile-translate --max-registers`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RegisterLimit {
    /// The block's share of the register file ([`block_register_share`]); the default.
    #[default]
    BlockShare,
    /// No `.maxnreg`: ptxas picks (with `.maxntid` it may aim below the share and spill).
    Unbounded,
    /// This many registers per thread.
    Fixed(u32),
}

/// A translated value.
#[derive(Clone, Debug)]
enum Val {
    /// An SSA value or a literal, with its LLVM type.
    Scalar { repr: String, ty: String },
    /// A memref: pointer to element (0, 0, ...) minus the layout offset, and its layout.
    Mem { ptr: String, info: MemRefInfo },
    /// The dynamic shared memory base (`memref<?xi8, workgroup>`).
    DynShmem,
}

const DYN_SHMEM: &str = "@__rtile_dynamic_shmem";

/// Translates one `gpu.module` into an LLVM module (assembly text).
pub fn translate_module(
    ctx: &Context,
    module: OpId,
    name: &str,
    opts: &LlvmOptions,
) -> Result<String, Diagnostic> {
    rtile_gpu_vocab::check_module(ctx, module, "rtile-translate")?;
    let mut m = ModuleState::default();
    let mut funcs = String::new();
    for f in gpu_funcs(ctx, module) {
        let info = kernel_info(ctx, f)?;
        let text = FnEmitter::new(ctx, opts, &info, &mut m).emit()?;
        funcs.push_str(&text);
        funcs.push('\n');
    }
    let mut out = String::new();
    let _ = writeln!(out, "; ModuleID = '{name}'");
    let _ = writeln!(out, "source_filename = \"{name}\"");
    let _ = writeln!(out, "target datalayout = \"{}\"", opts.datalayout);
    let _ = writeln!(out, "target triple = \"{}\"\n", opts.flavor.triple());
    for g in &m.globals {
        out.push_str(g);
        out.push('\n');
    }
    if !m.globals.is_empty() {
        out.push('\n');
    }
    out.push_str(&funcs);
    for body in m.helpers.values() {
        out.push_str(body);
        out.push('\n');
    }
    for d in m.decls.values() {
        out.push_str(d);
        out.push('\n');
    }
    if !m.attr_groups.is_empty() {
        out.push('\n');
        for (i, a) in m.attr_groups.iter().enumerate() {
            let _ = writeln!(out, "attributes #{i} = {{ {a} }}");
        }
    }
    if !m.metadata.is_empty() {
        out.push('\n');
        for (i, md) in m.metadata.iter().enumerate() {
            let _ = writeln!(out, "!{i} = {}", md.replace("!SELF", &format!("!{i}")));
        }
    }
    Ok(out)
}

#[derive(Default)]
struct ModuleState {
    globals: Vec<String>,
    decls: BTreeMap<String, String>,
    helpers: BTreeMap<String, String>,
    attr_groups: Vec<String>,
    /// Metadata node definitions (`!N = ...`), numbered in order.
    metadata: Vec<String>,
    has_dyn_shmem: bool,
}

impl ModuleState {
    fn declare(&mut self, name: &str, decl: String) {
        self.decls.entry(name.to_string()).or_insert(decl);
    }
    fn attr_group(&mut self, text: String) -> usize {
        if let Some(i) = self.attr_groups.iter().position(|a| *a == text) {
            return i;
        }
        self.attr_groups.push(text);
        self.attr_groups.len() - 1
    }
}

struct FnEmitter<'a> {
    ctx: &'a Context,
    opts: &'a LlvmOptions,
    info: &'a KernelInfo,
    m: &'a mut ModuleState,
    vals: HashMap<Value, Val>,
    body: String,
    allocas: String,
    cur_label: String,
    tmp: usize,
    labels: usize,
    idx: &'static str,
    alloca_as: u32,
    patches: Vec<(String, String)>,
}

/// LLVM float literal (hexadecimal, exact).
fn float_lit(v: f64, kind: FloatKind) -> Option<String> {
    Some(match kind {
        FloatKind::F32 => format!("0x{:016X}", ((v as f32) as f64).to_bits()),
        FloatKind::F64 => format!("0x{:016X}", v.to_bits()),
        FloatKind::F16 => format!("0xH{:04X}", FloatFormat::F16.encode(v)),
        FloatKind::BF16 => format!("0xR{:04X}", FloatFormat::BF16.encode(v)),
        _ => return None,
    })
}

fn float_kind_ty(k: FloatKind) -> Option<&'static str> {
    Some(match k {
        FloatKind::F16 => "half",
        FloatKind::BF16 => "bfloat",
        FloatKind::F32 => "float",
        FloatKind::F64 => "double",
        _ => return None,
    })
}

/// The LLVM scalar suffix of an overloaded intrinsic (`f32`, `v4f32`, `i64`).
fn intr_suffix(ty: &str) -> String {
    let scalar = |t: &str| -> String {
        match t {
            "half" => "f16".into(),
            "bfloat" => "bf16".into(),
            "float" => "f32".into(),
            "double" => "f64".into(),
            other => other.to_string(),
        }
    };
    if let Some(inner) = ty.strip_prefix('<').and_then(|t| t.strip_suffix('>')) {
        let mut parts = inner.split(" x ");
        let n = parts.next().unwrap_or("1").trim();
        let e = parts.next().unwrap_or("float").trim();
        return format!("v{n}{}", scalar(e));
    }
    scalar(ty)
}

fn addrspace(asp: u32) -> String {
    if asp == 0 {
        "ptr".into()
    } else {
        format!("ptr addrspace({asp})")
    }
}

fn is_float_ty(ty: &str) -> bool {
    let s = ty
        .strip_prefix('<')
        .and_then(|t| t.split(" x ").nth(1))
        .map(|t| t.trim_end_matches('>'))
        .unwrap_or(ty);
    matches!(s, "half" | "bfloat" | "float" | "double")
}

fn elem_of(ty: &str) -> &str {
    ty.strip_prefix('<')
        .and_then(|t| t.split(" x ").nth(1))
        .map(|t| t.trim_end_matches('>'))
        .unwrap_or(ty)
}

fn int_width(ty: &str) -> Option<u32> {
    elem_of(ty).strip_prefix('i')?.parse().ok()
}

impl<'a> FnEmitter<'a> {
    fn new(
        ctx: &'a Context,
        opts: &'a LlvmOptions,
        info: &'a KernelInfo,
        m: &'a mut ModuleState,
    ) -> Self {
        let alloca_as = opts
            .datalayout
            .split('-')
            .find_map(|p| p.strip_prefix('A').and_then(|n| n.parse().ok()))
            .unwrap_or(0);
        FnEmitter {
            ctx,
            opts,
            info,
            m,
            vals: HashMap::new(),
            body: String::new(),
            allocas: String::new(),
            cur_label: "entry".into(),
            tmp: 0,
            labels: 0,
            idx: if opts.index_bits == 32 { "i32" } else { "i64" },
            alloca_as,
            patches: Vec::new(),
        }
    }

    fn err(&self, op: OpId, msg: impl Into<String>) -> Diagnostic {
        op_error(self.ctx, op, msg)
    }

    fn fresh(&mut self) -> String {
        self.tmp += 1;
        format!("%t{}", self.tmp)
    }

    fn label(&mut self, base: &str) -> String {
        self.labels += 1;
        format!("{base}{}", self.labels)
    }

    fn line(&mut self, s: &str) {
        self.body.push_str("  ");
        self.body.push_str(s);
        self.body.push('\n');
    }

    /// Emits `%tN = rhs` and returns `%tN`.
    fn assign(&mut self, rhs: &str) -> String {
        let n = self.fresh();
        self.body.push_str("  ");
        self.body.push_str(&n);
        self.body.push_str(" = ");
        self.body.push_str(rhs);
        self.body.push('\n');
        n
    }

    fn start_block(&mut self, label: &str) {
        let _ = writeln!(self.body, "{label}:");
        self.cur_label = label.to_string();
    }

    fn space_as(&self, s: MemSpace) -> u32 {
        match s {
            MemSpace::Global => 1,
            MemSpace::Workgroup => 3,
            MemSpace::Private => self.alloca_as,
        }
    }

    fn llvm_type(&self, op: OpId, t: &Type) -> Result<String, Diagnostic> {
        Ok(match t.kind() {
            TypeKind::Index => self.idx.to_string(),
            TypeKind::Integer { width, .. } => format!("i{width}"),
            TypeKind::Float(k) => float_kind_ty(*k)
                .ok_or_else(|| self.err(op, format!("unsupported float type {}", k.keyword())))?
                .to_string(),
            TypeKind::Vector { shape, elem, .. } if shape.len() == 1 => {
                format!("<{} x {}>", shape[0], self.llvm_type(op, elem)?)
            }
            // A 2-D vector (an MMA fragment) is an array of rows, as upstream lowers it.
            TypeKind::Vector { shape, elem, .. } if shape.len() == 2 => {
                format!(
                    "[{} x <{} x {}>]",
                    shape[0],
                    shape[1],
                    self.llvm_type(op, elem)?
                )
            }
            _ => {
                return Err(self.err(
                    op,
                    format!(
                        "unsupported type '{}' in the gpu-level IR",
                        rtile::printer::type_to_string(t)
                    ),
                ));
            }
        })
    }

    fn fmf(&self, op: OpId) -> String {
        if self.opts.fast_math {
            return "fast ".into();
        }
        let flags = FastMathFlags::of(self.ctx.inherent_attr(op, "fastmath"));
        flags.words.iter().map(|w| format!("{w} ")).collect()
    }

    fn scalar(&self, op: OpId, v: Value) -> Result<(String, String), Diagnostic> {
        match self.vals.get(&v) {
            Some(Val::Scalar { repr, ty }) => Ok((repr.clone(), ty.clone())),
            Some(_) => Err(self.err(op, "expected a scalar or vector operand, found a memref")),
            None => Err(self.err(op, "operand defined outside the translated function")),
        }
    }

    fn mem(&self, op: OpId, v: Value) -> Result<(String, MemRefInfo), Diagnostic> {
        match self.vals.get(&v) {
            Some(Val::Mem { ptr, info }) => Ok((ptr.clone(), info.clone())),
            _ => Err(self.err(op, "expected a memref operand with a static shape")),
        }
    }

    fn set(&mut self, v: Value, repr: String, ty: String) {
        self.vals.insert(v, Val::Scalar { repr, ty });
    }

    fn declare(&mut self, name: &str, ret: &str, args: &[&str]) {
        self.m
            .declare(name, format!("declare {ret} @{name}({})", args.join(", ")));
    }

    fn call(&mut self, ret: &str, name: &str, args: &[(&str, &str)], flags: &str) -> String {
        let tys: Vec<&str> = args.iter().map(|a| a.0).collect();
        self.declare(name, ret, &tys);
        let a: Vec<String> = args.iter().map(|(t, v)| format!("{t} {v}")).collect();
        if ret == "void" {
            self.line(&format!("call void @{name}({})", a.join(", ")));
            String::new()
        } else {
            self.assign(&format!("call {flags}{ret} @{name}({})", a.join(", ")))
        }
    }

    // ----- function ------------------------------------------------------------------

    fn emit(mut self) -> Result<String, Diagnostic> {
        let ctx = self.ctx;
        let info = self.info;
        let mut params = Vec::new();
        for (i, &a) in info.args.iter().enumerate() {
            let t = ctx.value_type(a);
            if matches!(t.kind(), TypeKind::MemRef { .. }) {
                let mi = memref_info(t).map_err(|e| {
                    self.err(info.op, format!("argument {i} of @{}: {e}", info.name))
                })?;
                if mi.space != MemSpace::Global {
                    return Err(self.err(
                        info.op,
                        format!(
                            "argument {i} of @{}: kernel memref arguments must be in global memory",
                            info.name
                        ),
                    ));
                }
                let name = format!("%arg{i}");
                // A persistent kernel's arguments may alias (views of one buffer read and
                // written by different rTasks): no `noalias` there.
                let persistent = ctx.attr(info.op, "rtile.persistent").is_some();
                let noalias = if info.is_kernel && !persistent {
                    " noalias"
                } else {
                    ""
                };
                params.push(format!("{}{noalias} align 16 {name}", addrspace(1)));
                self.vals.insert(
                    a,
                    Val::Mem {
                        ptr: name,
                        info: mi,
                    },
                );
            } else {
                let ty = self.llvm_type(info.op, t)?;
                let name = format!("%arg{i}");
                params.push(format!("{ty} {name}"));
                self.set(a, name, ty);
            }
        }
        for (i, &w) in info.workgroup.iter().enumerate() {
            let mi = memref_info(ctx.value_type(w))
                .map_err(|e| self.err(info.op, format!("workgroup attribution {i}: {e}")))?;
            let g = format!("@__rtile_wg_{}_{i}", info.name);
            let ety = self.llvm_type(info.op, &mi.elem)?;
            self.m.globals.push(format!(
                "{g} = internal addrspace(3) global [{} x {ety}] undef, align 16",
                mi.span_elements().max(1)
            ));
            self.vals.insert(w, Val::Mem { ptr: g, info: mi });
        }
        for (i, &p) in info.private.iter().enumerate() {
            let mi = memref_info(ctx.value_type(p))
                .map_err(|e| self.err(info.op, format!("private attribution {i}: {e}")))?;
            let ptr = self.alloca(info.op, &mi)?;
            self.vals.insert(p, Val::Mem { ptr, info: mi });
        }

        self.emit_block(info.entry)?;

        let mut attrs = Vec::new();
        if let Some(b) = info.launch.block {
            let total: u64 = b.iter().map(|&x| x as u64).product();
            match self.opts.flavor {
                Flavor::Nvptx => {
                    attrs.push(format!("\"nvvm.maxntid\"=\"{},{},{}\"", b[0], b[1], b[2]));
                    let limit = match self.opts.max_registers {
                        RegisterLimit::BlockShare => Some(block_register_share(total)),
                        RegisterLimit::Unbounded => None,
                        RegisterLimit::Fixed(n) => Some(u64::from(n)),
                    };
                    if let Some(n) = limit {
                        attrs.push(format!("\"nvvm.maxnreg\"=\"{n}\""));
                    }
                }
                Flavor::Amdgpu => attrs.push(format!(
                    "\"amdgpu-flat-work-group-size\"=\"{total},{total}\""
                )),
            }
        }
        let ret_cc = match (self.opts.flavor, info.is_kernel) {
            (Flavor::Nvptx, true) => "ptx_kernel ",
            (Flavor::Amdgpu, true) => "amdgpu_kernel ",
            _ => "",
        };
        attrs.push("nounwind".into());
        let group = self.m.attr_group(attrs.join(" "));
        let mut body = std::mem::take(&mut self.body);
        for (ph, val) in &self.patches {
            body = body.replace(ph.as_str(), val);
        }
        let mut out = String::new();
        let _ = writeln!(
            out,
            "define {ret_cc}void @{}({}) #{group} {{",
            info.name,
            params.join(", ")
        );
        out.push_str("entry:\n");
        out.push_str(&self.allocas);
        out.push_str(&body);
        out.push_str("}\n");
        Ok(out)
    }

    fn alloca(&mut self, op: OpId, mi: &MemRefInfo) -> Result<String, Diagnostic> {
        let ety = self.llvm_type(op, &mi.elem)?;
        let n = self.fresh();
        let asp = if self.alloca_as != 0 {
            format!(", addrspace({})", self.alloca_as)
        } else {
            String::new()
        };
        let _ = writeln!(
            self.allocas,
            "  {n} = alloca [{} x {ety}], align 16{asp}",
            mi.span_elements().max(1)
        );
        Ok(n)
    }

    /// Emits the ops of `block`; returns the operands of its `scf.yield` if it ends in one.
    fn emit_block(&mut self, block: BlockId) -> Result<Vec<Value>, Diagnostic> {
        let ops: Vec<OpId> = self.ctx.block_ops(block).collect();
        for op in ops {
            let g = G::decode(self.ctx, op)?;
            match g {
                G::Yield => return Ok(self.ctx.operands(op).to_vec()),
                G::Return => {
                    if !self.ctx.operands(op).is_empty() {
                        return Err(self.err(op, "gpu.return with operands is not supported"));
                    }
                    self.line("ret void");
                    return Ok(Vec::new());
                }
                _ => self.emit_op(op, g)?,
            }
        }
        Ok(Vec::new())
    }

    fn special_reg(&mut self, op: OpId, kind: &str) -> Result<String, Diagnostic> {
        let dim = dimension(self.ctx, op)
            .ok_or_else(|| self.err(op, "expected a `dimension = #gpu<dim x|y|z>` property"))?;
        let xyz = ["x", "y", "z"][dim];
        let info = self.info;
        let launch: &Launch = &info.launch;
        // Known sizes fold to constants (upstream does the same with known_block_size).
        match kind {
            "block_dim" => {
                if let Some(b) = launch.block {
                    return Ok(b[dim].to_string());
                }
            }
            "grid_dim" => {
                if let Some(g) = launch.grid {
                    return Ok(g[dim].to_string());
                }
            }
            _ => {}
        }
        let r32 = match self.opts.flavor {
            Flavor::Nvptx => {
                let reg = match kind {
                    "thread_id" => "tid",
                    "block_id" => "ctaid",
                    "block_dim" => "ntid",
                    _ => "nctaid",
                };
                let name = format!("llvm.nvvm.read.ptx.sreg.{reg}.{xyz}");
                self.call("i32", &name, &[], "")
            }
            Flavor::Amdgpu => match kind {
                "thread_id" => self.call("i32", &format!("llvm.amdgcn.workitem.id.{xyz}"), &[], ""),
                "block_id" => self.call("i32", &format!("llvm.amdgcn.workgroup.id.{xyz}"), &[], ""),
                _ => {
                    // hsa_kernel_dispatch_packet_t: workgroup_size_{x,y,z} are u16 at 4, 6, 8;
                    // grid_size_{x,y,z} are u32 (in work-items) at 12, 16, 20.
                    let dp = self.call("ptr addrspace(4)", "llvm.amdgcn.dispatch.ptr", &[], "");
                    let wg_off = 4 + 2 * dim;
                    let p = self.assign(&format!(
                        "getelementptr inbounds i8, ptr addrspace(4) {dp}, i64 {wg_off}"
                    ));
                    let w16 = self.assign(&format!("load i16, ptr addrspace(4) {p}, align 2"));
                    let w = self.assign(&format!("zext i16 {w16} to i32"));
                    if kind == "block_dim" {
                        w
                    } else {
                        let g_off = 12 + 4 * dim;
                        let p = self.assign(&format!(
                            "getelementptr inbounds i8, ptr addrspace(4) {dp}, i64 {g_off}"
                        ));
                        let g = self.assign(&format!("load i32, ptr addrspace(4) {p}, align 4"));
                        self.assign(&format!("udiv i32 {g}, {w}"))
                    }
                }
            },
        };
        Ok(self.widen_i32(&r32))
    }

    fn widen_i32(&mut self, v: &str) -> String {
        if self.idx == "i32" {
            v.to_string()
        } else {
            self.assign(&format!("zext i32 {v} to i64"))
        }
    }

    fn barrier(&mut self) {
        match self.opts.flavor {
            // A persistent kernel's surplus threads reach the block barrier through their
            // own `gpu.barrier` ops (OSDI'20 §4.2.1): `bar.sync` without `.aligned`, which
            // counts arrivals wherever they come from.
            Flavor::Nvptx if self.ctx.attr(self.info.op, "rtile.persistent").is_some() => {
                self.call(
                    "void",
                    "llvm.nvvm.barrier.cta.sync.all",
                    &[("i32", "0")],
                    "",
                );
            }
            Flavor::Nvptx => {
                self.call(
                    "void",
                    "llvm.nvvm.barrier.cta.sync.aligned.all",
                    &[("i32", "0")],
                    "",
                );
            }
            Flavor::Amdgpu => {
                self.line("fence syncscope(\"workgroup\") release");
                self.call("void", "llvm.amdgcn.s.barrier", &[], "");
                self.line("fence syncscope(\"workgroup\") acquire");
            }
        }
    }

    /// The linear element index of `indices` into `info` (a literal when constant).
    fn linear_index(
        &mut self,
        op: OpId,
        info: &MemRefInfo,
        indices: &[Value],
    ) -> Result<String, Diagnostic> {
        if indices.len() != info.shape.len() {
            return Err(self.err(
                op,
                format!(
                    "{} indices for a rank-{} memref",
                    indices.len(),
                    info.shape.len()
                ),
            ));
        }
        let idx = self.idx;
        let mut konst: i64 = info.offset;
        let mut terms: Vec<String> = Vec::new();
        for (&v, &stride) in indices.iter().zip(&info.strides) {
            let (repr, ty) = self.scalar(op, v)?;
            let repr = if ty != idx {
                self.convert_int(&repr, &ty, idx, true)
            } else {
                repr
            };
            if let Ok(c) = repr.parse::<i64>() {
                konst += c * stride;
                continue;
            }
            if stride == 0 {
                continue;
            }
            terms.push(if stride == 1 {
                repr
            } else {
                self.assign(&format!("mul nsw {idx} {repr}, {stride}"))
            });
        }
        let mut acc: Option<String> = None;
        for t in terms {
            acc = Some(match acc {
                None => t,
                Some(a) => self.assign(&format!("add nsw {idx} {a}, {t}")),
            });
        }
        Ok(match acc {
            None => konst.to_string(),
            Some(a) if konst == 0 => a,
            Some(a) => self.assign(&format!("add nsw {idx} {a}, {konst}")),
        })
    }

    fn convert_int(&mut self, repr: &str, from: &str, to: &str, signed: bool) -> String {
        let (Some(fw), Some(tw)) = (int_width(from), int_width(to)) else {
            return repr.to_string();
        };
        if fw == tw {
            return repr.to_string();
        }
        if let Ok(c) = repr.parse::<i64>() {
            // Fold: truncation keeps the low bits (two's complement), extension the value
            // (zero extension of a negative literal reinterprets its `fw` bits).
            let v = if tw < 64 && fw > tw {
                let shift = 64 - tw;
                (c << shift) >> shift
            } else if !signed && fw < 64 && c < 0 {
                c & ((1i64 << fw) - 1)
            } else {
                c
            };
            return v.to_string();
        }
        let opn = if fw > tw {
            "trunc"
        } else if signed {
            "sext"
        } else {
            "zext"
        };
        self.assign(&format!("{opn} {from} {repr} to {to}"))
    }

    fn element_ptr(
        &mut self,
        op: OpId,
        mem: Value,
        indices: &[Value],
    ) -> Result<(String, MemRefInfo, u32, String), Diagnostic> {
        let (ptr, info) = self.mem(op, mem)?;
        let lin = self.linear_index(op, &info, indices)?;
        let ety = self.llvm_type(op, &info.elem)?;
        let asp = self.space_as(info.space);
        let p = if lin == "0" {
            ptr
        } else {
            self.assign(&format!(
                "getelementptr inbounds {ety}, {} {ptr}, {} {lin}",
                addrspace(asp),
                self.idx
            ))
        };
        Ok((p, info, asp, ety))
    }

    fn const_attr(&self, op: OpId, a: &Attribute, ty: &str) -> Result<String, Diagnostic> {
        if let Some(c) = self.array_constant(op, a, ty)? {
            return Ok(c);
        }
        let scalar = |lit: &DenseLiteral, ety: &str| -> Option<String> {
            match lit {
                DenseLiteral::Int(i) => Some(if ety == "i1" {
                    if *i != 0 {
                        "true".into()
                    } else {
                        "false".into()
                    }
                } else if is_float_ty(ety) {
                    float_lit(*i as f64, kind_of(ety)?)?
                } else {
                    i.to_string()
                }),
                DenseLiteral::Bool(b) => Some(if *b { "true".into() } else { "false".into() }),
                DenseLiteral::Float(f) => float_lit(f.get(), kind_of(ety)?),
                _ => None,
            }
        };
        match a.kind() {
            AttrKind::Integer { value, .. } => Ok(if ty == "i1" {
                if *value != 0 {
                    "true".into()
                } else {
                    "false".into()
                }
            } else {
                value.to_string()
            }),
            AttrKind::Bool(b) => Ok(if *b { "true".into() } else { "false".into() }),
            AttrKind::Float { value, .. } => kind_of(ty)
                .and_then(|k| float_lit(value.get(), k))
                .ok_or_else(|| self.err(op, "unsupported float constant")),
            AttrKind::DenseElements { literal, ty: dty } => {
                let n = dty.shape().map(|s| s.iter().product::<i64>()).unwrap_or(1);
                let ety = elem_of(ty).to_string();
                let elems: Vec<String> = match literal {
                    DenseLiteral::List(xs) => {
                        let flat = flatten(xs);
                        flat.iter()
                            .map(|l| scalar(l, &ety))
                            .collect::<Option<Vec<_>>>()
                            .ok_or_else(|| self.err(op, "unsupported dense constant"))?
                    }
                    l => {
                        let s = scalar(l, &ety)
                            .ok_or_else(|| self.err(op, "unsupported dense constant"))?;
                        vec![s; n.max(1) as usize]
                    }
                };
                if !ty.starts_with('<') {
                    return elems
                        .first()
                        .cloned()
                        .ok_or_else(|| self.err(op, "empty constant"));
                }
                Ok(format!(
                    "<{}>",
                    elems
                        .iter()
                        .map(|e| format!("{ety} {e}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            }
            _ => Err(self.err(op, "unsupported constant attribute")),
        }
    }

    fn result_ty(&self, op: OpId) -> Result<String, Diagnostic> {
        let r = *self
            .ctx
            .results(op)
            .first()
            .ok_or_else(|| self.err(op, "expected a result"))?;
        self.llvm_type(op, self.ctx.value_type(r))
    }

    fn bin(&mut self, op: OpId, inst: &str, flags: &str) -> Result<(), Diagnostic> {
        let ops = self.ctx.operands(op).to_vec();
        if ops.len() != 2 {
            return Err(self.err(op, "expected two operands"));
        }
        let (a, ty) = self.scalar(op, ops[0])?;
        let (b, _) = self.scalar(op, ops[1])?;
        let r = self.assign(&format!("{inst} {flags}{ty} {a}, {b}"));
        self.set(self.ctx.result(op, 0), r, ty);
        Ok(())
    }

    fn intr(&mut self, op: OpId, base: &str, flags: &str) -> Result<(), Diagnostic> {
        let ops = self.ctx.operands(op).to_vec();
        let mut args = Vec::new();
        let mut ty = String::new();
        for v in &ops {
            let (r, t) = self.scalar(op, *v)?;
            ty = t.clone();
            args.push((t, r));
        }
        let name = format!("{base}.{}", intr_suffix(&ty));
        let a: Vec<(&str, &str)> = args.iter().map(|(t, r)| (t.as_str(), r.as_str())).collect();
        let r = self.call(&ty, &name, &a, flags);
        self.set(self.ctx.result(op, 0), r, ty);
        Ok(())
    }

    fn overflow_flags(&self, op: OpId) -> String {
        let Some(a) = self.ctx.inherent_attr(op, "overflowFlags") else {
            return String::new();
        };
        let mut s = String::new();
        for w in attr_words(a) {
            if w == "nuw" || w == "nsw" {
                s.push_str(&w);
                s.push(' ');
            }
        }
        s
    }

    /// Emits `op`, decoded as `g`. The match has no wildcard arm: a new [`G`] variant does
    /// not compile until it is translated here.
    fn emit_op(&mut self, op: OpId, g: G) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        crate::gpuir::check_arity(ctx, op)?;
        let name = ctx.op_name(op).to_string();
        let operands = ctx.operands(op).to_vec();
        match g {
            G::ThreadId | G::BlockId | G::BlockDim | G::GridDim => {
                let r = self.special_reg(op, &name[4..])?;
                self.set(ctx.result(op, 0), r, self.idx.into());
            }
            G::GlobalId => {
                let t = self.special_reg(op, "thread_id")?;
                let b = self.special_reg(op, "block_id")?;
                let d = self.special_reg(op, "block_dim")?;
                let idx = self.idx;
                let m = self.assign(&format!("mul nuw nsw {idx} {b}, {d}"));
                let r = self.assign(&format!("add nuw nsw {idx} {m}, {t}"));
                self.set(ctx.result(op, 0), r, idx.into());
            }
            G::LaneId => {
                let r = self.lane_id();
                let r = self.widen_i32(&r);
                self.set(ctx.result(op, 0), r, self.idx.into());
            }
            G::Barrier => self.barrier(),
            G::Shuffle => self.shuffle(op)?,
            G::DynamicSharedMemory => {
                if !self.m.has_dyn_shmem {
                    self.m.has_dyn_shmem = true;
                    self.m.globals.push(format!(
                        "{DYN_SHMEM} = external addrspace(3) global [0 x i8], align 16"
                    ));
                }
                self.vals.insert(ctx.result(op, 0), Val::DynShmem);
            }
            G::Constant => {
                let ty = self.result_ty(op)?;
                let a = *ctx
                    .inherent_attr(op, "value")
                    .ok_or_else(|| self.err(op, "arith.constant without a value"))?;
                let lit = self.const_attr(op, &a, &ty)?;
                self.set(ctx.result(op, 0), lit, ty);
            }
            G::AddI => self.bin(op, "add", &self.overflow_flags(op))?,
            G::SubI => self.bin(op, "sub", &self.overflow_flags(op))?,
            G::MulI => self.bin(op, "mul", &self.overflow_flags(op))?,
            G::DivSI => self.bin(op, "sdiv", "")?,
            G::DivUI => self.bin(op, "udiv", "")?,
            G::RemSI => self.bin(op, "srem", "")?,
            G::RemUI => self.bin(op, "urem", "")?,
            G::AndI => self.bin(op, "and", "")?,
            G::OrI => self.bin(op, "or", "")?,
            G::XOrI => self.bin(op, "xor", "")?,
            G::ShLI => self.bin(op, "shl", "")?,
            G::ShRSI => self.bin(op, "ashr", "")?,
            G::ShRUI => self.bin(op, "lshr", "")?,
            G::MaxSI => self.intr(op, "llvm.smax", "")?,
            G::MinSI => self.intr(op, "llvm.smin", "")?,
            G::MaxUI => self.intr(op, "llvm.umax", "")?,
            G::MinUI => self.intr(op, "llvm.umin", "")?,
            G::FloorDivSI | G::CeilDivSI | G::CeilDivUI => self.div_round(op, g)?,
            G::AddF => self.bin(op, "fadd", &self.fmf(op))?,
            G::SubF => self.bin(op, "fsub", &self.fmf(op))?,
            G::MulF => self.bin(op, "fmul", &self.fmf(op))?,
            G::DivF => self.bin(op, "fdiv", &self.fmf(op))?,
            G::RemF => self.remf(op)?,
            G::MaximumF => self.intr(op, "llvm.maximum", &self.fmf(op))?,
            G::MinimumF => self.intr(op, "llvm.minimum", &self.fmf(op))?,
            G::MaxNumF => self.intr(op, "llvm.maxnum", &self.fmf(op))?,
            G::MinNumF => self.intr(op, "llvm.minnum", &self.fmf(op))?,
            G::NegF => {
                let (a, ty) = self.scalar(op, operands[0])?;
                let f = self.fmf(op);
                let r = self.assign(&format!("fneg {f}{ty} {a}"));
                self.set(ctx.result(op, 0), r, ty);
            }
            G::CmpI(p) => self.cmp(op, "icmp ", p.keyword())?,
            G::CmpF(p) => {
                let f = self.fmf(op);
                self.cmp(op, &format!("fcmp {f}"), p.keyword())?
            }
            G::Select => {
                let (c, cty) = self.scalar(op, operands[0])?;
                let (a, ty) = self.scalar(op, operands[1])?;
                let (b, _) = self.scalar(op, operands[2])?;
                let r = self.assign(&format!("select {cty} {c}, {ty} {a}, {ty} {b}"));
                self.set(ctx.result(op, 0), r, ty);
            }
            G::IndexCast | G::IndexCastUI | G::ExtSI | G::ExtUI | G::TruncI => {
                let (a, from) = self.scalar(op, operands[0])?;
                let to = self.result_ty(op)?;
                let signed = !matches!(g, G::IndexCastUI | G::ExtUI);
                let r = self.convert_int(&a, &from, &to, signed);
                self.set(ctx.result(op, 0), r, to);
            }
            G::ExtF | G::TruncF | G::SIToFP | G::UIToFP | G::FPToSI | G::FPToUI | G::Bitcast => {
                let (a, from) = self.scalar(op, operands[0])?;
                let to = self.result_ty(op)?;
                let inst = match g {
                    G::ExtF => "fpext",
                    G::TruncF => "fptrunc",
                    G::SIToFP => "sitofp",
                    G::UIToFP => "uitofp",
                    G::FPToSI => "fptosi",
                    G::FPToUI => "fptoui",
                    _ => "bitcast",
                };
                let r = if from == to {
                    a
                } else {
                    self.assign(&format!("{inst} {from} {a} to {to}"))
                };
                self.set(ctx.result(op, 0), r, to);
            }
            G::Math(m) => self.math(op, m)?,
            G::For => self.scf_for(op)?,
            G::If => self.scf_if(op)?,
            G::While => self.scf_while(op)?,
            G::Condition => {
                return Err(self.err(op, "scf.condition outside an scf.while"));
            }
            G::AtomicRmw => self.atomic_rmw(op)?,
            G::Fence => self.fence(op)?,
            G::Load => {
                let (p, _info, asp, ety) = self.element_ptr(op, operands[0], &operands[1..])?;
                let align = self.elem_align(&ety);
                let r = self.assign(&format!(
                    "load {ety}, {} {p}, align {align}",
                    addrspace(asp)
                ));
                self.set(ctx.result(op, 0), r, ety);
            }
            G::Store => {
                let (v, _) = self.scalar(op, operands[0])?;
                let (p, _info, asp, ety) = self.element_ptr(op, operands[1], &operands[2..])?;
                let align = self.elem_align(&ety);
                self.line(&format!(
                    "store {ety} {v}, {} {p}, align {align}",
                    addrspace(asp)
                ));
            }
            G::VectorLoad => {
                let (p, _info, asp, _ety) = self.element_ptr(op, operands[0], &operands[1..])?;
                let vty = self.result_ty(op)?;
                let align = self.vec_align(&vty);
                let r = self.assign(&format!(
                    "load {vty}, {} {p}, align {align}",
                    addrspace(asp)
                ));
                self.set(ctx.result(op, 0), r, vty);
            }
            G::VectorStore => {
                let (v, vty) = self.scalar(op, operands[0])?;
                let (p, _info, asp, _ety) = self.element_ptr(op, operands[1], &operands[2..])?;
                let align = self.vec_align(&vty);
                self.line(&format!(
                    "store {vty} {v}, {} {p}, align {align}",
                    addrspace(asp)
                ));
            }
            G::Extract | G::Insert | G::Broadcast if self.on_2d_vector(op, g) => {
                self.array_vector_op(op, g)?
            }
            G::MmaSync => self.mma_sync(op)?,
            G::Mfma => self.mfma(op)?,
            G::LdMatrix => self.ldmatrix(op)?,
            G::AsyncCopy => self.async_copy(op)?,
            G::AsyncCreateGroup => self.async_commit(op)?,
            G::AsyncWait => self.async_wait(op)?,
            G::Extract | G::ExtractElement => {
                let (v, vty) = self.scalar(op, operands[0])?;
                let pos = self.position(op, &operands[1..])?;
                let ety = self.result_ty(op)?;
                let r = self.assign(&format!(
                    "extractelement {vty} {v}, {} {pos}",
                    self.pos_ty(&pos)
                ));
                self.set(ctx.result(op, 0), r, ety);
            }
            G::Insert | G::InsertElement => {
                let (s, sty) = self.scalar(op, operands[0])?;
                let (v, vty) = self.scalar(op, operands[1])?;
                let pos = self.position(op, &operands[2..])?;
                let r = self.assign(&format!(
                    "insertelement {vty} {v}, {sty} {s}, {} {pos}",
                    self.pos_ty(&pos)
                ));
                self.set(ctx.result(op, 0), r, vty);
            }
            G::Broadcast | G::Splat => {
                let (s, sty) = self.scalar(op, operands[0])?;
                let vty = self.result_ty(op)?;
                if sty == vty {
                    self.set(ctx.result(op, 0), s, vty);
                } else {
                    let n: String = vty
                        .trim_start_matches('<')
                        .split(" x ")
                        .next()
                        .unwrap_or("1")
                        .to_string();
                    let i = self.assign(&format!("insertelement {vty} poison, {sty} {s}, i32 0"));
                    let r = self.assign(&format!(
                        "shufflevector {vty} {i}, {vty} poison, <{n} x i32> zeroinitializer"
                    ));
                    self.set(ctx.result(op, 0), r, vty);
                }
            }
            G::VectorFma => self.intr(op, "llvm.fma", &self.fmf(op))?,
            G::Alloca | G::Alloc => {
                if !operands.is_empty() {
                    return Err(self.err(op, "dynamic allocation sizes are not supported"));
                }
                let r = ctx.result(op, 0);
                let mi = memref_info(ctx.value_type(r)).map_err(|e| self.err(op, e))?;
                let ptr = match mi.space {
                    MemSpace::Workgroup => {
                        let g = format!("@__rtile_wg_{}_a{}", self.info.name, self.m.globals.len());
                        let ety = self.llvm_type(op, &mi.elem)?;
                        self.m.globals.push(format!(
                            "{g} = internal addrspace(3) global [{} x {ety}] undef, align 16",
                            mi.span_elements().max(1)
                        ));
                        g
                    }
                    MemSpace::Private => self.alloca(op, &mi)?,
                    MemSpace::Global if name == "memref.alloca" => {
                        let mut pm = mi.clone();
                        pm.space = MemSpace::Private;
                        let p = self.alloca(op, &pm)?;
                        self.vals.insert(r, Val::Mem { ptr: p, info: pm });
                        return Ok(());
                    }
                    MemSpace::Global => {
                        return Err(self.err(
                            op,
                            "memref.alloc of global memory inside a kernel is not supported",
                        ));
                    }
                };
                self.vals.insert(r, Val::Mem { ptr, info: mi });
            }
            G::Dealloc => {}
            G::View => {
                if !matches!(self.vals.get(&operands[0]), Some(Val::DynShmem)) {
                    return Err(self.err(
                        op,
                        "memref.view is supported on gpu.dynamic_shared_memory only",
                    ));
                }
                let (shift, sty) = self.scalar(op, operands[1])?;
                let r = ctx.result(op, 0);
                let mi = memref_info(ctx.value_type(r)).map_err(|e| self.err(op, e))?;
                let p = self.assign(&format!(
                    "getelementptr inbounds i8, ptr addrspace(3) {DYN_SHMEM}, {sty} {shift}"
                ));
                self.vals.insert(r, Val::Mem { ptr: p, info: mi });
            }
            // A collapse of identity-layout memrefs: the same pointer under a new shape.
            G::Cast | G::CollapseShape => {
                let (p, _) = self.mem(op, operands[0])?;
                let r = ctx.result(op, 0);
                let mi = memref_info(ctx.value_type(r)).map_err(|e| self.err(op, e))?;
                self.vals.insert(r, Val::Mem { ptr: p, info: mi });
            }
            G::Dim => {
                let (_, info) = self.mem(op, operands[0])?;
                let (i, _) = self.scalar(op, operands[1])?;
                let d = i
                    .parse::<usize>()
                    .ok()
                    .and_then(|i| info.shape.get(i).copied())
                    .ok_or_else(|| {
                        self.err(op, "memref.dim needs a constant in-range dimension")
                    })?;
                self.set(ctx.result(op, 0), d.to_string(), self.idx.into());
            }
            // emit_block ends the block at its terminator before coming here.
            G::Yield | G::Return => unreachable!("terminators are handled by emit_block"),
        }
        Ok(())
    }

    /// `frem`; 16-bit floats are computed in f32 (no back end has a 16-bit fmod libcall).
    fn remf(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ops = self.ctx.operands(op).to_vec();
        let (a, ty) = self.scalar(op, ops[0])?;
        let (b, _) = self.scalar(op, ops[1])?;
        let f = self.fmf(op);
        let ety = elem_of(&ty).to_string();
        if ety == "bfloat" && self.opts.flavor == Flavor::Amdgpu {
            // LLVM narrows the f32 detour back to a bf16 frem, which AMDGPU cannot lower.
            return Err(self.err(op, "arith.remf on bf16 is not supported for AMDGPU"));
        }
        let r = if matches!(ety.as_str(), "half" | "bfloat") {
            let wide = ty.replace(&ety, "float");
            let x = self.assign(&format!("fpext {ty} {a} to {wide}"));
            let y = self.assign(&format!("fpext {ty} {b} to {wide}"));
            let q = self.assign(&format!("frem {f}{wide} {x}, {y}"));
            self.assign(&format!("fptrunc {wide} {q} to {ty}"))
        } else {
            self.assign(&format!("frem {f}{ty} {a}, {b}"))
        };
        self.set(self.ctx.result(op, 0), r, ty);
        Ok(())
    }

    fn elem_align(&self, ety: &str) -> u32 {
        match ety {
            "i1" | "i8" => 1,
            "i16" | "half" | "bfloat" => 2,
            "i64" | "double" => 8,
            _ => 4,
        }
    }

    fn vec_align(&self, vty: &str) -> u32 {
        let n: u32 = vty
            .trim_start_matches('<')
            .split(" x ")
            .next()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(1);
        (n * self.elem_align(elem_of(vty))).min(16)
    }

    fn position(&self, op: OpId, dynamic: &[Value]) -> Result<String, Diagnostic> {
        if let Some(p) = self
            .ctx
            .inherent_attr(op, "static_position")
            .and_then(|a| a.as_dense_ints())
        {
            match p {
                [k] if *k >= 0 => return Ok(k.to_string()),
                [_] => {
                    let v = *dynamic
                        .first()
                        .ok_or_else(|| self.err(op, "missing dynamic position"))?;
                    return Ok(self.scalar(op, v)?.0);
                }
                _ => return Err(self.err(op, "only rank-1 vector positions are supported")),
            }
        }
        let v = *dynamic
            .first()
            .ok_or_else(|| self.err(op, "missing vector position"))?;
        Ok(self.scalar(op, v)?.0)
    }

    fn pos_ty(&self, pos: &str) -> &'static str {
        if pos.parse::<i64>().is_ok() {
            "i32"
        } else {
            self.idx
        }
    }

    fn div_round(&mut self, op: OpId, g: G) -> Result<(), Diagnostic> {
        let ops = self.ctx.operands(op).to_vec();
        let (a, ty) = self.scalar(op, ops[0])?;
        let (b, _) = self.scalar(op, ops[1])?;
        let r = if g == G::CeilDivUI {
            let q = self.assign(&format!("udiv {ty} {a}, {b}"));
            let m = self.assign(&format!("urem {ty} {a}, {b}"));
            let nz = self.assign(&format!("icmp ne {ty} {m}, 0"));
            let z = self.assign(&format!("zext i1 {nz} to {ty}"));
            self.assign(&format!("add {ty} {q}, {z}"))
        } else {
            let q = self.assign(&format!("sdiv {ty} {a}, {b}"));
            let m = self.assign(&format!("srem {ty} {a}, {b}"));
            let nz = self.assign(&format!("icmp ne {ty} {m}, 0"));
            let mneg = self.assign(&format!("icmp slt {ty} {m}, 0"));
            let bneg = self.assign(&format!("icmp slt {ty} {b}, 0"));
            let (cmp, delta) = if g == G::FloorDivSI {
                ("xor", "-1")
            } else {
                ("icmp eq", "1")
            };
            let signs = if cmp == "xor" {
                self.assign(&format!("xor i1 {mneg}, {bneg}"))
            } else {
                self.assign(&format!("icmp eq i1 {mneg}, {bneg}"))
            };
            let adj = self.assign(&format!("and i1 {nz}, {signs}"));
            let d = self.assign(&format!("select i1 {adj}, {ty} {delta}, {ty} 0"));
            self.assign(&format!("add {ty} {q}, {d}"))
        };
        self.set(self.ctx.result(op, 0), r, ty);
        Ok(())
    }

    /// `icmp`/`fcmp` (`inst`, with its fastmath flags) of the predicate keyword `pred`.
    fn cmp(&mut self, op: OpId, inst: &str, pred: &str) -> Result<(), Diagnostic> {
        let ops = self.ctx.operands(op).to_vec();
        let (a, ty) = self.scalar(op, ops[0])?;
        let (b, _) = self.scalar(op, ops[1])?;
        let rty = self.result_ty(op)?;
        let r = self.assign(&format!("{inst}{pred} {ty} {a}, {b}"));
        self.set(self.ctx.result(op, 0), r, rty);
        Ok(())
    }

    fn math(&mut self, op: OpId, m: MathFn) -> Result<(), Diagnostic> {
        let fname = m.short_name();
        let f = self.fmf(op);
        match m {
            MathFn::Sqrt => return self.intr(op, "llvm.sqrt", &f),
            MathFn::AbsF => return self.intr(op, "llvm.fabs", &f),
            MathFn::Fma => return self.intr(op, "llvm.fma", &f),
            MathFn::Floor => return self.intr(op, "llvm.floor", &f),
            MathFn::Ceil => return self.intr(op, "llvm.ceil", &f),
            MathFn::Round => return self.intr(op, "llvm.round", &f),
            MathFn::RoundEven => return self.intr(op, "llvm.roundeven", &f),
            MathFn::Trunc => return self.intr(op, "llvm.trunc", &f),
            MathFn::CopySign => return self.intr(op, "llvm.copysign", &f),
            MathFn::AbsI => {
                let (a, ty) = self.scalar(op, self.ctx.operands(op)[0])?;
                let r = self.call(
                    &ty,
                    &format!("llvm.abs.{}", intr_suffix(&ty)),
                    &[(&ty, &a), ("i1", "false")],
                    "",
                );
                self.set(self.ctx.result(op, 0), r, ty);
                return Ok(());
            }
            MathFn::Rsqrt => {
                let (a, ty) = self.scalar(op, self.ctx.operands(op)[0])?;
                let s = self.call(
                    &ty,
                    &format!("llvm.sqrt.{}", intr_suffix(&ty)),
                    &[(&ty, &a)],
                    &f,
                );
                let one = self.splat_const(&ty, 1.0)?;
                let r = self.assign(&format!("fdiv {f}{ty} {one}, {s}"));
                self.set(self.ctx.result(op, 0), r, ty);
                return Ok(());
            }
            MathFn::Exp
            | MathFn::Exp2
            | MathFn::Log
            | MathFn::Log2
            | MathFn::Tanh
            | MathFn::Erf => {}
            MathFn::Sin | MathFn::Cos | MathFn::PowF => {
                return Err(self.err(op, format!("unsupported math function 'math.{fname}'")));
            }
        }
        // Transcendental functions work on f32 (f16/bf16 are computed in f32); vectors
        // are done lane by lane.
        let (a, ty) = self.scalar(op, self.ctx.operands(op)[0])?;
        let ety = elem_of(&ty).to_string();
        if !matches!(ety.as_str(), "float" | "half" | "bfloat") {
            return Err(self.err(
                op,
                format!("math.{fname} is supported on f32, f16 and bf16 only"),
            ));
        }
        let helper = self.helper(fname);
        let r = if ty.starts_with('<') {
            let n: usize = ty
                .trim_start_matches('<')
                .split(" x ")
                .next()
                .and_then(|s| s.trim().parse().ok())
                .unwrap_or(1);
            let mut acc = "poison".to_string();
            for i in 0..n {
                let e = self.assign(&format!("extractelement {ty} {a}, i32 {i}"));
                let y = self.call_f32(&helper, &e, &ety);
                acc = self.assign(&format!("insertelement {ty} {acc}, {ety} {y}, i32 {i}"));
            }
            acc
        } else {
            self.call_f32(&helper, &a, &ety)
        };
        self.set(self.ctx.result(op, 0), r, ty);
        Ok(())
    }

    fn call_f32(&mut self, helper: &str, x: &str, ety: &str) -> String {
        let xf = if ety == "float" {
            x.to_string()
        } else {
            self.assign(&format!("fpext {ety} {x} to float"))
        };
        let y = self.assign(&format!("call float @{helper}(float {xf})"));
        if ety == "float" {
            y
        } else {
            self.assign(&format!("fptrunc float {y} to {ety}"))
        }
    }

    fn splat_const(&self, ty: &str, v: f64) -> Result<String, Diagnostic> {
        let ety = elem_of(ty);
        let k = kind_of(ety).ok_or_else(|| self.err(self.info.op, "bad float type"))?;
        let lit = float_lit(v, k).unwrap_or_default();
        if let Some(n) = ty.strip_prefix('<').and_then(|t| t.split(" x ").next()) {
            let n: usize = n.trim().parse().unwrap_or(1);
            return Ok(format!("<{}>", vec![format!("{ety} {lit}"); n].join(", ")));
        }
        Ok(lit)
    }

    /// Defines (once per module) the internal f32 helper for a transcendental function.
    fn helper(&mut self, fname: &str) -> String {
        let name = format!("__rtile_{fname}f");
        if self.m.helpers.contains_key(&name) {
            return name;
        }
        let body = crate::mathlib::helper_body(self.opts.flavor, fname);
        for (n, d) in crate::mathlib::helper_decls(self.opts.flavor, fname) {
            self.m.declare(n, d.to_string());
        }
        // Helpers call each other (tanh uses exp).
        for dep in crate::mathlib::helper_deps(fname) {
            self.helper(dep);
        }
        self.m.helpers.insert(name.clone(), body);
        name
    }

    fn lane_id(&mut self) -> String {
        match self.opts.flavor {
            Flavor::Nvptx => self.call("i32", "llvm.nvvm.read.ptx.sreg.laneid", &[], ""),
            Flavor::Amdgpu => {
                let lo = self.call(
                    "i32",
                    "llvm.amdgcn.mbcnt.lo",
                    &[("i32", "-1"), ("i32", "0")],
                    "",
                );
                self.call(
                    "i32",
                    "llvm.amdgcn.mbcnt.hi",
                    &[("i32", "-1"), ("i32", &lo)],
                    "",
                )
            }
        }
    }

    fn shuffle(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ops = self.ctx.operands(op).to_vec();
        if ops.len() != 3 {
            return Err(self.err(op, "gpu.shuffle expects (value, offset, width)"));
        }
        let mode = self
            .ctx
            .inherent_attr(op, "mode")
            .map(attr_words)
            .and_then(|w| {
                w.into_iter()
                    .find(|w| matches!(w.as_str(), "xor" | "down" | "up" | "idx"))
            })
            .ok_or_else(|| self.err(op, "gpu.shuffle without a mode (xor, down, up, idx)"))?;
        let (v, vty) = self.scalar(op, ops[0])?;
        let (off, _) = self.scalar(op, ops[1])?;
        let (width, _) = self.scalar(op, ops[2])?;
        let bits = match vty.as_str() {
            "float" | "i32" => vty.clone(),
            _ => return Err(self.err(op, "gpu.shuffle supports 32-bit values (f32, i32)")),
        };
        let as_i32 = if bits == "float" {
            self.assign(&format!("bitcast float {v} to i32"))
        } else {
            v.clone()
        };
        let (res_i32, valid) = match self.opts.flavor {
            Flavor::Nvptx => {
                let kind = match mode.as_str() {
                    "xor" => "bfly",
                    m => m,
                };
                // c = ((32 - width) << 8) | clamp, clamp = 31 except for `up` (0).
                let sub = self.assign(&format!("sub i32 32, {width}"));
                let seg = self.assign(&format!("shl i32 {sub}, 8"));
                let c = if mode == "up" {
                    seg
                } else {
                    self.assign(&format!("or i32 {seg}, 31"))
                };
                let name = format!("llvm.nvvm.shfl.sync.{kind}.i32p");
                let r = self.call(
                    "{ i32, i1 }",
                    &name,
                    &[("i32", "-1"), ("i32", &as_i32), ("i32", &off), ("i32", &c)],
                    "",
                );
                let x = self.assign(&format!("extractvalue {{ i32, i1 }} {r}, 0"));
                let p = self.assign(&format!("extractvalue {{ i32, i1 }} {r}, 1"));
                (x, p)
            }
            Flavor::Amdgpu => {
                let lane = self.lane_id();
                let wm1 = self.assign(&format!("sub i32 {width}, 1"));
                let notm = self.assign(&format!("xor i32 {wm1}, -1"));
                let base = self.assign(&format!("and i32 {lane}, {notm}"));
                let target = match mode.as_str() {
                    "xor" => self.assign(&format!("xor i32 {lane}, {off}")),
                    "down" => self.assign(&format!("add i32 {lane}, {off}")),
                    "up" => self.assign(&format!("sub i32 {lane}, {off}")),
                    _ => self.assign(&format!("add i32 {base}, {off}")),
                };
                let end = self.assign(&format!("add i32 {base}, {width}"));
                let ge = self.assign(&format!("icmp sge i32 {target}, {base}"));
                let lt = self.assign(&format!("icmp slt i32 {target}, {end}"));
                let ok = self.assign(&format!("and i1 {ge}, {lt}"));
                let src = self.assign(&format!("select i1 {ok}, i32 {target}, i32 {lane}"));
                let addr = self.assign(&format!("shl i32 {src}, 2"));
                let r = self.call(
                    "i32",
                    "llvm.amdgcn.ds.bpermute",
                    &[("i32", &addr), ("i32", &as_i32)],
                    "",
                );
                (r, ok)
            }
        };
        let res = if bits == "float" {
            self.assign(&format!("bitcast i32 {res_i32} to float"))
        } else {
            res_i32
        };
        self.set(self.ctx.result(op, 0), res, vty);
        if self.ctx.results(op).len() > 1 {
            self.set(self.ctx.result(op, 1), valid, "i1".into());
        }
        Ok(())
    }

    fn region_block(&self, op: OpId, i: usize) -> Option<BlockId> {
        let r = *self.ctx.regions(op).get(i)?;
        self.ctx.region_blocks(r).first().copied()
    }

    fn scf_for(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let ops = ctx.operands(op).to_vec();
        if ops.len() < 3 {
            return Err(self.err(op, "scf.for expects lower bound, upper bound, step"));
        }
        let (lb, ity) = self.scalar(op, ops[0])?;
        let (ub, _) = self.scalar(op, ops[1])?;
        let (step, _) = self.scalar(op, ops[2])?;
        let mut inits = Vec::new();
        for &v in &ops[3..] {
            inits.push(self.scalar(op, v)?);
        }
        let body = self
            .region_block(op, 0)
            .ok_or_else(|| self.err(op, "scf.for without a body"))?;
        let bargs = ctx.block_args(body).to_vec();
        if bargs.len() != 1 + inits.len() || ctx.results(op).len() != inits.len() {
            return Err(self.err(op, "scf.for body arguments do not match its iter_args"));
        }
        let unsigned = ctx.inherent_attr(op, "unsignedCmp").is_some();
        let n = self.label("for");
        let (header, bodyl, latch, exit) = (
            format!("{n}.header"),
            format!("{n}.body"),
            format!("{n}.latch"),
            format!("{n}.exit"),
        );
        let pre = self.cur_label.clone();
        self.line(&format!("br label %{header}"));
        self.start_block(&header);
        let iv = format!("%{n}.iv");
        let ivnext = format!("%{n}.iv.next");
        self.line(&format!(
            "{iv} = phi {ity} [ {lb}, %{pre} ], [ {ivnext}, %{latch} ]"
        ));
        self.set(bargs[0], iv.clone(), ity.clone());
        let mut placeholders = Vec::new();
        for (k, (init, ty)) in inits.iter().enumerate() {
            let name = format!("%{n}.iter{k}");
            let ph = format!("@@PH{n}.{k}@@");
            self.line(&format!(
                "{name} = phi {ty} [ {init}, %{pre} ], [ {ph}, %{latch} ]"
            ));
            self.set(bargs[k + 1], name.clone(), ty.clone());
            self.set(ctx.result(op, k), name, ty.clone());
            placeholders.push(ph);
        }
        let pred = if unsigned { "ult" } else { "slt" };
        let c = self.assign(&format!("icmp {pred} {ity} {iv}, {ub}"));
        self.line(&format!("br i1 {c}, label %{bodyl}, label %{exit}"));
        self.start_block(&bodyl);
        let yields = self.emit_block(body)?;
        if yields.len() != placeholders.len() {
            return Err(self.err(op, "scf.yield does not match the scf.for iter_args"));
        }
        for (ph, y) in placeholders.into_iter().zip(yields) {
            let (r, _) = self.scalar(op, y)?;
            self.patches.push((ph, r));
        }
        self.line(&format!("br label %{latch}"));
        self.start_block(&latch);
        self.line(&format!("{ivnext} = add nsw {ity} {iv}, {step}"));
        // `rtile.unroll` (unit: fully, N: by N) becomes loop metadata on the back edge, so
        // register-tile loops unroll and their private arrays become registers.
        let loop_md = match ctx.attr(op, "rtile.unroll").map(|x| x.kind()) {
            Some(AttrKind::Unit) => Some("!{!\"llvm.loop.unroll.full\"}".to_string()),
            Some(a) => a
                .as_int()
                .filter(|n| *n > 0)
                .map(|n| format!("!{{!\"llvm.loop.unroll.count\", i32 {n}}}")),
            None => None,
        };
        match loop_md {
            Some(md) => {
                let inner = self.m.metadata.len();
                self.m.metadata.push(md);
                let node = self.m.metadata.len();
                self.m
                    .metadata
                    .push(format!("distinct !{{!SELF, !{inner}}}"));
                self.line(&format!("br label %{header}, !llvm.loop !{node}"));
            }
            None => self.line(&format!("br label %{header}")),
        }
        self.start_block(&exit);
        Ok(())
    }

    fn scf_if(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let (c, _) = self.scalar(op, ctx.operands(op)[0])?;
        let then_b = self
            .region_block(op, 0)
            .ok_or_else(|| self.err(op, "scf.if without a then region"))?;
        let else_b = self.region_block(op, 1);
        let n = self.label("if");
        let (tl, el, ml) = (format!("{n}.then"), format!("{n}.else"), format!("{n}.end"));
        let first_target = if else_b.is_some() { &el } else { &ml };
        self.line(&format!("br i1 {c}, label %{tl}, label %{first_target}"));
        let pre = self.cur_label.clone();
        self.start_block(&tl);
        let ty_vals = self.emit_block(then_b)?;
        let then_vals: Vec<(String, String)> = ty_vals
            .iter()
            .map(|v| self.scalar(op, *v))
            .collect::<Result<_, _>>()?;
        let then_end = self.cur_label.clone();
        self.line(&format!("br label %{ml}"));
        let (else_vals, else_end) = if let Some(eb) = else_b {
            self.start_block(&el);
            let vs = self.emit_block(eb)?;
            let vals: Vec<(String, String)> = vs
                .iter()
                .map(|v| self.scalar(op, *v))
                .collect::<Result<_, _>>()?;
            let end = self.cur_label.clone();
            self.line(&format!("br label %{ml}"));
            (vals, end)
        } else {
            (Vec::new(), pre)
        };
        self.start_block(&ml);
        let results = ctx.results(op).to_vec();
        if results.len() != then_vals.len()
            || (results.len() != else_vals.len() && !results.is_empty())
        {
            return Err(self.err(op, "scf.if results do not match its scf.yield operands"));
        }
        for (k, r) in results.into_iter().enumerate() {
            let ty = then_vals[k].1.clone();
            let name = self.assign(&format!(
                "phi {ty} [ {}, %{then_end} ], [ {}, %{else_end} ]",
                then_vals[k].0, else_vals[k].0
            ));
            self.set(r, name, ty);
        }
        Ok(())
    }
}

fn kind_of(ty: &str) -> Option<FloatKind> {
    Some(match ty {
        "half" => FloatKind::F16,
        "bfloat" => FloatKind::BF16,
        "float" => FloatKind::F32,
        "double" => FloatKind::F64,
        _ => return None,
    })
}

fn flatten(xs: &[DenseLiteral]) -> Vec<DenseLiteral> {
    let mut out = Vec::new();
    for x in xs {
        match x {
            DenseLiteral::List(inner) => out.extend(flatten(inner)),
            other => out.push(other.clone()),
        }
    }
    out
}
