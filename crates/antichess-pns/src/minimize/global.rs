//! Global choice: the smallest proof a [`ProofPool`] can make, found exactly as an integer
//! program (HiGHS, behind the `mip` feature) instead of by one switch at a time.
//!
//! The pool's local passes and kicks change one prover node's move at a time, so a better
//! proof that needs several changes at once, each paying only through positions the others
//! share, stays out of their reach. The integer program sees every combination:
//!
//! - `x_v` in {0, 1} for each expanded position `v` the root can reach through the pool's
//!   proved moves: `v` is part of the proof; the root's is 1;
//! - `y_vk` in {0, 1} for each proved move `k` of a prover position: the move chosen;
//! - an opponent position in the proof has all its children in it (`x_c >= x_v`); a prover
//!   position in the proof has exactly one move chosen (`sum_k y_vk = x_v`) whose child is
//!   in it (`x_c >= y_vk`); a position the pool has no proof of is in no proof;
//! - minimise `sum w(v) x_v`, the pool's size model (a proof file has one more node).
//!
//! A choice may close a cycle (positions that "prove" each other through reversible
//! moves); such cycles are cut lazily: each cycle of the solution adds the constraint that
//! not all of its edges are chosen (`sum of z over its edges <= length - 1`, with `z` the
//! move's `y` at a prover position and `x` at an opponent position), and the program is
//! solved again until the solution has none. (Ordering every position on a cycle of the
//! pool's graph up front, Miller-Tucker-Zemlin, works too but adds a column per such
//! position and big-M rows; cycles are rare in a smallest proof.)
//!
//! The current choice is given to the solver as a starting solution, so a run cut short by
//! its time limit (or by the stop flag, through HiGHS's interrupt callback) still returns a
//! proof no larger than the current one; the result says whether it is optimal over the
//! pool. How hard the program is depends on how much the
//! alternatives share: a fractional choice pays for a position shared by two moves only
//! once, in part. Where the alternatives share little the relaxation is nearly tight: the
//! 446,414 positions a 10-minute minimisation of the 1. e3 g6 proof reaches (678,007
//! columns) solve to optimality in about 20 seconds. Where they share much, as where a
//! king walks among pawns (the 8,939-position pool of the CLI's test), 60 seconds leave a
//! bound of 44 against a proof of 89: there the time limit decides.

use std::time::Instant;

use super::dag::Dag;
use super::deadline::Deadline;
use super::pool::{ProofPool, View, TERMINAL};
use crate::error::Result;

/// What one global choice did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct GlobalOutcome {
    /// Positions in the integer program (expanded ones reachable from the root).
    pub positions: u64,
    /// Size of the proof chosen (file nodes), and the solver's lower bound on the smallest
    /// proof the pool can make.
    pub size: u64,
    pub bound: u64,
    /// Whether the solver proved the choice optimal over the pool.
    pub optimal: bool,
    pub millis: u64,
    /// Cycles cut (solutions that were not proofs, solved again).
    pub cuts: u64,
    /// The solver failed (the proof is then unchanged).
    pub failed: bool,
}

/// Whether this build can make a global choice (the `mip` feature).
pub const GLOBAL_CHOICE: bool = cfg!(feature = "mip");

/// No node: an index that is not in the program.
const NONE: u32 = u32::MAX;

/// The integer program's graph: the expanded positions reachable from the root through
/// proved moves, with local indices.
struct Graph {
    /// Pool node of each local index.
    nodes: Vec<u32>,
    /// Local index of each pool node (`NONE` if not in the program).
    local: Vec<u32>,
    /// Per opponent node, the local indices of its children that are positions of the
    /// program (a leaf or terminal child needs no column); `usable[i]` is false where a
    /// child has no proof, or a prover node has no move to choose.
    children: Vec<Vec<u32>>,
    usable: Vec<bool>,
    /// Per prover node, the moves that can be chosen (children proved): the index of the
    /// move in the pool and its child's local index (`None` for a leaf or terminal).
    moves: Vec<Vec<(u32, Option<u32>)>>,
    prover: Vec<bool>,
    weight: Vec<u64>,
}

impl Graph {
    fn new(pool: &ProofPool, root: u32) -> Graph {
        let mut g = Graph {
            nodes: Vec::new(),
            local: vec![NONE; pool.len()],
            children: Vec::new(),
            usable: Vec::new(),
            moves: Vec::new(),
            prover: Vec::new(),
            weight: Vec::new(),
        };
        let expanded = |v: u32| matches!(pool.view(v), View::Prover(_) | View::Opponent(_));
        if !expanded(root) {
            // A tablebase leaf at the root: nothing to choose.
            return g;
        }
        let mut stack = vec![root];
        g.local[root as usize] = 0;
        g.nodes.push(root);
        while let Some(v) = stack.pop() {
            let mut kids = Vec::new();
            let mut moves = Vec::new();
            let mut usable = true;
            // Err: no proof; Ok(None): a leaf or terminal; Ok(Some(i)): position i.
            let mut visit = |c: u32, g: &mut Graph| -> Result<Option<u32>, ()> {
                if c == TERMINAL || matches!(pool.view(c), View::Leaf) {
                    return Ok(None);
                }
                if !expanded(c) {
                    return Err(());
                }
                if g.local[c as usize] == NONE {
                    g.local[c as usize] = g.nodes.len() as u32;
                    g.nodes.push(c);
                    stack.push(c);
                }
                Ok(Some(g.local[c as usize]))
            };
            let (prover, weight) = match pool.view(v) {
                View::Prover(list) => {
                    for (k, &(_, c)) in list.iter().enumerate() {
                        if let Ok(child) = visit(c, &mut g) {
                            moves.push((k as u32, child));
                        }
                    }
                    usable = !moves.is_empty();
                    (true, 1)
                }
                View::Opponent(list) => {
                    for &c in list {
                        match visit(c, &mut g) {
                            Ok(Some(child)) => kids.push(child),
                            Ok(None) => {}
                            Err(()) => usable = false,
                        }
                    }
                    (false, list.len() as u64)
                }
                View::Leaf | View::Unproved => unreachable!("only expanded positions are pushed"),
            };
            let i = g.local[v as usize] as usize;
            if g.children.len() <= i {
                g.children.resize_with(i + 1, Vec::new);
                g.moves.resize_with(i + 1, Vec::new);
                g.usable.resize(i + 1, false);
                g.prover.resize(i + 1, false);
                g.weight.resize(i + 1, 0);
            }
            g.children[i] = kids;
            g.moves[i] = moves;
            g.usable[i] = usable;
            g.prover[i] = prover;
            g.weight[i] = weight;
        }
        g
    }

    fn len(&self) -> usize {
        self.nodes.len()
    }
}

/// The smallest proof the pool can make, by `deadline` (the solver stops at its time or
/// when its stop flag is raised, with the best proof it has) and within `max_nodes`
/// branch-and-bound nodes (`None`: no limit): replaces `dag` by it when it is smaller. Errors only if the feature is missing; if the solver fails, the outcome says
/// so and the proof is unchanged.
pub(crate) fn choose(
    pool: &ProofPool,
    dag: &mut Dag,
    deadline: &Deadline,
    max_nodes: Option<u64>,
) -> Result<GlobalOutcome> {
    let started = Instant::now();
    let graph = Graph::new(pool, dag.root());
    if graph.len() == 0 {
        return Ok(GlobalOutcome {
            size: dag.size(),
            bound: dag.size(),
            optimal: true,
            ..GlobalOutcome::default()
        });
    }
    let mut outcome = solve(pool, dag, &graph, deadline, max_nodes)?;
    outcome.positions = graph.len() as u64;
    outcome.millis = started.elapsed().as_millis() as u64;
    Ok(outcome)
}

#[cfg(not(feature = "mip"))]
fn solve(
    _pool: &ProofPool,
    _dag: &mut Dag,
    _graph: &Graph,
    _deadline: &Deadline,
    _max_nodes: Option<u64>,
) -> Result<GlobalOutcome> {
    Err(crate::error::PnsError::Mismatch(
        "this build has no integer-programming solver: build with `--features mip` \
         (HiGHS; needs cmake and a C++ compiler)"
            .into(),
    ))
}

#[cfg(feature = "mip")]
fn solve(
    pool: &ProofPool,
    dag: &mut Dag,
    graph: &Graph,
    deadline: &Deadline,
    max_nodes: Option<u64>,
) -> Result<GlobalOutcome> {
    use highs::{HighsModelStatus, HighsSolutionStatus, Model, RowProblem, Sense};

    let n = graph.len();
    let mut problem = RowProblem::default();
    // Columns: x per node, then y per usable move.
    let x: Vec<_> = (0..n)
        .map(|i| {
            let cost = graph.weight[i] as f64;
            let low = if i == 0 { 1.0 } else { 0.0 };
            let high = if graph.usable[i] { 1.0 } else { 0.0 };
            problem.add_integer_column(cost, low..=high)
        })
        .collect();
    let mut y_of: Vec<Vec<(u32, highs::Col)>> = vec![Vec::new(); n];
    for i in 0..n {
        if graph.prover[i] {
            let mut one = vec![(x[i], -1.0)];
            for &(k, child) in &graph.moves[i] {
                let y = problem.add_integer_column(0.0, 0.0..=1.0);
                y_of[i].push((k, y));
                one.push((y, 1.0));
                if let Some(c) = child {
                    problem.add_row(..=0.0, [(y, 1.0), (x[c as usize], -1.0)]);
                }
            }
            problem.add_row(0.0..=0.0, one);
        } else {
            for &c in &graph.children[i] {
                problem.add_row(..=0.0, [(x[i], 1.0), (x[c as usize], -1.0)]);
            }
        }
    }
    let column_count = problem.num_cols();
    let mut outcome = GlobalOutcome {
        size: dag.size(),
        ..GlobalOutcome::default()
    };
    // The current choice as a starting solution.
    let mut start = vec![0.0; column_count];
    for v in dag.used_nodes() {
        let i = graph.local[v as usize];
        if i == NONE {
            continue;
        }
        let i = i as usize;
        start[x[i].index()] = 1.0;
        if graph.prover[i] {
            let k = dag.choice[v as usize];
            if let Some(&(_, y)) = y_of[i].iter().find(|&&(kk, _)| kk == k) {
                start[y.index()] = 1.0;
            }
        }
    }
    // The column of the edge from pool node `v` along the current choice: the chosen
    // move's y at a prover node, x at an opponent node (all its edges are taken).
    let edge_column = |v: u32, choice: &[u32]| -> Option<highs::Col> {
        let i = graph.local[v as usize] as usize;
        if graph.prover[i] {
            let k = choice[v as usize];
            y_of[i].iter().find(|&&(kk, _)| kk == k).map(|&(_, y)| y)
        } else {
            Some(x[i])
        }
    };
    let mut model = problem.optimise(Sense::Minimise);
    loop {
        if deadline.stopped() {
            return Ok(outcome);
        }
        model.make_quiet();
        if let Some(left) = deadline.left() {
            model.set_option("time_limit", left.as_secs_f64().max(1.0));
        }
        if let Some(nodes) = max_nodes {
            // A budget the same on every machine.
            model.set_option("mip_max_nodes", nodes.clamp(1, i32::MAX as u64) as i32);
        }
        interrupt::install(&mut model, deadline);
        model.set_option("mip_rel_gap", 0.0);
        model.set_option("mip_abs_gap", 0.0);
        // A starting solution the solver rejects only costs the warm start.
        let _ = model.try_set_solution(Some(&start), None, None, None);
        let Ok(solved) = model.try_solve() else {
            outcome.failed = true;
            return Ok(outcome);
        };
        let bound = solved
            .double_info_value(c"mip_dual_bound")
            .unwrap_or(0.0)
            .max(0.0);
        // The pool's size model counts one node more than the objective (the root's edge).
        outcome.bound = (bound - 1e-6).ceil() as u64 + 1;
        outcome.optimal = solved.status() == HighsModelStatus::Optimal;
        if solved.primal_solution_status() != HighsSolutionStatus::Feasible {
            outcome.optimal = false;
            return Ok(outcome);
        }
        let values = solved.get_solution();
        let values = values.columns();
        let mut choice = dag.choice.clone();
        for i in 0..n {
            if graph.prover[i] && values[x[i].index()] > 0.5 {
                if let Some(&(k, _)) = y_of[i]
                    .iter()
                    .max_by(|a, b| values[a.1.index()].total_cmp(&values[b.1.index()]))
                {
                    choice[graph.nodes[i] as usize] = k;
                }
            }
        }
        let candidate = Dag::new(pool, dag.root(), choice);
        let cycles = candidate.cycles(pool, 64);
        if cycles.is_empty() {
            if candidate.size() < dag.size() {
                outcome.size = candidate.size();
                *dag = candidate;
            }
            return Ok(outcome);
        }
        // Not a proof: cut its cycles and solve again (the bound holds for the cut program
        // too, but the choice is not known to be optimal until a solution has no cycle).
        outcome.optimal = false;
        if deadline.passed() {
            return Ok(outcome);
        }
        model = Model::from(solved);
        for cycle in cycles {
            let edges: Option<Vec<(highs::Col, f64)>> = cycle
                .iter()
                .map(|&v| edge_column(v, &candidate.choice).map(|c| (c, 1.0)))
                .collect();
            if let Some(edges) = edges {
                model.add_row(..=(edges.len() as f64 - 1.0), edges);
                outcome.cuts += 1;
            }
        }
    }
}

/// Ctrl-C for HiGHS: a callback that asks the solver to stop once the deadline's stop flag
/// is raised (it then returns its best solution, as at its time limit).
#[cfg(feature = "mip")]
mod interrupt {
    use std::ffi::{c_char, c_int, c_void};
    use std::sync::atomic::{AtomicBool, Ordering};

    use highs_sys::{
        kHighsCallbackIpmInterrupt, kHighsCallbackMipInterrupt, kHighsCallbackSimplexInterrupt,
        HighsCallbackDataIn, HighsCallbackDataOut, Highs_setCallback, Highs_startCallback,
    };

    use super::super::deadline::Deadline;

    /// Called by HiGHS at its interrupt points; `flag` is the stop flag given to
    /// [`install`].
    unsafe extern "C" fn check(
        _kind: c_int,
        _message: *const c_char,
        _out: *const HighsCallbackDataOut,
        data_in: *mut HighsCallbackDataIn,
        flag: *mut c_void,
    ) {
        if data_in.is_null() || flag.is_null() {
            return;
        }
        // SAFETY: `flag` is the `AtomicBool` of the deadline's `Arc`, which outlives the
        // solve (see `install`); `data_in` is HiGHS's, valid during the call.
        unsafe {
            if (*flag.cast::<AtomicBool>()).load(Ordering::Relaxed) {
                (*data_in).user_interrupt = 1;
            }
        }
    }

    /// Makes `model`'s next solve stop when `deadline`'s stop flag is raised. The flag must
    /// outlive the solve: the caller keeps `deadline` borrowed across it.
    pub(super) fn install(model: &mut highs::Model, deadline: &Deadline) {
        let Some(flag) = deadline.stop_flag() else {
            return;
        };
        let ptr = model.as_mut_ptr();
        // SAFETY: `ptr` is the model's live HiGHS instance; the flag pointer stays valid
        // while the caller's `deadline` (which holds the `Arc`) is borrowed.
        unsafe {
            let data = std::ptr::from_ref(flag).cast_mut().cast::<c_void>();
            Highs_setCallback(ptr, Some(check), data);
            for kind in [
                kHighsCallbackMipInterrupt,
                kHighsCallbackSimplexInterrupt,
                kHighsCallbackIpmInterrupt,
            ] {
                Highs_startCallback(ptr, kind);
            }
        }
    }
}

#[cfg(all(test, feature = "mip"))]
mod tests {
    use super::*;
    use crate::testing::{random_positions, verified};
    use crate::{extract_proof, SearchOptions, SearchStatus, Solver};
    use antichess_core::{Color, Position};
    use antichess_proof::NodeKind;
    use std::time::Duration;

    /// A pool with choices: the first proof of `pos`, and at each of its prover positions a
    /// proof of every other move the solver proves (each on its own).
    fn rich_pool(solver: &Solver<'_>, pos: &Position, prover: Color) -> Option<ProofPool> {
        let mut options = SearchOptions::new(prover);
        options.max_nodes = Some(100_000);
        let prove = |p: &Position| {
            let result = solver.search(p, &options, &mut |_| {});
            if result.status != SearchStatus::Proved {
                return None;
            }
            extract_proof(solver, p, &[], &options)
                .ok()
                .map(|(tree, _)| tree)
        };
        let first = prove(pos)?;
        let mut pool = ProofPool::new(*pos, prover);
        pool.add(&first).unwrap();
        let nodes = first.nodes();
        let mut provers = Vec::new();
        first
            .for_each_position(|i, p, _| {
                if nodes[i].kind == NodeKind::Prover {
                    provers.push(*p);
                }
                Ok(())
            })
            .unwrap();
        for p in provers {
            for &mv in p.legal_moves().iter() {
                let child = p.play(mv);
                if pool.has_move(pool.id(&p).unwrap(), mv) || child.legal_moves().is_empty() {
                    continue;
                }
                if let Some(tree) = prove(&child) {
                    let handle = pool.add_tree(&tree, false).unwrap();
                    pool.link(&p, mv, handle);
                }
            }
        }
        Some(pool)
    }

    /// The smallest proof the pool can make, every combination of moves tried (`None` if
    /// there are more than `limit`).
    fn brute(pool: &ProofPool, root: u32, limit: usize) -> Option<u64> {
        let graph = Graph::new(pool, root);
        let multi: Vec<(u32, u32)> = (0..graph.len())
            .filter(|&i| graph.prover[i] && graph.moves[i].len() > 1)
            .map(|i| (graph.nodes[i], graph.moves[i].len() as u32))
            .collect();
        let combos = multi
            .iter()
            .try_fold(1usize, |n, &(_, k)| n.checked_mul(k as usize))?;
        if combos > limit {
            return None;
        }
        let mut choice = vec![0u32; pool.len()];
        for i in 0..graph.len() {
            if graph.prover[i] {
                choice[graph.nodes[i] as usize] = graph.moves[i][0].0;
            }
        }
        let local = |v: u32| graph.local[v as usize] as usize;
        let mut best = u64::MAX;
        for mut code in 0..combos {
            for &(v, k) in &multi {
                choice[v as usize] = graph.moves[local(v)][code % k as usize].0;
                code /= k as usize;
            }
            let dag = Dag::new(pool, root, choice.clone());
            if dag.cycles(pool, 1).is_empty() {
                best = best.min(dag.size());
            }
        }
        Some(best)
    }

    #[test]
    fn the_global_choice_is_the_smallest_proof_the_pool_can_make() {
        let solver = Solver::new(16 << 20, None);
        let (mut compared, mut beat_local, mut cyclic) = (0, 0, 0);
        for pos in random_positions(120, 4..7) {
            for prover in Color::ALL {
                let Some(pool) = rich_pool(&solver, &pos, prover) else {
                    continue;
                };
                let root = pool.root_node().unwrap();
                let Some(expected) = brute(&pool, root, 20_000) else {
                    continue;
                };
                let fen = pos.fen();
                // From the first choices, and from the local passes' best.
                let mut dag = Dag::new(&pool, root, vec![0; pool.len()]);
                let first = dag.size();
                let outcome = choose(
                    &pool,
                    &mut dag,
                    &Deadline::new(Some(Duration::from_secs(60)), None, None),
                    None,
                )
                .unwrap();
                assert!(outcome.optimal, "{fen} {prover:?}");
                if outcome.cuts > 0 {
                    cyclic += 1;
                }
                assert_eq!(dag.size(), expected.min(first), "{fen} {prover:?}");
                assert_eq!(dag.size(), expected, "{fen} {prover:?}: {first} at first");
                assert_eq!(outcome.bound, expected, "{fen} {prover:?}");
                let tree = pool.build_choice(&dag.choice, Vec::new()).unwrap();
                assert_eq!(verified(&tree), expected, "{fen} {prover:?}");
                let mut passes = Dag::new(&pool, root, vec![0; pool.len()]);
                passes.local_passes(&pool);
                if passes.size() > expected {
                    beat_local += 1;
                }
                compared += 1;
            }
        }
        assert!(compared >= 30, "{compared} pools compared");
        eprintln!("{compared} pools, {beat_local} smaller than the local passes, {cyclic} with cycles cut");
    }
}
