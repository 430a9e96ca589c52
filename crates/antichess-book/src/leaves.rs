//! The leaf-proof directory: one proof file per won book leaf, named by the leaf's
//! position (`<Zobrist key in hex>-tb<units>.proof`, our compact format, written
//! atomically). `book grow` writes a leaf's proof there as soon as its search proves it
//! (and the proofs of the won children that search found), while the worker's table still
//! holds the proof; `book prove` reads them back instead of searching the leaves again.
//!
//! A file is used only if its root is the leaf's position with the same prover and rules;
//! anything else is ignored (and overwritten when that leaf is solved again). Nothing in
//! the directory needs trust: the assembled proof goes through the verifier.

use std::path::{Path, PathBuf};

use antichess_core::{Color, Move, Position};
use antichess_pns::{extract_proof_at, SearchOptions, Solver};
use antichess_proof::{
    read_proof_file, write_proof_file, ByteOrder, Format, PositionId, ProofTree, ReferenceOptions,
};

use crate::error::{BookError, Result};
use crate::expand::{Expansion, LeafOutcome};
use crate::tree::NewChild;

/// Where the searches of the book at `book` keep the proofs they find and the assembly
/// looks for them: `<book>.leaves`.
#[must_use]
pub fn leaf_dir(book: &Path) -> PathBuf {
    PathBuf::from(format!("{}.leaves", book.display()))
}

/// The file of the leaf at `pos` in `dir`, for proofs that probe tables up to `units`.
#[must_use]
pub fn leaf_path(dir: &Path, pos: &Position, units: u32) -> PathBuf {
    dir.join(format!("{:016x}-tb{units}.proof", pos.key()))
}

/// The saved proof of the leaf at `pos`, if `dir` holds a readable one of this position,
/// prover and rule set.
#[must_use]
pub fn saved(dir: &Path, units: u32, prover: Color, pos: &Position) -> Option<ProofTree> {
    let path = leaf_path(dir, pos, units);
    if !path.exists() {
        return None;
    }
    let tree = read_proof_file(&path, Some(Format::Compact), &ReferenceOptions::default()).ok()?;
    (PositionId::of(tree.root()) == PositionId::of(pos)
        && tree.prover() == prover
        && tree.rules() == pos.rules())
    .then_some(tree)
}

/// Writes `tree` as the proof of the leaf at its root (atomically).
///
/// # Errors
/// The directory or the file cannot be written.
pub fn save(dir: &Path, units: u32, tree: &ProofTree) -> Result<PathBuf> {
    std::fs::create_dir_all(dir).map_err(|source| BookError::Io {
        context: format!("creating the leaf-proof directory {}", dir.display()),
        source,
    })?;
    let path = leaf_path(dir, tree.root(), units);
    write_proof_file(tree, &path, Format::Compact, ByteOrder::Little).map_err(|e| {
        BookError::Proof(format!("saving a leaf's proof to {}: {e}", path.display()))
    })?;
    Ok(path)
}

/// The lines (from the searched leaf) of the nodes an expansion proved: the leaf itself
/// if its search proved it, else every child or kept descendant whose proof number is 0.
#[must_use]
pub fn proved_lines(expansion: &Expansion) -> Vec<Vec<Move>> {
    fn walk(children: &[NewChild], line: &mut Vec<Move>, out: &mut Vec<Vec<Move>>) {
        for child in children {
            line.push(child.mv);
            if child.proof == 0 {
                out.push(line.clone());
            } else if let Some(grandchildren) = &child.children {
                walk(grandchildren, line, out);
            }
            line.pop();
        }
    }
    let mut out = Vec::new();
    if let LeafOutcome::Searched {
        proof, children, ..
    } = &expansion.outcome
    {
        if *proof == 0 {
            out.push(Vec::new());
        } else {
            walk(children, &mut Vec::new(), &mut out);
        }
    }
    out
}

/// What [`keep`] did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Kept {
    /// Proof files written.
    pub written: u64,
    /// Nodes whose file was already there (a transposition solved before).
    pub present: u64,
    /// Positions the extraction had to search again (the table had lost them).
    pub researched: u64,
    /// Proved nodes whose proof could not be extracted (their leaf is still won in the
    /// book; `book prove` searches them again), and the last such error.
    pub failed: u64,
    pub last_error: Option<String>,
}

/// Keeps the proof of every node `expansion` proved below the leaf at `pos`, extracted
/// from `solver`'s table right after the search (`options`: the search's options; the
/// extraction runs without budget or stop flag so that a proof is always complete).
///
/// A proof that cannot be extracted is counted in [`Kept::failed`] and skipped: the search's
/// result stands, and the assembly searches that node again.
///
/// # Errors
/// A proof file that cannot be written.
pub fn keep(
    solver: &Solver<'_>,
    pos: &Position,
    options: &SearchOptions,
    expansion: &Expansion,
    dir: &Path,
) -> Result<Kept> {
    let mut kept = Kept::default();
    for line in proved_lines(expansion) {
        let mut at = *pos;
        for &mv in &line {
            at = at.play(mv);
        }
        if at.legal_moves().is_empty() {
            // Decided by the rules: `book prove` needs no file for it.
            continue;
        }
        if saved(dir, options.tablebase_units, options.prover, &at).is_some() {
            kept.present += 1;
            continue;
        }
        let (tree, researched) = match extract_proof_at(solver, pos, &line, options) {
            Ok(found) => found,
            Err(e) => {
                kept.failed += 1;
                kept.last_error = Some(format!("extracting the proof of {}: {e}", at.fen()));
                continue;
            }
        };
        save(dir, options.tablebase_units, &tree)?;
        kept.written += 1;
        kept.researched += researched;
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use antichess_core::Rules;

    /// A node the expansion calls proved but the solver's table does not hold (as when the
    /// table lost it): the extraction fails, the failure is counted and the rest goes on.
    #[test]
    fn a_proof_that_cannot_be_extracted_is_counted_not_fatal() {
        let pos = Position::from_fen(
            "rnbqkbnr/pppppppp/8/8/8/4P3/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            Rules::INTERNATIONAL,
        )
        .unwrap();
        let solver = Solver::new(1 << 20, None);
        let options = SearchOptions::new(Color::White);
        let expansion = Expansion {
            outcome: LeafOutcome::Searched {
                proof: 0,
                disproof: crate::node::INF,
                work: 1,
                children: Vec::new(),
            },
            nodes: 1,
            missing_tables: Vec::new(),
        };
        let dir = antichess_testkit::temp_dir("leaves-unit");
        let kept = keep(&solver, &pos, &options, &expansion, &dir).expect("not fatal");
        assert_eq!((kept.written, kept.failed), (0, 1));
        assert!(
            kept.last_error
                .as_deref()
                .is_some_and(|e| e.contains(&pos.fen())),
            "{kept:?}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
