//! The whole-model manifest: one lowered host function (`rtile-opt --lower-to-gpu` on a
//! multi-op te function) as a launch sequence over device buffers, with no IR: what the
//! CPU GPU-simulator runs (`rtile-run --sim`) and what `rtile-run cuda` is to run.
//!
//! ```json
//! {
//!   "version": 1, "function": "model", "module": "kernels",
//!   "inputs":  [{"shape": [1, 3, 8, 8], "dtype": "f32"}],
//!   "outputs": [{"shape": [1, 10], "dtype": "f32"}],
//!   "arena_bytes": 4608,
//!   "constants": [{"name": "__constant_w0", "shape": [4, 3, 3, 3], "dtype": "f32",
//!                  "offset": 0, "bytes": 432}],
//!   "constants_file": "model.bin",
//!   "steps": [{"kernel": "model_0", "grid": [2, 1, 1], "block": [128, 1, 1],
//!              "dynamic_shared_memory": 0,
//!              "args": [{"buffer": {"input": 0}, "offset": 0, "shape": [1, 3, 8, 8], "dtype": "f32"},
//!                       {"buffer": {"constant": 0}, "offset": 0, "shape": [4, 3, 3, 3], "dtype": "f32"},
//!                       {"buffer": "arena", "offset": 0, "shape": [1, 4, 6, 6], "dtype": "f32"}]},
//!             {"copy": {"src": {"buffer": {"input": 0}, "offset": 0},
//!                       "dst": {"buffer": {"output": 1}, "offset": 0}, "bytes": 768}}]
//! }
//! ```
//! Every device buffer is one allocation: each input, each output, each constant (its
//! bytes at `offset` in `constants_file`, little-endian row-major), and the arena of the
//! intermediates (`arena_bytes`, 256-byte aligned offsets). A step's argument is a pointer
//! `offset` bytes into its buffer (reshapes are views: another shape over the same bytes);
//! the last argument of each launch step is the one the kernel writes. A copy step (a host
//! `gpu.memcpy`: a result that is an argument, a constant, a view of one, or a result
//! returned twice) copies `bytes` from one buffer to another, device to device.

use serde::{Deserialize, Serialize};

use crate::dtype_size;

/// Current model manifest version.
pub const MODEL_VERSION: u32 = 1;

/// A lowered model's launch sequence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelManifest {
    /// Format version ([`MODEL_VERSION`]).
    pub version: u32,
    /// The host function's symbol.
    pub function: String,
    /// The `gpu.module` holding the kernels (one PTX file).
    pub module: String,
    /// The host function's inputs, in order.
    pub inputs: Vec<TensorSpec>,
    /// Its outputs, in order (the trailing memref arguments).
    pub outputs: Vec<TensorSpec>,
    /// Size of the intermediates' arena: the peak device memory of the intermediates.
    pub arena_bytes: u64,
    /// The tensor constants (weights), each its own buffer.
    pub constants: Vec<ConstantSpec>,
    /// The file holding the constants' bytes, beside the manifest (`None` when there are
    /// none or they are taken from the IR, as the simulator does).
    #[serde(default)]
    pub constants_file: Option<String>,
    /// The launches and copies, in order.
    pub steps: Vec<Step>,
}

/// A tensor's shape and element type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TensorSpec {
    pub shape: Vec<i64>,
    /// `f32`, `f16`, `bf16`, `f64`, `i8`..`i64`, `i1`.
    pub dtype: String,
}

impl TensorSpec {
    /// Number of elements.
    pub fn num_elements(&self) -> u64 {
        self.shape.iter().map(|&d| d.max(0) as u64).product()
    }
    /// Size in bytes (`None` for an unknown dtype).
    pub fn bytes(&self) -> Option<u64> {
        dtype_size(&self.dtype).map(|s| s as u64 * self.num_elements())
    }
}

/// One constant: its `memref.global` symbol, type, and bytes in the constants file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConstantSpec {
    pub name: String,
    pub shape: Vec<i64>,
    pub dtype: String,
    /// Byte offset in [`ModelManifest::constants_file`].
    pub offset: u64,
    pub bytes: u64,
}

/// Which device buffer an argument points into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Buffer {
    /// Host input `i`.
    Input(usize),
    /// Output `i`.
    Output(usize),
    /// Constant `i`.
    Constant(usize),
    /// The intermediates' arena.
    Arena,
}

/// A kernel argument: `shape`/`dtype` elements at `offset` bytes into `buffer`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArgRef {
    pub buffer: Buffer,
    pub offset: u64,
    pub shape: Vec<i64>,
    pub dtype: String,
}

impl ArgRef {
    /// The byte range `[start, end)` it covers in its buffer (`None` for an unknown dtype).
    pub fn range(&self) -> Option<(u64, u64)> {
        let t = TensorSpec {
            shape: self.shape.clone(),
            dtype: self.dtype.clone(),
        };
        Some((self.offset, self.offset + t.bytes()?))
    }
}

/// One step of the host function: a kernel launch or a device-to-device copy. In JSON a
/// launch is its fields (`{"kernel": ..}`), a copy `{"copy": {..}}`.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    Launch(LaunchStep),
    Copy(CopyStep),
}

impl Step {
    /// The launch, for a launch step.
    pub fn launch(&self) -> Option<&LaunchStep> {
        match self {
            Step::Launch(l) => Some(l),
            Step::Copy(_) => None,
        }
    }
    /// The copy, for a copy step.
    pub fn copy(&self) -> Option<&CopyStep> {
        match self {
            Step::Copy(c) => Some(c),
            Step::Launch(_) => None,
        }
    }
    /// What a message about the step names it: `@kernel` or `copy`.
    pub fn what(&self) -> String {
        match self {
            Step::Launch(l) => format!("@{}", l.kernel),
            Step::Copy(_) => "copy".into(),
        }
    }
}

/// A copy step's JSON: `{"copy": {...}}`.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CopyJson {
    copy: CopyStep,
}

impl Serialize for Step {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Step::Launch(l) => l.serialize(s),
            Step::Copy(c) => CopyJson { copy: c.clone() }.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Step {
    /// An object with a `copy` key is a copy step, any other a launch step (each with its
    /// own error messages, rather than an untagged enum's "matched no variant").
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Step, D::Error> {
        use serde::de::Error;
        let v = serde_json::Value::deserialize(d)?;
        if v.get("copy").is_some() {
            let c: CopyJson = serde_json::from_value(v).map_err(D::Error::custom)?;
            Ok(Step::Copy(c.copy))
        } else {
            serde_json::from_value(v)
                .map(Step::Launch)
                .map_err(D::Error::custom)
        }
    }
}

/// Where a copy reads or writes: `offset` bytes into `buffer`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Place {
    pub buffer: Buffer,
    pub offset: u64,
}

/// A device-to-device copy of `bytes` bytes (the host function's `gpu.memcpy`): an output
/// that is an input, a constant or a view of one, or a result returned twice.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CopyStep {
    pub src: Place,
    pub dst: Place,
    pub bytes: u64,
}

/// One kernel launch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LaunchStep {
    /// The kernel's symbol in [`ModelManifest::module`].
    pub kernel: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_shared_memory: u64,
    /// Inputs in kernel order, then the output.
    pub args: Vec<ArgRef>,
    /// The kernel's TMA tensor-map parameters (sm_90a), passed after `args`: each covers
    /// the whole of `args[of]`, so the runtime encodes it over that argument's memory.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tensor_maps: Vec<crate::TensorMapArg>,
    /// For a persistent kernel whose barriers span blocks (Rammer's rProgram,
    /// `rtile.persistent`): the blocks the compiler counted as co-resident on the device
    /// description. Every block of the grid must be resident at once, so the GPU runtime
    /// checks the grid against the driver's own occupancy before launching it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coresident: Option<u64>,
}

impl ModelManifest {
    /// Parses and checks manifest JSON.
    pub fn from_json(text: &str) -> Result<ModelManifest, String> {
        let m: ModelManifest =
            serde_json::from_str(text).map_err(|e| format!("bad model manifest: {e}"))?;
        if m.version != MODEL_VERSION {
            return Err(format!(
                "model manifest version {} is not supported (expected {MODEL_VERSION})",
                m.version
            ));
        }
        m.check()?;
        Ok(m)
    }

    /// Pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The size in bytes of `buffer`.
    pub fn buffer_bytes(&self, buffer: Buffer) -> Option<u64> {
        match buffer {
            Buffer::Input(i) => self.inputs.get(i)?.bytes(),
            Buffer::Output(i) => self.outputs.get(i)?.bytes(),
            Buffer::Constant(i) => Some(self.constants.get(i)?.bytes),
            Buffer::Arena => Some(self.arena_bytes),
        }
    }

    /// The launch steps with their indices in [`ModelManifest::steps`].
    pub fn launches(&self) -> impl Iterator<Item = (usize, &LaunchStep)> {
        self.steps
            .iter()
            .enumerate()
            .filter_map(|(k, s)| Some((k, s.launch()?)))
    }

    /// Checks what a launch relies on: each constant's size matches its type, every
    /// argument lies inside its buffer, every launch step writes its last argument into an
    /// output or the arena, and no step's written range overlaps one of its inputs in the
    /// same buffer (the arena assignment's guarantee); every copy step reads and writes
    /// inside its buffers, writes an output or the arena, and does not overlap itself.
    pub fn check(&self) -> Result<(), String> {
        for (i, c) in self.constants.iter().enumerate() {
            let t = TensorSpec {
                shape: c.shape.clone(),
                dtype: c.dtype.clone(),
            };
            if t.bytes() != Some(c.bytes) {
                return Err(format!(
                    "constant {i} (@{}) has {} bytes for {} elements of {}",
                    c.name,
                    c.bytes,
                    t.num_elements(),
                    c.dtype
                ));
            }
        }
        for (k, s) in self.steps.iter().enumerate() {
            self.check_step(s)
                .map_err(|m| format!("step {k} ({}): {m}", s.what()))?;
        }
        Ok(())
    }

    /// [`ModelManifest::check`]'s rules for one step, against this manifest's buffers.
    pub fn check_step(&self, s: &Step) -> Result<(), String> {
        match s {
            Step::Launch(l) => self.check_launch(l),
            Step::Copy(c) => self.check_copy(c),
        }
    }

    fn check_launch(&self, s: &LaunchStep) -> Result<(), String> {
        let mut ranges = Vec::new();
        for (i, a) in s.args.iter().enumerate() {
            let (lo, hi) = a
                .range()
                .ok_or_else(|| format!("argument {i} has unknown dtype '{}'", a.dtype))?;
            let size = self
                .buffer_bytes(a.buffer)
                .ok_or_else(|| format!("argument {i} names a missing buffer"))?;
            if hi > size {
                return Err(format!(
                    "argument {i} covers bytes [{lo}, {hi}) of a {size}-byte buffer"
                ));
            }
            ranges.push((a.buffer, lo, hi));
        }
        let Some(&(ob, olo, ohi)) = ranges.last() else {
            return Err("has no arguments".into());
        };
        if let Some(t) = s.tensor_maps.iter().find(|t| t.of >= s.args.len()) {
            return Err(format!("a tensor map over missing argument {}", t.of));
        }
        if !matches!(ob, Buffer::Output(_) | Buffer::Arena) {
            return Err("writes an input or a constant".into());
        }
        for (i, &(b, lo, hi)) in ranges[..ranges.len() - 1].iter().enumerate() {
            if b == ob && lo < ohi && olo < hi {
                return Err(format!(
                    "its output overlaps argument {i} (bytes [{lo}, {hi}) and [{olo}, {ohi}))"
                ));
            }
        }
        Ok(())
    }

    fn check_copy(&self, c: &CopyStep) -> Result<(), String> {
        let mut ranges = Vec::new();
        for (what, p) in [("source", c.src), ("destination", c.dst)] {
            let size = self
                .buffer_bytes(p.buffer)
                .ok_or_else(|| format!("its {what} names a missing buffer"))?;
            let (lo, hi) = (p.offset, p.offset.saturating_add(c.bytes));
            if hi > size {
                return Err(format!(
                    "its {what} covers bytes [{lo}, {hi}) of a {size}-byte buffer"
                ));
            }
            ranges.push((lo, hi));
        }
        if !matches!(c.dst.buffer, Buffer::Output(_) | Buffer::Arena) {
            return Err("writes an input or a constant".into());
        }
        let [(slo, shi), (dlo, dhi)] = [ranges[0], ranges[1]];
        if c.src.buffer == c.dst.buffer && slo < dhi && dlo < shi {
            return Err(format!(
                "its destination overlaps its source (bytes [{slo}, {shi}) and [{dlo}, {dhi}))"
            ));
        }
        Ok(())
    }
}

/// What runs a model manifest's launch sequence: the CPU GPU-simulator
/// (`rtile_runtime::sim::model`), and a GPU runtime that binds device pointers
/// `base(buffer) + offset` the same way. [`execute`] drives it, so the order of
/// allocations, uploads, launches and read-backs is one piece of code for every executor.
pub trait Executor {
    type Error;
    /// Allocates `bytes` for `buffer`, holding `init` (inputs, constants) or, without it,
    /// bytes the executor marks unwritten (outputs, the arena).
    fn alloc(&mut self, buffer: Buffer, bytes: u64, init: Option<&[u8]>)
    -> Result<(), Self::Error>;
    /// Runs launch step `index` of the sequence; its arguments point into allocated buffers.
    fn launch(&mut self, index: usize, step: &LaunchStep) -> Result<(), Self::Error>;
    /// Runs copy step `index`: `step.bytes` from one allocated buffer to another (or to
    /// another range of the same, never overlapping: [`ModelManifest::check`]).
    fn copy(&mut self, index: usize, step: &CopyStep) -> Result<(), Self::Error>;
    /// The bytes of `buffer` (outputs, after the last launch).
    fn read(&mut self, buffer: Buffer) -> Result<Vec<u8>, Self::Error>;
}

/// Runs `m` on `exec`: checks it, allocates the inputs (holding `inputs`, little-endian
/// row-major bytes), the outputs, the constants (holding `constants`) and the arena, in
/// that order, runs every step (launch or copy) in order, and returns the outputs' bytes.
pub fn execute<E: Executor>(
    m: &ModelManifest,
    exec: &mut E,
    inputs: &[Vec<u8>],
    constants: &[Vec<u8>],
) -> Result<Vec<Vec<u8>>, ExecuteError<E::Error>> {
    m.check().map_err(ExecuteError::Manifest)?;
    let sized = |what: &str, got: &[Vec<u8>], want: Vec<u64>| {
        if got.len() != want.len() || got.iter().zip(&want).any(|(g, &w)| g.len() as u64 != w) {
            return Err(ExecuteError::Manifest(format!(
                "@{}: {what}: got {:?} bytes, expected {want:?}",
                m.function,
                got.iter().map(Vec::len).collect::<Vec<_>>()
            )));
        }
        Ok(())
    };
    let input_bytes = m.inputs.iter().map(|t| t.bytes().unwrap_or(0)).collect();
    sized("inputs", inputs, input_bytes)?;
    sized(
        "constants",
        constants,
        m.constants.iter().map(|c| c.bytes).collect(),
    )?;
    let run = |r: Result<(), E::Error>| r.map_err(ExecuteError::Executor);
    for (i, data) in inputs.iter().enumerate() {
        run(exec.alloc(Buffer::Input(i), data.len() as u64, Some(data)))?;
    }
    for (i, t) in m.outputs.iter().enumerate() {
        run(exec.alloc(Buffer::Output(i), t.bytes().unwrap_or(0), None))?;
    }
    for (i, data) in constants.iter().enumerate() {
        run(exec.alloc(Buffer::Constant(i), data.len() as u64, Some(data)))?;
    }
    run(exec.alloc(Buffer::Arena, m.arena_bytes, None))?;
    for (k, s) in m.steps.iter().enumerate() {
        run(match s {
            Step::Launch(l) => exec.launch(k, l),
            Step::Copy(c) => exec.copy(k, c),
        })?;
    }
    (0..m.outputs.len())
        .map(|i| exec.read(Buffer::Output(i)).map_err(ExecuteError::Executor))
        .collect()
}

/// Why [`execute`] stopped.
#[derive(Clone, Debug, PartialEq)]
pub enum ExecuteError<E> {
    /// The manifest or the data given is inconsistent.
    Manifest(String),
    /// The executor failed.
    Executor(E),
}

impl ModelManifest {
    /// The constants' bytes from [`ModelManifest::constants_file`], resolved against
    /// `dir` (the manifest's directory), each checked to lie in the file.
    pub fn read_constants(&self, dir: &std::path::Path) -> Result<Vec<Vec<u8>>, String> {
        if self.constants.is_empty() {
            return Ok(Vec::new());
        }
        let name = self
            .constants_file
            .as_ref()
            .ok_or("the manifest has constants but no constants_file")?;
        let path = dir.join(name);
        let data =
            std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        self.constants
            .iter()
            .map(|c| {
                let (lo, hi) = (c.offset as usize, (c.offset + c.bytes) as usize);
                data.get(lo..hi).map(<[u8]>::to_vec).ok_or_else(|| {
                    format!(
                        "{}: constant @{} at bytes [{lo}, {hi}) of a {}-byte file",
                        path.display(),
                        c.name,
                        data.len()
                    )
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arg(buffer: Buffer, offset: u64, shape: &[i64]) -> ArgRef {
        ArgRef {
            buffer,
            offset,
            shape: shape.to_vec(),
            dtype: "f32".into(),
        }
    }

    fn two_steps() -> ModelManifest {
        ModelManifest {
            version: MODEL_VERSION,
            function: "m".into(),
            module: "kernels".into(),
            inputs: vec![TensorSpec {
                shape: vec![4, 8],
                dtype: "f32".into(),
            }],
            outputs: vec![TensorSpec {
                shape: vec![32],
                dtype: "f32".into(),
            }],
            arena_bytes: 256,
            constants: vec![ConstantSpec {
                name: "__constant_w".into(),
                shape: vec![8],
                dtype: "f32".into(),
                offset: 0,
                bytes: 32,
            }],
            constants_file: Some("m.bin".into()),
            steps: vec![
                Step::Launch(LaunchStep {
                    kernel: "m_0".into(),
                    grid: [1, 1, 1],
                    block: [32, 1, 1],
                    dynamic_shared_memory: 0,
                    args: vec![
                        arg(Buffer::Input(0), 0, &[4, 8]),
                        arg(Buffer::Constant(0), 0, &[8]),
                        arg(Buffer::Arena, 0, &[4, 8]),
                    ],
                    tensor_maps: vec![],
                    coresident: None,
                }),
                Step::Launch(LaunchStep {
                    kernel: "m_1".into(),
                    grid: [1, 1, 1],
                    block: [32, 1, 1],
                    dynamic_shared_memory: 0,
                    args: vec![
                        arg(Buffer::Arena, 0, &[32]),
                        arg(Buffer::Output(0), 0, &[32]),
                    ],
                    tensor_maps: vec![],
                    coresident: None,
                }),
            ],
        }
    }

    #[test]
    fn round_trips_and_checks() {
        let m = two_steps();
        let text = m.to_json();
        assert!(text.contains("\"buffer\": \"arena\""), "{text}");
        assert!(text.contains("\"input\": 0"), "{text}");
        assert_eq!(ModelManifest::from_json(&text), Ok(m));
    }

    /// A CPU executor whose every kernel copies its first argument's bytes into its last,
    /// recording the calls: enough to see the sequencing and the buffer binding.
    #[derive(Default)]
    struct Copier {
        bufs: std::collections::HashMap<Buffer, Vec<u8>>,
        log: Vec<String>,
    }

    impl Copier {
        fn move_bytes(&mut self, sb: Buffer, lo: u64, n: u64, db: Buffer, at: u64) -> Res {
            let (lo, n, at) = (lo as usize, n as usize, at as usize);
            let data = self.bufs[&sb][lo..lo + n].to_vec();
            let out = self.bufs.get_mut(&db).ok_or("no buffer")?;
            out[at..at + n].copy_from_slice(&data);
            Ok(())
        }
    }

    type Res = Result<(), String>;

    impl Executor for Copier {
        type Error = String;
        fn alloc(&mut self, b: Buffer, bytes: u64, init: Option<&[u8]>) -> Result<(), String> {
            self.log.push(format!("alloc {b:?} {bytes}"));
            let v = init.map_or_else(|| vec![0xff; bytes as usize], <[u8]>::to_vec);
            self.bufs.insert(b, v);
            Ok(())
        }
        fn launch(&mut self, k: usize, s: &LaunchStep) -> Result<(), String> {
            self.log.push(format!("launch {k} {}", s.kernel));
            let (src, dst) = (&s.args[0], &s.args[s.args.len() - 1]);
            let (lo, hi) = src.range().ok_or("dtype")?;
            self.move_bytes(src.buffer, lo, hi - lo, dst.buffer, dst.offset)
        }
        fn copy(&mut self, k: usize, c: &CopyStep) -> Result<(), String> {
            self.log.push(format!("copy {k} {} bytes", c.bytes));
            let (s, d) = (c.src, c.dst);
            self.move_bytes(s.buffer, s.offset, c.bytes, d.buffer, d.offset)
        }
        fn read(&mut self, b: Buffer) -> Result<Vec<u8>, String> {
            self.log.push(format!("read {b:?}"));
            Ok(self.bufs[&b].clone())
        }
    }

    #[test]
    fn execute_allocates_launches_in_order_and_reads_back() {
        let m = two_steps();
        let input: Vec<u8> = (0..128).collect();
        let mut ex = Copier::default();
        let outs =
            execute(&m, &mut ex, std::slice::from_ref(&input), &[vec![7; 32]]).expect("runs");
        // Step 0 copies the input into the arena, step 1 the arena into the output.
        assert_eq!(outs, vec![input.clone()]);
        assert_eq!(
            ex.log,
            [
                "alloc Input(0) 128",
                "alloc Output(0) 128",
                "alloc Constant(0) 32",
                "alloc Arena 256",
                "launch 0 m_0",
                "launch 1 m_1",
                "read Output(0)"
            ]
        );
        // Data of the wrong size, and an inconsistent manifest, stop before any call.
        let mut ex = Copier::default();
        let e = execute(&m, &mut ex, &[vec![0; 3]], &[vec![7; 32]]).unwrap_err();
        assert!(
            matches!(e, ExecuteError::Manifest(ref s) if s.contains("inputs")),
            "{e:?}"
        );
        let mut bad = two_steps();
        bad.arena_bytes = 64;
        let e = execute(&bad, &mut ex, &[input], &[vec![7; 32]]).unwrap_err();
        assert!(matches!(e, ExecuteError::Manifest(_)), "{e:?}");
        assert!(ex.log.is_empty());
    }

    #[test]
    fn constants_are_read_from_the_file_beside_the_manifest() {
        let dir = std::env::temp_dir().join(format!("rtile-manifest-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("mkdir");
        let mut m = two_steps();
        std::fs::write(dir.join("m.bin"), (0u8..40).collect::<Vec<_>>()).expect("write");
        m.constants[0].offset = 8;
        assert_eq!(m.read_constants(&dir), Ok(vec![(8u8..40).collect()]));
        m.constants[0].offset = 9;
        assert!(
            m.read_constants(&dir)
                .unwrap_err()
                .contains("of a 40-byte file")
        );
        m.constants_file = None;
        assert!(m.read_constants(&dir).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn launch_mut(m: &mut ModelManifest, k: usize) -> &mut LaunchStep {
        match &mut m.steps[k] {
            Step::Launch(l) => l,
            Step::Copy(_) => panic!("step {k} is a copy"),
        }
    }

    #[test]
    fn refuses_what_a_launch_cannot_rely_on() {
        let mut m = two_steps();
        launch_mut(&mut m, 0).args[2].offset = 192; // 192 + 128 bytes > 256
        assert!(m.check().unwrap_err().contains("of a 256-byte buffer"));
        let mut m = two_steps();
        launch_mut(&mut m, 1).args[1] = arg(Buffer::Arena, 0, &[32]); // writes what it reads
        assert!(m.check().unwrap_err().contains("overlaps argument 0"));
        let mut m = two_steps();
        launch_mut(&mut m, 1).args[1] = arg(Buffer::Constant(0), 0, &[8]);
        assert!(
            m.check()
                .unwrap_err()
                .contains("writes an input or a constant")
        );
        let mut m = two_steps();
        m.constants[0].bytes = 31;
        assert!(m.check().unwrap_err().contains("31 bytes"));
        let mut m = two_steps();
        m.version = 7;
        assert!(ModelManifest::from_json(&m.to_json()).is_err());
    }

    /// [`two_steps`] with a second output (the input, copied) and a third (the constant,
    /// copied at an offset of 16 bytes into its 48 bytes), copies before and after the
    /// launches.
    fn with_copies() -> ModelManifest {
        let mut m = two_steps();
        m.outputs.push(TensorSpec {
            shape: vec![4, 8],
            dtype: "f32".into(),
        });
        m.outputs.push(TensorSpec {
            shape: vec![12],
            dtype: "f32".into(),
        });
        let place = |buffer, offset| Place { buffer, offset };
        m.steps.insert(
            0,
            Step::Copy(CopyStep {
                src: place(Buffer::Input(0), 0),
                dst: place(Buffer::Output(1), 0),
                bytes: 128,
            }),
        );
        m.steps.push(Step::Copy(CopyStep {
            src: place(Buffer::Constant(0), 0),
            dst: place(Buffer::Output(2), 16),
            bytes: 32,
        }));
        m
    }

    #[test]
    fn copy_steps_round_trip_and_run_in_order() {
        let m = with_copies();
        let text = m.to_json();
        assert!(text.contains("\"copy\": {"), "{text}");
        assert!(text.contains("\"output\": 2"), "{text}");
        assert_eq!(ModelManifest::from_json(&text), Ok(m.clone()));
        assert_eq!(m.launches().map(|(k, _)| k).collect::<Vec<_>>(), [1, 2]);
        let input: Vec<u8> = (0..128).collect();
        let mut ex = Copier::default();
        let outs =
            execute(&m, &mut ex, std::slice::from_ref(&input), &[vec![7; 32]]).expect("runs");
        assert_eq!(outs[0], input);
        assert_eq!(outs[1], input);
        let mut third = vec![0xff; 16];
        third.extend([7; 32]);
        assert_eq!(outs[2], third);
        assert_eq!(
            ex.log[6..10],
            [
                "copy 0 128 bytes",
                "launch 1 m_0",
                "launch 2 m_1",
                "copy 3 32 bytes"
            ]
        );
        // A copy object with a launch's field, or a launch missing its kernel, is refused
        // with its own message.
        let bad = text.replacen("\"bytes\": 128", "\"bytes\": 128, \"kernel\": \"k\"", 1);
        let e = ModelManifest::from_json(&bad).unwrap_err();
        assert!(e.contains("unknown field `kernel`"), "{e}");
        let bad = text.replacen("\"kernel\": \"m_0\",", "", 1);
        let e = ModelManifest::from_json(&bad).unwrap_err();
        assert!(e.contains("missing field `kernel`"), "{e}");
    }

    fn copy_mut(m: &mut ModelManifest, k: usize) -> &mut CopyStep {
        match &mut m.steps[k] {
            Step::Copy(c) => c,
            Step::Launch(_) => panic!("step {k} is a launch"),
        }
    }

    #[test]
    fn refuses_copies_out_of_bounds_into_inputs_or_onto_themselves() {
        assert_eq!(with_copies().check(), Ok(()));
        let mut m = with_copies();
        copy_mut(&mut m, 3).dst.offset = 20; // 20 + 32 > 48
        let e = m.check().unwrap_err();
        assert!(
            e.contains("step 3 (copy): its destination covers bytes [20, 52) of a 48-byte"),
            "{e}"
        );
        let mut m = with_copies();
        copy_mut(&mut m, 0).src.offset = 1;
        assert!(
            m.check()
                .unwrap_err()
                .contains("its source covers bytes [1, 129)")
        );
        let mut m = with_copies();
        copy_mut(&mut m, 0).bytes = u64::MAX; // no overflow
        assert!(m.check().unwrap_err().contains("of a 128-byte buffer"));
        let mut m = with_copies();
        copy_mut(&mut m, 0).dst = Place {
            buffer: Buffer::Constant(0),
            offset: 0,
        };
        copy_mut(&mut m, 0).bytes = 32;
        assert!(
            m.check()
                .unwrap_err()
                .contains("writes an input or a constant")
        );
        let mut m = with_copies();
        copy_mut(&mut m, 0).dst = Place {
            buffer: Buffer::Input(0),
            offset: 0,
        };
        assert!(
            m.check()
                .unwrap_err()
                .contains("writes an input or a constant")
        );
        let mut m = with_copies();
        copy_mut(&mut m, 0).src = Place {
            buffer: Buffer::Output(1),
            offset: 64,
        };
        copy_mut(&mut m, 0).bytes = 64;
        assert!(m.check().is_ok());
        copy_mut(&mut m, 0).dst.offset = 32;
        assert!(
            m.check()
                .unwrap_err()
                .contains("its destination overlaps its source")
        );
        let mut m = with_copies();
        copy_mut(&mut m, 0).src.buffer = Buffer::Input(5);
        assert!(
            m.check()
                .unwrap_err()
                .contains("its source names a missing buffer")
        );
    }
}
