//! `antichess book tables`: the materials of at most 6 units the book's searches met
//! without a table, most positions first, each marked present, bound (bound tables only)
//! or missing in a tables directory, with the disk they take. `antichess tb build --from-book BOOK`
//! builds the first of them; the book's next searches use them.

use std::process::ExitCode;

use antichess_book::Book;
use antichess_core::Color;
use antichess_tb::format::kind_file_name;
use antichess_tb::{Material, TableKind};
use clap::Args;
use serde_json::json;

use crate::common::args::default_tables_dir;
use crate::common::output::Format;

/// List the materials (at most 6 units; --units to show fewer) the book's searches met
/// without a table, most positions first, and whether a table for each is in the tables
/// directory now. `tb build --from-book` takes those of at most 5 units unless told.
///
/// In JSON: `book`, `tables` (the directory), and `materials`: one object per material
/// with `material`, `units`, `positions` (evaluated by the book's searches while it had no
/// table), `table` ("present", "bound" when only bound tables are there, or "missing") and
/// `bytes` (the files' size, present and bound ones).
#[derive(Debug, Args)]
pub struct TablesArgs {
    pub book: String,

    /// Directory of table files (default: that of the book's rule set,
    /// ~/.cache/antichess/tables/<rules>).
    #[arg(long, value_name = "DIR")]
    pub tables: Option<std::path::PathBuf>,

    /// Show only materials of at most this many units.
    #[arg(long, value_name = "N")]
    pub units: Option<u32>,

    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

pub fn run_tables(args: &TablesArgs) -> anyhow::Result<ExitCode> {
    let mut book = Book::open_read_only(&args.book)?;
    let rules = book.meta().rules;
    let dir = args
        .tables
        .clone()
        .unwrap_or_else(|| default_tables_dir(rules));
    let mut missing = book.missing_tables()?;
    if let Some(units) = args.units {
        missing.retain(|m| m.units <= units);
    }
    let size = |name: String| std::fs::metadata(dir.join(name)).ok().map(|m| m.len());
    let rows: Vec<(String, u32, u64, &str, Option<u64>)> = missing
        .iter()
        .map(|m| {
            let (status, bytes) = match m.material.parse::<Material>() {
                Ok(mat) => {
                    let (canonical, _) = mat.canonical();
                    let bound: Vec<u64> = [Color::White, Color::Black]
                        .into_iter()
                        .filter_map(|c| size(kind_file_name(&canonical, TableKind::Bound(c))))
                        .collect();
                    match size(kind_file_name(&canonical, TableKind::Exact)) {
                        Some(b) => ("present", Some(b)),
                        None if !bound.is_empty() => ("bound", Some(bound.iter().sum())),
                        None => ("missing", None),
                    }
                }
                Err(_) => ("missing", None),
            };
            (m.material.clone(), m.units, m.positions, status, bytes)
        })
        .collect();
    if args.format == Format::Json {
        let materials: Vec<_> = rows
            .iter()
            .map(|(material, units, positions, status, bytes)| {
                json!({
                    "material": material,
                    "units": units,
                    "positions": positions,
                    "table": status,
                    "bytes": bytes,
                })
            })
            .collect();
        println!(
            "{}",
            json!({
                "book": antichess_book::redact(&args.book),
                "tables": dir.display().to_string(),
                "materials": materials,
            })
        );
        return Ok(ExitCode::SUCCESS);
    }
    if rows.is_empty() {
        println!(
            "The book's searches met no material of at most {} units without a table.",
            args.units.unwrap_or(antichess_book::tables::RECORD_UNITS)
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "Materials the book's searches met without a table (tables: {}):",
        dir.display()
    );
    println!(
        "  {:<10} {:>5} {:>16}  {:<8} {:>12}",
        "material", "units", "positions", "table", "bytes"
    );
    for (material, units, positions, status, bytes) in &rows {
        println!(
            "  {:<10} {:>5} {:>16}  {:<8} {:>12}",
            material,
            units,
            positions,
            status,
            bytes.map_or_else(String::new, |b| b.to_string())
        );
    }
    let present: Vec<u64> = rows
        .iter()
        .filter(|r| r.3 == "present")
        .filter_map(|r| r.4)
        .collect();
    let bound = rows.iter().filter(|r| r.3 == "bound").count();
    println!(
        "{} of {} present ({} bytes), {bound} with bound tables only; `antichess tb build --from-book {} --top N` builds the first N.",
        present.len(),
        rows.len(),
        present.iter().sum::<u64>(),
        args.book
    );
    Ok(ExitCode::SUCCESS)
}
