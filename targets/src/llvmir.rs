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
//!   (internal, `undef`-initialised, align 16, or 1024 in a kernel with TMA or wgmma ops,
//!   whose 128-byte swizzle repeats every 1024 bytes); `gpu.dynamic_shared_memory` is the
//!   external `addrspace(3)` array `@__rtile_dynamic_shmem`, carved with `memref.view`.
//! - The sm_90a types (`!nvgpu.tensormap.descriptor`, mbarrier groups, warpgroup
//!   descriptors and accumulators) are described in [`sm90`].
//! - `memref.alloca` and private attributions are allocas in the entry block (SROA turns
//!   them into registers).
//! - `index` is `i64` (or `i32` with `index_bits = 32`).
//! - `scf.for`/`scf.if` become a CFG with phis; `scf.for` compares signed.
//! - `known_block_size` becomes `"nvvm.maxntid"` and `"nvvm.maxnreg"` (NVPTX; see
//!   [`block_register_share`]) or `"amdgpu-flat-work-group-size"` (AMDGPU), and
//!   `gpu.block_dim` folds to it.

use std::collections::{BTreeMap, HashMap};

pub mod amdgpu;
mod arith;
mod control;
mod memory;
pub mod nvgpu;
pub mod sm90;
#[path = "llvmir_sync.rs"]
mod sync;
mod threads;
mod vector;

pub use rtile_gpu_vocab::registers::{block_register_share, coresident_register_cap};

/// `blocks_per_core` of a persistent kernel's `rtile.persistent` (see
/// [`coresident_register_cap`]).
pub(crate) fn persistent_blocks_per_core(ctx: &rtile::ir::Context, func: OpId) -> Option<u64> {
    ctx.attr(func, "rtile.persistent")
        .and_then(|a| a.dict_get("blocks_per_core"))
        .and_then(|a| a.as_int())
        .and_then(|n| u64::try_from(n).ok())
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
    if m.dyn_shmem_align > 0 {
        m.globals.push(format!(
            "{DYN_SHMEM} = external addrspace(3) global [0 x i8], align {}",
            m.dyn_shmem_align
        ));
    }
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
    /// The alignment of `@__rtile_dynamic_shmem` (0: not used), the largest any kernel
    /// needs.
    dyn_shmem_align: u32,
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
    /// Inside a branch of an `rtile.no_hoist` switch (NVPTX): thread and block ids are
    /// read through an opaque copy (`control.rs`, `launder_in_switch`).
    opaque: u32,
    /// Alignment of the function's shared buffers (see the module documentation).
    shared_align: u32,
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
            opaque: 0,
            shared_align: if sm90::uses_swizzled_shared(ctx, info.op) {
                1024
            } else {
                16
            },
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
            TypeKind::Dialect { .. } if sm90::llvm_type(t).is_some() => {
                sm90::llvm_type(t).unwrap_or_default()
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
            } else if sm90::is_tensor_map(t) {
                let name = format!("%arg{i}");
                params.push(format!("{} readonly align 64 {name}", addrspace(1)));
                let generic = self.assign(&format!("addrspacecast {} {name} to ptr", addrspace(1)));
                self.set(a, generic, "ptr".into());
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
                "{g} = internal addrspace(3) global [{} x {ety}] undef, align {}",
                mi.span_elements().max(1),
                self.shared_align
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
                    // A persistent kernel's blocks must all be resident: that cap holds
                    // whatever the option says.
                    let limit = match persistent_blocks_per_core(self.ctx, info.op) {
                        Some(b) => {
                            let cap = coresident_register_cap(total, b);
                            Some(limit.map_or(cap, |l| l.min(cap)))
                        }
                        None => limit,
                    };
                    if let Some(n) = limit {
                        attrs.push(format!("\"nvvm.maxnreg\"=\"{n}\""));
                    }
                }
                Flavor::Amdgpu => {
                    attrs.push(format!(
                        "\"amdgpu-flat-work-group-size\"=\"{total},{total}\""
                    ));
                    // As HIP's `amdgpu_waves_per_eu` (`hip.rs`).
                    if let Some(b) = persistent_blocks_per_core(self.ctx, info.op) {
                        let waves = (total.div_ceil(64) * b).div_ceil(4).max(1);
                        attrs.push(format!("\"amdgpu-waves-per-eu\"=\"{waves}\""));
                    }
                }
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
                self.m.dyn_shmem_align = self.m.dyn_shmem_align.max(self.shared_align);
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
            G::IndexCast
            | G::IndexCastUI
            | G::ExtSI
            | G::ExtUI
            | G::TruncI
            | G::ExtF
            | G::TruncF
            | G::SIToFP
            | G::UIToFP
            | G::FPToSI
            | G::FPToUI
            | G::Bitcast => self.conversion(op, g)?,
            G::Math(m) => self.math(op, m)?,
            G::For => self.scf_for(op)?,
            G::If => self.scf_if(op)?,
            G::While => self.scf_while(op)?,
            G::Condition => {
                return Err(self.err(op, "scf.condition outside an scf.while"));
            }
            G::AtomicRmw => self.atomic_rmw(op)?,
            G::Fence => self.fence(op)?,
            G::Load | G::Store | G::VectorLoad | G::VectorStore => self.access(op, g)?,
            G::Extract | G::Insert | G::Broadcast if self.on_2d_vector(op, g) => {
                self.array_vector_op(op, g)?
            }
            G::MmaSync => self.mma_sync(op)?,
            G::Mfma => self.mfma(op)?,
            G::LdMatrix => self.ldmatrix(op)?,
            G::AsyncCopy => self.async_copy(op)?,
            G::AsyncCreateGroup => self.async_commit(op)?,
            G::AsyncWait => self.async_wait(op)?,
            G::MbarrierCreate => self.mbarrier_create(op)?,
            G::MbarrierInit => self.mbarrier_init(op)?,
            G::MbarrierArrive => self.mbarrier_arrive(op)?,
            G::MbarrierArriveExpectTx => self.mbarrier_expect_tx(op)?,
            G::MbarrierTryWaitParity => self.mbarrier_try_wait(op)?,
            G::TmaAsyncLoad => self.tma_load(op)?,
            G::TmaPrefetch => self.tma_prefetch(op)?,
            G::WarpgroupDescriptor => self.warpgroup_descriptor(op)?,
            G::WarpgroupInitAccumulator => {
                let ty = self.result_ty(op)?;
                self.set(ctx.result(op, 0), "zeroinitializer".into(), ty);
            }
            G::WarpgroupMma => self.warpgroup_mma(op)?,
            G::WarpgroupMmaStore => self.warpgroup_store(op)?,
            G::Extract | G::ExtractElement | G::Insert | G::InsertElement => self.element(op, g)?,
            G::Broadcast | G::Splat => self.broadcast(op)?,
            G::VectorFma => self.intr(op, "llvm.fma", &self.fmf(op))?,
            G::Alloca | G::Alloc => self.allocation(op)?,
            G::Dealloc => {}
            G::View => self.view(op)?,
            // A collapse of identity-layout memrefs: the same pointer under a new shape.
            G::Cast | G::CollapseShape => self.reinterpret(op)?,
            G::Dim => self.dim(op)?,
            // emit_block ends the block at its terminator before coming here.
            G::Yield | G::Return => unreachable!("terminators are handled by emit_block"),
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

#[cfg(test)]
mod register_share_tests {
    use super::block_register_share;

    #[test]
    fn the_share_fits_every_sub_partition() {
        assert_eq!(block_register_share(1024), 64);
        assert_eq!(block_register_share(416), 128);
        assert_eq!(block_register_share(384), 168);
        assert_eq!(block_register_share(256), 255);
        for threads in 1..=1024u64 {
            let share = block_register_share(threads);
            let warps = threads.div_ceil(32);
            // Warps go to the 4 sub-partitions round-robin; each has 16,384 registers.
            let fullest = warps.div_ceil(4);
            assert!(fullest * 32 * share <= 16384, "{threads} threads: {share}");
            assert!(share == 255 || share.is_multiple_of(8), "{threads}");
            assert!(
                share == 255 || (fullest * 32 * (share + 8) > 16384),
                "{threads} threads: {share} is not the largest that fits"
            );
        }
    }
}
