//! `scf.while` in the simulator: the spin-waits of persistent kernels (Rammer, OSDI'20
//! §4.1.3). The loop's head is an [`Inst::Spin`], where the block yields to the others
//! (`sim::concurrent`); its `rtile.wait` names what it waits for, for deadlock reports.

use rtile::diagnostics::Diagnostic;
use rtile::ir::{BlockId, OpId, Value};

use super::{Compiler, G, Inst, err};

/// What a persistent kernel's spin-wait waits for: `step[veu] > order`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitPair {
    /// `rtile.wait = array<i64: veu, order>`.
    Fixed(i64, i64),
    /// `rtile.wait = array<i64>`: the pair is data; the registers (defined before the
    /// loop) of the loop's atomic read index and of the order its `arith.cmpi` compares
    /// with.
    Regs(u32, u32),
}

impl Compiler<'_> {
    /// The registers of a dynamic wait's pair in `before` (an `scf.while`'s before
    /// region): the index of its `memref.atomic_rmw` and the right-hand side of the
    /// `arith.cmpi` that `scf.condition` tests; `None` when the region has another shape.
    fn dynamic_wait(&self, before: BlockId) -> Option<WaitPair> {
        let ctx = self.ctx;
        let ops: Vec<OpId> = ctx.block_ops(before).collect();
        let atomic = ops
            .iter()
            .find(|&&o| ctx.op_name(o) == "memref.atomic_rmw")?;
        let cond = ops.iter().find(|&&o| ctx.op_name(o) == "scf.condition")?;
        let cmp = ctx.defining_op(*ctx.operands(*cond).first()?)?;
        if ctx.op_name(cmp) != "arith.cmpi" {
            return None;
        }
        let veu = self.regs.get(ctx.operands(*atomic).get(2)?)?;
        let order = self.regs.get(ctx.operands(cmp).get(1)?)?;
        Some(WaitPair::Regs(*veu, *order))
    }

    /// Compiles `scf.while`: the before region (ending in `scf.condition`) at a
    /// [`Inst::Spin`] head, the after region, the back edge; the results are the values
    /// the condition forwards when it is false.
    pub(super) fn while_loop(
        &mut self,
        op: OpId,
        operands: &[Value],
        results: &[Value],
    ) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let regions = ctx.regions(op).to_vec();
        let block_of = |i: usize| {
            regions
                .get(i)
                .and_then(|r| ctx.region_blocks(*r).first().copied())
                .ok_or_else(|| err(ctx, op, "scf.while needs a before and an after region"))
        };
        let (before, after) = (block_of(0)?, block_of(1)?);
        let mut bargs = Vec::new();
        for &a in ctx.block_args(before) {
            bargs.push(self.def(a, op)?);
        }
        self.moves(&bargs, operands, op)?;
        let mut outs = Vec::new();
        for &r in results {
            outs.push(self.def(r, op)?);
        }
        self.k.spins = true;
        let at = self.at(op);
        let wait = match ctx.attr(op, "rtile.wait").and_then(|a| a.as_dense_ints()) {
            Some([v, o]) => Some(WaitPair::Fixed(*v, *o)),
            Some([]) => self.dynamic_wait(before),
            _ => None,
        };
        self.first = true;
        let head = self.emit(Inst::Spin { at, wait });
        let mut cond = None;
        for o in ctx.block_ops(before) {
            let g = G::decode(ctx, o)?;
            if g == G::Condition {
                cond = Some(ctx.operands(o).to_vec());
            } else {
                self.op(o, g)?;
            }
        }
        let Some(cond) = cond.filter(|c| !c.is_empty()) else {
            return Err(err(
                ctx,
                op,
                "scf.while's before region must end in scf.condition",
            ));
        };
        self.moves(&outs, &cond[1..], op)?;
        let c = self.reg(cond[0], op)?;
        let exit = self.emit(Inst::JumpIfZero { cond: c, to: 0 });
        let aargs: Vec<u32> = ctx
            .block_args(after)
            .to_vec()
            .into_iter()
            .map(|a| self.def(a, op))
            .collect::<Result<_, _>>()?;
        self.moves(&aargs, &cond[1..], op)?;
        let y = self.block(after)?;
        self.moves(&bargs, &y, op)?;
        self.emit(Inst::Jump { to: head });
        let end = self.here();
        self.patch(exit, end);
        Ok(())
    }
}
