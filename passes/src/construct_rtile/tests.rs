//! Construction tests: the paper's worked examples and properties over random operators.
use super::*;
use crate::device::Device;

#[test]
fn matmul_v100_top10() {
    let dev = Device::builtin("v100").unwrap();
    let e = TensorExprInfo::matmul(4096, 4096, 4096, "f32");
    let r = construct(&e, &dev, &ConstructOptions::default()).unwrap();
    for p in &r.programs {
        eprintln!("{:?} {:?} pad {:?} grid {:?} thr {} est {:.1}", p.block, p.thread, p.pad, p.grid, p.threads, p.est_us);
    }
    assert_eq!(r.programs.len(), 10);
}
