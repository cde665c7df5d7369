//! f32 transcendental functions as internal LLVM IR helpers, so that no libdevice (or
//! ROCm device library) is needed.
//!
//! NVPTX has no lowering for `llvm.exp`/`llvm.log` (LLVM reports a fatal "no libcall"
//! error), only for `llvm.exp2` (`ex2.approx.f32`) and `llvm.nvvm.lg2.approx.f`:
//! - `exp(x)` = `2^t · (1 + e·ln 2)` with `t = fl(x·log2 e)` and `e` the exact rounding
//!   error of that product (two FMAs), so the argument error does not grow with |x|;
//!   accuracy is that of `ex2.approx` (about 2 ulp).
//! - `log(x)` = `lg2.approx(x) · ln 2` (CUDA's `__logf`: absolute error about 2^-22).
//!
//! AMDGPU lowers `llvm.exp`/`llvm.log` itself (accurately), so those are used there.
//! - `tanh(x)`: odd Taylor polynomial for |x| < 0.125, else `1 − 2/(exp(2|x|)+1)` with
//!   the sign restored; `erf(x)`: Taylor for |x| < 0.5, else Abramowitz–Stegun 7.1.26
//!   (absolute error below 1.5e-7).

use crate::llvmir::Flavor;

fn f(v: f64) -> String {
    format!("0x{:016X}", ((v as f32) as f64).to_bits())
}

/// Intrinsic declarations a helper needs: (name, declaration).
pub fn helper_decls(flavor: Flavor, fname: &str) -> Vec<(&'static str, &'static str)> {
    let mut v = vec![
        (
            "llvm.fma.f32",
            "declare float @llvm.fma.f32(float, float, float)",
        ),
        ("llvm.fabs.f32", "declare float @llvm.fabs.f32(float)"),
        (
            "llvm.copysign.f32",
            "declare float @llvm.copysign.f32(float, float)",
        ),
        ("llvm.exp2.f32", "declare float @llvm.exp2.f32(float)"),
    ];
    match (flavor, fname) {
        (Flavor::Nvptx, "log" | "log2") => v.push((
            "llvm.nvvm.lg2.approx.f",
            "declare float @llvm.nvvm.lg2.approx.f(float)",
        )),
        (Flavor::Amdgpu, _) => {
            v.push(("llvm.exp.f32", "declare float @llvm.exp.f32(float)"));
            v.push(("llvm.log.f32", "declare float @llvm.log.f32(float)"));
            v.push(("llvm.log2.f32", "declare float @llvm.log2.f32(float)"));
        }
        _ => {}
    }
    v
}

/// Other helpers a helper calls.
pub fn helper_deps(fname: &str) -> &'static [&'static str] {
    match fname {
        "tanh" | "erf" => &["exp"],
        _ => &[],
    }
}

/// The definition of `@__rtile_<fname>f`.
pub fn helper_body(flavor: Flavor, fname: &str) -> String {
    let head =
        format!("define internal float @__rtile_{fname}f(float %x) alwaysinline nounwind {{\n");
    let ln2 = std::f64::consts::LN_2;
    let body = match (fname, flavor) {
        ("exp2", _) => "  %r = call float @llvm.exp2.f32(float %x)\n  ret float %r\n".to_string(),
        ("exp", Flavor::Amdgpu) => {
            "  %r = call float @llvm.exp.f32(float %x)\n  ret float %r\n".to_string()
        }
        ("log", Flavor::Amdgpu) => {
            "  %r = call float @llvm.log.f32(float %x)\n  ret float %r\n".to_string()
        }
        ("log2", Flavor::Amdgpu) => {
            "  %r = call float @llvm.log2.f32(float %x)\n  ret float %r\n".to_string()
        }
        ("exp", Flavor::Nvptx) => {
            let l = std::f64::consts::LOG2_E;
            let l_hi = (l as f32) as f64;
            let l_lo = l - l_hi;
            format!(
                "  %t = fmul float %x, {lh}\n  %nt = fneg float %t\n  %e = call float @llvm.fma.f32(float %x, float {lh}, float %nt)\n  %e2 = call float @llvm.fma.f32(float %x, float {ll}, float %e)\n  %r = call float @llvm.exp2.f32(float %t)\n  %c = fmul float %e2, {ln2}\n  %y = call float @llvm.fma.f32(float %r, float %c, float %r)\n  %ar = call float @llvm.fabs.f32(float %r)\n  %big = fcmp oeq float %ar, 0x7FF0000000000000\n  %res = select i1 %big, float %r, float %y\n  ret float %res\n",
                lh = f(l_hi),
                ll = f(l_lo),
                ln2 = f(ln2)
            )
        }
        ("log", Flavor::Nvptx) => format!(
            "  %l = call float @llvm.nvvm.lg2.approx.f(float %x)\n  %r = fmul float %l, {}\n  ret float %r\n",
            f(ln2)
        ),
        ("log2", Flavor::Nvptx) => {
            "  %r = call float @llvm.nvvm.lg2.approx.f(float %x)\n  ret float %r\n".to_string()
        }
        ("tanh", _) => format!(
            "  %a = call float @llvm.fabs.f32(float %x)\n  %small = fcmp olt float %a, {c0125}\n  %x2 = fmul float %x, %x\n  %p1 = call float @llvm.fma.f32(float %x2, float {c4}, float {c3})\n  %p2 = call float @llvm.fma.f32(float %x2, float %p1, float {c2})\n  %p3 = call float @llvm.fma.f32(float %x2, float %p2, float {c1})\n  %x3 = fmul float %x2, %x\n  %ps = call float @llvm.fma.f32(float %x3, float %p3, float %x)\n  %a2 = fmul float %a, {two}\n  %e = call float @__rtile_expf(float %a2)\n  %d = fadd float %e, {one}\n  %q = fdiv float {two}, %d\n  %t = fsub float {one}, %q\n  %s = call float @llvm.copysign.f32(float %t, float %x)\n  %r = select i1 %small, float %ps, float %s\n  ret float %r\n",
            c0125 = f(0.125),
            c1 = f(-1.0 / 3.0),
            c2 = f(2.0 / 15.0),
            c3 = f(-17.0 / 315.0),
            c4 = f(62.0 / 2835.0),
            two = f(2.0),
            one = f(1.0)
        ),
        ("erf", _) => format!(
            "  %a = call float @llvm.fabs.f32(float %x)\n  %small = fcmp olt float %a, {half}\n  %x2 = fmul float %x, %x\n  %q1 = call float @llvm.fma.f32(float %x2, float {t5}, float {t4})\n  %q2 = call float @llvm.fma.f32(float %x2, float %q1, float {t3})\n  %q3 = call float @llvm.fma.f32(float %x2, float %q2, float {t2})\n  %q4 = call float @llvm.fma.f32(float %x2, float %q3, float {t1})\n  %q5 = call float @llvm.fma.f32(float %x2, float %q4, float {one})\n  %q6 = fmul float %q5, {tsp}\n  %ps = fmul float %x, %q6\n  %pa = fmul float %a, {p}\n  %den = fadd float %pa, {one}\n  %t = fdiv float {one}, %den\n  %k1 = call float @llvm.fma.f32(float %t, float {a5}, float {a4})\n  %k2 = call float @llvm.fma.f32(float %t, float %k1, float {a3})\n  %k3 = call float @llvm.fma.f32(float %t, float %k2, float {a2})\n  %k4 = call float @llvm.fma.f32(float %t, float %k3, float {a1})\n  %k5 = fmul float %k4, %t\n  %na2 = fmul float %x2, {mone}\n  %ex = call float @__rtile_expf(float %na2)\n  %k6 = fmul float %k5, %ex\n  %y = fsub float {one}, %k6\n  %s = call float @llvm.copysign.f32(float %y, float %x)\n  %r = select i1 %small, float %ps, float %s\n  ret float %r\n",
            half = f(0.5),
            one = f(1.0),
            mone = f(-1.0),
            t1 = f(-1.0 / 3.0),
            t2 = f(1.0 / 10.0),
            t3 = f(-1.0 / 42.0),
            t4 = f(1.0 / 216.0),
            t5 = f(-1.0 / 1320.0),
            tsp = f(2.0 / std::f64::consts::PI.sqrt()),
            p = f(0.3275911),
            a1 = f(0.254829592),
            a2 = f(-0.284496736),
            a3 = f(1.421413741),
            a4 = f(-1.453152027),
            a5 = f(1.061405429)
        ),
        _ => "  ret float %x\n".to_string(),
    };
    format!("{head}{body}}}\n")
}
