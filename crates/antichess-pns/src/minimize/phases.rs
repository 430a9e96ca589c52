//! The pool's phases: [`minimize_proof`] (a proof given as a tree), and the phases that
//! both it and the extractor's passes end with: exact searches of small subtrees
//! (`exact_pass`), passes of the pool over the proof (`pool_passes`), the top
//! alternatives, the last phase of near misses and kicks (`deepen`) and the global phase
//! (`global_phase`). See the module documentation of [`super`].

use std::collections::HashSet;
use std::time::Instant;

use antichess_core::{Move, Position};
use antichess_proof::{build_with, Expander, ProofTree, Step};

use super::dag::{Dag, NearMiss};
use super::deadline::Deadline;
use super::exact::{ExactSearch, Smallest};
use super::extract::{extraction, subtree, Ctx, Extractor};
use super::global;
use super::options::{tell, MinimizeOptions, MinimizeProgress};
use super::pool::{PoolReport, ProofPool};
use crate::error::{PnsError, Result};
use crate::search::{SearchOptions, Solver, Worker, INF};
use crate::tt::SEED;

/// The last local passes, and the proof the pool makes.
pub(super) fn finish(
    pool: &ProofPool,
    dag: &mut Dag,
    report: &mut PoolReport,
) -> Result<ProofTree> {
    dag.grow(pool);
    report.switches += dag.local_passes(pool);
    report.positions = pool.len() as u64;
    report.after_deepening = dag.size();
    let tree = pool.build_choice(&dag.choice, Vec::new())?;
    debug_assert_eq!(
        tree.len() as u64,
        dag.size(),
        "the size model counts file nodes"
    );
    Ok(tree)
}

/// Minimises a proof given as a tree (e.g. read from a file, or assembled from a book)
/// with the proof pool alone: exact searches of small subtrees ([`exact_pass`]); with
/// `top_nodes`, the other moves at the largest subtrees proved and minimised on their own
/// ([`top_alternatives`]); passes over its prover nodes, largest subtree first, search
/// the moves the pool has no proof of (each child as a root of its own, with a budget
/// proportional to the subtree it could replace, growing fourfold per round) and keep the
/// move that makes the whole proof smallest; then the pool's last phase (near misses,
/// kicks) until the time is up; with `global_time` or `global_work`, then `global_phase`. `others` are more proofs (same prover and rules) of the
/// same position or of positions below it that the pool may draw on, e.g. earlier
/// minimisations from other first proofs. The result is never larger than `tree`, nor
/// than any of `others` of the same position; it keeps `tree`'s prolog. Every proof given
/// must be valid: the pool takes them as they are.
pub fn minimize_proof(
    solver: &Solver<'_>,
    tree: &ProofTree,
    others: &[ProofTree],
    search: &SearchOptions,
    options: &MinimizeOptions,
    progress: &mut dyn FnMut(&MinimizeProgress<'_>),
) -> Result<(ProofTree, PoolReport)> {
    let deadline = Deadline::new(Some(options.time), options.work, options.stop.clone());
    let shared = extraction(solver, tree.root(), search);
    let mut ex = Extractor::new(solver, &shared, search);
    ex.stop = options.stop.clone();
    let mut pool = ProofPool::new(*tree.root(), tree.prover());
    pool.add(tree)?;
    for (i, other) in others.iter().enumerate() {
        if other.prover() != tree.prover() || other.rules() != tree.rules() {
            return Err(PnsError::Mismatch(format!(
                "proof {} to merge is for another prover or rule set",
                i + 1
            )));
        }
        pool.add(other)
            .map_err(|e| e.context(format!("proof {} to merge", i + 1)))?;
    }
    let (choice, mut report) = pool.start_from(tree, others)?;
    let mut dag = pool.dag(choice)?;
    let mut tried = HashSet::new();
    // The starting point, before any search: a caller hears at once that the
    // minimisation has begun (and may stop it there).
    tell(progress, &report, &pool, &dag);
    exact_pass(
        &ex,
        &mut pool,
        &mut dag,
        &mut tried,
        options,
        &deadline,
        &mut report,
    )?;
    tell(progress, &report, &pool, &dag);
    if options.top_nodes > 0 {
        // At most half the time left, so that the passes always get their turn.
        let top_deadline = deadline.halfway();
        top_alternatives(
            solver,
            &mut ex,
            &mut pool,
            &mut dag,
            search,
            options,
            &top_deadline,
            &mut report,
            progress,
        )?;
    }
    pool_passes(
        &mut ex,
        &mut pool,
        &mut dag,
        options,
        &deadline,
        &mut report,
        progress,
    )?;
    let explored = (0..pool.len() as u32).filter(|&v| dag.used(v)).collect();
    deepen(
        &mut ex,
        &mut pool,
        &mut dag,
        explored,
        &mut tried,
        options,
        &deadline,
        &mut report,
        progress,
    )?;
    if options.global() {
        global_phase(
            &ex,
            &mut pool,
            &mut dag,
            &mut tried,
            options,
            &deadline.then(options.global_time, options.global_work),
            &mut report,
            progress,
        )?;
    }
    let mut out = finish(&pool, &mut dag, &mut report)?;
    tell(progress, &report, &pool, &dag);
    if out.len() >= tree.len() {
        return Ok((tree.clone(), report));
    }
    out.set_prolog(tree.prolog().to_vec());
    Ok((out, report))
}

/// The global phase: rounds of [`alternatives_pass`] (other moves' smallest proofs for the
/// pool) and `global`'s exact choice over the whole pool, each followed by an
/// [`exact_pass`] and local passes over the new proof (its changes open new ones), while a
/// round makes the proof smaller and time is left. The local passes change one move at a
/// time; the global choice changes any number at once, so it finds the proofs whose
/// changes pay only together, through the positions they share.
fn global_phase(
    ex: &Extractor<'_, '_>,
    pool: &mut ProofPool,
    dag: &mut Dag,
    tried: &mut HashSet<(u32, u64)>,
    options: &MinimizeOptions,
    deadline: &Deadline,
    report: &mut PoolReport,
    progress: &mut dyn FnMut(&MinimizeProgress<'_>),
) -> Result<()> {
    let mut searched = HashSet::new();
    loop {
        let before = dag.size();
        alternatives_pass(
            ex,
            pool,
            dag,
            &mut searched,
            options,
            &deadline.halfway(),
            report,
        )?;
        report.switches += dag.local_passes(pool);
        if deadline.passed() {
            break;
        }
        let outcome = global::choose(pool, dag, deadline, options.global_mip_nodes)?;
        report.global_runs += 1;
        report.global_failed += u64::from(outcome.failed);
        report.global_millis += outcome.millis;
        if !outcome.failed {
            report.global_positions = outcome.positions;
            report.global_bound = outcome.bound;
            report.global_optimal = outcome.optimal;
        }
        if outcome.size < before {
            report.global_found += 1;
        }
        tell(progress, report, pool, dag);
        exact_pass(ex, pool, dag, tried, options, deadline, report)?;
        dag.grow(pool);
        report.switches += dag.local_passes(pool);
        tell(progress, report, pool, dag);
        if dag.size() >= before || deadline.passed() {
            break;
        }
    }
    Ok(())
}

/// At each prover node of the proof whose move frees at most `exact_max_subtree` nodes
/// (smallest first), and for each other legal move the pool has no proof of, the smallest
/// proof of the move that builds on the rest of the proof ([`ExactSearch`], `exact_nodes`
/// positions) if it has at most `global_slack` nodes more than the move frees; found
/// proofs join the pool. Such a proof is no smaller on its own (the exact pass would have
/// taken it), but one that shares positions with another may be, which is for the global
/// choice to see. A node is searched again only when what it frees has changed
/// (`searched`).
fn alternatives_pass(
    ex: &Extractor<'_, '_>,
    pool: &mut ProofPool,
    dag: &mut Dag,
    searched: &mut HashSet<(u32, u64)>,
    options: &MinimizeOptions,
    deadline: &Deadline,
    report: &mut PoolReport,
) -> Result<()> {
    if options.exact_nodes == 0 {
        return Ok(());
    }
    let mut worker = Worker::new(ex.shared, 0);
    let mut exact = ExactSearch::new(&mut worker, ex.prover, options.stop.clone());
    dag.grow(pool);
    let parents = dag.parents(pool);
    let mut found = Vec::new();
    for (_, v) in small_provers(pool, dag, options) {
        if deadline.passed() {
            break;
        }
        let pos = *pool.position(v);
        let pool_ref = &*pool;
        let ancestors = Dag::ancestors(&parents, v);
        dag.detached(pool_ref, v, |dag, freed| {
            if freed > options.exact_max_subtree || !searched.insert((v, freed)) {
                return;
            }
            let limit = (freed + options.global_slack).min(u64::from(INF - 1)) as u32;
            for &mv in pos.legal_moves().iter() {
                if pool_ref.has_move(v, mv) || deadline.passed() {
                    continue;
                }
                let mut free = in_rest(pool_ref, dag, &ancestors);
                report.alternatives_searched += 1;
                let before = exact.nodes();
                let budget = deadline.search_budget(options.exact_nodes);
                let result = exact.smallest(&pos.play(mv), limit, budget, &mut free);
                deadline.spend(exact.nodes() - before);
                if let Some(tree) = result.found() {
                    found.push((pos, mv, tree));
                }
            }
        });
    }
    report.alternatives_nodes += exact.nodes();
    report.alternatives_found += found.len() as u64;
    for (pos, mv, tree) in found {
        let child = pool.add_tree(&tree, true)?;
        pool.link(&pos, mv, child);
    }
    dag.grow(pool);
    Ok(())
}

/// The prover nodes of the proof an exact search may look at, smallest subtree first: those
/// whose subtree (as a proof of its own) weighs at most eight times `exact_max_subtree`.
/// What a move frees is at most that weight, and often much less where the subtree shares
/// positions with the rest of the proof; the cap keeps the list short.
fn small_provers(pool: &ProofPool, dag: &mut Dag, options: &MinimizeOptions) -> Vec<(u64, u32)> {
    // (The pool may have grown since the DAG last looked, e.g. by the last searches of a
    // phase that ended at its deadline.)
    dag.grow(pool);
    let max_cone = options.exact_max_subtree.saturating_mul(8);
    let mut nodes = dag.provers_by_size(pool);
    nodes.reverse();
    nodes.retain(|&(cone, _)| cone <= max_cone);
    nodes
}

/// Whether a position is part of the rest of the proof (used, and not one of `ancestors`,
/// the node searched and the nodes above it): an exact search counts it as one node.
fn in_rest<'a>(
    pool: &'a ProofPool,
    dag: &'a Dag,
    ancestors: &'a HashSet<u32>,
) -> impl FnMut(&Position) -> bool + 'a {
    move |p: &Position| {
        pool.id(p)
            .is_some_and(|u| dag.used(u) && !ancestors.contains(&u))
    }
}

/// Offers the pool, for every prover node of the proof whose move frees at most
/// `options.exact_max_subtree` nodes (smallest subtree first), the smallest proof that
/// builds on the rest of the proof ([`ExactSearch`]: the positions the proof still uses
/// without this node's move, its ancestors excepted, count one node each), if that is
/// smaller; the node switches to it. A node is searched again only when what its move
/// frees has changed (`tried`). Takes at most half the time left.
pub(super) fn exact_pass(
    ex: &Extractor<'_, '_>,
    pool: &mut ProofPool,
    dag: &mut Dag,
    tried: &mut HashSet<(u32, u64)>,
    options: &MinimizeOptions,
    deadline: &Deadline,
    report: &mut PoolReport,
) -> Result<()> {
    if options.exact_nodes == 0 {
        return Ok(());
    }
    // At most half the time left, so that the other searches always get their turn.
    let deadline = deadline.halfway();
    let started = Instant::now();
    let mut worker = Worker::new(ex.shared, 0);
    let mut exact = ExactSearch::new(&mut worker, ex.prover, options.stop.clone());
    dag.grow(pool);
    let mut parents = dag.parents(pool);
    let nodes = small_provers(pool, dag, options);
    report.exact_unreached = 0;
    for (i, &(_, v)) in nodes.iter().enumerate() {
        if deadline.passed() {
            // Out of time: the nodes left that no exact search of this minimisation has
            // looked at yet.
            let searched: HashSet<u32> = tried.iter().map(|&(u, _)| u).collect();
            report.exact_unreached = nodes[i..]
                .iter()
                .filter(|&&(_, u)| dag.used(u) && !searched.contains(&u))
                .count() as u64;
            break;
        }
        if !dag.used(v) {
            continue;
        }
        let pos = *pool.position(v);
        let pool_ref = &*pool;
        let found = dag.detached(pool_ref, v, |dag, freed| {
            // A proof of v with at most freed + 1 nodes adds at most freed - 1.
            let limit = freed + 1;
            if limit > options.exact_max_subtree || !tried.insert((v, limit)) {
                return None;
            }
            report.exact_searched += 1;
            let ancestors = Dag::ancestors(&parents, v);
            let mut free = in_rest(pool_ref, dag, &ancestors);
            let before = exact.nodes();
            let budget = deadline.search_budget(options.exact_nodes);
            let result = exact.smallest(&pos, limit as u32, budget, &mut free);
            deadline.spend(exact.nodes() - before);
            if matches!(result, Smallest::GaveUp) {
                report.exact_gave_up += 1;
                if report.exact_gave_up_min == 0 || limit < report.exact_gave_up_min {
                    report.exact_gave_up_min = limit;
                }
            }
            result.found()
        });
        if let Some(tree) = found {
            report.exact_found += 1;
            pool.add_tree(&tree, true)?;
            dag.grow(pool);
            if dag.improve_node(pool, v) {
                report.switches += 1;
                parents = dag.parents(pool);
            }
        }
    }
    report.exact_nodes += exact.nodes();
    report.exact_millis += started.elapsed().as_millis() as u64;
    Ok(())
}

/// Passes of the pool over the proof, largest subtree first: at each prover node the moves
/// the pool has no proof of are searched (each child as its own root, with a budget
/// proportional to the node's subtree, fourfold per round from `nodes_per_node` to
/// `max_nodes_per_node`) and the node takes the move that makes the whole proof smallest.
pub(super) fn pool_passes(
    ex: &mut Extractor<'_, '_>,
    pool: &mut ProofPool,
    dag: &mut Dag,
    options: &MinimizeOptions,
    deadline: &Deadline,
    report: &mut PoolReport,
    progress: &mut dyn FnMut(&MinimizeProgress<'_>),
) -> Result<()> {
    let mut per_node = options.nodes_per_node;
    'rounds: loop {
        seed(ex, pool, dag.used_nodes());
        for (cone, v) in dag.provers_by_size(pool) {
            if deadline.passed() {
                break 'rounds;
            }
            if !dag.used(v) || (cone as usize) < options.min_subtree {
                continue;
            }
            let budget = cone
                .saturating_mul(per_node)
                .clamp(64, options.max_search_nodes);
            explore(ex, pool, v, budget, deadline, report)?;
            dag.grow(pool);
            if dag.improve_node(pool, v) {
                report.switches += 1;
                seed(ex, pool, dag.nodes_below(pool, v));
            }
            tell(progress, report, pool, dag);
        }
        if per_node >= options.max_nodes_per_node {
            break;
        }
        per_node = per_node.saturating_mul(4);
        report.rounds += 1;
    }
    Ok(())
}

/// For the `options.top_nodes` prover nodes with the largest subtrees: every other move
/// is proved with a large budget (`top_nodes_per_node` per node of the current subtree,
/// at least `top_min_budget`) and, if its proof as found is at most `top_slack_percent` of
/// the current subtree, minimised on its own (for `top_time`) before the pool compares it.
/// A move near the root whose first proof is much larger than the current one can still be
/// the better choice once both are minimised, and the passes alone never find that out.
/// Runs before the passes, up to `deadline` (half the time left), while `top_time` is
/// left.
#[allow(clippy::too_many_arguments)]
fn top_alternatives(
    solver: &Solver<'_>,
    ex: &mut Extractor<'_, '_>,
    pool: &mut ProofPool,
    dag: &mut Dag,
    search: &SearchOptions,
    options: &MinimizeOptions,
    deadline: &Deadline,
    report: &mut PoolReport,
    progress: &mut dyn FnMut(&MinimizeProgress<'_>),
) -> Result<()> {
    let tops: Vec<(u64, u32)> = dag
        .provers_by_size(pool)
        .into_iter()
        .take(options.top_nodes)
        .collect();
    let mut inner = options.clone();
    inner.top_nodes = 0;
    inner.time = options.top_time;
    inner.work = options.top_work;
    inner.top_work = None;
    for (cone, v) in tops {
        if !dag.used(v) {
            continue;
        }
        let pos = *pool.position(v);
        for mv in pos.legal_moves() {
            if deadline.at_most_left(options.top_time, options.top_work) {
                return Ok(());
            }
            if pool.has_move(v, mv) {
                continue;
            }
            let budget = cone
                .saturating_mul(options.top_nodes_per_node)
                .min(options.max_search_nodes)
                .max(options.top_min_budget);
            let Some(found) = prove_as_root(ex, None, &pos.play(mv), budget, deadline, report)
            else {
                continue;
            };
            report.proved += 1;
            if found.len() as u64 > cone.saturating_mul(options.top_slack_percent as u64) / 100 {
                continue;
            }
            let (small, _) = minimize_proof(solver, &found, &[], search, &inner, &mut |_| {})?;
            report.top_minimized += 1;
            let c = pool.add_tree(&small, false)?;
            pool.link(&pos, mv, c);
            dag.grow(pool);
            if dag.improve_node(pool, v) {
                report.switches += 1;
            }
            tell(progress, report, pool, dag);
        }
    }
    Ok(())
}

/// The pool's last phase: switches that would make the proof slightly larger are looked
/// at again, since the new move's subtree was proved as found, not minimised. The prover
/// nodes it would add (not yet `explored`) get all their other moves searched, each
/// position as a root of its own, and the proofs join the pool; the local passes then take
/// what helps. Least excess first, in rounds of growing budgets, until the time is up or
/// no such switch is left.
pub(super) fn deepen(
    ex: &mut Extractor<'_, '_>,
    pool: &mut ProofPool,
    dag: &mut Dag,
    first_explored: HashSet<u32>,
    exact_tried: &mut HashSet<(u32, u64)>,
    options: &MinimizeOptions,
    deadline: &Deadline,
    report: &mut PoolReport,
    progress: &mut dyn FnMut(&MinimizeProgress<'_>),
) -> Result<()> {
    let mut per_node = options.deep_nodes_per_node;
    let mut explored = first_explored.clone();
    let mut kicked: HashSet<(u32, u32)> = HashSet::new();
    // The proof changes only by switches: seed again only then.
    let mut seeded_at = None;
    'outer: while !deadline.passed() {
        dag.grow(pool);
        // Each round's passes and near misses walk the pool: work, like a search's
        // positions, so that a work budget bounds this phase too.
        deadline.spend(pool.len() as u64);
        report.switches += dag.local_passes(pool);
        tell(progress, report, pool, dag);
        if seeded_at != Some(report.switches) {
            exact_pass(ex, pool, dag, exact_tried, options, deadline, report)?;
            report.switches += dag.local_passes(pool);
            seed(ex, pool, dag.used_nodes());
            seeded_at = Some(report.switches);
        }
        let misses = dag.near_misses(pool);
        let kicks = kick(pool, dag, &misses, &mut kicked, deadline, report);
        if kicks == Kicks::Smaller {
            // (The switches kicked already stay tried: trying them again after every
            // smaller proof cost more than it found, on 1. e3 g6.)
            continue;
        }
        let mut progressed = kicks == Kicks::Tried;
        for miss in misses {
            let fresh: Vec<u32> = miss
                .new_provers
                .iter()
                .copied()
                .filter(|u| !explored.contains(u))
                .collect();
            if fresh.is_empty() {
                continue;
            }
            progressed = true;
            report.near_misses += 1;
            for u in fresh {
                if deadline.passed() {
                    break 'outer;
                }
                explored.insert(u);
                let budget = dag
                    .cone(pool, u)
                    .saturating_mul(per_node)
                    .clamp(1_000, options.max_search_nodes);
                explore(ex, pool, u, budget, deadline, report)?;
            }
            break;
        }
        if !progressed {
            if per_node >= options.max_nodes_per_node.saturating_mul(16) {
                break;
            }
            per_node = per_node.saturating_mul(4);
            report.deep_rounds += 1;
            explored = first_explored.clone();
        }
    }
    Ok(())
}

/// What [`kick`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kicks {
    /// Every near miss had been tried.
    None,
    /// Some were tried, none made the proof smaller.
    Tried,
    /// One made the proof smaller.
    Smaller,
}

/// Kicks (see [`Dag::force`]): the first few near misses not tried yet are forced, and
/// the local passes run on a copy of the DAG; a copy that ends up smaller replaces the DAG.
fn kick(
    pool: &ProofPool,
    dag: &mut Dag,
    misses: &[NearMiss],
    kicked: &mut HashSet<(u32, u32)>,
    deadline: &Deadline,
    report: &mut PoolReport,
) -> Kicks {
    const KICKS_PER_ROUND: usize = 16;
    let mut tried = 0;
    for miss in misses {
        if tried == KICKS_PER_ROUND || deadline.passed() {
            break;
        }
        if !kicked.insert((miss.node, miss.k)) {
            continue;
        }
        tried += 1;
        // The passes over the copy walk the pool: work, like a search's positions.
        deadline.spend(pool.len() as u64);
        let mut trial = dag.clone();
        if !trial.force(pool, miss.node, miss.k) {
            continue;
        }
        let switches = trial.local_passes(pool);
        if trial.size() < dag.size() {
            *dag = trial;
            report.switches += switches + 1;
            report.kicks += 1;
            return Kicks::Smaller;
        }
    }
    if tried == 0 {
        Kicks::None
    } else {
        Kicks::Tried
    }
}

/// Searches every move of pool node `u` that the pool has no proof of (and the table does
/// not show lost), each child as a root of its own with `budget` nodes, and adds the
/// proofs found.
fn explore(
    ex: &mut Extractor<'_, '_>,
    pool: &mut ProofPool,
    u: u32,
    budget: u64,
    deadline: &Deadline,
    report: &mut PoolReport,
) -> Result<()> {
    let pos = *pool.position(u);
    report.explored += 1;
    for mv in pos.legal_moves() {
        if pool.has_move(u, mv) {
            continue;
        }
        if let Some(tree) = prove_as_root(ex, Some(pool), &pos.play(mv), budget, deadline, report) {
            let c = pool.add_tree(&tree, true)?;
            pool.link(&pos, mv, c);
            report.proved += 1;
        }
    }
    Ok(())
}

/// Searches `pos` as a root of its own within `budget` nodes (unless the table shows it
/// lost) and returns its proof as found, if it was proved. With a pool, the proof ends in
/// stubs where it reaches a position the pool has a proof of (see [`seed`]): it is
/// for [`ProofPool::add_tree`] with stubs, not a proof of its own.
fn prove_as_root(
    ex: &mut Extractor<'_, '_>,
    pool: Option<&ProofPool>,
    pos: &Position,
    budget: u64,
    deadline: &Deadline,
    report: &mut PoolReport,
) -> Option<ProofTree> {
    let ctx = ex.root_ctx(pos);
    if ex
        .solver
        .table()
        .get(ctx.key)
        .is_some_and(|e| e.disproof == 0)
    {
        return None;
    }
    let mut options = ex.shared.options().clone();
    options.max_nodes = Some(budget.max(1));
    options.max_time = None;
    options.interrupt = ex.stop.clone();
    let shared = ex.solver.shared_for(pos, options);
    let mut worker = Extractor::worker_for(&shared, &ctx);
    let (proof, _, _) = worker.mid(pos, ctx.key, INF, INF, 0);
    worker.flush();
    report.searched += 1;
    report.search_nodes += shared.nodes();
    deadline.spend(shared.nodes());
    if proof != 0 {
        return None;
    }
    match pool {
        None => subtree(ex, pos, &ctx).ok(),
        Some(pool) => {
            let prover = ex.prover;
            let mut stubbed = StubExpander { ex, pool };
            build_with(*pos, prover, Vec::new(), &mut stubbed, ctx).ok()
        }
    }
}

/// The extractor, cut off at the positions the pool has a proof of (a stub reads as a
/// tablebase leaf; [`ProofPool::add_tree`] with stubs tells them apart by the pool). The
/// tables are probed only at those positions here (a real tablebase win stays the
/// extractor's leaf), the others once by the extractor.
struct StubExpander<'e, 's, 'a> {
    ex: &'e mut Extractor<'s, 'a>,
    pool: &'e ProofPool,
}

impl Expander for StubExpander<'_, '_, '_> {
    type Handle = Ctx;

    fn prover(&mut self, pos: &Position, ctx: &Ctx) -> Result<Step<Ctx>, String> {
        if self.pool.stub(pos).is_some()
            && !self.ex.tablebase_win(pos).map_err(|e| e.to_string())?
        {
            return Ok(Step::TablebaseLeaf);
        }
        self.ex.prover(pos, ctx)
    }

    fn opponent(
        &mut self,
        pos: &Position,
        ctx: &Ctx,
        moves: &[Move],
    ) -> Result<Option<Vec<Ctx>>, String> {
        if self.pool.stub(pos).is_some()
            && !self.ex.tablebase_win(pos).map_err(|e| e.to_string())?
        {
            return Ok(None);
        }
        self.ex.opponent(pos, ctx, moves)
    }
}

/// Marks the positions of `nodes` (of the current proof) proved in the table, as seeds: a
/// search for an alternative then stops where it reaches the proof, which costs nothing
/// there, and finds the proofs that join the proof rather than stand beside it; the pool's
/// searches extract them with stubs at the positions the pool has proofs of. Only
/// positions reached after an irreversible move (and search roots) find their seeds: the
/// others are keyed by their path. A seed has no proved child in the table; the extractor
/// removes one before it searches such a node again ([`crate::tt::SEED`]).
fn seed(ex: &Extractor<'_, '_>, pool: &ProofPool, nodes: impl IntoIterator<Item = u32>) {
    let worker = Worker::new(ex.shared, 0);
    for v in nodes {
        let key = worker.root_key(pool.position(v));
        ex.solver.table().put(key, SEED);
    }
}
