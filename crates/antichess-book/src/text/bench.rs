//! The book benchmark ([`crate::jobs::bench`]) as text: the settings and the table's
//! heading, and one row per budget and worker count ([`BenchRow`]'s `Display`).

use std::fmt;

use crate::jobs::bench::BenchRow;

/// The settings and the heading (two lines, no newline at the end): the line after
/// 1. e.g. `e3 e6`, and the tables' units.
#[must_use]
pub fn header_text(moves: &str, units: u32) -> String {
    format!(
        "book benchmark: 1. {moves} (White to win), most-proving walk, tables up to {units} units, SQLite store\n\
         {:>12} {:>7} {:<9} {:>8} {:>9} {:>10} {:>12} {:>10} {:>11} {:>8}  verifier",
        "search nodes",
        "workers",
        "result",
        "seconds",
        "searches",
        "searches/s",
        "positions/s",
        "book nodes",
        "proof nodes",
        "prove s"
    )
}

/// One budget's row of the table.
impl fmt::Display for BenchRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self;
        let verdict = match (r.verified, &r.error) {
            (None, _) => "-".to_string(),
            (Some(true), _) => "valid".to_string(),
            (Some(false), e) => format!("INVALID: {}", e.clone().unwrap_or_default()),
        };
        write!(
            f,
            "{:>12} {:>7} {:<9} {:>8.2} {:>9} {:>10.1} {:>12.0} {:>10} {:>11} {:>8}  {verdict}",
            r.search_nodes,
            r.workers,
            r.result,
            r.seconds,
            r.searches,
            r.searches_per_second,
            r.positions_per_second,
            r.book_nodes,
            r.proof_nodes
                .map_or_else(|| "-".to_string(), |n| n.to_string()),
            r.prove_seconds
                .map_or_else(|| "-".to_string(), |s| format!("{s:.2}")),
        )
    }
}
