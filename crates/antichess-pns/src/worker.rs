//! One df-pn search thread ([`Worker`]) and the state the threads of a search share
//! ([`Shared`]): evaluating new positions (terminal tests, tablebases, repetitions, initial
//! numbers), expanding a node, choosing the child to search with the 1+ε thresholds, and
//! the recursive `mid` that stores numbers in the transposition table. The search's
//! front (results, [`crate::search::Solver`]) is in `search.rs`, the options and numbers
//! both use in `options.rs`.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Instant;

use antichess_core::{Bitboard, Color, Move, Outcome, Position, Role};
use antichess_tb::Tablebase;

use crate::missing::{MissingCounter, MissingTotals};
use crate::options::{MoveNumbers, SearchOptions, INF};
use crate::tt::{TranspositionTable, TtEntry};

pub(crate) const MAX_FINITE: u32 = u32::MAX - 1;

/// See [`Worker::calls`].
const CHECK_EVERY_CALLS: u32 = 4096;

#[inline]
pub(crate) fn add(a: u32, b: u32) -> u32 {
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
pub(crate) fn child_thresholds(
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

/// State shared by the workers of one search.
pub(crate) struct Shared<'a> {
    pub(crate) root: Position,
    pub(crate) options: SearchOptions,
    pub(crate) tt: &'a TranspositionTable,
    pub(crate) tablebase: Option<&'a Tablebase>,
    pub(crate) stop: AtomicBool,
    pub(crate) nodes: AtomicU64,
    pub(crate) expansions: AtomicU64,
    pub(crate) missing: Mutex<MissingTotals>,
    pub(crate) start: Instant,
    /// Where the search threads meet to grow the table.
    pub(crate) gate: Mutex<Gate>,
    pub(crate) gate_open: Condvar,
}

/// The search threads' meeting point: the table grows only when every running thread has
/// paused there (see `tt.rs`).
#[derive(Debug, Default)]
pub(crate) struct Gate {
    /// Threads of the search that have not finished.
    pub(crate) running: usize,
    /// Threads waiting for the table to grow.
    pub(crate) paused: usize,
    /// Growths so far (a paused thread waits for this to change).
    pub(crate) round: u64,
}

impl Shared<'_> {
    /// Called with the gate held when the last running thread arrives or leaves.
    pub(crate) fn grow_if_all_paused(&self, gate: &mut Gate) {
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
pub(crate) struct Child {
    pub(crate) mv: Move,
    pub(crate) pos: Position,
    pub(crate) key: u64,
    pub(crate) proof: u32,
    pub(crate) disproof: u32,
    pub(crate) work: u32,
}

impl Child {
    pub(crate) fn numbers(&self) -> MoveNumbers {
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
    pub(crate) counted: bool,
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
    /// else [`crate::initial::InitialNumbers`]: mobility unless a model is given).
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
                // Exact tables settle every position they cover; bound tables (promotions
                // left open) those whose bounds decide whether the prover wins.
                if let Ok(Some(prover_wins)) = tb.probe_wins(pos, prover) {
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
        self.shared.options.initial.numbers(pos, prover, moves)
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
    pub(crate) fn expand(&mut self, pos: &Position, key: u64, kids: &mut Vec<Child>) {
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
    pub(crate) fn combine(kids: &[Child], or_node: bool) -> (u32, u32) {
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
    pub(crate) fn select(&self, kids: &[Child], or_node: bool, key: u64) -> (usize, u32) {
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
pub(crate) fn lowest_two(
    kids: &[Child],
    offset: usize,
    value: impl Fn(&Child) -> u32,
) -> (usize, u32) {
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
