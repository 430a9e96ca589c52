//! One `go`: how the engine chooses its move, in this order.
//!
//! 1. **A loaded proof** that has the position: the proof's move for the prover, the reply
//!    with the largest subtree for the opponent (`score mate ±N` with N the proof's bound,
//!    see `crate::proofs`). A proof file whose root the game passed through and whose
//!    index is still being built is waited for at most half the move's time (at least 50
//!    ms, at most a tenth of the clock: [`index_wait`]); one of another line is not waited
//!    for under a time limit. Past that the move is searched and the file is consulted
//!    from a later move.
//! 2. **The tablebases**, when they cover the position and every move's result: the best
//!    move by the table (the fastest win by distance to conversion, a draw when there is no
//!    win, the slowest loss). Reported as `score cp ±(20000 - plies to conversion)` (DTC is
//!    not a distance to mate) or `cp 0`.
//! 3. **A search** within the time given: df-pn (`antichess-pns`) looks for a forced win of
//!    the side to move (a quarter of the time), then of the opponent (a tenth); a proved
//!    win is played. When the search was small (`EXTRACT_MAX_NODES`) its proof is
//!    extracted and verified, and kept among the proofs (`ProofSet::keep`) so that the
//!    game's next moves follow it; the move is then the proof's, with `score mate N`, N
//!    the proof's bound (`cp 20000` when it has tablebase leaves, or was not kept). A
//!    proved loss makes the engine play the move that resists longest (most work for the prover); root moves the opponent's search proved losing
//!    are left out of the rest. The alpha-beta search (`crate::search`) then chooses among
//!    the remaining moves with the rest of the time. Its scores are `cp` only (a game end
//!    it sees is `cp ±(30000 - plies)`, a table value `cp ±(20000 - plies)`): a mate score
//!    is kept for what a proof or df-pn proved.
//!
//! Every step says where the move came from in an `info string`. `bestmove` names the
//! reply each step expects as its ponder move ([`Choice`]). With `MultiPV` N, N root moves
//! are reported: a proof's one; the tables' N best; proved wins, then the alpha-beta
//! search's N best by score ([`AlphaBeta::search_lines`]), then moves proved losing.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use std::path::PathBuf;

use antichess_core::{Color, Move, Outcome, Position};
use antichess_pns::{extract_proof, SearchOptions, SearchResult, SearchStatus, Solver};
use antichess_proof::{
    encode_compact, verify_compact, LeafOracle, LoadedProof, NoTablebases, NodeKind,
    TablebaseOracle, VerifyOptions,
};
use antichess_tb::{Tablebase, Wdl};

use crate::output::Output;
use crate::proofs::{ProofMove, ProofSet};
use crate::protocol::GoParams;
use crate::search::{AlphaBeta, Limits, TB_WIN};

/// Everything one `go` needs, handed to the search thread.
#[derive(Debug)]
pub struct Task {
    pub pos: Position,
    /// Keys of the game's positions before `pos`.
    pub game_keys: Vec<u64>,
    pub go: GoParams,
    /// Root moves allowed (`searchmoves`; empty: all).
    pub searchmoves: Vec<Move>,
    pub hash_bytes: usize,
    pub threads: usize,
    /// Root moves to report (`MultiPV`; 1: the best only).
    pub multipv: usize,
    pub move_overhead: Duration,
    pub tablebase: Option<Arc<Tablebase>>,
    pub proofs: Arc<Mutex<ProofSet>>,
    pub alpha_beta: Arc<Mutex<AlphaBeta>>,
    pub stop: Arc<AtomicBool>,
    /// Set while a `go ponder` waits for `ponderhit` (the engine clears it then, and stops
    /// the search when the `go`'s time, counted from the `ponderhit`, is up).
    pub pondering: Arc<AtomicBool>,
    pub out: Output,
}

/// df-pn searches larger than this are not turned into proofs to measure a distance.
const EXTRACT_MAX_NODES: u64 = 300_000;

/// The largest share of a move's time that `Move Overhead` takes: a quarter. (Taken whole,
/// the default 50 ms left 1 ms of `go movetime 50`: a depth-1 move.)
const OVERHEAD_SHARE: u32 = 4;

/// How long to think, from the `go` parameters. `None`: no time limit (infinite, ponder, or
/// only depth, nodes or mate limits).
///
/// The time of the move is `movetime`, or with a clock about 1/(movestogo + 1) of it
/// (movestogo 30 when not given) plus three quarters of the increment, never more than a
/// third of the clock. `overhead` is kept back from it, but never more than a quarter of
/// it; at least 1 ms is left. A time too large to count (`u64::MAX` ms) is simply long: the
/// search runs until `stop`.
#[must_use]
pub fn time_budget(go: &GoParams, turn: Color, overhead: Duration) -> Option<Duration> {
    if go.infinite || go.ponder {
        return None;
    }
    let less_overhead = |time: Duration| {
        time.saturating_sub(overhead.min(time / OVERHEAD_SHARE))
            .max(Duration::from_millis(1))
    };
    if let Some(ms) = go.movetime {
        return Some(less_overhead(Duration::from_millis(ms)));
    }
    let (time, inc, other) = match turn {
        Color::White => (go.wtime, go.winc, go.btime),
        Color::Black => (go.btime, go.binc, go.wtime),
    };
    // A GUI that sends only the other side's clock still means a timed game.
    let time = Duration::from_millis(time.or(other)?);
    let inc = Duration::from_millis(inc.unwrap_or(0));
    let moves_left = go.movestogo.unwrap_or(30).clamp(1, 60);
    let target = (time / (moves_left + 1)).saturating_add(inc.saturating_mul(3) / 4);
    Some(less_overhead(target.min(time / 3)))
}

/// The least time a proof's index is waited for in a timed move (a small file's index is
/// ready in a few milliseconds; a move that leaves a proof for want of them is a loss).
const INDEX_WAIT_FLOOR: Duration = Duration::from_millis(50);

/// How long a `go` waits for a proof file's index before searching instead: half the
/// move's time budget, at least [`INDEX_WAIT_FLOOR`] but never more than a tenth of the
/// clock left; `None` (until it is ready, or `stop`) when the move has no time limit.
#[must_use]
pub fn index_wait(go: &GoParams, turn: Color, overhead: Duration) -> Option<Duration> {
    let budget = time_budget(go, turn, overhead)?;
    let wait = (budget / 2).max(INDEX_WAIT_FLOOR);
    let clock = match turn {
        Color::White => go.wtime.or(go.btime),
        Color::Black => go.btime.or(go.wtime),
    };
    Some(match clock {
        Some(ms) if go.movetime.is_none() => wait.min(Duration::from_millis(ms) / 10),
        _ => wait,
    })
}

/// The move a `go` answers and the reply it expects: `bestmove MOVE ponder REPLY` (the
/// reply is named only when it is known and legal).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    pub mv: Move,
    /// The opponent's expected reply: the proof's move after `mv` (the prover's, or the
    /// longest resistance), the table's best, df-pn's most proving or most resistant one,
    /// or the second move of the alpha-beta search's principal variation.
    pub ponder: Option<Move>,
}

impl Choice {
    fn new(mv: Move, ponder: Option<Move>) -> Choice {
        Choice { mv, ponder }
    }
}

/// Moves as UCI text, separated by spaces.
fn moves_text(moves: impl IntoIterator<Item = Move>) -> String {
    moves
        .into_iter()
        .map(|m| m.to_uci())
        .collect::<Vec<_>>()
        .join(" ")
}

impl Task {
    /// Chooses a move and prints `bestmove` (after `stop` when searching infinitely, after
    /// `stop` or `ponderhit` when pondering).
    pub fn run(self) {
        let start = Instant::now();
        let best = self.choose(start);
        // `go infinite` waits for `stop`; `go ponder` for `stop` or `ponderhit`.
        while !self.stop.load(Relaxed) && (self.go.infinite || self.pondering.load(Relaxed)) {
            std::thread::sleep(Duration::from_millis(2));
        }
        match best {
            Some(choice) => {
                let next = self.pos.play(choice.mv);
                match choice.ponder.filter(|reply| next.is_legal(*reply)) {
                    Some(reply) => self.out.line(&format!(
                        "bestmove {} ponder {}",
                        choice.mv.to_uci(),
                        reply.to_uci()
                    )),
                    None => self.out.line(&format!("bestmove {}", choice.mv.to_uci())),
                }
            }
            None => self.out.line("bestmove 0000"),
        }
        // The search is over: a timer started by `ponderhit` ends too.
        self.stop.store(true, Relaxed);
    }

    fn info_string(&self, text: &str) {
        self.out.line(&format!("info string {text}"));
    }

    /// `multipv K ` for the `info` line of the K-th root move, when more than one line is
    /// asked for (nothing with `MultiPV` 1, as before the option existed).
    fn multipv(&self, k: usize) -> String {
        if self.multipv > 1 {
            format!("multipv {k} ")
        } else {
            String::new()
        }
    }

    fn root_moves(&self) -> Vec<Move> {
        let legal = self.pos.legal_moves();
        let chosen: Vec<Move> = self
            .searchmoves
            .iter()
            .copied()
            .filter(|m| legal.contains(m))
            .collect();
        if chosen.is_empty() {
            legal.to_vec()
        } else {
            chosen
        }
    }

    fn choose(&self, start: Instant) -> Option<Choice> {
        let pos = self.pos;
        let moves = self.root_moves();
        if moves.is_empty() {
            let result = match pos.outcome() {
                Some(Outcome::Win(c)) if c == pos.turn() => "the side to move has won",
                Some(Outcome::Draw) => "drawn",
                _ => "the side to move has lost",
            };
            self.info_string(&format!("no legal move: the game is over ({result})"));
            return None;
        }
        if let Some(choice) = self.proof_move(start, &moves) {
            return Some(choice);
        }
        if let Some(choice) = self.table_move(&moves) {
            return Some(choice);
        }
        if moves.len() == 1 && !self.go.infinite && !self.go.ponder {
            self.out.line(&format!(
                "info depth 1 {}score cp 0 nodes 0 time 0 pv {}",
                self.multipv(1),
                moves[0].to_uci()
            ));
            self.info_string("search: the only legal move");
            return Some(Choice::new(moves[0], None));
        }
        Some(self.search(start, moves))
    }

    fn proof_move(&self, start: Instant, moves: &[Move]) -> Option<Choice> {
        let mut proofs = self.proofs.lock().unwrap_or_else(PoisonError::into_inner);
        // A wait too long to count is no limit.
        let wait_until = index_wait(&self.go, self.pos.turn(), self.move_overhead)
            .and_then(|w| start.checked_add(w));
        let patience = || !self.stop.load(Relaxed) && wait_until.is_none_or(|t| Instant::now() < t);
        // A file of another line is waited for only when the move has no time limit.
        let elsewhere = || wait_until.is_none() && patience();
        let hit = proofs.choose_with(
            &self.pos,
            &self.game_keys,
            &patience,
            &elsewhere,
            &mut |line| self.info_string(&line),
        )?;
        drop(proofs);
        if !moves.contains(&hit.mv) {
            return None;
        }
        self.print_proof_move(&hit, "time 0", "");
        Some(Choice::new(hit.mv, hit.reply))
    }

    /// The `info` lines of a proof's move: its score (`mate ±N` with N the proof's
    /// bound), nodes below, `timing` (`time T` or `nps N time T`) and its line; `what`
    /// ends the `info string`.
    fn print_proof_move(&self, hit: &ProofMove, timing: &str, what: &str) {
        let score = match hit.moves_to_end {
            Some(n) if hit.winning => format!("mate {n}"),
            Some(n) => format!("mate -{n}"),
            None if hit.winning => format!("cp {TB_WIN}"),
            None => format!("cp -{TB_WIN}"),
        };
        self.out.line(&format!(
            "info depth 1 {}score {score} nodes {} {timing} pv {}",
            self.multipv(1),
            hit.nodes,
            moves_text(std::iter::once(hit.mv).chain(hit.reply))
        ));
        let role = if hit.winning {
            "the prover's move"
        } else {
            "the opponent's longest resistance"
        };
        self.info_string(&format!(
            "proof {}: {role} ({} nodes below){what}",
            hit.proof, hit.nodes
        ));
    }

    fn table_move(&self, moves: &[Move]) -> Option<Choice> {
        let tb = self.tablebase.as_deref()?;
        // The largest table there is bounds what can be covered (a missing table makes
        // the probe fail, and the search decides).
        let largest = tb.materials().iter().map(|m| m.units()).max().unwrap_or(0);
        if self.pos.board().occupied().count() > largest {
            return None;
        }
        let values = tb.probe_moves(&self.pos).ok()?;
        let mut best = None;
        // Best first: with `MultiPV` N, the N best moves by the table.
        for (k, value) in values
            .iter()
            .filter(|v| moves.contains(&v.mv))
            .take(self.multipv.max(1))
            .enumerate()
        {
            let plies = value.plies_to_conversion();
            let (score, what) = match value.wdl_for_mover() {
                Wdl::Win => (TB_WIN - i32::from(plies), "win"),
                Wdl::Draw => (0, "draw"),
                Wdl::Loss => (-(TB_WIN - i32::from(plies)), "loss"),
            };
            // The reply the table prefers, where it covers the position after the move.
            let next = self.pos.play(value.mv);
            let reply = tb
                .probe_moves(&next)
                .ok()
                .and_then(|replies| replies.first().map(|r| r.mv));
            self.out.line(&format!(
                "info depth 1 {}score cp {score} nodes {} time 0 pv {}",
                self.multipv(k + 1),
                values.len(),
                moves_text(std::iter::once(value.mv).chain(reply))
            ));
            if k == 0 {
                best = Some((Choice::new(value.mv, reply), what, plies));
            }
        }
        let (choice, what, plies) = best?;
        let distance = if what == "draw" {
            String::new()
        } else {
            format!(", {plies} plies to conversion")
        };
        self.info_string(&format!("tablebase: {what}{distance}"));
        Some(choice)
    }

    /// A df-pn search for `prover` with a share of the time or of the nodes; `None` (said
    /// in an `info string`) when its table cannot be had.
    fn df_pn(
        &self,
        prover: Color,
        share: u32,
        budget: Option<Duration>,
        start: Instant,
    ) -> Option<(Solver<'_>, SearchOptions, SearchResult)> {
        let mut options = SearchOptions::new(prover);
        options.threads = self.threads.max(1);
        options.interrupt = Some(Arc::clone(&self.stop));
        options.tablebase_units = self
            .tablebase
            .as_deref()
            .map_or(0, Tablebase::complete_units);
        // A share of the budget, within what is left of it (waiting for a proof's index
        // may have used some).
        options.max_time = budget.map(|b| {
            (b / share)
                .min(b.saturating_sub(start.elapsed()))
                .max(Duration::from_millis(1))
        });
        options.max_nodes = match (self.go.nodes, self.go.depth, budget) {
            (Some(n), _, _) => Some((n / u64::from(share)).max(1)),
            (None, Some(d), None) => Some(5_000 * u64::from(d.min(20))),
            (None, None, None) => Some(500_000),
            _ => None,
        };
        let solver = match Solver::try_new(
            (self.hash_bytes / 2).max(1 << 20),
            self.tablebase.as_deref(),
        ) {
            Ok(s) => s,
            Err(e) => {
                self.info_string(&format!("df-pn skipped: {e}"));
                return None;
            }
        };
        let result = solver.search(&self.pos, &options, &mut |_| {});
        let side = if prover == self.pos.turn() {
            "us"
        } else {
            "the opponent"
        };
        self.out.line(&format!(
            "info string df-pn for {side}: {} in {} nodes, {} ms",
            result.status.name(),
            result.nodes,
            result.elapsed.as_millis()
        ));
        Some((solver, options, result))
    }

    fn search(&self, start: Instant, mut moves: Vec<Move>) -> Choice {
        let budget = time_budget(&self.go, self.pos.turn(), self.move_overhead);
        // A budget too long to count (`go movetime 99999999999999999999`) is no deadline.
        let deadline = budget.and_then(|b| start.checked_add(b));
        let us = self.pos.turn();
        // With `MultiPV` above 1, the lines of proved wins come first (`win`, `lines`
        // printed), those of moves proved losing last (`lost`).
        let mut win: Option<Choice> = None;
        let mut lines = 0;
        let mut lost: Vec<Move> = Vec::new();
        // df-pn for each side, with a share of the time or of the nodes.
        for (prover, share) in [(us, 4), (us.other(), 10)] {
            if self.stop.load(Relaxed) || win.is_some() {
                break;
            }
            let Some((solver, options, result)) = self.df_pn(prover, share, budget, start) else {
                break;
            };
            if result.status != SearchStatus::Proved {
                if prover != us {
                    // Root moves after which the opponent's win is proved.
                    let proved_losing: Vec<Move> = result
                        .moves
                        .iter()
                        .filter(|n| n.proof == 0)
                        .map(|n| n.mv)
                        .collect();
                    if !proved_losing.is_empty() && proved_losing.len() < moves.len() {
                        moves.retain(|m| !proved_losing.contains(m));
                        self.info_string(&format!(
                            "df-pn: {} moves proved losing left out",
                            proved_losing.len()
                        ));
                        lost = proved_losing;
                    }
                }
                continue;
            }
            if prover != us {
                if let Some(choice) = self.proved_loss(&solver, &options, &result, &moves, start) {
                    return choice;
                }
                continue;
            }
            let Some(choice) = self.proved_win(&solver, &options, &result, &moves, start) else {
                continue;
            };
            if self.multipv <= 1 {
                return choice;
            }
            // The other lines: root moves df-pn proved winning too, then the search's.
            moves.retain(|m| *m != choice.mv);
            lines = 1;
            for n in &result.moves {
                if lines >= self.multipv || n.proof != 0 || !moves.contains(&n.mv) {
                    continue;
                }
                lines += 1;
                let reply = solver
                    .main_line(&self.pos.play(n.mv), us, 1)
                    .first()
                    .copied();
                self.out.line(&format!(
                    "info depth 1 multipv {lines} score cp {TB_WIN} nodes {} time {} pv {}",
                    result.nodes,
                    start.elapsed().as_millis(),
                    moves_text(std::iter::once(n.mv).chain(reply))
                ));
                moves.retain(|m| *m != n.mv);
            }
            win = Some(choice);
        }
        let searched = self.multipv.max(1).saturating_sub(lines);
        if moves.is_empty() || searched == 0 {
            if let Some(choice) = win {
                return choice;
            }
        }
        let limits = Limits {
            deadline,
            nodes: self.go.nodes.map(|n| (n / 8 * 5 + n % 8 * 5 / 8).max(1)),
            depth: self.go.depth.or(self.go.mate.map(|m| m.saturating_mul(2))),
            stop: Some(Arc::clone(&self.stop)),
        };
        let mut ab = self
            .alpha_beta
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let out = &self.out;
        let result = ab.search_lines(
            &self.pos,
            &self.game_keys,
            &moves,
            self.tablebase.as_deref(),
            limits,
            searched,
            &mut |it| {
                for (k, line) in it.lines.iter().enumerate() {
                    out.line(&format!(
                        "info depth {} seldepth {} {}score cp {} nodes {} nps {} time {} pv {}",
                        it.depth,
                        it.seldepth,
                        self.multipv(lines + k + 1),
                        line.score,
                        it.nodes,
                        nps(it.nodes, it.elapsed),
                        start.elapsed().as_millis(),
                        moves_text(line.pv.iter().copied())
                    ));
                }
            },
        );
        drop(ab);
        if self.multipv > 1 {
            // The moves proved losing, last.
            let shown = lines + result.as_ref().map_or(0, |it| it.lines.len());
            for (k, m) in lost
                .iter()
                .enumerate()
                .take(self.multipv.saturating_sub(shown))
            {
                self.out.line(&format!(
                    "info depth 1 multipv {} score cp -{TB_WIN} nodes 0 time {} pv {}",
                    shown + k + 1,
                    start.elapsed().as_millis(),
                    m.to_uci()
                ));
            }
        }
        if let Some(choice) = win {
            return choice;
        }
        let Some(it) = result else {
            return Choice::new(moves[0], None);
        };
        self.info_string(&format!(
            "alpha-beta search: depth {}, {} nodes",
            it.depth, it.nodes
        ));
        let best = it.pv.first().copied().unwrap_or(moves[0]);
        Choice::new(best, it.pv.get(1).copied())
    }

    /// Our win, proved by df-pn. Its proof, when the search was small enough
    /// ([`EXTRACT_MAX_NODES`]), is extracted, verified, and kept for the game's next moves
    /// (`ProofSet::keep`): its move is played with `score mate N`, N the proof's bound.
    /// Otherwise the proved move of least work, with `score cp 20000`.
    fn proved_win(
        &self,
        solver: &Solver<'_>,
        options: &SearchOptions,
        result: &SearchResult,
        moves: &[Move],
        start: Instant,
    ) -> Option<Choice> {
        let timing = format!(
            "nps {} time {}",
            nps(result.nodes, result.elapsed),
            start.elapsed().as_millis()
        );
        if result.nodes <= EXTRACT_MAX_NODES {
            match self.keep_proof(solver, options) {
                Ok((hit, nodes)) if moves.contains(&hit.mv) => {
                    self.print_proof_move(
                        &hit,
                        &timing,
                        &format!(
                            "; a forced win, proved by df-pn: its proof of {nodes} nodes verified and kept for the next moves"
                        ),
                    );
                    return Some(Choice::new(hit.mv, hit.reply));
                }
                Ok(_) => {}
                Err(e) => self.info_string(&format!("df-pn's proof is not kept: {e}")),
            }
        }
        let m = result
            .moves
            .iter()
            .filter(|n| n.proof == 0 && moves.contains(&n.mv))
            .min_by_key(|n| n.work)
            .map(|n| n.mv)?;
        let reply = solver
            .main_line(&self.pos.play(m), options.prover, 1)
            .first()
            .copied();
        self.out.line(&format!(
            "info depth 1 {}score cp {TB_WIN} nodes {} {timing} pv {}",
            self.multipv(1),
            result.nodes,
            moves_text(std::iter::once(m).chain(reply))
        ));
        self.info_string("a forced win, proved by df-pn");
        Some(Choice::new(m, reply))
    }

    /// Extracts the proof df-pn found of our win, verifies it, and keeps it among the
    /// proofs; its move here and its size.
    fn keep_proof(
        &self,
        solver: &Solver<'_>,
        options: &SearchOptions,
    ) -> Result<(ProofMove, usize), String> {
        let (tree, _) = extract_proof(solver, &self.pos, &[], options)
            .map_err(|e| format!("extracting it failed: {e}"))?;
        let bytes = encode_compact(&tree).map_err(|e| format!("encoding it failed: {e}"))?;
        let check = |oracle: &dyn LeafOracle| {
            verify_compact(
                bytes.as_slice(),
                Some(bytes.len() as u64),
                oracle,
                &VerifyOptions::default(),
                &mut |_| {},
            )
        };
        let verdict = match self.tablebase.as_deref() {
            Some(tb) => check(&TablebaseOracle::new(tb)),
            None => check(&NoTablebases),
        };
        verdict.map_err(|e| format!("it did not verify: {e}"))?;
        let nodes = tree.len();
        let side = match self.pos.turn() {
            Color::White => "",
            Color::Black => "...",
        };
        let name = format!("found at move {}{side}", self.pos.fullmoves());
        let proof = LoadedProof::from_tree(0, name.clone(), PathBuf::new(), tree)?;
        let hit = self
            .proofs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .keep(name, proof)
            .ok_or("its root has no move")?;
        Ok((hit, nodes))
    }

    /// The opponent's win, proved by df-pn: the move that resists longest (most work for
    /// the prover), with `score mate -N` when the proof is small enough to measure.
    fn proved_loss(
        &self,
        solver: &Solver<'_>,
        options: &SearchOptions,
        result: &SearchResult,
        moves: &[Move],
        start: Instant,
    ) -> Option<Choice> {
        let m = result
            .moves
            .iter()
            .filter(|n| moves.contains(&n.mv))
            .max_by_key(|n| n.work)
            .map(|n| n.mv)?;
        let distance = if result.nodes <= EXTRACT_MAX_NODES {
            extract_proof(solver, &self.pos, &[], options)
                .ok()
                .and_then(|(tree, _)| tree_height(tree.nodes()))
        } else {
            None
        };
        let score = distance.map_or(format!("cp -{TB_WIN}"), |h| {
            format!("mate -{}", h.div_ceil(2))
        });
        let reply = solver
            .main_line(&self.pos.play(m), options.prover, 1)
            .first()
            .copied();
        self.out.line(&format!(
            "info depth 1 {}score {score} nodes {} nps {} time {} pv {}",
            self.multipv(1),
            result.nodes,
            nps(result.nodes, result.elapsed),
            start.elapsed().as_millis(),
            moves_text(std::iter::once(m).chain(reply))
        ));
        self.info_string("a forced loss, proved by df-pn: the longest resistance");
        Some(Choice::new(m, reply))
    }
}

fn nps(nodes: u64, elapsed: Duration) -> u64 {
    let ms = elapsed.as_millis().max(1) as u64;
    nodes.saturating_mul(1000) / ms
}

/// The height in plies of a proof tree held as preorder nodes (references count with
/// their target's height); `None` if it has a tablebase leaf.
#[must_use]
pub fn tree_height(nodes: &[antichess_proof::Node]) -> Option<u32> {
    let n = nodes.len();
    let mut height = vec![0u32; n];
    // (node, children left, tallest child so far)
    let mut open: Vec<(usize, u32, u32)> = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        let children = match node.kind {
            NodeKind::Prover => 1,
            NodeKind::Opponent { children } => u32::from(children),
            NodeKind::Tablebase => return None,
            _ => 0,
        };
        if children > 0 {
            open.push((i, children, 0));
            continue;
        }
        let mut value = match node.kind {
            NodeKind::Reference { target } => *height.get(target as usize)?,
            _ => 0,
        };
        height[i] = value;
        while let Some(top) = open.last_mut() {
            top.1 -= 1;
            top.2 = top.2.max(value + 1);
            if top.1 > 0 {
                break;
            }
            let (j, _, h) = open.pop()?;
            height[j] = h;
            value = h;
        }
    }
    height.first().copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use antichess_core::Rules;
    use antichess_proof::{build_proof, ProofSource, ProverChoice};

    /// Plays the first legal move.
    struct FirstMove;
    impl ProofSource for FirstMove {
        fn prover_choice(&mut self, pos: &Position) -> Result<ProverChoice, String> {
            Ok(ProverChoice::Play(pos.legal_moves()[0]))
        }
    }

    #[test]
    fn the_height_of_a_proof() {
        // White's knight must take a3 (1 ply); then Black, without pieces, has won.
        let root =
            Position::from_fen("8/8/8/8/8/p7/8/1N6 w - - 0 1", Rules::INTERNATIONAL).unwrap();
        let tree = build_proof(root, Color::Black, &mut FirstMove).unwrap();
        assert_eq!(tree_height(tree.nodes()), Some(1));
        let nodes = [antichess_proof::Node {
            mv: None,
            kind: NodeKind::Tablebase,
        }];
        assert_eq!(tree_height(&nodes), None);
    }

    #[test]
    fn time_budgets() {
        let overhead = Duration::from_millis(50);
        let go = |text: &str| match crate::protocol::parse(text).unwrap() {
            crate::protocol::Command::Go(go) => go,
            _ => unreachable!(),
        };
        let ms = |d: Option<Duration>| d.map(|d| d.as_millis());
        assert_eq!(
            ms(time_budget(&go("go movetime 300"), Color::White, overhead)),
            Some(250)
        );
        assert_eq!(
            ms(time_budget(&go("go infinite"), Color::White, overhead)),
            None
        );
        assert_eq!(
            ms(time_budget(&go("go depth 4"), Color::White, overhead)),
            None
        );
        // 1 s + 0.1 s: 1000 / 31 + 75 = 107 ms, less a quarter of it (not 50).
        let clock = go("go wtime 1000 btime 1000 winc 100 binc 100");
        assert_eq!(ms(time_budget(&clock, Color::Black, overhead)), Some(80));
        // Never more than a third of what is left, even with a large increment.
        let short = go("go wtime 200 btime 200 winc 1000 binc 1000");
        assert_eq!(ms(time_budget(&short, Color::White, overhead)), Some(50));
        // A long clock: the whole overhead.
        let long = go("go wtime 62000 btime 62000");
        assert_eq!(ms(time_budget(&long, Color::White, overhead)), Some(1950));
        // No time left: the least.
        let none = go("go wtime 0 btime 0");
        assert_eq!(ms(time_budget(&none, Color::White, overhead)), Some(1));
        // Times too large to count are long, not errors.
        let huge = "99999999999999999999999";
        for line in [
            format!("go movetime {huge}"),
            format!("go wtime {huge} btime {huge} winc {huge} binc {huge} movestogo {huge}"),
        ] {
            let budget = time_budget(&go(&line), Color::White, overhead).unwrap();
            assert!(budget > Duration::from_secs(1 << 40), "{line}: {budget:?}");
            assert!(index_wait(&go(&line), Color::White, overhead).is_some());
        }

        // Waiting for a proof's index: half the budget, at least 50 ms, at most a tenth of
        // the clock; no limit without one.
        let wait = |text: &str| ms(index_wait(&go(text), Color::White, overhead));
        assert_eq!(wait("go movetime 300"), Some(125));
        assert_eq!(wait("go movetime 50"), Some(50));
        assert_eq!(wait("go wtime 1000 btime 1000 winc 100 binc 100"), Some(50));
        assert_eq!(wait("go wtime 300 btime 300"), Some(30));
        assert_eq!(wait("go nodes 100"), None);
        assert_eq!(wait("go ponder movetime 300"), None);
        assert_eq!(wait("go infinite"), None);
    }

    /// Issue 63: with the default `Move Overhead` of 50 ms, `go movetime 50` left 1 ms
    /// (a depth-1 move). The overhead takes at most a quarter of the move's time.
    #[test]
    fn the_overhead_takes_at_most_a_quarter_of_a_short_move() {
        let go = |text: &str| match crate::protocol::parse(text).unwrap() {
            crate::protocol::Command::Go(go) => go,
            _ => unreachable!(),
        };
        let ms = |text: &str, overhead: u64| {
            time_budget(&go(text), Color::White, Duration::from_millis(overhead))
                .map(|d| d.as_micros())
        };
        assert_eq!(ms("go movetime 50", 50), Some(37_500));
        assert_eq!(ms("go movetime 100", 50), Some(75_000));
        assert_eq!(ms("go movetime 1000", 50), Some(950_000));
        assert_eq!(ms("go movetime 50", 0), Some(50_000));
        assert_eq!(ms("go movetime 1", 5_000), Some(1_000));
        // A clock of 3.1 s: 100 ms a move, 25 of them kept back of 50.
        assert_eq!(ms("go wtime 3100 btime 3100", 50), Some(75_000));
        assert_eq!(ms("go wtime 3100 btime 3100", 20), Some(80_000));
    }
}
