//! The ONNX backend node tests of this family (inputs and expected outputs written out
//! by a script from `onnx.backend.test.case.node.collect_testcases`), when
//! `RTILE_NN_NODE_CASES` names the file.

use rtile_dialects::te::model::ElemType;
use rtile_runtime::tensor::Tensor;

use super::{A, Attrs, In, run_n};

fn parse_shape(s: &str) -> Vec<i64> {
    if s == "s" {
        vec![]
    } else {
        s.split('x').map(|d| d.parse().unwrap()).collect()
    }
}

#[test]
#[ignore]
fn onnx_node_cases() {
    let Ok(path) = std::env::var("RTILE_NN_NODE_CASES") else {
        return;
    };
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let (mut pass, mut fail, mut err) = (0, Vec::new(), Vec::new());
    while let Some(l) = lines.next() {
        let h: Vec<&str> = l.split(' ').collect();
        assert_eq!(h[0], "case");
        let (name, op, opset, nout) = (
            h[1].to_string(),
            h[2].to_string(),
            h[3].parse::<i64>().unwrap(),
            h[4].parse::<usize>().unwrap(),
        );
        let mut attrs = Attrs::default();
        let mut inputs: Vec<In> = Vec::new();
        let mut outputs: Vec<(String, Vec<i64>, Vec<f64>)> = Vec::new();
        let mut skip = false;
        for l in lines.by_ref() {
            if l == "end" {
                break;
            }
            let p: Vec<&str> = l.split(' ').collect();
            match p[0] {
                "attr" => {
                    let v = match p[2] {
                        "i" => A::I(p[3].parse().unwrap()),
                        "is" => A::Is(
                            p[3..]
                                .iter()
                                .filter(|s| !s.is_empty())
                                .map(|s| s.parse().unwrap())
                                .collect(),
                        ),
                        "f" => A::F(p[3].parse().unwrap()),
                        _ => A::S(Box::leak(p[3..].join(" ").into_boxed_str())),
                    };
                    attrs.0.insert(p[1].to_string(), v);
                }
                "input" => {
                    if p[2] == "none" {
                        inputs.push(In::None);
                        continue;
                    }
                    let shape = parse_shape(p[3]);
                    let vals: Vec<&str> =
                        p[4..].iter().cloned().filter(|s| !s.is_empty()).collect();
                    if p[2] == "i64" {
                        inputs.push(In::Ints(vals.iter().map(|s| s.parse().unwrap()).collect()));
                        continue;
                    }
                    let kw = if p[2] == "bool" { "i1" } else { p[2] };
                    let Some(t) = ElemType::from_keyword(kw) else {
                        skip = true;
                        continue;
                    };
                    let data = vals.iter().map(|s| s.parse::<f64>().unwrap()).collect();
                    inputs.push(In::T(Tensor::from_data(shape, t, data).unwrap()));
                }
                "output" => {
                    let vals = p[4..]
                        .iter()
                        .filter(|s| !s.is_empty())
                        .map(|s| s.parse::<f64>().unwrap())
                        .collect();
                    outputs.push((p[2].to_string(), parse_shape(p[3]), vals));
                }
                _ => panic!("{l}"),
            }
        }
        if skip {
            err.push(format!("{name}: skipped (element type)"));
            continue;
        }
        match run_n(&op, opset, inputs, &attrs, nout) {
            Err(e) => err.push(format!("{name}: {e}")),
            Ok(got) => {
                let mut ok = true;
                for (g, (_, shape, want)) in got.iter().zip(&outputs) {
                    if &g.shape != shape {
                        ok = false;
                        fail.push(format!("{name}: shape {:?} vs {:?}", g.shape, shape));
                        break;
                    }
                    for (a, b) in g.data.iter().zip(want) {
                        if !((a - b).abs() <= 1e-7 + 1e-3 * b.abs()
                            || (a.is_nan() && b.is_nan())
                            || a == b)
                        {
                            ok = false;
                            fail.push(format!("{name}: {a} vs {b}"));
                            break;
                        }
                    }
                    if !ok {
                        break;
                    }
                }
                if ok {
                    pass += 1;
                }
            }
        }
    }
    println!(
        "pass {pass}\nFAIL {}\n{}\nERR {}\n{}",
        fail.len(),
        fail.join("\n"),
        err.len(),
        err.join("\n")
    );
}
