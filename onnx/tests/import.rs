//! The importer on models built here with the prost types: structure of the IR,
//! constant folding, topological order and the errors a user gets.

use prost::Message;
use rtile::printer::{PrintOptions, print_op};
use rtile_onnx::proto::{
    AttributeProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TensorProto,
    TensorShapeProto, TypeProto, ValueInfoProto,
    attribute_proto::AttributeType,
    tensor_shape_proto::{Dimension, dimension::Value as Dim},
    type_proto,
};
use rtile_onnx::{ImportError, ImportOptions, import_model};

fn node(
    op: &str,
    name: &str,
    inputs: &[&str],
    outputs: &[&str],
    attrs: Vec<AttributeProto>,
) -> NodeProto {
    NodeProto {
        op_type: Some(op.into()),
        name: Some(name.into()),
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: outputs.iter().map(|s| s.to_string()).collect(),
        attribute: attrs,
        ..Default::default()
    }
}

fn int_attr(name: &str, v: i64) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Int as i32),
        i: Some(v),
        ..Default::default()
    }
}

/// A float32 tensor value info; `None` dims are symbolic.
fn vi(name: &str, dims: &[Option<i64>]) -> ValueInfoProto {
    let dim = dims
        .iter()
        .map(|d| Dimension {
            value: Some(match d {
                Some(v) => Dim::DimValue(*v),
                None => Dim::DimParam("N".into()),
            }),
            ..Default::default()
        })
        .collect();
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(1),
                shape: Some(TensorShapeProto { dim }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn f32_init(name: &str, dims: &[i64], v: &[f32]) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        dims: dims.to_vec(),
        data_type: Some(1),
        float_data: v.to_vec(),
        ..Default::default()
    }
}

fn i64_init(name: &str, v: &[i64]) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        dims: vec![v.len() as i64],
        data_type: Some(7),
        raw_data: Some(v.iter().flat_map(|x| x.to_le_bytes()).collect()),
        ..Default::default()
    }
}

fn model(
    nodes: Vec<NodeProto>,
    inputs: Vec<ValueInfoProto>,
    outputs: &[&str],
    inits: Vec<TensorProto>,
) -> Vec<u8> {
    ModelProto {
        ir_version: Some(8),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(17),
        }],
        graph: Some(GraphProto {
            name: Some("g".into()),
            node: nodes,
            input: inputs,
            output: outputs.iter().map(|o| vi(o, &[])).collect(),
            initializer: inits,
            ..Default::default()
        }),
        ..Default::default()
    }
    .encode_to_vec()
}

fn import_text(bytes: &[u8], opts: &ImportOptions) -> Result<String, ImportError> {
    let (ctx, m) = import_model(bytes, opts)?;
    Ok(print_op(&ctx, m, &PrintOptions::default()))
}

#[test]
fn weights_become_dense_resource_blobs() {
    let m = model(
        vec![node("Add", "add", &["x", "w.0/weight"], &["y"], vec![])],
        vec![vi("x", &[Some(2), Some(2)])],
        &["y"],
        vec![f32_init("w.0/weight", &[2], &[1.0, -2.0])],
    );
    let text = import_text(&m, &ImportOptions::default()).unwrap();
    assert!(
        text.contains("func.func @g(%arg0: tensor<2x2xf32>) -> tensor<2x2xf32>"),
        "{text}"
    );
    assert!(
        text.contains("arith.constant dense_resource<w_0_weight> : tensor<2xf32>"),
        "{text}"
    );
    // 1.0 = 0x3F800000, -2.0 = 0xC0000000, little-endian, after the 4-byte alignment.
    assert!(
        text.contains("w_0_weight: \"0x040000000000803F000000C0\""),
        "{text}"
    );
    assert!(text.contains("%arg0[%d0, %d1] + %cst[%d1]"), "{text}");
}

#[test]
fn shape_subgraphs_fold_into_a_reshape() {
    // y = Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0) * 2), [-1])), x: 4x6.
    let nodes = vec![
        node("Shape", "shape", &["x"], &["s"], vec![]),
        node("Gather", "g0", &["s", "zero"], &["d0"], vec![]),
        node("Mul", "twice", &["d0", "two"], &["d0x2"], vec![]),
        node("Unsqueeze", "unsq", &["d0x2", "axes"], &["d0u"], vec![]),
        node(
            "Concat",
            "cat",
            &["d0u", "m1"],
            &["shp"],
            vec![int_attr("axis", 0)],
        ),
        node("Reshape", "reshape", &["x", "shp"], &["y"], vec![]),
    ];
    let inits = vec![
        TensorProto {
            name: Some("zero".into()),
            data_type: Some(7),
            int64_data: vec![0],
            ..Default::default()
        },
        TensorProto {
            name: Some("two".into()),
            data_type: Some(7),
            int64_data: vec![2],
            ..Default::default()
        },
        i64_init("axes", &[0]),
        i64_init("m1", &[-1]),
    ];
    let m = model(nodes, vec![vi("x", &[Some(4), Some(6)])], &["y"], inits);
    let text = import_text(&m, &ImportOptions::default()).unwrap();
    assert!(
        text.contains("tensor.collapse_shape") || text.contains("te.compute"),
        "{text}"
    );
    assert!(text.contains("-> tensor<8x3xf32>"), "{text}");
    assert!(!text.contains("i64>"), "no int64 tensor may remain: {text}");
}

#[test]
fn float_constant_nodes_are_folded() {
    // c = Sqrt(w) + w with w a constant: folded to one blob; y = x * c.
    let nodes = vec![
        node("Sqrt", "sq", &["w"], &["r"], vec![]),
        node("Add", "plus", &["r", "w"], &["c"], vec![]),
        node("Mul", "scale", &["x", "c"], &["y"], vec![]),
    ];
    let m = model(
        nodes,
        vec![vi("x", &[Some(2)])],
        &["y"],
        vec![f32_init("w", &[2], &[4.0, 9.0])],
    );
    let text = import_text(&m, &ImportOptions::default()).unwrap();
    // 6.0 = 0x40C00000, 12.0 = 0x41400000.
    assert!(text.contains("\"0x040000000000C04000004041\""), "{text}");
    assert_eq!(text.matches("te.compute").count(), 1, "{text}");
}

#[test]
fn nodes_out_of_order_are_sorted_and_cycles_reported() {
    let nodes = vec![
        node("Relu", "second", &["a"], &["y"], vec![]),
        node("Neg", "first", &["x"], &["a"], vec![]),
    ];
    let m = model(nodes, vec![vi("x", &[Some(3)])], &["y"], vec![]);
    let text = import_text(&m, &ImportOptions::default()).unwrap();
    assert!(
        text.find("-%arg0").unwrap_or(usize::MAX) < text.find("max(").unwrap_or(0),
        "{text}"
    );
    let cyc = vec![
        node("Relu", "r1", &["b"], &["a"], vec![]),
        node("Relu", "r2", &["a"], &["b"], vec![]),
    ];
    let e = import_text(
        &model(cyc, vec![vi("x", &[Some(3)])], &["a"], vec![]),
        &ImportOptions::default(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("cycle"), "{e}");
    let undef = vec![node("Relu", "r", &["nope"], &["y"], vec![])];
    let e = import_text(
        &model(undef, vec![vi("x", &[Some(3)])], &["y"], vec![]),
        &ImportOptions::default(),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "node #0 'r' (Relu): input 'nope' is not defined in the graph"
    );
}

#[test]
fn symbolic_dims_need_input_shapes() {
    let m = model(
        vec![node("Relu", "r", &["x"], &["y"], vec![])],
        vec![vi("x", &[None, Some(3)])],
        &["y"],
        vec![],
    );
    let e = import_text(&m, &ImportOptions::default()).unwrap_err();
    assert!(
        e.to_string().contains("'x' has the symbolic shape [?, 3]"),
        "{e}"
    );
    let opts = ImportOptions {
        input_shapes: vec![ImportOptions::parse_input_shape("x=5x3").unwrap()],
    };
    assert!(import_text(&m, &opts).unwrap().contains("tensor<5x3xf32>"));
    let bad = ImportOptions {
        input_shapes: vec![("x".into(), vec![5, 4])],
    };
    assert!(
        import_text(&m, &bad)
            .unwrap_err()
            .to_string()
            .contains("does not fit")
    );
    let other = ImportOptions {
        input_shapes: vec![("z".into(), vec![1])],
    };
    assert!(
        import_text(&m, &other)
            .unwrap_err()
            .to_string()
            .contains("'z'")
    );
    assert!(ImportOptions::parse_input_shape("x=1x0").is_err());
    assert!(ImportOptions::parse_input_shape("1x2").is_err());
}

#[test]
fn unsupported_ops_and_attributes_name_the_node() {
    let m = model(
        vec![node("Hardmax", "hm", &["x"], &["y"], vec![])],
        vec![vi("x", &[Some(3)])],
        &["y"],
        vec![],
    );
    assert_eq!(
        import_text(&m, &ImportOptions::default())
            .unwrap_err()
            .to_string(),
        "node #0 'hm' (Hardmax): the operator Hardmax is not supported"
    );
    let pad = node(
        "Pad",
        "p",
        &["x", "pads"],
        &["y"],
        vec![AttributeProto {
            name: Some("mode".into()),
            s: Some(b"edge".to_vec()),
            r#type: Some(3),
            ..Default::default()
        }],
    );
    let m = model(
        vec![pad],
        vec![vi("x", &[Some(3)])],
        &["y"],
        vec![i64_init("pads", &[1, 1])],
    );
    let e = import_text(&m, &ImportOptions::default())
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "node #0 'p' (Pad): mode 'edge' is not supported (only 'constant')"
    );
}

#[test]
fn malformed_bytes_are_an_error() {
    for bytes in [&b"\xff\xff\xff"[..], b"\x0a\x05abc", b"not a model at all"] {
        match import_model(bytes, &ImportOptions::default()) {
            Err(ImportError::Decode(_)) | Err(ImportError::Model(_)) => {}
            other => panic!("{:?}", other.map(|_| ())),
        }
    }
    let no_graph = ModelProto {
        opset_import: vec![OperatorSetIdProto {
            domain: None,
            version: Some(13),
        }],
        ..Default::default()
    };
    let e = import_model(&no_graph.encode_to_vec(), &ImportOptions::default())
        .map(|_| ())
        .unwrap_err();
    assert_eq!(e.to_string(), "the model has no graph");
}

#[test]
fn reshapes_that_split_or_merge_dims_are_tensor_reshapes() {
    use rtile_onnx::import::emit::reassociation;
    assert_eq!(
        reassociation(&[2, 3, 4], &[6, 4]),
        Some(vec![vec![0, 1], vec![2]])
    );
    assert_eq!(
        reassociation(&[1, 4, 1, 5, 1], &[4, 5]),
        Some(vec![vec![0, 1], vec![2, 3, 4]])
    );
    assert_eq!(reassociation(&[2, 3, 4], &[3, 8]), None);
    assert_eq!(reassociation(&[4, 1], &[4]), Some(vec![vec![0, 1]]));
    // A transposing reshape is a copy with floordiv/mod indices.
    let nodes = vec![node("Reshape", "rs", &["x", "s"], &["y"], vec![])];
    let m = model(
        nodes,
        vec![vi("x", &[Some(2), Some(3)])],
        &["y"],
        vec![i64_init("s", &[3, 2])],
    );
    let text = import_text(&m, &ImportOptions::default()).unwrap();
    assert!(text.contains("floordiv") && text.contains("mod"), "{text}");
}

/// Folds one node on constants with `rtile_onnx::import::fold`.
fn fold(
    op: &str,
    opset: i64,
    inputs: &[rtile_onnx::ops::ConstTensor],
    attrs: rtile_onnx::import::attrs::MapAttrs,
) -> Vec<rtile_onnx::ops::ConstTensor> {
    use rtile_onnx::ops::{NodeInfo, OpInput};
    let types: Vec<_> = inputs
        .iter()
        .map(rtile_onnx::import::tensor::const_type)
        .collect();
    let ins: Vec<Option<OpInput>> = inputs
        .iter()
        .zip(&types)
        .map(|(c, ty)| Some(OpInput { ty, value: Some(c) }))
        .collect();
    let info = NodeInfo {
        op_type: op,
        opset,
        num_outputs: 1,
    };
    rtile_onnx::import::fold::fold(info, &ins, &attrs)
        .expect("folded")
        .expect("no error")
}

#[test]
fn int64_values_fold_with_onnx_semantics() {
    use rtile_onnx::import::attrs::{AttrValue, MapAttrs};
    use rtile_onnx::ops::{ConstData, ConstTensor};
    let i64s = |shape: &[i64], v: &[i64]| ConstTensor {
        shape: shape.to_vec(),
        data: ConstData::I64(v.to_vec()),
    };
    // Gather with a non-progression index tensor on int64 data (the movement path).
    let g = fold(
        "Gather",
        13,
        &[i64s(&[4], &[10, 20, 30, 40]), i64s(&[2, 2], &[3, 0, -1, 1])],
        MapAttrs::new(),
    );
    assert_eq!(g[0], i64s(&[2, 2], &[40, 10, 40, 20]));
    // Concat along axis 0, Transpose, Slice with a negative step.
    let c = fold(
        "Concat",
        13,
        &[i64s(&[1, 2], &[1, 2]), i64s(&[2, 2], &[3, 4, 5, 6])],
        MapAttrs::new().with("axis", AttrValue::Int(0)),
    );
    assert_eq!(c[0], i64s(&[3, 2], &[1, 2, 3, 4, 5, 6]));
    let t = fold("Transpose", 13, &[c[0].clone()], MapAttrs::new());
    assert_eq!(t[0], i64s(&[2, 3], &[1, 3, 5, 2, 4, 6]));
    let s = fold(
        "Slice",
        13,
        &[
            i64s(&[5], &[0, 1, 2, 3, 4]),
            i64s(&[1], &[-1]),
            i64s(&[1], &[i64::MIN]),
            i64s(&[1], &[0]),
            i64s(&[1], &[-2]),
        ],
        MapAttrs::new(),
    );
    assert_eq!(s[0], i64s(&[3], &[4, 2, 0]));
    // Integer arithmetic: Div truncates, Mod takes the divisor's sign, broadcasting.
    let d = fold(
        "Div",
        14,
        &[i64s(&[2], &[7, -7]), i64s(&[], &[2])],
        MapAttrs::new(),
    );
    assert_eq!(d[0], i64s(&[2], &[3, -3]));
    let m = fold(
        "Mod",
        13,
        &[i64s(&[2], &[7, -7]), i64s(&[], &[3])],
        MapAttrs::new(),
    );
    assert_eq!(m[0], i64s(&[2], &[1, 2]));
    let r = fold(
        "Range",
        11,
        &[i64s(&[], &[10]), i64s(&[], &[1]), i64s(&[], &[-3])],
        MapAttrs::new(),
    );
    assert_eq!(r[0], i64s(&[3], &[10, 7, 4]));
    let cond = ConstTensor {
        shape: vec![2],
        data: ConstData::Bool(vec![true, false]),
    };
    let w = fold(
        "Where",
        16,
        &[cond, i64s(&[2, 1], &[1, 2]), i64s(&[], &[9])],
        MapAttrs::new(),
    );
    assert_eq!(w[0], i64s(&[2, 2], &[1, 9, 2, 9]));
    let cast = fold(
        "Cast",
        13,
        &[ConstTensor {
            shape: vec![2],
            data: ConstData::F32(vec![2.7, -2.7]),
        }],
        MapAttrs::new().with("to", AttrValue::Int(7)),
    );
    assert_eq!(cast[0], i64s(&[2], &[2, -2]));
}

#[test]
fn uniform_constants_are_dense_splats() {
    // c = ConstantOfShape([3], value = 0.5 : f32); y = x + c.
    let value = AttributeProto {
        name: Some("value".into()),
        r#type: Some(AttributeType::Tensor as i32),
        t: Some(f32_init("", &[1], &[0.5])),
        ..Default::default()
    };
    let nodes = vec![
        node("ConstantOfShape", "fill", &["shape"], &["c"], vec![value]),
        node("Add", "add", &["x", "c"], &["y"], vec![]),
    ];
    let m = model(
        nodes,
        vec![vi("x", &[Some(3)])],
        &["y"],
        vec![i64_init("shape", &[3])],
    );
    let text = import_text(&m, &ImportOptions::default()).unwrap();
    assert!(
        text.contains("arith.constant dense<5.000000e-01> : tensor<3xf32>"),
        "{text}"
    );
    assert!(!text.contains("dialect_resources"), "{text}");
}
