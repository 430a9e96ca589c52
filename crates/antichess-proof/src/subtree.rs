//! Subtrees: the proof of a position inside a proof (`antichess proof extract`), so that a
//! proof of a large line can be cut into the proofs of its parts (to ship, seed a book or
//! expand its leaves part by part) and put together again with `proof join`.
//!
//! The node is found by following a line of moves from the proof's root (at the prover's
//! nodes the proof's move, at the opponent's any reply). Its subtree is rebuilt with
//! [`crate::build_with`] from that node of the source, references followed, so a position
//! the subtree shares with parts of the source outside it is written in full. Nothing here
//! judges the leaves: [`extract_file`] writes the result and runs the verifier.

use std::path::Path;

use antichess_core::{Move, Position};

use crate::build::{build_with, Expander, Step};
use crate::join::IndexedTree;
use crate::{
    verify_file, write_proof_file, ByteOrder, Format, LeafOracle, ProofError, ProofStats,
    ProofTree, VerifyOptions,
};

/// Walks one source proof from a node of it.
struct Source<'a> {
    tree: &'a IndexedTree,
}

impl Expander for Source<'_> {
    type Handle = u32;

    fn prover(&mut self, _: &Position, index: &u32) -> Result<Step<u32>, String> {
        self.tree.prover_step(*index)
    }

    fn opponent(
        &mut self,
        _: &Position,
        index: &u32,
        moves: &[Move],
    ) -> Result<Option<Vec<u32>>, String> {
        self.tree.opponent_children(*index, moves)
    }

    /// Every node of the source proves its position by itself.
    fn restart_at_repeat(&self, _: &u32) -> bool {
        true
    }
}

/// The proof of the position reached from `tree`'s root by `line`: the subtree at that
/// node, with the line appended to the recorded moves from the start position (if any)
/// and the source's table records kept ([`extract_file`] records the subtree's own).
///
/// # Errors
/// [`ProofError::Join`] when a move of `line` is not legal, is not the proof's move at a
/// prover node, or leaves the proof (a leaf is reached before the line ends).
pub fn subtree_proof(tree: ProofTree, line: &[Move]) -> Result<ProofTree, ProofError> {
    if line.is_empty() {
        return Ok(tree);
    }
    let indexed = IndexedTree::new(tree);
    let tree = indexed.tree();
    let mut pos = *tree.root();
    let mut index = 0u32;
    for (ply, &mv) in line.iter().enumerate() {
        let refuse = |why: String| {
            Err(ProofError::Join(format!(
                "move {} of the line ({}) in {}: {why}",
                ply + 1,
                mv,
                pos.fen()
            )))
        };
        if !pos.legal_moves().contains(&mv) {
            return refuse("not a legal move".into());
        }
        let next = if pos.turn() == tree.prover() {
            match indexed.prover_step(index).map_err(ProofError::Join)? {
                Step::Play(m, child) if m == mv => child,
                Step::Play(m, _) => {
                    return refuse(format!("the proof plays {} here", pos.san(m)));
                }
                Step::TablebaseLeaf => {
                    return refuse("the proof ends here (a tablebase leaf)".into())
                }
            }
        } else {
            match indexed
                .opponent_children(index, &[mv])
                .map_err(ProofError::Join)?
            {
                Some(children) => children[0],
                None => return refuse("the proof ends here (a tablebase leaf)".into()),
            }
        };
        index = next;
        pos = pos.play(mv);
    }
    let mut prolog = tree.prolog().to_vec();
    if !prolog.is_empty() {
        prolog.extend_from_slice(line);
    }
    let mut source = Source { tree: &indexed };
    let mut out = build_with(pos, tree.prover(), prolog, &mut source, index)?;
    out.set_tables(tree.tables().to_vec());
    Ok(out)
}

/// Writes the proof of the node of `tree` reached by `line` to `output` (compact format,
/// atomically) and verifies the written file with `oracle`; returns the verifier's
/// statistics.
///
/// # Errors
/// As [`subtree_proof`]; writing; a rejection by the verifier (the output file is then
/// removed, so that no unverified proof is left under the name asked for).
pub fn extract_file(
    tree: ProofTree,
    line: &[Move],
    output: &Path,
    oracle: &dyn LeafOracle,
    options: &VerifyOptions,
) -> Result<ProofStats, ProofError> {
    let mut sub = subtree_proof(tree, line)?;
    // The tables the subtree's own leaves read (the source's records are for all of it).
    if sub.counts().tablebase == 0 {
        sub.set_tables(Vec::new());
    } else if oracle.max_units() > 0 {
        let recorded = sub.tables().to_vec();
        sub.record_tables(oracle)?;
        if sub.tables().is_empty() {
            sub.set_tables(recorded);
        }
    }
    write_proof_file(&sub, output, Format::Compact, ByteOrder::Little)?;
    match verify_file(output, Some(Format::Compact), oracle, options, &mut |_| {}) {
        Ok(stats) => Ok(stats),
        Err(e) => {
            let _ = std::fs::remove_file(output);
            Err(e)
        }
    }
}
