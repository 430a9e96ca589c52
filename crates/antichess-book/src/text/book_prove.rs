//! The lines of `book prove`: the leaves' progress (rewritten in place on a terminal),
//! the subtrees written with `--subtrees`, and the proof of the root with its figures
//! and the verifier's verdict.

use std::fmt::Write as _;
use std::path::Path;

use crate::jobs::prove::{ProofFileReport, SubtreeReport};
use crate::ProveEvent;

/// The progress of the assembly, to be written after a carriage return (it pads itself
/// over the previous one).
#[must_use]
pub fn progress_text(e: &ProveEvent) -> String {
    match e {
        ProveEvent::LeafSolved {
            leaves,
            proof_nodes,
            search_nodes,
            ..
        } => format!("leaves re-solved: {leaves} (last: {proof_nodes} proof nodes, {search_nodes} nodes searched)   "),
        ProveEvent::Minimizing {
            proof_nodes,
            searches,
        } => format!("minimising: {proof_nodes} proof nodes after {searches} searches              "),
    }
}

/// One line per subtree written (or not), each ending in a newline; `depth` is the
/// `--subtree-depth` the subtrees were looked for within.
#[must_use]
pub fn subtrees_text(subtrees: &[SubtreeReport], depth: u32) -> String {
    let mut out = String::new();
    for s in subtrees {
        let _ = match (&s.file, &s.error) {
            (_, Some(e)) => writeln!(
                out,
                "subtree {}: not written, its proof could not be assembled: {e}",
                s.line
            ),
            (file, None) => writeln!(
                out,
                "subtree {}: {} ({} nodes, {} bytes, {})",
                s.line,
                file.clone().unwrap_or_default(),
                s.proof_nodes.unwrap_or_default(),
                s.bytes.unwrap_or_default(),
                match &s.rejected {
                    None => "verified".to_string(),
                    Some(e) => format!("verification FAILED: {e}"),
                }
            ),
        };
    }
    if subtrees.is_empty() {
        let _ = writeln!(out, "no solved subtree within {depth} plies of the root");
    }
    out
}

/// The lines of a proof written (each ending in a newline); `leaf_dir` is where the
/// leaves' proofs are kept.
#[must_use]
pub fn proof_text(r: &ProofFileReport, leaf_dir: &Path) -> String {
    let mut out = String::new();
    let (report, c) = (&r.report, &r.counts);
    let _ = writeln!(
        out,
        "pruned book: {} book nodes, {} leaves re-solved ({} nodes searched, {} re-searched by extraction) in {:.1} s",
        report.book_nodes, report.leaves, report.search_nodes, report.researched, report.seconds
    );
    if report.seeds_used > 0 {
        let _ = writeln!(
            out,
            "{} book nodes took their proofs from the book's seeds",
            report.seeds_used
        );
    }
    if report.leaves_reused > 0 {
        let _ = writeln!(
            out,
            "{} of the leaves' proofs read back from {} (saved by an earlier run)",
            report.leaves_reused,
            leaf_dir.display()
        );
    }
    if let Some(m) = &report.minimized {
        let _ = writeln!(
            out,
            "minimised: {} -> {} nodes ({} searches with {} positions, {} proved, {} switches)",
            report.assembled_nodes, c.total, m.searched, m.search_nodes, m.proved, m.switches
        );
    }
    let _ = writeln!(
        out,
        "proof: {} ({} nodes: {} prover, {} opponent, {} terminal, {} tablebase, {} references; {} bytes = {:.2} bytes/node)",
        r.proof_file,
        c.total,
        c.prover,
        c.opponent,
        c.terminal,
        c.tablebase,
        c.references,
        r.bytes,
        r.bytes as f64 / c.total.max(1) as f64
    );
    let _ = match &r.verdict.verdict {
        Ok(stats) => writeln!(
            out,
            "verified: the proof is valid ({} nodes, {} unfolded, depth {}) in {:.2} s",
            stats.counts.total,
            stats.unfolded_nodes,
            stats.max_depth,
            r.verdict.seconds.as_secs_f64()
        ),
        Err(e) => writeln!(out, "verification FAILED: {e}"),
    };
    out
}
