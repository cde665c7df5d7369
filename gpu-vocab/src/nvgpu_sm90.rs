//! The sm_90a ops of the vocabulary — mbarriers, TMA loads and warpgroup MMA — decoded once,
//! with the layouts every consumer shares: the swizzle of shared-memory addresses, the
//! element addresses of a wgmma operand tile, the matrix descriptor fields and the
//! accumulator's fragment layout. The LLVM IR emitter and the simulator both use these, so
//! the PTX rtile emits and the semantics rtile checks cannot drift apart.
//!
//! Sources: PTX ISA §9.7.9.25.5 (`cp.async.bulk.tensor`), §5.5.6 (tensor-map swizzle
//! modes), §9.7.13.15 (mbarrier), §9.7.15.5.1 (wgmma matrix descriptors and the canonical
//! shared-memory layouts), §9.7.15.5.2 (the m64nNk16 register fragments); upstream MLIR's
//! `nvgpu.warpgroup.mma` lowering (`--convert-nvgpu-to-nvvm`) for how one op becomes a
//! sequence of m64nNk16 instructions and how the descriptors advance between them.

use rtile::diagnostics::Diagnostic;
use rtile::ir::types::Type;
use rtile::ir::{Context, FloatKind, OpId, TypeKind, Value, ValueDef};

pub use rtile_dialects::nvgpu::sm90_types::{
    AccumulatorType, Swizzle, TensorMapType, WarpgroupDescriptorType, elem_bytes,
};
use rtile_dialects::nvgpu::warpgroup::tma_load_segments;

use crate::nvgpu::MmaElem;

/// The byte address `addr` (relative to a 1024-byte aligned shared buffer) after the
/// swizzle: the 16-byte chunk index (bits 4..) XORed with the 128-byte row index (bits 7..)
/// modulo the span's chunk count (CUTLASS's `Swizzle<3,4,3>` for 128 bytes, `<2,4,3>` for
/// 64, `<1,4,3>` for 32). A bijection on each 1024-byte block.
pub fn swizzle_byte(addr: u64, s: Swizzle) -> u64 {
    let mask = match s {
        Swizzle::None => return addr,
        Swizzle::B32 => 1,
        Swizzle::B64 => 3,
        Swizzle::B128 => 7,
    };
    addr ^ (((addr >> 7) & mask) << 4)
}

/// Whether `name` is one of the sm_90a ops (mbarrier, TMA, warpgroup MMA).
pub fn is_sm90_op(name: &str) -> bool {
    name.starts_with("nvgpu.mbarrier.")
        || name.starts_with("nvgpu.tma.")
        || name.starts_with("nvgpu.warpgroup.")
}

/// Whether `op` (a module or function) holds any sm_90a op: such a module targets the
/// chip's `a` variant (`sm_90a`).
pub fn uses_sm90_ops(ctx: &Context, op: OpId) -> bool {
    let mut found = false;
    ctx.walk(op, rtile::ir::WalkOrder::PreOrder, &mut |_, o| {
        found |= is_sm90_op(ctx.op_name(o));
    });
    found
}

/// The operand element types rtile executes for wgmma.
fn mma_elem(t: &Type) -> Option<MmaElem> {
    match t.kind() {
        TypeKind::Float(FloatKind::F16) => Some(MmaElem::F16),
        TypeKind::Float(FloatKind::BF16) => Some(MmaElem::BF16),
        _ => None,
    }
}

/// A 2-d shared tile as TMA loads write it: `cols / box_cols` boxes of `rows × box_cols`
/// elements stored one after another, each box row-major and contiguous, the whole swizzled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SharedTile {
    pub rows: u64,
    pub cols: u64,
    /// The tensor map box's inner extent (elements).
    pub box_cols: u64,
    pub elem_bytes: u64,
    pub swizzle: Swizzle,
}

impl SharedTile {
    /// Byte offset of element (r, c) from the tile's start, before swizzling.
    pub fn linear_byte(&self, r: u64, c: u64) -> u64 {
        let box_bytes = self.rows * self.box_cols * self.elem_bytes;
        (c / self.box_cols) * box_bytes + (r * self.box_cols + c % self.box_cols) * self.elem_bytes
    }

    /// Byte address of element (r, c) in a buffer whose tile starts at byte `base` (the
    /// buffer 1024-byte aligned), after swizzling.
    pub fn byte(&self, base: u64, r: u64, c: u64) -> u64 {
        swizzle_byte(base + self.linear_byte(r, c), self.swizzle)
    }

    /// Bytes of one 128-byte-wide row group of 8 rows: the stride between 8-row core-matrix
    /// groups (the descriptor's SBO).
    pub fn group_stride(&self) -> u64 {
        8 * self.box_cols * self.elem_bytes
    }

    /// Bytes of one box: the stride between boxes along the columns (B's LBO when B is
    /// MN-major).
    pub fn box_stride(&self) -> u64 {
        self.rows * self.box_cols * self.elem_bytes
    }
}

/// The PTX swizzle-mode field of a wgmma matrix descriptor (bits 62–63).
pub fn descriptor_swizzle_bits(s: Swizzle) -> u64 {
    match s {
        Swizzle::None => 0,
        Swizzle::B128 => 1,
        Swizzle::B64 => 2,
        Swizzle::B32 => 3,
    }
}

/// A wgmma shared-memory matrix descriptor (PTX ISA §9.7.15.5.1): start address, leading
/// and stride byte offsets (each stored without its 4 low bits, 14 bits wide) and the
/// swizzle mode; base offset 0 (the tiles are 1024-byte aligned).
pub fn matrix_descriptor(start: u64, lbo: u64, sbo: u64, s: Swizzle) -> u64 {
    let f = |x: u64| (x >> 4) & 0x3fff;
    f(start) | (f(lbo) << 16) | (f(sbo) << 32) | (descriptor_swizzle_bits(s) << 62)
}

/// A decoded `nvgpu.tma.async.load`.
#[derive(Clone, Debug, PartialEq)]
pub struct TmaLoad {
    pub map: TensorMapType,
    /// The destination memref (shared).
    pub dst: Value,
    /// The mbarrier group and the index of the barrier in it.
    pub barriers: Value,
    pub mbar_id: Value,
    /// Coordinates of the box's first element, innermost dimension first (PTX order).
    pub coords: Vec<Value>,
    /// The issuing thread copies only where this is true.
    pub predicate: Option<Value>,
}

impl TmaLoad {
    /// Decodes `op`, refusing what rtile does not execute: multicast (no clusters), rank
    /// above 5 (TMA's limit, `cuTensorMapEncodeTiled`'s `tensorRank`: a batch matmul's
    /// operand of up to 3 batch axes), interleaved maps, NaN fill, element types other than
    /// f16/bf16/f32.
    pub fn decode(ctx: &Context, op: OpId) -> Result<TmaLoad, Diagnostic> {
        let bad = |m: &str| Diagnostic::op_error(ctx, op, m);
        let [_, _, _, nc, _, nm, np] =
            tma_load_segments(ctx, op).ok_or_else(|| bad("malformed operand segments"))?;
        let ops = ctx.operands(op);
        let map = TensorMapType::of(ctx.value_type(ops[2]))
            .ok_or_else(|| bad("operand #2 must be a tensor map"))?
            .map_err(|e| bad(&e))?;
        if nm != 0 {
            return Err(bad(
                "rtile executes no multicast TMA loads (no thread-block clusters)",
            ));
        }
        if !(1..=5).contains(&nc) || map.box_shape.len() != nc {
            return Err(bad(
                "rtile executes TMA loads of boxes of rank 1 to 5 (the tensor map's rank) only",
            ));
        }
        if !map.interleave_none || !map.oob_zero {
            return Err(bad(
                "rtile executes tensor maps with interleave = none and oob = zero only",
            ));
        }
        if ![2, 4].contains(&map.elem_bytes()) {
            return Err(bad(
                "rtile executes TMA loads of f16, bf16 and f32 elements only",
            ));
        }
        Ok(TmaLoad {
            dst: ops[0],
            barriers: ops[1],
            coords: ops[3..3 + nc].to_vec(),
            mbar_id: ops[3 + nc],
            predicate: (np == 1).then(|| ops[4 + nc]),
            map,
        })
    }
}

/// The tensor map a `nvgpu.warpgroup.generate.descriptor` result was generated from, and
/// the shared memref it describes.
pub fn descriptor_source(ctx: &Context, desc: Value) -> Option<(Value, TensorMapType)> {
    let ValueDef::OpResult { op, .. } = ctx.value_def(desc) else {
        return None;
    };
    if ctx.op_name(op) != "nvgpu.warpgroup.generate.descriptor" {
        return None;
    }
    let ops = ctx.operands(op);
    let map = TensorMapType::of(ctx.value_type(*ops.get(1)?))?.ok()?;
    Some((ops[0], map))
}

/// A decoded `nvgpu.warpgroup.mma`: `D = A·B + C` over a warpgroup, A `m × k` either K-major
/// (TMA's copy of a row-major `m × k` A) or MN-major (`transposeA`: TMA's copy of a `k × m`
/// A stored m-contiguous, boxes of 64 k rows × 64 m, as an MN-major B's), B
/// `k × n` either MN-major (`transposeB`: TMA's copy of a row-major `k × n` B) or K-major
/// (no `transposeB`: TMA's copy of an `n × k` B stored k-contiguous, the same canonical
/// layout as A's; PTX ISA §9.7.15.5.1), both tiles 128-byte swizzled as TMA wrote them.
/// The descriptors' memrefs name the logical operands (A `m × k`, B `k × n`) in every case;
/// the layout is the tensor map's and the `transposeA`/`transposeB` properties'.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WarpgroupMma {
    pub m: u64,
    pub n: u64,
    pub k: u64,
    pub elem: MmaElem,
    /// A's tile: `m` rows, `k` columns when K-major; `k` rows, `m` columns when MN-major.
    pub a: SharedTile,
    /// B's tile: `k` rows, `n` columns when MN-major; `n` rows, `k` columns when K-major.
    pub b: SharedTile,
    /// Whether B is K-major (no `transposeB`; PTX `imm-trans-b` 0).
    pub b_k_major: bool,
    /// Whether A is MN-major (`transposeA`; PTX `imm-trans-a` 1, f16/bf16 only).
    pub a_m_major: bool,
}

/// One `wgmma.mma_async.m64nNk16` of a [`WarpgroupMma`]: which 64-row slab of the
/// accumulator it updates and the byte offsets of its A and B sub-tiles from the tiles'
/// starts (before swizzling; the descriptor's start address).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WgmmaStep {
    pub slab: u64,
    pub k_step: u64,
    pub a_offset: u64,
    pub b_offset: u64,
}

impl WarpgroupMma {
    /// Decodes `op`, tracing each descriptor to its `generate.descriptor` (the tensor map
    /// gives the tile's layout). rtile executes f16/bf16 operands, 128-byte swizzled
    /// tiles, A K-major or MN-major (`transposeA`, the layout TMA gives a `k × m` A) and B
    /// either MN-major (`transposeB`, the layout TMA gives a
    /// row-major `k × n` B) or K-major (the layout TMA gives an `n × k` B).
    pub fn decode(ctx: &Context, op: OpId) -> Result<WarpgroupMma, Diagnostic> {
        let bad = |m: &str| Diagnostic::op_error(ctx, op, m);
        let ops = ctx.operands(op);
        if ops.len() != 3 {
            return Err(bad("expects descriptorA, descriptorB and matrixC"));
        }
        let desc = |i: usize| {
            WarpgroupDescriptorType::of(ctx.value_type(ops[i]))
                .ok_or_else(|| bad("operands #0 and #1 must be warpgroup descriptors"))?
                .map_err(|e| bad(&e))
        };
        let (da, db) = (desc(0)?, desc(1)?);
        let acc = AccumulatorType::of(ctx.value_type(ops[2]))
            .ok_or_else(|| bad("operand #2 must be a warpgroup accumulator"))?
            .map_err(|e| bad(&e))?;
        let prop = |n: &str| ctx.inherent_attr(op, n).is_some();
        let a_m_major = prop("transposeA");
        let b_k_major = !prop("transposeB");
        let elem = mma_elem(&da.elem)
            .filter(|_| da.elem == db.elem)
            .ok_or_else(|| bad("rtile executes f16 or bf16 operands only"))?;
        let tile = |i: usize, rows: i64, cols: i64| {
            let (_, map) = descriptor_source(ctx, ops[i]).ok_or_else(|| {
                bad("a descriptor operand must come from nvgpu.warpgroup.generate.descriptor")
            })?;
            if map.swizzle != Swizzle::B128 {
                return Err(bad("rtile executes wgmma on 128-byte swizzled tiles only"));
            }
            // The tile's rows are the boxes' rows: m for A, k for an MN-major B, n for a
            // K-major one (whose descriptor memref is the logical k × n, transposed). A
            // batched operand's box is one slice, `[1, rows, cols]`.
            let Some((box_rows, box_cols)) = map.matrix_box() else {
                return Err(bad(&format!(
                    "operand #{i}'s tensor map box {:?} is not a matrix (extents of 1 but on its rows and last dimension)",
                    map.box_shape
                )));
            };
            if box_rows != rows {
                let (name, major) = match (i, a_m_major, b_k_major) {
                    (0, true, _) => ("transposeA", "present: A MN-major"),
                    (0, false, _) => ("transposeA", "absent: A K-major"),
                    (_, _, true) => ("transposeB", "absent: B K-major"),
                    _ => ("transposeB", "present: B MN-major"),
                };
                return Err(bad(&format!(
                    "operand #{i}'s tensor map boxes must have {rows} rows for this layout ({name} {major})"
                )));
            }
            Ok(SharedTile {
                rows: rows as u64,
                cols: cols as u64,
                box_cols: box_cols as u64,
                elem_bytes: 2,
                swizzle: map.swizzle,
            })
        };
        let (m, k, n) = (da.shape[0], da.shape[1], db.shape[1]);
        if acc.m != m || acc.n != n || db.shape[0] != k || m % 64 != 0 || k % 16 != 0 {
            return Err(bad(
                "shapes must compose as (M×K)·(K×N) into M×N, M % 64 = 0, K % 16 = 0",
            ));
        }
        Ok(WarpgroupMma {
            m: m as u64,
            n: n as u64,
            k: k as u64,
            elem,
            a: if a_m_major {
                tile(0, k, m)?
            } else {
                tile(0, m, k)?
            },
            b: if b_k_major {
                tile(1, n, k)?
            } else {
                tile(1, k, n)?
            },
            b_k_major,
            a_m_major,
        })
    }

    /// The wgmma instructions in issue order: slab-major, then k in steps of 16 (as
    /// upstream's lowering issues them, accumulating each slab in k order).
    pub fn steps(&self) -> Vec<WgmmaStep> {
        let mut v = Vec::new();
        for slab in 0..self.m / 64 {
            for k_step in 0..self.k / 16 {
                v.push(WgmmaStep {
                    slab,
                    k_step,
                    a_offset: if self.a_m_major {
                        self.a.linear_byte(16 * k_step, 64 * slab)
                    } else {
                        self.a.linear_byte(64 * slab, 16 * k_step)
                    },
                    b_offset: if self.b_k_major {
                        self.b.linear_byte(0, 16 * k_step)
                    } else {
                        self.b.linear_byte(16 * k_step, 0)
                    },
                });
            }
        }
        v
    }

    /// Where A's logical element (`i` of m, `x` of k) lies in its tile (row, column).
    pub fn a_at(&self, i: u64, x: u64) -> (u64, u64) {
        if self.a_m_major { (x, i) } else { (i, x) }
    }

    /// Where B's logical element (`x` of k, `j` of n) lies in its tile (row, column).
    pub fn b_at(&self, x: u64, j: u64) -> (u64, u64) {
        if self.b_k_major { (j, x) } else { (x, j) }
    }

    /// A's descriptor fields relative to a start address: K-major swizzled tiles ignore
    /// the leading offset (PTX: "assumed 1"), the stride offset steps 8-row groups; MN-major
    /// (`transposeA`) as an MN-major B's: the leading offset steps 64-column (m) boxes, the
    /// stride offset 8-row groups of k (CUTLASS's canonical MN-major SW128 layout
    /// `((T,8,m),(8,k)):((1,T,LBO),(8T,SBO))`).
    pub fn a_descriptor(&self, start: u64) -> u64 {
        if self.a_m_major {
            return matrix_descriptor(
                start,
                self.a.box_stride(),
                self.a.group_stride(),
                self.a.swizzle,
            );
        }
        matrix_descriptor(start, 16, self.a.group_stride(), self.a.swizzle)
    }

    /// B's descriptor fields: K-major as A's (8-row groups of n); MN-major, the leading
    /// offset steps 64-column boxes, the stride offset 8-row groups of k.
    pub fn b_descriptor(&self, start: u64) -> u64 {
        if self.b_k_major {
            return matrix_descriptor(start, 16, self.b.group_stride(), self.b.swizzle);
        }
        matrix_descriptor(
            start,
            self.b.box_stride(),
            self.b.group_stride(),
            self.b.swizzle,
        )
    }
}

/// Row and column within the accumulator of f32 number `r` of warpgroup thread `thread`
/// (0..128) for an `m × n` accumulator: the m64nNk16 `.f32` D fragment (PTX ISA
/// §9.7.15.5.2) per 64-row slab, slabs in order. Number `i` of a slab is
/// `4j + 2h + c`: row `16·warp + lane/4 + 8h`, column `8j + 2·(lane % 4) + c`.
pub fn acc_coord(thread: u64, r: u64, n: u64) -> (u64, u64) {
    let per_slab = n / 2;
    let (slab, i) = (r / per_slab, r % per_slab);
    let (warp, lane) = (thread / 32, thread % 32);
    let (j, h, c) = (i / 4, (i / 2) % 2, i % 2);
    (
        64 * slab + 16 * warp + lane / 4 + 8 * h,
        8 * j + 2 * (lane % 4) + c,
    )
}

/// The shape of a `nvgpu.warpgroup.mma.store` (or any op producing/consuming an
/// accumulator value `v`).
pub fn accumulator_of(ctx: &Context, v: Value) -> Option<AccumulatorType> {
    AccumulatorType::of(ctx.value_type(v))?.ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `rows × cols` f16 tile of 64-column boxes, 128-byte swizzled.
    fn t(rows: u64, cols: u64) -> SharedTile {
        SharedTile {
            rows,
            cols,
            box_cols: 64,
            elem_bytes: 2,
            swizzle: Swizzle::B128,
        }
    }

    #[test]
    fn swizzle_128b_permutes_chunks_within_rows() {
        // Row 0 is unchanged; row 1's chunk 0 moves to chunk 1; row 7's chunk 0 to chunk 7.
        assert_eq!(swizzle_byte(0, Swizzle::B128), 0);
        assert_eq!(swizzle_byte(128, Swizzle::B128), 128 + 16);
        assert_eq!(
            swizzle_byte(7 * 128 + 2, Swizzle::B128),
            7 * 128 + 7 * 16 + 2
        );
        // A bijection on every 1024-byte block, in every mode.
        for s in [Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128] {
            let mut seen: Vec<u64> = (0..2048).map(|a| swizzle_byte(a, s)).collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..2048).collect::<Vec<_>>(), "{s:?}");
        }
        assert_eq!(swizzle_byte(3 * 128, Swizzle::B32), 3 * 128 + 16);
        assert_eq!(swizzle_byte(3 * 128, Swizzle::B64), 3 * 128 + 48);
    }

    #[test]
    fn descriptor_fields() {
        // A 128×64 f16 K-major tile at shared address 0x400: start 0x40, LBO 1, SBO 64,
        // 128-byte swizzle (upstream's lowering writes SBO 64 and swizzle 1 too).
        let d = matrix_descriptor(0x400, 16, 1024, Swizzle::B128);
        assert_eq!(d & 0x3fff, 0x40);
        assert_eq!((d >> 16) & 0x3fff, 1);
        assert_eq!((d >> 32) & 0x3fff, 64);
        assert_eq!(d >> 62, 1);
    }

    #[test]
    fn steps_advance_like_upstream() {
        let w = WarpgroupMma {
            m: 128,
            n: 128,
            k: 64,
            elem: MmaElem::F16,
            a: t(128, 64),
            b: t(64, 128),
            b_k_major: false,
            a_m_major: false,
        };
        let s = w.steps();
        assert_eq!(s.len(), 8);
        // A: +32 bytes per k-step, +8192 per slab; B: +2048 per k-step (16 rows of 128 B).
        assert_eq!((s[1].a_offset, s[1].b_offset), (32, 2048));
        assert_eq!((s[4].slab, s[4].a_offset, s[4].b_offset), (1, 8192, 0));
        // B's leading offset is one box (64 rows × 128 B), its stride 8 rows.
        assert_eq!((w.b.box_stride(), w.b.group_stride()), (8192, 1024));
    }

    #[test]
    fn k_major_b_steps_like_a() {
        // B stored n × k (k contiguous): a 96-row tile of 64 k, one box.
        let w = WarpgroupMma {
            m: 64,
            n: 96,
            k: 64,
            elem: MmaElem::BF16,
            a: t(64, 64),
            b: t(96, 64),
            b_k_major: true,
            a_m_major: false,
        };
        let s = w.steps();
        assert_eq!(s.len(), 4);
        // +32 bytes per k-step along the 128-byte rows, as A.
        assert_eq!((s[1].b_offset, s[3].b_offset), (32, 96));
        // Element (k 17, n 9) is row 9, column 17 of the tile.
        assert_eq!(w.b_at(17, 9), (9, 17));
        // The descriptor: leading offset 1 (ignored), stride 1024 bytes, 128-byte swizzle.
        let d = w.b_descriptor(0x2000 + s[1].b_offset);
        assert_eq!(d & 0x3fff, (0x2000 + 32) >> 4);
        assert_eq!((d >> 16) & 0x3fff, 1);
        assert_eq!((d >> 32) & 0x3fff, 64);
        assert_eq!(d >> 62, 1);
        let mn = WarpgroupMma {
            b: t(64, 96),
            b_k_major: false,
            ..w
        };
        assert_eq!(mn.b_at(17, 9), (17, 9));
        assert_eq!(((mn.b_descriptor(0) >> 16) & 0x3fff) << 4, 64 * 128);
    }

    #[test]
    fn m_major_a_steps_by_boxes_and_k_rows() {
        // A stored k × m (m contiguous): a 64 k × 128 m tile of two 64-column boxes.
        let w = WarpgroupMma {
            m: 128,
            n: 64,
            k: 64,
            elem: MmaElem::F16,
            a: t(64, 128),
            b: t(64, 64),
            b_k_major: false,
            a_m_major: true,
        };
        let s = w.steps();
        // Slab 0: +2048 bytes (16 rows of k) per k-step; slab 1 starts at the second box.
        assert_eq!((s[1].a_offset, s[3].a_offset), (2048, 3 * 2048));
        assert_eq!((s[4].slab, s[4].a_offset), (1, 64 * 128));
        // Element (m 70, k 5) is row 5, column 70 of the tile.
        assert_eq!(w.a_at(70, 5), (5, 70));
        // The descriptor: leading offset one box (8192 bytes), stride 8 rows of k.
        let d = w.a_descriptor(0);
        assert_eq!(((d >> 16) & 0x3fff) << 4, 8192);
        assert_eq!(((d >> 32) & 0x3fff) << 4, 1024);
        let k_major = WarpgroupMma {
            a: t(128, 64),
            a_m_major: false,
            ..w
        };
        assert_eq!(k_major.a_at(70, 5), (70, 5));
        assert_eq!(k_major.steps()[1].a_offset, 32);
    }

    #[test]
    fn accumulator_fragment_covers_the_tile_once() {
        let (m, n) = (128u64, 96u64);
        let mut hit = vec![0u8; (m * n) as usize];
        for t in 0..128 {
            for r in 0..(m / 64 * n / 2) {
                let (row, col) = acc_coord(t, r, n);
                hit[(row * n + col) as usize] += 1;
            }
        }
        assert!(hit.iter().all(|&h| h == 1));
        // Thread 5 (warp 0, lane 5): rows 1 and 9, columns 2, 3, 10, ...
        assert_eq!(acc_coord(5, 0, n), (1, 2));
        assert_eq!(acc_coord(5, 2, n), (9, 2));
        assert_eq!(acc_coord(5, 4, n), (1, 10));
        assert_eq!(acc_coord(37, 1, n), (17, 3));
    }
}
