// rtile-opt --help lists every pass with its options, their types and defaults, all
// generated from the passes' declarations (rtile::declare_pass!).
// RUN: rtile-opt --help | FileCheck %s --match-full-lines --strict-whitespace

// CHECK:Passes:
// CHECK-NEXT:  --autoschedule-beam              - Schedule te pipelines by beam search over compute locations and tilings with a GPU cost model (Anderson et al., OOPSLA'21)
// CHECK-NEXT:      --device=<string>            - built-in device: v100, k80, mi50, a100, h100, h200, mi250x
// CHECK-NEXT:      --beam-size=<int>            - beam size k (1 = greedy: one pass, no freezing, no penalties) (default: 32)
// CHECK-NEXT:      --seed=<int>                 - seed of the hierarchical sampler (default: 0)
// CHECK-NEXT:      --sampling=<bool>            - hierarchical sampling by structural hash (§3.1) (default: true)
// CHECK-NEXT:      --freezing=<bool>            - freezing after the root/inline pre-pass (§3.2) (default: true)
// CHECK-NEXT:      --memoize=<bool>             - memoization of the per-kernel featurization (§3.3) (default: true)
// CHECK-NEXT:      --fusion-level=<string>      - deepest fusion: none (root and inline), register, shared (default: shared)
// CHECK-NEXT:      --lowering-limits=<bool>     - keep fused stencils out (no fused member reads a value twice): their shared tiles are sized from one read, the lowering stages every read's region (default: true)
// CHECK-NEXT:      --weights=<string>           - a coefficients file written by `rtile-bench retrain` (TOML; default: derived from the device)
// CHECK-NEXT:      --rank=<int>                 - which schedule of the final beam to write: 1 = the best, N = the N-th best distinct one (N <= beam-size), to time the top few on a GPU (default: 1)
// CHECK-NEXT:  --axis-fusion                    - Fuse adjacent te.compute axes that every tensor uses together (Roller §3.2)
// CHECK-NEXT:  --connect                        - Group te ops into tilegraph.kernels with Welder's tile-graph scheduler (OSDI'23 Fig. 7)
// CHECK-NEXT:      --device=<string>            - built-in device: v100, k80, mi50, a100, h100, h200, mi250x
// CHECK-NEXT:      --top-k=<int>                - tile configurations kept per sub-graph (Fig. 7 TopK) (default: 8)
// CHECK-NEXT:      --connect-level=<string>     - deepest level to connect at: none (Welder-none), register (Welder-base), shared (Welder) (default: shared)
// CHECK-NEXT:      --profile=<string>           - TOML file of kernel times measured on the GPU, by tilegraph.config, used instead of the model's estimate (Fig. 7 Profile)
// CHECK-NEXT:  --construct-rtile                - Attach Roller's top-k rPrograms (rtile.programs, best first) to every te.compute
// CHECK-NEXT:      --device=<string>            - built-in device: v100, k80, mi50, a100, h100, h200, mi250x
// CHECK-NEXT:      --device-file=<string>       - a TOML device description (passes/devices/*.toml schema) instead
// CHECK-NEXT:      --top-k=<int>                - rPrograms to construct per compute (Figure 8 TopK) (default: 10)
// CHECK-NEXT:      --epsilon=<number>           - initial tensor-padding bound (Roller §3.1) (default: 0.2)
// CHECK-NEXT:      --epsilon-max=<number>       - epsilon grows by 0.2 up to this bound (at most 1) while fewer than top-k programs exist (default: 1.0)
// CHECK-NEXT:      --tensor-core=<bool>         - use tensor cores for f16/bf16/i8 contractions when the device has them (default: true)
// CHECK-NEXT:  --fold-reshapes                  - Fold tensor reshapes between te.computes into the consumers' index maps
// CHECK-NEXT:  --lower-to-gpu                   - Lower te.compute ops with a selected #rtile.program to gpu.func kernels and gpu.launch_func host code
// CHECK-NEXT:      --prefetch=<bool>            - register-prefetch double buffering of the staged k-step tiles (false: load, barrier, compute, barrier) (default: true)
// CHECK-NEXT:      --thread-mapping=<string>    - thread-to-point mapping: auto (runs of 4 points per thread where that gives 16-byte shared loads), transposed (auto, and A[m, k]-like tiles stored transposed for 16-byte reads too) or interleaved (default: auto)
// CHECK-NEXT:      --dedup-kernels=<bool>       - one kernel for the computes that lower to the same code (same te compute and program), launched once per compute (default: true)
// CHECK-NEXT:      --cross-thread=<bool>        - automatic cross-thread reduction split (false: one thread per output point, packed rTasks included) (default: true)
// CHECK-NEXT:      --tensor-core=<string>       - tensor-core instructions: auto (sm_90a wgmma with TMA where it applies, i.e. on sm_90 devices, else mma-sync), mma-sync (sm_80 mma.sync, ldmatrix, cp.async) or wgmma (an error where it does not apply) (default: auto)
// CHECK-NEXT:      --warp-specialize=<bool>     - wgmma kernels with a producer warpgroup issuing the TMA loads and consumer warpgroups computing, synchronised by full/empty mbarriers, where the block has room for 128 more threads (false: every warpgroup computes, thread 0 loads) (default: true)
// CHECK-NEXT:      --one-kernel-results=<bool>  - a tilegraph.kernel with several results as one kernel writing all of them, where its other results are shared stages whose owned parts partition them (false: one kernel per result) (default: true)
// CHECK-NEXT:      --device=<string>            - built-in device for computes without a program when no compute of the module names one (--construct-rtile leaves computes whose reads its model cannot express unchanged); must match the programs' device otherwise
// CHECK-NEXT:  --print-op-stats                 - Print statistics of operations
// CHECK-NEXT:      --json=<bool>                - print the stats as JSON (default: false)
// CHECK-NEXT:  --rtile-select                   - Keep one of the rtile.programs candidates as rtile.program
// CHECK-NEXT:      --rank=<int>                 - which candidate to keep, 0 = the best (default: 0)
// CHECK-NEXT:  --symbol-dce                     - Eliminate dead symbols
// CHECK-NEXT:  --tensor-padding                 - Pad te.compute extents to multiples of the rTile shape when the waste is at most epsilon (Roller §3.1)
// CHECK-NEXT:      --epsilon=<number>           - largest allowed padding waste per axis, (S - N mod S) / N (default: 0.25)
// CHECK-NEXT:      --tile=<int,...>             - rTile shape for computes without an `rtile.tile` attribute (one size per axis, or one for all)
// CHECK-NEXT:  --wavefront-pack                 - Pack rOperators' rTasks into vdevice.programs with Rammer's wavefront policy (OSDI'20 Algorithm 1)
// CHECK-NEXT:      --device=<string>            - built-in device: v100, k80, mi50, a100, h100, h200, mi250x (te input; vdevice input may give its own vdevice.device)
// CHECK-NEXT:      --merge=<bool>               - merge waves into one rProgram (false: RammerBase, one launch per operator) (default: true)
// CHECK-NEXT:      --kernels=<string>           - rKernel choice: fast (fastest kernel per op) or select (SelectRKernels, §3.3) (default: select)
// CHECK-NEXT:      --barriers=<string>          - barriers inside an rProgram: fine (barrier-rTasks) or global (between waves) (default: fine)
// CHECK-NEXT:      --launch-us=<number>         - launch cost, µs (negative: the device description's launch_us) (default: -1)
// CHECK-NEXT:      --top-k=<int>                - Roller rPrograms per te.compute turned into rKernel variants (default: 10)
// CHECK-NEXT:      --expanded=<bool>            - print the programs in the expanded form (one line per rTask) (default: false)
// CHECK-NEXT:      --profile=<string>           - TOML file of rKernel times measured on the GPU, used by time() instead of the model's (te input)
// CHECK-NOT:{{.}}
