//! Damage a book's rows can carry that the tree logic would otherwise run into blind: a
//! node row deleted (its parent is expanded but lacks the move, its children hang from
//! nothing), a node that is its own parent or a cycle of parents (nodes cut off from the
//! root), and a claim whose lease ends absurdly far in the future (a leaf no worker will
//! ever get back). `book check` reports them all ([`parent_problems`],
//! [`lease_problems`]); a worker that finds no leaf to claim although the root is open
//! asks [`diagnose_stall`] why, so that `grow` stops with the node's name instead of
//! waiting for ever.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use antichess_core::{Position, Rules};

use crate::error::Result;
use crate::node::{Node, NodeId};
use crate::store::Txn;

/// The longest lease a worker takes ([`crate::GrowOptions::lease`] is refused beyond it).
/// A claim that runs out later than this from now was not written by a worker: it is
/// damage.
pub const MAX_LEASE: Duration = Duration::from_secs(366 * 24 * 3600);

/// The start of the year 10000, in milliseconds since the Unix epoch: no lease ends later.
const YEAR_10000_MS: i64 = 253_402_300_800_000;

/// The approximate year of a time in milliseconds since the Unix epoch.
fn year_of(ms: i64) -> i64 {
    1970 + (ms as f64 / (365.2425 * 86_400_000.0)).floor() as i64
}

/// A node named for the user: `node ID (LINE)` where the line from the root can be
/// read, `node ID` otherwise.
pub(crate) fn describe(txn: &mut dyn Txn, root: &Position, id: NodeId) -> String {
    match crate::nav::line_to(txn, root, id) {
        Ok(line) if line.is_empty() => format!("node {id} (the root)"),
        Ok(line) => format!(
            "node {id} ({})",
            antichess_core::pgn::format_moves(root, &line)
        ),
        Err(_) => format!("node {id}"),
    }
}

/// Whether node `id`'s parents lead to a node without a parent, each node once: `Some`
/// names a cycle of parents or a missing parent where it shows.
pub(crate) fn cut_off(txn: &mut dyn Txn, id: NodeId) -> Result<Option<String>> {
    let mut seen = HashSet::new();
    let mut cur = id;
    loop {
        if !seen.insert(cur) {
            return Ok(Some(if cur == id {
                format!("node {id} is its own ancestor (a cycle of parents), cut off from the root")
            } else {
                format!("the parents of node {id} form a cycle through node {cur}, cut off from the root")
            }));
        }
        let Some(node) = txn.node(cur)? else {
            return Ok(Some(format!("node {cur}, above node {id}, is missing")));
        };
        match node.parent {
            Some(p) => cur = p,
            None => return Ok(None),
        }
    }
}

/// Claims that end beyond `now_ms + max_lease` or after the year 9999: each named with
/// its worker and the year its lease ends.
pub(crate) fn lease_problems(
    claims: &[(NodeId, String, i64)],
    now_ms: i64,
    max_lease: Duration,
) -> Vec<(NodeId, String)> {
    let limit = now_ms.saturating_add(i64::try_from(max_lease.as_millis()).unwrap_or(i64::MAX));
    claims
        .iter()
        .filter(|(_, _, until)| *until > limit || *until >= YEAR_10000_MS)
        .map(|(id, worker, until)| {
            (
                *id,
                format!(
                    "claimed by {worker} until the year {}, beyond any lease a worker takes (at most {} days from now): a damaged claim",
                    year_of(*until),
                    max_lease.as_secs() / 86_400
                ),
            )
        })
        .collect()
}

/// Problems of the parent links, over every node: a node that is its own parent, nodes
/// whose parents form a cycle (named once per cycle), a node whose parent is missing.
pub(crate) fn parent_problems(nodes: &[Node]) -> Vec<String> {
    let parent: HashMap<NodeId, Option<NodeId>> = nodes.iter().map(|n| (n.id, n.parent)).collect();
    let mut problems = Vec::new();
    // Nodes known to reach the root (or a missing parent, reported once at its child).
    let mut settled: HashSet<NodeId> = HashSet::new();
    for n in nodes {
        if n.parent == Some(n.id) {
            problems.push(format!("node {}: it is its own parent", n.id));
            settled.insert(n.id);
            continue;
        }
        if let Some(p) = n.parent {
            if !parent.contains_key(&p) {
                problems.push(format!(
                    "node {}: its parent node {p} is missing (a deleted row?)",
                    n.id
                ));
            }
        }
    }
    for n in nodes {
        let mut path = Vec::new();
        let mut on_path = HashSet::new();
        let mut cur = Some(n.id);
        while let Some(id) = cur {
            if settled.contains(&id) {
                break;
            }
            if !on_path.insert(id) {
                // A cycle: from the first visit of `id` to the end of the path.
                let start = path.iter().position(|&x| x == id).unwrap_or(0);
                let mut cycle: Vec<NodeId> = path[start..].to_vec();
                cycle.sort_unstable();
                let names: Vec<String> = cycle.iter().map(ToString::to_string).collect();
                problems.push(format!(
                    "nodes {}: their parents form a cycle, cut off from the root",
                    names.join(", ")
                ));
                break;
            }
            path.push(id);
            cur = parent.get(&id).copied().flatten();
        }
        settled.extend(path);
    }
    problems
}

/// Why a worker found no leaf to claim from `starts` although the root is open: returns
/// the damage, naming the node, or `None` when nothing is wrong (every open leaf is under
/// a plausible lease, or one has come free meanwhile). Claims are checked first (a lease
/// beyond `max_lease` from now); then, if no lease holds anything, the tree is walked
/// from each start, each node once, for an expanded open node that lacks a legal move
/// among its children, or whose children are all decided, or a child that is also an
/// ancestor (a cycle of parents below a pin).
pub(crate) fn diagnose_stall(
    txn: &mut dyn Txn,
    rules: Rules,
    root: &Position,
    starts: &[NodeId],
    now_ms: i64,
    max_lease: Duration,
) -> Result<Option<String>> {
    let claims = txn.claims()?;
    if let Some((id, problem)) = lease_problems(&claims, now_ms, max_lease)
        .into_iter()
        .next()
    {
        return Ok(Some(format!("{}: {problem}", describe(txn, root, id))));
    }
    if claims.iter().any(|(_, _, until)| *until > now_ms) {
        return Ok(None);
    }
    let mut seen: HashSet<NodeId> = HashSet::new();
    for &start in starts {
        let mut stack = vec![start];
        while let Some(id) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            let Some((node, kids)) = txn.node_with_children(id)? else {
                return Ok(Some(format!(
                    "node {id}, where the walk starts, is missing"
                )));
            };
            if !node.is_open() {
                continue;
            }
            if !node.expanded {
                if node.is_claimable(now_ms) {
                    return Ok(None);
                }
                continue;
            }
            if let Some(k) = kids.iter().find(|k| k.id == id || seen.contains(&k.id)) {
                return Ok(Some(format!(
                    "{}: its child node {} is also above it (a cycle of parents)",
                    describe(txn, root, id),
                    k.id
                )));
            }
            let pos = node.position(rules)?;
            for mv in pos.legal_moves() {
                let uci = mv.to_uci();
                if !kids.iter().any(|k| k.uci.as_deref() == Some(uci.as_str())) {
                    return Ok(Some(format!(
                        "{}: it is expanded but has no child for the move {} (a node row is missing or hangs from another parent)",
                        describe(txn, root, id),
                        pos.san(mv)
                    )));
                }
            }
            let open: Vec<NodeId> = kids.iter().filter(|k| k.is_open()).map(|k| k.id).collect();
            if open.is_empty() {
                return Ok(Some(format!(
                    "{}: it is open (proof {}, disproof {}) but every child is decided: its numbers disagree with its children",
                    describe(txn, root, id),
                    node.proof,
                    node.disproof
                )));
            }
            stack.extend(open);
        }
    }
    Ok(None)
}
