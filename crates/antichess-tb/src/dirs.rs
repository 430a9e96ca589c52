//! Where tables live when no directory is given: one directory per rule set under
//! `$ANTICHESS_TABLES`, else the user's cache.

use std::path::PathBuf;

use antichess_core::Rules;

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
