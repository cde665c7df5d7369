//! The launch description of a kernel, read and written in one place.
//!
//! [`Launch::of`] is the one reader (the back ends, the manifest and the simulator) and
//! [`Launch::write`] the one writer (the lowering), so the two cannot drift apart.

use rtile::ir::{AttrKind, Attribute, Context, DenseArray, NamedAttribute, OpDraft, OpId, Type};
use rtile_dialects::gpu::function_type;

/// A kernel's launch (CUDA's `<<<grid, block, shared>>>`, plus what is passed): the
/// `rtile.launch = {grid, block, dynamic_shared_memory}` attribute the lowering writes, else
/// upstream's `known_grid_size`/`known_block_size`, and the arguments in the order the
/// `gpu.func`'s signature takes them.
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
    /// The kernel's arguments in launch order: the inputs of the `gpu.func`'s
    /// `function_type`, which are its leading entry-block arguments (workgroup and private
    /// attributions follow them). Buffers are bound to them by position: the manifest's
    /// `args` that `rtile-run` binds, the simulator's global buffers, the host's
    /// `gpu.launch_func` operands. Empty when the function has no `function_type`.
    pub args: Vec<Type>,
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
        if let Some((inputs, _)) = function_type(ctx, func) {
            l.args = inputs.to_vec();
        }
        l
    }

    /// The launch of a kernel whose grid and block are known, taking `args` in order.
    pub fn new(
        grid: [u32; 3],
        block: [u32; 3],
        dynamic_shared_memory: u64,
        args: Vec<Type>,
    ) -> Launch {
        Launch {
            grid: Some(grid),
            block: Some(block),
            dynamic_shared_memory,
            has_rtile_launch: true,
            args,
        }
    }

    /// Threads per block (the product of the block's extents), when the block is known.
    pub fn block_threads(&self) -> Option<u64> {
        self.block
            .map(|b| b.iter().map(|&x| u64::from(x)).product())
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

    /// The launch of an `rtile.launch` dictionary alone (no arguments).
    pub fn from_rtile_launch(d: &Attribute) -> Launch {
        let mut l = Launch::default();
        l.read_rtile_launch(d);
        l
    }

    /// The `rtile.launch = {block = array<i32: ...>, dynamic_shared_memory = N : i64, grid =
    /// array<i32: ...>}` dictionary of a launch whose grid and block are known (what
    /// [`Launch::of`] reads back), for the lowering to write.
    pub fn rtile_launch_attribute(&self) -> Option<Attribute> {
        let named = |name: &str, value: Attribute| NamedAttribute {
            name: name.into(),
            value,
        };
        Some(Attribute::dictionary(vec![
            named("block", i32_array(self.block?)),
            named(
                "dynamic_shared_memory",
                Attribute::i64(self.dynamic_shared_memory as i64),
            ),
            named("grid", i32_array(self.grid?)),
        ]))
    }

    /// Writes this launch on the `gpu.func` being built, as [`Launch::of`] reads it back:
    /// the `function_type` taking [`Launch::args`] (a kernel returns nothing), the known
    /// extents as upstream's `known_block_size`/`known_grid_size` (so upstream passes and
    /// `mlir-opt` see them too), and the `rtile.launch` dictionary when both are known.
    pub fn write<'b, 'c>(&self, mut op: OpDraft<'b, 'c>) -> OpDraft<'b, 'c> {
        op = op.property(
            "function_type",
            Attribute::new(AttrKind::Type(Type::function(self.args.clone(), vec![]))),
        );
        if let Some(b) = self.block {
            op = op.property("known_block_size", i32_array(b));
        }
        if let Some(g) = self.grid {
            op = op.property("known_grid_size", i32_array(g));
        }
        if let Some(d) = self.rtile_launch_attribute() {
            op = op.attr("rtile.launch", d);
        }
        op
    }
}

/// `array<i32: x, y, z>`.
fn i32_array(v: [u32; 3]) -> Attribute {
    Attribute::new(AttrKind::DenseArray(DenseArray::Int {
        elem: Type::i32(),
        values: v.iter().map(|&x| i64::from(x)).collect(),
    }))
}
