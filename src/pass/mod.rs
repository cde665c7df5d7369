//! PLACEHOLDER (being replaced by the pass-manager work).
