//! The materials the book's searches met without a table: every search adds the positions
//! it evaluated per such material (up to [`RECORD_UNITS`] units) to totals kept in the
//! store's meta table (`missing_table:<material>` = positions), in the same transaction as
//! its result. `antichess book tables` lists them, most met first, and `antichess tb build
//! --from-book` builds the ones met most: the book's leaves get the tables their own lines
//! need, and use them from the next search on.

use antichess_pns::MissingTable;

use crate::error::{BookError, Result};
use crate::store::Txn;

/// Searches record materials of at most this many units that no table covers.
pub const RECORD_UNITS: u32 = 6;

/// The meta name prefix of the totals.
const PREFIX: &str = "missing_table:";

/// Adds a search's counts to the book's totals.
pub fn record_missing(txn: &mut dyn Txn, met: &[MissingTable]) -> Result<()> {
    for m in met {
        let name = format!("{PREFIX}{}", m.material);
        let before = match txn.meta(&name)? {
            Some(v) => parse_count(&name, &v)?,
            None => 0,
        };
        txn.set_meta(&name, &before.saturating_add(m.positions).to_string())?;
    }
    Ok(())
}

/// The book's totals, most positions first (ties by name). A material whose table has
/// been built since is still listed: the caller knows which tables it has.
pub fn missing_tables(txn: &mut dyn Txn) -> Result<Vec<MissingTable>> {
    let mut out = Vec::new();
    for (name, value) in txn.all_meta()? {
        let Some(material) = name.strip_prefix(PREFIX) else {
            continue;
        };
        let positions = parse_count(&name, &value)?;
        let units = material.chars().filter(char::is_ascii_alphabetic).count() as u32;
        out.push(MissingTable {
            material: material.to_string(),
            units,
            positions,
        });
    }
    out.sort_by(|a, b| {
        b.positions
            .cmp(&a.positions)
            .then_with(|| a.material.cmp(&b.material))
    });
    Ok(out)
}

fn parse_count(name: &str, value: &str) -> Result<u64> {
    value.parse().map_err(|_| {
        BookError::Corrupt(format!(
            "meta {name} holds {value:?}, not a count of positions"
        ))
    })
}
