//! vdevice: Rammer's virtual device, rOperators and rPrograms (Ma et al., OSDI'20 §3).
//! See `docs/dialects/vdevice.md`.
//!
//! - `vdevice.device`: the vDevice (§3.2): `sms × veus_per_sm` vEUs, each a persistent block
//!   with `threads` threads, `smem` bytes of shared memory and `regs` registers per thread,
//!   sized for the most demanding rTask (§4.1.2). It records the SM limits it was derived
//!   from, so the verifier recomputes the occupancy and the co-resident capacity itself.
//! - `vdevice.roperator`: an rOperator (§3.1), its DFG predecessors and its rKernel variants,
//!   each a kernel parameterised by an rTask id with its rTask count, resources and
//!   per-rTask time on one vEU (§3.3 profiler item 1).
//! - `vdevice.program`: one rProgram `prog[vEU][order]` (§3.2), i.e. one launch, with
//!   barrier-rTasks `{<veu, order>...}`.
//!
//! Conventions the paper leaves open ([`Program`] documents them): `order` counts only the
//! compute rTasks of a vEU (barrier-rTasks take no order slot and do not bump `step`), as in
//! Fig. 9, where vEU 1's Conv rTask waits on `<0, 1>` = the second Matmul rTask.

pub mod ops;
pub mod program;

pub use program::{Entry, Program};

use rtile::dialect::{Dialect, OpDefinition};
use rtile::ir::attributes::Attribute;
use rtile::ir::types::Type;
use rtile::ir::{Context, NamedAttribute, OpId};

/// The dialect namespace.
pub const NAMESPACE: &str = "vdevice";
/// The vDevice op.
pub const DEVICE: &str = "vdevice.device";
/// The rOperator op.
pub const ROPERATOR: &str = "vdevice.roperator";
/// The rProgram op.
pub const PROGRAM: &str = "vdevice.program";
/// On a `te.compute`: the rOperator (`@symbol`) `--wavefront-pack` made of it.
pub const ROP_ATTR: &str = "vdevice.rop";

/// A vDevice (§3.2, §4.1.2): its vEU shape and the per-SM limits that bound how many vEUs
/// can be co-resident on one SM.
#[derive(Clone, Debug, PartialEq)]
pub struct VDevice {
    /// Streaming multiprocessors (cores).
    pub sms: u64,
    /// vEUs (persistent blocks) per SM.
    pub veus_per_sm: u64,
    /// Threads of every vEU: the largest thread count of its rTasks (§4.1.3).
    pub threads: u64,
    /// Shared memory of every vEU, bytes: the largest of its rTasks.
    pub smem: u64,
    /// Registers per thread of every vEU: the largest of its rTasks.
    pub regs: u64,
    /// Per-SM limits `[blocks, threads, registers, shared bytes]`.
    pub sm_limits: [u64; 4],
}

impl VDevice {
    /// Blocks of this vEU shape one SM holds at once (the occupancy calculation `nvcc`'s
    /// maximum-active-blocks figure comes from, §4.1.2). At least 0.
    pub fn occupancy(&self) -> u64 {
        let [blocks, threads, regs, smem] = self.sm_limits;
        let t = self.threads.max(1);
        let by_regs = regs / (t * self.regs.max(1));
        let by_smem = smem.checked_div(self.smem).unwrap_or(u64::MAX);
        blocks.min(threads / t).min(by_regs).min(by_smem)
    }
    /// vEUs of the device, `sms × veus_per_sm`.
    pub fn veus(&self) -> u64 {
        self.sms * self.veus_per_sm
    }
    /// Blocks of this vEU shape that can be co-resident on the whole device: the most a
    /// program with cross-vEU barriers may launch without risking a deadlock.
    pub fn capacity(&self) -> u64 {
        self.sms * self.occupancy()
    }
    /// Attributes of a `vdevice.device` op.
    pub fn to_attrs(&self) -> Vec<NamedAttribute> {
        let i = |n: &str, v: u64| NamedAttribute {
            name: n.into(),
            value: Attribute::i64(v as i64),
        };
        vec![
            i("sms", self.sms),
            i("veus_per_sm", self.veus_per_sm),
            i("threads", self.threads),
            i("smem", self.smem),
            i("regs", self.regs),
            NamedAttribute {
                name: "sm_limits".into(),
                value: Attribute::dense_i64_array(
                    self.sm_limits.iter().map(|&x| x as i64).collect(),
                ),
            },
        ]
    }
    /// Reads a `vdevice.device` op.
    pub fn from_op(ctx: &Context, op: OpId) -> Result<VDevice, String> {
        let int = |n: &str| -> Result<u64, String> {
            match ctx.inherent_attr(op, n).and_then(|a| a.as_int()) {
                Some(v) if v >= 1 => Ok(v as u64),
                Some(v) => Err(format!("'{n}' must be at least 1, not {v}")),
                None => Err(format!("requires a positive integer attribute '{n}'")),
            }
        };
        let lim = ctx
            .inherent_attr(op, "sm_limits")
            .and_then(|a| a.as_dense_ints())
            .filter(|v| v.len() == 4 && v.iter().all(|&x| x >= 1))
            .ok_or(
                "requires 'sm_limits' = array<i64: blocks, threads, registers, shared bytes> per SM, all positive",
            )?;
        Ok(VDevice {
            sms: int("sms")?,
            veus_per_sm: int("veus_per_sm")?,
            threads: int("threads")?,
            smem: ctx
                .inherent_attr(op, "smem")
                .and_then(|a| a.as_int())
                .filter(|&v| v >= 0)
                .ok_or("requires a non-negative integer attribute 'smem'")?
                as u64,
            regs: int("regs")?,
            sm_limits: [lim[0] as u64, lim[1] as u64, lim[2] as u64, lim[3] as u64],
        })
    }
}

/// One rKernel of an rOperator (§3.1): how it splits the operator into rTasks and what one
/// rTask needs and costs.
#[derive(Clone, Debug, PartialEq)]
pub struct RKernel {
    /// `get_total_rtask_num()` (Fig. 6).
    pub rtasks: u64,
    /// Threads of one rTask.
    pub threads: u64,
    /// Shared memory of one rTask, bytes.
    pub smem: u64,
    /// Registers per thread.
    pub regs: u64,
    /// Time of one rTask on one vEU, µs (§3.3 profiler item 1).
    pub us: f64,
}

impl RKernel {
    /// The kernel's time alone on `veus` vEUs: its rTasks in `⌈rtasks / veus⌉` rounds.
    pub fn alone_us(&self, veus: u64) -> f64 {
        self.rtasks.div_ceil(veus.max(1)) as f64 * self.us
    }
    /// As a dictionary attribute.
    pub fn to_attr(&self) -> Attribute {
        let i = |n: &str, v: u64| NamedAttribute {
            name: n.into(),
            value: Attribute::i64(v as i64),
        };
        Attribute::dictionary(vec![
            i("rtasks", self.rtasks),
            i("threads", self.threads),
            i("smem", self.smem),
            i("regs", self.regs),
            NamedAttribute {
                name: "us".into(),
                value: Attribute::float(self.us, Type::f64()),
            },
        ])
    }
    /// Reads `{rtasks = N, threads = N, smem = N, regs = N, us = X}`.
    pub fn from_attr(a: &Attribute) -> Result<RKernel, String> {
        let int = |n: &str, min: i64| -> Result<u64, String> {
            match a.dict_get(n).and_then(|x| x.as_int()) {
                Some(v) if v >= min => Ok(v as u64),
                _ => Err(format!("'{n}' must be an integer of at least {min}")),
            }
        };
        let us = a
            .dict_get("us")
            .and_then(|x| x.as_float().or_else(|| x.as_int().map(|v| v as f64)))
            .filter(|x| x.is_finite() && *x >= 0.0)
            .ok_or("'us' must be a non-negative number (µs per rTask)")?;
        if a.as_dictionary().is_none() {
            return Err("expected a dictionary".into());
        }
        Ok(RKernel {
            rtasks: int("rtasks", 1)?,
            threads: int("threads", 1)?,
            smem: int("smem", 0)?,
            regs: int("regs", 1)?,
            us,
        })
    }
}

/// The rOperator an op defines: predecessors (symbol names), variants, selected variant.
#[derive(Clone, Debug, PartialEq)]
pub struct ROperator {
    /// Its symbol name.
    pub name: String,
    /// The rOperators it depends on (DFG predecessors).
    pub deps: Vec<String>,
    /// Its rKernel variants.
    pub kernels: Vec<RKernel>,
    /// The variant the schedule uses (`kernel` attribute; 0 when absent).
    pub selected: usize,
}

impl ROperator {
    /// Reads a `vdevice.roperator` op.
    pub fn from_op(ctx: &Context, op: OpId) -> Result<ROperator, String> {
        let name = rtile::verifier::symbol_name(ctx, op)
            .ok_or("requires a symbol name")?
            .to_string();
        let deps = match ctx.inherent_attr(op, "deps") {
            None => Vec::new(),
            Some(a) => a
                .as_array()
                .and_then(|v| {
                    v.iter()
                        .map(|x| x.as_flat_symbol().map(str::to_string))
                        .collect()
                })
                .ok_or("'deps' must be an array of symbol references")?,
        };
        let kernels: Vec<RKernel> = ctx
            .inherent_attr(op, "kernels")
            .and_then(|a| a.as_array())
            .ok_or("requires 'kernels', an array of rKernel dictionaries")?
            .iter()
            .enumerate()
            .map(|(i, k)| RKernel::from_attr(k).map_err(|m| format!("kernel #{i}: {m}")))
            .collect::<Result<_, _>>()?;
        if kernels.is_empty() {
            return Err("has no rKernel".into());
        }
        let selected = match ctx.inherent_attr(op, "kernel").map(|a| a.as_int()) {
            None => 0,
            Some(Some(k)) if k >= 0 && (k as usize) < kernels.len() => k as usize,
            Some(_) => {
                return Err(format!(
                    "'kernel' must index one of the {} rKernels",
                    kernels.len()
                ));
            }
        };
        Ok(ROperator {
            name,
            deps,
            kernels,
            selected,
        })
    }
    /// The selected rKernel.
    pub fn kernel(&self) -> &RKernel {
        &self.kernels[self.selected]
    }
}

/// The ops of the block that holds `op` (its symbol-table scope), in order.
pub fn siblings(ctx: &Context, op: OpId) -> Vec<OpId> {
    ctx.parent_block(op)
        .map(|b| ctx.block_ops(b).collect())
        .unwrap_or_default()
}

/// The op named `@sym` of kind `name` next to `op`.
pub fn lookup(ctx: &Context, op: OpId, name: &str, sym: &str) -> Option<OpId> {
    siblings(ctx, op)
        .into_iter()
        .find(|&o| ctx.op_name(o) == name && rtile::verifier::symbol_name(ctx, o) == Some(sym))
}

/// `vdevice`: the vDevice, rOperators and rPrograms.
pub struct VdeviceDialect;

impl Dialect for VdeviceDialect {
    fn namespace(&self) -> &'static str {
        NAMESPACE
    }
    fn description(&self) -> &'static str {
        "Rammer's vDevice, rOperators with rKernel variants and rPrograms (OSDI'20 §3)"
    }
    fn ops(&self) -> Vec<Box<dyn OpDefinition>> {
        vec![
            ops::DEVICE_OP.boxed(),
            ops::ROPERATOR_OP.boxed(),
            ops::PROGRAM_OP.boxed(),
        ]
    }
}

#[cfg(test)]
mod tests;
