//! Elementwise activations (ONNX operator specification; defaults as there): Sigmoid,
//! HardSigmoid, Softplus, Elu, Selu, Celu, HardSwish, Mish, Softsign, ThresholdedRelu
//! and Gelu (opset 20). Each is one te stage over X's shape.

use rtile_dialects::te::model::{CmpOp, ElemType, Expr, UnOp};

use super::Node;
use super::build::{Builder, add, all_dims, cmp, div, k, max, min, mul, select, sub, un};
use crate::ops::{Expansion, OpError};

/// Which activation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Sigmoid,
    HardSigmoid,
    Softplus,
    Elu,
    Selu,
    Celu,
    HardSwish,
    Mish,
    Softsign,
    ThresholdedRelu,
    Gelu,
}

impl Kind {
    /// The kind of an op type.
    pub fn of(op: &str) -> Option<Kind> {
        Some(match op {
            "Sigmoid" => Kind::Sigmoid,
            "HardSigmoid" => Kind::HardSigmoid,
            "Softplus" => Kind::Softplus,
            "Elu" => Kind::Elu,
            "Selu" => Kind::Selu,
            "Celu" => Kind::Celu,
            "HardSwish" => Kind::HardSwish,
            "Mish" => Kind::Mish,
            "Softsign" => Kind::Softsign,
            "ThresholdedRelu" => Kind::ThresholdedRelu,
            "Gelu" => Kind::Gelu,
            _ => return None,
        })
    }

    /// The attributes the operator defines.
    fn attrs(self) -> &'static [&'static str] {
        match self {
            Kind::HardSigmoid => &["alpha", "beta"],
            Kind::Elu | Kind::Celu | Kind::ThresholdedRelu => &["alpha"],
            Kind::Selu => &["alpha", "gamma"],
            Kind::Gelu => &["approximate"],
            _ => &[],
        }
    }
}

/// `softplus(x) = log(1 + exp(x))`, written `max(x, 0) + log(1 + exp(-|x|))` so that
/// large inputs do not overflow.
fn softplus(x: Expr, t: ElemType) -> Expr {
    let tail = un(
        UnOp::Log,
        add(
            k(1.0, t),
            un(UnOp::Exp, un(UnOp::Neg, un(UnOp::Abs, x.clone()))),
        ),
    );
    add(max(x, k(0.0, t)), tail)
}

/// The body of activation `kind` on `x`.
fn body(node: &Node, kind: Kind, x: Expr, t: ElemType) -> Result<Expr, OpError> {
    let f = |name: &str, d: f64| node.float(name, d);
    let zero = || k(0.0, t);
    let one = || k(1.0, t);
    Ok(match kind {
        // 1 / (1 + exp(-x))
        Kind::Sigmoid => div(one(), add(one(), un(UnOp::Exp, un(UnOp::Neg, x)))),
        // max(0, min(1, alpha·x + beta))
        Kind::HardSigmoid => {
            let v = add(mul(k(f("alpha", 0.2), t), x), k(f("beta", 0.5), t));
            max(zero(), min(one(), v))
        }
        Kind::Softplus => softplus(x, t),
        // x < 0 ? alpha·(exp(x) - 1) : x
        Kind::Elu => {
            let neg = mul(k(f("alpha", 1.0), t), sub(un(UnOp::Exp, x.clone()), one()));
            select(cmp(CmpOp::Lt, x.clone(), zero()), neg, x)
        }
        // gamma · (x > 0 ? x : alpha·exp(x) - alpha)
        Kind::Selu => {
            let alpha = f("alpha", 1.673_263_192_176_818_8);
            let gamma = f("gamma", 1.050_701_022_148_132_3);
            let neg = sub(mul(k(alpha, t), un(UnOp::Exp, x.clone())), k(alpha, t));
            let v = select(cmp(CmpOp::Gt, x.clone(), zero()), x, neg);
            mul(k(gamma, t), v)
        }
        // max(0, x) + min(0, alpha·(exp(x/alpha) - 1))
        Kind::Celu => {
            let alpha = f("alpha", 1.0);
            if alpha == 0.0 {
                return Err(OpError("Celu alpha must not be 0".into()));
            }
            let e = sub(un(UnOp::Exp, div(x.clone(), k(alpha, t))), one());
            add(max(zero(), x), min(zero(), mul(k(alpha, t), e)))
        }
        // x · max(0, min(1, x/6 + 1/2))
        Kind::HardSwish => {
            let h = add(mul(k(1.0 / 6.0, t), x.clone()), k(0.5, t));
            mul(x, max(zero(), min(one(), h)))
        }
        // x · tanh(softplus(x))
        Kind::Mish => mul(x.clone(), un(UnOp::Tanh, softplus(x, t))),
        // x / (1 + |x|)
        Kind::Softsign => div(x.clone(), add(one(), un(UnOp::Abs, x))),
        // x > alpha ? x : 0
        Kind::ThresholdedRelu => {
            let c = cmp(CmpOp::Gt, x.clone(), k(f("alpha", 1.0), t));
            select(c, x, zero())
        }
        Kind::Gelu => match node.string("approximate", "none").as_str() {
            // x/2 · (1 + erf(x / √2))
            "none" => {
                let e = un(
                    UnOp::Erf,
                    mul(x.clone(), k(std::f64::consts::FRAC_1_SQRT_2, t)),
                );
                mul(mul(k(0.5, t), x), add(one(), e))
            }
            // x/2 · (1 + tanh(√(2/π) · (x + 0.044715 x³)))
            "tanh" => {
                let c = (2.0 / std::f64::consts::PI).sqrt();
                let cube = mul(mul(x.clone(), x.clone()), x.clone());
                let inner = mul(k(c, t), add(x.clone(), mul(k(0.044715, t), cube)));
                mul(mul(k(0.5, t), x), add(one(), un(UnOp::Tanh, inner)))
            }
            s => {
                return Err(OpError(format!(
                    "approximate '{s}' is not one of none, tanh"
                )));
            }
        },
    })
}

/// Every activation of this module.
pub fn activation(node: &Node) -> Result<Expansion, OpError> {
    let kind = Kind::of(node.op()).ok_or_else(|| OpError("not an activation".into()))?;
    node.check_attrs(kind.attrs())?;
    let x = node.float_input(0)?;
    let shape = x.shape().to_vec();
    let t = x.elem();
    // Validate attributes before building (body errors surface here).
    body(node, kind, Expr::Const(0.0, t), t)?;
    let mut b = Builder::new();
    let y = b.map(&shape, t, |r| {
        let xv = r.read_dims(&x, &all_dims(shape.len()));
        body(node, kind, xv, t).expect("validated above")
    })?;
    Ok(b.finish(vec![y]))
}
