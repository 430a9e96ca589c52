//! `book tables` as a job: the materials the book's searches met without a table, most
//! positions first, each found present, bound (bound tables only) or missing in a tables
//! directory, with the disk its files take.

use std::path::Path;

use antichess_core::Color;
use antichess_tb::format::kind_file_name;
use antichess_tb::{Material, TableKind};

use crate::error::Result;
use crate::Book;

/// One material met without a table.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct MaterialRow {
    pub material: String,
    pub units: u32,
    /// Positions the book's searches evaluated while it had no table.
    pub positions: u64,
    /// `present`, `bound` (only bound tables) or `missing`.
    pub table: &'static str,
    /// The files' size (present and bound ones).
    pub bytes: Option<u64>,
}

/// What `book tables` reports.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TablesReport {
    pub book: String,
    /// The tables directory looked in.
    pub tables: String,
    pub materials: Vec<MaterialRow>,
}

/// Whether the table of `material` is in `dir` (exact, or bound tables only), and the
/// size of its files.
fn table_state(dir: &Path, material: &str) -> (&'static str, Option<u64>) {
    let size = |name: String| std::fs::metadata(dir.join(name)).ok().map(|m| m.len());
    let Ok(mat) = material.parse::<Material>() else {
        return ("missing", None);
    };
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

/// The materials of at most `units` units (all recorded if `None`) the searches of `book`
/// met without a table, looked up in `dir`.
///
/// # Errors
/// The store's.
pub fn book_tables(book: &mut Book, dir: &Path, units: Option<u32>) -> Result<TablesReport> {
    let mut missing = book.missing_tables()?;
    if let Some(units) = units {
        missing.retain(|m| m.units <= units);
    }
    let materials = missing
        .into_iter()
        .map(|m| {
            let (table, bytes) = table_state(dir, &m.material);
            MaterialRow {
                material: m.material,
                units: m.units,
                positions: m.positions,
                table,
                bytes,
            }
        })
        .collect();
    Ok(TablesReport {
        book: book.shown(),
        tables: dir.display().to_string(),
        materials,
    })
}
