//! `bench movegen` as a job: single-thread perft on the fixed positions of
//! [`MOVEGEN_SET`], each measured `repeat` times (the fastest counts), with bulk counting
//! of the last ply or with every leaf played; every node count is asserted, so that a
//! faster number is never a wrong one. One row per position as it is measured, and the
//! totals in one serializable report.

use std::time::Instant;

use serde::Serialize;

use crate::perft::{perft, perft_full, MOVEGEN_SET};
use crate::{Position, Rules};

/// One position's measurement.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MovegenRow {
    pub position: &'static str,
    pub fen: &'static str,
    /// Plies.
    pub depth: u32,
    pub nodes: u64,
    /// The fastest of the runs.
    pub seconds: f64,
    pub nodes_per_second: f64,
    /// Every leaf played (`perft_full`), or the last ply counted (`perft`).
    pub every_leaf_played: bool,
}

/// What `bench movegen` reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MovegenReport {
    pub results: Vec<MovegenRow>,
    pub nodes_per_second_last_ply_counted: f64,
    pub nodes_per_second_every_leaf_played: f64,
    /// Always 1.
    pub threads: u32,
}

impl std::fmt::Display for MovegenRow {
    /// The row of `bench movegen`'s table: position, depth, nodes, seconds, Mnodes/s, mode.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mode = if self.every_leaf_played {
            "every leaf played"
        } else {
            "last ply counted"
        };
        write!(
            f,
            "{:<12} {:>5} {:>12} {:>10.3} {:>10.1}  {mode}",
            self.position,
            self.depth,
            self.nodes,
            self.seconds,
            self.nodes_per_second / 1e6
        )
    }
}

impl MovegenRow {
    /// The heading of `bench movegen`'s table, in the rows' columns.
    #[must_use]
    pub fn heading() -> String {
        format!(
            "{:<12} {:>5} {:>12} {:>10} {:>10}  mode",
            "position", "depth", "nodes", "seconds", "Mnodes/s"
        )
    }
}

impl MovegenReport {
    /// What `bench movegen` says after its rows: an empty line, the totals
    /// ([`MovegenReport::totals_text`]) and that it ran on one thread with its node counts
    /// asserted.
    #[must_use]
    pub fn end_text(&self) -> String {
        format!(
            "\n{}\n(single thread; node counts asserted)",
            self.totals_text()
        )
    }

    /// The two totals' lines (Mnodes/s, last ply counted and every leaf played).
    #[must_use]
    pub fn totals_text(&self) -> String {
        format!(
            "total, last ply counted:  {:.1} Mnodes/s\ntotal, every leaf played: {:.1} Mnodes/s",
            self.nodes_per_second_last_ply_counted / 1e6,
            self.nodes_per_second_every_leaf_played / 1e6
        )
    }
}

/// A node count that differs from the one expected: move generation is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeCountMismatch {
    pub position: &'static str,
    pub depth: u32,
    pub nodes: u64,
    pub expected: u64,
}

impl std::fmt::Display for NodeCountMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "node count mismatch for {} depth {}: {}, expected {}",
            self.position, self.depth, self.nodes, self.expected
        )
    }
}

impl std::error::Error for NodeCountMismatch {}

/// Measures every position of [`MOVEGEN_SET`] (the fastest of `repeat` runs, at least
/// one), giving each row to `on_row` as it is measured.
///
/// # Errors
/// A node count that is not the one expected.
///
/// # Panics
/// If a position of the set does not parse (it is a constant).
pub fn movegen_bench(
    repeat: u32,
    on_row: &mut dyn FnMut(&MovegenRow),
) -> Result<MovegenReport, NodeCountMismatch> {
    let mut results = Vec::new();
    // Nodes and seconds, last ply counted and every leaf played.
    let mut totals = [(0u64, 0f64); 2];
    for &(name, fen, depth, expected, full) in MOVEGEN_SET {
        let pos = Position::from_fen(fen, Rules::INTERNATIONAL).expect("a valid FEN");
        let mut best = f64::INFINITY;
        for _ in 0..repeat.max(1) {
            let start = Instant::now();
            let nodes = if full {
                perft_full(&pos, depth)
            } else {
                perft(&pos, depth)
            };
            best = best.min(start.elapsed().as_secs_f64());
            if nodes != expected {
                return Err(NodeCountMismatch {
                    position: name,
                    depth,
                    nodes,
                    expected,
                });
            }
        }
        let row = MovegenRow {
            position: name,
            fen,
            depth,
            nodes: expected,
            seconds: best,
            nodes_per_second: expected as f64 / best,
            every_leaf_played: full,
        };
        on_row(&row);
        results.push(row);
        let t = &mut totals[usize::from(full)];
        t.0 += expected;
        t.1 += best;
    }
    Ok(MovegenReport {
        results,
        nodes_per_second_last_ply_counted: totals[0].0 as f64 / totals[0].1,
        nodes_per_second_every_leaf_played: totals[1].0 as f64 / totals[1].1,
        threads: 1,
    })
}
