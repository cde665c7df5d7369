//! Tensor files in the ONNX test data format: one `TensorProto` per `.pb` file (what
//! `onnx`'s backend test cases and model zoos ship as `input_0.pb` / `output_0.pb`),
//! beside `.npy`. [`FILES`] is what `rtile-run` reads inputs and writes outputs with.

use std::path::Path;

use prost::Message;
use rtile::ir::float::{f32_to_bf16_bits, f64_to_f16_bits};
use rtile_dialects::te::model::ElemType;
use rtile_runtime::npy::{read_npy, write_npy};
use rtile_runtime::tensor::Tensor;
use rtile_runtime::tensor_file::TensorFiles;

use crate::import::tensor::{data_f64, dtype, dtype_name, te_elem, tensor_from_proto};
use crate::proto::TensorProto;

/// `.pb` files as `TensorProto`s, anything else as `.npy`.
pub const FILES: TensorFiles = TensorFiles {
    read: read_tensor,
    write: write_tensor,
};

fn is_pb(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "pb")
}

/// Reads `path` (a `TensorProto` when it ends in `.pb`, else `.npy`) as a tensor of `want`
/// elements; a `.pb` must hold exactly that element type.
pub fn read_tensor(path: &Path, want: ElemType) -> Result<Tensor, String> {
    if !is_pb(path) {
        return read_npy(path, want);
    }
    let at = |m: String| format!("{}: {m}", path.display());
    let bytes = std::fs::read(path).map_err(|e| at(e.to_string()))?;
    let proto = TensorProto::decode(bytes.as_slice())
        .map_err(|e| at(format!("not an ONNX TensorProto: {e}")))?;
    let held = te_elem(proto.data_type()).map_err(at)?;
    if held != Some(want) {
        return Err(at(format!(
            "holds {} elements, {} expected",
            dtype_name(proto.data_type()),
            want.keyword()
        )));
    }
    let t = tensor_from_proto(&proto).map_err(at)?;
    Tensor::from_data(t.shape, want, data_f64(&t.data)).map_err(at)
}

/// The `TensorProto` of `t`: its dims, data type and little-endian `raw_data`.
pub fn tensor_to_proto(t: &Tensor) -> TensorProto {
    let (data_type, raw): (i32, Vec<u8>) = match t.dtype {
        ElemType::F64 => (dtype::DOUBLE, le(&t.data, |v| v.to_le_bytes())),
        ElemType::F32 => (dtype::FLOAT, le(&t.data, |v| (v as f32).to_le_bytes())),
        ElemType::F16 => (
            dtype::FLOAT16,
            le(&t.data, |v| f64_to_f16_bits(v).to_le_bytes()),
        ),
        ElemType::BF16 => (
            dtype::BFLOAT16,
            le(&t.data, |v| f32_to_bf16_bits(v as f32).to_le_bytes()),
        ),
        ElemType::I32 => (dtype::INT32, le(&t.data, |v| (v as i32).to_le_bytes())),
        ElemType::I8 => (dtype::INT8, le(&t.data, |v| [v as i8 as u8])),
        ElemType::I1 => (dtype::BOOL, le(&t.data, |v| [u8::from(v != 0.0)])),
    };
    TensorProto {
        dims: t.shape.clone(),
        data_type: Some(data_type),
        raw_data: Some(raw),
        ..Default::default()
    }
}

fn le<const N: usize>(data: &[f64], f: impl Fn(f64) -> [u8; N]) -> Vec<u8> {
    data.iter().flat_map(|&v| f(v)).collect()
}

/// Writes `t` to `path`: a `TensorProto` when it ends in `.pb`, else `.npy`.
pub fn write_tensor(path: &Path, t: &Tensor) -> Result<(), String> {
    if !is_pb(path) {
        return write_npy(path, t);
    }
    std::fs::write(path, tensor_to_proto(t).encode_to_vec())
        .map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("rtile-tensor-file-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("temp dir");
        d.join(name)
    }

    #[test]
    fn pb_round_trips_every_element_type() {
        let data = vec![1.5, -2.0, 0.0, 3.0, -0.5, 1.0];
        for (i, e) in [
            ElemType::F32,
            ElemType::F64,
            ElemType::F16,
            ElemType::BF16,
            ElemType::I32,
            ElemType::I8,
        ]
        .into_iter()
        .enumerate()
        {
            // Values every type holds exactly: halves for the floats, integers otherwise.
            let data: Vec<f64> = if e.is_float() {
                data.clone()
            } else {
                data.iter().map(|v| (v * 2.0).trunc()).collect()
            };
            let t = Tensor::from_data(vec![2, 3], e, data.clone()).expect("tensor");
            let p = tmp(&format!("t{i}.pb"));
            write_tensor(&p, &t).expect("write");
            let back = read_tensor(&p, e).expect("read");
            assert_eq!(back.shape, vec![2, 3]);
            assert_eq!(back.data, data, "{e:?}");
        }
    }

    #[test]
    fn pb_with_typed_fields_reads_as_onnx_writes_them() {
        // numpy_helper.from_array writes raw_data; older test data uses float_data.
        let proto = TensorProto {
            dims: vec![3],
            data_type: Some(dtype::FLOAT),
            float_data: vec![0.25, 4.0, -1.0],
            ..Default::default()
        };
        let p = tmp("typed.pb");
        std::fs::write(&p, proto.encode_to_vec()).expect("write");
        let t = read_tensor(&p, ElemType::F32).expect("read");
        assert_eq!(t.data, vec![0.25, 4.0, -1.0]);
    }

    #[test]
    fn wrong_type_and_garbage_are_errors() {
        let t = Tensor::from_data(vec![2], ElemType::F16, vec![1.0, 2.0]).expect("tensor");
        let p = tmp("half.pb");
        write_tensor(&p, &t).expect("write");
        let e = read_tensor(&p, ElemType::F32).expect_err("f16 is not f32");
        assert!(e.contains("holds FLOAT16 elements, f32 expected"), "{e}");
        let g = tmp("garbage.pb");
        std::fs::write(&g, [0xFFu8, 0xFF, 0xFF, 0x01]).expect("write");
        let e = read_tensor(&g, ElemType::F32).expect_err("garbage");
        assert!(e.contains("not an ONNX TensorProto"), "{e}");
    }
}
