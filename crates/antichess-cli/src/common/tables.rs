//! Table setup shared by the commands: build the tables a job needs (a progress bar on a
//! terminal; a line on stderr saying what is built, where, and how long it took) and open
//! the directory.

use std::path::PathBuf;

use antichess_tb::{build, Material, Tablebase};
use anyhow::Context;

use crate::common::args::{SearchTables, TablesArgs};
use crate::common::progress::BuildProgress;

/// Builds the tables `targets` need, with a progress bar and the start and end lines
/// (unless `quiet`), and opens the directory.
pub fn ensure_tables(
    targets: &[Material],
    tables: &TablesArgs,
    quiet: bool,
) -> anyhow::Result<Tablebase> {
    let dir = tables.dir();
    let options = tables.build_options();
    let progress = BuildProgress::new(quiet).at(&options);
    let result = build(targets, &options, &|e| progress.event(e));
    progress.finish(result.as_ref().ok());
    result.with_context(|| format!("building tables in {}", dir.display()))?;
    Ok(Tablebase::open(&dir, tables.rules)?)
}

impl SearchTables {
    /// The tables for searching under `rules` ([`solver_tables`] with `--tables` and
    /// `--tb-units`).
    pub fn open(
        &self,
        rules: antichess_core::Rules,
        quiet: bool,
    ) -> anyhow::Result<Option<Tablebase>> {
        solver_tables(&self.tables, rules, self.tb_units, quiet)
    }
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
    antichess_tb::check_set_units(flag, rules, units).map_err(anyhow::Error::msg)?;
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
