//! Reading an input file's bytes as text, with a located diagnostic for non-UTF-8 input.

use std::sync::Arc;

use rtile::diagnostics::Diagnostic;
use rtile::diagnostics::render;
use rtile::dialect::DialectRegistry;
use rtile::ir::{Context, Span};

/// The text of input `name`. Bytes that are not UTF-8 are accepted where mlir-opt
/// accepts them: inside a string literal (kept as the `\XX` escape that spells the same
/// byte) and inside a comment (dropped). Anywhere else the result is the rendered
/// diagnostic (`name:line:col: error: ...` with the line shown) at the first such byte,
/// as mlir-opt reports an unexpected character there.
pub fn decode_input(name: &str, bytes: Vec<u8>) -> Result<String, String> {
    let bytes = match String::from_utf8(bytes) {
        Ok(s) => return Ok(s),
        Err(e) => e.into_bytes(),
    };
    match escape_invalid_bytes(&bytes) {
        Ok(text) => Ok(text),
        Err(at) => Err(invalid_byte_error(name, &bytes, at)),
    }
}

/// The length of the valid UTF-8 character starting at `bytes[i]`, if there is one.
fn utf8_char_len(bytes: &[u8], i: usize) -> Option<usize> {
    let w = match bytes[i] {
        0x00..=0x7F => 1,
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return None,
    };
    let end = i.checked_add(w).filter(|&e| e <= bytes.len())?;
    std::str::from_utf8(&bytes[i..end]).ok().map(|_| w)
}

/// Rewrites invalid bytes inside strings as escapes and inside comments as spaces;
/// `Err(offset)` of the first invalid byte elsewhere.
fn escape_invalid_bytes(bytes: &[u8]) -> Result<String, usize> {
    #[derive(PartialEq)]
    enum In {
        Code,
        Str,
        Comment,
    }
    let mut state = In::Code;
    let mut out = String::with_capacity(bytes.len() + 16);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let Some(w) = utf8_char_len(bytes, i) else {
            match state {
                In::Code => return Err(i),
                In::Str => out.push_str(&format!("\\{b:02X}")),
                In::Comment => out.push(' '),
            }
            i += 1;
            continue;
        };
        match (&state, b) {
            (In::Code, b'"') => state = In::Str,
            (In::Code, b'/') if bytes.get(i + 1) == Some(&b'/') => state = In::Comment,
            (In::Str, b'"') | (In::Str | In::Comment, b'\n') => state = In::Code,
            (In::Str, b'\\') if bytes.get(i + 1).is_some_and(u8::is_ascii) => {
                // An escaped character: `\"` does not end the string.
                out.push('\\');
                out.push(bytes[i + 1] as char);
                i += 2;
                continue;
            }
            _ => {}
        }
        // `w` bytes from `i` form one valid UTF-8 character.
        out.push_str(std::str::from_utf8(&bytes[i..i + w]).unwrap_or_default());
        i += w;
    }
    Ok(out)
}

fn invalid_byte_error(name: &str, bytes: &[u8], at: usize) -> String {
    let byte = bytes[at];
    // Text for the snippet with every invalid byte shown as `?`: one byte for one, so
    // offsets, and columns counted in bytes as mlir-opt counts them, are the file's.
    let mut text = String::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match utf8_char_len(bytes, i) {
            Some(w) => {
                text.push_str(std::str::from_utf8(&bytes[i..i + w]).unwrap_or("?"));
                i += w;
            }
            None => {
                text.push('?');
                i += 1;
            }
        }
    }
    let len = 1;
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
    render(&ctx, &d)
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

    #[test]
    fn invalid_bytes_in_strings_and_comments_are_kept_as_mlir_does() {
        let src = b"\"t.a\"() {s = \"a\xff\\\"\xc3\"} : () -> () // \xfe\n".to_vec();
        assert_eq!(
            decode_input("a.mlir", src).unwrap(),
            "\"t.a\"() {s = \"a\\FF\\\"\\C3\"} : () -> () //  \n"
        );
    }
}
