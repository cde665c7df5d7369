//! TMA tensor maps of `tensormap` kernel arguments (sm_90a kernels that use
//! `nvgpu.tma.async.load`): the host side of rtile's convention (the manifest's
//! [`TensorMapArg`]: the map covers the whole of a memref argument, boxes of the
//! descriptor type's shape, out-of-bounds elements zero).
//!
//! [`TiledMap::for_arg`] turns the manifest into the parameters of the driver's
//! `cuTensorMapEncodeTiled` (CUDA Driver API §6.30, "Tensor Map Object Management"): the
//! dimensions innermost first, the strides of the outer dimensions in bytes, the box, the
//! element type and swizzle enums; and checks the driver's documented limits so that a bad
//! map is a clear message here rather than `CUDA_ERROR_INVALID_VALUE`. [`TiledMap::encode`]
//! calls the driver (cudarc's `sys` binding) with a buffer's device address.

use cudarc::driver::sys::{
    self, CUtensorMap, CUtensorMapDataType, CUtensorMapFloatOOBfill, CUtensorMapInterleave,
    CUtensorMapL2promotion, CUtensorMapSwizzle,
};
use rtile_manifest::{ArgKind, ArgManifest, TensorMapArg, dtype_size};

/// Bytes of a `CUtensorMap` (`CU_TENSOR_MAP_NUM_QWORDS` = 16).
pub const TENSOR_MAP_BYTES: usize = 128;

/// The parameters of one `cuTensorMapEncodeTiled` call, in the driver's order
/// (dimension 0 is the innermost, contiguous one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TiledMap {
    /// Element type.
    pub data_type: CUtensorMapDataType,
    /// Extent of each dimension, innermost first.
    pub global_dim: Vec<u64>,
    /// Byte stride of dimensions 1.. (rank - 1 entries; dimension 0 is contiguous).
    pub global_strides: Vec<u64>,
    /// The box, innermost first.
    pub box_dim: Vec<u32>,
    /// Element strides within the box (all 1: dense boxes).
    pub element_strides: Vec<u32>,
    /// Shared-memory swizzle.
    pub swizzle: CUtensorMapSwizzle,
}

/// The TMA element type of a manifest dtype.
pub fn data_type(dtype: &str) -> Option<CUtensorMapDataType> {
    use CUtensorMapDataType as D;
    Some(match dtype {
        "f16" => D::CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
        "bf16" => D::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
        "f32" => D::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
        "f64" => D::CU_TENSOR_MAP_DATA_TYPE_FLOAT64,
        // Copies move bits: signed 8/16-bit elements travel as unsigned ones.
        "i8" | "u8" => D::CU_TENSOR_MAP_DATA_TYPE_UINT8,
        "i16" | "u16" => D::CU_TENSOR_MAP_DATA_TYPE_UINT16,
        "i32" => D::CU_TENSOR_MAP_DATA_TYPE_INT32,
        "u32" => D::CU_TENSOR_MAP_DATA_TYPE_UINT32,
        "i64" => D::CU_TENSOR_MAP_DATA_TYPE_INT64,
        "u64" => D::CU_TENSOR_MAP_DATA_TYPE_UINT64,
        _ => return None,
    })
}

/// The swizzle enum of a span in bytes (0 = none).
pub fn swizzle(bytes: u32) -> Option<CUtensorMapSwizzle> {
    use CUtensorMapSwizzle as S;
    Some(match bytes {
        0 => S::CU_TENSOR_MAP_SWIZZLE_NONE,
        32 => S::CU_TENSOR_MAP_SWIZZLE_32B,
        64 => S::CU_TENSOR_MAP_SWIZZLE_64B,
        128 => S::CU_TENSOR_MAP_SWIZZLE_128B,
        _ => return None,
    })
}

impl TiledMap {
    /// The map of argument `map` (kind `tensormap`) over `of`, the memref argument its
    /// `tensor_map.of` names. Checks the driver's limits: rank 1 to 5, extents in
    /// [1, 2^32], outer strides multiples of 16 bytes below 2^40, box extents in [1, 256]
    /// and no larger than the tensor's, an innermost box row of a multiple of 16 bytes and,
    /// when swizzled, no wider than the swizzle span, and the map's element type that of
    /// the memref.
    pub fn for_arg(map: &ArgManifest, of: &ArgManifest) -> Result<TiledMap, String> {
        let TensorMapArg {
            box_shape,
            swizzle: sw,
            ..
        } = map
            .tensor_map
            .as_ref()
            .ok_or_else(|| format!("{}: a tensormap argument without its map", map.name))?;
        let bad = |msg: String| format!("tensor map {} over {}: {msg}", map.name, of.name);
        if of.kind != ArgKind::Memref {
            return Err(bad("it must describe a memref argument".into()));
        }
        if map.dtype != of.dtype {
            return Err(bad(format!(
                "element type {} differs from the memref's {}",
                map.dtype, of.dtype
            )));
        }
        let data_type =
            data_type(&of.dtype).ok_or_else(|| bad(format!("no TMA element type {}", of.dtype)))?;
        let esize = dtype_size(&of.dtype).unwrap_or(1) as u64;
        let rank = of.shape.len();
        if !(1..=5).contains(&rank) {
            return Err(bad(format!("rank {rank}; TMA maps have rank 1 to 5")));
        }
        if box_shape.len() != rank {
            return Err(bad(format!(
                "a rank-{} box for a rank-{rank} memref",
                box_shape.len()
            )));
        }
        let swizzle = swizzle(*sw)
            .ok_or_else(|| bad(format!("swizzle of {sw} bytes (expected 0, 32, 64 or 128)")))?;
        // The driver's order is innermost first: reverse the row-major shape.
        let global_dim: Vec<u64> = of.shape.iter().rev().map(|&d| d.max(0) as u64).collect();
        if let Some(d) = global_dim.iter().find(|&&d| d == 0 || d > 1 << 32) {
            return Err(bad(format!("extent {d} outside [1, 2^32]")));
        }
        let mut global_strides = Vec::with_capacity(rank - 1);
        let mut stride = esize;
        for &d in &global_dim[..rank - 1] {
            stride *= d;
            if !stride.is_multiple_of(16) || stride >= 1 << 40 {
                return Err(bad(format!(
                    "a row stride of {stride} bytes; TMA needs multiples of 16 bytes below 2^40"
                )));
            }
            global_strides.push(stride);
        }
        let mut box_dim = Vec::with_capacity(rank);
        for (&b, &d) in box_shape.iter().rev().zip(&global_dim) {
            if !(1..=256).contains(&b) || b as u64 > d {
                return Err(bad(format!(
                    "box extent {b}; each must be in [1, 256] and within the tensor ({d})"
                )));
            }
            box_dim.push(b as u32);
        }
        let row = u64::from(box_dim[0]) * esize;
        if !row.is_multiple_of(16) {
            return Err(bad(format!(
                "an innermost box row of {row} bytes; TMA needs a multiple of 16"
            )));
        }
        if *sw != 0 && row > u64::from(*sw) {
            return Err(bad(format!(
                "an innermost box row of {row} bytes is wider than the {sw}-byte swizzle"
            )));
        }
        Ok(TiledMap {
            data_type,
            global_dim,
            global_strides,
            box_dim,
            element_strides: vec![1; rank],
            swizzle,
        })
    }

    /// Encodes the map over the buffer at device address `global` (at least 16-byte
    /// aligned, as every CUDA allocation is).
    pub fn encode(&self, global: sys::CUdeviceptr) -> Result<CUtensorMap, String> {
        if !global.is_multiple_of(16) {
            return Err(format!(
                "tensor map over address {global:#x}: TMA needs 16-byte alignment"
            ));
        }
        let mut map = CUtensorMap { opaque: [0; 16] };
        // SAFETY: every pointer is to a live local of the length `rank` (strides: rank - 1)
        // that `for_arg` built; `map` is a properly aligned `CUtensorMap` (repr(align(64))).
        let r = unsafe {
            sys::cuTensorMapEncodeTiled(
                &mut map,
                self.data_type,
                self.global_dim.len() as u32,
                global as *mut std::ffi::c_void,
                self.global_dim.as_ptr(),
                self.global_strides.as_ptr(),
                self.box_dim.as_ptr(),
                self.element_strides.as_ptr(),
                CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
                self.swizzle,
                CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_NONE,
                // NONE fills out-of-bounds elements with zeros (NAN_REQUEST_ZERO_FMA would
                // fill NaN).
                CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
            )
        };
        if r != sys::CUresult::CUDA_SUCCESS {
            return Err(format!("cuTensorMapEncodeTiled failed: {r:?} ({self:?})"));
        }
        Ok(map)
    }
}

/// The bytes of an encoded map, as they are copied to device memory.
pub fn map_bytes(map: &CUtensorMap) -> Vec<u8> {
    map.opaque.iter().flat_map(|q| q.to_le_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rtile_manifest::Role;

    fn memref(dtype: &str, shape: Vec<i64>) -> ArgManifest {
        ArgManifest {
            name: "arg2".into(),
            kind: ArgKind::Memref,
            shape,
            dtype: dtype.into(),
            role: Role::Input,
            tensor_map: None,
        }
    }

    fn map(dtype: &str, box_shape: Vec<i64>, swizzle: u32) -> ArgManifest {
        ArgManifest {
            name: "arg0".into(),
            kind: ArgKind::Tensormap,
            shape: vec![],
            dtype: dtype.into(),
            role: Role::Input,
            tensor_map: Some(TensorMapArg {
                of: 2,
                box_shape,
                swizzle,
            }),
        }
    }

    #[test]
    fn the_gemm_operands_map_innermost_first_with_byte_strides() {
        // A: 256x64 f16 (M x K) in 128x64 boxes, 128-byte swizzle.
        let a = TiledMap::for_arg(
            &map("f16", vec![128, 64], 128),
            &memref("f16", vec![256, 64]),
        )
        .unwrap();
        assert_eq!(a.global_dim, vec![64, 256]);
        assert_eq!(a.global_strides, vec![128]);
        assert_eq!(a.box_dim, vec![64, 128]);
        assert_eq!(a.element_strides, vec![1, 1]);
        assert_eq!(a.swizzle, CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B);
        assert_eq!(
            a.data_type,
            CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT16
        );
        // B: 64x128 bf16 (K x N) in 64x64 boxes.
        let b = TiledMap::for_arg(
            &map("bf16", vec![64, 64], 128),
            &memref("bf16", vec![64, 128]),
        )
        .unwrap();
        assert_eq!(b.global_dim, vec![128, 64]);
        assert_eq!(b.global_strides, vec![256]);
        assert_eq!(b.box_dim, vec![64, 64]);
        assert_eq!(
            b.data_type,
            CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
        );
        // Rank 3 f32, 32-byte swizzle: strides multiply up.
        let c = TiledMap::for_arg(
            &map("f32", vec![2, 4, 8], 32),
            &memref("f32", vec![3, 5, 8]),
        )
        .unwrap();
        assert_eq!(c.global_dim, vec![8, 5, 3]);
        assert_eq!(c.global_strides, vec![32, 160]);
        assert_eq!(c.box_dim, vec![8, 4, 2]);
        assert_eq!(c.swizzle, CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_32B);
        let n = TiledMap::for_arg(&map("f32", vec![4, 4], 0), &memref("f32", vec![8, 4])).unwrap();
        assert_eq!(n.swizzle, CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE);
    }

    #[test]
    fn a_batch_matmuls_operands_map_in_3d_with_one_slice_boxes() {
        // A [3, 200, 136] f16 (batch, m, k) in [1, 128, 64] boxes: the batch index is the
        // outermost dimension (2), stepped by whole 200×136 slices.
        let a = TiledMap::for_arg(
            &map("f16", vec![1, 128, 64], 128),
            &memref("f16", vec![3, 200, 136]),
        )
        .unwrap();
        assert_eq!(a.global_dim, vec![136, 200, 3]);
        assert_eq!(a.global_strides, vec![136 * 2, 200 * 136 * 2]);
        assert_eq!(a.box_dim, vec![64, 128, 1]);
        assert_eq!(a.element_strides, vec![1, 1, 1]);
        // B [3, 96, 72] bf16 stored [b, n, k] in [1, 48, 64] boxes (48 n rows × 64 k).
        let b = TiledMap::for_arg(
            &map("bf16", vec![1, 48, 64], 128),
            &memref("bf16", vec![3, 96, 72]),
        )
        .unwrap();
        assert_eq!(b.global_dim, vec![72, 96, 3]);
        assert_eq!(b.global_strides, vec![144, 96 * 144]);
        assert_eq!(b.box_dim, vec![64, 48, 1]);
        // A batch of 1 still maps 3-d.
        let one = TiledMap::for_arg(
            &map("f16", vec![1, 64, 64], 128),
            &memref("f16", vec![1, 64, 64]),
        )
        .unwrap();
        assert_eq!(
            (one.global_dim, one.box_dim),
            (vec![64, 64, 1], vec![64, 64, 1])
        );
        // A box of two slices where the batch has one is refused.
        let e = TiledMap::for_arg(
            &map("f16", vec![2, 64, 64], 128),
            &memref("f16", vec![1, 64, 64]),
        )
        .unwrap_err();
        assert!(e.contains("within the tensor"), "{e}");
    }

    #[test]
    fn several_batch_axes_map_in_4d_and_5d_and_a_shared_weight_in_2d() {
        // BERT's attention Q [1, 12, 128, 64] f16 (batch, heads, seq, d) in [1, 1, 64, 64]
        // boxes: one slice of each batch axis, the heads stepped by whole 128×64 slices.
        let q = TiledMap::for_arg(
            &map("f16", vec![1, 1, 64, 64], 128),
            &memref("f16", vec![1, 12, 128, 64]),
        )
        .unwrap();
        assert_eq!(q.global_dim, vec![64, 128, 12, 1]);
        assert_eq!(q.global_strides, vec![128, 128 * 128, 12 * 128 * 128]);
        assert_eq!(q.box_dim, vec![64, 64, 1, 1]);
        assert_eq!(q.element_strides, vec![1, 1, 1, 1]);
        // The heads inside the operand (Q [2, 100, 3, 64]: batch, seq, heads, d) in
        // [1, 64, 1, 64] boxes: the box's 1 sits on the heads dimension (1).
        let inner = TiledMap::for_arg(
            &map("bf16", vec![1, 64, 1, 64], 128),
            &memref("bf16", vec![2, 100, 3, 64]),
        )
        .unwrap();
        assert_eq!(inner.global_dim, vec![64, 3, 100, 2]);
        assert_eq!(inner.global_strides, vec![128, 3 * 128, 100 * 3 * 128]);
        assert_eq!(inner.box_dim, vec![64, 1, 64, 1]);
        // Three batch axes: rank 5, TMA's most.
        let five = TiledMap::for_arg(
            &map("f16", vec![1, 1, 1, 64, 64], 128),
            &memref("f16", vec![2, 1, 3, 72, 136]),
        )
        .unwrap();
        assert_eq!(five.global_dim, vec![136, 72, 3, 1, 2]);
        assert_eq!(
            five.global_strides,
            vec![272, 272 * 72, 272 * 72 * 3, 272 * 72 * 3]
        );
        assert_eq!(five.box_dim, vec![64, 64, 1, 1, 1]);
        // A weight shared by every batch index keeps its own rank: W [136, 96] (n, k).
        let w = TiledMap::for_arg(
            &map("f16", vec![48, 64], 128),
            &memref("f16", vec![136, 96]),
        )
        .unwrap();
        assert_eq!((w.global_dim, w.box_dim), (vec![96, 136], vec![64, 48]));
        // Four batch axes would be rank 6.
        let e = TiledMap::for_arg(
            &map("f16", vec![1, 1, 1, 1, 64, 64], 128),
            &memref("f16", vec![2, 1, 2, 1, 64, 64]),
        )
        .unwrap_err();
        assert!(e.contains("rank 6"), "{e}");
    }

    #[test]
    fn maps_outside_the_drivers_limits_are_refused_with_the_reason() {
        let err = |m: ArgManifest, of: ArgManifest| TiledMap::for_arg(&m, &of).unwrap_err();
        // 3 f16 per row: a 6-byte row stride.
        assert!(err(map("f16", vec![8, 8], 0), memref("f16", vec![16, 3])).contains("16 bytes"));
        // 72 f16 = 144 bytes per box row under a 128-byte swizzle.
        assert!(
            err(map("f16", vec![8, 72], 128), memref("f16", vec![16, 128]))
                .contains("wider than the 128-byte swizzle")
        );
        assert!(
            err(map("f16", vec![300, 64], 128), memref("f16", vec![512, 64])).contains("[1, 256]")
        );
        assert!(err(map("f16", vec![8, 64], 128), memref("f16", vec![4, 64])).contains("within"));
        // 4 f16 = 8 bytes per box row.
        assert!(
            err(map("f16", vec![8, 4], 0), memref("f16", vec![8, 64])).contains("multiple of 16")
        );
        assert!(
            err(map("f16", vec![8, 64], 48), memref("f16", vec![8, 64])).contains("swizzle of 48")
        );
        assert!(err(map("f32", vec![8, 64], 0), memref("f16", vec![8, 64])).contains("differs"));
        assert!(err(map("f16", vec![8], 0), memref("f16", vec![8, 64])).contains("rank-1 box"));
        assert!(err(map("c64", vec![8, 8], 0), memref("c64", vec![8, 8])).contains("no TMA"));
        let mut m = map("f16", vec![8, 8], 0);
        m.tensor_map = None;
        assert!(err(m, memref("f16", vec![8, 8])).contains("without its map"));
    }

    #[test]
    fn an_encoded_map_is_128_bytes_in_qword_order() {
        let m = CUtensorMap {
            opaque: std::array::from_fn(|i| i as u64 + 1),
        };
        let b = map_bytes(&m);
        assert_eq!(b.len(), TENSOR_MAP_BYTES);
        assert_eq!(&b[..8], &1u64.to_le_bytes());
        assert_eq!(&b[120..], &16u64.to_le_bytes());
        assert_eq!(std::mem::size_of::<CUtensorMap>(), TENSOR_MAP_BYTES);
        assert_eq!(std::mem::align_of::<CUtensorMap>() % 64, 0);
    }
}
