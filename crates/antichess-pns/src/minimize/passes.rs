//! The extractor's passes of [`extract_minimized`]: over the proof the search found,
//! largest subtree first, the other moves of each prover node are searched below their
//! path and the one that makes the whole proof smallest is pinned in the extractor's
//! overrides; then the pool's phases ([`super::phases`]) take over (see the module
//! documentation of [`super`]).

use std::collections::{BinaryHeap, HashSet};
use std::time::Instant;

use antichess_core::{Move, Position};
use antichess_proof::{NodeKind, ProofTree};

use super::deadline::Deadline;
use super::extract::{extraction, subtree, Ctx, Extractor};
use super::options::{tell, tell_tree, MinimizeOptions, MinimizeProgress, MinimizeReport};
use super::phases::{deepen, exact_pass, finish, pool_passes};
use super::pool::ProofPool;
use crate::error::{PnsError, Result};
use crate::search::{SearchOptions, Solver, INF};

/// As [`extract_proof`](super::extract_proof), first looking for smaller proofs with the
/// minimiser within the limits of `minimize` (if given); also returns what the minimiser
/// did. `progress` is told how the minimisation stands as it goes (see
/// [`MinimizeProgress`]).
pub fn extract_minimized(
    solver: &Solver<'_>,
    root: &Position,
    prolog: &[Move],
    options: &SearchOptions,
    minimize: Option<&MinimizeOptions>,
    progress: &mut dyn FnMut(&MinimizeProgress<'_>),
) -> Result<(ProofTree, u64, Option<MinimizeReport>)> {
    let Some(m) = minimize else {
        let (tree, researched) = super::extract_proof(solver, root, prolog, options)?;
        return Ok((tree, researched, None));
    };
    let shared = extraction(solver, root, options);
    let mut extractor = Extractor::new(solver, &shared, options);
    extractor.stop.clone_from(&m.stop);
    let root_ctx = extractor.root_ctx(root);
    extractor.check_proved(root, &root_ctx)?;
    let (mut report, mut tree) = passes_and_pool(&mut extractor, root, &root_ctx, m, progress)
        .map_err(|e| e.context("minimising the proof"))?;
    tree.set_prolog(prolog.to_vec());
    report.nodes_after = tree.len() as u64;
    Ok((tree, extractor.researched, Some(report)))
}

/// One step of `skip`: how many children a node has in preorder.
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

/// Runs the passes (their choices recorded in `ex.overrides`), then the pool and its last
/// phase; returns what was done and the smaller of the extractor's and the pool's proofs.
fn passes_and_pool(
    ex: &mut Extractor<'_, '_>,
    root: &Position,
    root_ctx: &Ctx,
    options: &MinimizeOptions,
    progress: &mut dyn FnMut(&MinimizeProgress<'_>),
) -> Result<(MinimizeReport, ProofTree)> {
    let start = Instant::now();
    let deadline = Deadline::new(Some(options.time), options.work, options.stop.clone());
    let mut report = MinimizeReport::default();
    ex.pin_choices = true;
    let mut whole = subtree(ex, root, root_ctx)?;
    tell_tree(progress, &whole);
    let mut pool = ProofPool::new(*root, ex.prover);
    pool.add(&whole)?;
    report.nodes_before = whole.len() as u64;
    let mut current_total = whole.len();
    // Rounds with growing search budgets; in each, passes over the proof while the last
    // one made it smaller (only the first pass of a round searches).
    let mut round = options.clone();
    let mut searching = true;
    // The passes stop at half the time, so that the pool's phase (its exact searches,
    // passes and deepening) always gets its share: on proofs of 20,000 nodes and more the
    // passes alone would take all of it.
    let passes_deadline = deadline.share(start, options.time, 0.5);
    loop {
        let replaced_before = report.replaced;
        one_pass(
            ex,
            &mut pool,
            root,
            root_ctx,
            whole,
            &round,
            searching,
            &passes_deadline,
            &mut report,
            &mut current_total,
        )?;
        report.passes += 1;
        // The proof after the pass (the next pass starts from it).
        whole = subtree(ex, root, root_ctx)?;
        tell_tree(progress, &whole);
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
    // The pool: the extractor's proof with its choices, or a smaller one combining the
    // subtrees seen.
    let last = whole;
    pool.add(&last)?;
    let (choice, mut pool_report) = pool.start(&last)?;
    let mut dag = pool.dag(choice)?;
    let mut tried = HashSet::new();
    exact_pass(
        ex,
        &mut pool,
        &mut dag,
        &mut tried,
        options,
        &deadline,
        &mut pool_report,
    )?;
    tell(progress, &pool_report, &pool, &dag);
    let mut explored: HashSet<u32> = HashSet::new();
    // The proof's own prover nodes were explored by the passes.
    last.for_each_position(|i, pos, _| {
        if last.nodes()[i].kind == NodeKind::Prover {
            explored.extend(pool.id(pos));
        }
        Ok(())
    })
    .map_err(PnsError::Proof)?;
    // The pool's passes search every node of the proof again, each position as its own
    // root (the extractor's passes searched them below their path).
    pool_passes(
        ex,
        &mut pool,
        &mut dag,
        options,
        &deadline,
        &mut pool_report,
        progress,
    )?;
    explored.extend((0..pool.len() as u32).filter(|&v| dag.used(v)));
    deepen(
        ex,
        &mut pool,
        &mut dag,
        explored,
        &mut tried,
        options,
        &deadline,
        &mut pool_report,
        progress,
    )?;
    ex.pin_choices = false;
    let tree = finish(&pool, &mut dag, &mut pool_report)?;
    report.pool = Some(pool_report);
    report.interrupted = deadline.stopped();
    report.elapsed = start.elapsed();
    Ok((report, if tree.len() < last.len() { tree } else { last }))
}

/// One pass of [`passes_and_pool`] over the prover nodes of the proof `whole` (as currently
/// extracted from `root`), largest subtree first.
fn one_pass(
    ex: &mut Extractor<'_, '_>,
    pool: &mut ProofPool,
    root: &Position,
    root_ctx: &Ctx,
    whole: ProofTree,
    options: &MinimizeOptions,
    searching: bool,
    deadline: &Deadline,
    report: &mut MinimizeReport,
    current_total: &mut usize,
) -> Result<()> {
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
        if deadline.passed() {
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
        let c = pool.add_tree(&best.0, false)?;
        pool.link(&pos, mv0, c);

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
            if deadline.passed() {
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
                deadline.spend(nodes);
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
            let c = pool.add_tree(&tree, false)?;
            pool.link(&pos, mv, c);
            proved.push((tree.len(), mv, child, cctx));
        }
        // The whole proof decides between the candidates that are not much larger on
        // their own: the old subtree may share positions with the rest of the proof that
        // a new one does not, and the other way round.
        proved.sort_by_key(|c| c.0);
        let limit = current.saturating_mul(options.slack_percent) / 100;
        let mut chosen = mv0;
        for (len, mv, _, _) in proved.iter().take(options.whole_checks) {
            if *len > limit || deadline.passed() {
                break;
            }
            ex.overrides.insert(ctx.key, *mv);
            let total = subtree(ex, root, root_ctx)?.len();
            // Extracting the whole proof again is work, like a search's positions.
            deadline.spend(total as u64);
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
    options.interrupt = ex.stop.clone();
    let shared = ex.solver.shared_for(child, options);
    let mut worker = Extractor::worker_for(&shared, parent_ctx);
    worker.history.push(parent.key());
    let (proof, _, _) = worker.mid(child, child_ctx.key, INF, INF, 0);
    worker.flush();
    (proof == 0, shared.nodes())
}
