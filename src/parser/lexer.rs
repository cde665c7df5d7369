//! The MLIR lexer: a logos tokenizer over the whole source plus a thin cursor that can
//! restart at any byte offset. Restarting is how the parser handles MLIR's
//! context-sensitive spots (dimension lists such as `4x?xf32`, and pretty dialect bodies
//! such as `!llvm.ptr<1>` that are scanned raw), exactly as MLIR's `Lexer::resetPointer`.

use logos::Logos;

use crate::ir::Span;

/// MLIR's tokens. Identifiers and literals carry no data: their text is the source slice.
#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip("//[^\n]*", allow_greedy = true))]
pub enum Token {
    /// `bare-id ::= (letter|[_]) (letter|digit|[_$.])*`.
    #[regex(r"[a-zA-Z_][a-zA-Z0-9_$.]*")]
    BareId,
    /// `%name`, `%0`.
    #[regex(r"%([0-9]+|[a-zA-Z$._-][a-zA-Z0-9$._-]*)")]
    PercentId,
    /// `^bb0`.
    #[regex(r"\^([0-9]+|[a-zA-Z$._-][a-zA-Z0-9$._-]*)")]
    CaretId,
    /// `#name` (attribute alias or dialect attribute, and `#1` result numbers).
    #[regex(r"#([0-9]+|[a-zA-Z$._-][a-zA-Z0-9$._-]*)")]
    HashId,
    /// `!name` (type alias or dialect type).
    #[regex(r"!([0-9]+|[a-zA-Z$._-][a-zA-Z0-9$._-]*)")]
    BangId,
    /// `@name`.
    #[regex(r"@([0-9]+|[a-zA-Z$._-][a-zA-Z0-9$._-]*)")]
    AtId,
    /// `@"quoted name"`.
    #[regex(r#"@"([^"\\\n]|\\[^\n])*""#)]
    AtString,
    /// Decimal or `0x` hexadecimal integer.
    #[regex(r"[0-9]+")]
    #[regex(r"0x[0-9a-fA-F]+")]
    Integer,
    /// `1.5`, `2.`, `1.0e-3` (the sign is a separate token, as in MLIR).
    #[regex(r"[0-9]+\.[0-9]*([eE][-+]?[0-9]+)?")]
    Float,
    /// `"..."` with MLIR escapes.
    #[regex(r#""([^"\\\n]|\\[^\n])*""#)]
    String,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("<")]
    Less,
    #[token(">")]
    Greater,
    #[token(",")]
    Comma,
    #[token(":")]
    Colon,
    #[token("::")]
    ColonColon,
    #[token("=")]
    Equal,
    #[token("->")]
    Arrow,
    #[token("?")]
    Question,
    #[token("*")]
    Star,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("|")]
    Vertical,
    #[token("...")]
    Ellipsis,
    /// `{-#`, opening a file metadata block.
    #[token("{-#")]
    FileMetadataBegin,
    /// `#-}`.
    #[token("#-}")]
    FileMetadataEnd,
    /// End of input (produced by the cursor, never by logos).
    Eof,
    /// A character that starts no token.
    Error,
}

impl Token {
    /// The punctuation spelling of a punctuation token, for `parse_punct`-style checks.
    pub fn punct(self) -> Option<&'static str> {
        Some(match self {
            Token::LParen => "(",
            Token::RParen => ")",
            Token::LBrace => "{",
            Token::RBrace => "}",
            Token::LBracket => "[",
            Token::RBracket => "]",
            Token::Less => "<",
            Token::Greater => ">",
            Token::Comma => ",",
            Token::Colon => ":",
            Token::ColonColon => "::",
            Token::Equal => "=",
            Token::Arrow => "->",
            Token::Question => "?",
            Token::Star => "*",
            Token::Plus => "+",
            Token::Minus => "-",
            Token::Vertical => "|",
            Token::Ellipsis => "...",
            Token::FileMetadataBegin => "{-#",
            Token::FileMetadataEnd => "#-}",
            _ => return None,
        })
    }
}

/// A token with its text and its byte span in the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpannedToken<'s> {
    pub token: Token,
    pub text: &'s str,
    pub span: Span,
}

impl SpannedToken<'_> {
    /// Byte offset of the first character.
    pub fn start(&self) -> usize {
        self.span.start as usize
    }
    /// Byte offset one past the last character.
    pub fn end(&self) -> usize {
        self.span.end as usize
    }
    /// True for a bare identifier spelled `kw`.
    pub fn is_keyword(&self, kw: &str) -> bool {
        self.token == Token::BareId && self.text == kw
    }
}

/// A restartable cursor over the source.
#[derive(Clone)]
pub struct Lexer<'s> {
    src: &'s str,
    file: u32,
    base: usize,
    inner: logos::Lexer<'s, Token>,
}

impl<'s> Lexer<'s> {
    /// A lexer over `src`, whose spans are in file `file`.
    pub fn new(src: &'s str, file: u32) -> Self {
        Lexer {
            src,
            file,
            base: 0,
            inner: Token::lexer(src),
        }
    }

    /// The whole source text.
    pub fn source(&self) -> &'s str {
        self.src
    }

    /// The file index spans refer to.
    pub fn file(&self) -> u32 {
        self.file
    }

    /// Restarts lexing at byte offset `pos` (which must be a char boundary; clamped).
    pub fn reset(&mut self, pos: usize) {
        let mut pos = pos.min(self.src.len());
        while !self.src.is_char_boundary(pos) {
            pos += 1;
        }
        self.base = pos;
        self.inner = Token::lexer(&self.src[pos..]);
    }

    /// The next token, `Eof` at the end.
    pub fn next_token(&mut self) -> SpannedToken<'s> {
        match self.inner.next() {
            None => {
                let end = self.src.len();
                SpannedToken {
                    token: Token::Eof,
                    text: "",
                    span: Span::new(self.file, end, end),
                }
            }
            Some(r) => {
                let sp = self.inner.span();
                let (start, end) = (self.base + sp.start, self.base + sp.end);
                SpannedToken {
                    token: r.unwrap_or(Token::Error),
                    text: &self.src[start..end],
                    span: Span::new(self.file, start, end),
                }
            }
        }
    }
}

/// Lexes all of `src` (for tools and tests; the parser lexes lazily).
pub fn tokenize(src: &str, file: u32) -> Vec<SpannedToken<'_>> {
    let mut lx = Lexer::new(src, file);
    let mut out = Vec::new();
    loop {
        let t = lx.next_token();
        if t.token == Token::Eof {
            break;
        }
        out.push(t);
    }
    out
}

/// Decodes the contents of a string literal token (quotes included in `text`):
/// `\n`, `\t`, `\"`, `\\` and `\XX` hex escapes. Returns the bytes.
pub fn unescape_bytes(text: &str) -> Result<Vec<u8>, usize> {
    let inner = text
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(text);
    let b = inner.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c != b'\\' {
            out.push(c);
            i += 1;
            continue;
        }
        let Some(&n) = b.get(i + 1) else {
            return Err(i + 1);
        };
        match n {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'"' => out.push(b'"'),
            b'\\' => out.push(b'\\'),
            _ => {
                let hex = |x: u8| (x as char).to_digit(16);
                match (hex(n), b.get(i + 2).and_then(|&x| hex(x))) {
                    (Some(h), Some(l)) => {
                        out.push((h * 16 + l) as u8);
                        i += 3;
                        continue;
                    }
                    _ => return Err(i + 1),
                }
            }
        }
        i += 2;
    }
    Ok(out)
}

/// Decodes a string literal into text (invalid UTF-8 from `\XX` escapes is replaced).
pub fn unescape(text: &str) -> Result<String, usize> {
    let bytes = unescape_bytes(text)?;
    Ok(match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}
