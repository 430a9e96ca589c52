//! The solve benchmark ([`crate::bench`]) as text for people: the settings and the
//! table's heading, one row per line ([`LineRow`]'s `Display`), the speed per thread count
//! ([`SpeedRow`]'s `Display`), and the lines after the table. Times in seconds.

use std::fmt;

use antichess_core::Rules;

use crate::bench::{LineRow, SolveBenchOptions, SolveBenchReport, SpeedRow};

/// The settings and the table's heading (two lines, no newline at the end).
#[must_use]
pub fn header_text(options: &SolveBenchOptions<'_>) -> String {
    let units = options
        .tablebase
        .map_or(0, antichess_tb::Tablebase::max_units);
    format!(
        "solve benchmark: {} rules, tables up to {units} units, {} thread(s), hash {} MB, budget {} nodes / {:.0} s per line, initial numbers: {}\n\
         {:<10} {:<8} {:<10} {:>8} {:>12} {:>10} {:>10} {:>8} {:>11} {:>11} {:>9}  verifier",
        Rules::INTERNATIONAL,
        options.threads,
        options.hash_bytes >> 20,
        options.nodes,
        options.time.as_secs_f64(),
        options.initial.describe(),
        "line",
        "prover",
        "result",
        "seconds",
        "nodes",
        "nodes/s",
        "as found",
        "min. s",
        "proof nodes",
        "reference",
        "bytes/node"
    )
}

/// One line's row of the table.
impl fmt::Display for LineRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let row = self;
        let verdict = match (row.verified, &row.error) {
            (Some(true), _) => "valid".to_string(),
            (Some(false), Some(e)) => format!("INVALID: {e}"),
            (Some(false), None) => "INVALID".to_string(),
            (None, _) => "-".to_string(),
        };
        let or_dash = |n: Option<String>| n.unwrap_or_else(|| "-".to_string());
        write!(
            f,
            "{:<10} {:<8} {:<10} {:>8.2} {:>12} {:>10.0} {:>10} {:>8} {:>11} {:>11} {:>9}  {verdict}",
            row.line,
            row.prover,
            row.result,
            row.seconds,
            row.nodes,
            row.nodes_per_second,
            or_dash(row.unminimized_proof_nodes.map(|n| n.to_string())),
            or_dash(row.minimize_seconds.map(|s| format!("{s:.1}"))),
            or_dash(row.proof_nodes.map(|n| n.to_string())),
            or_dash(row.reference_proof_nodes.map(|n| n.to_string())),
            or_dash(row.bytes_per_node.map(|b| format!("{b:.2}"))),
        )
    }
}

/// The speed with one thread count, indented under its heading ([`SPEED_HEADING`]).
impl fmt::Display for SpeedRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self;
        write!(
            f,
            "  {} thread(s): {} in {:.2} s, {} nodes, {:.0} nodes/s ({:.0} per thread); speed-up: nodes/s x{:.2}, time x{:.2}",
            r.threads,
            r.result,
            r.seconds,
            r.nodes,
            r.nodes_per_second,
            r.nodes_per_second / r.threads as f64,
            r.speedup_nodes_per_second,
            r.speedup_time
        )
    }
}

/// The heading of the speed measurement.
pub const SPEED_HEADING: &str =
    "search speed on 1. e3 g6 (10 s or until solved, per thread count):";

/// The lines not proved within the budget, or nothing (a line ending in a newline).
#[must_use]
pub fn unproved_text(unproved: &[String]) -> String {
    if unproved.is_empty() {
        String::new()
    } else {
        format!("not proved within the budget: {}\n", unproved.join(", "))
    }
}

/// The lines after the table (and the speed): the lines not proved (when no speed was
/// measured: they come before it otherwise), the entry's size, the peak memory; each
/// line ends in a newline.
#[must_use]
pub fn end_text(report: &SolveBenchReport, unproved: &[String]) -> String {
    let mut out = String::new();
    if report.speed.is_none() {
        out += &unproved_text(unproved);
    }
    out += &format!("table entry: {} bytes\n", report.entry_bytes);
    if let Some(peak) = report.peak_memory_bytes {
        out += &format!("peak memory: {:.1} MB\n", peak as f64 / 1e6);
    }
    out
}
