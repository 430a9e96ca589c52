//! Queued lines: a queue entry that goes on along moves beyond the book.
//!
//! `book queue --moves LINE` may name moves the book does not hold yet (the known first
//! moves of a line, say). The entry is then put on the node where the book ends on the line
//! (an open leaf, searched first as any queued leaf), and the rest of the line is kept in
//! the meta entry `queue_line:<entry id>` (UCI moves separated by spaces). When that leaf's
//! search is written ([`crate::expand::apply`]) the entry moves on to the child along the
//! line's next move, down through nodes the same search expanded, until the line ends (the
//! entry is then an ordinary one on the line's last node) or meets a decided node (the
//! entry is dropped). So the book grows along the line before the normal walk takes over.

use crate::error::{BookError, Result};
use crate::node::{Node, NodeId};
use crate::store::Txn;

/// The meta entry holding the rest of queue entry `id`'s line.
fn line_key(id: i64) -> String {
    format!("queue_line:{id}")
}

/// The moves (UCI) queue entry `id` still has to go along (empty: an ordinary entry).
pub(crate) fn line_of(txn: &mut dyn Txn, id: i64) -> Result<Vec<String>> {
    Ok(txn
        .meta(&line_key(id))?
        .map(|v| v.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default())
}

/// Removes queue entry `id` and the rest of its line.
pub(crate) fn drop_entry(txn: &mut dyn Txn, id: i64) -> Result<()> {
    txn.remove_queue_entry(id)?;
    txn.delete_meta(&line_key(id))
}

/// Queues `node`, then the moves `rest` beyond it: goes down the book along `rest` while
/// the nodes are expanded, and puts the entry on the first open leaf (with the moves left)
/// or on the line's last node. Returns the entry's id and node, or `None` when the line
/// meets a decided node first (nothing left to search on it).
pub(crate) fn queue_along(
    txn: &mut dyn Txn,
    node: Node,
    rest: &[String],
    now_ms: i64,
) -> Result<Option<(i64, NodeId)>> {
    let mut node = node;
    let mut i = 0;
    loop {
        if !node.is_open() {
            return Ok(None);
        }
        if i == rest.len() || !node.expanded {
            let id = txn.push_queue(node.id, now_ms)?;
            if i < rest.len() {
                txn.set_meta(&line_key(id), &rest[i..].join(" "))?;
            }
            return Ok(Some((id, node.id)));
        }
        node = crate::nav::child_by_uci(txn, &node, &rest[i])?;
        i += 1;
    }
}

/// After node `id`'s search was written: its queue entries end, and those with a line go
/// on along it from the node's child (see the module documentation).
pub(crate) fn advance(txn: &mut dyn Txn, id: NodeId, now_ms: i64) -> Result<()> {
    let entries: Vec<i64> = txn
        .queue()?
        .into_iter()
        .filter(|e| e.node == id)
        .map(|e| e.id)
        .collect();
    let mut lines = Vec::new();
    for entry in entries {
        let line = line_of(txn, entry)?;
        drop_entry(txn, entry)?;
        if !line.is_empty() {
            lines.push(line);
        }
    }
    if lines.is_empty() {
        return Ok(());
    }
    let node = txn
        .node(id)?
        .ok_or_else(|| BookError::Corrupt(format!("node {id} is missing")))?;
    for line in lines {
        if node.is_open() && node.expanded {
            queue_along(txn, node.clone(), &line, now_ms)?;
        }
    }
    Ok(())
}
