//! Fused kernels whose shared stages are read at down- and upsampled indices (issue 14,
//! Welder Build item 5): a producer computed into shared memory (Welder §3.2) and read by
//! its consumers at `[y]`, `[y floordiv 2]`, `[2y]`, `[2y + 1]`, mixed in one kernel, as the
//! interpolate pyramid reads one level at `[y, x]` and the next at `[y floordiv 2, ..]`.
//! The kernels are written connected (`tilegraph.kernel`, the block tile chosen here,
//! partial last blocks included) or, for pyramid steps, connected by `--connect` (whose
//! choice the lowering must then accept); lowered by `--lower-to-gpu` and run in the
//! simulator: the function against the f64 oracle of its unfused te chain, each kernel
//! against its members' chain (< 1e-5, any simulator error fails, shared races and
//! uninitialised shared reads included).

use proptest::prelude::*;
use rtile_runtime::sim::{run_check_text, run_models_text};

mod common;

/// How a read indexes one dim of the shared stage (of twice the sink's extent).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Read {
    /// `[y]`: moves with the block as the sink does.
    Plain,
    /// `[y floordiv 2]`: an upsampling read, half the motion.
    Half,
    /// `[2y]`: a downsampling read, twice the motion.
    Double,
    /// `[2y + 1]`.
    DoublePlus,
}

impl Read {
    /// The index read at sink point `y`.
    fn at(self, y: i64) -> i64 {
        match self {
            Read::Plain => y,
            Read::Half => y.div_euclid(2),
            Read::Double => 2 * y,
            Read::DoublePlus => 2 * y + 1,
        }
    }
    fn index(self, v: &str) -> String {
        match self {
            Read::Plain => v.to_string(),
            Read::Half => format!("{v} floordiv 2"),
            Read::Double => format!("{v} * 2"),
            Read::DoublePlus => format!("{v} * 2 + 1"),
        }
    }
}

/// The producer's tile along one dim that `--connect`'s propagation asks of it (§3.1, the
/// verifier checks it): the sink's block tile `t` over `e` points (the producer has `2e`),
/// its reads `reads` of the dim. Computed here by brute force over the blocks: the span
/// covering every read in every block, relative to a start moving as one of the reads
/// does (the best of them); the single reads' bound when a halved read of an odd tile does
/// not move by whole points.
fn model_tile(reads: &[Read], t: i64, e: i64) -> i64 {
    let blocks = (e + t - 1) / t;
    let single = |r: &Read| match r {
        Read::Plain => t,
        Read::Double | Read::DoublePlus => 2 * (t - 1) + 1,
        Read::Half if t % 2 == 0 => t / 2,
        Read::Half => (t - 1) / 2 + 1,
    };
    let widest = reads.iter().map(single).max().unwrap_or(1).min(2 * e);
    if blocks > 1 && t % 2 == 1 && reads.iter().any(|r| matches!(r, Read::Half)) {
        return widest;
    }
    let motion = |r: &Read| if blocks > 1 { r.at(t) - r.at(0) } else { 0 };
    let cover = reads
        .iter()
        .map(|m| {
            let (mut lo, mut hi) = (i64::MAX, i64::MIN);
            for b in 0..blocks {
                for r in reads {
                    lo = lo.min(r.at(b * t) - motion(m) * b);
                    hi = hi.max(r.at(b * t + t - 1) - motion(m) * b);
                }
            }
            hi - lo + 1
        })
        .min()
        .unwrap_or(1);
    cover.min(2 * e).max(widest)
}

/// A kernel of two members: `P` (over `[2h, 2w]`, from the argument) computed into shared
/// memory, and the sink (over `[h, w]`, block tile `block`) summing `P` at `reads`.
fn one_stage(h: i64, w: i64, block: [i64; 2], reads: &[(Read, Read)]) -> String {
    let (ph, pw) = (2 * h, 2 * w);
    let terms: Vec<String> = reads
        .iter()
        .enumerate()
        .map(|(i, (ry, rx))| {
            format!(
                "%p[{}, {}] * {:?}",
                ry.index("%y"),
                rx.index("%x"),
                1.0 / (i + 1) as f64
            )
        })
        .collect();
    let shared = vec!["\"shared\""; reads.len()].join(", ");
    let ys: Vec<Read> = reads.iter().map(|r| r.0).collect();
    let xs: Vec<Read> = reads.iter().map(|r| r.1).collect();
    let tile = [model_tile(&ys, block[0], h), model_tile(&xs, block[1], w)];
    format!(
        r#"func.func @rs(%X: tensor<{ph}x{pw}xf32>) -> tensor<{h}x{w}xf32> {{
  %0 = tilegraph.kernel -> (tensor<{h}x{w}xf32>) {{
    %p = te.compute (%y, %x) in [{ph}, {pw}] : (tensor<{ph}x{pw}xf32>) -> tensor<{ph}x{pw}xf32> {{
      tanh(%X[%y, %x]) + 0.25
    }} {{tilegraph.connect = ["global"], tilegraph.tiles = {{shared = array<i64: {}, {}>}}}}
    %s = te.compute (%y, %x) in [{h}, {w}] : (tensor<{ph}x{pw}xf32>) -> tensor<{h}x{w}xf32> {{
      {}
    }} {{tilegraph.connect = [{shared}], tilegraph.tiles = {{register = array<i64: 1, 1>, shared = array<i64: {}, {}>}}}}
    tilegraph.yield %s : tensor<{h}x{w}xf32>
  }} {{tilegraph.device = "v100"}}
  func.return %0 : tensor<{h}x{w}xf32>
}}
"#,
        tile[0],
        tile[1],
        terms.join(" + "),
        block[0],
        block[1]
    )
}

/// The interpolate pyramid's pattern in one kernel with two shared stages: `D1` (over
/// `[2h, 2w]`), `D2 = D1` downsampled (`[2y, 2x]` and `[2y + 1, 2x + 1]`, over `[h, w]`),
/// and the sink over `[2h, 2w]` reading `D1[y, x]` and `D2[y floordiv 2, x floordiv 2]`:
/// `D1` is read at motions 2·(D2's) and the sink's, which agree when the block is even
/// (`--connect`'s propagation asks `D1` for one tile from both consumers only then).
fn pyramid(h: i64, w: i64, block: [i64; 2]) -> String {
    let (ph, pw) = (2 * h, 2 * w);
    let half = |t: i64, e: i64| model_tile(&[Read::Half], t, e);
    let (t2y, t2x) = (half(block[0], ph), half(block[1], pw));
    format!(
        r#"func.func @pyr(%X: tensor<{ph}x{pw}xf32>) -> tensor<{ph}x{pw}xf32> {{
  %0 = tilegraph.kernel -> (tensor<{ph}x{pw}xf32>) {{
    %d1 = te.compute (%y, %x) in [{ph}, {pw}] : (tensor<{ph}x{pw}xf32>) -> tensor<{ph}x{pw}xf32> {{
      %X[%y, %x] * 0.5 + 1.0
    }} {{tilegraph.connect = ["global"], tilegraph.tiles = {{shared = array<i64: {}, {}>}}}}
    %d2 = te.compute (%y, %x) in [{h}, {w}] : (tensor<{ph}x{pw}xf32>) -> tensor<{h}x{w}xf32> {{
      (%d1[%y * 2, %x * 2] + %d1[%y * 2 + 1, %x * 2 + 1]) * 0.5
    }} {{tilegraph.connect = ["shared", "shared"], tilegraph.tiles = {{shared = array<i64: {t2y}, {t2x}>}}}}
    %u = te.compute (%y, %x) in [{ph}, {pw}] : (tensor<{ph}x{pw}xf32>, tensor<{h}x{w}xf32>) -> tensor<{ph}x{pw}xf32> {{
      0.5 * %d1[%y, %x] + 0.5 * %d2[%y floordiv 2, %x floordiv 2]
    }} {{tilegraph.connect = ["shared", "shared"], tilegraph.tiles = {{register = array<i64: 1, 1>, shared = array<i64: {}, {}>}}}}
    tilegraph.yield %u : tensor<{ph}x{pw}xf32>
  }} {{tilegraph.device = "v100"}}
  func.return %0 : tensor<{ph}x{pw}xf32>
}}
"#,
        block[0], block[1], block[0], block[1]
    )
}

/// An unconnected pyramid step for `--connect` to decide: `D1` over `[2h, 2w]`, `D2` its
/// 2x2 average, and `U` over `[2h, 2w]` reading `D1` at `[y, x]` and `D2` at
/// `[y floordiv 2, x floordiv 2]` (the interpolate pipeline's levels); with `mixed`, a
/// fourth op reads `U` at `[2y, 2x]` beside `D2` at `[y, x]`, both over `[h, w]`.
fn pyramid_te(h: i64, w: i64, mixed: bool) -> String {
    let (ph, pw) = (2 * h, 2 * w);
    let (ret, ty) = if mixed {
        ("%m", format!("tensor<{h}x{w}xf32>"))
    } else {
        ("%u", format!("tensor<{ph}x{pw}xf32>"))
    };
    let tail = if mixed {
        format!(
            "  %m = te.compute (%y, %x) in [{h}, {w}] : (tensor<{ph}x{pw}xf32>, tensor<{h}x{w}xf32>) -> tensor<{h}x{w}xf32> {{ %u[%y * 2, %x * 2] - %d2[%y, %x] * 0.5 }}\n"
        )
    } else {
        String::new()
    };
    format!(
        r#"func.func @pyr(%X: tensor<{ph}x{pw}xf32>) -> {ty} {{
  %d1 = te.compute (%y, %x) in [{ph}, {pw}] : (tensor<{ph}x{pw}xf32>) -> tensor<{ph}x{pw}xf32> {{ tanh(%X[%y, %x]) + 0.5 }}
  %d2 = te.compute (%y, %x) in [{h}, {w}] : (tensor<{ph}x{pw}xf32>) -> tensor<{h}x{w}xf32> {{ (%d1[%y * 2, %x * 2] + %d1[%y * 2 + 1, %x * 2] + %d1[%y * 2, %x * 2 + 1] + %d1[%y * 2 + 1, %x * 2 + 1]) * 0.25 }}
  %u = te.compute (%y, %x) in [{ph}, {pw}] : (tensor<{ph}x{pw}xf32>, tensor<{h}x{w}xf32>) -> tensor<{ph}x{pw}xf32> {{ 0.5 * %d1[%y, %x] + 0.5 * %d2[%y floordiv 2, %x floordiv 2] }}
{tail}  func.return {ret} : {ty}
}}
"#
    )
}

/// `--lower-to-gpu` on connected `text`.
fn lower(text: &str) -> Result<String, String> {
    common::opt_flags(text, vec![("lower-to-gpu".into(), String::new())])
}

/// Lowers `text`, checks it is one kernel with `stages` shared stages, and runs it in the
/// simulator ([`simulate`]).
fn lower_and_check(text: &str, stages: usize) {
    let lowered = lower(text).unwrap_or_else(|log| panic!("refused:\n{log}\n{text}"));
    assert_eq!(lowered.matches("gpu.func @").count(), 1, "{lowered}");
    assert!(
        lowered.contains(&format!("rtile.shared_stages = {stages} ")),
        "expected {stages} shared stages:\n{lowered}"
    );
    simulate(&lowered, text);
}

#[test]
fn downsampling_reads_beside_a_plain_read_match_the_unfused_chain() {
    // [2y, 2x] and [2y + 1, 2x + 1] move twice as fast as [y, x]: one covering tile.
    let reads = [
        (Read::Double, Read::Double),
        (Read::DoublePlus, Read::DoublePlus),
        (Read::Plain, Read::Plain),
    ];
    // 13 x 10 in 4 x 4 blocks: partial last blocks along both dims.
    lower_and_check(&one_stage(13, 10, [4, 4], &reads), 1);
    lower_and_check(&one_stage(8, 8, [4, 8], &reads), 1);
}

#[test]
fn upsampling_reads_match_the_unfused_chain() {
    // floordiv 2 of an even block: exact, half the motion; of an odd one: the whole dim.
    let reads = [(Read::Half, Read::Half), (Read::Plain, Read::Half)];
    lower_and_check(&one_stage(12, 10, [4, 2], &reads), 1);
    lower_and_check(&one_stage(11, 9, [3, 4], &reads), 1);
    lower_and_check(&one_stage(7, 5, [1, 1], &reads), 1);
}

#[test]
fn the_pyramid_pattern_matches_the_unfused_chain() {
    // Even blocks, partial last blocks (18 x 14 in 4 x 4 and 8 x 6), one block along a dim.
    for block in [[4, 4], [8, 2], [8, 6], [18, 4]] {
        lower_and_check(&pyramid(9, 7, block), 2);
    }
}

/// Runs lowered `lowered` in the simulator: the function and each kernel against their
/// f64 oracles (< 1e-5).
fn simulate(lowered: &str, text: &str) {
    let runs = run_models_text("f.gpu.mlir", lowered, 3, &[], Default::default(), None)
        .expect("the simulator runs");
    assert!(!runs.is_empty(), "no host function ran:\n{lowered}");
    for run in &runs {
        assert!(run.within(1e-5), "{}\n{text}", run.text());
    }
    let report = run_check_text("f.gpu.mlir", lowered, 5).expect("every kernel runs");
    assert!(!report.kernels.is_empty(), "no kernel checked:\n{lowered}");
    for k in &report.kernels {
        assert!(k.within(1e-5), "{}: {}\n{text}", k.kernel, k.max_rel_err);
    }
}

fn read() -> impl Strategy<Value = Read> {
    prop_oneof![
        Just(Read::Plain),
        Just(Read::Half),
        Just(Read::Double),
        Just(Read::DoublePlus),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Random mixes of plain, halved and doubled reads of one shared stage, random extents
    /// and block tiles (partial last blocks when they do not divide): every kernel lowers
    /// as one fused kernel and matches the unfused chain's f64 oracle.
    #[test]
    fn random_resampling_reads_of_a_shared_stage_match(
        h in 1i64..14,
        w in 1i64..14,
        by in 1i64..9,
        bx in 1i64..9,
        reads in prop::collection::vec((read(), read()), 1..4),
    ) {
        let block = [by.min(h), bx.min(w)];
        // A read repeated is one operand of the sink (te merges identical reads).
        let mut reads = reads;
        let mut seen = Vec::new();
        reads.retain(|r| {
            let new = !seen.contains(r);
            seen.push(*r);
            new
        });
        lower_and_check(&one_stage(h, w, block, &reads), 1);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Pyramid steps of random sizes through `--connect` (a random device and level) and
    /// `--lower-to-gpu`: the kernels `--connect` picks are ones the lowering plans (its fit
    /// check asks the lowering: Welder §4.1), so the module always lowers, and it matches
    /// the unfused chain in the simulator.
    #[test]
    fn connected_pyramids_lower_and_match(
        h in 1i64..12,
        w in 1i64..12,
        mixed in any::<bool>(),
        device in prop_oneof![Just("v100"), Just("h100")],
        level in prop_oneof![Just("register"), Just("shared")],
    ) {
        let text = pyramid_te(h, w, mixed);
        let flags = vec![
            ("connect".into(), format!("device={device} connect-level={level}")),
            ("lower-to-gpu".into(), String::new()),
        ];
        let lowered = common::opt_flags(&text, flags).unwrap_or_else(|log| panic!("{log}\n{text}"));
        simulate(&lowered, &text);
    }
}
