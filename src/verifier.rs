//! PLACEHOLDER (being replaced by the verifier work).
