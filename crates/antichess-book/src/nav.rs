//! Navigation in a book, written once over the store trait and shared by [`crate::Book`],
//! the workers ([`crate::grow`]) and the web app: the node a line of moves reaches from
//! the root ([`follow`]), the line from the root to a node ([`line_to`]), and the pin,
//! the walk's pinned start ([`pinned`], [`set_pin`]; kept in the meta entry `pin`, which
//! nothing else reads).
//!
//! [`BookView`] is a read-only view of a book in one snapshot (a read transaction): the
//! navigation and the reads a page needs, without the store's transaction type.

use antichess_core::{Move, Position, UciMove};

use crate::error::{BookError, Result};
use crate::node::{Node, NodeId};
use crate::store::{BookCounts, QueueEntry, SearchLog, Txn};

/// The meta entry of the pin.
const PIN: &str = "pin";

/// Where a line of moves from the root leads.
#[derive(Debug, Clone, PartialEq)]
pub enum Reached {
    /// The whole line is in the book: the node after its last move.
    Node(Node),
    /// The line leaves the book at move `ply` (from 0): `leaf`, the node before that
    /// move, is a leaf of the book.
    Leaves { leaf: Node, ply: usize },
}

/// Follows `moves` from the root. An expanded node that lacks a legal move is a corrupt
/// book (an expanded node has every legal move as a child).
pub fn follow(txn: &mut dyn Txn, moves: &[Move]) -> Result<Reached> {
    let mut node = txn
        .root()?
        .ok_or_else(|| BookError::Corrupt("the root is missing".into()))?;
    for (ply, mv) in moves.iter().enumerate() {
        if !node.expanded {
            return Ok(Reached::Leaves { leaf: node, ply });
        }
        node = child_by_uci(txn, &node, &mv.to_uci())?;
    }
    Ok(Reached::Node(node))
}

/// The child of the expanded `node` along the move `uci`; a corrupt book if it has none
/// (an expanded node has every legal move as a child).
pub(crate) fn child_by_uci(txn: &mut dyn Txn, node: &Node, uci: &str) -> Result<Node> {
    txn.children(node.id)?
        .into_iter()
        .find(|c| c.uci.as_deref() == Some(uci))
        .ok_or_else(|| {
            BookError::Corrupt(format!(
                "node {} is expanded but lacks the move {uci}",
                node.id
            ))
        })
}

/// The moves from the root (at `root`) to node `id`.
pub fn line_to(txn: &mut dyn Txn, root: &Position, id: NodeId) -> Result<Vec<Move>> {
    let mut ucis = Vec::new();
    let mut cur = txn
        .node(id)?
        .ok_or_else(|| BookError::Input(format!("there is no node {id} in the book")))?;
    let mut seen = std::collections::HashSet::new();
    while let Some(parent) = cur.parent {
        if !seen.insert(cur.id) {
            return Err(BookError::Corrupt(format!(
                "the parents of node {id} form a cycle (through node {}), cut off from the root",
                cur.id
            )));
        }
        ucis.push(cur.uci.clone().unwrap_or_default());
        cur = txn
            .node(parent)?
            .ok_or_else(|| BookError::Corrupt(format!("node {parent} is missing")))?;
    }
    ucis.reverse();
    let mut pos = *root;
    let mut moves = Vec::with_capacity(ucis.len());
    for uci in &ucis {
        let m = UciMove::parse(uci)
            .and_then(|m| m.to_move(&pos, uci))
            .map_err(|e| BookError::Corrupt(format!("move {uci} above node {id}: {e}")))?;
        pos = pos.play(m);
        moves.push(m);
    }
    Ok(moves)
}

/// The pinned start of the walk, if any (a pin that is not a node id reads as none).
pub fn pinned(txn: &mut dyn Txn) -> Result<Option<NodeId>> {
    Ok(txn.meta(PIN)?.and_then(|v| v.parse().ok()))
}

/// Pins the walk's start to node `id` (`None`: the root again), in a write transaction.
pub fn set_pin(txn: &mut dyn Txn, id: Option<NodeId>) -> Result<()> {
    match id {
        Some(id) => {
            txn.node(id)?
                .ok_or_else(|| BookError::Input(format!("there is no node {id}")))?;
            txn.set_meta(PIN, &id.to_string())
        }
        None => txn.delete_meta(PIN),
    }
}

/// A read-only view of a book in one snapshot (see [`crate::Book::view`]).
pub struct BookView<'a> {
    txn: Box<dyn Txn + 'a>,
    root: Position,
}

impl std::fmt::Debug for BookView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BookView").finish_non_exhaustive()
    }
}

impl<'a> BookView<'a> {
    pub(crate) fn new(txn: Box<dyn Txn + 'a>, root: Position) -> BookView<'a> {
        BookView { txn, root }
    }

    /// The store's clock (see [`Txn::clock_ms`]), which leases are measured on.
    pub fn clock_ms(&mut self) -> Result<i64> {
        self.txn.clock_ms()
    }

    /// A node by id (`None`: no such node).
    pub fn node(&mut self, id: NodeId) -> Result<Option<Node>> {
        self.txn.node(id)
    }

    /// A node's children, by id.
    pub fn children(&mut self, id: NodeId) -> Result<Vec<Node>> {
        self.txn.children(id)
    }

    /// The root node.
    pub fn root(&mut self) -> Result<Node> {
        self.txn
            .root()?
            .ok_or_else(|| BookError::Corrupt("the root is missing".into()))
    }

    /// The nodes of a position (by Zobrist key; compare the positions to be sure).
    pub fn nodes_with_key(&mut self, key: u64) -> Result<Vec<Node>> {
        self.txn.nodes_with_key(key)
    }

    /// Counts over the whole book; leases are valid if they end after `now_ms`.
    pub fn counts(&mut self, now_ms: i64) -> Result<BookCounts> {
        self.txn.counts(now_ms)
    }

    pub fn queue(&mut self) -> Result<Vec<QueueEntry>> {
        self.txn.queue()
    }

    /// Every claimed node: (id, worker, lease end).
    pub fn claims(&mut self) -> Result<Vec<(NodeId, String, i64)>> {
        self.txn.claims()
    }

    pub fn search_log(&mut self) -> Result<Vec<SearchLog>> {
        self.txn.search_log()
    }

    /// The pinned start of the walk, if any.
    pub fn pinned(&mut self) -> Result<Option<NodeId>> {
        pinned(&mut *self.txn)
    }

    /// The moves from the root to node `id`.
    pub fn line_to(&mut self, id: NodeId) -> Result<Vec<Move>> {
        line_to(&mut *self.txn, &self.root, id)
    }

    /// Follows `moves` from the root.
    pub fn follow(&mut self, moves: &[Move]) -> Result<Reached> {
        follow(&mut *self.txn, moves)
    }
}
