//! The minimiser's options ([`MinimizeOptions`]: its budgets and search limits), what it
//! reports ([`MinimizeReport`]) and how it tells its caller how it stands as it goes
//! ([`MinimizeProgress`]).

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use antichess_proof::ProofTree;

use super::dag::Dag;
use super::pool::{PoolReport, ProofPool};
use crate::error::Result;

/// Limits of a minimisation pass.
#[derive(Debug, Clone)]
pub struct MinimizeOptions {
    /// Total time for the pass (`Duration::MAX`: no time limit).
    pub time: Duration,
    /// Positions the minimiser's own searches may evaluate in all (`None`: no limit): a
    /// budget like `time`, but one that no machine's speed changes, so that a minimisation
    /// with it does the same searches and gives the same proof everywhere (see
    /// [`MinimizeOptions::with_work`]). The phases share it as they share the time.
    pub work: Option<u64>,
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
    /// Time for each of those minimisations...
    pub top_time: Duration,
    /// ... and positions (`None`: no limit).
    pub top_work: Option<u64>,
    /// In the pool's last phase, nodes a search may use per node of the subtree it could
    /// improve, in the first round (×4 per round, up to 16 × `max_nodes_per_node`).
    pub deep_nodes_per_node: u64,
    /// Exact searches (smallest proofs of small subtrees that build on the rest of the
    /// proof): the positions one may evaluate (0: none), and the largest weight a node's
    /// move may free for the node to be searched.
    pub exact_nodes: u64,
    pub exact_max_subtree: u64,
    /// The global phase after the passes (`global_phase`; needs the `mip` feature): at
    /// most this long (`None`: no time limit; no global phase unless `global_work` is
    /// set); the other moves' exact searches look for proofs up to `global_slack` nodes
    /// larger than what the node's move frees.
    pub global_time: Option<Duration>,
    /// The global phase's work budget (`None`: none): positions its exact searches may
    /// evaluate...
    pub global_work: Option<u64>,
    /// ... and branch-and-bound nodes each integer program may explore (`None`: no
    /// limit). HiGHS's work at the root node (presolve, cuts, heuristics) has no such
    /// bound: on hard pools only `global_time` ends it.
    pub global_mip_nodes: Option<u64>,
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
            top_work: None,
            exact_nodes: 1_000_000,
            exact_max_subtree: 1_000,
            global_time: None,
            global_work: None,
            global_mip_nodes: None,
            global_slack: 12,
            work: None,
            stop: None,
        }
    }

    /// Defaults for a pass of `positions` evaluated by its searches, with no time limit:
    /// the same result on every machine.
    #[must_use]
    pub fn with_work(positions: u64) -> MinimizeOptions {
        let mut options = MinimizeOptions::new(Duration::MAX);
        options.work = Some(positions);
        options.top_work = Some(positions / 16);
        options
    }

    /// Whether the global phase runs.
    #[must_use]
    pub fn global(&self) -> bool {
        self.global_time.is_some() || self.global_work.is_some() || self.global_mip_nodes.is_some()
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
    pub fn proof(&self) -> Result<ProofTree> {
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
pub(super) fn tell(
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
pub(super) fn tell_tree(progress: &mut dyn FnMut(&MinimizeProgress<'_>), tree: &ProofTree) {
    progress(&MinimizeProgress {
        report: None,
        size: tree.len() as u64,
        current: Current::Tree(tree),
    });
}
