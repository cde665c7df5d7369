//! The types and attributes the kernel lowering builds, in one place (the memory spaces,
//! vector types and dialect attributes have no constructor of their own in `rtile::ir`).

use rtile::ir::{AttrKind, Attribute, DYNAMIC, DenseArray, Type, TypeKind};
use rtile_dialects::te::model::ElemType;

/// The IR type of element type `e`.
pub(super) fn ty(e: ElemType) -> Type {
    e.to_type()
}

/// `#gpu.address_space<workgroup>`.
pub(super) fn workgroup() -> Attribute {
    Attribute::new(AttrKind::Dialect {
        dialect: "gpu".into(),
        body: "address_space<workgroup>".into(),
    })
}

/// `memref<shape x e>` in the default memory space.
pub(super) fn memref(shape: &[i64], e: ElemType) -> Type {
    Type::memref(shape.to_vec(), ty(e))
}

/// `memref<shape x e, #gpu.address_space<workgroup>>`: a shared buffer.
pub(super) fn shared_memref(shape: &[i64], e: ElemType) -> Type {
    Type::new(TypeKind::MemRef {
        shape: shape.to_vec(),
        elem: ty(e),
        layout: None,
        memory_space: Some(workgroup()),
    })
}

/// `memref<?xi8, #gpu.address_space<workgroup>>`: the launch's dynamic shared memory.
pub(super) fn dynamic_shared_bytes() -> Type {
    Type::new(TypeKind::MemRef {
        shape: vec![DYNAMIC],
        elem: Type::int(8),
        layout: None,
        memory_space: Some(workgroup()),
    })
}

/// `vector<n x e>`.
pub(super) fn vector(n: i64, e: ElemType) -> Type {
    Type::new(TypeKind::Vector {
        shape: vec![n],
        scalable: vec![false],
        elem: ty(e),
    })
}

/// `array<i32: ...>`.
pub(super) fn i32_array(values: &[i64]) -> Attribute {
    Attribute::new(AttrKind::DenseArray(DenseArray::Int {
        elem: Type::i32(),
        values: values.to_vec(),
    }))
}

/// `static_position = array<i64: l>` of `vector.extract` / `vector.insert`.
pub(super) fn position(l: i64) -> (&'static str, Attribute) {
    ("static_position", Attribute::dense_i64_array(vec![l]))
}

/// `#arith.fastmath<flags>`.
pub(super) fn fastmath(flags: &str) -> Attribute {
    Attribute::new(AttrKind::Dialect {
        dialect: "arith".into(),
        body: format!("fastmath<{flags}>"),
    })
}
