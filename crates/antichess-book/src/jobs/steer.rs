//! Steering a book by hand as jobs: `book queue` (push a line, list, clear), `book pin` and
//! `book mark`, each returning what it did as one report.

use antichess_core::Move;

use crate::error::{BookError, Result};
use crate::jobs::{line_text, NodeRef, Numbers};
use crate::node::NodeId;
use crate::Book;

/// What `book queue` does besides listing the queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueueAction {
    /// Only list it.
    List,
    /// Empty it.
    Clear,
    /// Queue the line of these moves from the root (it may go on beyond the book).
    Push(Vec<Move>),
}

/// A queue entry: its node, and the moves (UCI, space-separated) its line still goes on
/// along beyond the book.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct QueuedNode {
    pub id: NodeId,
    pub line: String,
    pub then: String,
}

/// What `book queue` reports.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct QueueReport {
    pub book: String,
    pub cleared: bool,
    /// The entry just queued.
    pub queued: Option<QueuedNode>,
    /// The queue after the action.
    pub queue: Vec<QueuedNode>,
}

fn queued_node(book: &mut Book, id: NodeId, ahead: &[String]) -> Result<QueuedNode> {
    Ok(QueuedNode {
        id,
        line: line_text(book, id)?,
        then: ahead.join(" "),
    })
}

/// Does `action` on the queue of `book`, then lists it.
///
/// # Errors
/// A line that leaves the book where it has no leaf to queue; the store's.
pub fn queue(book: &mut Book, action: &QueueAction) -> Result<QueueReport> {
    let mut queued = None;
    match action {
        QueueAction::List => {}
        QueueAction::Clear => book.queue_clear()?,
        QueueAction::Push(line) => {
            let (node, ahead) = book.queue_line(line)?;
            let ahead: Vec<String> = ahead.iter().map(|m| m.to_uci()).collect();
            queued = Some(queued_node(book, node.id, &ahead)?);
        }
    }
    let mut queue = Vec::new();
    for (q, ahead) in book.queue_lines()? {
        queue.push(queued_node(book, q.node, &ahead)?);
    }
    Ok(QueueReport {
        book: book.shown(),
        cleared: *action == QueueAction::Clear,
        queued,
        queue,
    })
}

/// The text of `book queue` (each line ending in a newline): that the queue was cleared,
/// or the entry just queued (if any), the number of entries and a line for each, with the
/// moves a line still goes on along ([`then_text`]).
///
/// # Errors
/// [`then_text`]'s.
pub fn queue_text(book: &mut Book, report: &QueueReport) -> Result<String> {
    if report.cleared {
        return Ok("queue cleared\n".to_string());
    }
    let mut out = String::new();
    if let Some(q) = &report.queued {
        let then = then_text(book, q)?;
        out += &format!("queued node {}: {}{then}\n", q.id, q.line);
    }
    let n = report.queue.len();
    out += &format!("queue: {n} entr{}\n", if n == 1 { "y" } else { "ies" });
    for q in &report.queue {
        let then = then_text(book, q)?;
        out += &format!("  node {}: {}{then}\n", q.id, q.line);
    }
    Ok(out)
}

/// The moves a queued line still goes on along from its node, for text: ` (then <SAN with
/// move numbers>, as the book grows)`, or nothing.
///
/// # Errors
/// A move of the entry that is not legal there; the store's.
pub fn then_text(book: &mut Book, entry: &QueuedNode) -> Result<String> {
    if entry.then.is_empty() {
        return Ok(String::new());
    }
    let id = entry.id;
    let node = book.node(id)?;
    let start = book.position(&node)?;
    let mut pos = start;
    let mut moves = Vec::new();
    for uci in entry.then.split(' ') {
        let mv = pos
            .parse_uci(uci)
            .map_err(|e| BookError::Input(format!("queued line of node {id}: {uci}: {e}")))?;
        pos = pos.play(mv);
        moves.push(mv);
    }
    Ok(format!(
        " (then {}, as the book grows)",
        antichess_core::pgn::format_moves(&start, &moves)
    ))
}

/// What `book pin` reports: the node the walk now starts at (`None`: the root, unpinned).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PinReport {
    pub book: String,
    pub pin: Option<NodeRef>,
}

/// Pins the walk of `book` to the node at `moves` from the root, or clears the pin (`None`).
///
/// # Errors
/// A move that leaves the book; the store's.
pub fn pin(book: &mut Book, moves: Option<&[Move]>) -> Result<PinReport> {
    let pinned = match moves {
        None => None,
        Some(moves) => Some(book.find(moves)?.id),
    };
    book.pin(pinned)?;
    Ok(PinReport {
        book: book.shown(),
        pin: pinned.map(|id| NodeRef::of(book, id)).transpose()?,
    })
}

/// A node after `book mark`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct MarkedNode {
    pub id: NodeId,
    pub line: String,
    pub status: &'static str,
    pub marked: bool,
}

/// What `book mark` reports: the node and the root after the mark.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct MarkReport {
    pub book: String,
    pub node: MarkedNode,
    pub root: Numbers,
}

/// A judgement of a node, from the side of the book's prover (`book mark --as`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Mark {
    /// The book's prover wins here (`book prove` still re-solves the node).
    Win,
    /// The prover does not win here: the book looks for a win elsewhere (e.g. mark the
    /// move a proof uses as lost to see whether another move wins too).
    Loss,
    /// Remove the mark.
    None,
}

/// Marks the node at `moves` from the root as won or lost by the prover's judgement, or
/// removes the mark.
///
/// # Errors
/// A move that leaves the book; a node that cannot be marked; the store's.
pub fn mark(book: &mut Book, moves: &[Move], mark: Mark) -> Result<MarkReport> {
    let node = book.find(moves)?;
    let win = match mark {
        Mark::Win => Some(true),
        Mark::Loss => Some(false),
        Mark::None => None,
    };
    let node = book.mark(node.id, win)?;
    let root = book.root()?;
    Ok(MarkReport {
        book: book.shown(),
        node: MarkedNode {
            id: node.id,
            line: line_text(book, node.id)?,
            status: node.status.name(),
            marked: node.marked,
        },
        root: Numbers::of(&root),
    })
}
