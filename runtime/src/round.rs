//! Rounding to element types lives with the model (`rtile_dialects::te::round`), so that
//! parsed literals and the interpreter agree; re-exported here for the runtime.

pub use rtile_dialects::te::round::round_to;
