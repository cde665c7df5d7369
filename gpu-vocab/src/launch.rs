//! The launch description of a kernel, read in one place for every consumer.

use rtile::ir::{AttrKind, Attribute, Context, DenseArray, NamedAttribute, OpId, Type};

/// A kernel's launch (CUDA's `<<<grid, block, shared>>>`): the `rtile.launch = {grid,
/// block, dynamic_shared_memory}` attribute the lowering writes, else upstream's
/// `known_grid_size`/`known_block_size`. Arguments are passed in the `gpu.func`'s argument
/// order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Launch {
    /// Grid size in blocks, when known.
    pub grid: Option<[u32; 3]>,
    /// Block size in threads, when known.
    pub block: Option<[u32; 3]>,
    /// Dynamic shared memory bytes per block: the storage `gpu.dynamic_shared_memory`
    /// returns.
    pub dynamic_shared_memory: u64,
    /// The kernel has an `rtile.launch` attribute (the simulator requires one).
    pub has_rtile_launch: bool,
}

/// A 1- to 3-element positive extent list, padded with 1s.
fn dims3(a: &Attribute) -> Option<[u32; 3]> {
    let v: Vec<i64> = match a.as_dense_ints() {
        Some(v) => v.to_vec(),
        None => a
            .as_array()?
            .iter()
            .map(|x| x.as_int())
            .collect::<Option<_>>()?,
    };
    if v.is_empty() || v.len() > 3 || v.iter().any(|&x| x <= 0 || x > u32::MAX as i64) {
        return None;
    }
    let mut out = [1u32; 3];
    for (i, x) in v.iter().enumerate() {
        out[i] = *x as u32;
    }
    Some(out)
}

impl Launch {
    /// Reads the launch description of the `gpu.func` `func`.
    pub fn of(ctx: &Context, func: OpId) -> Launch {
        let mut l = Launch::default();
        if let Some(a) = ctx.inherent_attr(func, "known_block_size") {
            l.block = dims3(a);
        }
        if let Some(a) = ctx.inherent_attr(func, "known_grid_size") {
            l.grid = dims3(a);
        }
        if let Some(d) = ctx.attr(func, "rtile.launch") {
            l.read_rtile_launch(d);
        }
        l
    }

    /// Overrides what the `rtile.launch` dictionary `d` gives.
    fn read_rtile_launch(&mut self, d: &Attribute) {
        self.has_rtile_launch = true;
        if let Some(g) = d.dict_get("grid").and_then(dims3) {
            self.grid = Some(g);
        }
        if let Some(b) = d.dict_get("block").and_then(dims3) {
            self.block = Some(b);
        }
        if let Some(s) = d.dict_get("dynamic_shared_memory").and_then(|a| a.as_int()) {
            self.dynamic_shared_memory = s.max(0) as u64;
        }
    }

    /// The launch of an `rtile.launch` dictionary alone.
    pub fn from_rtile_launch(d: &Attribute) -> Launch {
        let mut l = Launch::default();
        l.read_rtile_launch(d);
        l
    }

    /// The `rtile.launch = {block = array<i32: ...>, dynamic_shared_memory = N : i64, grid =
    /// array<i32: ...>}` dictionary of a launch whose grid and block are known (what
    /// [`Launch::of`] reads back), for the lowering to write.
    pub fn rtile_launch_attribute(&self) -> Option<Attribute> {
        let i32_array = |v: [u32; 3]| {
            AttrKind::DenseArray(DenseArray::Int {
                elem: Type::i32(),
                values: v.iter().map(|&x| i64::from(x)).collect(),
            })
        };
        let named = |name: &str, value: Attribute| NamedAttribute {
            name: name.into(),
            value,
        };
        Some(Attribute::dictionary(vec![
            named("block", Attribute::new(i32_array(self.block?))),
            named(
                "dynamic_shared_memory",
                Attribute::i64(self.dynamic_shared_memory as i64),
            ),
            named("grid", Attribute::new(i32_array(self.grid?))),
        ]))
    }
}
