//! Depth-first proof-number search (df-pn) with the 1+ε threshold trick.
//!
//! The search proves a win for the *prover*: OR nodes are the prover's moves, AND nodes
//! the opponent's. A draw is a failure for the prover, so a proof never relies on a draw
//! and repetitions need no special scoring beyond "the prover failed".
//!
//! **Numbers.** Proof and disproof numbers are `u32`; [`INF`] marks a solved side. A new
//! node starts from mobility: at an OR node proof number 1 and disproof number = number of
//! legal moves, at an AND node the reverse. Sums saturate below `INF`.
//!
//! **Terminal tests**, cheapest first: no legal move (scored by the rules), a tablebase
//! position (up to the tablebase's complete unit count), a position repeated on the
//! current path (since the last irreversible move), the dead draw of opposite-coloured
//! bishops, and the lone opposite-bishop rule (the opponent's only piece is a bishop and
//! the prover has a bishop on the other square colour, which can never capture it or be
//! captured by it: counted as a failure for the prover — sound, it can only lose proofs).
//!
//! **Transpositions.** Nodes are stored in the transposition table under a *path key*:
//! after an irreversible move (capture or pawn move; halfmove clock 0) the path key is the
//! position's Zobrist key, so such positions are shared by every move order; otherwise it
//! hashes the parent's path key with the position's key, so it identifies the position
//! together with the reversible moves since the last irreversible one. A node's value then
//! depends only on its key even though repetitions are path-dependent (no graph-history
//! interaction), at the price of fewer transpositions between reversible move orders.
//! (Keying every position by its key alone was measured and not kept: a failure that rests
//! on a repetition can then be neither stored nor found again cheaply, and a stored proof
//! need not be one on another path; docs/research/not-kept.md gives the figures.)
//!
//! **Threads.** Several workers (`worker.rs`) search the same root over one shared table;
//! they differ in how they break ties between equally good children, so they tend to
//! explore different parts of the tree and share what they prove through the table.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use antichess_core::{Color, Move, Position};
use antichess_tb::Tablebase;

use crate::missing::{MissingTable, MissingTotals};
pub use crate::options::{MoveNumbers, SearchOptions, INF};
use crate::tt::TranspositionTable;
use crate::worker::{Child, Gate};
pub(crate) use crate::worker::{Shared, Worker};

/// How many moves [`Solver::live_root_numbers`] follows down from the root.
const LIVE_PLIES: usize = 256;

/// The outcome of a search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchStatus {
    /// The prover wins.
    Proved,
    /// The prover cannot win (loses or draws, or the lone-bishop rule applies).
    Disproved,
    /// The budget ran out first.
    Unknown,
}

impl SearchStatus {
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            SearchStatus::Proved => "proved",
            SearchStatus::Disproved => "disproved",
            SearchStatus::Unknown => "unknown",
        }
    }
}

/// A node's numbers as the table holds them, and those of its moves.
#[derive(Debug, Clone)]
pub struct NodeNumbers {
    pub proof: u32,
    pub disproof: u32,
    /// Positions searched below the node.
    pub work: u32,
    pub moves: Vec<MoveNumbers>,
}

/// What a search returns: always the root's numbers and those of every root move.
#[derive(Debug, Clone)]
pub struct SearchResult {
    pub status: SearchStatus,
    pub proof: u32,
    pub disproof: u32,
    pub moves: Vec<MoveNumbers>,
    /// Positions evaluated (each generated child counts once; transposition hits do not).
    pub nodes: u64,
    /// Nodes expanded (children generated).
    pub expansions: u64,
    pub elapsed: Duration,
    /// Materials met without a table (up to `record_missing_units` units), most
    /// positions first.
    pub missing_tables: Vec<MissingTable>,
}

/// Progress reported while searching (about once a second).
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    pub proof: u32,
    pub disproof: u32,
    pub nodes: u64,
    pub elapsed: Duration,
    pub tt_usage: f64,
}

/// A solver: a transposition table and optional tablebases, reused across searches.
#[derive(Debug)]
pub struct Solver<'a> {
    tt: Arc<TranspositionTable>,
    tablebase: Option<&'a Tablebase>,
}

/// Stack size of search threads (deep proofs recurse deeply).
const STACK_BYTES: usize = 512 << 20;

impl<'a> Solver<'a> {
    /// A solver with a table of `hash_bytes` and the given tablebases.
    ///
    /// # Panics
    /// If the table's memory cannot be reserved ([`Solver::try_new`] says so instead).
    #[must_use]
    pub fn new(hash_bytes: usize, tablebase: Option<&'a Tablebase>) -> Solver<'a> {
        Solver {
            tt: Arc::new(TranspositionTable::new(hash_bytes)),
            tablebase,
        }
    }

    /// As [`Solver::new`], but a table the system cannot reserve is an error.
    ///
    /// # Errors
    /// When `hash_bytes` of memory cannot be reserved; the message names the size.
    pub fn try_new(
        hash_bytes: usize,
        tablebase: Option<&'a Tablebase>,
    ) -> Result<Solver<'a>, crate::error::PnsError> {
        Ok(Solver {
            tt: Arc::new(TranspositionTable::try_new(hash_bytes)?),
            tablebase,
        })
    }

    #[must_use]
    pub fn table(&self) -> &TranspositionTable {
        &self.tt
    }

    #[must_use]
    pub fn tablebase(&self) -> Option<&'a Tablebase> {
        self.tablebase
    }

    /// Searches `root` within the options' budget. `progress` is called about once a
    /// second from the calling thread.
    pub fn search(
        &self,
        root: &Position,
        options: &SearchOptions,
        progress: &mut dyn FnMut(Progress),
    ) -> SearchResult {
        let shared = self.shared_for(root, options.clone());
        let threads = options.threads.max(1);
        shared
            .gate
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .running = threads;
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|id| {
                    let shared = &shared;
                    std::thread::Builder::new()
                        .stack_size(STACK_BYTES)
                        .spawn_scoped(scope, move || {
                            let mut worker = Worker::new(shared, id as u64);
                            worker.counted = true;
                            let key = worker.root_key(&shared.root);
                            let (p, d, _) = worker.mid(&shared.root, key, INF, INF, 0);
                            worker.flush();
                            if p == 0 || d == 0 {
                                shared.stop.store(true, Relaxed);
                            }
                        })
                        .expect("spawn search thread")
                })
                .collect();
            let mut last = Instant::now();
            // Short searches (the book runs many) should not wait long for their end.
            let mut nap = Duration::from_micros(250);
            while !handles.iter().all(|h| h.is_finished()) {
                std::thread::sleep(nap);
                nap = (nap * 2).min(Duration::from_millis(20));
                if last.elapsed() >= Duration::from_secs(1) {
                    last = Instant::now();
                    let (proof, disproof) = self.live_root_numbers(root, &shared);
                    progress(Progress {
                        proof,
                        disproof,
                        nodes: shared.nodes.load(Relaxed),
                        elapsed: shared.start.elapsed(),
                        tt_usage: self.tt.usage(),
                    });
                }
            }
            shared.stop.store(true, Relaxed);
            for h in handles {
                let _ = h.join();
            }
        });
        self.result(root, &shared)
    }

    /// Shared state for the workers of a search, or for a helper worker (proof extraction,
    /// main line; their options carry no limits).
    pub(crate) fn shared_for(&self, root: &Position, options: SearchOptions) -> Shared<'_> {
        Shared {
            root: *root,
            options,
            tt: &self.tt,
            tablebase: self.tablebase,
            stop: AtomicBool::new(false),
            nodes: AtomicU64::new(0),
            expansions: AtomicU64::new(0),
            missing: Mutex::new(MissingTotals::default()),
            start: Instant::now(),
            gate: Mutex::new(Gate::default()),
            gate_open: Condvar::new(),
        }
    }

    /// The root's numbers while the search runs. A node's table entry is written only when
    /// the search returns from it, so the root's entry is stale, and so is the entry of the
    /// child being searched below each node of the search's path. The numbers are
    /// therefore combined from the children's entries (children the table does not know
    /// are evaluated) along the path the first thread follows, from the bottom up: at each
    /// node, the child it chooses (the one with the least proof number at the prover's
    /// nodes, disproof number at the opponent's) counts with the numbers of its own
    /// children, and so on down. The walk goes through a node's only unsolved child always
    /// (a forced move, or the last move not yet refuted or proved the other way: the node
    /// passes its thresholds on unchanged, so that child may not be in the table yet); into
    /// a chosen child among several only if the table has it (else the search has not
    /// expanded it, and its evaluation is what the search counts). It stops at a solved
    /// node, a leaf, or after [`LIVE_PLIES`] moves.
    fn live_root_numbers(&self, root: &Position, shared: &Shared<'_>) -> (u32, u32) {
        let mut worker = Worker::new(shared, 0);
        let mut pos = *root;
        let mut key = worker.root_key(root);
        // The nodes walked through: their children and the one followed.
        let mut path: Vec<(Vec<Child>, usize, bool)> = Vec::new();
        let mut numbers = loop {
            if let Some(e) = self.tt.get(key) {
                if e.proof == 0 || e.disproof == 0 {
                    break (e.proof, e.disproof);
                }
            }
            worker.history.push(pos.key());
            let mut kids = Vec::new();
            worker.expand(&pos, key, &mut kids);
            if kids.is_empty() {
                worker.history.pop();
                break worker.evaluate(&pos);
            }
            let or_node = pos.turn() == shared.options.prover;
            let numbers = Worker::combine(&kids, or_node);
            if numbers.0 == 0 || numbers.1 == 0 || path.len() == LIVE_PLIES {
                break numbers;
            }
            let mut unsolved = kids.iter().filter(|c| c.proof != 0 && c.disproof != 0);
            let only = unsolved.next().is_some() && unsolved.next().is_none();
            // Worker 0 breaks ties as the first thread does.
            let (next, _) = worker.select(&kids, or_node, key);
            if !only && self.tt.get(kids[next].key).is_none() {
                break numbers;
            }
            (pos, key) = (kids[next].pos, kids[next].key);
            path.push((kids, next, or_node));
        };
        while let Some((mut kids, next, or_node)) = path.pop() {
            (kids[next].proof, kids[next].disproof) = numbers;
            numbers = Worker::combine(&kids, or_node);
        }
        numbers
    }

    fn result(&self, root: &Position, shared: &Shared<'_>) -> SearchResult {
        let missing_tables = shared
            .missing
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .sorted();
        let mut worker = Worker::new(shared, 0);
        let key = worker.root_key(root);
        let mut kids = Vec::new();
        worker.history.push(root.key());
        worker.expand(root, key, &mut kids);
        let or_node = root.turn() == shared.options.prover;
        let (mut proof, mut disproof) = match self.tt.get(key) {
            Some(e) => (e.proof, e.disproof),
            None => Worker::combine(&kids, or_node),
        };
        if kids.is_empty() {
            // The root itself is terminal.
            let (p, d) = {
                worker.history.pop();
                worker.evaluate(root)
            };
            proof = p;
            disproof = d;
        }
        let status = if proof == 0 {
            SearchStatus::Proved
        } else if disproof == 0 {
            SearchStatus::Disproved
        } else {
            SearchStatus::Unknown
        };
        SearchResult {
            status,
            proof,
            disproof,
            moves: kids.iter().map(Child::numbers).collect(),
            nodes: shared.nodes.load(Relaxed),
            expansions: shared.expansions.load(Relaxed),
            elapsed: shared.start.elapsed(),
            missing_tables,
        }
    }

    /// The numbers the table holds for the node reached from `root` by `line` (a search
    /// root with the same prover must have been searched), and those of each of its moves;
    /// children the table does not know are evaluated (terminal tests, else mobility).
    /// `None` if the table does not know the node or a move of `line` is illegal.
    #[must_use]
    pub fn node_numbers(
        &self,
        root: &Position,
        line: &[Move],
        prover: Color,
    ) -> Option<NodeNumbers> {
        let mut options = SearchOptions::new(prover);
        options.tablebase_units = self.tablebase.map_or(0, Tablebase::max_units);
        let shared = self.shared_for(root, options);
        let mut worker = Worker::new(&shared, 0);
        let mut pos = *root;
        let mut key = worker.root_key(root);
        for &mv in line {
            if !pos.legal_moves().contains(&mv) {
                return None;
            }
            worker.history.push(pos.key());
            pos = pos.play(mv);
            key = worker.child_key(key, &pos);
        }
        let entry = self.tt.get(key)?;
        let mut kids = Vec::new();
        worker.history.push(pos.key());
        worker.expand(&pos, key, &mut kids);
        Some(NodeNumbers {
            proof: entry.proof,
            disproof: entry.disproof,
            work: entry.work,
            moves: kids.iter().map(Child::numbers).collect(),
        })
    }

    /// The most interesting line from `root`: at the prover's turn the most proving move,
    /// at the opponent's the most resistant one, while the table knows the positions.
    #[must_use]
    pub fn main_line(&self, root: &Position, prover: Color, max_plies: usize) -> Vec<Move> {
        let shared = self.shared_for(root, SearchOptions::new(prover));
        let worker = Worker::new(&shared, 0);
        let mut line = Vec::new();
        let mut pos = *root;
        let mut key = worker.root_key(root);
        let mut seen = vec![pos.key()];
        while line.len() < max_plies {
            // (move, child, child's table key, ordering score)
            type Candidate = (Move, Position, u64, (u32, u32, u32));
            let mut best: Option<Candidate> = None;
            for mv in pos.legal_moves() {
                let child = pos.play(mv);
                let ckey = worker.child_key(key, &child);
                let Some(e) = self.tt.get(ckey) else { continue };
                // Prover: smallest proof number, then least work; opponent: smallest
                // disproof number, then most work.
                let score = if pos.turn() == prover {
                    (e.proof, 0, e.work)
                } else {
                    (e.disproof, u32::MAX - e.work, 0)
                };
                if best.as_ref().is_none_or(|b| score < b.3) {
                    best = Some((mv, child, ckey, score));
                }
            }
            let Some((mv, child, ckey, _)) = best else {
                break;
            };
            if seen.contains(&child.key()) {
                break;
            }
            seen.push(child.key());
            line.push(mv);
            pos = child;
            key = ckey;
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tt::TtEntry;
    use crate::worker::{add, child_thresholds, lowest_two, MAX_FINITE};

    /// `lowest_two` finds what a scan in the order `offset`, `offset + 1`, ... (modulo the
    /// count) finds: the first child with the lowest value, and the lowest of the others'.
    /// Values from a small range, so that ties (which decide the threads' different paths)
    /// are common.
    #[test]
    fn lowest_two_scans_from_the_offset() {
        let mut seed = 0x1234_5678_9abc_def0_u64;
        let mut next = |m: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) % m
        };
        for _ in 0..2000 {
            let n = 1 + next(12) as usize;
            let kids: Vec<Child> = (0..n)
                .map(|_| Child {
                    mv: Move::from_bits(0).expect("a plain move"),
                    pos: Position::start(antichess_core::Rules::INTERNATIONAL),
                    key: 0,
                    proof: if next(8) == 0 { INF } else { next(4) as u32 },
                    disproof: 0,
                    work: 0,
                })
                .collect();
            for offset in 0..n {
                let (mut best, mut second) = (usize::MAX, INF);
                for k in 0..n {
                    let i = (k + offset) % n;
                    if best == usize::MAX || kids[i].proof < kids[best].proof {
                        if best != usize::MAX {
                            second = kids[best].proof;
                        }
                        best = i;
                    } else if kids[i].proof < second {
                        second = kids[i].proof;
                    }
                }
                let values: Vec<u32> = kids.iter().map(|c| c.proof).collect();
                assert_eq!(
                    lowest_two(&kids, offset, |c| c.proof),
                    (best, second),
                    "values {values:?}, offset {offset}"
                );
            }
        }
    }

    /// While the search runs, the entries of the nodes on its path hold what they held when
    /// the search last returned from them (or nothing yet). The live numbers come from
    /// below them: here the root's entry and those of the children chosen along the path,
    /// up to four deep, are made stale ((1, 1), which keeps each the choice at its node),
    /// and the live numbers are still those of the table as the search left it, not the
    /// ones the root's children give with the stale child among them.
    #[test]
    fn live_numbers_come_from_below_stale_entries_on_the_path() {
        let root = Position::start(antichess_core::Rules::INTERNATIONAL);
        let solver = Solver::new(16 << 20, None);
        let mut options = SearchOptions::new(Color::White);
        options.max_nodes = Some(200_000);
        let result = solver.search(&root, &options, &mut |_| {});
        assert_eq!(result.status, SearchStatus::Unknown);
        let shared = solver.shared_for(&root, options.clone());
        let before = solver.live_root_numbers(&root, &shared);
        let mut worker = Worker::new(&shared, 0);
        let stale = TtEntry {
            proof: 1,
            disproof: 1,
            work: 1,
            best: 0,
        };
        let (mut pos, mut key) = (root, worker.root_key(&root));
        solver.table().put(key, stale);
        let mut kids = Vec::new();
        let mut root_with_stale_child = None;
        for depth in 0..4 {
            worker.history.push(pos.key());
            worker.expand(&pos, key, &mut kids);
            let or_node = pos.turn() == Color::White;
            let (next, _) = worker.select(&kids, or_node, key);
            let chosen = &kids[next];
            if solver.table().get(chosen.key).is_none() {
                // The search has not expanded it (a leaf it would expand next).
                assert!(depth >= 2, "only {depth} nodes deep");
                break;
            }
            solver.table().put(chosen.key, stale);
            if depth == 0 {
                let mut with_stale = kids.clone();
                (with_stale[next].proof, with_stale[next].disproof) = (1, 1);
                root_with_stale_child = Some(Worker::combine(&with_stale, or_node));
            }
            (pos, key) = (chosen.pos, chosen.key);
        }
        assert_ne!(
            root_with_stale_child,
            Some(before),
            "the test needs a difference"
        );
        assert_eq!(solver.live_root_numbers(&root, &shared), before);
    }

    /// Whatever the numbers (saturated ones included), a child chosen by a node whose
    /// thresholds are not reached gets thresholds above its own numbers, so searching it
    /// either evaluates positions or changes what the node sees.
    #[test]
    fn a_chosen_child_can_always_make_progress() {
        let values = [
            0,
            1,
            2,
            5,
            1000,
            MAX_FINITE - 2,
            MAX_FINITE - 1,
            MAX_FINITE,
            INF,
        ];
        let mut cases = 0;
        for or_node in [true, false] {
            for &min_value in &values {
                for &second in values.iter().filter(|&&s| s >= min_value) {
                    for &other_child in &values {
                        for &other_rest in &values {
                            // The child minimising the node's number and the other children's
                            // total of the summed number.
                            let sum = add(other_child, other_rest);
                            let node = if or_node {
                                (min_value, sum)
                            } else {
                                (sum, min_value)
                            };
                            for &th_min in &values {
                                for &th_sum in &values {
                                    let th = if or_node {
                                        (th_min, th_sum)
                                    } else {
                                        (th_sum, th_min)
                                    };
                                    if node.0 >= th.0 || node.1 >= th.1 {
                                        continue; // the node returns instead
                                    }
                                    let child = if or_node {
                                        (min_value, other_child)
                                    } else {
                                        (other_child, min_value)
                                    };
                                    for eps in [1.0, 1.25] {
                                        let (tp, td) =
                                            child_thresholds(or_node, node, th, child, second, eps);
                                        cases += 1;
                                        assert!(
                                            tp > child.0 && td > child.1,
                                            "or {or_node}: node {node:?} thresholds {th:?} child \
                                             {child:?} second {second} eps {eps}: child \
                                             thresholds ({tp}, {td})"
                                        );
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(cases > 1000, "{cases}");
    }

    /// The case a long search met (1. e3 g6 ... 7... Qxh2 8. Na3, 566 million positions):
    /// every child's proof number saturated, and the child was given its own number as
    /// threshold.
    #[test]
    fn saturated_numbers_leave_the_threshold_open() {
        let (tp, td) = child_thresholds(
            true,
            (MAX_FINITE, 12),
            (INF, INF),
            (MAX_FINITE, 6),
            MAX_FINITE,
            1.25,
        );
        assert_eq!((tp, td), (INF, INF));
        let (tp, td) = child_thresholds(
            false,
            (12, MAX_FINITE),
            (INF, INF),
            (6, MAX_FINITE),
            MAX_FINITE,
            1.0,
        );
        assert_eq!((tp, td), (INF, INF));
    }
}
