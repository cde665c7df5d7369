//! [`GpuOp`]: the ops of the gpu-level IR, decoded once from an op's name and properties.

use rtile::diagnostics::Diagnostic;
use rtile::ir::{Context, OpId};

use crate::attrs::{
    CmpFPredicate, CmpIPredicate, cmpi_from_keyword, cmpi_from_value, predicate_of,
};

/// Declares [`GpuOp`]'s payload-free variants with their op names, and the name table both
/// directions use, so a name is written once.
macro_rules! gpu_ops {
    ($( $(#[$m:meta])* $v:ident = $n:literal, )*) => {
        /// One op of the gpu-level IR: what `--lower-to-gpu` and the naive kernel generator
        /// emit, and what the LLVM IR emitter, the HIP emitter and the simulator execute.
        ///
        /// Every consumer matches on this enum exhaustively, with no `_ =>` arm: adding a
        /// variant here is a compile error in each back end (`rtile-targets`' `llvmir.rs` and
        /// `hip.rs`, `rtile-runtime`'s `sim/compile.rs`) until it handles the new op, so an op
        /// cannot be supported by one back end and forgotten by another. An op whose name is
        /// not here is refused when the module is loaded ([`crate::check_module`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum GpuOp {
            $( $(#[$m])* $v, )*
            /// `arith.cmpi` with its predicate.
            CmpI(CmpIPredicate),
            /// `arith.cmpf` with its predicate.
            CmpF(CmpFPredicate),
            /// A `math` dialect function.
            Math(MathFn),
        }

        /// The payload-free variants by name.
        const SIMPLE: &[(&str, GpuOp)] = &[ $( ($n, GpuOp::$v), )* ];

        impl GpuOp {
            /// The op's full name (`arith.addf`, `gpu.barrier`, ...).
            pub fn name(self) -> &'static str {
                match self {
                    $( GpuOp::$v => $n, )*
                    GpuOp::CmpI(_) => "arith.cmpi",
                    GpuOp::CmpF(_) => "arith.cmpf",
                    GpuOp::Math(m) => m.name(),
                }
            }
        }
    };
}

gpu_ops! {
    /// `gpu.thread_id`.
    ThreadId = "gpu.thread_id",
    /// `gpu.block_id`.
    BlockId = "gpu.block_id",
    /// `gpu.block_dim`.
    BlockDim = "gpu.block_dim",
    /// `gpu.grid_dim`.
    GridDim = "gpu.grid_dim",
    /// `gpu.global_id`.
    GlobalId = "gpu.global_id",
    /// `gpu.lane_id`.
    LaneId = "gpu.lane_id",
    /// `gpu.barrier`.
    Barrier = "gpu.barrier",
    /// `gpu.shuffle`.
    Shuffle = "gpu.shuffle",
    /// `gpu.dynamic_shared_memory`.
    DynamicSharedMemory = "gpu.dynamic_shared_memory",
    /// `gpu.return`.
    Return = "gpu.return",
    /// `scf.for`.
    For = "scf.for",
    /// `scf.if`.
    If = "scf.if",
    /// `scf.yield`.
    Yield = "scf.yield",
    /// `scf.while` (the persistent kernel's spin-wait on another block's `step`).
    While = "scf.while",
    /// `scf.condition`, the terminator of `scf.while`'s before region.
    Condition = "scf.condition",
    /// `memref.atomic_rmw` on global memory; kinds `addi` (1) and `ori` (14) (see
    /// [`ATOMIC_ADDI`], [`ATOMIC_ORI`]): the step counters of a persistent kernel.
    AtomicRmw = "memref.atomic_rmw",
    /// `llvm.fence` with an ordering and `syncscope("agent")` (device scope): upstream's
    /// only fence op that `mlir-opt` accepts in gpu-level IR; orders a block's global
    /// writes before its step increment (release) and a poll before the reads it guards
    /// (acquire).
    Fence = "llvm.fence",
    /// `memref.load`.
    Load = "memref.load",
    /// `memref.store`.
    Store = "memref.store",
    /// `memref.alloca`.
    Alloca = "memref.alloca",
    /// `memref.alloc`.
    Alloc = "memref.alloc",
    /// `memref.dealloc`.
    Dealloc = "memref.dealloc",
    /// `memref.view`.
    View = "memref.view",
    /// `memref.cast`.
    Cast = "memref.cast",
    /// `memref.collapse_shape`.
    CollapseShape = "memref.collapse_shape",
    /// `memref.dim`.
    Dim = "memref.dim",
    /// `vector.load`.
    VectorLoad = "vector.load",
    /// `vector.store`.
    VectorStore = "vector.store",
    /// `vector.extract`.
    Extract = "vector.extract",
    /// `vector.extractelement`.
    ExtractElement = "vector.extractelement",
    /// `vector.insert`.
    Insert = "vector.insert",
    /// `vector.insertelement`.
    InsertElement = "vector.insertelement",
    /// `vector.broadcast`.
    Broadcast = "vector.broadcast",
    /// `vector.splat`.
    Splat = "vector.splat",
    /// `vector.fma`.
    VectorFma = "vector.fma",
    /// `arith.constant`.
    Constant = "arith.constant",
    /// `arith.addi`.
    AddI = "arith.addi",
    /// `arith.subi`.
    SubI = "arith.subi",
    /// `arith.muli`.
    MulI = "arith.muli",
    /// `arith.divsi`.
    DivSI = "arith.divsi",
    /// `arith.divui`.
    DivUI = "arith.divui",
    /// `arith.remsi`.
    RemSI = "arith.remsi",
    /// `arith.remui`.
    RemUI = "arith.remui",
    /// `arith.floordivsi`.
    FloorDivSI = "arith.floordivsi",
    /// `arith.ceildivsi`.
    CeilDivSI = "arith.ceildivsi",
    /// `arith.ceildivui`.
    CeilDivUI = "arith.ceildivui",
    /// `arith.andi`.
    AndI = "arith.andi",
    /// `arith.ori`.
    OrI = "arith.ori",
    /// `arith.xori`.
    XOrI = "arith.xori",
    /// `arith.shli`.
    ShLI = "arith.shli",
    /// `arith.shrsi`.
    ShRSI = "arith.shrsi",
    /// `arith.shrui`.
    ShRUI = "arith.shrui",
    /// `arith.maxsi`.
    MaxSI = "arith.maxsi",
    /// `arith.minsi`.
    MinSI = "arith.minsi",
    /// `arith.maxui`.
    MaxUI = "arith.maxui",
    /// `arith.minui`.
    MinUI = "arith.minui",
    /// `arith.addf`.
    AddF = "arith.addf",
    /// `arith.subf`.
    SubF = "arith.subf",
    /// `arith.mulf`.
    MulF = "arith.mulf",
    /// `arith.divf`.
    DivF = "arith.divf",
    /// `arith.remf`.
    RemF = "arith.remf",
    /// `arith.negf`.
    NegF = "arith.negf",
    /// `arith.maximumf`.
    MaximumF = "arith.maximumf",
    /// `arith.minimumf`.
    MinimumF = "arith.minimumf",
    /// `arith.maxnumf`.
    MaxNumF = "arith.maxnumf",
    /// `arith.minnumf`.
    MinNumF = "arith.minnumf",
    /// `arith.select`.
    Select = "arith.select",
    /// `arith.index_cast`.
    IndexCast = "arith.index_cast",
    /// `arith.index_castui`.
    IndexCastUI = "arith.index_castui",
    /// `arith.extsi`.
    ExtSI = "arith.extsi",
    /// `arith.extui`.
    ExtUI = "arith.extui",
    /// `arith.trunci`.
    TruncI = "arith.trunci",
    /// `arith.extf`.
    ExtF = "arith.extf",
    /// `arith.truncf`.
    TruncF = "arith.truncf",
    /// `arith.sitofp`.
    SIToFP = "arith.sitofp",
    /// `arith.uitofp`.
    UIToFP = "arith.uitofp",
    /// `arith.fptosi`.
    FPToSI = "arith.fptosi",
    /// `arith.fptoui`.
    FPToUI = "arith.fptoui",
    /// `arith.bitcast`.
    Bitcast = "arith.bitcast",
    /// `nvgpu.mma.sync`: warp-collective tensor-core MMA (properties in [`crate::nvgpu::MmaSync`]).
    MmaSync = "nvgpu.mma.sync",
    /// `nvgpu.ldmatrix`: warp-collective load of 8×8 matrices from shared memory.
    LdMatrix = "nvgpu.ldmatrix",
    /// `nvgpu.device_async_copy`: one thread's asynchronous global→shared copy (cp.async).
    AsyncCopy = "nvgpu.device_async_copy",
    /// `nvgpu.device_async_create_group`: commits the thread's pending copies as a group.
    AsyncCreateGroup = "nvgpu.device_async_create_group",
    /// `nvgpu.device_async_wait`: waits until at most `numGroups` groups are pending.
    AsyncWait = "nvgpu.device_async_wait",
    /// `nvgpu.mbarrier.create`: a group of mbarriers in shared memory (sm_90).
    MbarrierCreate = "nvgpu.mbarrier.create",
    /// `nvgpu.mbarrier.init`: sets an mbarrier's expected arrival count.
    MbarrierInit = "nvgpu.mbarrier.init",
    /// `nvgpu.mbarrier.arrive`: one arrival, returning the phase token.
    MbarrierArrive = "nvgpu.mbarrier.arrive",
    /// `nvgpu.mbarrier.arrive.expect_tx`: one arrival announcing transaction bytes to come.
    MbarrierArriveExpectTx = "nvgpu.mbarrier.arrive.expect_tx",
    /// `nvgpu.mbarrier.try_wait.parity`: waits until the phase of the given parity completes.
    MbarrierTryWaitParity = "nvgpu.mbarrier.try_wait.parity",
    /// `nvgpu.tma.async.load`: one thread's TMA box copy global→shared (properties in
    /// [`crate::nvgpu_sm90::TmaLoad`]).
    TmaAsyncLoad = "nvgpu.tma.async.load",
    /// `nvgpu.tma.prefetch.descriptor`: a prefetch hint for a tensor map.
    TmaPrefetch = "nvgpu.tma.prefetch.descriptor",
    /// `nvgpu.warpgroup.generate.descriptor`: a wgmma shared-memory matrix descriptor.
    WarpgroupDescriptor = "nvgpu.warpgroup.generate.descriptor",
    /// `nvgpu.warpgroup.mma.init.accumulator`: a zero warpgroup accumulator.
    WarpgroupInitAccumulator = "nvgpu.warpgroup.mma.init.accumulator",
    /// `nvgpu.warpgroup.mma`: warpgroup-collective wgmma (properties in
    /// [`crate::nvgpu_sm90::WarpgroupMma`]).
    WarpgroupMma = "nvgpu.warpgroup.mma",
    /// `nvgpu.warpgroup.mma.store`: stores an accumulator's fragments to a memref.
    WarpgroupMmaStore = "nvgpu.warpgroup.mma.store",
    /// `amdgpu.mfma`: wavefront-collective (64 lanes) matrix fused multiply-add on AMD CDNA
    /// matrix cores (properties in [`crate::amdgpu::Mfma`]).
    Mfma = "amdgpu.mfma",
}

/// `memref.atomic_rmw`'s `kind` for `addi` (upstream `arith::AtomicRMWKind`).
pub const ATOMIC_ADDI: i64 = 1;
/// `memref.atomic_rmw`'s `kind` for `ori`: with 0, an atomic read (the spin-wait's poll).
pub const ATOMIC_ORI: i64 = 14;
/// `llvm.fence`'s `ordering` for `acquire` (upstream `LLVM::AtomicOrdering`).
pub const FENCE_ACQUIRE: i64 = 4;
/// `llvm.fence`'s `ordering` for `release`.
pub const FENCE_RELEASE: i64 = 5;
/// `llvm.fence`'s `ordering` for `acq_rel`.
pub const FENCE_ACQ_REL: i64 = 6;

/// A `math` dialect function of the gpu-level IR.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MathFn {
    Exp,
    Exp2,
    Log,
    Log2,
    Sqrt,
    Rsqrt,
    Tanh,
    Erf,
    Sin,
    Cos,
    PowF,
    AbsF,
    AbsI,
    Fma,
    Floor,
    Ceil,
    Round,
    RoundEven,
    Trunc,
    CopySign,
}

/// Every [`MathFn`].
pub const ALL_MATH: [MathFn; 20] = {
    use MathFn::*;
    [
        Exp, Exp2, Log, Log2, Sqrt, Rsqrt, Tanh, Erf, Sin, Cos, PowF, AbsF, AbsI, Fma, Floor, Ceil,
        Round, RoundEven, Trunc, CopySign,
    ]
};

impl MathFn {
    /// The op's full name (`math.exp`).
    pub fn name(self) -> &'static str {
        match self {
            MathFn::Exp => "math.exp",
            MathFn::Exp2 => "math.exp2",
            MathFn::Log => "math.log",
            MathFn::Log2 => "math.log2",
            MathFn::Sqrt => "math.sqrt",
            MathFn::Rsqrt => "math.rsqrt",
            MathFn::Tanh => "math.tanh",
            MathFn::Erf => "math.erf",
            MathFn::Sin => "math.sin",
            MathFn::Cos => "math.cos",
            MathFn::PowF => "math.powf",
            MathFn::AbsF => "math.absf",
            MathFn::AbsI => "math.absi",
            MathFn::Fma => "math.fma",
            MathFn::Floor => "math.floor",
            MathFn::Ceil => "math.ceil",
            MathFn::Round => "math.round",
            MathFn::RoundEven => "math.roundeven",
            MathFn::Trunc => "math.trunc",
            MathFn::CopySign => "math.copysign",
        }
    }
    /// The function's name without the dialect (`exp`).
    pub fn short_name(self) -> &'static str {
        &self.name()["math.".len()..]
    }
}

impl GpuOp {
    /// The op named `name`, when that name needs no property to decode (not a comparison).
    pub fn from_name(name: &str) -> Option<GpuOp> {
        if let Some(&(_, op)) = SIMPLE.iter().find(|(n, _)| *n == name) {
            return Some(op);
        }
        ALL_MATH
            .iter()
            .copied()
            .find(|m| m.name() == name)
            .map(GpuOp::Math)
    }

    /// Decodes `op`: its name, and for comparisons the `predicate` property. An op outside
    /// the vocabulary, or a comparison without a known predicate, is an error at the op.
    pub fn decode(ctx: &Context, op: OpId) -> Result<GpuOp, Diagnostic> {
        let name = ctx.op_name(op);
        let pred = || ctx.inherent_attr(op, "predicate");
        let bad_pred = || Diagnostic::op_error(ctx, op, "missing or unknown comparison predicate");
        match name {
            "arith.cmpi" => predicate_of(pred(), cmpi_from_value, cmpi_from_keyword)
                .map(GpuOp::CmpI)
                .ok_or_else(bad_pred),
            "arith.cmpf" => predicate_of(
                pred(),
                CmpFPredicate::from_value,
                CmpFPredicate::from_keyword,
            )
            .map(GpuOp::CmpF)
            .ok_or_else(bad_pred),
            _ => GpuOp::from_name(name).ok_or_else(|| {
                Diagnostic::op_error(
                    ctx,
                    op,
                    "is not in the gpu-level vocabulary (the ops the back ends and the simulator handle)",
                )
            }),
        }
    }

    /// The fewest operands and results the op has (upstream semantics). The back ends check
    /// this first: ops of unregistered dialects are not verified, and a malformed one must
    /// be a diagnostic, not an out-of-bounds index.
    pub fn min_arity(self) -> (usize, usize) {
        use GpuOp as G;
        match self {
            G::Barrier | G::Return | G::Dealloc | G::Yield | G::While | G::Fence => (0, 0),
            G::AsyncWait | G::Condition | G::TmaPrefetch => (1, 0),
            G::MbarrierCreate | G::WarpgroupInitAccumulator => (0, 1),
            G::MbarrierInit | G::MbarrierArriveExpectTx => (3, 0),
            G::MbarrierArrive | G::WarpgroupDescriptor => (2, 1),
            G::MbarrierTryWaitParity => (4, 0),
            G::TmaAsyncLoad => (5, 0),
            G::WarpgroupMma => (3, 1),
            G::WarpgroupMmaStore => (2, 0),
            G::MmaSync | G::Mfma => (3, 1),
            G::LdMatrix | G::AsyncCreateGroup => (1, 1),
            G::AsyncCopy | G::AtomicRmw => (2, 1),
            G::ThreadId
            | G::BlockId
            | G::BlockDim
            | G::GridDim
            | G::GlobalId
            | G::LaneId
            | G::DynamicSharedMemory
            | G::Constant
            | G::Alloca
            | G::Alloc => (0, 1),
            G::Store | G::VectorStore => (2, 0),
            G::If => (1, 0),
            G::For => (3, 0),
            G::Shuffle | G::Select | G::VectorFma | G::Math(MathFn::Fma) => (3, 1),
            G::View | G::Dim | G::Insert | G::InsertElement => (2, 1),
            G::Load
            | G::VectorLoad
            | G::Extract
            | G::ExtractElement
            | G::Broadcast
            | G::Splat
            | G::Cast
            | G::CollapseShape => (1, 1),
            G::Math(MathFn::CopySign | MathFn::PowF) => (2, 1),
            G::Math(
                MathFn::Exp
                | MathFn::Exp2
                | MathFn::Log
                | MathFn::Log2
                | MathFn::Sqrt
                | MathFn::Rsqrt
                | MathFn::Tanh
                | MathFn::Erf
                | MathFn::Sin
                | MathFn::Cos
                | MathFn::AbsF
                | MathFn::AbsI
                | MathFn::Floor
                | MathFn::Ceil
                | MathFn::Round
                | MathFn::RoundEven
                | MathFn::Trunc,
            ) => (1, 1),
            G::NegF
            | G::IndexCast
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
            | G::Bitcast => (1, 1),
            G::AddI
            | G::SubI
            | G::MulI
            | G::DivSI
            | G::DivUI
            | G::RemSI
            | G::RemUI
            | G::FloorDivSI
            | G::CeilDivSI
            | G::CeilDivUI
            | G::AndI
            | G::OrI
            | G::XOrI
            | G::ShLI
            | G::ShRSI
            | G::ShRUI
            | G::MaxSI
            | G::MinSI
            | G::MaxUI
            | G::MinUI
            | G::AddF
            | G::SubF
            | G::MulF
            | G::DivF
            | G::RemF
            | G::MaximumF
            | G::MinimumF
            | G::MaxNumF
            | G::MinNumF
            | G::CmpI(_)
            | G::CmpF(_) => (2, 1),
        }
    }

    /// The predicate number of a comparison (`None` for other ops).
    pub fn predicate_value(self) -> Option<i64> {
        match self {
            GpuOp::CmpI(p) => Some(p.value()),
            GpuOp::CmpF(p) => Some(p.value()),
            _ => None,
        }
    }

    /// `name` is an op of the vocabulary (a comparison included).
    pub fn is_vocabulary_name(name: &str) -> bool {
        matches!(name, "arith.cmpi" | "arith.cmpf") || GpuOp::from_name(name).is_some()
    }

    /// Every payload-free variant and every math function (the comparisons are not listed:
    /// they carry a predicate).
    pub fn all_named() -> impl Iterator<Item = GpuOp> {
        SIMPLE
            .iter()
            .map(|&(_, op)| op)
            .chain(ALL_MATH.iter().copied().map(GpuOp::Math))
    }
}
