//! A whole model on the GPU: the launch sequence of a model manifest (`rtile-compile`'s
//! `<func>.model.json`, or `rtile-run --sim --model-manifest`) with the PTX of its kernels,
//! run through [`rtile_manifest::model::execute`], the sequencing the simulator shares:
//! one device allocation per input, output, constant and the arena; each step's arguments
//! are pointers `offset` bytes into them (reshapes are views); the steps are launched in
//! order on one stream, a copy step (an output the host function copies: an input, a
//! constant, a result returned twice) as a device-to-device memcpy on the same stream.

use std::collections::HashMap;
use std::sync::Arc;

use cudarc::driver::sys::{
    CUevent_flags, CUfunction_attribute, CUgraphInstantiate_flags, CUstreamCaptureMode,
};
use cudarc::driver::{
    CudaFunction, CudaModule, CudaSlice, CudaStream, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::Ptx;
use rtile_manifest::model::{
    Buffer, CopyStep, ExecuteError, Executor, LaunchStep, ModelManifest, Step, execute,
};

use crate::data::median;
use crate::exec::Gpu;

/// The GPU as an [`Executor`]: the model's kernels loaded from one PTX module, and its
/// device buffers. Unwritten buffers (outputs, the arena) start as `0xff` bytes (NaN for
/// floats), so an element no kernel writes shows in the result.
pub struct CudaExecutor {
    /// Where buffers are filled and kernels launched (the GPU's default stream, or a
    /// stream of its own when the launches are captured into a CUDA graph).
    stream: Arc<CudaStream>,
    /// Keeps the kernels' module loaded.
    _module: Arc<CudaModule>,
    funcs: HashMap<String, CudaFunction>,
    bufs: HashMap<Buffer, CudaSlice<u8>>,
    /// Per step with TMA tensor maps: the encoded maps in device memory (built at its
    /// first launch: the buffers they cover stay where they are).
    maps: HashMap<usize, Vec<CudaSlice<u8>>>,
}

impl CudaExecutor {
    /// Loads `ptx` and every kernel `m`'s steps launch (each once, however many steps
    /// launch it), opting in to the dynamic shared memory the steps ask for.
    pub fn new(gpu: &Gpu, ptx: &str, m: &ModelManifest) -> Result<Self, String> {
        let module = gpu
            .ctx
            .load_module(Ptx::from_src(ptx))
            .map_err(|e| format!("the driver rejected the PTX: {e:?}"))?;
        let mut funcs: HashMap<String, CudaFunction> = HashMap::new();
        let mut smem: HashMap<String, u64> = HashMap::new();
        for (_, s) in m.launches() {
            if !funcs.contains_key(&s.kernel) {
                let f = module.load_function(&s.kernel).map_err(|e| {
                    format!(
                        "kernel {} of the manifest is not in the PTX: {e:?}",
                        s.kernel
                    )
                })?;
                funcs.insert(s.kernel.clone(), f);
            }
            let most = smem.entry(s.kernel.clone()).or_default();
            *most = (*most).max(s.dynamic_shared_memory);
        }
        // Opted in for any dynamic shared memory: static shared memory (mbarriers, the
        // dynamic region's alignment) counts against the same default limit.
        for (name, bytes) in smem {
            if bytes > 0 {
                funcs[&name]
                    .set_attribute(
                        CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                        bytes as i32,
                    )
                    .map_err(|e| {
                        format!("kernel {name}: cannot enable {bytes} bytes of dynamic shared memory: {e:?}")
                    })?;
            }
        }
        check_coresidency(gpu, m, &funcs)?;
        Ok(CudaExecutor {
            stream: gpu.stream.clone(),
            _module: module,
            funcs,
            bufs: HashMap::new(),
            maps: HashMap::new(),
        })
    }

    /// Runs every step of `m` again on the buffers already allocated (inputs and
    /// constants unchanged), without waiting: what is timed.
    pub fn replay(&mut self, m: &ModelManifest) -> Result<(), String> {
        for (k, s) in m.steps.iter().enumerate() {
            match s {
                Step::Launch(l) => self.launch(k, l)?,
                Step::Copy(c) => self.copy(k, c)?,
            }
        }
        Ok(())
    }
}

impl Executor for CudaExecutor {
    type Error = String;

    fn alloc(&mut self, buffer: Buffer, bytes: u64, init: Option<&[u8]>) -> Result<(), String> {
        // A zero-byte allocation fails in the driver: one byte stands for an empty buffer.
        let host = match init {
            Some(d) if !d.is_empty() => d.to_vec(),
            Some(_) => vec![0],
            None => vec![0xFF; bytes.max(1) as usize],
        };
        let dev = self
            .stream
            .clone_htod(&host)
            .map_err(|e| format!("cannot allocate {bytes} bytes for {buffer:?}: {e:?}"))?;
        self.bufs.insert(buffer, dev);
        Ok(())
    }

    /// A device-to-device copy on the stream (`cuMemcpyDtoDAsync`, through cudarc's
    /// `CudaStream::memcpy_dtod`), between two buffers or two ranges of one
    /// (`ModelManifest::check` keeps them apart).
    fn copy(&mut self, index: usize, step: &CopyStep) -> Result<(), String> {
        let fail = |m: String| format!("step {index} (copy): {m}");
        let (s, d, n) = (step.src, step.dst, step.bytes as usize);
        if n == 0 {
            return Ok(());
        }
        let (slo, dlo) = (s.offset as usize, d.offset as usize);
        let outside = |what: &str| fail(format!("its {what} lies outside its buffer"));
        let done = if s.buffer == d.buffer {
            let buf = self
                .bufs
                .get_mut(&d.buffer)
                .ok_or_else(|| fail(format!("{:?} is not allocated", d.buffer)))?;
            // Split between the two ranges: the source in one half, the destination in
            // the other.
            if slo < dlo {
                let (a, mut b) = buf.split_at_mut(dlo);
                let src = a.try_slice(slo..slo + n).ok_or_else(|| outside("source"))?;
                let mut dst = b
                    .try_slice_mut(0..n)
                    .ok_or_else(|| outside("destination"))?;
                self.stream.memcpy_dtod(&src, &mut dst)
            } else {
                let (mut a, b) = buf.split_at_mut(slo);
                let src = b.try_slice(0..n).ok_or_else(|| outside("source"))?;
                let mut dst = a
                    .try_slice_mut(dlo..dlo + n)
                    .ok_or_else(|| outside("destination"))?;
                self.stream.memcpy_dtod(&src, &mut dst)
            }
        } else {
            let mut dbuf = self
                .bufs
                .remove(&d.buffer)
                .ok_or_else(|| fail(format!("{:?} is not allocated", d.buffer)))?;
            let done = match self.bufs.get(&s.buffer) {
                None => Err(fail(format!("{:?} is not allocated", s.buffer))),
                Some(sbuf) => match (
                    sbuf.try_slice(slo..slo + n),
                    dbuf.try_slice_mut(dlo..dlo + n),
                ) {
                    (Some(src), Some(mut dst)) => Ok(self.stream.memcpy_dtod(&src, &mut dst)),
                    (None, _) => Err(outside("source")),
                    (_, None) => Err(outside("destination")),
                },
            };
            self.bufs.insert(d.buffer, dbuf);
            done?
        };
        done.map_err(|e| fail(format!("memcpy failed: {e:?}")))
    }

    fn launch(&mut self, index: usize, step: &LaunchStep) -> Result<(), String> {
        let fail = |m: String| format!("step {index} (@{}): {m}", step.kernel);
        let f = self
            .funcs
            .get(&step.kernel)
            .ok_or_else(|| fail("the kernel was not loaded".into()))?;
        let mut views = Vec::with_capacity(step.args.len());
        for (i, a) in step.args.iter().enumerate() {
            let (lo, hi) = a
                .range()
                .ok_or_else(|| fail(format!("argument {i} has an unknown dtype")))?;
            let buf = self
                .bufs
                .get(&a.buffer)
                .ok_or_else(|| fail(format!("argument {i}: {:?} is not allocated", a.buffer)))?;
            views.push(
                buf.try_slice(lo as usize..hi as usize)
                    .ok_or_else(|| fail(format!("argument {i} lies outside its buffer")))?,
            );
        }
        if !step.tensor_maps.is_empty() && !self.maps.contains_key(&index) {
            let maps = encode_maps(&self.stream, step, &views).map_err(fail)?;
            self.maps.insert(index, maps);
        }
        let mut b = self.stream.launch_builder(f);
        for v in &views {
            b.arg(v);
        }
        for m in self.maps.get(&index).into_iter().flatten() {
            b.arg(m);
        }
        let cfg = LaunchConfig {
            grid_dim: (step.grid[0], step.grid[1], step.grid[2]),
            block_dim: (step.block[0], step.block[1], step.block[2]),
            shared_mem_bytes: step.dynamic_shared_memory as u32,
        };
        // SAFETY: every argument is a device pointer into a live buffer covering the
        // shape the kernel reads or writes (checked by `ModelManifest::check` and the
        // slice above), in the kernel's parameter order (rtile-translate's bare-pointer
        // convention).
        unsafe { b.launch(cfg) }.map_err(|e| fail(format!("launch failed: {e:?}")))?;
        Ok(())
    }

    fn read(&mut self, buffer: Buffer) -> Result<Vec<u8>, String> {
        self.stream
            .synchronize()
            .map_err(|e| format!("the model failed on the GPU: {e:?}"))?;
        let buf = self
            .bufs
            .get(&buffer)
            .ok_or_else(|| format!("{buffer:?} was never allocated"))?;
        self.stream
            .clone_dtoh(buf)
            .map_err(|e| format!("cannot copy {buffer:?} back: {e:?}"))
    }
}

/// Checks every persistent step whose barriers span blocks (`Step::coresident`) against
/// the driver's occupancy (`cuOccupancyMaxActiveBlocksPerMultiprocessor` × multiprocessors):
/// its whole grid must be resident at once, or its rTask barriers would wait forever on
/// blocks that never start (Rammer OSDI'20 §4.2; the compiler's count rests on the device
/// description and an estimate of registers). Prints both numbers; refuses the model when
/// the driver allows fewer blocks than the grid.
fn check_coresidency(
    gpu: &Gpu,
    m: &ModelManifest,
    funcs: &HashMap<String, CudaFunction>,
) -> Result<(), String> {
    let sms = gpu.info().sms.max(0) as u64;
    for (i, s) in m.launches() {
        let Some(counted) = s.coresident else {
            continue;
        };
        let threads = s.block.iter().product::<u32>();
        let per_sm = funcs[&s.kernel]
            .occupancy_max_active_blocks_per_multiprocessor(
                threads,
                s.dynamic_shared_memory as usize,
                None,
            )
            .map_err(|e| format!("step {i} (@{}): occupancy query failed: {e:?}", s.kernel))?
            as u64;
        let grid = s.grid.iter().map(|&g| g as u64).product::<u64>();
        let capacity = per_sm * sms;
        eprintln!(
            "co-residency: @{}: grid {grid} blocks of {threads} threads, {} bytes of dynamic shared memory; the driver allows {per_sm} per multiprocessor × {sms} = {capacity}; the compiler counted {counted}",
            s.kernel, s.dynamic_shared_memory
        );
        if grid > capacity {
            return Err(format!(
                "step {i} (@{}): could deadlock: its barriers span blocks and it launches {grid} blocks, but the driver allows only {capacity} co-resident ({per_sm} per multiprocessor × {sms}); the compiler counted {counted}",
                s.kernel
            ));
        }
    }
    Ok(())
}

/// The step's TMA tensor maps, each encoded over the argument it covers and copied to the
/// device (a kernel takes a map's address, `runtime-cuda/src/tensormap.rs`).
fn encode_maps(
    stream: &Arc<CudaStream>,
    step: &LaunchStep,
    views: &[cudarc::driver::CudaView<'_, u8>],
) -> Result<Vec<CudaSlice<u8>>, String> {
    use crate::tensormap::{TiledMap, map_bytes};
    use cudarc::driver::DevicePtr;
    use rtile_manifest::{ArgKind, ArgManifest, Role};
    let mut out = Vec::new();
    for (i, t) in step.tensor_maps.iter().enumerate() {
        let (a, view) = step
            .args
            .get(t.of)
            .zip(views.get(t.of))
            .ok_or_else(|| format!("tensor map {i} covers missing argument {}", t.of))?;
        let of = ArgManifest {
            name: format!("arg{}", t.of),
            kind: ArgKind::Memref,
            shape: a.shape.clone(),
            dtype: a.dtype.clone(),
            role: Role::Input,
            tensor_map: None,
        };
        let map = ArgManifest {
            name: format!("tensor map {i}"),
            kind: ArgKind::Tensormap,
            shape: vec![],
            dtype: a.dtype.clone(),
            role: Role::Input,
            tensor_map: Some(t.clone()),
        };
        let tiled = TiledMap::for_arg(&map, &of)?;
        let encoded = {
            let (ptr, _sync) = view.device_ptr(stream);
            tiled.encode(ptr)?
        };
        out.push(
            stream
                .clone_htod(&map_bytes(&encoded))
                .map_err(|e| format!("cannot copy tensor map {i} to the device: {e:?}"))?,
        );
    }
    Ok(out)
}

fn execute_error(e: ExecuteError<String>) -> String {
    match e {
        ExecuteError::Manifest(m) | ExecuteError::Executor(m) => m,
    }
}

/// Runs `m` once on the GPU: loads `ptx`, uploads `inputs` and `constants` (little-endian
/// row-major bytes), launches every step, and returns the outputs' bytes.
pub fn run_model(
    gpu: &Gpu,
    ptx: &str,
    m: &ModelManifest,
    inputs: &[Vec<u8>],
    constants: &[Vec<u8>],
) -> Result<Vec<Vec<u8>>, String> {
    let mut exec = CudaExecutor::new(gpu, ptx, m)?;
    execute(m, &mut exec, inputs, constants).map_err(execute_error)
}

/// Latency of a whole model, ms.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelTiming {
    /// Median of the samples.
    pub median_ms: f32,
    /// Fastest sample.
    pub min_ms: f32,
    /// Every sample (CUDA events around the whole launch sequence, copy steps included).
    pub samples: Vec<f32>,
    /// Launches per run (copy steps not counted).
    pub launches: usize,
}

/// How the launches of a timed run are issued.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Replay {
    /// Each step launched from the host, in order (what the launch manifest does).
    #[default]
    Launches,
    /// The whole sequence captured once into a CUDA graph, the graph replayed: launch
    /// overheads shrink to the graph's, the baseline Rammer's persistent kernel is
    /// measured against (paper §5).
    Graph,
}

/// How a model is timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimingPlan {
    /// Untimed runs after the first.
    pub warmup: usize,
    /// Timed runs.
    pub iters: usize,
    /// How each run's launches are issued.
    pub replay: Replay,
}

/// Runs `m` once (its outputs returned, as [`run_model`]), then `plan.warmup` more times
/// and `plan.iters` timed times, each timed run being the whole launch sequence between
/// two CUDA events on the stream (what a user of the model waits for, launch overheads
/// included), launched as `plan.replay` says.
pub fn time_model(
    gpu: &Gpu,
    ptx: &str,
    m: &ModelManifest,
    inputs: &[Vec<u8>],
    constants: &[Vec<u8>],
    plan: TimingPlan,
) -> Result<(Vec<Vec<u8>>, ModelTiming), String> {
    let TimingPlan {
        warmup,
        iters,
        replay,
    } = plan;
    let stream = match replay {
        Replay::Launches => gpu.stream.clone(),
        Replay::Graph => {
            // Captured launches may not wait on events recorded outside the capture, and
            // the legacy default stream cannot be captured: the buffers are made and used
            // on one stream of their own, with cudarc's cross-stream events off.
            // SAFETY: every buffer below is allocated, used and freed on `stream` alone.
            unsafe { gpu.ctx.disable_event_tracking() };
            gpu.ctx
                .new_stream()
                .map_err(|e| format!("cannot create a stream: {e:?}"))?
        }
    };
    let mut exec = CudaExecutor::new(gpu, ptx, m)?;
    exec.stream = stream.clone();
    let outputs = execute(m, &mut exec, inputs, constants).map_err(execute_error)?;
    let graph = match replay {
        Replay::Launches => None,
        Replay::Graph => {
            stream
                .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
                .map_err(|e| format!("cannot capture the launches: {e:?}"))?;
            let captured = exec.replay(m);
            let graph = stream
                .end_capture(CUgraphInstantiate_flags(0))
                .map_err(|e| format!("cannot instantiate the CUDA graph: {e:?}"))?;
            captured?;
            let graph = graph.ok_or("the captured CUDA graph is empty")?;
            graph
                .upload()
                .map_err(|e| format!("cannot upload the CUDA graph: {e:?}"))?;
            Some(graph)
        }
    };
    let mut run = || match &graph {
        Some(g) => g
            .launch()
            .map_err(|e| format!("CUDA graph launch failed: {e:?}")),
        None => exec.replay(m),
    };
    for _ in 0..warmup {
        run()?;
    }
    stream
        .synchronize()
        .map_err(|e| format!("warm-up failed: {e:?}"))?;
    let events = EventPair::new(gpu)?;
    let mut samples = Vec::with_capacity(iters);
    for _ in 0..iters {
        samples.push(events.time(&stream, &mut run, || "the model failed on the GPU".into())?);
    }
    Ok((
        outputs,
        ModelTiming {
            median_ms: median(&samples),
            min_ms: samples.iter().copied().fold(f32::INFINITY, f32::min),
            samples,
            launches: m.launches().count(),
        },
    ))
}

/// Two CUDA events on one stream: the time of the work recorded between them.
struct EventPair {
    start: cudarc::driver::CudaEvent,
    stop: cudarc::driver::CudaEvent,
}

impl EventPair {
    fn new(gpu: &Gpu) -> Result<EventPair, String> {
        let event = || {
            gpu.ctx
                .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(|e| format!("cannot create a CUDA event: {e:?}"))
        };
        Ok(EventPair {
            start: event()?,
            stop: event()?,
        })
    }

    /// Records the start, runs `work` (which queues on `stream`), records the stop, waits
    /// for it and returns the milliseconds between; `failed` says what failed when the
    /// stream reports an error.
    fn time(
        &self,
        stream: &Arc<CudaStream>,
        work: impl FnOnce() -> Result<(), String>,
        failed: impl FnOnce() -> String,
    ) -> Result<f32, String> {
        let record = |e: &cudarc::driver::CudaEvent| {
            e.record(stream).map_err(|e| format!("event record: {e:?}"))
        };
        record(&self.start)?;
        work()?;
        record(&self.stop)?;
        self.stop
            .synchronize()
            .map_err(|e| format!("{}: {e:?}", failed()))?;
        self.start
            .elapsed_ms(&self.stop)
            .map_err(|e| format!("event timing: {e:?}"))
    }
}

/// One launch's time, timed alone (see [`time_steps`]).
#[derive(Clone, Debug, PartialEq)]
pub struct StepTime {
    /// Its index in the manifest's steps (a launch step).
    pub step: usize,
    /// The kernel's symbol.
    pub kernel: String,
    /// Mean time of one launch over the timed back-to-back launches, µs.
    pub us: f64,
}

/// Times each step of `m` alone: after one run of the whole sequence (which allocates and
/// fills every buffer), each step is launched `warmup` times, then `iters` times back to
/// back between two CUDA events, and its time is the mean (so launch overhead hides behind
/// the kernels, as in a sequence whose launches queue ahead). These are the per-kernel
/// times `rtile-bench retrain` fits the Halide cost model to (OOPSLA'21 §5) and Rammer's
/// profiles hold (OSDI'20 §3.3). Persistent steps whose barriers span blocks are left out:
/// their step counters make a repeated launch return without waiting; so are copy steps,
/// which run no kernel.
pub fn time_steps(
    gpu: &Gpu,
    ptx: &str,
    m: &ModelManifest,
    inputs: &[Vec<u8>],
    constants: &[Vec<u8>],
    warmup: usize,
    iters: usize,
) -> Result<Vec<StepTime>, String> {
    let mut exec = CudaExecutor::new(gpu, ptx, m)?;
    execute(m, &mut exec, inputs, constants).map_err(execute_error)?;
    let stream = exec.stream.clone();
    let events = EventPair::new(gpu)?;
    let iters = iters.max(1);
    let mut out = Vec::new();
    for (k, s) in m.launches() {
        if s.coresident.is_some() {
            continue;
        }
        for _ in 0..warmup {
            exec.launch(k, s)?;
        }
        let ms = events.time(
            &stream,
            || (0..iters).try_for_each(|_| exec.launch(k, s)),
            || format!("step {k} (@{}) failed on the GPU", s.kernel),
        )?;
        out.push(StepTime {
            step: k,
            kernel: s.kernel.clone(),
            us: ms as f64 * 1000.0 / iters as f64,
        });
    }
    Ok(out)
}
