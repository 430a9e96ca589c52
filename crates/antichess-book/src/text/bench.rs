//! The book benchmarks as text: `bench book` ([`crate::jobs::bench`]: the settings and
//! the table's heading, and one row per budget and worker count, [`BenchRow`]'s
//! `Display`) and `bench store` ([`crate::jobs::store_bench`]: its first line, and its
//! figures, [`StoreBenchReport`]'s `Display`).

use std::fmt;

use crate::jobs::bench::BenchRow;
use crate::jobs::store_bench::StoreBenchReport;

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

/// The first line of the store benchmark: the store, the book, the root, the processes
/// and how long they write (`seconds`).
#[must_use]
pub fn store_started_line(
    store: &str,
    location: &str,
    moves: &str,
    processes: usize,
    seconds: f64,
) -> String {
    format!(
        "store benchmark: {store} book at {location}, root 1. {moves}, {processes} processes of 1 worker, 1 node per search, {seconds} s"
    )
}

/// The store benchmark's figures: a heading, a row, and how the rates were measured;
/// each line ends in a newline.
impl fmt::Display for StoreBenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let report = self;
        writeln!(
            f,
            "{:>10} {:>10} {:>9} {:>9} {:>12} {:>10} {:>10}",
            "claims", "writes", "claims/s", "writes/s", "txns/s", "seconds", "book nodes"
        )?;
        writeln!(
            f,
            "{:>10} {:>10} {:>9.1} {:>9.1} {:>12.1} {:>10.1} {:>10}",
            report.claims,
            report.writes,
            report.claims_per_second,
            report.writes_per_second,
            report.transactions_per_second,
            report.span_seconds,
            report.book_nodes
        )?;
        writeln!(
            f,
            "({} workers wrote to the log; rates over the log's span from the first claim to the last write; wall time {:.1} s)",
            report.workers, report.wall_seconds
        )
    }
}
