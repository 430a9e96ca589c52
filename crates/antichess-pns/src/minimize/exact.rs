//! Exact minimum proofs of small subtrees: a depth-first branch and bound over proof size
//! (one search with the size limit as its bound, lower bounds kept per position), for the
//! minimiser to offer the pool the smallest proof of a prover position that builds on the
//! rest of the proof.
//!
//! Size is counted as in a proof written as a tree: one node per position, leaves
//! (terminal, tablebase) included, except that a *free* position (one the rest of the
//! proof has already; the caller says which) counts one node and ends the line there, as
//! a reference would. At a prover node the size is one plus the smallest child's, at an
//! opponent node one plus the sum of its children's; sharing inside the new subtree is
//! the pool's business. The lower bound of a position never searched is 1 for a leaf, one
//! plus the number of moves at an opponent node, and at a prover node one plus the least of
//! its children's (each child looked at without the path, so that the bound holds
//! wherever the position occurs); a failed search raises it to the size that failed. These
//! static bounds are kept like the others. A search that runs out of its node budget gives
//! up as a whole.
//!
//! Why one search at the limit and one ply of lookahead at prover nodes: most searches
//! show that nothing smaller than the subtree in place exists, which takes the whole
//! search at the limit whatever came before; iterative deepening from the lower bound
//! (tried first) only repeated the work below it, and a prover node's bound of 2 let every
//! move through. `proof minimize P --exact-max 400 --exact-nodes 20000000` on the
//! 4,541-node proof of 1. e3 g6: 1,421 searches in 12.3 s with 39 million positions
//! before, 1.0 s with 3.2 million after (all finish either way).
//!
//! The terminal tests are the solver's ([`Worker::evaluate`]): a repetition on the path,
//! a dead draw or the lone-bishop rule fail. A bound raised by a repetition may be too high
//! elsewhere; that costs only optimality, since every tree built here is a real proof
//! (its sizes strictly decrease from parent to child, so it has no cycle).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use antichess_core::{Color, Move, Position};
use antichess_proof::{build_with, Expander, ProofTree, Step};

use crate::search::Worker;
use crate::INF;

/// The caller's test of free positions.
pub(crate) type Free<'f> = dyn FnMut(&Position) -> bool + 'f;

/// What is known of a position's smallest proof.
#[derive(Debug, Clone, Copy)]
struct Entry {
    /// A lower bound on the size, or the size itself when `exact`.
    size: u32,
    exact: bool,
    /// At a prover node with an exact size: the move of the smallest proof.
    best: Option<Move>,
}

/// The budget ran out: the search gives up.
struct OutOfBudget;

/// What an exact search ended with.
#[derive(Debug)]
pub(crate) enum Smallest {
    /// The smallest proof (at most the limit).
    Found(ProofTree),
    /// The search finished: no proof has at most the limit's nodes.
    NoneWithin,
    /// The budget ran out first: nothing is known.
    GaveUp,
}

impl Smallest {
    /// The proof, if one was found.
    pub(crate) fn found(self) -> Option<ProofTree> {
        match self {
            Smallest::Found(tree) => Some(tree),
            Smallest::NoneWithin | Smallest::GaveUp => None,
        }
    }
}

/// Exact minimum proofs: one search at a time (what a search learns depends on its free
/// positions, so each starts afresh); the terminal tests and the node count carry over.
pub(crate) struct ExactSearch<'w, 's, 'a> {
    worker: &'w mut Worker<'s, 'a>,
    prover: Color,
    memo: HashMap<u64, Entry>,
    /// Whether each position met is free (asked once per search).
    free: HashMap<u64, bool>,
    /// The position being searched (never free).
    root: u64,
    nodes: u64,
    budget: u64,
    /// Raised, the search under way gives up (checked every 4,096 positions).
    stop: Option<Arc<AtomicBool>>,
}

impl<'w, 's, 'a> ExactSearch<'w, 's, 'a> {
    /// A search whose terminal tests are `worker`'s (its history must be empty); its
    /// searches give up once `stop` is raised.
    pub(crate) fn new(
        worker: &'w mut Worker<'s, 'a>,
        prover: Color,
        stop: Option<Arc<AtomicBool>>,
    ) -> Self {
        ExactSearch {
            worker,
            prover,
            memo: HashMap::new(),
            free: HashMap::new(),
            root: 0,
            nodes: 0,
            budget: 0,
            stop,
        }
    }

    /// Whether `pos` is free (never the root).
    fn is_free(&mut self, pos: &Position, free: &mut Free<'_>) -> bool {
        let key = pos.key();
        key != self.root && *self.free.entry(key).or_insert_with(|| free(pos))
    }

    /// Positions evaluated so far.
    pub(crate) fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The smallest proof of `pos` (sizes as in the module documentation) if it has at
    /// most `limit` nodes and is found within `budget` more positions evaluated; otherwise
    /// whether the search showed that there is none or gave up. The proof ends in a
    /// tablebase leaf at each free position it reaches: a stub for the caller (e.g.
    /// [`super::ProofPool`] with stubs).
    pub(crate) fn smallest(
        &mut self,
        pos: &Position,
        limit: u32,
        budget: u64,
        free: &mut Free<'_>,
    ) -> Smallest {
        self.budget = self.nodes.saturating_add(budget);
        debug_assert!(self.worker.history.is_empty());
        // What was learnt depends on the free positions: start afresh.
        self.memo.clear();
        self.free.clear();
        self.root = pos.key();
        // The search is a branch and bound: what it finds within the limit is the smallest.
        let result = self.search(pos, limit, free);
        self.worker.history.clear();
        match result {
            Err(OutOfBudget) => return Smallest::GaveUp,
            Ok(Err(_)) => return Smallest::NoneWithin,
            Ok(Ok(_)) => {}
        }
        let mut builder = Builder { search: self };
        match build_with(*pos, builder.search.prover, Vec::new(), &mut builder, ()) {
            Ok(tree) => Smallest::Found(tree),
            // Building follows the memo's exact entries, which a search just made.
            Err(_) => Smallest::GaveUp,
        }
    }

    /// The lower bound of a position (its static one if never searched, then kept).
    fn lower_bound(&mut self, pos: &Position, free: &mut Free<'_>) -> u32 {
        if self.is_free(pos, free) {
            return 1;
        }
        if let Some(e) = self.memo.get(&pos.key()) {
            return e.size;
        }
        let (proof, disproof) = self.evaluate(pos);
        let size = if proof == 0 {
            1
        } else if disproof == 0 {
            // Not kept: a repetition depends on the path.
            return INF;
        } else if pos.turn() == self.prover {
            self.prover_bound(pos, free)
        } else {
            1 + proof
        };
        self.memo.insert(
            pos.key(),
            Entry {
                size,
                // A leaf (a terminal or tablebase win) is exact.
                exact: size == 1,
                best: None,
            },
        );
        size
    }

    /// The worker's evaluation, counted.
    fn evaluate(&mut self, pos: &Position) -> (u32, u32) {
        self.nodes += 1;
        self.worker.evaluate(pos)
    }

    /// One plus the least static bound of the children of a prover position (opponent
    /// nodes: 1 for a free or won child, one plus its number of moves for another, none for
    /// a lost one). The children are looked at without the path (no repetition fails them),
    /// so the bound holds wherever the position occurs.
    fn prover_bound(&mut self, pos: &Position, free: &mut Free<'_>) -> u32 {
        let history = std::mem::take(&mut self.worker.history);
        let mut least = INF;
        for &mv in pos.legal_moves().iter() {
            // An opponent node: its static bound needs no lookahead, and is kept for when
            // this node is searched.
            least = least.min(self.lower_bound(&pos.play(mv), free));
            if least == 1 {
                break;
            }
        }
        self.worker.history = history;
        least.saturating_add(1)
    }

    /// `Ok(size)` of the smallest proof if it is at most `bound`, else `Err(lower bound)`
    /// with a lower bound above `bound`. The position's parent is the last entry of the
    /// worker's history.
    fn search(
        &mut self,
        pos: &Position,
        bound: u32,
        free: &mut Free<'_>,
    ) -> Result<Result<u32, u32>, OutOfBudget> {
        let key = pos.key();
        if self.is_free(pos, free) {
            return Ok(if bound >= 1 { Ok(1) } else { Err(1) });
        }
        if let Some(e) = self.memo.get(&key) {
            if e.exact && e.size <= bound {
                return Ok(Ok(e.size));
            }
            if e.size > bound {
                return Ok(Err(e.size));
            }
        }
        self.nodes += 1;
        if self.nodes > self.budget
            || (self.nodes % 4096 == 0
                && self
                    .stop
                    .as_ref()
                    .is_some_and(|f| f.load(Ordering::Relaxed)))
        {
            return Err(OutOfBudget);
        }
        let (proof, disproof) = self.worker.evaluate(pos);
        if proof == 0 {
            self.memo.insert(
                key,
                Entry {
                    size: 1,
                    exact: true,
                    best: None,
                },
            );
            return Ok(if bound >= 1 { Ok(1) } else { Err(1) });
        }
        if disproof == 0 {
            // Not memoised: a repetition depends on the path.
            return Ok(Err(INF));
        }
        self.worker.history.push(key);
        let result = if pos.turn() == self.prover {
            self.prover_node(pos, bound, free)
        } else {
            self.opponent_node(pos, bound, free)
        };
        self.worker.history.pop();
        let result = result?;
        let entry = match result {
            Ok((size, best)) => Entry {
                size,
                exact: true,
                best,
            },
            Err(lb) => Entry {
                size: lb,
                exact: false,
                best: None,
            },
        };
        let e = self.memo.entry(key).or_insert(entry);
        if entry.exact || entry.size > e.size {
            *e = entry;
        }
        Ok(result.map(|(size, _)| size))
    }

    fn prover_node(
        &mut self,
        pos: &Position,
        bound: u32,
        free: &mut Free<'_>,
    ) -> Result<Result<(u32, Option<Move>), u32>, OutOfBudget> {
        let mut children: Vec<(u32, Move, Position)> = pos
            .legal_moves()
            .iter()
            .map(|&mv| {
                let child = pos.play(mv);
                (self.lower_bound(&child, free), mv, child)
            })
            .collect();
        children.sort_by_key(|c| c.0);
        let mut best: Option<(u32, Move)> = None;
        let mut least = INF;
        for (lb, mv, child) in children {
            let cap = best.map_or(bound, |(b, _)| b - 1).min(bound);
            if lb.saturating_add(1) > cap {
                least = least.min(lb);
                continue;
            }
            match self.search(&child, cap - 1, free)? {
                Ok(size) => best = Some((size + 1, mv)),
                Err(lb) => least = least.min(lb),
            }
        }
        Ok(match best {
            Some((size, mv)) => Ok((size, Some(mv))),
            None => Err(least.saturating_add(1)),
        })
    }

    fn opponent_node(
        &mut self,
        pos: &Position,
        bound: u32,
        free: &mut Free<'_>,
    ) -> Result<Result<(u32, Option<Move>), u32>, OutOfBudget> {
        let mut children: Vec<(u32, Position)> = pos
            .legal_moves()
            .iter()
            .map(|&mv| {
                let child = pos.play(mv);
                (self.lower_bound(&child, free), child)
            })
            .collect();
        let total = |children: &[(u32, Position)]| {
            children.iter().fold(1u32, |sum, c| sum.saturating_add(c.0))
        };
        let mut sum = total(&children);
        if sum > bound {
            return Ok(Err(sum));
        }
        // The hardest child first: a failure ends the node soonest.
        children.sort_by_key(|c| std::cmp::Reverse(c.0));
        for i in 0..children.len() {
            let allowed = bound - (sum - children[i].0);
            match self.search(&children[i].1, allowed, free)? {
                Ok(size) => {
                    sum = sum - children[i].0 + size;
                    children[i].0 = size;
                }
                Err(lb) => {
                    children[i].0 = lb;
                    return Ok(Err(total(&children)));
                }
            }
        }
        Ok(Ok((sum, None)))
    }
}

/// Writes the proof the memo holds (every position on it has an exact entry).
struct Builder<'b, 'w, 's, 'a> {
    search: &'b mut ExactSearch<'w, 's, 'a>,
}

impl Builder<'_, '_, '_, '_> {
    /// A leaf or a stub (a free position).
    fn leaf(&self, pos: &Position) -> Result<bool, String> {
        let key = pos.key();
        if key != self.search.root && self.search.free.get(&key) == Some(&true) {
            return Ok(true);
        }
        match self.search.memo.get(&key) {
            Some(e) if e.exact => Ok(e.size == 1),
            _ => Err(format!("no exact proof of {} in the memo", pos.fen())),
        }
    }
}

impl Expander for Builder<'_, '_, '_, '_> {
    type Handle = ();

    fn prover(&mut self, pos: &Position, _: &()) -> Result<Step<()>, String> {
        if self.leaf(pos)? {
            return Ok(Step::TablebaseLeaf);
        }
        match self.search.memo[&pos.key()].best {
            Some(mv) => Ok(Step::Play(mv, ())),
            None => Err(format!("no move recorded for {}", pos.fen())),
        }
    }

    fn opponent(
        &mut self,
        pos: &Position,
        _: &(),
        moves: &[Move],
    ) -> Result<Option<Vec<()>>, String> {
        if self.leaf(pos)? {
            return Ok(None);
        }
        Ok(Some(vec![(); moves.len()]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{random_positions, verified};
    use crate::{SearchOptions, Solver};
    use antichess_core::{Outcome, Rules};
    use antichess_proof::NodeKind;

    /// The smallest tree proof within `depth` plies, every line tried, memoised by position
    /// and depth. Lines are not cut at repetitions: a smallest proof never repeats a
    /// position on a line (the later subtree could stand in for the earlier one).
    fn brute(
        pos: &Position,
        prover: Color,
        depth: u32,
        memo: &mut HashMap<(u64, u32), u32>,
    ) -> u32 {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return if pos.no_move_outcome() == Outcome::Win(prover) {
                1
            } else {
                INF
            };
        }
        if depth == 0 {
            return INF;
        }
        if let Some(&size) = memo.get(&(pos.key(), depth)) {
            return size;
        }
        let sizes = moves
            .iter()
            .map(|&m| brute(&pos.play(m), prover, depth - 1, memo));
        let size = if pos.turn() == prover {
            sizes.min().unwrap_or(INF)
        } else {
            sizes.fold(0u32, u32::saturating_add)
        }
        .saturating_add(1);
        memo.insert((pos.key(), depth), size);
        size
    }

    #[test]
    fn smallest_proofs_agree_with_every_line_on_random_positions() {
        const LIMIT: u32 = 9;
        let (mut found, mut none) = (0, 0);
        for pos in random_positions(100, 3..5) {
            for prover in Color::ALL {
                let expected = brute(&pos, prover, LIMIT, &mut HashMap::new());
                with_search(prover, |exact| {
                    let fen = pos.fen();
                    match exact.smallest(&pos, LIMIT, 10_000_000, &mut none_free()) {
                        Smallest::Found(tree) => {
                            let size = exact.memo[&pos.key()].size;
                            assert_eq!(size, expected, "{fen} prover {prover:?}");
                            assert!(verified(&tree) <= u64::from(size), "{fen}");
                            found += 1;
                        }
                        Smallest::NoneWithin => {
                            assert!(expected > LIMIT, "{fen} prover {prover:?}: {expected}");
                            none += 1;
                        }
                        Smallest::GaveUp => panic!("{fen}: gave up"),
                    }
                });
            }
        }
        // Both outcomes are exercised.
        assert!(found >= 20 && none >= 20, "{found} found, {none} none");
    }

    /// At every point of a search, the root's proof number is less than the size of its
    /// smallest proof written as a tree (an OR leaf counts 1 and an AND leaf its number of
    /// moves, where a proof has the node and a child per move; an OR node takes its least
    /// child and an AND node the sum, each without the node itself; lines with a clock are
    /// keyed by their path, so a repetition never leaks into another line). So a search
    /// whose proof threshold is that size never stops short: it proves. `solve` and
    /// `docs/research/e3-g6.md` read the proof numbers of unknown moves this way. The sizes come
    /// from the exact search, which the tests above check against every line.
    #[test]
    fn root_proof_numbers_never_exceed_the_smallest_proof() {
        const LIMIT: u32 = 40;
        let mut sizes = Vec::new();
        for pos in random_positions(300, 3..7) {
            for prover in Color::ALL {
                with_search(prover, |exact| {
                    let found = exact.smallest(&pos, LIMIT, 2_000_000, &mut none_free());
                    if !matches!(found, Smallest::Found(_)) {
                        return;
                    }
                    let smallest = exact.memo[&pos.key()].size;
                    // The exact search stores nothing in the worker's (fresh) table.
                    let key = exact.worker.root_key(&pos);
                    let (proof, disproof, _) = exact.worker.mid(&pos, key, smallest, INF, 0);
                    assert_eq!(
                        (proof, disproof),
                        (0, INF),
                        "{} prover {prover:?}: smallest proof {smallest}",
                        pos.fen()
                    );
                    sizes.push(smallest);
                });
            }
        }
        // Proofs of many sizes.
        sizes.sort_unstable();
        sizes.dedup();
        assert!(sizes.len() >= 10, "sizes {sizes:?}");
    }

    fn position(fen: &str) -> Position {
        Position::from_fen(fen, Rules::INTERNATIONAL).unwrap()
    }

    /// A search over a table of its own, with no tablebases.
    fn with_search<R>(prover: Color, f: impl FnOnce(&mut ExactSearch<'_, '_, '_>) -> R) -> R {
        let solver = Solver::new(1 << 20, None);
        let pos = Position::start(Rules::INTERNATIONAL);
        let shared = solver.shared_for(&pos, SearchOptions::new(prover));
        let mut worker = Worker::new(&shared, 0);
        f(&mut ExactSearch::new(&mut worker, prover, None))
    }

    #[test]
    fn smallest_proofs_are_the_smallest_trees() {
        // (position, prover, size of its smallest proof written as a tree)
        let cases = [
            ("8/8/p7/8/8/8/P7/8 w - - 0 1", Color::White, Some(3)),
            ("8/8/p7/8/8/8/P7/8 w - - 0 1", Color::Black, None),
            ("8/8/8/8/8/8/1p6/R7 w - - 0 1", Color::White, Some(7)),
            ("8/8/8/8/8/8/1p6/N7 w - - 0 1", Color::Black, None),
            ("8/3p4/8/8/8/8/4P3/8 w - - 0 1", Color::Black, Some(9)),
            ("8/8/2n5/8/8/8/1P6/K7 w - - 0 1", Color::White, Some(5)),
            ("8/8/8/8/8/p7/8/1N6 w - - 0 1", Color::Black, Some(2)),
        ];
        for (fen, prover, expected) in cases {
            let pos = position(fen);
            with_search(prover, |exact| {
                let mut none = |_: &Position| false;
                let found = exact.smallest(&pos, 30, 1_000_000, &mut none);
                // Within a budget this large every search finishes.
                assert!(!matches!(found, Smallest::GaveUp), "{fen}");
                let found = found.found();
                let size = found.as_ref().map(|_| exact.memo[&pos.key()].size);
                assert_eq!(size, expected, "{fen}");
                // The oracle: every line tried, to the depth a proof of that size can have.
                let depth = expected.unwrap_or(8);
                assert_eq!(
                    brute(&pos, prover, depth, &mut HashMap::new()),
                    size.unwrap_or(INF),
                    "{fen}"
                );
                if let (Some(tree), Some(size)) = (found, size) {
                    // Written with sharing, the proof is no larger, and it verifies.
                    assert!(verified(&tree) <= u64::from(size), "{fen}");
                    assert!(matches!(
                        exact.smallest(&pos, size - 1, 1_000_000, &mut none),
                        Smallest::NoneWithin
                    ));
                }
            });
        }
    }

    #[test]
    fn free_positions_end_the_proof_in_stubs() {
        let pos = position("8/3p4/8/8/8/8/4P3/8 w - - 0 1");
        let stub = position("8/8/8/3p4/4P3/8/8/8 w - - 0 2");
        with_search(Color::Black, |exact| {
            let mut free = |p: &Position| p.key() == stub.key();
            let tree = exact
                .smallest(&pos, 30, 1_000_000, &mut free)
                .found()
                .unwrap();
            // 1. e3 d6 2. e4 d5 (stub) and 1. e4 d5 (stub): seven nodes, not nine.
            assert_eq!(exact.memo[&pos.key()].size, 7);
            let mut stubs = 0;
            tree.for_each_position(|i, p, _| {
                if tree.nodes()[i].kind == NodeKind::Tablebase {
                    assert_eq!(p.key(), stub.key());
                    stubs += 1;
                }
                Ok(())
            })
            .unwrap();
            assert!(stubs >= 1);
            // The root is never free, and a budget too small gives up.
            let mut all = |_: &Position| true;
            assert!(matches!(
                exact.smallest(&pos, 30, 1_000_000, &mut all),
                Smallest::Found(_)
            ));
            assert!(matches!(
                exact.smallest(&pos, 30, 2, &mut none_free()),
                Smallest::GaveUp
            ));
        });
    }

    fn none_free() -> impl FnMut(&Position) -> bool {
        |_| false
    }
}
