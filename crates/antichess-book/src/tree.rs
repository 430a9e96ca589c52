//! Changes to the book's tree inside one write transaction: inserting an expansion's
//! children, minimaxing numbers up to the root, and sharing proven positions between
//! transpositions.
//!
//! **Transpositions.** Unproven nodes form a tree (one parent each), so minimax never
//! loops. A position is shared once it is *proven won*: every other unproven node of the
//! same position (same Zobrist key and the same FEN up to the clocks) defers to the won
//! node (`same_as`), takes its status, and its ancestors are updated; a node created later
//! for that position is won at once (an enhanced transposition cutoff), and so is a node
//! created for a position the book has a seed proof of ([`crate::seed`]). A win is
//! path-free (a search root starts a new repetition history), so this is sound; losses
//! can depend on repetitions along the path and are not shared.
//!
//! **Win order.** Each node that becomes won gets the next `win_seq`. A won node's win
//! rests only on nodes won before it (its winning children, or the node it defers to), so
//! following decreasing `win_seq` when assembling a proof never cycles.

use antichess_core::{Move, Position};

use crate::error::{BookError, Result};
use crate::node::{combine, same_position, Node, NodeId, Status};
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

/// Recomputes an expanded node from its children. Proven, marked, deferring and
/// unexpanded nodes keep their values. Returns whether anything changed (the caller
/// writes the node).
pub(crate) fn recompute(txn: &mut dyn Txn, node: &mut Node, changes: &mut Changes) -> Result<bool> {
    if node.same_as.is_some() || node.status.is_proven() || node.marked || !node.expanded {
        return Ok(false);
    }
    let children = txn.children(node.id)?;
    recompute_from(txn, node, &children, changes)
}

/// [`recompute`] with the node's children already read.
fn recompute_from(
    txn: &mut dyn Txn,
    node: &mut Node,
    children: &[Node],
    changes: &mut Changes,
) -> Result<bool> {
    if node.same_as.is_some() || node.status.is_proven() || node.marked || !node.expanded {
        return Ok(false);
    }
    let kids: Vec<_> = children
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
        let (mut node, children) = txn
            .node_with_children(id)?
            .ok_or_else(|| BookError::Corrupt(format!("node {id} is missing")))?;
        if !recompute_from(txn, &mut node, &children, changes)? {
            break;
        }
        txn.update_node(&node)?;
        cur = node.parent;
    }
    Ok(())
}

/// Shares every newly won node with its unproven transpositions, and propagates what
/// that changes, until nothing new is won.
///
/// A position is shared once: after the first won node of a position has been shared,
/// every node of that position is proven, marked or deferring, so a later won node of the
/// same position (one its ancestors' minimax won) has nothing to share and its
/// transpositions are not read again. (In a book whose long lines pass through the same
/// positions a thousand times each, one result once won 132,621 nodes of 171 positions:
/// reading every position's nodes for each of them held the write lock for nine minutes.)
pub(crate) fn settle(txn: &mut dyn Txn, changes: &mut Changes) -> Result<()> {
    // The positions shared so far: their FENs by key.
    let mut shared: std::collections::HashMap<u64, Vec<String>> = Default::default();
    while let Some(id) = changes.won.pop() {
        let Some(won) = txn.node(id)? else { continue };
        if won.status != Status::Win {
            continue;
        }
        let fens = shared.entry(won.key).or_default();
        if fens.iter().any(|fen| same_position(fen, &won.fen)) {
            continue;
        }
        fens.push(won.fen.clone());
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
///
/// A child whose position is already proven won defers to that node (the one with the
/// smallest id among the won nodes of the position that defer to none, counting nodes
/// inserted here before it). The store is asked once for every position of the new
/// nodes, and siblings are inserted together up to the next one that is expanded at once
/// (whose descendants come before the later siblings, as if inserted one by one).
pub(crate) fn insert_children(
    txn: &mut dyn Txn,
    parent: &Node,
    parent_pos: &Position,
    prover: antichess_core::Color,
    children: &[NewChild],
    changes: &mut Changes,
) -> Result<()> {
    fn keys(pos: &Position, children: &[NewChild], out: &mut Vec<u64>) {
        for child in children {
            let next = pos.play(child.mv);
            out.push(next.key());
            if let Some(grandchildren) = &child.children {
                keys(&next, grandchildren, out);
            }
        }
    }
    let mut all = Vec::new();
    keys(parent_pos, children, &mut all);
    all.sort_unstable();
    all.dedup();
    let existing = txn.nodes_with_keys(&all)?;
    let mut known: std::collections::HashMap<u64, Vec<Node>> = Default::default();
    for n in existing {
        known.entry(n.key).or_default().push(n);
    }
    // One read for the book's seeds: the lookups per child only when it has some.
    let seeded = crate::seed_meta::has_seeds(txn)?;
    insert_level(
        txn, parent, parent_pos, prover, children, changes, &mut known, seeded,
    )
}

/// [`insert_children`] for one parent. `known` holds every node of the new nodes'
/// positions, by key in id order, kept up to date as nodes are inserted and changed.
fn insert_level(
    txn: &mut dyn Txn,
    parent: &Node,
    parent_pos: &Position,
    prover: antichess_core::Color,
    children: &[NewChild],
    changes: &mut Changes,
    known: &mut std::collections::HashMap<u64, Vec<Node>>,
    seeded: bool,
) -> Result<()> {
    let mut rest = children;
    while !rest.is_empty() {
        // The next batch: up to and including the first child expanded at once.
        let mut batch = Vec::new();
        let mut expand_last = false;
        for child in rest {
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
                let twin = known.get(&node.key).and_then(|nodes| {
                    nodes.iter().find(|n| {
                        n.status == Status::Win
                            && n.same_as.is_none()
                            && same_position(&n.fen, &node.fen)
                    })
                });
                if let Some(twin) = twin {
                    node.same_as = Some(twin.id);
                    node.status = Status::Win;
                    node.proof = 0;
                    node.disproof = antichess_pns::INF;
                    node.size = twin.size;
                } else if let Some(size) = seeded
                    .then(|| crate::seed_meta::seeded_size(txn, node.key, &node.fen))
                    .transpose()?
                    .flatten()
                {
                    // A seed proof of the position (see crate::seed).
                    node.status = Status::Win;
                    node.proof = 0;
                    node.disproof = antichess_pns::INF;
                    node.leaf_proof = 0;
                    node.leaf_disproof = antichess_pns::INF;
                    node.size = size.max(1);
                }
            }
            let expand = node.status == Status::Unknown && child.children.is_some();
            node.expanded = expand;
            if node.status.is_win() {
                node.win_seq = Some(next_counter(txn, WIN_SEQ)?);
            }
            batch.push((child, pos, node));
            if expand {
                expand_last = true;
                break;
            }
        }
        rest = &rest[batch.len()..];
        let nodes: Vec<Node> = batch.iter().map(|(_, _, n)| n.clone()).collect();
        let ids = txn.insert_nodes(&nodes)?;
        if ids.len() != batch.len() {
            return Err(BookError::Corrupt(format!(
                "inserting {} nodes gave {} ids",
                batch.len(),
                ids.len()
            )));
        }
        for ((_, _, node), id) in batch.iter_mut().zip(ids) {
            node.id = id;
            if node.status == Status::Win && node.same_as.is_none() {
                changes.won.push(id);
            }
            known.entry(node.key).or_default().push(node.clone());
        }
        if expand_last {
            let (child, pos, mut node) = batch.pop().expect("the expanded child");
            let grandchildren = child.children.as_deref().unwrap_or_default();
            insert_level(
                txn,
                &node,
                &pos,
                prover,
                grandchildren,
                changes,
                known,
                seeded,
            )?;
            recompute(txn, &mut node, changes)?;
            txn.update_node(&node)?;
            if let Some(slot) = known
                .get_mut(&node.key)
                .and_then(|v| v.iter_mut().find(|n| n.id == node.id))
            {
                *slot = node;
            }
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
