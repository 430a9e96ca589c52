//! What a walk over a proof file does at each node, besides decoding and the rules the
//! checker (`crate::check`) enforces: the `Visitor` trait and its three uses (judge the
//! leaves, rebuild the tree in memory, nothing for statistics).

use antichess_core::Position;

use crate::oracle::{LeafChecker, LeafError};
use crate::tree::{Node, NodeKind};
use crate::{NodeLabel, ProofError};

/// Called for every node of a walk in preorder, after its kind is known.
pub(crate) trait Visitor {
    fn visit(&mut self, node: &Node, pos: &Position) -> Result<(), LeafError>;
}

/// Judges leaves (the verifier).
pub(crate) struct CheckLeaves<'a>(pub(crate) LeafChecker<'a>);

impl Visitor for CheckLeaves<'_> {
    fn visit(&mut self, node: &Node, pos: &Position) -> Result<(), LeafError> {
        match node.kind {
            NodeKind::Terminal => self.0.check_terminal(pos),
            NodeKind::Tablebase => self.0.check_tablebase(pos),
            _ => Ok(()),
        }
    }
}

/// Rebuilds the nodes (the reader).
#[derive(Default)]
pub(crate) struct CollectNodes(pub(crate) Vec<Node>);

impl Visitor for CollectNodes {
    fn visit(&mut self, node: &Node, _pos: &Position) -> Result<(), LeafError> {
        self.0.push(*node);
        Ok(())
    }
}

/// Does nothing (statistics only).
pub(crate) struct NoChecks;

impl Visitor for NoChecks {
    fn visit(&mut self, _node: &Node, _pos: &Position) -> Result<(), LeafError> {
        Ok(())
    }
}

/// Turns a leaf failure at a node into the crate error.
pub(crate) fn map_leaf_error(error: LeafError, node: NodeLabel, leaves: u64) -> ProofError {
    match error {
        LeafError::NotWon(reason) => ProofError::Rejected { node, reason },
        LeafError::NoTables { units } => ProofError::NeedTablebases {
            leaves,
            units,
            available: 0,
        },
        LeafError::Oracle(message) => ProofError::Oracle { node, message },
    }
}
