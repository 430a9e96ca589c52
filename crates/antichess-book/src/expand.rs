//! Expanding a leaf: decide it from the rules or the tablebases if possible, otherwise
//! run a bounded proof-number search and collect the numbers of the leaf and of each of
//! its children; children whose searched subtree was at least [`KEEP_FRACTION`] of their
//! parent's are expanded from the solver's table too (a forced line becomes several book
//! nodes from one search). Writing the result is [`apply`]'s job, in one transaction.

use antichess_core::{Color, Move, Outcome, Position};
use antichess_pns::{MissingTable, Progress, SearchOptions, SearchStatus, Solver};

use crate::error::{BookError, Result};
use crate::node::{NodeId, Status};
use crate::store::{next_counter, Txn};
use crate::tree::{decide_leaf, insert_children, propagate_up, settle, Changes, NewChild};

/// A child is kept as an expanded book node when its searched subtree is at least this
/// fraction of its parent's.
pub const KEEP_FRACTION: f64 = 0.7;

/// At most this many book nodes are expanded by the 70% rule from one search.
const MAX_KEPT: usize = 256;

/// What expanding a leaf found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LeafOutcome {
    /// Decided without searching (no legal move, or the tablebases).
    Decided(Status),
    /// Searched: the leaf's numbers and (if still open) its children.
    Searched {
        proof: u32,
        disproof: u32,
        work: u64,
        children: Vec<NewChild>,
    },
}

/// The result of expanding one leaf.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expansion {
    pub outcome: LeafOutcome,
    /// Positions the search evaluated (0 if decided without a search).
    pub nodes: u64,
    /// Materials the search met without a table (see [`crate::tables`]).
    pub missing_tables: Vec<MissingTable>,
}

impl Expansion {
    /// A short name for the log: `decided`, `proved`, `disproved` or `unknown`.
    #[must_use]
    pub fn result_name(&self) -> &'static str {
        match &self.outcome {
            LeafOutcome::Decided(_) => "decided",
            LeafOutcome::Searched { proof: 0, .. } => "proved",
            LeafOutcome::Searched { disproof: 0, .. } => "disproved",
            LeafOutcome::Searched { .. } => "unknown",
        }
    }
}

/// The status the rules or the tablebases give `pos` (for `prover`), if any.
pub fn decide_without_search(
    pos: &Position,
    prover: Color,
    solver: &Solver<'_>,
    tablebase_units: u32,
) -> Option<Status> {
    if pos.legal_moves().is_empty() {
        return Some(if pos.no_move_outcome() == Outcome::Win(prover) {
            Status::Win
        } else {
            Status::Loss
        });
    }
    let tb = solver.tablebase()?;
    if pos.board().occupied().count() > tablebase_units {
        return None;
    }
    let prover_wins = tb.probe_wins(pos, prover).ok()??;
    Some(if prover_wins {
        Status::Win
    } else {
        Status::Loss
    })
}

/// Expands the leaf at `pos`: decides it or searches it within `options` (the prover and
/// budget). `progress` is called about once a second during the search.
pub fn expand_leaf(
    solver: &Solver<'_>,
    pos: &Position,
    options: &SearchOptions,
    progress: &mut dyn FnMut(Progress),
) -> Expansion {
    if let Some(status) =
        decide_without_search(pos, options.prover, solver, options.tablebase_units)
    {
        return Expansion {
            outcome: LeafOutcome::Decided(status),
            nodes: 0,
            missing_tables: Vec::new(),
        };
    }
    let result = solver.search(pos, options, progress);
    let root_work = solver
        .node_numbers(pos, &[], options.prover)
        .map_or(result.nodes, |n| u64::from(n.work));
    let decided = matches!(
        result.status,
        SearchStatus::Proved | SearchStatus::Disproved
    );
    let mut kept = 0usize;
    let children = if decided {
        Vec::new()
    } else {
        result
            .moves
            .iter()
            .map(|m| {
                let mut child = NewChild {
                    mv: m.mv,
                    proof: m.proof,
                    disproof: m.disproof,
                    work: u64::from(m.work),
                    children: None,
                };
                keep_line(
                    solver,
                    pos,
                    options.prover,
                    &mut vec![m.mv],
                    &mut child,
                    root_work,
                    &mut kept,
                );
                child
            })
            .collect()
    };
    Expansion {
        outcome: LeafOutcome::Searched {
            proof: result.proof,
            disproof: result.disproof,
            work: root_work,
            children,
        },
        nodes: result.nodes,
        missing_tables: result.missing_tables,
    }
}

/// The 70% rule: if `child` (reached from `root` by `line`) is open and its work is at
/// least [`KEEP_FRACTION`] of `parent_work`, give it its children from the solver's table,
/// and apply the rule to them in turn.
fn keep_line(
    solver: &Solver<'_>,
    root: &Position,
    prover: Color,
    line: &mut Vec<Move>,
    child: &mut NewChild,
    parent_work: u64,
    kept: &mut usize,
) {
    if child.proof == 0
        || child.disproof == 0
        || parent_work == 0
        || (child.work as f64) < KEEP_FRACTION * parent_work as f64
        || *kept >= MAX_KEPT
    {
        return;
    }
    let Some(numbers) = solver.node_numbers(root, line, prover) else {
        return;
    };
    if numbers.moves.is_empty() {
        return;
    }
    *kept += 1;
    let work = u64::from(numbers.work).max(child.work);
    let mut grandchildren = Vec::with_capacity(numbers.moves.len());
    for m in &numbers.moves {
        let mut grandchild = NewChild {
            mv: m.mv,
            proof: m.proof,
            disproof: m.disproof,
            work: u64::from(m.work),
            children: None,
        };
        line.push(m.mv);
        keep_line(solver, root, prover, line, &mut grandchild, work, kept);
        line.pop();
        grandchildren.push(grandchild);
    }
    child.children = Some(grandchildren);
}

/// What [`apply`] did with a search result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// Written: the leaf was decided or expanded.
    Written,
    /// The worker no longer held the claim (its lease expired and another worker took
    /// it): the result was dropped.
    LostClaim,
    /// The leaf had been decided or expanded meanwhile (e.g. a transposition was
    /// proven): nothing to write.
    Stale,
}

/// Writes `expansion` of leaf `id` (claimed by `worker`) in one transaction: the leaf's
/// numbers or status, its children, the minimax to the root, transpositions; finishes the
/// log entry `log_id`, removes the leaf from the queue (a queued line goes on to the
/// child along it: `crate::queue`) and releases the claim. The caller commits.
pub fn apply(
    txn: &mut dyn Txn,
    id: NodeId,
    worker: &str,
    expansion: &Expansion,
    log_id: i64,
    rules: antichess_core::Rules,
    prover: Color,
) -> Result<Applied> {
    let seq = next_counter(txn, "event_seq")?;
    // The search happened whatever becomes of its result.
    crate::tables::record_missing(txn, &expansion.missing_tables)?;
    let mut node = txn
        .node(id)?
        .ok_or_else(|| BookError::Corrupt(format!("node {id} is missing")))?;
    if node.claimed_by.as_deref() != Some(worker) {
        let now = txn.clock_ms()?;
        txn.log_finish(log_id, now, seq, expansion.nodes, "lost")?;
        return Ok(Applied::LostClaim);
    }
    node.claimed_by = None;
    node.lease_until = None;
    if !node.is_open() || node.expanded {
        txn.update_node(&node)?;
        let now = txn.clock_ms()?;
        txn.log_finish(log_id, now, seq, expansion.nodes, "stale")?;
        return Ok(Applied::Stale);
    }
    node.searches += 1;
    let mut changes = Changes::default();
    match &expansion.outcome {
        LeafOutcome::Decided(status) => {
            node.size = 1;
            decide_leaf(txn, &mut node, *status, &mut changes)?;
            txn.update_node(&node)?;
        }
        LeafOutcome::Searched {
            proof,
            disproof,
            work,
            children,
        } => {
            node.work = *work;
            node.leaf_proof = *proof;
            node.leaf_disproof = *disproof;
            node.size = (*work).max(1);
            let status = crate::node::status_of(*proof, *disproof);
            if status.is_decided() || children.is_empty() {
                if status.is_decided() {
                    decide_leaf(txn, &mut node, status, &mut changes)?;
                } else {
                    node.proof = *proof;
                    node.disproof = *disproof;
                }
                txn.update_node(&node)?;
            } else {
                node.expanded = true;
                node.proof = *proof;
                node.disproof = *disproof;
                txn.update_node(&node)?;
                let pos = node.position(rules)?;
                insert_children(txn, &node, &pos, prover, children, &mut changes)?;
                crate::tree::recompute(txn, &mut node, &mut changes)?;
                txn.update_node(&node)?;
            }
        }
    }
    let now = txn.clock_ms()?;
    crate::queue::advance(txn, id, now)?;
    txn.log_finish(log_id, now, seq, expansion.nodes, expansion.result_name())?;
    propagate_up(txn, node.parent, &mut changes)?;
    settle(txn, &mut changes)?;
    Ok(Applied::Written)
}
