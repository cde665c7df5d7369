//! The MLIR side (melior, MLIR 22): a context with every upstream dialect and pass, rtile
//! passes wrapped as MLIR external passes, and mixed pipelines.
//!
//! An rtile pass inside an MLIR `PassManager` works on text: the module is printed in the
//! generic form, parsed into an rtile `Context`, transformed, printed in the generic form,
//! parsed back by MLIR, and its body replaces the original module's body. MLIR's own
//! verifier then runs after the pass, as after any pass.

use melior::Context;
use melior::ContextRef;
use melior::dialect::DialectRegistry;
use melior::ir::operation::{OperationLike, OperationPrintingFlags};
use melior::ir::r#type::TypeId;
use melior::ir::{Module, OperationRef};
use melior::pass::{ExternalPass, PassManager, RunExternalPass, create_external};
use melior::utility::{register_all_dialects, register_all_passes};

/// A context that knows every upstream dialect and pass, and accepts unregistered ops
/// (te, rtile attributes) as opaque ones.
pub fn new_context() -> Context {
    let registry = DialectRegistry::new();
    register_all_dialects(&registry);
    let context = Context::new();
    context.append_dialect_registry(&registry);
    context.load_all_available_dialects();
    context.set_allow_unregistered_dialects(true);
    register_all_passes();
    context
}

/// What an external rtile pass does to the module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bridged {
    /// `rtile-import-linalg`: linalg.generic → te.compute ([`crate::import`]).
    ImportLinalg,
    /// `rtile-export-linalg`: te.compute with a program → linalg.generic with
    /// `lowering_config` ([`crate::export`]).
    ExportLinalg,
    /// Any rtile pass: the rtile pipeline text to run (`builtin.module(construct-rtile{device=h100})`).
    Rtile(String),
}

/// The MLIR pipeline element names of rtile passes and the rtile pass each one runs.
pub const RTILE_PASSES: &[(&str, &str)] = &[
    ("rtile-construct", "construct-rtile"),
    ("rtile-select", "rtile-select"),
    ("rtile-axis-fusion", "axis-fusion"),
    ("rtile-tensor-padding", "tensor-padding"),
    ("rtile-fold-reshapes", "fold-reshapes"),
    ("rtile-connect", "connect"),
    ("rtile-wavefront-pack", "wavefront-pack"),
    ("rtile-autoschedule-beam", "autoschedule-beam"),
    ("rtile-lower-to-gpu", "lower-to-gpu"),
];

/// The bridged pass a pipeline element names (`rtile-construct{device=h100}`), if any.
pub fn bridged_pass(name: &str, options: &str) -> Option<Bridged> {
    if name == "rtile-import-linalg" {
        return Some(Bridged::ImportLinalg);
    }
    if name == "rtile-export-linalg" {
        return Some(Bridged::ExportLinalg);
    }
    let (_, rtile) = RTILE_PASSES.iter().find(|(m, _)| *m == name)?;
    let opts = if options.is_empty() {
        String::new()
    } else {
        format!("{{{options}}}")
    };
    Some(Bridged::Rtile(format!("builtin.module({rtile}{opts})")))
}

#[repr(align(8))]
struct PassIdTag;
static BRIDGE_PASS_ID: PassIdTag = PassIdTag;

/// An rtile pass run by MLIR's pass manager on a `builtin.module`.
#[derive(Clone, Debug)]
pub struct BridgePass {
    pub what: Bridged,
}

impl<'c> RunExternalPass<'c> for BridgePass {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, operation: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        if let Err(e) = self.apply(operation) {
            eprintln!("error: {e}");
            pass.signal_failure();
        }
    }
}

impl BridgePass {
    fn apply(&self, operation: OperationRef<'_, '_>) -> Result<(), String> {
        let text = operation
            .to_string_with_flags(
                OperationPrintingFlags::new()
                    .print_generic_operation_form()
                    .enable_debug_info(true, false),
            )
            .map_err(|e| format!("printing the module for rtile: {e}"))?;
        let out = match &self.what {
            Bridged::ImportLinalg => {
                // A module rtile cannot read (an upstream op it does not know in a dialect
                // it does) is left as it is: the import is best effort, never a failure.
                let (out, report) = match crate::import_text("<mlir>", &text, true) {
                    Ok(r) => r,
                    Err(e) => {
                        eprintln!("remark: module left unchanged by rtile-import-linalg: {e}");
                        return Ok(());
                    }
                };
                for r in &report.remarks {
                    eprintln!("{r}");
                }
                out
            }
            Bridged::ExportLinalg => {
                let (out, report) = crate::export_text("<mlir>", &text)?;
                for r in &report.remarks {
                    eprintln!("{r}");
                }
                out
            }
            Bridged::Rtile(p) => crate::run_rtile_pipeline("<mlir>", &text, p)?,
        };
        // SAFETY: the pass manager hands this pass the module it runs on, for this call
        // only; nothing else touches it meanwhile. The replacement module lives in the
        // same context, and its ops are moved (not copied) before it is dropped.
        unsafe { replace_module_body(operation, &out) }
    }
}

/// Replaces the body and the attributes of `module` by those of the module in `text`.
///
/// # Safety
/// `module` must be a `builtin.module` that the caller may mutate.
unsafe fn replace_module_body(module: OperationRef<'_, '_>, text: &str) -> Result<(), String> {
    use mlir_sys::*;
    let ctx_ref = module.context();
    // SAFETY: the context outlives this call (it owns `module`).
    let context: &Context = unsafe { ctx_ref.to_ref() };
    let new = Module::parse(context, text)
        .ok_or("MLIR could not parse the module rtile printed (see the diagnostics above)")?;
    let raw = module.to_raw();
    let new_raw = new.as_operation().to_raw();
    // SAFETY: raw handles of live ops of one context; every op is either erased or
    // moved exactly once.
    unsafe {
        let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(raw, 0));
        let new_block = mlirRegionGetFirstBlock(mlirOperationGetRegion(new_raw, 0));
        if block.ptr.is_null() || new_block.ptr.is_null() {
            return Err("a module without a body".into());
        }
        let mut op = mlirBlockGetFirstOperation(block);
        while !op.ptr.is_null() {
            let next = mlirOperationGetNextInBlock(op);
            mlirOperationDestroy(op);
            op = next;
        }
        let mut op = mlirBlockGetFirstOperation(new_block);
        while !op.ptr.is_null() {
            let next = mlirOperationGetNextInBlock(op);
            mlirOperationRemoveFromParent(op);
            mlirBlockAppendOwnedOperation(block, op);
            op = next;
        }
        for i in 0..mlirOperationGetNumAttributes(new_raw) {
            let na = mlirOperationGetAttribute(new_raw, i);
            mlirOperationSetAttributeByName(raw, mlirIdentifierStr(na.name), na.attribute);
        }
    }
    Ok(())
}

unsafe extern "C" fn collect_message(s: mlir_sys::MlirStringRef, data: *mut std::ffi::c_void) {
    // SAFETY: `data` is the `String` handed over by `add_pipeline`; `s` is valid for this call.
    unsafe {
        let out = &mut *(data as *mut String);
        let bytes = std::slice::from_raw_parts(s.data as *const u8, s.length);
        out.push_str(&String::from_utf8_lossy(bytes));
    }
}

/// Appends upstream pipeline elements (`linalg-generalize-named-ops,canonicalize`) to
/// `pm` (melior's `parse_pass_pipeline` replaces the whole pipeline instead).
fn add_pipeline(pm: &PassManager<'_>, elements: &str) -> Result<(), String> {
    let mut message = String::new();
    // SAFETY: a live pass manager; the callback writes only into `message`.
    let ok = unsafe {
        let r = mlir_sys::mlirOpPassManagerAddPipeline(
            pm.as_operation_pass_manager().to_raw(),
            mlir_sys::MlirStringRef {
                data: elements.as_ptr() as *const _,
                length: elements.len(),
            },
            Some(collect_message),
            &mut message as *mut String as *mut std::ffi::c_void,
        );
        r.value != 0
    };
    if ok {
        Ok(())
    } else {
        Err(format!("in `{elements}`: {message}"))
    }
}

/// Splits `a, b{x=1, y}, c(d, e)` at top-level commas.
fn split_top(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for ch in s.chars() {
        match ch {
            '(' | '{' | '[' => depth += 1,
            ')' | '}' | ']' => depth -= 1,
            _ => {}
        }
        if ch == ',' && depth == 0 {
            out.push(cur.trim().to_string());
            cur.clear();
        } else {
            cur.push(ch);
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// Builds a pass manager for a mixed pipeline: upstream pass elements are parsed by MLIR,
/// elements naming rtile passes (`rtile-import-linalg`, `rtile-construct{device=h100}`,
/// see [`RTILE_PASSES`]) become external passes. Before the first te-level rtile pass,
/// unless an `rtile-import-linalg`/`rtile-export-linalg` came earlier,
/// `linalg-generalize-named-ops,rtile-import-linalg` is inserted, so that rtile passes run
/// on linalg input directly. The text is either
/// `builtin.module(e1, e2, ...)` or the bare element list.
pub fn build_pass_manager<'c>(
    context: &'c Context,
    pipeline: &str,
) -> Result<PassManager<'c>, String> {
    let p = pipeline.trim();
    let inner = match p.strip_prefix("builtin.module(") {
        Some(rest) => rest
            .strip_suffix(')')
            .ok_or("unbalanced parentheses in the pipeline")?,
        None => p,
    };
    let pm = PassManager::new(context);
    let mut upstream: Vec<String> = Vec::new();
    let mut imported = false;
    let flush = |upstream: &mut Vec<String>, pm: &PassManager<'c>| -> Result<(), String> {
        if upstream.is_empty() {
            return Ok(());
        }
        let text = upstream.join(",");
        upstream.clear();
        add_pipeline(pm, &text)
    };
    for el in split_top(inner) {
        let (name, options) = match el.split_once('{') {
            Some((n, rest)) => (
                n.trim(),
                rest.strip_suffix('}')
                    .ok_or_else(|| format!("unbalanced braces in `{el}`"))?
                    .trim(),
            ),
            None => (el.as_str(), ""),
        };
        match bridged_pass(name, options) {
            Some(what) => {
                flush(&mut upstream, &pm)?;
                // te-level rtile passes on a module of linalg ops: import first, unless the
                // pipeline already did (`builtin.module(rtile-construct{device=h100})` works
                // on linalg input as it is).
                if matches!(what, Bridged::Rtile(_)) && !imported {
                    add_pipeline(&pm, "linalg-generalize-named-ops")?;
                    pm.add_pass(create_external(
                        BridgePass {
                            what: Bridged::ImportLinalg,
                        },
                        TypeId::create(&BRIDGE_PASS_ID),
                        "rtile-import-linalg",
                        "rtile-import-linalg",
                        "linalg.generic -> te.compute",
                        "builtin.module",
                        &[],
                    ));
                }
                imported = true;
                pm.add_pass(create_external(
                    BridgePass { what },
                    TypeId::create(&BRIDGE_PASS_ID),
                    name,
                    name,
                    "an rtile pass run on the module through rtile's IR",
                    "builtin.module",
                    &[],
                ));
            }
            None if name.starts_with("rtile-") => {
                return Err(format!(
                    "unknown rtile pass `{name}` (known: rtile-import-linalg, rtile-export-linalg{})",
                    RTILE_PASSES
                        .iter()
                        .map(|(m, _)| format!(", {m}"))
                        .collect::<String>()
                ));
            }
            None => upstream.push(el.clone()),
        }
    }
    flush(&mut upstream, &pm)?;
    Ok(pm)
}

/// Parses `text`, runs the mixed `pipeline`, verifies with MLIR's verifier, and prints
/// (`generic`: MLIR's generic form).
pub fn run_pipeline(text: &str, pipeline: &str, generic: bool) -> Result<String, String> {
    run_pipeline_on(None, text, pipeline, generic)
}

/// [`run_pipeline`] on the file `path` (diagnostics and remarks then name the file).
pub fn run_pipeline_file(path: &str, pipeline: &str, generic: bool) -> Result<String, String> {
    run_pipeline_on(Some(path), "", pipeline, generic)
}

fn run_pipeline_on(
    path: Option<&str>,
    text: &str,
    pipeline: &str,
    generic: bool,
) -> Result<String, String> {
    let context = new_context();
    let parsed = match path {
        // SAFETY: a live context; the returned module (or null) is owned by the caller.
        Some(p) => unsafe {
            Module::from_option_raw(mlir_sys::mlirModuleCreateParseFromFile(
                context.to_raw(),
                mlir_sys::MlirStringRef {
                    data: p.as_ptr() as *const _,
                    length: p.len(),
                },
            ))
        },
        None => Module::parse(&context, text),
    };
    let mut module = parsed.ok_or("MLIR could not parse the input")?;
    if !module.as_operation().verify() {
        return Err("the input does not verify".into());
    }
    let pm = build_pass_manager(&context, pipeline)?;
    pm.run(&mut module)
        .map_err(|e| format!("the pipeline failed: {e}"))?;
    if !module.as_operation().verify() {
        return Err("the result does not verify".into());
    }
    let flags = if generic {
        OperationPrintingFlags::new().print_generic_operation_form()
    } else {
        OperationPrintingFlags::new()
    };
    module
        .as_operation()
        .to_string_with_flags(flags)
        .map_err(|e| format!("printing: {e}"))
}

/// Upstream's own lowering of linalg on the host: bufferize, linalg → loops, → LLVM.
pub const HOST_LOWERING: &str = "builtin.module(one-shot-bufferize{bufferize-function-boundaries},\
func.func(convert-linalg-to-loops),lower-affine,convert-scf-to-cf,expand-strided-metadata,\
finalize-memref-to-llvm,convert-math-to-llvm,convert-arith-to-llvm,convert-func-to-llvm,\
convert-cf-to-llvm,reconcile-unrealized-casts)";

/// MLIR's `UnrankedMemRefType`: a rank and a pointer to a ranked descriptor
/// `{base, data, offset, sizes[rank], strides[rank]}`.
#[repr(C)]
struct Unranked {
    rank: i64,
    descriptor: *mut i64,
}

/// MLIR's runtime `memrefCopy` (CRunnerUtils), which bufferized `tensor.pad` calls. The
/// shared library that has it links its own libLLVM, so the bridge provides it instead of
/// loading a second LLVM into the process.
unsafe extern "C" fn memref_copy(elem_size: i64, src: *mut Unranked, dst: *mut Unranked) {
    // SAFETY: MLIR passes two valid descriptors of the same rank and shape.
    unsafe {
        let (s, d) = (&*src, &*dst);
        let rank = s.rank.max(0) as usize;
        let sd = s.descriptor;
        let dd = d.descriptor;
        let s_data = *(sd.add(1)) as *const u8;
        let d_data = *(dd.add(1)) as *mut u8;
        let s_off = *sd.add(2);
        let d_off = *dd.add(2);
        let sizes: Vec<i64> = (0..rank).map(|i| *sd.add(3 + i)).collect();
        let s_str: Vec<i64> = (0..rank).map(|i| *sd.add(3 + rank + i)).collect();
        let d_str: Vec<i64> = (0..rank).map(|i| *dd.add(3 + rank + i)).collect();
        let total: i64 = sizes.iter().product();
        let es = elem_size as usize;
        let mut idx = vec![0i64; rank];
        for _ in 0..total.max(0) {
            let so = s_off + idx.iter().zip(&s_str).map(|(i, st)| i * st).sum::<i64>();
            let dof = d_off + idx.iter().zip(&d_str).map(|(i, st)| i * st).sum::<i64>();
            std::ptr::copy_nonoverlapping(
                s_data.add(so as usize * es),
                d_data.add(dof as usize * es),
                es,
            );
            for k in (0..rank).rev() {
                idx[k] += 1;
                if idx[k] < sizes[k] {
                    break;
                }
                idx[k] = 0;
            }
        }
    }
}

/// A static f32 tensor for [`execute_on_host`].
#[derive(Clone, Debug, PartialEq)]
pub struct HostTensor {
    pub shape: Vec<i64>,
    /// Row-major.
    pub data: Vec<f32>,
}

fn tensor_type(shape: &[i64]) -> String {
    let mut s = String::from("tensor<");
    for d in shape {
        s.push_str(&format!("{d}x"));
    }
    s.push_str("f32>");
    s
}

fn dense_literal(shape: &[i64], data: &[f32]) -> String {
    match shape.split_first() {
        None => format!("{:e}", data.first().copied().unwrap_or(0.0) as f64),
        Some((&n, rest)) => {
            let inner: i64 = rest.iter().product();
            let parts: Vec<String> = (0..n as usize)
                .map(|i| {
                    let lo = i * inner as usize;
                    dense_literal(rest, data.get(lo..lo + inner as usize).unwrap_or(&[]))
                })
                .collect();
            format!("[{}]", parts.join(", "))
        }
    }
}

/// The memref descriptor of a rank-1 `memref<Nxf32>` (MLIR's C interface).
#[repr(C)]
struct MemRef1 {
    allocated: *mut f32,
    aligned: *mut f32,
    offset: i64,
    size: i64,
    stride: i64,
}

/// Runs `func_name` of `module_text` (a function on f32 tensors returning one tensor) on
/// `inputs` with MLIR's own lowering ([`HOST_LOWERING`]) and melior's ExecutionEngine.
/// The inputs are embedded as dense constants; the result comes back row-major.
pub fn execute_on_host(
    module_text: &str,
    func_name: &str,
    inputs: &[HostTensor],
    result_shape: &[i64],
) -> Result<Vec<f32>, String> {
    let n: i64 = result_shape.iter().product();
    let mut main = format!(
        "func.func @rtile_host_main(%out: memref<{n}xf32>) attributes {{llvm.emit_c_interface}} {{\n"
    );
    let mut args = Vec::new();
    for (i, t) in inputs.iter().enumerate() {
        let ty = tensor_type(&t.shape);
        main.push_str(&format!(
            "  %in{i} = arith.constant dense<{}> : {ty}\n",
            dense_literal(&t.shape, &t.data)
        ));
        args.push((format!("%in{i}"), ty));
    }
    let rty = tensor_type(result_shape);
    main.push_str(&format!(
        "  %r = func.call @{func_name}({}) : ({}) -> {rty}\n",
        args.iter()
            .map(|a| a.0.clone())
            .collect::<Vec<_>>()
            .join(", "),
        args.iter()
            .map(|a| a.1.clone())
            .collect::<Vec<_>>()
            .join(", ")
    ));
    let flat = if result_shape.len() == 1 {
        "%r".to_string()
    } else {
        let dims: Vec<String> = (0..result_shape.len()).map(|d| d.to_string()).collect();
        main.push_str(&format!(
            "  %flat = tensor.collapse_shape %r [[{}]] : {rty} into tensor<{n}xf32>\n",
            dims.join(", ")
        ));
        "%flat".to_string()
    };
    main.push_str(&format!(
        "  bufferization.materialize_in_destination {flat} in restrict writable %out : \
         (tensor<{n}xf32>, memref<{n}xf32>) -> ()\n  return\n}}\n"
    ));
    // The user module (any form MLIR parses) plus the driver's function.
    let context = new_context();
    let mut module =
        Module::parse(&context, module_text).ok_or("MLIR could not parse the module")?;
    // The driver parses on its own against a declaration of the function, which stays
    // behind when the driver function moves into the user module.
    let decl = format!(
        "func.func private @{func_name}({}) -> {rty}\n",
        args.iter()
            .map(|a| a.1.clone())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let driver = Module::parse(&context, &format!("{decl}{main}"))
        .ok_or("MLIR could not parse the host driver")?;
    // SAFETY: both modules are live in `context`; each driver op is moved exactly once.
    unsafe {
        use mlir_sys::*;
        let block =
            mlirRegionGetFirstBlock(mlirOperationGetRegion(module.as_operation().to_raw(), 0));
        let from =
            mlirRegionGetFirstBlock(mlirOperationGetRegion(driver.as_operation().to_raw(), 0));
        let mut op = mlirOperationGetNextInBlock(mlirBlockGetFirstOperation(from));
        while !op.ptr.is_null() {
            let next = mlirOperationGetNextInBlock(op);
            mlirOperationRemoveFromParent(op);
            mlirBlockAppendOwnedOperation(block, op);
            op = next;
        }
    }
    let pm = build_pass_manager(&context, HOST_LOWERING)?;
    pm.run(&mut module)
        .map_err(|e| format!("host lowering failed: {e}"))?;
    // An op left unlowered makes the engine's creation fail (a null engine), so refuse here.
    let lowered = module.as_operation().to_string();
    if lowered.contains("unrealized_conversion_cast") {
        return Err("the host lowering left unrealized conversion casts".into());
    }
    let engine = melior::ExecutionEngine::new(&module, 2, &[], false, false);
    // SAFETY: `memref_copy` has the C signature of MLIR's runtime `memrefCopy`.
    unsafe {
        engine.register_symbol("memrefCopy", memref_copy as *mut ());
    }
    let mut out = vec![0f32; n as usize];
    let mut desc = MemRef1 {
        allocated: out.as_mut_ptr(),
        aligned: out.as_mut_ptr(),
        offset: 0,
        size: n,
        stride: 1,
    };
    let mut desc_ptr: *mut MemRef1 = &mut desc;
    // SAFETY: `_mlir_ciface_rtile_host_main` takes one pointer to a rank-1 descriptor of
    // `n` f32s, which `out` provides for the whole call.
    unsafe {
        engine
            .invoke_packed(
                "rtile_host_main",
                &mut [&mut desc_ptr as *mut *mut MemRef1 as *mut ()],
            )
            .map_err(|e| format!("invoking the host function: {e}"))?;
    }
    Ok(out)
}
