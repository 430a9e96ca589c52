//! Changes to the book's tree inside one write transaction: inserting an expansion's
//! children, minimaxing numbers up to the root, and sharing proven positions between
//! transpositions.
//!
//! **Transpositions.** Unproven nodes form a tree (one parent each), so minimax never
//! loops. A position is shared once it is *proven won*: every other unproven node of the
//! same position (same Zobrist key and the same FEN up to the clocks) defers to the won
//! node (`same_as`), takes its status, and its ancestors are updated; a node created later
//! for that position is won at once (an enhanced transposition cutoff). A win is
//! path-free (a search root starts a new repetition history), so this is sound; losses
//! can depend on repetitions along the path and are not shared.
//!
//! **Win order.** Each node that becomes won gets the next `win_seq`. A won node's win
//! rests only on nodes won before it (its winning children, or the node it defers to), so
//! following decreasing `win_seq` when assembling a proof never cycles.

use antichess_core::{Move, Position};

use crate::error::{BookError, Result};
use crate::node::{combine, Node, NodeId, Status};
use crate::store::{next_counter, Txn};

/// Meta counter of `win_seq`.
const WIN_SEQ: &str = "win_seq";

/// The numbers one search gives a new child, and its own children when the 70% rule keeps
/// it as an expanded book node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewChild {
    pub mv: Move,
    pub proof: u32,
    pub disproof: u32,
    /// Positions searched below the child.
    pub work: u64,
    /// The child's own children (it is expanded at once), or `None` (a leaf).
    pub children: Option<Vec<NewChild>>,
}

/// Whether two FENs describe the same position (board, side to move, castling, en passant;
/// clocks ignored).
#[must_use]
pub fn same_position(a: &str, b: &str) -> bool {
    a.split_whitespace()
        .take(4)
        .eq(b.split_whitespace().take(4))
}

/// Nodes that became proven won in this transaction and still have to be shared with
/// their transpositions.
#[derive(Debug, Default)]
pub(crate) struct Changes {
    pub won: Vec<NodeId>,
}

/// Gives a node that has just become won (or marked won) its `win_seq`.
fn set_won(txn: &mut dyn Txn, node: &mut Node, changes: &mut Changes) -> Result<()> {
    node.win_seq = Some(next_counter(txn, WIN_SEQ)?);
    if node.status == Status::Win && node.same_as.is_none() {
        changes.won.push(node.id);
    }
    Ok(())
}

/// A proven won node of `pos`'s position that new nodes can defer to.
fn proven_twin(txn: &mut dyn Txn, key: u64, fen: &str) -> Result<Option<Node>> {
    Ok(txn
        .nodes_with_key(key)?
        .into_iter()
        .find(|n| n.status == Status::Win && n.same_as.is_none() && same_position(&n.fen, fen)))
}

/// Recomputes an expanded node from its children. Proven, marked, deferring and
/// unexpanded nodes keep their values. Returns whether anything changed (the caller
/// writes the node).
pub(crate) fn recompute(txn: &mut dyn Txn, node: &mut Node, changes: &mut Changes) -> Result<bool> {
    if node.same_as.is_some() || node.status.is_proven() || node.marked || !node.expanded {
        return Ok(false);
    }
    let kids: Vec<_> = txn
        .children(node.id)?
        .iter()
        .map(|c| (c.proof, c.disproof, c.status, c.size))
        .collect();
    if kids.is_empty() {
        return Err(BookError::Corrupt(format!(
            "node {} is expanded but has no children",
            node.id
        )));
    }
    let c = combine(node.prover_to_move, &kids);
    if (c.proof, c.disproof, c.status, c.size)
        == (node.proof, node.disproof, node.status, node.size)
    {
        return Ok(false);
    }
    let was_win = node.status.is_win();
    node.proof = c.proof;
    node.disproof = c.disproof;
    node.status = c.status;
    node.size = c.size;
    if c.status.is_win() && !was_win {
        set_won(txn, node, changes)?;
    } else if !c.status.is_win() {
        node.win_seq = None;
    }
    Ok(true)
}

/// Updates the ancestors of a changed node, from `parent` up, while they change.
pub(crate) fn propagate_up(
    txn: &mut dyn Txn,
    parent: Option<NodeId>,
    changes: &mut Changes,
) -> Result<()> {
    let mut cur = parent;
    while let Some(id) = cur {
        let mut node = txn
            .node(id)?
            .ok_or_else(|| BookError::Corrupt(format!("node {id} is missing")))?;
        if !recompute(txn, &mut node, changes)? {
            break;
        }
        txn.update_node(&node)?;
        cur = node.parent;
    }
    Ok(())
}

/// Shares every newly won node with its unproven transpositions, and propagates what
/// that changes, until nothing new is won.
pub(crate) fn settle(txn: &mut dyn Txn, changes: &mut Changes) -> Result<()> {
    while let Some(id) = changes.won.pop() {
        let Some(won) = txn.node(id)? else { continue };
        if won.status != Status::Win {
            continue;
        }
        for mut twin in txn.nodes_with_key(won.key)? {
            if twin.id == won.id
                || twin.status.is_proven()
                || twin.marked
                || twin.same_as.is_some()
                || !same_position(&twin.fen, &won.fen)
            {
                continue;
            }
            twin.same_as = Some(won.id);
            twin.status = Status::Win;
            twin.proof = 0;
            twin.disproof = antichess_pns::INF;
            twin.size = won.size;
            twin.win_seq = Some(next_counter(txn, WIN_SEQ)?);
            txn.update_node(&twin)?;
            propagate_up(txn, twin.parent, changes)?;
        }
    }
    Ok(())
}

/// Inserts the children of `parent` (already written, at `parent_pos`) and, for children
/// kept expanded by the 70% rule, their children; recomputes those expanded children.
pub(crate) fn insert_children(
    txn: &mut dyn Txn,
    parent: &Node,
    parent_pos: &Position,
    prover: antichess_core::Color,
    children: &[NewChild],
    changes: &mut Changes,
) -> Result<()> {
    for child in children {
        let pos = parent_pos.play(child.mv);
        let mut node = Node::leaf(
            Some(parent.id),
            Some(child.mv.to_uci()),
            parent.depth + 1,
            &pos,
            pos.turn() == prover,
            child.proof,
            child.disproof,
            child.work,
        );
        if node.status == Status::Unknown {
            if let Some(twin) = proven_twin(txn, node.key, &node.fen)? {
                node.same_as = Some(twin.id);
                node.status = Status::Win;
                node.proof = 0;
                node.disproof = antichess_pns::INF;
                node.size = twin.size;
            }
        }
        let expand = node.status == Status::Unknown && child.children.is_some();
        node.expanded = expand;
        node.id = txn.insert_node(&node)?;
        if node.status.is_win() {
            set_won(txn, &mut node, changes)?;
            txn.update_node(&node)?;
        }
        if let (true, Some(grandchildren)) = (expand, &child.children) {
            insert_children(txn, &node, &pos, prover, grandchildren, changes)?;
            recompute(txn, &mut node, changes)?;
            txn.update_node(&node)?;
        }
    }
    Ok(())
}

/// Sets a node's status and numbers to a decided status found for it as a leaf.
pub(crate) fn decide_leaf(
    txn: &mut dyn Txn,
    node: &mut Node,
    status: Status,
    changes: &mut Changes,
) -> Result<()> {
    let (proof, disproof) = status.numbers().expect("decided");
    node.status = status;
    node.proof = proof;
    node.disproof = disproof;
    node.leaf_proof = proof;
    node.leaf_disproof = disproof;
    if status.is_win() {
        set_won(txn, node, changes)?;
    }
    Ok(())
}
