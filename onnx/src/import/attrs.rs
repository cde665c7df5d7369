//! A node's `AttributeProto`s as [`NodeAttrs`].

use super::tensor::tensor_from_proto;
use crate::ops::{ConstTensor, NodeAttrs};
use crate::proto::AttributeProto;

/// The attributes of one node.
pub struct ProtoAttrs<'a>(pub &'a [AttributeProto]);

impl ProtoAttrs<'_> {
    fn get(&self, name: &str) -> Option<&AttributeProto> {
        self.0.iter().find(|a| a.name() == name)
    }
}

impl NodeAttrs for ProtoAttrs<'_> {
    fn int(&self, name: &str) -> Option<i64> {
        self.get(name)?.i
    }
    fn ints(&self, name: &str) -> Option<Vec<i64>> {
        Some(self.get(name)?.ints.clone())
    }
    fn float(&self, name: &str) -> Option<f32> {
        self.get(name)?.f
    }
    fn floats(&self, name: &str) -> Option<Vec<f32>> {
        Some(self.get(name)?.floats.clone())
    }
    fn string(&self, name: &str) -> Option<String> {
        Some(String::from_utf8_lossy(self.get(name)?.s.as_deref()?).into_owned())
    }
    fn strings(&self, name: &str) -> Option<Vec<String>> {
        Some(
            self.get(name)?
                .strings
                .iter()
                .map(|s| String::from_utf8_lossy(s).into_owned())
                .collect(),
        )
    }
    fn tensor(&self, name: &str) -> Option<ConstTensor> {
        tensor_from_proto(self.get(name)?.t.as_ref()?).ok()
    }
    fn names(&self) -> Vec<String> {
        self.0.iter().map(|a| a.name().to_string()).collect()
    }
}

/// A node's attributes given in Rust (tests, and nodes the importer synthesises).
#[derive(Clone, Debug, Default)]
pub struct MapAttrs {
    /// `(name, value)`.
    pub attrs: Vec<(String, AttrValue)>,
}

/// One attribute value of [`MapAttrs`].
#[derive(Clone, Debug)]
pub enum AttrValue {
    Int(i64),
    Ints(Vec<i64>),
    Float(f32),
    Floats(Vec<f32>),
    Str(String),
    Strs(Vec<String>),
    Tensor(ConstTensor),
}

impl MapAttrs {
    /// No attributes.
    pub fn new() -> Self {
        MapAttrs::default()
    }
    /// Adds one attribute.
    pub fn with(mut self, name: &str, v: AttrValue) -> Self {
        self.attrs.push((name.to_string(), v));
        self
    }
    fn get(&self, name: &str) -> Option<&AttrValue> {
        self.attrs.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

impl NodeAttrs for MapAttrs {
    fn int(&self, name: &str) -> Option<i64> {
        match self.get(name)? {
            AttrValue::Int(i) => Some(*i),
            _ => None,
        }
    }
    fn ints(&self, name: &str) -> Option<Vec<i64>> {
        match self.get(name)? {
            AttrValue::Ints(v) => Some(v.clone()),
            _ => None,
        }
    }
    fn float(&self, name: &str) -> Option<f32> {
        match self.get(name)? {
            AttrValue::Float(f) => Some(*f),
            _ => None,
        }
    }
    fn floats(&self, name: &str) -> Option<Vec<f32>> {
        match self.get(name)? {
            AttrValue::Floats(v) => Some(v.clone()),
            _ => None,
        }
    }
    fn string(&self, name: &str) -> Option<String> {
        match self.get(name)? {
            AttrValue::Str(s) => Some(s.clone()),
            _ => None,
        }
    }
    fn strings(&self, name: &str) -> Option<Vec<String>> {
        match self.get(name)? {
            AttrValue::Strs(v) => Some(v.clone()),
            _ => None,
        }
    }
    fn tensor(&self, name: &str) -> Option<ConstTensor> {
        match self.get(name)? {
            AttrValue::Tensor(t) => Some(t.clone()),
            _ => None,
        }
    }
    fn names(&self) -> Vec<String> {
        self.attrs.iter().map(|(n, _)| n.clone()).collect()
    }
}
