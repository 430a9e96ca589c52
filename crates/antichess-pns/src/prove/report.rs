//! [`SolveReport`]: what a solve answers in JSON, the same for `antichess solve --format
//! json` and the web app's `GET /api/solve`.
//!
//! The convention of the CLI and the HTTP API: an infinite proof or disproof number is the
//! string `"inf"`, a finite one an integer; `proof` and `disproof` are always proof
//! numbers (the proof written is `proof_nodes`, `proof_file` and `proof_tree`); a field
//! that does not apply is `null`.

use std::time::Duration;

use antichess_core::pgn;
use serde::{Serialize, Serializer};

use super::Solved;
use crate::search::INF;

/// The JSON of a solve (see the module documentation).
#[derive(Debug, Clone, Serialize)]
pub struct SolveReport {
    /// `proved`, `disproved` or `unknown`.
    pub result: &'static str,
    /// `white` or `black`.
    pub prover: &'static str,
    pub fen: String,
    pub rules: String,
    /// The root's proof and disproof numbers.
    #[serde(serialize_with = "number")]
    pub proof: u32,
    #[serde(serialize_with = "number")]
    pub disproof: u32,
    /// Positions the search evaluated, and its seconds.
    pub nodes: u64,
    pub seconds: f64,
    /// The search's time limit in seconds (`null`: none).
    pub time_limit: Option<f64>,
    /// Every root move with its numbers.
    pub moves: Vec<MoveReport>,
    /// The most proving line, as numbered SAN movetext, and as UCI moves.
    pub main_line: String,
    pub main_line_uci: Vec<String>,
    /// Nodes of the proof written (`null`: none), and before minimisation (`null`: not
    /// minimised).
    pub proof_nodes: Option<u64>,
    pub unminimized_proof_nodes: Option<u64>,
    /// The file the proof was written to (`null`: none, or kept in memory).
    pub proof_file: Option<String>,
    /// Whether the verifier accepted the proof (`null`: no proof).
    pub verified: Option<bool>,
    /// The proof and the verifier's verdict on it (`null`: no proof).
    pub proof_tree: Option<ProofTreeReport>,
    /// Materials the search met without a table, most positions first (empty unless the
    /// search recorded them: `record_missing_units`).
    pub missing_tables: Vec<crate::MissingTable>,
}

/// A root move of a [`SolveReport`].
#[derive(Debug, Clone, Serialize)]
pub struct MoveReport {
    pub uci: String,
    pub san: String,
    #[serde(serialize_with = "number")]
    pub proof: u32,
    #[serde(serialize_with = "number")]
    pub disproof: u32,
    /// The search's work below the move (nodes).
    pub work: u32,
}

/// The proof of a [`SolveReport`].
#[derive(Debug, Clone, Serialize)]
pub struct ProofTreeReport {
    pub nodes: u64,
    /// Bytes in the compact format.
    pub bytes: u64,
    pub verified: bool,
    /// Why the verifier rejected it (`null`: it did not).
    pub error: Option<String>,
}

impl SolveReport {
    /// The report of `solved`, a search with `time_limit` (if it had one).
    #[must_use]
    pub fn new(solved: &Solved, time_limit: Option<Duration>) -> SolveReport {
        let r = &solved.search;
        let pos = &solved.root;
        let proof = solved.proof.as_ref();
        SolveReport {
            result: r.status.name(),
            prover: solved.prover.name(),
            fen: pos.fen(),
            rules: pos.rules().to_string(),
            proof: r.proof,
            disproof: r.disproof,
            nodes: r.nodes,
            seconds: r.elapsed.as_secs_f64(),
            time_limit: time_limit.map(|t| t.as_secs_f64()),
            moves: r
                .moves
                .iter()
                .map(|m| MoveReport {
                    uci: m.mv.to_uci(),
                    san: pos.san(m.mv),
                    proof: m.proof,
                    disproof: m.disproof,
                    work: m.work,
                })
                .collect(),
            main_line: pgn::format_moves(pos, &solved.main_line),
            main_line_uci: solved.main_line.iter().map(|m| m.to_uci()).collect(),
            proof_nodes: proof.map(|p| p.counts.total),
            unminimized_proof_nodes: proof.and_then(|p| p.minimized.map(|m| m.nodes_before)),
            proof_file: proof.and_then(|p| p.path.as_ref().map(|p| p.display().to_string())),
            verified: proof.map(super::ProofOutcome::verified),
            proof_tree: proof.map(|p| ProofTreeReport {
                nodes: p.counts.total,
                bytes: p.bytes,
                verified: p.verified(),
                error: p.rejection().map(ToString::to_string),
            }),
            missing_tables: r.missing_tables.clone(),
        }
    }
}

/// A proof or disproof number: an integer, or `"inf"`.
fn number<S: Serializer>(n: &u32, s: S) -> Result<S::Ok, S::Error> {
    if *n == INF {
        s.serialize_str("inf")
    } else {
        s.serialize_u32(*n)
    }
}
