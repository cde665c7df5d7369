//! Interned strings: the names that recur on every op (source file names in locations,
//! attribute names), stored once as MLIR's `StringAttr` identifiers are.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;

use internment::Intern;

/// An interned string: a `Copy` handle to the one stored copy of its text, compared
/// and hashed by identity, ordered and printed by its text.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Identifier(Intern<String>);

impl Identifier {
    /// The identifier of `text`.
    pub fn new(text: &str) -> Identifier {
        Identifier(Intern::from_ref(text))
    }
    /// The text.
    pub fn as_str(&self) -> &'static str {
        self.0.as_ref().as_str()
    }
}

impl Deref for Identifier {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Identifier {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Identifier {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for Identifier {
    fn from(text: &str) -> Identifier {
        Identifier::new(text)
    }
}

impl From<String> for Identifier {
    fn from(text: String) -> Identifier {
        Identifier(Intern::new(text))
    }
}

impl From<&String> for Identifier {
    fn from(text: &String) -> Identifier {
        Identifier::new(text)
    }
}

impl From<Identifier> for String {
    fn from(id: Identifier) -> String {
        id.as_str().to_string()
    }
}

impl PartialEq<str> for Identifier {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Identifier {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Identifier {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialOrd for Identifier {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Identifier {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl fmt::Debug for Identifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Identifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::Identifier;

    #[test]
    fn one_copy_per_text_ordered_by_text() {
        let a = Identifier::new("b.mlir");
        let b: Identifier = String::from("b.mlir").into();
        assert_eq!(a, b);
        assert!(std::ptr::eq(a.as_str(), b.as_str()));
        assert!(Identifier::new("a") < Identifier::new("b"));
        assert_eq!(a, "b.mlir");
        assert_eq!(format!("{a} {a:?}"), "b.mlir \"b.mlir\"");
    }
}
