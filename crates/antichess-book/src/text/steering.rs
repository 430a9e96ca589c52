//! The lines of the commands that steer and move a book by hand: `book pin` and `book
//! mark` ([`PinReport`], [`MarkReport`]), `book export`, `import` and `copy`
//! ([`ExportReport`], [`ImportJobReport`], [`CopyJobReport`]), and `book tables`
//! ([`tables_text`]). Each `Display` is one line, without a newline at the end.

use std::fmt;
use std::fmt::Write as _;

use super::number;
use crate::jobs::steer::{MarkReport, PinReport};
use crate::jobs::tables::TablesReport;
use crate::jobs::transfer::{CopyJobReport, ExportReport, ImportJobReport};

/// Where the walk now starts.
impl fmt::Display for PinReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.pin {
            None => write!(f, "pin cleared: the walk starts at the root"),
            Some(n) => write!(f, "the walk starts at node {}: {}", n.id, n.line),
        }
    }
}

/// The node marked, and the root after it.
impl fmt::Display for MarkReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (node, root) = (&self.node, &self.root);
        write!(
            f,
            "node {} ({}) is now {}; root: {} (proof {}, disproof {})",
            node.id,
            node.line,
            node.status,
            root.status,
            number(root.proof),
            number(root.disproof)
        )
    }
}

/// The node exported, and where to.
impl fmt::Display for ExportReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "exported node {} ({}) and its subtree: {} nodes into {}",
            self.node.id, self.node.line, self.nodes, self.output
        )
    }
}

/// What an import changed, and the root after it.
impl fmt::Display for ImportJobReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self;
        write!(
            f,
            "imported {}: {} nodes added, {} updated, {} kept; root: {} (proof {}, disproof {})",
            r.sub_book,
            r.added,
            r.updated,
            r.kept,
            r.root.status,
            number(r.root.proof),
            number(r.root.disproof)
        )
    }
}

/// What was copied, from where to where (locations with their passwords hidden).
impl fmt::Display for CopyJobReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self;
        write!(
            f,
            "copied {} to {}: {} nodes, {} search log entries, {} queued, {} meta entries in {:.1} s",
            r.source, r.destination, r.nodes, r.searches, r.queued, r.meta, r.seconds
        )
    }
}

/// `book tables` as text (each line ending in a newline): the materials the book's
/// searches met without a table, of at most `units` units, with their tables' state in
/// the report's directory, and the command that builds them for the book given as `book`.
#[must_use]
pub fn tables_text(report: &TablesReport, units: u32, book: &str) -> String {
    let rows = &report.materials;
    if rows.is_empty() {
        return format!(
            "The book's searches met no material of at most {units} units without a table.\n"
        );
    }
    let mut out = format!(
        "Materials the book's searches met without a table (tables: {}):\n",
        report.tables
    );
    let _ = writeln!(
        out,
        "  {:<10} {:>5} {:>16}  {:<8} {:>12}",
        "material", "units", "positions", "table", "bytes"
    );
    for r in rows {
        let _ = writeln!(
            out,
            "  {:<10} {:>5} {:>16}  {:<8} {:>12}",
            r.material,
            r.units,
            r.positions,
            r.table,
            r.bytes.map_or_else(String::new, |b| b.to_string())
        );
    }
    let present: Vec<u64> = rows
        .iter()
        .filter(|r| r.table == "present")
        .filter_map(|r| r.bytes)
        .collect();
    let bound = rows.iter().filter(|r| r.table == "bound").count();
    let _ = writeln!(
        out,
        "{} of {} present ({} bytes), {bound} with bound tables only; `antichess tb build --from-book {book} --top N` builds the first N.",
        present.len(),
        rows.len(),
        present.iter().sum::<u64>(),
    );
    out
}
