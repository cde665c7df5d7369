//! The data-movement operators (Concat, Split, Slice, Pad, Gather) against references
//! computed here.

use super::*;
#[test]
fn concat_selects_by_range() {
    let (a, b, c) = (
        data(&[2, 1, 3], 1),
        data(&[2, 2, 3], 2),
        data(&[2, 3, 3], 3),
    );
    let got = run1(
        "Concat",
        13,
        &[a.clone_in(), b.clone_in(), c.clone_in()],
        MapAttrs::new().with("axis", AttrValue::Int(-2)),
    );
    let want: Vec<f64> = (0..36)
        .map(|p| {
            let i = unravel(p, &[2, 6, 3]);
            let (t, j) = match i[1] {
                0 => (&a, 0),
                1..=2 => (&b, 1),
                _ => (&c, 3),
            };
            let t = tensor_of(t);
            t.data[ravel(&[i[0], i[1] - j, i[2]], &t.shape)]
        })
        .collect();
    assert_close(&got, &[2, 6, 3], &want, 0.0);
    assert!(
        run(
            "Concat",
            13,
            &[a.clone_in(), data(&[3, 1, 3], 4)],
            MapAttrs::new().with("axis", AttrValue::Int(1)),
            1
        )
        .is_err()
    );
}

#[test]
fn split_by_sizes_equal_parts_and_num_outputs() {
    let x = data(&[2, 7], 4);
    let t = tensor_of(&x);
    let col = |lo: i64, hi: i64| -> Vec<f64> {
        (0..2)
            .flat_map(|r| (lo..hi).map(move |c| (r, c)))
            .map(|(r, c)| t.data[(r * 7 + c) as usize])
            .collect()
    };
    let outs = run(
        "Split",
        13,
        &[x.clone_in(), ints(&[2, 5])],
        MapAttrs::new().with("axis", AttrValue::Int(-1)),
        2,
    )
    .unwrap();
    assert_close(&outs[0], &[2, 2], &col(0, 2), 0.0);
    assert_close(&outs[1], &[2, 5], &col(2, 7), 0.0);
    let outs = run(
        "Split",
        11,
        &[x.clone_in()],
        MapAttrs::new()
            .with("axis", AttrValue::Int(1))
            .with("split", AttrValue::Ints(vec![3, 4])),
        2,
    )
    .unwrap();
    assert_close(&outs[1], &[2, 4], &col(3, 7), 0.0);
    let outs = run(
        "Split",
        18,
        &[x.clone_in()],
        MapAttrs::new()
            .with("axis", AttrValue::Int(1))
            .with("num_outputs", AttrValue::Int(3)),
        3,
    )
    .unwrap();
    assert_close(&outs[2], &[2, 1], &col(6, 7), 0.0);
    assert!(
        run(
            "Split",
            13,
            &[x.clone_in()],
            MapAttrs::new().with("axis", AttrValue::Int(1)),
            2
        )
        .is_err()
    );
}

/// numpy's slice of one dim, naively.
fn np_slice(d: i64, start: i64, end: i64, step: i64) -> Vec<i64> {
    let norm = |v: i64| if v < 0 { v + d } else { v };
    let (mut s, e) = (norm(start), norm(end));
    let mut out = vec![];
    if step > 0 {
        s = s.clamp(0, d);
        let e = e.clamp(0, d);
        while s < e {
            out.push(s);
            s += step;
        }
    } else {
        s = s.clamp(-1, d - 1);
        let e = e.clamp(-1, d - 1);
        while s > e {
            out.push(s);
            s += step;
        }
    }
    out
}

#[test]
fn slice_negative_and_clamped() {
    let x = data(&[5, 6], 6);
    let t = tensor_of(&x);
    for (starts, ends, axes, steps) in [
        (vec![1, -1], vec![100, -100], vec![0, 1], vec![2, -2]),
        (vec![-3], vec![i64::MAX], vec![-1], vec![1]),
        (vec![4, 0], vec![-7, 6], vec![0, 1], vec![-1, 3]),
    ] {
        let got = run1(
            "Slice",
            13,
            &[
                x.clone_in(),
                ints(&starts),
                ints(&ends),
                ints(&axes),
                ints(&steps),
            ],
            MapAttrs::new(),
        );
        let mut sel = [(0..5).collect::<Vec<i64>>(), (0..6).collect()];
        for k in 0..starts.len() {
            let a = if axes[k] < 0 { axes[k] + 2 } else { axes[k] } as usize;
            sel[a] = np_slice(t.shape[a], starts[k], ends[k], steps[k]);
        }
        let want: Vec<f64> = sel[0]
            .iter()
            .flat_map(|&r| sel[1].iter().map(move |&c| (r, c)))
            .map(|(r, c)| t.data[(r * 6 + c) as usize])
            .collect();
        assert_close(
            &got,
            &[sel[0].len() as i64, sel[1].len() as i64],
            &want,
            0.0,
        );
    }
    let old = run1(
        "Slice",
        9,
        &[x.clone_in()],
        MapAttrs::new()
            .with("starts", AttrValue::Ints(vec![1]))
            .with("ends", AttrValue::Ints(vec![3]))
            .with("axes", AttrValue::Ints(vec![1])),
    );
    let want: Vec<f64> = (0..5)
        .flat_map(|r| (1..3).map(move |c| (r, c)))
        .map(|(r, c)| t.data[r * 6 + c])
        .collect();
    assert_close(&old, &[5, 2], &want, 0.0);
    let e = run(
        "Slice",
        13,
        &[x.clone_in(), ints(&[3]), ints(&[1]), ints(&[0])],
        MapAttrs::new(),
        1,
    )
    .unwrap_err();
    assert!(e.contains("empty"), "{e}");
}

#[test]
fn pad_constant_and_cropping() {
    let x = data(&[2, 3], 8);
    let t = tensor_of(&x);
    // Pad 1 row before, crop 1 column at the end, value 2.5; opset 18 with axes.
    let got = run1(
        "Pad",
        18,
        &[x.clone_in(), ints(&[1, 0, 0, -1]), scalar_f32(2.5)],
        MapAttrs::new(),
    );
    let want: Vec<f64> = (0..6)
        .map(|p| {
            let i = unravel(p, &[3, 2]);
            if i[0] == 0 {
                2.5
            } else {
                t.data[ravel(&[i[0] - 1, i[1]], &[2, 3])]
            }
        })
        .collect();
    assert_close(&got, &[3, 2], &want, 0.0);
    let axes = run1(
        "Pad",
        18,
        &[x.clone_in(), ints(&[2, 1]), In::Absent, ints(&[-1])],
        MapAttrs::new(),
    );
    let want: Vec<f64> = (0..12)
        .map(|p| {
            let i = unravel(p, &[2, 6]);
            if (2..5).contains(&i[1]) {
                t.data[ravel(&[i[0], i[1] - 2], &[2, 3])]
            } else {
                0.0
            }
        })
        .collect();
    assert_close(&axes, &[2, 6], &want, 0.0);
    let old = run1(
        "Pad",
        2,
        &[x.clone_in()],
        MapAttrs::new()
            .with("pads", AttrValue::Ints(vec![0, 1, 0, 0]))
            .with("value", AttrValue::Float(-1.0)),
    );
    assert_eq!(old.shape, vec![2, 4]);
    assert_eq!(old.data[0], -1.0);
    let e = run(
        "Pad",
        13,
        &[x.clone_in(), ints(&[0, 1, 0, 1])],
        MapAttrs::new().with("mode", AttrValue::Str("reflect".into())),
        1,
    )
    .unwrap_err();
    assert!(e.contains("reflect"), "{e}");
}

#[test]
fn gather_scalar_progression_and_general_indices() {
    let x = data(&[4, 3], 9);
    let t = tensor_of(&x);
    let idx = |v: &[i64], shape: &[i64]| {
        In::Const(ConstTensor {
            shape: shape.to_vec(),
            data: ConstData::I64(v.to_vec()),
        })
    };
    let got = run1(
        "Gather",
        13,
        &[x.clone_in(), idx(&[-1], &[])],
        MapAttrs::new(),
    );
    assert_close(&got, &[3], &t.data[9..12], 0.0);
    let got = run1(
        "Gather",
        13,
        &[x.clone_in(), idx(&[0, 2], &[2])],
        MapAttrs::new().with("axis", AttrValue::Int(-1)),
    );
    let want: Vec<f64> = (0..4)
        .flat_map(|r| [t.data[r * 3], t.data[r * 3 + 2]])
        .collect();
    assert_close(&got, &[4, 2], &want, 0.0);
    let iv = [3, 0, -3, 3, 1, 1];
    let got = run1(
        "Gather",
        13,
        &[x.clone_in(), idx(&iv, &[2, 3])],
        MapAttrs::new(),
    );
    let want: Vec<f64> = iv
        .iter()
        .flat_map(|&i| {
            let r = if i < 0 { i + 4 } else { i } as usize;
            t.data[r * 3..r * 3 + 3].to_vec()
        })
        .collect();
    assert_close(&got, &[2, 3, 3], &want, 0.0);
    assert!(
        run(
            "Gather",
            13,
            &[x.clone_in(), idx(&[4], &[1])],
            MapAttrs::new(),
            1
        )
        .is_err()
    );
}
