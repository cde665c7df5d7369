//! Helpers shared by the simulator's integration tests.

use rtile_runtime::sim::ops::Num;

/// Deterministic uniform values in [-2, 2) (xorshift), rounded to `elem`.
pub fn random(n: usize, seed: u64, elem: Num) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            elem.round(((s >> 11) as f64 / (1u64 << 53) as f64) * 4.0 - 2.0)
        })
        .collect()
}
