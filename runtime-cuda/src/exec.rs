//! Running PTX kernels with cudarc: load, allocate, fill, launch, read back, time.

use std::sync::Arc;

use cudarc::driver::sys::{CUdevice_attribute, CUevent_flags, CUfunction_attribute};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr, LaunchConfig,
    PushKernelArg,
};
use cudarc::nvrtc::Ptx;
use rtile_manifest::{ArgKind, KernelManifest, Manifest, Role};

use crate::data::{HostBuffer, median};
use crate::tensormap::{TiledMap, map_bytes};

/// Why no kernel can run here (the message `rtile-run` prints before exiting with 2).
pub const NO_CUDA: &str = "rtile-run: no CUDA driver found (libcuda.so could not be loaded); \
running kernels needs an NVIDIA GPU and driver. Use `rtile-run --sim` or `--interpret` to \
execute on the CPU instead.";

/// Checks that the CUDA driver library is present and has a device, without panicking
/// (cudarc panics when libcuda is missing, so it is probed first).
pub fn check_cuda() -> Result<(), String> {
    // SAFETY: only tries to dlopen libcuda; no CUDA call is made.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(NO_CUDA.to_string());
    }
    cudarc::driver::result::init().map_err(|e| format!("rtile-run: cuInit failed: {e:?}"))?;
    match CudaContext::device_count() {
        Ok(n) if n > 0 => Ok(()),
        Ok(_) => Err("rtile-run: the CUDA driver reports no GPU".into()),
        Err(e) => Err(format!("rtile-run: cannot count CUDA devices: {e:?}")),
    }
}

fn cuerr(what: &str) -> impl Fn(cudarc::driver::DriverError) -> String + '_ {
    move |e| format!("{what}: {e:?}")
}

/// One GPU: its context and the stream kernels run on.
pub struct Gpu {
    /// The context.
    pub ctx: Arc<CudaContext>,
    /// The default stream.
    pub stream: Arc<CudaStream>,
}

/// What identifies the device in caches and device files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// Marketing name.
    pub name: String,
    /// Compute capability (major, minor).
    pub cc: (i32, i32),
    /// Streaming multiprocessors.
    pub sms: i32,
    /// L2 size in bytes.
    pub l2_bytes: i64,
    /// Core clock in kHz.
    pub clock_khz: i64,
    /// Shared memory per block (opt-in maximum) in bytes.
    pub smem_per_block: i64,
    /// Shared memory per SM in bytes.
    pub smem_per_sm: i64,
    /// Registers per SM.
    pub regs_per_sm: i64,
    /// Global memory in bytes.
    pub total_mem: u64,
}

impl Gpu {
    /// Opens device `ordinal` (call [`check_cuda`] first).
    pub fn new(ordinal: usize) -> Result<Gpu, String> {
        let ctx = CudaContext::new(ordinal).map_err(cuerr("cannot create a CUDA context"))?;
        let stream = ctx.default_stream();
        Ok(Gpu { ctx, stream })
    }

    fn attr(&self, a: CUdevice_attribute) -> i64 {
        self.ctx.attribute(a).map(|v| v as i64).unwrap_or(0)
    }

    /// The device's description.
    pub fn info(&self) -> DeviceInfo {
        DeviceInfo {
            name: self.ctx.name().unwrap_or_else(|_| "unknown".into()),
            cc: self.ctx.compute_capability().unwrap_or((0, 0)),
            sms: self.attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT) as i32,
            l2_bytes: self.attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE),
            clock_khz: self.attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CLOCK_RATE),
            smem_per_block: self
                .attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN),
            smem_per_sm: self
                .attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR),
            regs_per_sm: self
                .attr(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR),
            total_mem: self.ctx.total_mem().unwrap_or(0) as u64,
        }
    }
}

/// A loaded kernel and its manifest entry.
pub struct Loaded {
    /// Keeps the module alive.
    pub module: Arc<CudaModule>,
    /// The entry point.
    pub func: CudaFunction,
    /// Its manifest entry.
    pub kernel: KernelManifest,
}

/// Loads `ptx` and the kernel `name` (or the manifest's only kernel).
pub fn load(
    gpu: &Gpu,
    ptx: &str,
    manifest: &Manifest,
    name: Option<&str>,
) -> Result<Loaded, String> {
    let kernel = manifest.kernel(name)?.clone();
    let module = gpu
        .ctx
        .load_module(Ptx::from_src(ptx))
        .map_err(cuerr("the driver rejected the PTX"))?;
    let func = module
        .load_function(&kernel.name)
        .map_err(cuerr("kernel not found in the PTX"))?;
    // Opted in for any dynamic shared memory, not only above 48 KiB: the kernel's static
    // shared memory (mbarriers, the dynamic region's 1024-byte alignment) counts against
    // the same 48 KiB default, so 48 KiB of dynamic memory alone can fail to launch.
    if kernel.dynamic_shared_memory > 0 {
        func.set_attribute(
            CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            kernel.dynamic_shared_memory as i32,
        )
        .map_err(cuerr("cannot enable that much dynamic shared memory"))?;
    }
    if kernel.args.iter().any(|a| a.kind == ArgKind::Scalar) {
        return Err(format!(
            "kernel {}: scalar arguments are not supported by rtile-run",
            kernel.name
        ));
    }
    Ok(Loaded {
        module,
        func,
        kernel,
    })
}

/// Grid, block and dynamic shared memory of a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    /// Blocks.
    pub grid: [u32; 3],
    /// Threads per block.
    pub block: [u32; 3],
    /// Dynamic shared memory bytes.
    pub smem: u32,
}

/// The launch dimensions: the manifest's, overridden by `grid`/`block` when given.
pub fn dims(
    k: &KernelManifest,
    grid: Option<[u32; 3]>,
    block: Option<[u32; 3]>,
) -> Result<Dims, String> {
    let grid = grid.or(k.grid).ok_or_else(|| {
        format!(
            "kernel {}: the manifest has no grid size; pass --grid X,Y,Z",
            k.name
        )
    })?;
    let block = block.or(k.block).ok_or_else(|| {
        format!(
            "kernel {}: the manifest has no block size; pass --block X,Y,Z",
            k.name
        )
    })?;
    Ok(Dims {
        grid,
        block,
        smem: k.dynamic_shared_memory as u32,
    })
}

fn cfg(d: &Dims) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (d.grid[0], d.grid[1], d.grid[2]),
        block_dim: (d.block[0], d.block[1], d.block[2]),
        shared_mem_bytes: d.smem,
    }
}

/// Device buffers for every argument: inputs copied from `inputs` (by argument index),
/// outputs filled with 0xFF bytes (NaN for floats), so unwritten elements show; a
/// `tensormap` argument is its encoded `CUtensorMap` (128 bytes, allocations are 256-byte
/// aligned) over the buffer of the memref argument it maps.
fn upload(
    gpu: &Gpu,
    k: &KernelManifest,
    inputs: &[HostBuffer],
) -> Result<Vec<CudaSlice<u8>>, String> {
    let mut bufs: Vec<Option<CudaSlice<u8>>> = Vec::new();
    for (i, a) in k.args.iter().enumerate() {
        if a.kind == ArgKind::Tensormap {
            bufs.push(None);
            continue;
        }
        let size = rtile_manifest::dtype_size(&a.dtype).ok_or("bad dtype")? * a.num_elements();
        let host: Vec<u8> = match (a.role, inputs.get(i)) {
            (Role::Output, _) | (_, None) => vec![0xFF; size.max(1)],
            (_, Some(h)) => h.bytes.clone(),
        };
        bufs.push(Some(
            gpu.stream
                .clone_htod(&host)
                .map_err(cuerr("device allocation failed"))?,
        ));
    }
    for (i, a) in k.args.iter().enumerate() {
        if a.kind != ArgKind::Tensormap {
            continue;
        }
        let of = a.tensor_map.as_ref().map(|t| t.of).unwrap_or(usize::MAX);
        let (target, buf) = match (k.args.get(of), bufs.get(of)) {
            (Some(t), Some(Some(b))) => (t, b),
            _ => {
                return Err(format!(
                    "kernel {}: tensor map {} names no memref argument",
                    k.name, a.name
                ));
            }
        };
        let tiled = TiledMap::for_arg(a, target)?;
        let map = {
            let (ptr, _sync) = buf.device_ptr(&gpu.stream);
            tiled.encode(ptr)?
        };
        bufs[i] = Some(
            gpu.stream
                .clone_htod(&map_bytes(&map))
                .map_err(cuerr("device allocation failed"))?,
        );
    }
    Ok(bufs.into_iter().flatten().collect())
}

fn launch(gpu: &Gpu, l: &Loaded, d: &Dims, bufs: &[CudaSlice<u8>]) -> Result<(), String> {
    let mut b = gpu.stream.launch_builder(&l.func);
    for s in bufs {
        b.arg(s);
    }
    // SAFETY: the arguments are device buffers of the sizes the manifest declares, in the
    // kernel's parameter order (the bare-pointer convention of rtile-translate).
    unsafe { b.launch(cfg(d)) }.map_err(cuerr("kernel launch failed"))?;
    Ok(())
}

/// Runs the kernel once on `inputs` (indexed by argument) and returns every argument's
/// final contents (outputs included), in argument order.
pub fn run_once(
    gpu: &Gpu,
    l: &Loaded,
    d: &Dims,
    inputs: &[HostBuffer],
) -> Result<Vec<HostBuffer>, String> {
    let bufs = upload(gpu, &l.kernel, inputs)?;
    launch(gpu, l, d, &bufs)?;
    gpu.stream
        .synchronize()
        .map_err(cuerr("kernel execution failed"))?;
    let mut out = Vec::new();
    for (a, b) in l.kernel.args.iter().zip(&bufs) {
        let bytes = gpu
            .stream
            .clone_dtoh(b)
            .map_err(cuerr("copy back failed"))?;
        out.push(HostBuffer {
            dtype: a.dtype.clone(),
            shape: a.shape.clone(),
            bytes,
        });
    }
    Ok(out)
}

/// Timing of one kernel.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timing {
    /// Median of the samples, ms.
    pub median_ms: f32,
    /// Fastest sample, ms.
    pub min_ms: f32,
    /// Every sample, ms (CUDA events around each launch).
    pub samples: Vec<f32>,
    /// How many copies of the inputs were rotated through (1: none).
    pub input_copies: usize,
}

/// Times the kernel with CUDA events: `warmup` launches, then `iters` timed launches,
/// median. When the inputs fit in L2, several copies are rotated so that each launch
/// reads its inputs from DRAM, as in a real model.
pub fn time(
    gpu: &Gpu,
    l: &Loaded,
    d: &Dims,
    inputs: &[HostBuffer],
    warmup: usize,
    iters: usize,
    progress: Option<&indicatif::ProgressBar>,
) -> Result<Timing, String> {
    let info = gpu.info();
    let in_bytes: usize = l
        .kernel
        .args
        .iter()
        .zip(inputs)
        .filter(|(a, _)| a.role != Role::Output)
        .map(|(_, h)| h.bytes.len())
        .sum();
    let free = gpu.ctx.mem_get_info().map(|(f, _)| f).unwrap_or(0);
    let copies = if in_bytes > 0 && (in_bytes as i64) <= info.l2_bytes {
        let want = (4 * info.l2_bytes as usize).div_ceil(in_bytes).clamp(2, 64);
        want.min((free / 4 / in_bytes.max(1)).max(1))
    } else {
        1
    };
    let mut sets = Vec::new();
    for _ in 0..copies {
        sets.push(upload(gpu, &l.kernel, inputs)?);
    }
    for i in 0..warmup {
        launch(gpu, l, d, &sets[i % copies])?;
    }
    gpu.stream.synchronize().map_err(cuerr("warm-up failed"))?;
    let mk = || {
        gpu.ctx
            .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(cuerr("event"))
    };
    let (start, stop) = (mk()?, mk()?);
    let mut samples = Vec::with_capacity(iters);
    for i in 0..iters {
        start.record(&gpu.stream).map_err(cuerr("event record"))?;
        launch(gpu, l, d, &sets[i % copies])?;
        stop.record(&gpu.stream).map_err(cuerr("event record"))?;
        stop.synchronize()
            .map_err(cuerr("kernel execution failed"))?;
        samples.push(start.elapsed_ms(&stop).map_err(cuerr("event timing"))?);
        if let Some(p) = progress {
            p.inc(1);
        }
    }
    Ok(Timing {
        median_ms: median(&samples),
        min_ms: samples.iter().copied().fold(f32::INFINITY, f32::min),
        samples,
        input_copies: copies,
    })
}
