//! Pipeline parsing, options, nesting and instrumentation.

use std::cell::RefCell;
use std::io::Write;
use std::sync::{Arc, Mutex};

use super::*;
use crate::ir::{OperationState, Span};

thread_local! {
    /// `pass@op-name#k` for each pass run, in order (tests run passes on one thread).
    static LOG: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

fn log(s: String) {
    LOG.with(|l| l.borrow_mut().push(s));
}
fn take_log() -> Vec<String> {
    LOG.with(|l| std::mem::take(&mut *l.borrow_mut()))
}

static ANY_OPTIONS: &[PassOptionSpec] = &[
    PassOptionSpec {
        name: "flag",
        kind: OptionKind::Bool,
        default: "false",
        description: "a flag",
    },
    PassOptionSpec {
        name: "count",
        kind: OptionKind::Int,
        default: "1",
        description: "a count",
    },
    PassOptionSpec {
        name: "ratio",
        kind: OptionKind::Float,
        default: "0.5",
        description: "a ratio",
    },
    PassOptionSpec {
        name: "label",
        kind: OptionKind::String,
        default: "",
        description: "a label",
    },
    PassOptionSpec {
        name: "sizes",
        kind: OptionKind::IntList,
        default: "",
        description: "sizes",
    },
    PassOptionSpec {
        name: "names",
        kind: OptionKind::StringList,
        default: "a,b",
        description: "names",
    },
];

/// Runs on any op; logs itself and its options.
#[derive(Default)]
struct AnyPass {
    opts: AnyOptions,
}

crate::declare_pass! {
    pass AnyPass {
        flag: "test-any",
        display_name: "TestAny",
        summary: "test pass on any op",
        description: "",
        options(opts: AnyOptions) {
            /// a flag
            flag: bool = "false", "flag";
            /// a count
            count: i64 = "1", "count";
            /// a ratio
            ratio: f64 = "0.5", "ratio";
            /// a label
            label: String = "", "label";
            /// sizes
            sizes: Vec<i64> = "", "sizes";
            /// names
            names: Vec<String> = "a,b", "names";
        }
        statistics {
            NUM_RUNS: "num-runs", "Number of runs";
            NUM_OPS_SEEN: "num-ops-seen-total", "Ops seen";
        }
    }
}

impl Pass for AnyPass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: OpId,
        stats: &mut PassStatistics,
    ) -> Result<(), Diagnostic> {
        log(format!("test-any@{}#{}", ctx.op_name(op), self.opts.count));
        stats.add(Self::NUM_RUNS, 1);
        stats.add(Self::NUM_OPS_SEEN, ctx.collect_ops(op).len() as u64);
        Ok(())
    }
}

/// Anchored on `func.func`.
struct FuncPass;

crate::declare_pass! {
    pass FuncPass {
        flag: "test-func",
        display_name: "test-func",
        summary: "test pass on func.func",
        description: "",
        anchor: "func.func",
    }
}

impl Pass for FuncPass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: OpId,
        _: &mut PassStatistics,
    ) -> Result<(), Diagnostic> {
        let name = ctx
            .attr(op, "sym_name")
            .and_then(|a| a.as_str())
            .unwrap_or("?")
            .to_string();
        log(format!("test-func@{name}"));
        Ok(())
    }
}

/// Fails with a diagnostic.
struct FailPass;

crate::declare_pass! {
    pass FailPass {
        flag: "test-fail",
        display_name: "test-fail",
        summary: "always fails",
        description: "",
    }
}

impl Pass for FailPass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: OpId,
        _: &mut PassStatistics,
    ) -> Result<(), Diagnostic> {
        Err(Diagnostic::op_error(ctx, op, "test-fail failed"))
    }
}

/// Breaks the IR: gives the module region a second block (single-block violation).
struct BreakPass;

crate::declare_pass! {
    pass BreakPass {
        flag: "test-break",
        display_name: "test-break",
        summary: "breaks the IR",
        description: "",
    }
}

impl Pass for BreakPass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: OpId,
        _: &mut PassStatistics,
    ) -> Result<(), Diagnostic> {
        let r = ctx.regions(op)[0];
        let b = ctx.create_block(vec![]);
        ctx.append_block(r, b);
        Ok(())
    }
}

fn registry() -> PassRegistry {
    let mut r = PassRegistry::new();
    r.register(|| Box::new(AnyPass::default()));
    r.register(|| Box::new(FuncPass));
    r.register(|| Box::new(FailPass));
    r.register(|| Box::new(BreakPass));
    r.register_pipeline(
        "test-pipeline",
        "a named pipeline",
        "func.func(test-func),test-any{count=7}",
    );
    r
}

/// module { func @a, func @b, module { func @c } }
fn module(ctx: &mut Context) -> OpId {
    fn container(
        ctx: &mut Context,
        name: &str,
        parent: Option<crate::ir::BlockId>,
    ) -> (OpId, crate::ir::BlockId) {
        let o = ctx.create_op(OperationState::new(name));
        let r = ctx.add_region(o);
        let b = ctx.create_block(vec![]);
        ctx.append_block(r, b);
        if let Some(p) = parent {
            ctx.append_op(p, o);
        }
        (o, b)
    }
    let (m, mb) = container(ctx, "builtin.module", None);
    for n in ["a", "b"] {
        let (f, _) = container(ctx, "func.func", Some(mb));
        ctx.set_attr(f, "sym_name", crate::ir::Attribute::string(n));
    }
    let (_inner, ib) = container(ctx, "builtin.module", Some(mb));
    let (f, _) = container(ctx, "func.func", Some(ib));
    ctx.set_attr(f, "sym_name", crate::ir::Attribute::string("c"));
    m
}

/// The text a diagnostic's span covers.
fn spanned(ctx: &Context, span: Option<Span>) -> String {
    let s = span.expect("diagnostic has a span");
    ctx.sources[s.file as usize].text[s.start as usize..s.end as usize].to_string()
}

fn parse_err(text: &str) -> (String, String) {
    let mut ctx = Context::default();
    match parse_pass_pipeline(&mut ctx, &registry(), text) {
        Ok(pm) => panic!("{text} parsed as {pm}"),
        Err(d) => {
            let sp = d.span.map(|_| spanned(&ctx, d.span)).unwrap_or_default();
            if let Some(s) = d.span {
                assert_eq!(
                    ctx.sources[s.file as usize].name,
                    "MLIR Textual PassPipeline Parser"
                );
            }
            (d.message, sp)
        }
    }
}

#[derive(Clone, Default)]
struct SharedBuf(Arc<Mutex<Vec<u8>>>);

impl Write for SharedBuf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .map_err(|_| std::io::Error::other("poisoned"))?
            .extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl SharedBuf {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().map(|v| v.clone()).unwrap_or_default()).unwrap_or_default()
    }
}

#[test]
fn parses_nested_pipeline_and_prints_it_back() {
    let mut ctx = Context::default();
    let text = " builtin.module( func.func(test-func, test-any{count=3 flag}) , test-any,builtin.module(func.func(test-func)))";
    let pm = parse_pass_pipeline(&mut ctx, &registry(), text).unwrap();
    assert_eq!(
        pm.to_string(),
        "builtin.module(func.func(test-func,test-any{count=3 flag}),test-any,builtin.module(func.func(test-func)))"
    );
    let empty = parse_pass_pipeline(&mut ctx, &registry(), "builtin.module()").unwrap();
    assert!(empty.is_empty());
}

#[test]
fn named_pipelines_expand() {
    let mut ctx = Context::default();
    let pm = parse_pass_pipeline(&mut ctx, &registry(), "builtin.module(test-pipeline)").unwrap();
    assert_eq!(
        pm.to_string(),
        "builtin.module(func.func(test-func),test-any{count=7})"
    );
}

#[test]
fn bad_pipelines_report_message_and_span() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "builtin.module(foo)",
            "'foo' does not refer to a registered pass or pass pipeline",
            "foo",
        ),
        (
            "builtin.module(test-any,)",
            "'' does not refer to a registered pass or pass pipeline",
            ")",
        ),
        (
            "builtin.module(test-any{bar=1})",
            "no such option 'bar' for pass 'test-any'",
            "bar",
        ),
        (
            "builtin.module(test-any{flag=maybe})",
            "invalid value for option 'flag' of pass 'test-any': 'maybe' is invalid value for boolean argument! Try 0 or 1",
            "maybe",
        ),
        (
            "builtin.module(test-any{count=x1})",
            "invalid value for option 'count' of pass 'test-any': 'x1' value invalid for integer argument!",
            "x1",
        ),
        (
            "builtin.module(test-any{sizes=1,b,3})",
            "invalid value for option 'sizes' of pass 'test-any': 'b' value invalid for integer argument!",
            "1,b,3",
        ),
        (
            "builtin.module(test-any{count})",
            "option 'count' of pass 'test-any' requires a value",
            "count",
        ),
        (
            "builtin.module(func.func(test-func)",
            "encountered unbalanced parentheses while parsing pipeline",
            "(",
        ),
        (
            "builtin.module(test-any))",
            "encountered extra closing ')' creating unbalanced parentheses while parsing pipeline",
            ")",
        ),
        (
            "builtin.module(test-any{count=1)",
            "missing closing '}' while processing pass options",
            "{",
        ),
        (
            "test-any",
            "expected pass pipeline to be wrapped with the anchor operation type, e.g. 'builtin.module(...)'",
            "test-any",
        ),
        (
            "builtin.module(test-func)",
            "can't add pass 'test-func' restricted to 'func.func' on a PassManager intended to run on 'builtin.module', did you intend to nest?",
            "test-func",
        ),
        (
            "builtin.module(test-any{label=\"abc})",
            "missing closing '}' while processing pass options",
            "{",
        ),
        (
            "builtin.module(test-any{=1})",
            "expected an option name before '='",
            "=",
        ),
    ];
    for (text, msg, span) in cases {
        let (m, s) = parse_err(text);
        assert_eq!((m.as_str(), s.as_str()), (*msg, *span), "pipeline {text}");
    }
}

#[test]
fn typed_options_parse() {
    let mut ctx = Context::default();
    let pm = parse_pass_pipeline(
        &mut ctx,
        &registry(),
        "builtin.module(test-any{flag count=-4 ratio=2.5 label=\"hello world\" sizes=1,2,3 names={x, 'y z'}})",
    )
    .unwrap();
    assert_eq!(pm.len(), 1);
    let mut o = PassOptions::new(ANY_OPTIONS);
    assert!(!o.get_bool("flag"));
    assert_eq!(o.get_int("count"), 1);
    assert_eq!(o.get_float("ratio"), 0.5);
    assert_eq!(o.get_string_list("names"), ["a", "b"]);
    for e in parse_option_string(
        "flag count=-4 ratio=2.5 label=\"hello world\" sizes=1,2,3 names={x, 'y z'}",
    )
    .unwrap()
    {
        o.set(&e.key, e.value.as_deref().unwrap_or("true")).unwrap();
    }
    assert!(o.get_bool("flag"));
    assert_eq!(o.get_int("count"), -4);
    assert_eq!(o.get_float("ratio"), 2.5);
    assert_eq!(o.get_str("label"), "hello world");
    assert_eq!(o.get_int_list("sizes"), [1, 2, 3]);
    assert_eq!(o.get_string_list("names"), ["x", "y z"]);
    assert_eq!(
        o.to_string(),
        "flag=true count=-4 ratio=2.5 label=\"hello world\" sizes=1,2,3 names=x,\"y z\""
    );
    assert_eq!(o.set("nope", "1"), Err("no such option nope".to_string()));
}

#[test]
fn flag_form_nests_anchored_passes() {
    let mut ctx = Context::default();
    let flags: Vec<(String, String)> = [
        ("test-any", "count=2"),
        ("test-func", ""),
        ("test-func", ""),
        ("test-any", ""),
        ("test-func", ""),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    let pm = pipeline_from_flags(&mut ctx, &registry(), "builtin.module", &flags).unwrap();
    assert_eq!(
        pm.to_string(),
        "builtin.module(test-any{count=2},func.func(test-func,test-func),test-any,func.func(test-func))"
    );
    let bad = vec![("test-any".to_string(), "count=zz".to_string())];
    let d = pipeline_from_flags(&mut ctx, &registry(), "builtin.module", &bad).unwrap_err();
    assert_eq!(spanned(&ctx, d.span), "zz");
    assert_eq!(
        ctx.sources[d.span.unwrap().file as usize].name,
        "--test-any"
    );
    let unknown = vec![("nope".to_string(), String::new())];
    let d = pipeline_from_flags(&mut ctx, &registry(), "builtin.module", &unknown).unwrap_err();
    assert_eq!(
        d.message,
        "'nope' does not refer to a registered pass or pass pipeline"
    );
}

#[test]
fn nested_pipelines_run_on_directly_nested_ops() {
    let mut ctx = Context::default();
    let m = module(&mut ctx);
    let pm = parse_pass_pipeline(
        &mut ctx,
        &registry(),
        "builtin.module(func.func(test-func,test-any{count=2}),builtin.module(func.func(test-func)),test-any)",
    )
    .unwrap();
    let mut pm = PassManager::new(pm);
    take_log();
    pm.run(&mut ctx, m).unwrap();
    assert_eq!(
        take_log(),
        [
            "test-func@a",
            "test-any@func.func#2",
            "test-func@b",
            "test-any@func.func#2",
            "test-func@c",
            "test-any@builtin.module#1",
        ]
    );
    // `any` nests on every op.
    let any = parse_pass_pipeline(&mut ctx, &registry(), "builtin.module(any(test-any))").unwrap();
    PassManager::new(any).run(&mut ctx, m).unwrap();
    assert_eq!(
        take_log(),
        [
            "test-any@func.func#1",
            "test-any@func.func#1",
            "test-any@builtin.module#1"
        ]
    );
}

#[test]
fn anchor_mismatch_at_run() {
    let mut ctx = Context::default();
    let m = module(&mut ctx);
    let pm = parse_pass_pipeline(&mut ctx, &registry(), "func.func(test-func)").unwrap();
    let d = PassManager::new(pm).run(&mut ctx, m).unwrap_err();
    assert_eq!(
        d.message,
        "can't run 'func.func' pass manager on 'builtin.module' op"
    );
}

#[test]
fn pass_failure_and_verifier_failure_stop_the_pipeline() {
    let mut ctx = Context::default();
    let m = module(&mut ctx);
    let pm =
        parse_pass_pipeline(&mut ctx, &registry(), "builtin.module(test-fail,test-any)").unwrap();
    take_log();
    let d = PassManager::new(pm).run(&mut ctx, m).unwrap_err();
    assert_eq!(d.message, "'builtin.module' op test-fail failed");
    assert!(take_log().is_empty());

    let pm =
        parse_pass_pipeline(&mut ctx, &registry(), "builtin.module(test-break,test-any)").unwrap();
    let mut pm = PassManager::new(pm);
    let buf = SharedBuf::default();
    pm.set_output(Box::new(buf.clone()));
    pm.config.print_ir_after_failure = true;
    let d = pm.run(&mut ctx, m).unwrap_err();
    assert_eq!(
        d.message,
        "'builtin.module' op expects region #0 to have 0 or 1 blocks"
    );
    assert!(take_log().is_empty());
    assert!(
        buf.text()
            .starts_with("// -----// IR Dump After test-break Failed (test-break) //----- //\n")
    );
}

#[test]
fn verify_each_can_be_disabled() {
    let mut ctx = Context::default();
    let m = module(&mut ctx);
    let pm =
        parse_pass_pipeline(&mut ctx, &registry(), "builtin.module(test-break,test-any)").unwrap();
    let mut pm = PassManager::new(pm);
    pm.config.verify_each = false;
    take_log();
    pm.run(&mut ctx, m).unwrap();
    assert_eq!(take_log(), ["test-any@builtin.module#1"]);
}

#[test]
fn print_ir_banners() {
    let mut ctx = Context::default();
    let m = module(&mut ctx);
    let pm = parse_pass_pipeline(
        &mut ctx,
        &registry(),
        "builtin.module(func.func(test-func),test-any)",
    )
    .unwrap();
    let mut pm = PassManager::new(pm);
    let buf = SharedBuf::default();
    pm.set_output(Box::new(buf.clone()));
    pm.config.print_ir_after_all = true;
    pm.config.print_ir_before = vec!["test-any".into()];
    pm.run(&mut ctx, m).unwrap();
    let out = buf.text();
    let banners: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("// -----//"))
        .collect();
    assert_eq!(
        banners,
        [
            "// -----// IR Dump After test-func (test-func) //----- //",
            "// -----// IR Dump After test-func (test-func) //----- //",
            "// -----// IR Dump Before TestAny (test-any) //----- //",
            "// -----// IR Dump After TestAny (test-any) //----- //",
        ]
    );
    // Nested ops are followed by one blank line, the top-level op by two.
    let func_dump = print_ir_text(&ctx, m, false);
    assert!(out.contains(&format!("(test-func) //----- //\n{func_dump}\n\n//")));
    let module_dump = crate::printer::print_op(&ctx, m, &Default::default());
    assert!(out.ends_with(&format!("{}\n\n\n", module_dump.trim_end_matches('\n'))));
}

/// The printed form of the first nested func.
fn print_ir_text(ctx: &Context, m: OpId, _generic: bool) -> String {
    let f = ctx.collect_ops(m)[1];
    crate::printer::print_op(ctx, f, &Default::default())
        .trim_end_matches('\n')
        .to_string()
}

#[test]
fn statistics_report_format() {
    let mut ctx = Context::default();
    let m = module(&mut ctx);
    let pm = parse_pass_pipeline(
        &mut ctx,
        &registry(),
        "builtin.module(func.func(test-any),test-func-free)",
    );
    assert!(pm.is_err());
    let pm = parse_pass_pipeline(
        &mut ctx,
        &registry(),
        "builtin.module(func.func(test-any),test-any)",
    )
    .unwrap();
    let mut pm = PassManager::new(pm);
    let buf = SharedBuf::default();
    pm.set_output(Box::new(buf.clone()));
    pm.config.statistics = true;
    pm.run(&mut ctx, m).unwrap();
    let expected = "\
===-------------------------------------------------------------------------===
                         ... Pass statistics report ...
===-------------------------------------------------------------------------===
'func.func' Pipeline
  TestAny
    (S) 2 num-ops-seen-total - Ops seen
    (S) 2 num-runs           - Number of runs
TestAny
  (S) 5 num-ops-seen-total - Ops seen
  (S) 1 num-runs           - Number of runs

";
    assert_eq!(buf.text(), expected);
}

#[test]
fn timing_report_format() {
    let mut ctx = Context::default();
    let m = module(&mut ctx);
    let pm = parse_pass_pipeline(
        &mut ctx,
        &registry(),
        "builtin.module(func.func(test-func),test-any)",
    )
    .unwrap();
    let mut pm = PassManager::new(pm);
    let buf = SharedBuf::default();
    pm.set_output(Box::new(buf.clone()));
    pm.config.timing = true;
    pm.run(&mut ctx, m).unwrap();
    let out = buf.text();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "===-------------------------------------------------------------------------==="
    );
    assert_eq!(
        lines[1],
        "                         ... Execution time report ..."
    );
    assert!(lines[3].starts_with("  Total Execution Time: ") && lines[3].ends_with(" seconds"));
    assert_eq!(lines[5], "  ----Wall Time----  ----Name----");
    let names: Vec<&str> = lines[6..]
        .iter()
        .filter(|l| !l.is_empty())
        .map(|l| &l[21..])
        .collect();
    assert_eq!(
        names,
        [
            "'func.func' Pipeline",
            "  test-func",
            "TestAny",
            "Rest",
            "Total"
        ]
    );
    // As mlir-opt-22: the report ends with the Total row.
    assert!(out.ends_with("(100.0%)  Total\n") && !out.ends_with("\n\n"));
    let with = pm.timing_report_with(
        &[("Parser", std::time::Duration::from_millis(1))],
        &[("Output", std::time::Duration::from_millis(1))],
        Some(std::time::Duration::from_millis(4)),
    );
    assert!(with.contains("  Total Execution Time: 0.0040 seconds\n"));
    assert!(with.contains("    0.0010 ( 25.0%)  Parser\n"));
}

#[test]
fn registry_help_lists_passes_and_options() {
    let help = registry().help_text();
    assert!(help.contains("--test-any"));
    assert!(help.contains("test pass on any op"));
    assert!(help.contains("--count=<int>"));
    assert!(help.contains("(default: 1)"));
    assert!(help.contains("--test-pipeline"));
    let r = registry();
    let info = r.get("test-func").unwrap();
    assert_eq!(info.anchor, Some("func.func"));
    assert!(r.create("nope").is_none());
}

#[test]
fn dump_pipeline_prints_every_option_as_mlir_opt() {
    let mut ctx = Context::default();
    let pm = parse_pass_pipeline(
        &mut ctx,
        &registry(),
        "builtin.module(test-any{count=3 ratio=0.25},func.func(test-func))",
    )
    .unwrap();
    // Options sorted by name, defaults included, an empty list printed as nothing, a
    // double as C's `%e` (LLVM's `PassOptions::print`).
    assert_eq!(
        pm.dump_pipeline(),
        "Pass Manager with 2 passes:\nbuiltin.module(\n  test-any{count=3 flag=false label= names=a,b ratio=2.500000e-01 },\n  func.func(\n    test-func\n  )\n)\n\n"
    );
}

#[test]
fn declared_options_are_typed_fields() {
    let mut p = AnyPass::default();
    assert_eq!((p.opts.count, p.opts.ratio), (1, 0.5));
    assert_eq!(p.opts.names, ["a", "b"]);
    p.set_option("sizes", "4,8").unwrap();
    assert_eq!(p.opts.sizes, [4, 8]);
    assert_eq!(
        p.set_option("count", "x"),
        Err("'x' value invalid for integer argument!".to_string())
    );
    assert_eq!(
        p.set_option("nope", "1"),
        Err("no such option nope".to_string())
    );
    let specs = p.options();
    assert_eq!(specs[1].name, "count");
    assert_eq!(specs[1].kind, OptionKind::Int);
    assert_eq!(specs[1].description, "a count");
    assert_eq!(
        AnyPass::DECL
            .statistics
            .iter()
            .map(|s| s.name)
            .collect::<Vec<_>>(),
        ["num-runs", "num-ops-seen-total"]
    );
}
