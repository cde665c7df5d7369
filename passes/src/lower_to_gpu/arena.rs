//! The intermediates of a lowered function in one device arena: each intermediate buffer
//! is live from the launch that writes it to the last launch that reads it (closed
//! interval, so a kernel's output never shares bytes with one of its own inputs), and gets
//! a byte offset in the arena such that no two buffers live at the same launch overlap.
//!
//! The rule (greedy by size, best fit; as TensorFlow Lite's `GreedyBySize` planner and
//! Pisarchyk & Lee, "Efficient Memory Management for Deep Neural Net Inference", 2020, §4):
//! buffers are placed one at a time, largest first (ties: earlier first launch, then
//! earlier buffer). A buffer's candidates are the gaps between the already placed buffers
//! whose lifetimes overlap its own (sorted by offset), plus the space above the highest of
//! them; it takes the smallest gap it fits in (lowest offset on ties), else the space
//! above. Every size is rounded up to [`ARENA_ALIGN`] bytes, so every offset is a multiple
//! of it. The arena's size, the peak device memory of the intermediates, is the highest
//! end.

/// Alignment of every buffer in the arena, bytes: what `cudaMalloc` guarantees for a
/// separate allocation, so kernels see the same alignment (16-byte vector loads, 32-byte
/// sectors, 128-byte lines) as with one allocation per buffer.
pub const ARENA_ALIGN: u64 = 256;

/// One intermediate: its size in bytes and the launches (indices in launch order) from
/// the one that writes it to the last that reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lifetime {
    pub bytes: u64,
    pub first: usize,
    pub last: usize,
}

impl Lifetime {
    /// Whether both are live at some launch.
    pub fn overlaps(&self, other: &Lifetime) -> bool {
        self.first <= other.last && other.first <= self.last
    }
    /// The size rounded up to [`ARENA_ALIGN`].
    pub fn aligned_bytes(&self) -> u64 {
        self.bytes.div_ceil(ARENA_ALIGN) * ARENA_ALIGN
    }
}

/// Where each buffer lies in the arena, and the arena's size.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ArenaPlan {
    /// Byte offset of buffer `i` (a multiple of [`ARENA_ALIGN`]).
    pub offsets: Vec<u64>,
    /// The arena's size in bytes: the peak device memory of the intermediates.
    pub peak_bytes: u64,
}

/// Places `buffers` in one arena by the rule of this module's documentation.
pub fn assign(buffers: &[Lifetime]) -> ArenaPlan {
    let mut order: Vec<usize> = (0..buffers.len()).collect();
    order.sort_by_key(|&i| {
        (
            std::cmp::Reverse(buffers[i].aligned_bytes()),
            buffers[i].first,
            i,
        )
    });
    let mut offsets = vec![0u64; buffers.len()];
    let mut placed: Vec<usize> = Vec::new();
    let mut peak = 0u64;
    for i in order {
        let size = buffers[i].aligned_bytes();
        let mut busy: Vec<(u64, u64)> = placed
            .iter()
            .filter(|&&j| buffers[j].overlaps(&buffers[i]))
            .map(|&j| (offsets[j], offsets[j] + buffers[j].aligned_bytes()))
            .collect();
        busy.sort_unstable();
        // (gap size, offset) of the best gap so far; `top` the end of the busy prefix.
        let mut best: Option<(u64, u64)> = None;
        let mut top = 0u64;
        for (start, end) in busy {
            if start > top {
                let gap = start - top;
                if gap >= size && best.is_none_or(|(g, _)| gap < g) {
                    best = Some((gap, top));
                }
            }
            top = top.max(end);
        }
        let at = best.map_or(top, |(_, o)| o);
        offsets[i] = at;
        peak = peak.max(at + size);
        placed.push(i);
    }
    ArenaPlan {
        offsets,
        peak_bytes: peak,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lt(kib: u64, first: usize, last: usize) -> Lifetime {
        Lifetime {
            bytes: kib * 1024,
            first,
            last,
        }
    }

    /// No two buffers live at one launch share a byte.
    fn disjoint(b: &[Lifetime], p: &ArenaPlan) -> bool {
        (0..b.len()).all(|i| {
            (0..i).all(|j| {
                !b[i].overlaps(&b[j])
                    || p.offsets[i] + b[i].aligned_bytes() <= p.offsets[j]
                    || p.offsets[j] + b[j].aligned_bytes() <= p.offsets[i]
            })
        })
    }

    /// The most bytes live at any one launch: no placement can use less.
    fn live_bound(b: &[Lifetime]) -> u64 {
        let n = b.iter().map(|x| x.last + 1).max().unwrap_or(0);
        (0..n)
            .map(|t| {
                b.iter()
                    .filter(|x| x.first <= t && t <= x.last)
                    .map(Lifetime::aligned_bytes)
                    .sum()
            })
            .max()
            .unwrap_or(0)
    }

    #[test]
    fn a_chain_reuses_every_other_buffer() {
        // t0 -> t1 -> t2 -> t3: each buffer lives for two launches.
        let b = [lt(4, 0, 1), lt(8, 1, 2), lt(4, 2, 3), lt(2, 3, 4)];
        let p = assign(&b);
        assert!(disjoint(&b, &p));
        // 8 KiB at 0; t0 and t2 above it at 8 KiB; t3 overlaps only t2: below it, at 0.
        assert_eq!(p.offsets, vec![8192, 0, 8192, 0]);
        assert_eq!(p.peak_bytes, 12 * 1024);
        assert_eq!(p.peak_bytes, live_bound(&b));
    }

    #[test]
    fn the_smallest_fitting_gap_wins() {
        // While launches 5..9 run, the long-lived A, C and E leave gaps of 4 KiB (at 8 KiB,
        // B's bytes) and 2 KiB (at 16 KiB, D's).
        let b = [
            lt(8, 0, 9), // A: [0, 8)
            lt(4, 0, 2), // B: [8, 12)
            lt(4, 0, 9), // C: [12, 16)
            lt(2, 0, 2), // D: [16, 18)
            lt(2, 0, 9), // E: [18, 20)
            lt(2, 5, 9), // F: best fit takes the 2 KiB gap (first fit would take 8 KiB)
            lt(1, 5, 9), // H: only the 4 KiB gap is left
        ];
        let p = assign(&b);
        assert!(disjoint(&b, &p));
        let kib: Vec<u64> = p.offsets.iter().map(|o| o / 1024).collect();
        assert_eq!(kib, vec![0, 8, 12, 16, 18, 16, 8]);
        assert_eq!(p.peak_bytes, 20 * 1024);
    }

    #[test]
    fn sizes_are_aligned_and_empty_is_zero() {
        let b = [
            Lifetime {
                bytes: 4,
                first: 0,
                last: 1,
            },
            Lifetime {
                bytes: 300,
                first: 1,
                last: 1,
            },
        ];
        let p = assign(&b);
        assert_eq!(p.offsets, vec![512, 0]);
        assert_eq!(p.peak_bytes, 768);
        assert!(p.offsets.iter().all(|o| o % ARENA_ALIGN == 0));
        assert_eq!(assign(&[]), ArenaPlan::default());
    }

    #[test]
    fn random_lifetimes_never_overlap_and_stay_near_the_bound() {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |m: u64| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s % m
        };
        for _ in 0..300 {
            let n = 1 + next(24) as usize;
            let b: Vec<Lifetime> = (0..n)
                .map(|_| {
                    let first = next(20) as usize;
                    Lifetime {
                        bytes: 1 + next(64 * 1024),
                        first,
                        last: first + next(6) as usize,
                    }
                })
                .collect();
            let p = assign(&b);
            assert!(disjoint(&b, &p), "{b:?} -> {p:?}");
            let top = (0..n)
                .map(|i| p.offsets[i] + b[i].aligned_bytes())
                .max()
                .unwrap_or(0);
            assert_eq!(p.peak_bytes, top);
            assert!(p.peak_bytes >= live_bound(&b));
            // Never worse than giving every buffer its own space.
            assert!(p.peak_bytes <= b.iter().map(Lifetime::aligned_bytes).sum());
        }
    }
}
