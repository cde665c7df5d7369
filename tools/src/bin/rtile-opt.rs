//! PLACEHOLDER: rtile-opt.
fn main() {}
