//! Expanding tablebase leaves: a proof whose leaves rely on tables of up to n units made
//! into one that relies on smaller tables only, by proving each leaf of more units again
//! (with whatever the caller's solver uses) and splicing that proof in where the leaf was.
//! A proof made with 4-unit tables can then be checked where only the 3-unit tables are
//! built (CI builds those in seconds; the 4-unit set takes minutes).
//!
//! The splicing is [`crate::build_with`]'s, as in [`crate::join`]: positions shared between
//! the proof and the leaves' proofs are written once. Nothing here judges the leaves'
//! proofs: the caller writes the result and runs the verifier.

use std::collections::HashMap;

use antichess_core::{Move, Position};

use crate::build::{build_with, Expander, Step};
use crate::join::IndexedTree;
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
