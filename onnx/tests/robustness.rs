//! No node panics the importer: every basic operator on random input shapes, random
//! integer attributes and random int64 constant inputs (extremes included) imports or
//! returns an error (in debug builds, so integer overflow would panic too).

use proptest::prelude::*;
use prost::Message;
use rtile_onnx::proto::{
    AttributeProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TensorProto,
    TensorShapeProto, TypeProto, ValueInfoProto, tensor_shape_proto::Dimension, type_proto,
};
use rtile_onnx::{ImportOptions, import_model};

const OPS: &[&str] = &[
    "Add",
    "Sub",
    "Mul",
    "Div",
    "Pow",
    "Sum",
    "Max",
    "Min",
    "Relu",
    "LeakyRelu",
    "PRelu",
    "Clip",
    "Sigmoid",
    "Tanh",
    "Erf",
    "Exp",
    "Log",
    "Sqrt",
    "Reciprocal",
    "Neg",
    "Abs",
    "Identity",
    "Dropout",
    "Cast",
    "Reshape",
    "Flatten",
    "Squeeze",
    "Unsqueeze",
    "Transpose",
    "Concat",
    "Split",
    "Slice",
    "Pad",
    "Expand",
    "Gather",
    "Constant",
    "ConstantOfShape",
    "Shape",
];
const ATTRS: &[&str] = &[
    "axis",
    "axes",
    "perm",
    "split",
    "to",
    "allowzero",
    "start",
    "end",
    "num_outputs",
    "starts",
    "ends",
    "pads",
    "shape",
];

fn int_value() -> impl Strategy<Value = i64> {
    prop_oneof![
        -4i64..6,
        Just(i64::MAX),
        Just(i64::MIN),
        Just(1 << 40),
        Just(-(1 << 40))
    ]
}

fn float_input(name: &str, dims: &[i64]) -> ValueInfoProto {
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(1),
                shape: Some(TensorShapeProto {
                    dim: dims
                        .iter()
                        .map(|&d| Dimension {
                            value: Some(
                                rtile_onnx::proto::tensor_shape_proto::dimension::Value::DimValue(
                                    d,
                                ),
                            ),
                            ..Default::default()
                        })
                        .collect(),
                }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

proptest! {
    // ROBUST_CASES=N for a longer search.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("ROBUST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(3000),
        ..ProptestConfig::default()
    })]
    #[test]
    fn no_node_panics(
        op in 0..OPS.len(),
        opset in prop_oneof![Just(7i64), Just(9), Just(11), Just(13), Just(18), Just(21)],
        dims in prop::collection::vec(1i64..4, 0..4),
        attrs in prop::collection::vec((0..ATTRS.len(), prop::collection::vec(int_value(), 0..4), any::<bool>()), 0..4),
        consts in prop::collection::vec(prop::collection::vec(int_value(), 0..5), 0..4),
        n_out in 1usize..4,
        second_data in any::<bool>(),
    ) {
        let mut inputs = vec!["x".to_string()];
        let mut graph_inputs = vec![float_input("x", &dims)];
        if second_data {
            inputs.push("x2".into());
            graph_inputs.push(float_input("x2", &dims[dims.len().min(1)..]));
        }
        let mut inits = Vec::new();
        for (k, v) in consts.iter().enumerate() {
            let name = format!("c{k}");
            inputs.push(name.clone());
            inits.push(TensorProto { name: Some(name), dims: vec![v.len() as i64], data_type: Some(7), int64_data: v.clone(), ..Default::default() });
        }
        let attribute = attrs
            .iter()
            .map(|(a, v, single)| AttributeProto {
                name: Some(ATTRS[*a].into()),
                i: if *single { v.first().copied() } else { None },
                ints: if *single { vec![] } else { v.clone() },
                ..Default::default()
            })
            .collect();
        let outputs: Vec<String> = (0..n_out).map(|i| format!("y{i}")).collect();
        let node = NodeProto {
            op_type: Some(OPS[op].into()),
            name: Some("n".into()),
            input: inputs,
            output: outputs.clone(),
            attribute,
            ..Default::default()
        };
        let model = ModelProto {
            opset_import: vec![OperatorSetIdProto { domain: None, version: Some(opset) }],
            graph: Some(GraphProto {
                node: vec![node],
                input: graph_inputs,
                output: outputs.iter().map(|o| ValueInfoProto { name: Some(o.clone()), ..Default::default() }).collect(),
                initializer: inits,
                ..Default::default()
            }),
            ..Default::default()
        };
        let _ = import_model(&model.encode_to_vec(), &ImportOptions::default());
    }
}
