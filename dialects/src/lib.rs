//! rtile's dialects: te, and the upstream subset it is written in and lowers to (func,
//! arith, math, tensor reshapes).

use ::rtile::dialect::DialectRegistry;

pub mod arith;
pub mod func;
pub mod rtile;
pub mod te;
pub mod tensor;

/// Registers every dialect of this crate in `reg` (called by the tools' registry).
pub fn register_all(reg: &mut DialectRegistry) {
    reg.register(&func::FuncDialect);
    reg.register(&arith::ArithDialect);
    reg.register(&arith::MathDialect);
    reg.register(&tensor::TensorDialect);
    reg.register(&te::dialect::TeDialect);
    reg.register(&rtile::RtileDialect);
}

#[cfg(test)]
mod upstream_tests;
