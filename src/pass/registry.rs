//! The pass registry: passes and named pipelines by flag name.

use std::collections::BTreeMap;

use super::{Pass, PassDecl, PassOptionSpec};

/// Creates a fresh instance of a pass (with default options).
pub type PassFactory = fn() -> Box<dyn Pass>;

/// What the registry knows about one pass: its declaration, read from an instance at
/// registration.
#[derive(Clone, Debug)]
pub struct PassInfo {
    /// The whole declaration (summary, description, statistics as well).
    pub decl: &'static PassDecl,
    /// Flag name.
    pub name: &'static str,
    pub display_name: &'static str,
    pub description: &'static str,
    pub anchor: Option<&'static str>,
    pub options: Vec<PassOptionSpec>,
    pub factory: PassFactory,
}

/// A named pipeline: a flag that expands to pipeline elements (`func.func(cse),symbol-dce`).
#[derive(Clone, Debug)]
pub struct PipelineInfo {
    pub name: String,
    pub description: String,
    pub text: String,
}

/// Passes and named pipelines, by flag name.
#[derive(Default)]
pub struct PassRegistry {
    passes: BTreeMap<&'static str, PassInfo>,
    pipelines: BTreeMap<String, PipelineInfo>,
}

impl PassRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }
    /// Registers the pass that `factory` creates, under its flag name (a later
    /// registration of the same name replaces the earlier one).
    pub fn register(&mut self, factory: PassFactory) {
        let p = factory();
        let info = PassInfo {
            decl: p.decl(),
            name: p.name(),
            display_name: p.display_name(),
            description: p.summary(),
            anchor: p.anchor(),
            options: p.options().to_vec(),
            factory,
        };
        self.passes.insert(info.name, info);
    }
    /// Registers a named pipeline; `text` is a list of pipeline elements, as inside
    /// `builtin.module(...)`.
    pub fn register_pipeline(
        &mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        text: impl Into<String>,
    ) {
        let name = name.into();
        self.pipelines.insert(
            name.clone(),
            PipelineInfo {
                name,
                description: description.into(),
                text: text.into(),
            },
        );
    }
    /// The pass registered as `name`.
    pub fn get(&self, name: &str) -> Option<&PassInfo> {
        self.passes.get(name)
    }
    /// The named pipeline registered as `name`.
    pub fn get_pipeline(&self, name: &str) -> Option<&PipelineInfo> {
        self.pipelines.get(name)
    }
    /// A fresh instance of pass `name`.
    pub fn create(&self, name: &str) -> Option<Box<dyn Pass>> {
        self.passes.get(name).map(|i| (i.factory)())
    }
    /// Every registered pass, sorted by flag name.
    pub fn passes(&self) -> impl Iterator<Item = &PassInfo> {
        self.passes.values()
    }
    /// Every named pipeline, sorted by name.
    pub fn pipelines(&self) -> impl Iterator<Item = &PipelineInfo> {
        self.pipelines.values()
    }
    /// The `--help` section listing passes, their options and descriptions (mlir-opt's
    /// layout: `--flag - description`, options indented beneath).
    pub fn help_text(&self) -> String {
        let mut out = String::new();
        if !self.pipelines.is_empty() {
            out.push_str("Pass Pipelines:\n");
            for p in self.pipelines.values() {
                out.push_str(&format!("  --{:<30} - {}\n", p.name, p.description));
            }
        }
        out.push_str("Passes:\n");
        for p in self.passes.values() {
            out.push_str(&format!("  --{:<30} - {}\n", p.name, p.description));
            for o in &p.options {
                let flag = format!("{}=<{}>", o.name, o.kind.as_str());
                let default = if o.default.is_empty() {
                    String::new()
                } else {
                    format!(" (default: {})", o.default)
                };
                out.push_str(&format!(
                    "      --{flag:<26} - {}{default}\n",
                    o.description
                ));
            }
        }
        out
    }
}
