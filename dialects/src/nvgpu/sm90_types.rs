//! The sm_90 types of upstream's NVGPU dialect (`NVGPUTypes.td`), read from rtile's opaque
//! dialect types: `!nvgpu.tensormap.descriptor<tensor = memref<..>, swizzle = .., l2promo
//! = .., oob = .., interleave = ..>` (a TMA tensor map), `!nvgpu.warpgroup.descriptor<tensor
//! = memref<..>>` (a wgmma shared-memory matrix descriptor) and
//! `!nvgpu.warpgroup.accumulator<fragmented = vector<MxNxf32>>` (a warpgroup's accumulator).
//!
//! rtile keeps dialect types as their body text; these readers parse the few fields the
//! verifiers and back ends need, so a malformed body is a verifier message, never a panic.

use rtile::ir::types::Type;
use rtile::ir::{FloatKind, TypeKind};

/// A tensor map's shared-memory swizzle (`CUtensorMapSwizzle`; PTX ISA §5.5.6, "Tensor
/// Access Modes": the 16-byte chunk index within each span of `bytes()` bytes is XORed with
/// the row index modulo the span's 16-byte chunks).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Swizzle {
    /// `none`.
    None,
    /// `swizzle_32b`.
    B32,
    /// `swizzle_64b`.
    B64,
    /// `swizzle_128b`.
    B128,
}

impl Swizzle {
    /// The keyword in the type (`none`, `swizzle_32b`, ...).
    pub fn keyword(self) -> &'static str {
        match self {
            Swizzle::None => "none",
            Swizzle::B32 => "swizzle_32b",
            Swizzle::B64 => "swizzle_64b",
            Swizzle::B128 => "swizzle_128b",
        }
    }

    fn from_keyword(k: &str) -> Option<Swizzle> {
        [Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128]
            .into_iter()
            .find(|s| s.keyword() == k)
    }

    /// The swizzle span in bytes (0 for `none`): a box's innermost extent must be exactly
    /// this many bytes (upstream's `tma.async.load` verifier; `cuTensorMapEncodeTiled`
    /// allows at most this many).
    pub fn bytes(self) -> u64 {
        match self {
            Swizzle::None => 0,
            Swizzle::B32 => 32,
            Swizzle::B64 => 64,
            Swizzle::B128 => 128,
        }
    }
}

/// A scalar element type of these types (`f16`, `bf16`, `f32`, ...).
fn scalar(text: &str) -> Option<Type> {
    let k = match text {
        "f16" => FloatKind::F16,
        "bf16" => FloatKind::BF16,
        "f32" => FloatKind::F32,
        "f64" => FloatKind::F64,
        "tf32" => FloatKind::TF32,
        _ => {
            let w: u32 = text.strip_prefix('i')?.parse().ok()?;
            return Some(Type::int(w));
        }
    };
    Some(Type::float(k))
}

/// `AxBxT` (the part of `memref<AxBxT, ..>` or `vector<AxBxT>` before any `,`): shape and
/// element type.
fn shaped(text: &str) -> Option<(Vec<i64>, Type)> {
    let mut parts: Vec<&str> = text.trim().split('x').collect();
    let elem = scalar(parts.pop()?.trim())?;
    let shape = parts
        .iter()
        .map(|d| d.trim().parse::<i64>().ok().filter(|&d| d > 0))
        .collect::<Option<Vec<_>>>()?;
    (!shape.is_empty()).then_some((shape, elem))
}

/// Splits `k1 = v1, k2 = v2` at top-level commas (commas inside `<..>` belong to a value).
fn fields(body: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    let bytes = body.as_bytes();
    for i in 0..=bytes.len() {
        let c = bytes.get(i).copied().unwrap_or(b',');
        match c {
            b'<' => depth += 1,
            b'>' => depth -= 1,
            b',' if depth == 0 => {
                if let Some((k, v)) = body[start..i].split_once('=') {
                    out.push((k.trim(), v.trim()));
                }
                start = i + 1;
            }
            _ => {}
        }
    }
    out
}

/// The body of `!nvgpu.<prefix><...>` between the outer angle brackets.
fn body<'t>(t: &'t Type, prefix: &str) -> Option<&'t str> {
    match t.kind() {
        TypeKind::Dialect { dialect, body } if dialect == "nvgpu" => body
            .strip_prefix(prefix)?
            .strip_prefix('<')?
            .strip_suffix('>'),
        _ => None,
    }
}

/// The shape and element type of `memref<AxBxT, space>` written in a type body.
fn memref_text(text: &str) -> Option<(Vec<i64>, Type, String)> {
    let inner = text.strip_prefix("memref<")?.strip_suffix('>')?;
    let (dims, space) = match inner.split_once(',') {
        Some((d, s)) => (d, s.trim().to_string()),
        None => (inner, String::new()),
    };
    let (shape, elem) = shaped(dims)?;
    Some((shape, elem, space))
}

/// Whether a memory-space text names workgroup (shared) memory: `3` or
/// `#gpu.address_space<workgroup>`.
fn is_shared_space(space: &str) -> bool {
    space == "3" || space == "#gpu.address_space<workgroup>"
}

/// The barrier count of an `!nvgpu.mbarrier.group<memorySpace = .., num_barriers = N>`
/// (upstream's default, 1, where the type leaves it out, as `mlir-opt` prints it); `None`
/// when `t` is not such a type or the count is not a positive integer.
pub fn mbarrier_group_size(t: &Type) -> Option<u64> {
    let b = body(t, "mbarrier.group")?;
    match fields(b).iter().find(|(k, _)| *k == "num_barriers") {
        None => Some(1),
        Some((_, v)) => v.parse().ok().filter(|&n| n > 0),
    }
}

/// A decoded `!nvgpu.tensormap.descriptor<..>`.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorMapType {
    /// The box one load copies, outermost dimension first.
    pub box_shape: Vec<i64>,
    /// The element type.
    pub elem: Type,
    pub swizzle: Swizzle,
    /// `oob = zero` (elements outside the tensor read as zero) rather than `nan`.
    pub oob_zero: bool,
    /// `interleave = none`.
    pub interleave_none: bool,
    /// The `l2promo` keyword (`none`, `l2promo_64b`, ...).
    pub l2promo: String,
}

impl TensorMapType {
    /// Reads `t`; `None` when it is not a tensor map type, `Some(Err)` when its body is
    /// malformed.
    pub fn of(t: &Type) -> Option<Result<TensorMapType, String>> {
        let b = body(t, "tensormap.descriptor")?;
        Some(Self::parse(b))
    }

    fn parse(b: &str) -> Result<TensorMapType, String> {
        let f = fields(b);
        let get = |k: &str| f.iter().find(|(n, _)| *n == k).map(|(_, v)| *v);
        let (box_shape, elem, space) = get("tensor")
            .and_then(memref_text)
            .ok_or("tensor map needs 'tensor = memref<..>' with a static shape")?;
        if !is_shared_space(&space) {
            return Err("the tensor map's box memref must be in shared memory (3)".into());
        }
        let swizzle = get("swizzle")
            .and_then(Swizzle::from_keyword)
            .ok_or("tensor map needs 'swizzle = none|swizzle_32b|swizzle_64b|swizzle_128b'")?;
        let oob = get("oob").ok_or("tensor map needs 'oob = zero|nan'")?;
        if oob != "zero" && oob != "nan" {
            return Err(format!("unknown oob '{oob}' (zero or nan)"));
        }
        let interleave = get("interleave").ok_or("tensor map needs 'interleave = ..'")?;
        let l2promo = get("l2promo").ok_or("tensor map needs 'l2promo = ..'")?;
        Ok(TensorMapType {
            box_shape,
            elem,
            swizzle,
            oob_zero: oob == "zero",
            interleave_none: interleave == "none",
            l2promo: l2promo.to_string(),
        })
    }

    /// Bytes of one element.
    pub fn elem_bytes(&self) -> u64 {
        elem_bytes(&self.elem)
    }

    /// The box as a matrix `(rows, columns)`: columns its last dimension, rows the one
    /// other dimension above 1 when there is at most one (a batched operand's box is
    /// `[1, .., rows, .., 1, cols]`, one slice of each batch axis wherever the axis sits:
    /// its bytes are the `rows × cols` matrix's), a 1-d box as one row; `None` otherwise.
    pub fn matrix_box(&self) -> Option<(i64, i64)> {
        let (c, outer) = self.box_shape.split_last()?;
        match outer.iter().filter(|&&d| d != 1).count() {
            0 | 1 => Some((outer.iter().product(), *c)),
            _ => None,
        }
    }

    /// Bytes of one box (the transaction count one load completes on its barrier).
    pub fn box_bytes(&self) -> u64 {
        self.box_shape.iter().product::<i64>() as u64 * self.elem_bytes()
    }
}

/// Bytes of a scalar type (0 for non-scalars).
pub fn elem_bytes(t: &Type) -> u64 {
    match t.kind() {
        TypeKind::Float(FloatKind::F16 | FloatKind::BF16) => 2,
        TypeKind::Float(FloatKind::F32 | FloatKind::TF32) => 4,
        TypeKind::Float(FloatKind::F64) => 8,
        TypeKind::Integer { width, .. } => u64::from(*width).div_ceil(8),
        _ => 0,
    }
}

/// A decoded `!nvgpu.warpgroup.descriptor<tensor = memref<RxCxT, 3>>`.
#[derive(Clone, Debug, PartialEq)]
pub struct WarpgroupDescriptorType {
    /// The matrix shape (rows, columns) as the memref states it.
    pub shape: Vec<i64>,
    pub elem: Type,
}

impl WarpgroupDescriptorType {
    /// Reads `t`; `None` when it is not a warpgroup descriptor type.
    pub fn of(t: &Type) -> Option<Result<WarpgroupDescriptorType, String>> {
        let b = body(t, "warpgroup.descriptor")?;
        let f = fields(b);
        let parsed = f
            .iter()
            .find(|(k, _)| *k == "tensor")
            .and_then(|(_, v)| memref_text(v));
        Some(match parsed {
            Some((shape, elem, space)) if shape.len() == 2 && is_shared_space(&space) => {
                Ok(WarpgroupDescriptorType { shape, elem })
            }
            Some(_) => Err("a warpgroup descriptor describes a 2-d memref in shared memory".into()),
            None => Err("warpgroup descriptor needs 'tensor = memref<..>'".into()),
        })
    }
}

/// A decoded `!nvgpu.warpgroup.accumulator<fragmented = vector<MxNxf32>>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AccumulatorType {
    pub m: i64,
    pub n: i64,
}

impl AccumulatorType {
    /// Reads `t`; `None` when it is not an accumulator type. The shape must fit wgmma:
    /// M a multiple of 64 (one m64 instruction per 64 rows), N a multiple of 8 up to 256
    /// (PTX ISA §9.7.15.5, `wgmma.mma_async` shapes m64nNk16), f32 elements.
    pub fn of(t: &Type) -> Option<Result<AccumulatorType, String>> {
        let b = body(t, "warpgroup.accumulator")?;
        let f = fields(b);
        let v = f
            .iter()
            .find(|(k, _)| *k == "fragmented")
            .and_then(|(_, v)| v.strip_prefix("vector<")?.strip_suffix('>'))
            .and_then(shaped);
        Some(match v {
            Some((s, e)) if s.len() == 2 && e == Type::f32() => {
                let (m, n) = (s[0], s[1]);
                if m % 64 != 0 || n % 8 != 0 || n > 256 {
                    Err(format!(
                        "has type 'vector<{m}x{n}xf32>'. It does not fit into warp-group level (wgmma) matrix multiplication instruction (M a multiple of 64, N a multiple of 8 up to 256)"
                    ))
                } else {
                    Ok(AccumulatorType { m, n })
                }
            }
            _ => Err("accumulator needs 'fragmented = vector<MxNxf32>'".into()),
        })
    }

    /// f32 registers per thread: each 64-row slab spreads 64·N values over 128 threads.
    pub fn regs_per_thread(&self) -> usize {
        (self.m / 64 * self.n / 2) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dialect(body: &str) -> Type {
        Type::new(TypeKind::Dialect {
            dialect: "nvgpu".into(),
            body: body.into(),
        })
    }

    #[test]
    fn reads_tensor_map() {
        let t = dialect(
            "tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>",
        );
        let m = TensorMapType::of(&t).unwrap().unwrap();
        assert_eq!(m.box_shape, vec![128, 64]);
        assert_eq!(m.elem, Type::float(FloatKind::F16));
        assert_eq!(m.swizzle, Swizzle::B128);
        assert!(m.oob_zero);
        assert_eq!(m.box_bytes(), 16384);
        let bad = dialect(
            "tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = zigzag, l2promo = none, oob = zero, interleave = none>",
        );
        assert!(TensorMapType::of(&bad).unwrap().is_err());
        assert!(TensorMapType::of(&Type::f32()).is_none());
        assert_eq!(m.matrix_box(), Some((128, 64)));
        let batched = dialect(
            "tensormap.descriptor<tensor = memref<1x64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>",
        );
        let b = TensorMapType::of(&batched).unwrap().unwrap();
        assert_eq!((b.matrix_box(), b.box_bytes()), (Some((64, 64)), 8192));
        let two = dialect(
            "tensormap.descriptor<tensor = memref<2x64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>",
        );
        assert_eq!(TensorMapType::of(&two).unwrap().unwrap().matrix_box(), None);
        // One slice of two batch axes, one of them between the matrix's rows and columns.
        let mid = dialect(
            "tensormap.descriptor<tensor = memref<1x64x1x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>",
        );
        let mid = TensorMapType::of(&mid).unwrap().unwrap();
        assert_eq!((mid.matrix_box(), mid.box_bytes()), (Some((64, 64)), 8192));
        let spread = dialect(
            "tensormap.descriptor<tensor = memref<2x1x64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>",
        );
        assert_eq!(
            TensorMapType::of(&spread).unwrap().unwrap().matrix_box(),
            None
        );
    }

    #[test]
    fn reads_mbarrier_group_size() {
        let g = |b: &str| dialect(&format!("mbarrier.group<{b}>"));
        let ws = "memorySpace = #gpu.address_space<workgroup>";
        assert_eq!(
            mbarrier_group_size(&g(&format!("{ws}, num_barriers = 4"))),
            Some(4)
        );
        assert_eq!(mbarrier_group_size(&g(ws)), Some(1));
        assert_eq!(
            mbarrier_group_size(&g(&format!("{ws}, num_barriers = 0"))),
            None
        );
        assert_eq!(mbarrier_group_size(&Type::f32()), None);
    }

    #[test]
    fn reads_descriptor_and_accumulator() {
        let d = dialect(
            "warpgroup.descriptor<tensor = memref<64x128xbf16, #gpu.address_space<workgroup>>>",
        );
        let d = WarpgroupDescriptorType::of(&d).unwrap().unwrap();
        assert_eq!(d.shape, vec![64, 128]);
        assert_eq!(d.elem, Type::float(FloatKind::BF16));
        let a = dialect("warpgroup.accumulator<fragmented = vector<128x96xf32>>");
        let a = AccumulatorType::of(&a).unwrap().unwrap();
        assert_eq!((a.m, a.n, a.regs_per_thread()), (128, 96, 96));
        let odd = dialect("warpgroup.accumulator<fragmented = vector<96x128xf32>>");
        assert!(AccumulatorType::of(&odd).unwrap().is_err());
    }
}
