//! rtile's runtime on the host: tensors, a seeded RNG, `.npy` I/O and the te reference
//! interpreter (the oracle every lowering is checked against).

pub mod driver;
pub mod func;
pub mod interp;
pub mod npy;
pub mod round;
pub mod sim;
pub mod tensor;
pub mod tensor_file;

pub use interp::{Accumulate, eval_compute, eval_compute_reference};
pub use tensor::{SplitMix64, Tensor};
