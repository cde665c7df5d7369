//! `rtile-run-cuda`: CUDA execution on its own (what `rtile-run --cuda` does once the
//! flags are wired into `rtile-run`). Exit codes: 0 ok, 1 failure, 2 no CUDA here.
//!
//! ```text
//! rtile-run-cuda k.ptx --manifest k.json --reference naive.ptx --bench
//! rtile-run-cuda --profile-top-k c0.ptx,c1.ptx,c2.ptx
//! rtile-run-cuda --profile-device h100-measured.toml
//! ```

use clap::Parser;

#[derive(Parser, Debug)]
#[command(
    name = "rtile-run-cuda",
    about = "Run, check and time rtile PTX kernels on an NVIDIA GPU"
)]
struct Cli {
    #[command(flatten)]
    cuda: rtile_cuda::cli::CudaArgs,
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    std::process::ExitCode::from(rtile_cuda::cli::run(&cli.cuda) as u8)
}
