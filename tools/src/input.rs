//! Reading an input file's bytes as text, with a located diagnostic for non-UTF-8 input.

use std::sync::Arc;

use rtile::diagnostics::Diagnostic;
use rtile::diagnostics::render;
use rtile::dialect::DialectRegistry;
use rtile::ir::{Context, Span};

/// The text of input `name`, or, when `bytes` are not UTF-8, the rendered diagnostic
/// (`name:line:col: error: ...` with the line shown) at the first invalid byte, as
/// mlir-opt reports an unexpected character there.
pub fn decode_input(name: &str, bytes: Vec<u8>) -> Result<String, String> {
    let err = match String::from_utf8(bytes) {
        Ok(s) => return Ok(s),
        Err(e) => e,
    };
    let at = err.utf8_error().valid_up_to();
    let byte = err.as_bytes()[at];
    // Lossy text for the snippet: the prefix is unchanged, so offsets (and columns, in
    // bytes as mlir-opt counts them) up to the bad byte are those of the file.
    let text = String::from_utf8_lossy(err.as_bytes()).into_owned();
    let len = text[at..].chars().next().map_or(1, char::len_utf8);
    let mut ctx = Context::new(Arc::new(DialectRegistry::with_builtin()));
    let file = ctx.add_source(name, text);
    let span = Span {
        file,
        start: at as u32,
        end: (at + len) as u32,
    };
    let d = Diagnostic::error(
        Some(span),
        format!("unexpected character: byte 0x{byte:02X} is not valid UTF-8"),
    );
    Err(render(&ctx, &d))
}

#[cfg(test)]
mod tests {
    use super::decode_input;

    #[test]
    fn utf8_passes_through() {
        assert_eq!(
            decode_input("a.mlir", b"x\xc3\xa9".to_vec()).unwrap(),
            "x\u{e9}"
        );
    }

    #[test]
    fn first_invalid_byte_is_located() {
        let e = decode_input("a.mlir", b"ok\n  \xff\xfe rest\n".to_vec()).unwrap_err();
        assert!(
            e.starts_with("a.mlir:2:3: error: unexpected character: byte 0xFF is not valid UTF-8"),
            "{e}"
        );
    }
}
