//! ONNX operators as te. A node *expands* into a small graph: te stages
//! ([`Step::Compute`]), row-major reshapes ([`Step::Reshape`]) and constants, whose
//! outputs are the node's outputs. Expansions are pure functions of the node's input types,
//! its constant inputs and its attributes, so each operator is tested on its own with the te
//! interpreter; the importer turns them into IR.
//!
//! Operator families live in submodules, each with its own `expand` that returns `None`
//! for op types it does not know; [`expand`] asks each in turn.

use rtile_dialects::te::model::{ElemType, TeCompute};

pub mod basic;
pub mod nn;

/// A tensor known at import time: an initializer, a `Constant` node, or a folded value.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstTensor {
    /// Row-major shape; `[]` is a scalar.
    pub shape: Vec<i64>,
    pub data: ConstData,
}

/// The elements of a [`ConstTensor`], in ONNX's element types that rtile reads.
#[derive(Clone, Debug, PartialEq)]
pub enum ConstData {
    F32(Vec<f32>),
    F64(Vec<f64>),
    /// IEEE half, as bits.
    F16(Vec<u16>),
    /// bfloat16, as bits.
    Bf16(Vec<u16>),
    I64(Vec<i64>),
    I32(Vec<i32>),
    I8(Vec<i8>),
    U8(Vec<u8>),
    Bool(Vec<bool>),
}

/// The type of a value as ONNX has it. `elem` is the te element type, or `None` when te
/// cannot hold it (int64, ...): such a value must be a constant (shape arithmetic).
#[derive(Clone, Debug, PartialEq)]
pub struct ValueType {
    pub shape: Vec<i64>,
    pub elem: Option<ElemType>,
}

/// One input of a node as an expansion sees it.
#[derive(Clone, Copy, Debug)]
pub struct OpInput<'a> {
    pub ty: &'a ValueType,
    /// The value, when known at import time.
    pub value: Option<&'a ConstTensor>,
}

/// A node's attributes, typed as ONNX stores them (`AttributeProto`).
pub trait NodeAttrs {
    fn int(&self, name: &str) -> Option<i64>;
    fn ints(&self, name: &str) -> Option<Vec<i64>>;
    fn float(&self, name: &str) -> Option<f32>;
    fn floats(&self, name: &str) -> Option<Vec<f32>>;
    fn string(&self, name: &str) -> Option<String>;
    fn strings(&self, name: &str) -> Option<Vec<String>>;
    fn tensor(&self, name: &str) -> Option<ConstTensor>;
    /// Every attribute name the node carries (to report the ones an operator ignores).
    fn names(&self) -> Vec<String>;
}

/// Where a stage operand or an output comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src {
    /// The node's input `i`.
    Input(usize),
    /// The result of [`Expansion::steps`]`[i]`.
    Step(usize),
    /// [`Expansion::consts`]`[i]`.
    Const(usize),
}

/// One step of an expansion.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// A `te.compute`; `operands[i]` feeds `compute.inputs[i]`.
    Compute {
        compute: TeCompute,
        operands: Vec<Src>,
    },
    /// The same elements in row-major order under a new shape.
    Reshape { src: Src, shape: Vec<i64> },
}

/// What one node becomes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Expansion {
    pub consts: Vec<ConstTensor>,
    pub steps: Vec<Step>,
    /// One per node output.
    pub outputs: Vec<Src>,
}

/// Why a node cannot be imported: what is missing or wrong, in words the user can act
/// on (the importer adds the node's name and op type).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpError(pub String);

impl std::fmt::Display for OpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// What the importer knows about a node besides its inputs and attributes.
#[derive(Clone, Copy, Debug)]
pub struct NodeInfo<'a> {
    pub op_type: &'a str,
    /// The opset version of the node's domain in the model.
    pub opset: i64,
    /// Number of outputs the node declares (optional trailing outputs may be absent).
    pub num_outputs: usize,
}

/// Expands one node; `None` when no operator family knows `info.op_type`. Absent
/// optional inputs are `None` in `inputs`.
pub fn expand(
    info: NodeInfo,
    inputs: &[Option<OpInput>],
    attrs: &dyn NodeAttrs,
) -> Option<Result<Expansion, OpError>> {
    type Family =
        fn(NodeInfo, &[Option<OpInput>], &dyn NodeAttrs) -> Option<Result<Expansion, OpError>>;
    const FAMILIES: [Family; 2] = [nn::expand, basic::expand];
    FAMILIES.iter().find_map(|f| f(info, inputs, attrs))
}
