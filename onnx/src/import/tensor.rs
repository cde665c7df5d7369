//! `TensorProto` ↔ [`ConstTensor`], ONNX element types, and `ValueInfoProto` types.
//!
//! Element types follow `TensorProto.DataType` (onnx.proto): FLOAT=1, UINT8=2, INT8=3,
//! INT32=6, INT64=7, BOOL=9, FLOAT16=10, DOUBLE=11, BFLOAT16=16 are read; the others
//! (strings, unsigned 16/32/64-bit, complex, 8-bit floats, 4-bit types) are refused.

use crate::ops::{ConstData, ConstTensor, ValueType};
use crate::proto::TensorProto;
use rtile_dialects::te::model::ElemType;

/// `TensorProto.DataType` numbers rtile reads.
pub mod dtype {
    pub const FLOAT: i32 = 1;
    pub const UINT8: i32 = 2;
    pub const INT8: i32 = 3;
    pub const INT32: i32 = 6;
    pub const INT64: i32 = 7;
    pub const BOOL: i32 = 9;
    pub const FLOAT16: i32 = 10;
    pub const DOUBLE: i32 = 11;
    pub const BFLOAT16: i32 = 16;
}

/// The name ONNX gives a data type number (for messages).
pub fn dtype_name(t: i32) -> String {
    crate::proto::tensor_proto::DataType::try_from(t)
        .map(|d| d.as_str_name().to_string())
        .unwrap_or_else(|_| format!("data type {t}"))
}

/// The te element type of an ONNX data type, `None` when te holds no such data (int64,
/// uint8: shape values and constants only). `Err` for types rtile does not read.
pub fn te_elem(t: i32) -> Result<Option<ElemType>, String> {
    Ok(match t {
        dtype::FLOAT => Some(ElemType::F32),
        dtype::DOUBLE => Some(ElemType::F64),
        dtype::FLOAT16 => Some(ElemType::F16),
        dtype::BFLOAT16 => Some(ElemType::BF16),
        dtype::INT32 => Some(ElemType::I32),
        dtype::INT8 => Some(ElemType::I8),
        dtype::BOOL => Some(ElemType::I1),
        dtype::INT64 | dtype::UINT8 => None,
        t => return Err(format!("element type {} is not supported", dtype_name(t))),
    })
}

/// The ONNX data type number of a constant's elements.
pub fn data_dtype(d: &ConstData) -> i32 {
    match d {
        ConstData::F32(_) => dtype::FLOAT,
        ConstData::F64(_) => dtype::DOUBLE,
        ConstData::F16(_) => dtype::FLOAT16,
        ConstData::Bf16(_) => dtype::BFLOAT16,
        ConstData::I64(_) => dtype::INT64,
        ConstData::I32(_) => dtype::INT32,
        ConstData::I8(_) => dtype::INT8,
        ConstData::U8(_) => dtype::UINT8,
        ConstData::Bool(_) => dtype::BOOL,
    }
}

/// The [`ValueType`] of a constant.
pub fn const_type(c: &ConstTensor) -> ValueType {
    ValueType {
        shape: c.shape.clone(),
        elem: te_elem(data_dtype(&c.data)).ok().flatten(),
    }
}

/// Whether `shape` has no negative dim and the product of its non-zero dims is at most
/// `limit` (so that no product of some of its dims overflows, even when one is 0).
pub fn shape_within(shape: &[i64], limit: usize) -> bool {
    shape
        .iter()
        .try_fold(1usize, |n, &d| {
            usize::try_from(d)
                .ok()
                .and_then(|d| n.checked_mul(d.max(1)))
                .filter(|&n| n <= limit)
        })
        .is_some()
}

/// Number of elements of `shape`, or an error for negative dims or overflow.
pub fn num_elements(shape: &[i64]) -> Result<usize, String> {
    shape.iter().try_fold(1usize, |n, &d| {
        usize::try_from(d)
            .ok()
            .and_then(|d| n.checked_mul(d))
            .ok_or_else(|| format!("invalid shape {shape:?}"))
    })
}

fn chunks<const N: usize, T>(raw: &[u8], f: impl Fn([u8; N]) -> T) -> Vec<T> {
    raw.chunks_exact(N)
        .map(|c| {
            let mut a = [0u8; N];
            a.copy_from_slice(c);
            f(a)
        })
        .collect()
}

/// Decodes a `TensorProto` (raw little-endian `raw_data` or the typed fields).
pub fn tensor_from_proto(t: &TensorProto) -> Result<ConstTensor, String> {
    if t.data_location == Some(1) {
        return Err(
            "external tensor data is not supported (save the model with the data inside)".into(),
        );
    }
    if t.segment.is_some() {
        return Err("segmented tensors are not supported".into());
    }
    let shape = t.dims.clone();
    if !shape_within(&shape, super::fold::VALUE_LIMIT) {
        return Err(format!("the shape {shape:?} is invalid or too large"));
    }
    let n = num_elements(&shape)?;
    let dt = t.data_type();
    let data = match &t.raw_data {
        Some(raw) => {
            let size = match dt {
                dtype::FLOAT | dtype::INT32 => 4,
                dtype::DOUBLE | dtype::INT64 => 8,
                dtype::FLOAT16 | dtype::BFLOAT16 => 2,
                dtype::INT8 | dtype::UINT8 | dtype::BOOL => 1,
                t => return Err(format!("element type {} is not supported", dtype_name(t))),
            };
            if raw.len() != n.saturating_mul(size) {
                return Err(format!(
                    "raw_data holds {} bytes, {n} elements of {size} bytes expected",
                    raw.len()
                ));
            }
            match dt {
                dtype::FLOAT => ConstData::F32(chunks(raw, f32::from_le_bytes)),
                dtype::INT32 => ConstData::I32(chunks(raw, i32::from_le_bytes)),
                dtype::DOUBLE => ConstData::F64(chunks(raw, f64::from_le_bytes)),
                dtype::INT64 => ConstData::I64(chunks(raw, i64::from_le_bytes)),
                dtype::FLOAT16 => ConstData::F16(chunks(raw, u16::from_le_bytes)),
                dtype::BFLOAT16 => ConstData::Bf16(chunks(raw, u16::from_le_bytes)),
                dtype::INT8 => ConstData::I8(raw.iter().map(|&b| b as i8).collect()),
                dtype::UINT8 => ConstData::U8(raw.clone()),
                _ => ConstData::Bool(raw.iter().map(|&b| b != 0).collect()),
            }
        }
        None => {
            let i32s = || t.int32_data.iter();
            let d = match dt {
                dtype::FLOAT => ConstData::F32(t.float_data.clone()),
                dtype::DOUBLE => ConstData::F64(t.double_data.clone()),
                dtype::INT64 => ConstData::I64(t.int64_data.clone()),
                dtype::INT32 => ConstData::I32(t.int32_data.clone()),
                dtype::INT8 => ConstData::I8(i32s().map(|&v| v as i8).collect()),
                dtype::UINT8 => ConstData::U8(i32s().map(|&v| v as u8).collect()),
                dtype::BOOL => ConstData::Bool(i32s().map(|&v| v != 0).collect()),
                dtype::FLOAT16 => ConstData::F16(i32s().map(|&v| v as u16).collect()),
                dtype::BFLOAT16 => ConstData::Bf16(i32s().map(|&v| v as u16).collect()),
                t => return Err(format!("element type {} is not supported", dtype_name(t))),
            };
            if data_len(&d) != n {
                return Err(format!(
                    "the tensor holds {} elements, its shape {shape:?} has {n}",
                    data_len(&d)
                ));
            }
            d
        }
    };
    Ok(ConstTensor { shape, data })
}

/// Number of elements held.
pub fn data_len(d: &ConstData) -> usize {
    match d {
        ConstData::F32(v) => v.len(),
        ConstData::F64(v) => v.len(),
        ConstData::F16(v) | ConstData::Bf16(v) => v.len(),
        ConstData::I64(v) => v.len(),
        ConstData::I32(v) => v.len(),
        ConstData::I8(v) => v.len(),
        ConstData::U8(v) => v.len(),
        ConstData::Bool(v) => v.len(),
    }
}

/// The elements as little-endian bytes (MLIR's blob layout; i1 one byte each) and
/// their alignment.
pub fn data_bytes(d: &ConstData) -> (Vec<u8>, u32) {
    fn le<const N: usize, T: Copy>(v: &[T], f: impl Fn(T) -> [u8; N]) -> Vec<u8> {
        v.iter().flat_map(|&x| f(x)).collect()
    }
    match d {
        ConstData::F32(v) => (le(v, f32::to_le_bytes), 4),
        ConstData::F64(v) => (le(v, f64::to_le_bytes), 8),
        ConstData::F16(v) | ConstData::Bf16(v) => (le(v, u16::to_le_bytes), 2),
        ConstData::I64(v) => (le(v, i64::to_le_bytes), 8),
        ConstData::I32(v) => (le(v, i32::to_le_bytes), 4),
        ConstData::I8(v) => (v.iter().map(|&x| x as u8).collect(), 1),
        ConstData::U8(v) => (v.clone(), 1),
        ConstData::Bool(v) => (v.iter().map(|&x| x as u8).collect(), 1),
    }
}

/// The elements converted to f64 (exact for every type but i64 beyond 2^53).
pub fn data_f64(d: &ConstData) -> Vec<f64> {
    match d {
        ConstData::F32(v) => v.iter().map(|&x| x as f64).collect(),
        ConstData::F64(v) => v.clone(),
        ConstData::F16(v) => v.iter().map(|&b| crate::eval::f16_bits_to_f64(b)).collect(),
        ConstData::Bf16(v) => v
            .iter()
            .map(|&b| f32::from_bits((b as u32) << 16) as f64)
            .collect(),
        ConstData::I64(v) => v.iter().map(|&x| x as f64).collect(),
        ConstData::I32(v) => v.iter().map(|&x| x as f64).collect(),
        ConstData::I8(v) => v.iter().map(|&x| x as f64).collect(),
        ConstData::U8(v) => v.iter().map(|&x| x as f64).collect(),
        ConstData::Bool(v) => v.iter().map(|&x| x as u8 as f64).collect(),
    }
}

/// The elements picked by `idx` (row-major positions), same element type.
pub fn data_take(d: &ConstData, idx: &[usize]) -> ConstData {
    fn t<T: Copy>(v: &[T], idx: &[usize]) -> Vec<T> {
        idx.iter().map(|&i| v[i]).collect()
    }
    match d {
        ConstData::F32(v) => ConstData::F32(t(v, idx)),
        ConstData::F64(v) => ConstData::F64(t(v, idx)),
        ConstData::F16(v) => ConstData::F16(t(v, idx)),
        ConstData::Bf16(v) => ConstData::Bf16(t(v, idx)),
        ConstData::I64(v) => ConstData::I64(t(v, idx)),
        ConstData::I32(v) => ConstData::I32(t(v, idx)),
        ConstData::I8(v) => ConstData::I8(t(v, idx)),
        ConstData::U8(v) => ConstData::U8(t(v, idx)),
        ConstData::Bool(v) => ConstData::Bool(t(v, idx)),
    }
}

/// Appends `b` to `a` when both hold one element type.
pub fn data_concat(a: &ConstData, b: &ConstData) -> Option<ConstData> {
    fn c<T: Clone>(a: &[T], b: &[T]) -> Vec<T> {
        a.iter().chain(b).cloned().collect()
    }
    Some(match (a, b) {
        (ConstData::F32(x), ConstData::F32(y)) => ConstData::F32(c(x, y)),
        (ConstData::F64(x), ConstData::F64(y)) => ConstData::F64(c(x, y)),
        (ConstData::F16(x), ConstData::F16(y)) => ConstData::F16(c(x, y)),
        (ConstData::Bf16(x), ConstData::Bf16(y)) => ConstData::Bf16(c(x, y)),
        (ConstData::I64(x), ConstData::I64(y)) => ConstData::I64(c(x, y)),
        (ConstData::I32(x), ConstData::I32(y)) => ConstData::I32(c(x, y)),
        (ConstData::I8(x), ConstData::I8(y)) => ConstData::I8(c(x, y)),
        (ConstData::U8(x), ConstData::U8(y)) => ConstData::U8(c(x, y)),
        (ConstData::Bool(x), ConstData::Bool(y)) => ConstData::Bool(c(x, y)),
        _ => return None,
    })
}

/// Values (as f64) converted to the ONNX data type `dt` as `Cast` does: floats round
/// to nearest, integers truncate toward zero and wrap, bool is `x != 0`.
pub fn data_from_f64(dt: i32, v: &[f64]) -> Result<ConstData, String> {
    let f16 = |x: f64| rtile_runtime_round(x, ElemType::F16);
    Ok(match dt {
        dtype::FLOAT => ConstData::F32(v.iter().map(|&x| x as f32).collect()),
        dtype::DOUBLE => ConstData::F64(v.to_vec()),
        dtype::FLOAT16 => ConstData::F16(v.iter().map(|&x| f16(x)).collect()),
        dtype::BFLOAT16 => ConstData::Bf16(
            v.iter()
                .map(|&x| rtile_runtime_round(x, ElemType::BF16))
                .collect(),
        ),
        dtype::INT64 => ConstData::I64(v.iter().map(|&x| x as i64).collect()),
        dtype::INT32 => ConstData::I32(v.iter().map(|&x| x as i64 as i32).collect()),
        dtype::INT8 => ConstData::I8(v.iter().map(|&x| x as i64 as i8).collect()),
        dtype::UINT8 => ConstData::U8(v.iter().map(|&x| x as i64 as u8).collect()),
        dtype::BOOL => ConstData::Bool(v.iter().map(|&x| x != 0.0).collect()),
        t => return Err(format!("element type {} is not supported", dtype_name(t))),
    })
}

/// The bits of `x` rounded to the 16-bit float type `t` (nearest, ties to even).
fn rtile_runtime_round(x: f64, t: ElemType) -> u16 {
    let r = rtile_runtime::round::round_to(x, t) as f32;
    match t {
        ElemType::BF16 => (r.to_bits() >> 16) as u16,
        _ => f32_to_f16_bits(r),
    }
}

/// An f32 that is exactly an IEEE half value, as half bits.
fn f32_to_f16_bits(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    if x.is_nan() {
        return sign | 0x7e00;
    }
    let a = x.abs();
    if a.is_infinite() || a >= 65520.0 {
        return sign | 0x7c00;
    }
    if a < 6.103_515_6e-5 {
        // Subnormal: a multiple of 2^-24.
        return sign | (a * 16_777_216.0).round() as u16;
    }
    let e = ((b >> 23) & 0xff) as i32 - 127 + 15;
    let m = (b >> 13) & 0x3ff;
    sign | ((e as u16) << 10) | m as u16
}

/// A tensor from the interpreter as a constant of the ONNX data type `dt`.
pub fn const_from_tensor(t: &rtile_runtime::tensor::Tensor) -> Result<ConstTensor, String> {
    let dt = match t.dtype {
        ElemType::F32 => dtype::FLOAT,
        ElemType::F64 => dtype::DOUBLE,
        ElemType::F16 => dtype::FLOAT16,
        ElemType::BF16 => dtype::BFLOAT16,
        ElemType::I32 => dtype::INT32,
        ElemType::I8 => dtype::INT8,
        ElemType::I1 => dtype::BOOL,
    };
    Ok(ConstTensor {
        shape: t.shape.clone(),
        data: data_from_f64(dt, &t.data)?,
    })
}
