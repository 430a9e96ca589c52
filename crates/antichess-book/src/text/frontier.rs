//! The one-line texts of a frontier save and load (`book save-frontier`, `book
//! load-frontier`, and `prove --frontier` as it goes).

use std::path::Path;

use crate::frontier::{LoadReport, SaveReport};
use crate::redact;

/// The text line of a save to `path`.
#[must_use]
pub fn saved_line(path: &Path, r: &SaveReport) -> String {
    format!(
        "frontier written to {}: {} nodes ({} open leaves, {} won with {} proofs of {} nodes, {} lost), {} bytes{}{}",
        path.display(),
        r.nodes,
        r.open_leaves,
        r.won,
        r.proofs,
        r.proof_nodes,
        r.lost,
        r.bytes,
        if r.pending > 0 {
            format!(
                "; {} of the proofs wait for tables this machine lacks (kept for one that has them)",
                r.pending
            )
        } else {
            String::new()
        },
        if r.unproved.is_empty() {
            String::new()
        } else {
            format!(
                "; {} won subtree(s) kept open, their proof could not be assembled (the first: {})",
                r.unproved.len(),
                r.unproved[0]
            )
        }
    )
}

/// The text line of a load from `path` into the book at `location` (its password hidden).
#[must_use]
pub fn loaded_line(path: &Path, location: &str, r: &LoadReport) -> String {
    format!(
        "book {} built from {}: {} nodes, {} proofs seeded ({} searches before){}{}",
        redact(location),
        path.display(),
        r.nodes,
        r.seeded,
        r.searches_before,
        if r.pending > 0 {
            format!(
                "; {} proof(s) rest on tables not built here: kept in the book, their nodes open, seeded when the tables exist (`antichess tb build --from-book`, or prove's table rounds)",
                r.pending
            )
        } else {
            String::new()
        },
        if r.rejected.is_empty() {
            String::new()
        } else {
            format!(
                "; {} proof(s) did not verify and their nodes are open (the first: {})",
                r.rejected.len(),
                r.rejected[0]
            )
        }
    )
}
