//! `book prove` as jobs: the solved subtrees near the root written as proof files of their
//! own ([`write_subtrees`]), and a solved book turned into one verified proof file
//! ([`prove_book`]); the leaves' progress as [`ProveEvent`]s, one report each.

use std::path::{Path, PathBuf};

use antichess_proof::ProofCounts;
use antichess_tb::Tablebase;

use crate::error::{BookError, Result};
use crate::prove::{prove_to_file, AssembleOptions, ProveEvent, ProveReport, Verified};
use crate::subtrees::prove_subtrees;
use crate::Book;

/// One solved subtree of `book prove --subtrees`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SubtreeReport {
    /// The line from the book's root, in SAN.
    pub line: String,
    /// The proof file (`None`: its proof could not be assembled).
    pub file: Option<String>,
    /// Why its proof could not be assembled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proof_nodes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// The file was written and verifies.
    pub verified: bool,
    /// Why the verifier rejected the file.
    #[serde(skip)]
    pub rejected: Option<String>,
}

/// Writes the proof of every won node down to `max_depth` plies whose parent is not won
/// into `dir`, each verified (see [`prove_subtrees`]).
///
/// # Errors
/// The directory cannot be made; the store's.
pub fn write_subtrees(
    book: &mut Book,
    tablebase: Option<&Tablebase>,
    options: &AssembleOptions,
    dir: &Path,
    max_depth: u32,
    on_event: &mut dyn FnMut(ProveEvent),
) -> Result<Vec<SubtreeReport>> {
    let written = prove_subtrees(book, tablebase, options, dir, max_depth, on_event)?;
    Ok(written
        .into_iter()
        .map(|s| match s.result {
            Err(e) => SubtreeReport {
                line: s.line,
                file: None,
                error: Some(e),
                proof_nodes: None,
                bytes: None,
                verified: false,
                rejected: None,
            },
            Ok((report, verified)) => SubtreeReport {
                line: s.line,
                file: Some(s.path.display().to_string()),
                error: None,
                proof_nodes: Some(report.counts.total),
                bytes: Some(verified.bytes),
                verified: verified.verdict.is_ok(),
                rejected: verified.verdict.err(),
            },
        })
        .collect())
}

/// What `book prove` reports when it wrote the root's proof.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ProofFileReport {
    pub proof_file: String,
    pub verified: bool,
    /// Why the verifier rejected the file.
    pub error: Option<String>,
    pub proof_nodes: u64,
    pub bytes: u64,
    pub book_nodes: u64,
    pub leaves: u64,
    pub leaves_reused: u64,
    pub seeds_used: u64,
    pub subtrees: Vec<SubtreeReport>,
    pub search_nodes: u64,
    pub assembled_nodes: u64,
    pub seconds: f64,
    pub counts: ProofCounts,
    /// The assembly's report and the verifier's, for the text.
    #[serde(skip)]
    pub report: ProveReport,
    #[serde(skip)]
    pub verdict: Verified,
}

/// What `book prove` reports when it wrote no proof of the root.
#[derive(Debug, Clone, serde::Serialize)]
pub struct NoProofReport {
    pub subtrees: Vec<SubtreeReport>,
    /// Always `None`.
    pub proof_file: Option<String>,
    pub root_won: bool,
}

/// Assembles the proof of solved `book`, writes it to `output` and verifies it; removes
/// `remove_leaf_dir` (the leaves' proofs saved on the way) once the proof verifies.
///
/// # Errors
/// The assembly's, the store's, the file's.
pub fn prove_book(
    book: &mut Book,
    tablebase: Option<&Tablebase>,
    options: &AssembleOptions,
    output: &Path,
    remove_leaf_dir: Option<&PathBuf>,
    subtrees: Vec<SubtreeReport>,
    on_event: &mut dyn FnMut(ProveEvent),
) -> Result<ProofFileReport> {
    let (report, verified) = prove_to_file(book, tablebase, options, output, on_event)?;
    if let Some(dir) = remove_leaf_dir.filter(|_| verified.verdict.is_ok()) {
        std::fs::remove_dir_all(dir).map_err(|source| BookError::Io {
            context: format!("removing {}", dir.display()),
            source,
        })?;
    }
    Ok(ProofFileReport {
        proof_file: output.display().to_string(),
        verified: verified.verdict.is_ok(),
        error: verified.verdict.as_ref().err().cloned(),
        proof_nodes: report.counts.total,
        bytes: verified.bytes,
        book_nodes: report.book_nodes,
        leaves: report.leaves,
        leaves_reused: report.leaves_reused,
        seeds_used: report.seeds_used,
        subtrees,
        search_nodes: report.search_nodes,
        assembled_nodes: report.assembled_nodes,
        seconds: report.seconds,
        counts: report.counts,
        report,
        verdict: verified,
    })
}
