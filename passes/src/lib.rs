//! rtile's passes and analyses, one module per pass, named after its flag.
pub mod construct_rtile;
pub mod device;
