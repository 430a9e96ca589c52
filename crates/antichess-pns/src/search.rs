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
//! **Threads.** Several workers search the same root over one shared table; they differ
//! in how they break ties between equally good children, so they tend to explore
//! different parts of the tree and share what they prove through the table.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use antichess_core::{Bitboard, Color, Move, Outcome, Position, Role};
use antichess_tb::{Tablebase, Wdl};

use crate::missing::{MissingCounter, MissingTable, MissingTotals};
use crate::tt::{TranspositionTable, TtEntry};

/// An infinite proof or disproof number: the other side is solved.
pub const INF: u32 = u32::MAX;
const MAX_FINITE: u32 = u32::MAX - 1;

/// See [`Worker::calls`].
const CHECK_EVERY_CALLS: u32 = 4096;

/// How many moves [`Solver::live_root_numbers`] follows down from the root.
const LIVE_PLIES: usize = 256;

#[inline]
fn add(a: u32, b: u32) -> u32 {
    if a == INF || b == INF {
        INF
    } else {
        a.saturating_add(b).min(MAX_FINITE)
    }
}

/// The thresholds df-pn gives the chosen child `(c_proof, c_disproof)` of a node with
/// numbers `(proof, disproof)` and thresholds `th` (neither reached): the 1+ε trick on the
/// number the node minimises (`second` is the best other child's), the rest of the node's
/// threshold on the number it sums. The child's threshold on the minimised number is always
/// above its value, so the child makes progress: a second-best value that has saturated at
/// the largest finite number gives no bound (`INF`), where it once gave the child a
/// threshold equal to its own saturated number, which it met at once without searching —
/// and the node chose it again, for ever, without evaluating a position.
#[inline]
fn child_thresholds(
    or_node: bool,
    (proof, disproof): (u32, u32),
    (th_proof, th_disproof): (u32, u32),
    (c_proof, c_disproof): (u32, u32),
    second: u32,
    eps: f64,
) -> (u32, u32) {
    let grow = |v: u32| -> u32 {
        if v >= MAX_FINITE {
            INF
        } else {
            ((f64::from(v) * eps).ceil() as u64)
                .max(u64::from(v) + 1)
                .min(u64::from(MAX_FINITE)) as u32
        }
    };
    // What the node's threshold on the summed number leaves for the child.
    let remaining = |th: u32, sum: u32, child: u32| {
        if th == INF {
            INF
        } else {
            let rest = u64::from(sum) - u64::from(child);
            (u64::from(th) - rest).min(u64::from(MAX_FINITE)) as u32
        }
    };
    if or_node {
        (
            th_proof.min(grow(second)),
            remaining(th_disproof, disproof, c_disproof),
        )
    } else {
        (
            remaining(th_proof, proof, c_proof),
            th_disproof.min(grow(second)),
        )
    }
}

/// Limits and switches of a search.
#[derive(Debug, Clone)]
pub struct SearchOptions {
    /// The side whose win is to be proved.
    pub prover: Color,
    /// Stop after this many positions (nodes) have been evaluated.
    pub max_nodes: Option<u64>,
    /// Stop after this much time.
    pub max_time: Option<Duration>,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// ε of the 1+ε threshold trick.
    pub epsilon: f64,
    /// Apply the lone opposite-bishop rule.
    pub lone_bishop_rule: bool,
    /// Probe tablebases for positions with at most this many units (0 = never); a
    /// position whose material has no table is searched on (see
    /// [`Tablebase::max_units`]).
    pub tablebase_units: u32,
    /// Count the positions of every material of at most this many units that no table
    /// covers (0 = never), reported in [`SearchResult::missing_tables`].
    pub record_missing_units: u32,
    /// Set from outside (e.g. on Ctrl-C) to stop the search as if its budget ran out.
    pub interrupt: Option<Arc<AtomicBool>>,
}

impl SearchOptions {
    /// Defaults: no limits, one thread, ε = 1/4, the bishop rule on, no tablebases.
    #[must_use]
    pub fn new(prover: Color) -> SearchOptions {
        SearchOptions {
            prover,
            max_nodes: None,
            max_time: None,
            threads: 1,
            epsilon: 0.25,
            lone_bishop_rule: true,
            tablebase_units: 0,
            record_missing_units: 0,
            interrupt: None,
        }
    }
}

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

/// Numbers of one root move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveNumbers {
    pub mv: Move,
    pub proof: u32,
    pub disproof: u32,
    /// Positions searched below the move (an estimate of its subtree size).
    pub work: u32,
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

/// State shared by the workers of one search.
pub(crate) struct Shared<'a> {
    root: Position,
    options: SearchOptions,
    tt: &'a TranspositionTable,
    tablebase: Option<&'a Tablebase>,
    stop: AtomicBool,
    nodes: AtomicU64,
    expansions: AtomicU64,
    missing: Mutex<MissingTotals>,
    start: Instant,
    /// Where the search threads meet to grow the table.
    gate: Mutex<Gate>,
    gate_open: Condvar,
}

/// The search threads' meeting point: the table grows only when every running thread has
/// paused there (see `tt.rs`).
#[derive(Debug, Default)]
struct Gate {
    /// Threads of the search that have not finished.
    running: usize,
    /// Threads waiting for the table to grow.
    paused: usize,
    /// Growths so far (a paused thread waits for this to change).
    round: u64,
}

impl Shared<'_> {
    /// Called with the gate held when the last running thread arrives or leaves.
    fn grow_if_all_paused(&self, gate: &mut Gate) {
        if gate.paused > 0 && gate.paused == gate.running {
            self.tt.grow_now();
            gate.paused = 0;
            gate.round += 1;
            self.gate_open.notify_all();
        }
    }

    /// Positions evaluated so far by the workers that flushed their counts.
    pub(crate) fn nodes(&self) -> u64 {
        self.nodes.load(Relaxed)
    }

    pub(crate) fn options(&self) -> &SearchOptions {
        &self.options
    }
}

#[derive(Clone, Copy)]
struct Child {
    mv: Move,
    pos: Position,
    key: u64,
    proof: u32,
    disproof: u32,
    work: u32,
}

impl Child {
    fn numbers(&self) -> MoveNumbers {
        MoveNumbers {
            mv: self.mv,
            proof: self.proof,
            disproof: self.disproof,
            work: self.work,
        }
    }
}

/// Mixes a parent's path key with a position key (for positions after reversible moves).
#[inline]
fn mix(parent: u64, key: u64) -> u64 {
    let x = (parent.rotate_left(23) ^ key).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    x ^ (x >> 29)
}

/// The key of the prover's colour in a path key (so searches for both sides can share a
/// table).
const BLACK_PROVER: u64 = 0x5bd1_e995_3c6e_f372;

/// One search thread.
pub(crate) struct Worker<'s, 'a> {
    shared: &'s Shared<'a>,
    id: u64,
    /// Zobrist keys of the positions on the current path (root first).
    pub(crate) history: Vec<u64>,
    pool: Vec<Vec<Child>>,
    nodes: u64,
    flushed: u64,
    expansions: u64,
    missing: MissingCounter,
    next_check: u64,
    /// Budget tests since the last check: the budget is also checked every
    /// [`CHECK_EVERY_CALLS`] tests, so a search that walks the table without evaluating new
    /// positions still sees its time limit and interrupts.
    calls: u32,
    /// One of the search's threads, counted in its gate; else the only user of the table
    /// (proof extraction, minimisation), which grows the table itself.
    counted: bool,
}

impl Drop for Worker<'_, '_> {
    fn drop(&mut self) {
        self.missing.drain_into(&self.shared.missing);
        if self.counted {
            let mut gate = self
                .shared
                .gate
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            gate.running -= 1;
            self.shared.grow_if_all_paused(&mut gate);
        }
    }
}

impl<'s, 'a> Worker<'s, 'a> {
    pub(crate) fn new(shared: &'s Shared<'a>, id: u64) -> Worker<'s, 'a> {
        Worker {
            shared,
            id,
            history: Vec::new(),
            pool: Vec::new(),
            nodes: 0,
            flushed: 0,
            expansions: 0,
            missing: MissingCounter::default(),
            next_check: 1024,
            calls: 0,
            counted: false,
        }
    }

    /// Grows the table when it asks to: at once if this worker is its only user, else once
    /// every thread of the search has paused here.
    fn grow_table(&mut self) {
        if !self.counted {
            self.shared.tt.grow_now();
            return;
        }
        let mut gate = self
            .shared
            .gate
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if !self.shared.tt.wants_growth() {
            return; // another thread grew it meanwhile
        }
        gate.paused += 1;
        let round = gate.round;
        self.shared.grow_if_all_paused(&mut gate);
        while gate.round == round {
            gate = self
                .shared
                .gate_open
                .wait(gate)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn side_key(&self) -> u64 {
        if self.shared.options.prover == Color::Black {
            BLACK_PROVER
        } else {
            0
        }
    }

    /// The path key of a search root (a root starts a new reversible sequence).
    pub(crate) fn root_key(&self, root: &Position) -> u64 {
        root.key() ^ self.side_key()
    }

    /// The path key of `child`, reached from a node with path key `parent_key`.
    #[inline]
    pub(crate) fn child_key(&self, parent_key: u64, child: &Position) -> u64 {
        if child.halfmoves() == 0 {
            child.key() ^ self.side_key()
        } else {
            mix(parent_key, child.key())
        }
    }

    /// Whether `pos` repeats a position on the current path since the last irreversible
    /// move (the last entry of the path is `pos`'s parent).
    #[inline]
    fn repeats(&self, pos: &Position) -> bool {
        let n = self.history.len() as isize;
        let lowest = n - pos.halfmoves() as isize;
        let mut i = n - 2;
        while i >= 0 && i >= lowest {
            if self.history[i as usize] == pos.key() {
                return true;
            }
            i -= 2;
        }
        false
    }

    /// Proof and disproof numbers of a position seen for the first time (terminal tests,
    /// else mobility).
    pub(crate) fn evaluate(&mut self, pos: &Position) -> (u32, u32) {
        self.nodes += 1;
        let prover = self.shared.options.prover;
        let (win, fail) = ((0, INF), (INF, 0));
        let moves = pos.count_moves();
        if moves == 0 {
            return if pos.no_move_outcome() == Outcome::Win(prover) {
                win
            } else {
                fail
            };
        }
        let units = pos.board().occupied().count();
        let options = &self.shared.options;
        if units <= options.tablebase_units {
            if let Some(tb) = self.shared.tablebase {
                if let Ok(Some(wdl)) = tb.probe_wdl(pos) {
                    let prover_wins = if pos.turn() == prover {
                        wdl == Wdl::Win
                    } else {
                        wdl == Wdl::Loss
                    };
                    return if prover_wins { win } else { fail };
                }
            }
        }
        if units <= options.record_missing_units
            && !self
                .shared
                .tablebase
                .is_some_and(|tb| tb.has_table_for(pos.board()))
        {
            self.missing.record(pos.board());
        }
        if pos.halfmoves() > 0 && self.repeats(pos) {
            return fail;
        }
        if pos.is_dead_draw()
            || (self.shared.options.lone_bishop_rule && lone_opposite_bishop(pos, prover))
        {
            return fail;
        }
        if pos.turn() == prover {
            (1, moves)
        } else {
            (moves, 1)
        }
    }

    /// Adds this worker's new nodes to the shared count and checks the budget.
    fn out_of_budget(&mut self) -> bool {
        if self.shared.stop.load(Relaxed) {
            return true;
        }
        self.calls = self.calls.wrapping_add(1);
        if self.nodes >= self.next_check || self.calls % CHECK_EVERY_CALLS == 0 {
            self.next_check = self.nodes + 1024;
            self.flush();
            if self.shared.tt.wants_growth() {
                self.grow_table();
            }
            let options = &self.shared.options;
            let over_nodes = options
                .max_nodes
                .is_some_and(|n| self.shared.nodes.load(Relaxed) >= n);
            let over_time = options
                .max_time
                .is_some_and(|t| self.shared.start.elapsed() >= t);
            let interrupted = options
                .interrupt
                .as_ref()
                .is_some_and(|flag| flag.load(Relaxed));
            if over_nodes || over_time || interrupted {
                self.shared.stop.store(true, Relaxed);
                return true;
            }
        }
        false
    }

    pub(crate) fn flush(&mut self) {
        self.shared
            .nodes
            .fetch_add(self.nodes - self.flushed, Relaxed);
        self.shared.expansions.fetch_add(self.expansions, Relaxed);
        self.flushed = self.nodes;
        self.expansions = 0;
    }

    /// The children of `pos` with their current numbers (from the table, else evaluated).
    fn expand(&mut self, pos: &Position, key: u64, kids: &mut Vec<Child>) {
        kids.clear();
        // First every child and its key, prefetching the table buckets, then the lookups:
        // the memory latencies overlap instead of adding up.
        for mv in pos.legal_moves() {
            // Played in place: the parent is copied once, into the list.
            kids.push(Child {
                mv,
                pos: *pos,
                key: 0,
                proof: 0,
                disproof: 0,
                work: 0,
            });
            let c = kids.last_mut().expect("just pushed");
            c.pos.play_mut(mv);
            c.key = self.child_key(key, &c.pos);
            self.shared.tt.prefetch(c.key);
        }
        for k in 0..kids.len() {
            let (proof, disproof, work) = match self.shared.tt.get(kids[k].key) {
                Some(e) => (e.proof, e.disproof, e.work),
                None => {
                    let (p, d) = self.evaluate(&kids[k].pos);
                    (p, d, 0)
                }
            };
            let c = &mut kids[k];
            (c.proof, c.disproof, c.work) = (proof, disproof, work);
        }
    }

    /// The node's numbers from its children's.
    #[inline]
    fn combine(kids: &[Child], or_node: bool) -> (u32, u32) {
        if or_node {
            let proof = kids.iter().map(|c| c.proof).min().unwrap_or(INF);
            let disproof = kids.iter().fold(0, |acc, c| add(acc, c.disproof));
            (proof, disproof)
        } else {
            let proof = kids.iter().fold(0, |acc, c| add(acc, c.proof));
            let disproof = kids.iter().map(|c| c.disproof).min().unwrap_or(INF);
            (proof, disproof)
        }
    }

    /// The child to search next and the second-best value (of the number being
    /// minimised). Ties are broken differently by each worker.
    #[inline]
    fn select(&self, kids: &[Child], or_node: bool, key: u64) -> (usize, u32) {
        let n = kids.len();
        if n == 0 {
            return (0, INF);
        }
        let offset = if self.id == 0 {
            0
        } else {
            (mix(key, self.id) % n as u64) as usize
        };
        if or_node {
            lowest_two(kids, offset, |c| c.proof)
        } else {
            lowest_two(kids, offset, |c| c.disproof)
        }
    }

    /// Searches `pos` (path key `key`) until its proof number reaches `th_proof` or its
    /// disproof number reaches `th_disproof` or the budget runs out; stores and returns its
    /// numbers and the work done below it.
    pub(crate) fn mid(
        &mut self,
        pos: &Position,
        key: u64,
        th_proof: u32,
        th_disproof: u32,
        ply: usize,
    ) -> (u32, u32, u32) {
        let prior = self.shared.tt.get(key).map_or(0, |e| e.work);
        self.mid_from(pos, key, th_proof, th_disproof, ply, prior)
    }

    /// [`Worker::mid`] for a node whose stored work (`prior`) the caller already read.
    fn mid_from(
        &mut self,
        pos: &Position,
        key: u64,
        th_proof: u32,
        th_disproof: u32,
        ply: usize,
        prior: u32,
    ) -> (u32, u32, u32) {
        self.expansions += 1;
        let start_nodes = self.nodes;
        let or_node = pos.turn() == self.shared.options.prover;
        if self.pool.len() <= ply {
            self.pool.resize_with(ply + 1, Vec::new);
        }
        let mut kids = std::mem::take(&mut self.pool[ply]);
        self.history.push(pos.key());
        self.expand(pos, key, &mut kids);
        let eps = 1.0 + self.shared.options.epsilon;
        let (mut proof, mut disproof);
        loop {
            (proof, disproof) = Self::combine(&kids, or_node);
            if proof >= th_proof
                || disproof >= th_disproof
                || kids.is_empty()
                || self.out_of_budget()
            {
                break;
            }
            let (best, second) = self.select(&kids, or_node, key);
            let c = &kids[best];
            let (cth_proof, cth_disproof) = child_thresholds(
                or_node,
                (proof, disproof),
                (th_proof, th_disproof),
                (c.proof, c.disproof),
                second,
                eps,
            );
            let (p, d, w) = self.mid_from(&c.pos, c.key, cth_proof, cth_disproof, ply + 1, c.work);
            let k = &mut kids[best];
            k.proof = p;
            k.disproof = d;
            k.work = w;
        }
        self.history.pop();
        let work = prior.saturating_add((self.nodes - start_nodes).min(u64::from(u32::MAX)) as u32);
        let best = if kids.is_empty() {
            0
        } else {
            kids[self.select(&kids, or_node, key).0].mv.bits()
        };
        self.shared.tt.put(
            key,
            TtEntry {
                proof,
                disproof,
                work,
                best,
            },
        );
        self.pool[ply] = kids;
        (proof, disproof, work)
    }
}

/// The index of the child with the lowest `value` (the first such in the order `offset`,
/// `offset + 1`, ..., wrapping around) and the lowest value among the others (`INF` if
/// none). One pass in two straight runs, without a division per child.
#[inline]
fn lowest_two(kids: &[Child], offset: usize, value: impl Fn(&Child) -> u32) -> (usize, u32) {
    let mut best = offset;
    let mut best_value = value(&kids[offset]);
    let mut second = INF;
    let order = kids[offset + 1..]
        .iter()
        .zip(offset + 1..)
        .chain(kids[..offset].iter().zip(0..));
    for (c, i) in order {
        let v = value(c);
        if v < best_value {
            second = best_value;
            best = i;
            best_value = v;
        } else if v < second {
            second = v;
        }
    }
    (best, second)
}

/// The opponent's only piece is a bishop, and the prover has a bishop on the other square
/// colour: those two can never meet, and the prover can never shed that bishop.
fn lone_opposite_bishop(pos: &Position, prover: Color) -> bool {
    let board = pos.board();
    let theirs = board.by_color(prover.other());
    let Some(sq) = theirs.single_square() else {
        return false;
    };
    if !board.bishops().contains(sq) {
        return false;
    }
    let their_colour = if sq.is_light() {
        Bitboard::LIGHT_SQUARES
    } else {
        Bitboard::DARK_SQUARES
    };
    let our_bishops = board.by_color(prover) & board.by_role(Role::Bishop);
    (our_bishops & !their_colour).any()
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
