//! The file metadata section `{-# dialect_resources: {...}, external_resources: {...} #-}`
//! that MLIR prints after the top-level op: named blobs that `dense_resource<name>`
//! attributes refer to, and opaque external entries kept for the tools that own them.

/// One entry's value: MLIR's resource entries are blobs (hex strings `"0x..."`), other
/// strings, or booleans.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResourceValue {
    /// `true` / `false`.
    Bool(bool),
    /// A string; blobs are `"0x"`, a 4-byte little-endian alignment, then the data.
    String(String),
}

/// The entries of one owner: a dialect (`builtin`) or an external tool.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResourceGroup {
    /// `builtin`, or the external owner's key.
    pub owner: String,
    /// `(key, value)` in file order.
    pub entries: Vec<(String, ResourceValue)>,
}

/// The resources a file carried.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileResources {
    /// `dialect_resources`: by dialect. Builtin blobs are printed only while a
    /// `dense_resource` attribute refers to them, as MLIR does.
    pub dialect: Vec<ResourceGroup>,
    /// `external_resources`: printed back as read.
    pub external: Vec<ResourceGroup>,
}

impl FileResources {
    /// The blob `key` of the builtin dialect, if the file defined it.
    pub fn builtin_blob(&self, key: &str) -> Option<&ResourceValue> {
        self.dialect
            .iter()
            .filter(|g| g.owner == "builtin")
            .flat_map(|g| &g.entries)
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }
}
