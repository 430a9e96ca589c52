//! Expanding tablebase leaves: a proof whose leaves rely on tables of up to n units made
//! into one that relies on smaller tables only, by proving each leaf of more units again
//! (with whatever the caller's solver uses) and splicing that proof in where the leaf was.
//! A proof made with 4-unit tables can then be checked where only the 3-unit tables are
//! built (CI builds those in seconds; the 4-unit set takes minutes).
//!
//! The splicing is [`crate::build_with`]'s, as in [`crate::join`]: positions shared between
//! the proof and the leaves' proofs are written once. Nothing here judges the leaves'
//! proofs: the caller writes the result and runs the verifier.
//!
//! [`playout_proof`] makes a leaf's proof from the leaf's own (larger) table, without a
//! search: the prover plays the table's best move, every opponent move is followed, until
//! the material has at most n units. The larger table is then only a guide; the result
//! is checked with the smaller ones.

use std::collections::HashMap;

use antichess_core::{Move, Position};

use crate::build::{build_proof, build_with, Expander, ProofSource, ProverChoice, Step};
use crate::join::IndexedTree;
use crate::oracle::{LeafOracle, LeafValue};
use crate::position_id::{units, PositionId};
use crate::tree::ProofTree;
use crate::ProofError;

/// What [`expand_tablebase_leaves`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExpandReport {
    /// Distinct leaf positions proved again (a position met twice is proved once).
    pub leaves_expanded: u64,
}

/// The builder's handle: a node of one of the trees (0 is the input proof, the others the
/// leaves' proofs, in the order they were made).
#[derive(Debug, Clone, Copy)]
struct Handle {
    tree: usize,
    index: u32,
}

struct LeafExpander<'a> {
    trees: Vec<IndexedTree>,
    max_units: u32,
    /// The tree made for each leaf position.
    made: HashMap<PositionId, usize>,
    solve: &'a mut dyn FnMut(&Position) -> Result<ProofTree, String>,
}

impl LeafExpander<'_> {
    /// The tree that proves the leaf at `pos` (made on first use).
    fn leaf_tree(&mut self, pos: &Position) -> Result<usize, String> {
        let id = PositionId::of(pos);
        if let Some(&t) = self.made.get(&id) {
            return Ok(t);
        }
        let tree = (self.solve)(pos)
            .map_err(|e| format!("proving the tablebase leaf {} again: {e}", pos.fen()))?;
        if PositionId::of(tree.root()) != id {
            return Err(format!(
                "the proof made for the leaf {} has another root ({})",
                pos.fen(),
                tree.root().fen()
            ));
        }
        self.trees.push(IndexedTree::new(tree));
        let t = self.trees.len() - 1;
        self.made.insert(id, t);
        Ok(t)
    }

    fn too_big(&self, pos: &Position) -> bool {
        units(pos) > self.max_units
    }
}

impl Expander for LeafExpander<'_> {
    type Handle = Handle;

    fn prover(&mut self, pos: &Position, handle: &Handle) -> Result<Step<Handle>, String> {
        let mut h = *handle;
        let mut step = self.trees[h.tree].prover_step(h.index)?;
        if matches!(step, Step::TablebaseLeaf) && self.too_big(pos) {
            h = Handle {
                tree: self.leaf_tree(pos)?,
                index: 0,
            };
            step = self.trees[h.tree].prover_step(0)?;
        }
        Ok(match step {
            Step::Play(m, index) => Step::Play(
                m,
                Handle {
                    tree: h.tree,
                    index,
                },
            ),
            Step::TablebaseLeaf => Step::TablebaseLeaf,
        })
    }

    fn opponent(
        &mut self,
        pos: &Position,
        handle: &Handle,
        moves: &[Move],
    ) -> Result<Option<Vec<Handle>>, String> {
        let mut tree = handle.tree;
        let mut children = self.trees[tree].opponent_children(handle.index, moves)?;
        if children.is_none() && self.too_big(pos) {
            tree = self.leaf_tree(pos)?;
            children = self.trees[tree].opponent_children(0, moves)?;
        }
        Ok(children.map(|c| c.into_iter().map(|index| Handle { tree, index }).collect()))
    }

    /// A leaf's proof knows nothing of the path above the leaf and may lead back to a
    /// position on it; the position is then proved from that proof's node.
    fn restart_at_repeat(&self, _: &Handle) -> bool {
        true
    }
}

/// The proof `tree` with every tablebase leaf of more than `max_units` units replaced by
/// the proof `solve` makes for its position (a proof for the same prover, rooted there,
/// whose own tablebase leaves have at most `max_units` units; leaves of its own with more
/// are expanded again). The tables recorded are left to the caller (record those of the
/// result with [`ProofTree::record_tables`]).
///
/// # Errors
/// The builder's error naming the leaf whose proof could not be made or does not fit.
pub fn expand_tablebase_leaves(
    tree: ProofTree,
    max_units: u32,
    solve: &mut dyn FnMut(&Position) -> Result<ProofTree, String>,
) -> Result<(ProofTree, ExpandReport), ProofError> {
    let root = *tree.root();
    let prover = tree.prover();
    let prolog = tree.prolog().to_vec();
    let mut expander = LeafExpander {
        trees: vec![IndexedTree::new(tree)],
        max_units,
        made: HashMap::new(),
        solve,
    };
    let mut out = build_with(
        root,
        prover,
        prolog,
        &mut expander,
        Handle { tree: 0, index: 0 },
    )?;
    out.set_tables(Vec::new());
    let report = ExpandReport {
        leaves_expanded: expander.made.len() as u64,
    };
    Ok((out, report))
}

/// Plays a won position out with an oracle's best moves down to `max_units` units.
struct Playout<'a> {
    oracle: &'a dyn LeafOracle,
    max_units: u32,
}

impl Playout<'_> {
    /// Whether `pos` is a tablebase leaf of at most `max_units` units won by the prover
    /// (`to_move_wins`: whether the side to move is the prover).
    fn small_win(&self, pos: &Position, to_move_wins: bool) -> Result<bool, String> {
        if units(pos) > self.max_units {
            return Ok(false);
        }
        let want = if to_move_wins {
            LeafValue::Win
        } else {
            LeafValue::Loss
        };
        match self.oracle.probe(pos)? {
            Some(v) if v == want => Ok(true),
            Some(_) => Err(format!(
                "{} is not won by the prover by the tables",
                pos.fen()
            )),
            None => Err(format!(
                "no table of at most {} units covers {}",
                self.max_units,
                pos.fen()
            )),
        }
    }
}

impl ProofSource for Playout<'_> {
    fn prover_choice(&mut self, pos: &Position) -> Result<ProverChoice, String> {
        if self.small_win(pos, true)? {
            return Ok(ProverChoice::TablebaseLeaf);
        }
        match self.oracle.best_move(pos)? {
            Some(m) => Ok(ProverChoice::Play(m)),
            None => Err(format!("the tables give no winning move in {}", pos.fen())),
        }
    }

    fn opponent_leaf(&mut self, pos: &Position) -> Result<bool, String> {
        self.small_win(pos, false)
    }
}

/// The proof that `prover` wins from `pos`, played out with `oracle`'s tables: the prover
/// plays the oracle's best move (the shortest win to conversion), every opponent move is
/// followed, and a position of at most `max_units` units becomes a tablebase leaf.
///
/// # Errors
/// When the oracle has no table for a position on the way, or does not show it won.
pub fn playout_proof(
    pos: &Position,
    prover: antichess_core::Color,
    oracle: &dyn LeafOracle,
    max_units: u32,
) -> Result<ProofTree, ProofError> {
    build_proof(*pos, prover, &mut Playout { oracle, max_units })
}
