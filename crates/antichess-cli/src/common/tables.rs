//! Table setup shared by the commands: build the tables a job needs (a progress bar on a
//! terminal; a line on stderr saying what is built, where, and how long it took) and open
//! the directory.

use std::path::PathBuf;

use antichess_tb::{build, BuildOptions, Material, Tablebase};
use anyhow::{bail, Context};

use crate::common::args::TablesArgs;
use crate::common::progress::BuildProgress;

/// Builds the tables `targets` need, with a progress bar and the start and end lines
/// (unless `quiet`), and opens the directory.
pub fn ensure_tables(
    targets: &[Material],
    tables: &TablesArgs,
    quiet: bool,
) -> anyhow::Result<Tablebase> {
    let dir = tables.dir();
    let options = BuildOptions {
        rules: tables.rules,
        dir: dir.clone(),
        threads: tables.threads,
        strategy: Default::default(),
    };
    let progress = BuildProgress::new(quiet).at(&options);
    let result = build(targets, &options, &|e| progress.event(e));
    progress.finish(result.as_ref().ok());
    result.with_context(|| format!("building tables in {}", dir.display()))?;
    Ok(Tablebase::open(&dir, tables.rules)?)
}

/// Opens the tables for `rules`, building the complete set of `units` first if needed
/// (`units` given as `--tb-units`).
pub fn solver_tables(
    tables: &Option<PathBuf>,
    rules: antichess_core::Rules,
    units: u32,
    quiet: bool,
) -> anyhow::Result<Option<Tablebase>> {
    solver_tables_of("--tb-units", tables, rules, units, quiet)
}

/// [`solver_tables`] for a command whose option of the units is `flag` (`--units`), which
/// an error about the number names.
pub fn solver_tables_of(
    flag: &str,
    tables: &Option<PathBuf>,
    rules: antichess_core::Rules,
    units: u32,
    quiet: bool,
) -> anyhow::Result<Option<Tablebase>> {
    if units == 0 {
        return Ok(None);
    }
    check_units(flag, rules, units)?;
    let args = TablesArgs {
        tables: tables.clone(),
        rules,
        threads: 0,
    };
    Ok(Some(ensure_tables(
        &Material::all_up_to(units),
        &args,
        quiet,
    )?))
}

/// Checks that `units` (given as `flag`) is a size of complete table sets that can be
/// built under `rules`: 0 (no tables) or 2 to 5 (to 4 under the royal-king rules).
pub fn check_units(flag: &str, rules: antichess_core::Rules, units: u32) -> anyhow::Result<()> {
    if units == 0 {
        return Ok(());
    }
    if rules.is_royal() && !(2..=antichess_tb::ROYAL_MAX_UNITS).contains(&units) {
        bail!(
            "{flag} {units}: choose 0 (no tables) or 2 to {} under {rules} (positions \
             with a bare king need no table)",
            antichess_tb::ROYAL_MAX_UNITS
        );
    }
    if !(2..=5).contains(&units) {
        bail!("{flag} {units}: choose 0 (no tables) or 2 to 5");
    }
    Ok(())
}
