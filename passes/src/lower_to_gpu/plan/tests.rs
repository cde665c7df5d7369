//! Unit tests of the kernel plan.
