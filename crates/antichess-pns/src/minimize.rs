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
//! repeated positions shared as in the file.
//!
//! Every subtree extracted on the way also goes into a [`ProofPool`], which then chooses
//! the moves with the whole proof's sharing in view, and spends the time left on [`deepen`]:
//! alternatives that were *almost* smaller get their own prover nodes' moves searched. The
//! extractor's passes stop at half the time at the latest, so that the pool always gets
//! the other half. The proof written is the pool's if it is smaller than the extractor's,
//! so never larger than the one found. [`minimize_proof`] does the same for a proof given
//! as a tree (a file, a book's assembled proof), with passes of the pool itself instead of
//! the extractor's.
//! The pool's searches run over a table *seeded* with the proof's positions as proved
//! ([`seed`]), so they stop where they reach the proof and find alternatives that join it;
//! the proofs they find are cut off at positions the pool already has proofs of. Small
//! subtrees get exact searches ([`exact_pass`]): the smallest proof of the node that builds
//! on the rest of the proof, which df-pn's first proofs seldom are. With a time for it,
//! [`global_phase`] ends [`minimize_proof`]: exact searches of the other moves fill the
//! pool, and [`crate::global`] chooses over all of it at once (an integer program).
//! Every phase ends at its [`Deadline`]: its share of the time, or sooner when the stop flag
//! (`MinimizeOptions::stop`, Ctrl-C in the CLI) is raised; the searches under way then stop
//! too (not the extractor's re-searches, so the proof returned is always whole).

use std::collections::{BinaryHeap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use antichess_core::{Move, Position};
use antichess_proof::{build_with, Expander, NodeKind, ProofTree, Step};

use crate::exact::{ExactSearch, Smallest};
use crate::extract::{Ctx, Extractor};
use crate::global;
use crate::pool::{Dag, NearMiss, PoolReport, ProofPool};
use crate::search::{SearchOptions, Solver, Worker, INF};
use crate::tt::SEED;

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
    /// Prover nodes (largest subtrees first) whose other moves [`minimize_proof`] proves and
    /// minimises on their own before comparing them (0: none).
    pub top_nodes: usize,
    /// Their search budget per node of the current subtree (at most `max_search_nodes`)...
    pub top_nodes_per_node: u64,
    /// ... but at least this many nodes for each (above `max_search_nodes` too).
    pub top_min_budget: u64,
    /// Only proofs (as found) up to this percentage of the current subtree are minimised.
    pub top_slack_percent: usize,
    /// Time for each of those minimisations.
    pub top_time: Duration,
    /// In the pool's last phase, nodes a search may use per node of the subtree it could
    /// improve, in the first round (×4 per round, up to 16 × `max_nodes_per_node`).
    pub deep_nodes_per_node: u64,
    /// Exact searches (smallest proofs of small subtrees that build on the rest of the
    /// proof): the positions one may evaluate (0: none), and the largest weight a node's
    /// move may free for the node to be searched.
    pub exact_nodes: u64,
    pub exact_max_subtree: u64,
    /// The global phase after the passes ([`global_phase`]; needs the `mip` feature): at
    /// most this long (`None`: no global phase); the other moves' exact searches look for
    /// proofs up to `global_slack` nodes larger than what the node's move frees.
    pub global_time: Option<Duration>,
    pub global_slack: u64,
    /// Raised (e.g. by Ctrl-C), the minimisation stops as if its time were up: the searches
    /// under way stop, and the smallest proof found so far is returned.
    pub stop: Option<Arc<AtomicBool>>,
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
            deep_nodes_per_node: 64,
            top_nodes: 0,
            top_nodes_per_node: 4096,
            top_min_budget: 0,
            top_slack_percent: 300,
            top_time: time / 16,
            exact_nodes: 1_000_000,
            exact_max_subtree: 1_000,
            global_time: None,
            global_slack: 12,
            stop: None,
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
    /// Whether the passes stopped at their time limit, half the minimisation time (else
    /// they ran out of nodes to revisit).
    pub timed_out: bool,
    /// Whether the stop flag (Ctrl-C) ended the minimisation before its time.
    pub interrupted: bool,
    pub elapsed: Duration,
    /// What the proof pool (every subtree extracted during the pass) made of it.
    pub pool: Option<PoolReport>,
}

/// How a minimisation stands, told to its caller now and then (as it starts, after each
/// phase or pass, and each round of the last phase): its figures, the proof's size, and the
/// proof itself on demand, e.g. to save it as it goes.
#[derive(Debug)]
pub struct MinimizeProgress<'a> {
    /// The proof pool's figures; `None` before the pool's phase (the passes of
    /// [`extract_minimized`](crate::extract_minimized) over the search's own proof).
    pub report: Option<&'a PoolReport>,
    /// Nodes of the current proof.
    pub size: u64,
    current: Current<'a>,
}

/// Where [`MinimizeProgress::proof`] finds the current proof.
#[derive(Debug)]
enum Current<'a> {
    /// The pool's current choice.
    Pool(&'a ProofPool, &'a Dag),
    /// A proof already built (the extractor's, during its passes).
    Tree(&'a ProofTree),
}

impl MinimizeProgress<'_> {
    /// The current proof (no prolog); a proof as long as the minimiser's choices are, which
    /// a caller that writes it should still verify.
    pub fn proof(&self) -> Result<ProofTree, String> {
        match self.current {
            Current::Pool(pool, dag) => {
                let mut choice = dag.choice.clone();
                choice.resize(pool.len(), 0);
                pool.build_choice(&choice, Vec::new())
            }
            Current::Tree(tree) => Ok(tree.clone()),
        }
    }
}

/// Tells `progress` how the minimisation stands.
fn tell(
    progress: &mut dyn FnMut(&MinimizeProgress<'_>),
    report: &PoolReport,
    pool: &ProofPool,
    dag: &Dag,
) {
    progress(&MinimizeProgress {
        report: Some(report),
        size: dag.size(),
        current: Current::Pool(pool, dag),
    });
}

/// Tells `progress` of a proof built by the extractor (before the pool's phase).
fn tell_tree(progress: &mut dyn FnMut(&MinimizeProgress<'_>), tree: &ProofTree) {
    progress(&MinimizeProgress {
        report: None,
        size: tree.len() as u64,
        current: Current::Tree(tree),
    });
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

/// Runs the passes (their choices recorded in `ex.overrides`), then the pool and its last
/// phase; returns what was done and the smaller of the extractor's and the pool's proofs.
pub(crate) fn minimize(
    ex: &mut Extractor<'_, '_>,
    root: &Position,
    root_ctx: &Ctx,
    options: &MinimizeOptions,
    progress: &mut dyn FnMut(&MinimizeProgress<'_>),
) -> Result<(MinimizeReport, ProofTree), String> {
    let start = Instant::now();
    let deadline = Deadline::after(options.time, options);
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
    let passes_deadline = deadline.at(start + options.time / 2);
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
    .map_err(|e| e.to_string())?;
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

/// One pass of [`minimize`] over the prover nodes of the proof `whole` (as currently
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

/// The last local passes, and the proof the pool makes.
fn finish(pool: &ProofPool, dag: &mut Dag, report: &mut PoolReport) -> Result<ProofTree, String> {
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
/// kicks) until the time is up; with `global_time`, then [`global_phase`]. `others` are more proofs (same prover and rules) of the
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
) -> Result<(ProofTree, PoolReport), String> {
    let deadline = Deadline::after(options.time, options);
    let mut search_options = search.clone();
    search_options.max_nodes = None;
    search_options.max_time = None;
    search_options.interrupt = None;
    let shared = solver.shared_for(tree.root(), search_options.clone());
    let mut ex = Extractor::new(solver, &shared, &search_options);
    ex.stop = options.stop.clone();
    let mut pool = ProofPool::new(*tree.root(), tree.prover());
    pool.add(tree)?;
    for (i, other) in others.iter().enumerate() {
        if other.prover() != tree.prover() || other.rules() != tree.rules() {
            return Err(format!(
                "proof {} to merge is for another prover or rule set",
                i + 1
            ));
        }
        pool.add(other)
            .map_err(|e| format!("proof {} to merge: {e}", i + 1))?;
    }
    let (choice, mut report) = pool.start_from(tree, others)?;
    let mut dag = pool.dag(choice)?;
    let mut tried = HashSet::new();
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
    if let Some(time) = options.global_time {
        global_phase(
            &ex,
            &mut pool,
            &mut dag,
            &mut tried,
            options,
            &Deadline::after(time, options),
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
/// pool) and [`crate::global`]'s exact choice over the whole pool, each followed by an
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
) -> Result<(), String> {
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
        let outcome = global::choose(pool, dag, deadline)?;
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
) -> Result<(), String> {
    if options.exact_nodes == 0 {
        return Ok(());
    }
    let mut worker = Worker::new(ex.shared, 0);
    let mut exact = ExactSearch::new(&mut worker, ex.prover, options.stop.clone());
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
                if let Some(tree) = exact
                    .smallest(&pos.play(mv), limit, options.exact_nodes, &mut free)
                    .found()
                {
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

/// When a minimisation (or one of its phases) ends: at an instant, or sooner when the
/// options' `stop` flag is raised.
#[derive(Debug, Clone)]
pub(crate) struct Deadline {
    at: Instant,
    stop: Option<Arc<AtomicBool>>,
}

impl Deadline {
    /// `time` from now, or when `stop` is raised.
    pub(crate) fn new(time: Duration, stop: Option<Arc<AtomicBool>>) -> Deadline {
        Deadline {
            at: Instant::now() + time,
            stop,
        }
    }

    /// `time` from now, for `options`' stop flag.
    fn after(time: Duration, options: &MinimizeOptions) -> Deadline {
        Deadline::new(time, options.stop.clone())
    }

    /// Whether the stop flag was raised.
    pub(crate) fn stopped(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Relaxed))
    }

    /// The stop flag, if any.
    #[cfg_attr(not(feature = "mip"), allow(dead_code))]
    pub(crate) fn stop_flag(&self) -> Option<&AtomicBool> {
        self.stop.as_deref()
    }

    /// Whether the time is up (or the stop flag raised).
    pub(crate) fn passed(&self) -> bool {
        self.stopped() || Instant::now() >= self.at
    }

    /// The time left (none once stopped).
    pub(crate) fn left(&self) -> Duration {
        if self.stopped() {
            Duration::ZERO
        } else {
            self.at.saturating_duration_since(Instant::now())
        }
    }

    /// The same stop flag, at `at`.
    fn at(&self, at: Instant) -> Deadline {
        Deadline {
            at,
            stop: self.stop.clone(),
        }
    }

    /// Halfway between now and this deadline (now if it has passed).
    fn halfway(&self) -> Deadline {
        let now = Instant::now();
        self.at(now + self.at.saturating_duration_since(now) / 2)
    }
}

/// Offers the pool, for every prover node of the proof whose move frees at most
/// `options.exact_max_subtree` nodes (smallest subtree first), the smallest proof that
/// builds on the rest of the proof ([`ExactSearch`]: the positions the proof still uses
/// without this node's move, its ancestors excepted, count one node each), if that is
/// smaller; the node switches to it. A node is searched again only when what its move
/// frees has changed (`tried`). Takes at most half the time left.
fn exact_pass(
    ex: &Extractor<'_, '_>,
    pool: &mut ProofPool,
    dag: &mut Dag,
    tried: &mut HashSet<(u32, u64)>,
    options: &MinimizeOptions,
    deadline: &Deadline,
    report: &mut PoolReport,
) -> Result<(), String> {
    if options.exact_nodes == 0 {
        return Ok(());
    }
    // At most half the time left, so that the other searches always get their turn.
    let deadline = deadline.halfway();
    let started = Instant::now();
    let mut worker = Worker::new(ex.shared, 0);
    let mut exact = ExactSearch::new(&mut worker, ex.prover, options.stop.clone());
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
            let result = exact.smallest(&pos, limit as u32, options.exact_nodes, &mut free);
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
fn pool_passes(
    ex: &mut Extractor<'_, '_>,
    pool: &mut ProofPool,
    dag: &mut Dag,
    options: &MinimizeOptions,
    deadline: &Deadline,
    report: &mut PoolReport,
    progress: &mut dyn FnMut(&MinimizeProgress<'_>),
) -> Result<(), String> {
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
            explore(ex, pool, v, budget, report)?;
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
) -> Result<(), String> {
    let tops: Vec<(u64, u32)> = dag
        .provers_by_size(pool)
        .into_iter()
        .take(options.top_nodes)
        .collect();
    let mut inner = options.clone();
    inner.top_nodes = 0;
    inner.time = options.top_time;
    for (cone, v) in tops {
        if !dag.used(v) {
            continue;
        }
        let pos = *pool.position(v);
        for mv in pos.legal_moves() {
            if deadline.left() <= options.top_time {
                return Ok(());
            }
            if pool.has_move(v, mv) {
                continue;
            }
            let budget = cone
                .saturating_mul(options.top_nodes_per_node)
                .min(options.max_search_nodes)
                .max(options.top_min_budget);
            let Some(found) = prove_as_root(ex, None, &pos.play(mv), budget, report) else {
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
fn deepen(
    ex: &mut Extractor<'_, '_>,
    pool: &mut ProofPool,
    dag: &mut Dag,
    first_explored: HashSet<u32>,
    exact_tried: &mut HashSet<(u32, u64)>,
    options: &MinimizeOptions,
    deadline: &Deadline,
    report: &mut PoolReport,
    progress: &mut dyn FnMut(&MinimizeProgress<'_>),
) -> Result<(), String> {
    let mut per_node = options.deep_nodes_per_node;
    let mut explored = first_explored.clone();
    let mut kicked: HashSet<(u32, u32)> = HashSet::new();
    // The proof changes only by switches: seed again only then.
    let mut seeded_at = None;
    'outer: while !deadline.passed() {
        dag.grow(pool);
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
                explore(ex, pool, u, budget, report)?;
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
    report: &mut PoolReport,
) -> Result<(), String> {
    let pos = *pool.position(u);
    report.explored += 1;
    for mv in pos.legal_moves() {
        if pool.has_move(u, mv) {
            continue;
        }
        if let Some(tree) = prove_as_root(ex, Some(pool), &pos.play(mv), budget, report) {
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
        if self.pool.stub(pos).is_some() && !self.ex.tablebase_win(pos)? {
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
        if self.pool.stub(pos).is_some() && !self.ex.tablebase_win(pos)? {
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
    options.interrupt = ex.stop.clone();
    let shared = ex.solver.shared_for(child, options);
    let mut worker = Extractor::worker_for(&shared, parent_ctx);
    worker.history.push(parent.key());
    let (proof, _, _) = worker.mid(child, child_ctx.key, INF, INF, 0);
    worker.flush();
    (proof == 0, shared.nodes())
}
