//! Where tables live when no directory is given: one directory per rule set under
//! `$ANTICHESS_TABLES`, else the user's cache; and the tables a proof is verified with
//! when none are given ([`verification_tables`]).

use std::path::{Path, PathBuf};

use antichess_core::Rules;

use crate::error::TbError;
use crate::tablebase::Tablebase;

/// The default tables directory for a rule set: `$ANTICHESS_TABLES/<rules>` if set, else
/// `$XDG_CACHE_HOME/antichess/tables/<rules>`, else `~/.cache/antichess/tables/<rules>`
/// (`tables/<rules>` when none of them is set).
#[must_use]
pub fn default_tables_dir(rules: Rules) -> PathBuf {
    let base = std::env::var_os("ANTICHESS_TABLES")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("antichess/tables"))
        })
        .or_else(|| {
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/antichess/tables"))
        })
        .unwrap_or_else(|| PathBuf::from("tables"));
    base.join(rules.to_string())
}

/// The tables to verify proofs with: those in `tables`, else those in the rule set's
/// default directory ([`default_tables_dir`]) if it exists (`None`: neither).
///
/// # Errors
/// When the directory cannot be opened as tables of `rules`.
pub fn verification_tables(
    tables: Option<&Path>,
    rules: Rules,
) -> Result<Option<Tablebase>, TbError> {
    let dir = tables.map_or_else(|| default_tables_dir(rules), Path::to_path_buf);
    Ok(if tables.is_some() || dir.is_dir() {
        Some(Tablebase::open(&dir, rules)?)
    } else {
        None
    })
}
