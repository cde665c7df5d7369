//! The compilation target of a `gpu.module`: upstream's `targets` property, read and written
//! once here. rtile uses upstream's own target attributes, so that `mlir-opt-22` verifies
//! what `--lower-to-gpu` prints: `#nvvm.target<chip = "sm_90">` for NVIDIA devices and
//! `#rocdl.target<chip = "gfx90a">` for AMD ones. `rtile-translate` takes its default
//! architecture from it and refuses to translate for another one.

use rtile::ir::attributes::Attribute;
use rtile::ir::{AttrKind, Context, OpId};

/// The back end a target attribute names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetKind {
    /// `#nvvm.target`: PTX for an NVIDIA architecture (`sm_90`).
    Nvvm,
    /// `#rocdl.target`: AMDGPU code for a processor (`gfx90a`).
    Rocdl,
}

impl TargetKind {
    /// The attribute's dialect namespace.
    pub fn dialect(self) -> &'static str {
        match self {
            TargetKind::Nvvm => "nvvm",
            TargetKind::Rocdl => "rocdl",
        }
    }
}

/// One entry of a `gpu.module`'s `targets`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuTarget {
    /// Which back end.
    pub kind: TargetKind,
    /// The architecture (`sm_90`, `gfx90a`). Upstream's default when the attribute has no
    /// `chip` (`sm_50` for nvvm, `gfx900` for rocdl) is filled in.
    pub chip: String,
}

impl GpuTarget {
    /// A target of `kind` for `chip`.
    pub fn new(kind: TargetKind, chip: impl Into<String>) -> Self {
        GpuTarget {
            kind,
            chip: chip.into(),
        }
    }

    /// The attribute as upstream prints it (`#nvvm.target<chip = "sm_90">`).
    pub fn to_attribute(&self) -> Attribute {
        Attribute::new(AttrKind::Dialect {
            dialect: self.kind.dialect().into(),
            body: format!("target<chip = \"{}\">", self.chip),
        })
    }

    /// Reads an `#nvvm.target<...>` / `#rocdl.target<...>` attribute; `None` for any other.
    pub fn from_attribute(a: &Attribute) -> Option<GpuTarget> {
        let AttrKind::Dialect { dialect, body } = a.kind() else {
            return None;
        };
        let (kind, default_chip) = match dialect.as_str() {
            "nvvm" => (TargetKind::Nvvm, "sm_50"),
            "rocdl" => (TargetKind::Rocdl, "gfx900"),
            _ => return None,
        };
        let params = body.strip_prefix("target")?;
        let chip = if params.is_empty() {
            default_chip.to_string()
        } else {
            let inner = params.strip_prefix('<')?.strip_suffix('>')?;
            string_param(inner, "chip").unwrap_or_else(|| default_chip.to_string())
        };
        Some(GpuTarget { kind, chip })
    }
}

/// The value of `key = "value"` in a parameter list such as `O = 3, chip = "sm_80"`.
fn string_param(params: &str, key: &str) -> Option<String> {
    let mut rest = params;
    while let Some(eq) = rest.find('=') {
        let name = rest[..eq].trim().trim_start_matches(',').trim();
        let after = rest[eq + 1..].trim_start();
        if let Some(quoted) = after.strip_prefix('"') {
            let end = quoted.find('"')?;
            if name == key {
                return Some(quoted[..end].to_string());
            }
            rest = &quoted[end + 1..];
        } else {
            if name == key {
                return None;
            }
            rest = after.find(',').map_or("", |c| &after[c..]);
        }
    }
    None
}

/// The targets of `gpu.module` op `module` that rtile knows, in order.
pub fn module_targets(ctx: &Context, module: OpId) -> Vec<GpuTarget> {
    match ctx.inherent_attr(module, "targets").map(|x| x.kind()) {
        Some(AttrKind::Array(v)) => v.iter().filter_map(GpuTarget::from_attribute).collect(),
        _ => Vec::new(),
    }
}

/// The rtile device description a `gpu.module` was lowered for (its `rtile.device`).
pub fn module_device(ctx: &Context, module: OpId) -> Option<&str> {
    ctx.attr(module, crate::rtile::DEVICE)
        .and_then(|a| a.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_upstream_target_attributes() {
        let nv = AttrKind::Dialect {
            dialect: "nvvm".into(),
            body: "target<O = 3, chip = \"sm_80\", features = \"+ptx80\">".into(),
        };
        assert_eq!(
            GpuTarget::from_attribute(&Attribute::new(nv)),
            Some(GpuTarget::new(TargetKind::Nvvm, "sm_80"))
        );
        let amd = GpuTarget::new(TargetKind::Rocdl, "gfx90a").to_attribute();
        assert_eq!(
            GpuTarget::from_attribute(&amd),
            Some(GpuTarget::new(TargetKind::Rocdl, "gfx90a"))
        );
        let bare = AttrKind::Dialect {
            dialect: "nvvm".into(),
            body: "target".into(),
        };
        assert_eq!(
            GpuTarget::from_attribute(&Attribute::new(bare)).map(|t| t.chip),
            Some("sm_50".into())
        );
        let other = AttrKind::Dialect {
            dialect: "gpu".into(),
            body: "address_space<workgroup>".into(),
        };
        assert_eq!(GpuTarget::from_attribute(&Attribute::new(other)), None);
    }

    #[test]
    fn prints_as_upstream_does() {
        let t = GpuTarget::new(TargetKind::Nvvm, "sm_90").to_attribute();
        assert_eq!(
            rtile::printer::attr_to_string(&t),
            "#nvvm.target<chip = \"sm_90\">"
        );
    }
}
