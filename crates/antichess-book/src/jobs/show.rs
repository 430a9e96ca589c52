//! `book show` (a node and its children, with the book's counts, pin and queue) and `book
//! check` (the store's integrity, then the structure) as jobs returning their reports.

use antichess_core::{Move, Position};

use crate::error::Result;
use crate::hints::{HintedProof, Hints};
use crate::jobs::{line_text, number, Ratio};
use crate::node::{Node, NodeId};
use crate::store::BookCounts;
use crate::Book;

/// A node as `book show` gives it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct NodeReport {
    pub id: NodeId,
    pub uci: Option<String>,
    /// The move from the parent in SAN (for a child; `None` for the node shown).
    pub san: Option<String>,
    pub fen: String,
    pub status: &'static str,
    #[serde(serialize_with = "number")]
    pub proof: u32,
    #[serde(serialize_with = "number")]
    pub disproof: u32,
    pub ratio: Ratio,
    pub size: u64,
    pub searches: u32,
    pub expanded: bool,
    pub transposition_of: Option<NodeId>,
    pub claimed_by: Option<String>,
    /// With hints (`book show --hints`): the proof number of the record's tree below the
    /// node ([`crate::hints::hinted_proof`]).
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "hinted_number"
    )]
    pub hinted: Option<u32>,
}

/// A hinted proof number as the other numbers are written (`inf` for a lost node).
fn hinted_number<S: serde::Serializer>(
    n: &Option<u32>,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    match n {
        Some(n) => number(n, s),
        None => s.serialize_none(),
    }
}

impl NodeReport {
    /// `n`, a child of `parent` (`None`: the node shown itself).
    #[must_use]
    pub fn of(parent: Option<&Position>, n: &Node) -> NodeReport {
        let mv = parent.and_then(|p| n.move_from(p).ok());
        NodeReport {
            id: n.id,
            uci: n.uci.clone(),
            san: mv.zip(parent).map(|(m, p)| p.san(m)),
            fen: n.fen.clone(),
            status: n.status.name(),
            proof: n.proof,
            disproof: n.disproof,
            ratio: Ratio::of(n),
            size: n.size,
            searches: n.searches,
            expanded: n.expanded,
            transposition_of: n.same_as,
            claimed_by: n.claimed_by.clone(),
            hinted: None,
        }
    }
}

/// What `book show` reports.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ShowReport {
    pub book: String,
    pub rules: String,
    pub prover: &'static str,
    pub root_fen: String,
    /// The line to the node, in SAN.
    pub line: String,
    pub node: NodeReport,
    /// The children, best first for the side to move.
    pub children: Vec<NodeReport>,
    pub counts: BookCounts,
    pub pin: Option<NodeId>,
    /// The queued nodes.
    pub queue: Vec<NodeId>,
    /// The side to move at the node.
    #[serde(skip)]
    pub turn: antichess_core::Color,
    /// Whether the prover is to move at the node.
    #[serde(skip)]
    pub prover_to_move: bool,
}

/// The node at `moves` from the root of `book` and its children, best first; with `hints`,
/// each with the proof number of the record's tree below it.
///
/// # Errors
/// A move that leaves the book; the store's.
pub fn show_node(book: &mut Book, moves: &[Move], hints: Option<&Hints>) -> Result<ShowReport> {
    let node = book.find(moves)?;
    let pos = book.position(&node)?;
    let mut children = book.children(node.id)?;
    if node.prover_to_move {
        children.sort_by_key(|c| (c.proof, std::cmp::Reverse(c.disproof), c.id));
    } else {
        children.sort_by_key(|c| (c.disproof, std::cmp::Reverse(c.proof), c.id));
    }
    let mut node_report = NodeReport::of(None, &node);
    let mut children: Vec<NodeReport> = children
        .iter()
        .map(|c| NodeReport::of(Some(&pos), c))
        .collect();
    if let Some(hints) = hints {
        let mut hinted = HintedProof::new(hints);
        let mut view = book.view()?;
        node_report.hinted = Some(hinted.of(&mut view, node.id)?);
        for c in &mut children {
            c.hinted = Some(hinted.of(&mut view, c.id)?);
        }
    }
    let meta = book.meta().clone();
    Ok(ShowReport {
        book: book.shown(),
        rules: meta.rules.to_string(),
        prover: meta.prover.name(),
        root_fen: meta.root_fen,
        counts: book.counts()?,
        line: line_text(book, node.id)?,
        pin: book.pinned()?,
        queue: book.queue()?.iter().map(|q| q.node).collect(),
        children,
        node: node_report,
        turn: pos.turn(),
        prover_to_move: node.prover_to_move,
    })
}

/// What `book check` reports.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CheckReport {
    pub book: String,
    /// No problem found.
    pub sound: bool,
    /// The book's nodes (`None` if a damaged store cannot count them).
    pub nodes: Option<u64>,
    /// What the store's integrity check covered.
    pub integrity_check: String,
    /// Whether the store's integrity check passed.
    #[serde(skip)]
    pub integrity_ok: bool,
    /// One text per problem.
    pub problems: Vec<String>,
}

/// Checks `book`: the store's integrity check, then the structure.
///
/// # Errors
/// The store's.
pub fn check_book(book: &mut Book) -> Result<CheckReport> {
    let (integrity, problems) = book.check_all()?;
    Ok(CheckReport {
        book: book.shown(),
        sound: problems.is_empty(),
        // A damaged file may not count.
        nodes: book.counts().ok().map(|c| c.nodes),
        integrity_check: integrity.checked,
        integrity_ok: integrity.problems.is_empty(),
        problems,
    })
}
