//! What the search's front (`search.rs`: [`crate::Solver`], results) and its threads
//! (`worker.rs`) share, below both: the search's options ([`SearchOptions`]), the infinite
//! number [`INF`] and a root move's numbers ([`MoveNumbers`]). `search` re-exports them.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use antichess_core::{Color, Move};

use crate::initial::InitialNumbers;

/// An infinite proof or disproof number: the other side is solved.
pub const INF: u32 = u32::MAX;

/// Limits and switches of a search.
#[derive(Debug, Clone)]
pub struct SearchOptions {
    /// The side whose win is to be proved.
    pub prover: Color,
    /// Stop after this many positions (nodes) have been evaluated.
    pub max_nodes: Option<u64>,
    /// Stop after this much time.
    pub max_time: Option<Duration>,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// ε of the 1+ε threshold trick.
    pub epsilon: f64,
    /// Apply the lone opposite-bishop rule.
    pub lone_bishop_rule: bool,
    /// Probe tablebases for positions with at most this many units (0 = never); a
    /// position whose material has no table is searched on (see
    /// [`antichess_tb::Tablebase::max_units`]).
    pub tablebase_units: u32,
    /// Count the positions of every material of at most this many units that no table
    /// covers (0 = never), reported in [`crate::SearchResult::missing_tables`].
    pub record_missing_units: u32,
    /// Set from outside (e.g. on Ctrl-C) to stop the search as if its budget ran out.
    pub interrupt: Option<Arc<AtomicBool>>,
    /// How new nodes get their proof and disproof numbers (mobility by default).
    pub initial: InitialNumbers,
}

impl SearchOptions {
    /// Defaults: no limits, one thread, ε = 1/4, the bishop rule on, no tablebases.
    #[must_use]
    pub fn new(prover: Color) -> SearchOptions {
        SearchOptions {
            prover,
            max_nodes: None,
            max_time: None,
            threads: 1,
            epsilon: 0.25,
            lone_bishop_rule: true,
            tablebase_units: 0,
            record_missing_units: 0,
            interrupt: None,
            initial: InitialNumbers::Mobility,
        }
    }
}

/// Numbers of one root move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveNumbers {
    pub mv: Move,
    pub proof: u32,
    pub disproof: u32,
    /// Positions searched below the move (an estimate of its subtree size).
    pub work: u32,
}
