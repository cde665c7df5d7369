//! Shared code of the rtile command-line tools.
