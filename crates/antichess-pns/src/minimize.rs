//! Proof minimisation: before a proof is extracted, revisits the prover's nodes with the
//! largest subtrees and tries the other moves there, keeping whichever move has the
//! smallest proof.
//!
//! df-pn stops at the first proof it finds, and at a prover node that is usually the move
//! that was cheapest to *search*, not the one with the smallest proof tree. The minimiser
//! walks the current proof largest subtree first (a priority queue of prover nodes keyed by
//! subtree size, so the time goes where a better move saves most). At each node it extracts
//! the current move's subtree, then tries the other moves in order of their proof numbers:
//! a move the table already shows proved is extracted at once, another is searched with a
//! node budget proportional to the subtree it would replace (a proof much larger than that
//! budget would not be smaller anyway). Budgets start small (4 nodes per node) and grow
//! fourfold in each later round, while time remains: most improvements are cheap, and the
//! time limit then goes to harder ones. A move whose subtree is smaller replaces the old one
//! (recorded by the node's path key, which the extractor then follows) if the whole proof,
//! extracted again, is smaller too (the old subtree may share positions with the rest of
//! the proof); the prover nodes one level below the chosen move join the queue. All
//! choices of the proof are pinned when first made, so the new entries that the searches
//! add to the table do not change moves elsewhere. Sizes count the nodes of the extracted subtree, with
//! repeated positions shared as in the file. The pass stops at its time limit; whatever
//! it decided by then is kept, so the proof is never larger than the one it started from
//! at any node it changed.

use std::collections::{BinaryHeap, HashSet};
use std::time::{Duration, Instant};

use antichess_core::{Move, Position};
use antichess_proof::{build_with, NodeKind, ProofTree};

use crate::extract::{Ctx, Extractor};
use crate::search::INF;

/// Limits of a minimisation pass.
#[derive(Debug, Clone)]
pub struct MinimizeOptions {
    /// Total time for the pass.
    pub time: Duration,
    /// Only prover nodes whose subtree has at least this many nodes are revisited.
    pub min_subtree: usize,
    /// Nodes an alternative move may search per node of the subtree it would replace, in
    /// the first round; each further round multiplies it by 4.
    pub nodes_per_node: u64,
    /// No round beyond this many nodes per node.
    pub max_nodes_per_node: u64,
    /// At most this many nodes for the search of one alternative.
    pub max_search_nodes: u64,
    /// Alternatives up to this percentage of the current subtree's size (on their own)
    /// are compared in the whole proof.
    pub slack_percent: usize,
    /// At most this many whole-proof comparisons per node.
    pub whole_checks: usize,
}

impl MinimizeOptions {
    /// Defaults for a pass of `time`.
    #[must_use]
    pub fn new(time: Duration) -> MinimizeOptions {
        MinimizeOptions {
            time,
            min_subtree: 4,
            nodes_per_node: 4,
            max_nodes_per_node: 256,
            max_search_nodes: 50_000_000,
            slack_percent: 150,
            whole_checks: 4,
        }
    }
}

/// What a minimisation pass did.
#[derive(Debug, Clone, Copy, Default)]
pub struct MinimizeReport {
    /// Prover nodes whose alternatives were tried.
    pub revisited: u64,
    /// Alternative moves searched (not already proved in the table).
    pub searched: u64,
    /// Alternatives found proved (by the table or the search).
    pub proved: u64,
    /// Prover moves replaced by one with a smaller proof.
    pub replaced: u64,
    /// Nodes where other proved moves were compared but none made the proof smaller.
    pub rejected: u64,
    /// Nodes of the proof extracted without minimisation, and with.
    pub nodes_before: u64,
    pub nodes_after: u64,
    /// Positions evaluated by the alternatives' searches.
    pub search_nodes: u64,
    /// Passes over the proof (another pass follows one that made the proof smaller).
    pub passes: u64,
    /// Rounds with larger search budgets after the first.
    pub rounds: u64,
    /// Whether the pass stopped at its time limit (else it ran out of nodes to revisit).
    pub timed_out: bool,
    pub elapsed: Duration,
}

/// One step of [`skip`]: how many children a node has in preorder.
fn children(kind: &NodeKind) -> usize {
    match kind {
        NodeKind::Prover => 1,
        NodeKind::Opponent { children } => usize::from(*children),
        NodeKind::Terminal | NodeKind::Tablebase | NodeKind::Reference { .. } => 0,
    }
}

/// The index one past the subtree that starts at `start`.
fn skip(tree: &ProofTree, start: usize) -> usize {
    let nodes = tree.nodes();
    let mut pending = 1usize;
    let mut at = start;
    while pending > 0 {
        pending = pending - 1 + children(&nodes[at].kind);
        at += 1;
    }
    at
}

/// A prover node waiting in the queue.
#[derive(Clone)]
struct Pending {
    pos: Position,
    ctx: Ctx,
}

/// Runs the passes and records their choices in `ex.overrides`.
pub(crate) fn minimize(
    ex: &mut Extractor<'_, '_>,
    root: &Position,
    root_ctx: &Ctx,
    options: &MinimizeOptions,
) -> Result<MinimizeReport, String> {
    let start = Instant::now();
    let deadline = start + options.time;
    let mut report = MinimizeReport::default();
    ex.pin_choices = true;
    let whole = subtree(ex, root, root_ctx)?;
    report.nodes_before = whole.len() as u64;
    let mut current_total = whole.len();
    let mut whole = Some(whole);
    // Rounds with growing search budgets; in each, passes over the proof while the last
    // one made it smaller (only the first pass of a round searches).
    let mut round = options.clone();
    let mut searching = true;
    loop {
        let replaced_before = report.replaced;
        let whole_tree = match whole.take() {
            Some(t) => t,
            None => subtree(ex, root, root_ctx)?,
        };
        one_pass(
            ex,
            root,
            root_ctx,
            whole_tree,
            &round,
            searching,
            deadline,
            &mut report,
            &mut current_total,
        )?;
        report.passes += 1;
        if report.timed_out {
            break;
        }
        if report.replaced == replaced_before {
            if round.nodes_per_node >= options.max_nodes_per_node {
                break;
            }
            round.nodes_per_node = round.nodes_per_node.saturating_mul(4);
            report.rounds += 1;
            searching = true;
        } else {
            searching = false;
        }
    }
    ex.pin_choices = false;
    report.elapsed = start.elapsed();
    Ok(report)
}

/// One pass of [`minimize`] over the prover nodes of the proof `whole` (as currently
/// extracted from `root`), largest subtree first.
fn one_pass(
    ex: &mut Extractor<'_, '_>,
    root: &Position,
    root_ctx: &Ctx,
    whole: ProofTree,
    options: &MinimizeOptions,
    searching: bool,
    deadline: Instant,
    report: &mut MinimizeReport,
    current_total: &mut usize,
) -> Result<(), String> {
    let mut items: Vec<Pending> = Vec::new();
    let mut queue: BinaryHeap<(usize, usize)> = BinaryHeap::new();
    let mut seen: HashSet<u64> = HashSet::new();
    if root.turn() == ex.prover {
        items.push(Pending {
            pos: *root,
            ctx: root_ctx.clone(),
        });
        queue.push((whole.len(), 0));
    } else {
        enqueue_children(ex, &whole, root, root_ctx, &mut items, &mut queue, options);
    }
    drop(whole);
    while let Some((_, index)) = queue.pop() {
        if Instant::now() >= deadline {
            report.timed_out = true;
            break;
        }
        let Pending { pos, ctx } = items[index].clone();
        if !seen.insert(ctx.key) || ex.tablebase_win(&pos)? {
            continue;
        }
        report.revisited += 1;
        let (mv0, child0) = ex.prover_move(&pos, &ctx)?;
        let ctx0 = ex.child_ctx(&pos, &ctx, &child0);
        let mut best = (subtree(ex, &child0, &ctx0)?, mv0, child0, ctx0);

        // The other moves, most promising (smallest proof number) first; known failures
        // are skipped.
        let mut candidates: Vec<(u32, Move, Position, Ctx)> = Vec::new();
        for mv in pos.legal_moves() {
            if mv == mv0 {
                continue;
            }
            let child = pos.play(mv);
            let cctx = ex.child_ctx(&pos, &ctx, &child);
            let proof = match ex.solver.table().get(cctx.key) {
                Some(e) if e.disproof == 0 => continue,
                Some(e) => e.proof,
                None => 1,
            };
            candidates.push((proof, mv, child, cctx));
        }
        candidates.sort_by_key(|c| c.0);
        let current = best.0.len();
        let mut proved: Vec<(usize, Move, Position, Ctx)> = Vec::new();
        for (proof, mv, child, cctx) in candidates {
            if Instant::now() >= deadline {
                report.timed_out = true;
                break;
            }
            if proof != 0 {
                if !searching {
                    // Later passes of a round compare the moves proved so far.
                    continue;
                }
                let budget = (current as u64)
                    .saturating_mul(options.nodes_per_node)
                    .min(options.max_search_nodes);
                report.searched += 1;
                let (ok, nodes) = search_child(ex, &pos, &ctx, &child, &cctx, budget);
                report.search_nodes += nodes;
                if !ok {
                    continue;
                }
            }
            report.proved += 1;
            // A proof that cannot be extracted again (e.g. the search's entries were
            // replaced and the re-search cycles) is simply not taken.
            let Ok(tree) = subtree(ex, &child, &cctx) else {
                continue;
            };
            proved.push((tree.len(), mv, child, cctx));
        }
        // The whole proof decides between the candidates that are not much larger on
        // their own: the old subtree may share positions with the rest of the proof that
        // a new one does not, and the other way round.
        proved.sort_by_key(|c| c.0);
        let limit = current.saturating_mul(options.slack_percent) / 100;
        let mut chosen = mv0;
        for (len, mv, _, _) in proved.iter().take(options.whole_checks) {
            if *len > limit || Instant::now() >= deadline {
                break;
            }
            ex.overrides.insert(ctx.key, *mv);
            let total = subtree(ex, root, root_ctx)?.len();
            if total < *current_total {
                *current_total = total;
                chosen = *mv;
            }
        }
        ex.overrides.insert(ctx.key, chosen);
        if chosen != mv0 {
            report.replaced += 1;
            let c = proved
                .iter()
                .find(|c| c.1 == chosen)
                .expect("chosen among proved");
            best = (subtree(ex, &c.2, &c.3)?, c.1, c.2, c.3.clone());
        } else if !proved.is_empty() {
            report.rejected += 1;
        }
        let (tree, _, child, cctx) = best;
        enqueue_children(ex, &tree, &child, &cctx, &mut items, &mut queue, options);
    }
    Ok(())
}

/// The proof of the subtree at `pos` as the extractor currently builds it.
fn subtree(ex: &mut Extractor<'_, '_>, pos: &Position, ctx: &Ctx) -> Result<ProofTree, String> {
    let prover = ex.prover;
    build_with(*pos, prover, Vec::new(), ex, ctx.clone()).map_err(|e| e.to_string())
}

/// Queues the prover nodes just below the root of `tree` (an opponent node at `pos`) that
/// are large enough to be worth revisiting.
fn enqueue_children(
    ex: &Extractor<'_, '_>,
    tree: &ProofTree,
    pos: &Position,
    ctx: &Ctx,
    items: &mut Vec<Pending>,
    queue: &mut BinaryHeap<(usize, usize)>,
    options: &MinimizeOptions,
) {
    let nodes = tree.nodes();
    let NodeKind::Opponent { children } = nodes[0].kind else {
        return;
    };
    let mut at = 1;
    for _ in 0..children {
        let end = skip(tree, at);
        if nodes[at].kind == NodeKind::Prover && end - at >= options.min_subtree {
            if let Some(mv) = nodes[at].mv {
                let child = pos.play(mv);
                let cctx = ex.child_ctx(pos, ctx, &child);
                items.push(Pending {
                    pos: child,
                    ctx: cctx,
                });
                queue.push((end - at, items.len() - 1));
            }
        }
        at = end;
    }
}

/// Searches `child` (reached from `parent`) within `budget` nodes; whether it was proved,
/// and the nodes evaluated.
fn search_child(
    ex: &Extractor<'_, '_>,
    parent: &Position,
    parent_ctx: &Ctx,
    child: &Position,
    child_ctx: &Ctx,
    budget: u64,
) -> (bool, u64) {
    let mut options = ex.shared.options().clone();
    options.max_nodes = Some(budget.max(1));
    options.max_time = None;
    let shared = ex.solver.shared_for(child, options);
    let mut worker = Extractor::worker_for(&shared, parent_ctx);
    worker.history.push(parent.key());
    let (proof, _, _) = worker.mid(child, child_ctx.key, INF, INF, 0);
    worker.flush();
    (proof == 0, shared.nodes())
}
