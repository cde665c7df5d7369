//! Without a CUDA driver, rtile-run-cuda prints a clear message and exits with 2 (never a
//! panic). On a machine with CUDA the same command must get past the probe.

use std::process::Command;

#[test]
fn no_cuda_exits_2_with_a_message() {
    let dir = std::env::temp_dir().join(format!("rtile-nocuda-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ptx = dir.join("k.ptx");
    std::fs::write(&ptx, ".version 7.0\n.target sm_70\n.address_size 64\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rtile-run-cuda"))
        .arg(&ptx)
        .output()
        .expect("runs");
    let _ = std::fs::remove_dir_all(&dir);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    // SAFETY: only probes whether libcuda can be loaded.
    if unsafe { cudarc::driver::sys::is_culib_present() } {
        assert_ne!(out.status.code(), Some(2), "{stderr}");
        return;
    }
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no CUDA driver found"), "{stderr}");
}
