//! Which tables a `tb` command is about: the materials named by signature, or every
//! material of at most N units (`--units`), for antichess tables ([`targets`]) and for
//! Lasker tables ([`lasker_targets`], with their directory [`lasker_dir`]). The limits
//! on N are the formats' (2 to [`MAX_UNITS`] units; Lasker tables 3 to 5 men with one king
//! per side); an error names the value given.

use std::path::{Path, PathBuf};

use antichess_core::Rules;

use crate::default_tables_dir;
use crate::error::TbError;
use crate::format::MAX_UNITS;
use crate::lasker::lasker_material_ok;
use crate::material::Material;

/// The materials named.
///
/// # Errors
/// The first signature that is not one.
pub fn parse_signatures(signatures: &[String]) -> Result<Vec<Material>, TbError> {
    signatures.iter().map(|s| s.parse::<Material>()).collect()
}

/// The materials named, or every one of at most `units` units.
///
/// # Errors
/// A bad signature, or `units` outside 2 to [`MAX_UNITS`].
pub fn targets(signatures: &[String], units: Option<u32>) -> Result<Vec<Material>, TbError> {
    match units {
        Some(n) if !(2..=MAX_UNITS).contains(&n) => Err(TbError::Unsupported(format!(
            "--units {n}: tables have 2 to {MAX_UNITS} units"
        ))),
        Some(n) => Ok(Material::all_up_to(n)),
        None => parse_signatures(signatures),
    }
}

/// The Lasker tables directory: `tables` if given, else `lasker` beside the default
/// antichess directories ($ANTICHESS_TABLES/lasker, ~/.cache/antichess/tables/lasker).
#[must_use]
pub fn lasker_dir(tables: Option<&Path>, rules: Rules) -> PathBuf {
    tables.map_or_else(
        || {
            default_tables_dir(rules)
                .parent()
                .map_or_else(|| PathBuf::from("lasker"), |p| p.join("lasker"))
        },
        Path::to_path_buf,
    )
}

/// Materials with both kings and at most `units` men (pawns of both colours included).
fn lasker_all_up_to(units: u32) -> Result<Vec<Material>, TbError> {
    if !(3..=5).contains(&units) {
        return Err(TbError::Unsupported(format!(
            "--units {units}: Lasker tables have 3 to 5 men"
        )));
    }
    Ok(Material::all_up_to(units)
        .into_iter()
        .filter(lasker_material_ok)
        .collect())
}

/// The Lasker materials named (each in its canonical colours), or every one of at most
/// `units` men.
///
/// # Errors
/// A bad signature, a material that is not a Lasker table's (one king per side and
/// another man, at most 5 men), or `units` outside 3 to 5.
pub fn lasker_targets(signatures: &[String], units: Option<u32>) -> Result<Vec<Material>, TbError> {
    if let Some(n) = units {
        return lasker_all_up_to(n);
    }
    let mut out = Vec::new();
    for s in signatures {
        let m: Material = s.parse()?;
        if !lasker_material_ok(&m) {
            return Err(TbError::Unsupported(format!(
                "{s}: a Lasker table needs exactly one king per side and another man (e.g. KQk, KRPkp)"
            )));
        }
        if m.units() > 5 {
            return Err(TbError::Unsupported(format!(
                "{s}: {} men; Lasker tables have at most 5",
                m.units()
            )));
        }
        out.push(m.canonical().0);
    }
    Ok(out)
}
