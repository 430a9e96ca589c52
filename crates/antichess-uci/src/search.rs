//! The engine's alpha-beta search, for positions that no proof, table or df-pn search has
//! decided: iterative deepening of a negamax alpha-beta search with a transposition table
//! (best move first), killer moves and a history table for move ordering, and a
//! quiescence search that follows forced captures to their end (in antichess a capture is
//! compulsory, so the "captures only" search is the full game tree wherever a capture is
//! available, and most tactics are chains of forced captures).
//!
//! **Evaluation** (from the side to move), one of two ([`Evaluation`], the UCI option
//! `Evaluation`): *simple*, where each unit fewer than the opponent is worth [`UNIT`] (the
//! aim of the game is to lose every unit) and each legal move more than the opponent has is
//! worth [`MOBILITY`] (a side with few moves, typically one that must capture, is the one
//! that gets forced into giving its units back); or *model*, the learned logistic model of
//! `antichess-eval` (its log-odds that the side to move wins, [`MODEL_CP`] to a unit of
//! log-odds).
//!
//! **Scores** are centipawn-like integers. A game end found by the search is scored
//! `±(MATE - ply)`, a position the tablebases decide `±(TB_WIN - ply)`; both are reported
//! as `cp` by the engine (a mate score is only printed for a proved result: see
//! `crate::think`). Repetition on the path (twofold, within the halfmove clock's window)
//! and the 50-move rule score 0.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use antichess_core::{Move, MoveList, Outcome, Position};
use antichess_eval::Model;
use antichess_tb::{Tablebase, Wdl};

/// A game end at the root; a game end `ply` plies away scores `MATE - ply`.
pub const MATE: i32 = 30_000;
/// A tablebase win at the root; `ply` plies away it scores `TB_WIN - ply`.
pub const TB_WIN: i32 = 20_000;
/// Scores at least this far from 0 are decided (a game end or a table value).
pub const DECIDED: i32 = 19_000;
/// One unit fewer than the opponent.
pub const UNIT: i32 = 40;
/// One legal move more than the opponent.
pub const MOBILITY: i32 = 5;
/// The model evaluation's score for one unit of log-odds that the side to move wins.
pub const MODEL_CP: f64 = 100.0;

/// The static evaluation at the search's leaves.
#[derive(Debug, Clone, Default)]
pub enum Evaluation {
    /// Units and mobility ([`evaluate`]).
    #[default]
    Simple,
    /// A learned model's log-odds that the side to move wins, × [`MODEL_CP`].
    Model(Arc<Model>),
}

const MAX_PLY: usize = 128;
/// Forced captures followed beyond the nominal depth, at most.
const MAX_QUIESCENCE: u32 = 12;
const CHECK_EVERY: u64 = 1024;

/// When the search must stop.
#[derive(Debug, Clone, Default)]
pub struct Limits {
    /// Stop when this instant passes.
    pub deadline: Option<Instant>,
    /// Stop after this many nodes.
    pub nodes: Option<u64>,
    /// Deepest iteration.
    pub depth: Option<u32>,
    /// Set from outside (`stop`, `quit`).
    pub stop: Option<Arc<AtomicBool>>,
}

/// What one completed (or the last, interrupted) iteration found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Iteration {
    pub depth: u32,
    pub seldepth: u32,
    /// Score of the best move for the side to move.
    pub score: i32,
    /// Nodes searched so far, by the whole search.
    pub nodes: u64,
    pub elapsed: Duration,
    /// Principal variation (its first move is the best move).
    pub pv: Vec<Move>,
    /// The best root moves' lines, best first, as many as asked of
    /// [`AlphaBeta::search_lines`] (and the root has): the first is `score` and `pv`.
    pub lines: Vec<Line>,
}

/// One root move's line: its score for the side to move and its principal variation (the
/// root move first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub score: i32,
    pub pv: Vec<Move>,
}

#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    key: u64,
    mv: u16,
    depth: i16,
    bound: u8,
    score: i32,
}

const EXACT: u8 = 1;
const LOWER: u8 = 2;
const UPPER: u8 = 3;

/// The search and its tables (kept between moves of a game).
#[derive(Debug)]
pub struct AlphaBeta {
    tt: Vec<Slot>,
    history: Vec<i32>,
    killers: [[u16; 2]; MAX_PLY],
    pv: Vec<Vec<Move>>,
    /// Keys of the game before the root and of the current path.
    path: Vec<u64>,
    nodes: u64,
    seldepth: u32,
    aborted: bool,
    limits: Limits,
    start: Instant,
    evaluation: Evaluation,
}

impl AlphaBeta {
    /// A search with a transposition table of about `hash_bytes` (at least 1,024 slots; a
    /// size that cannot be reserved falls back to the least).
    #[must_use]
    pub fn new(hash_bytes: usize) -> AlphaBeta {
        let wanted = (hash_bytes / std::mem::size_of::<Slot>()).max(1024);
        let slots = if wanted.is_power_of_two() {
            wanted
        } else {
            wanted.next_power_of_two() / 2
        };
        let mut tt = Vec::new();
        if tt.try_reserve_exact(slots).is_err() {
            tt.reserve_exact(1024);
        }
        tt.resize(tt.capacity().min(slots).max(1024), Slot::default());
        AlphaBeta {
            tt,
            history: vec![0; 64 * 64],
            killers: [[0; 2]; MAX_PLY],
            pv: vec![Vec::new(); MAX_PLY + 1],
            path: Vec::new(),
            nodes: 0,
            seldepth: 0,
            aborted: false,
            limits: Limits::default(),
            start: Instant::now(),
            evaluation: Evaluation::Simple,
        }
    }

    /// Sets the static evaluation (kept by [`AlphaBeta::clear`]).
    pub fn set_evaluation(&mut self, evaluation: Evaluation) {
        self.evaluation = evaluation;
    }

    /// The static evaluation of `pos`, from its side to move.
    fn evaluate(&self, pos: &Position) -> i32 {
        match &self.evaluation {
            Evaluation::Simple => evaluate(pos),
            Evaluation::Model(model) => {
                let score = (model.logit(pos) * MODEL_CP).round();
                score.clamp(-f64::from(DECIDED - 1), f64::from(DECIDED - 1)) as i32
            }
        }
    }

    /// Forgets everything learnt (a new game).
    pub fn clear(&mut self) {
        self.tt.fill(Slot::default());
        self.history.fill(0);
        self.killers = [[0; 2]; MAX_PLY];
    }

    /// Searches `root` by iterative deepening until a limit is reached; `moves` are the
    /// root moves allowed (all legal moves if empty), `game_keys` the keys of the
    /// positions of the game before the root (for repetitions). `report` is called after
    /// each completed iteration. Returns the last iteration (`None` only when the root has
    /// no legal move).
    pub fn search(
        &mut self,
        root: &Position,
        game_keys: &[u64],
        moves: &[Move],
        tablebase: Option<&Tablebase>,
        limits: Limits,
        report: &mut dyn FnMut(&Iteration),
    ) -> Option<Iteration> {
        self.search_lines(root, game_keys, moves, tablebase, limits, 1, report)
    }

    /// [`AlphaBeta::search`] for the best `lines` root moves (multi-PV): each iteration
    /// scores exactly every root move that is among the best `lines` (a move is searched
    /// with its window's lower bound at the score of the last line so far, so the others
    /// cost no more than in a one-line search), best first in [`Iteration::lines`].
    #[allow(clippy::too_many_arguments)]
    pub fn search_lines(
        &mut self,
        root: &Position,
        game_keys: &[u64],
        moves: &[Move],
        tablebase: Option<&Tablebase>,
        limits: Limits,
        lines: usize,
        report: &mut dyn FnMut(&Iteration),
    ) -> Option<Iteration> {
        let lines = lines.max(1);
        let mut root_moves: Vec<Move> = if moves.is_empty() {
            root.legal_moves().to_vec()
        } else {
            moves.to_vec()
        };
        if root_moves.is_empty() {
            return None;
        }
        self.limits = limits;
        self.start = Instant::now();
        self.nodes = 0;
        self.aborted = false;
        self.path.clear();
        self.path.extend_from_slice(game_keys);
        for h in &mut self.history {
            *h /= 8;
        }
        let tb_units = tablebase.map_or(0, Tablebase::complete_units);
        let tb = tablebase.filter(|_| tb_units > 0);
        let mut best: Option<Iteration> = None;
        let max_depth = self
            .limits
            .depth
            .unwrap_or(MAX_PLY as u32 - 8)
            .clamp(1, MAX_PLY as u32 - 8);
        for depth in 1..=max_depth {
            self.seldepth = 0;
            if let Some(b) = &best {
                // The previous iteration's lines first, the best first of all.
                for line in b.lines.iter().rev() {
                    if let Some(i) = root_moves.iter().position(|m| Some(m) == line.pv.first()) {
                        root_moves[..=i].rotate_right(1);
                    }
                }
            }
            let (top, complete) = self.root(root, &root_moves, depth, tb, tb_units, lines);
            let Some(first) = top.first() else { break };
            let score = first.score;
            let iteration = Iteration {
                depth,
                seldepth: self.seldepth.max(depth),
                score,
                nodes: self.nodes,
                elapsed: self.start.elapsed(),
                pv: first.pv.clone(),
                lines: top.clone(),
            };
            if complete {
                report(&iteration);
                best = Some(iteration);
            } else {
                // An interrupted iteration counts when it found a better move than the
                // previous best (searched first, so its score is known); the previous
                // iteration's other lines follow it.
                let first_move = first.pv.first();
                if best.as_ref().is_none_or(|b| b.pv.first() != first_move) {
                    let mut kept = vec![first.clone()];
                    if let Some(b) = &best {
                        kept.extend(
                            b.lines
                                .iter()
                                .filter(|l| l.pv.first() != first_move)
                                .cloned(),
                        );
                    }
                    kept.truncate(lines);
                    best = Some(Iteration {
                        depth: depth - 1,
                        lines: kept,
                        ..iteration
                    });
                }
                break;
            }
            // Stop early on a decided score (a faster win cannot be found by going
            // deeper than twice the distance) or when time is more than half gone.
            if score.abs() >= MATE - depth as i32 || self.should_stop_iterating() {
                break;
            }
        }
        if let Some(b) = &mut best {
            b.nodes = self.nodes;
            b.elapsed = self.start.elapsed();
        }
        best.or_else(|| {
            Some(Iteration {
                depth: 0,
                seldepth: 0,
                score: 0,
                nodes: self.nodes,
                elapsed: self.start.elapsed(),
                pv: vec![root_moves[0]],
                lines: vec![Line {
                    score: 0,
                    pv: vec![root_moves[0]],
                }],
            })
        })
    }

    /// Past half the time to the deadline, another iteration would rarely finish.
    fn should_stop_iterating(&self) -> bool {
        if self.stopped() {
            return true;
        }
        match self.limits.deadline {
            Some(deadline) => {
                let now = Instant::now();
                let used = now.duration_since(self.start);
                let left = deadline.saturating_duration_since(now);
                left < used
            }
            None => false,
        }
    }

    fn stopped(&self) -> bool {
        self.limits.stop.as_ref().is_some_and(|s| s.load(Relaxed))
    }

    /// Checks the limits every [`CHECK_EVERY`] nodes.
    fn check(&mut self) {
        if self.nodes % CHECK_EVERY != 0 {
            return;
        }
        if self.stopped()
            || self.limits.nodes.is_some_and(|n| self.nodes >= n)
            || self.limits.deadline.is_some_and(|d| Instant::now() >= d)
        {
            self.aborted = true;
        }
    }

    /// One iteration at the root: the best `lines` root moves' lines, best first, and
    /// whether it completed. A move is searched with the score of the last line as the
    /// window's lower bound once there are `lines` of them (with one line, the best so far:
    /// plain alpha-beta), so a move that enters the lines has an exact score.
    fn root(
        &mut self,
        pos: &Position,
        moves: &[Move],
        depth: u32,
        tb: Option<&Tablebase>,
        tb_units: u32,
        lines: usize,
    ) -> (Vec<Line>, bool) {
        let beta = MATE + 1;
        let mut top: Vec<Line> = Vec::with_capacity(lines + 1);
        self.path.push(pos.key());
        for &m in moves {
            let alpha = if top.len() < lines {
                -MATE - 1
            } else {
                top[lines - 1].score
            };
            let child = pos.play(m);
            let score = -self.negamax(&child, depth as i32 - 1, -beta, -alpha, 1, tb, tb_units);
            if self.aborted {
                break;
            }
            if score > alpha {
                let mut pv = Vec::with_capacity(1 + self.pv[1].len());
                pv.push(m);
                pv.extend_from_slice(&self.pv[1]);
                let at = top
                    .iter()
                    .position(|l| score > l.score)
                    .unwrap_or(top.len());
                top.insert(at, Line { score, pv });
                top.truncate(lines);
            }
        }
        self.path.pop();
        if let Some(best) = top.first() {
            if !self.aborted {
                self.store(pos.key(), best.pv[0], depth as i32, best.score, EXACT, 0);
            }
        }
        let complete = !self.aborted;
        (top, complete)
    }

    fn repeated(&self, pos: &Position) -> bool {
        let window = (pos.halfmoves() as usize).min(self.path.len());
        let key = pos.key();
        self.path[self.path.len() - window..]
            .iter()
            .rev()
            .skip(1)
            .step_by(2)
            .any(|k| *k == key)
    }

    /// Score of a position with no legal move, or of a dead draw; `None` otherwise.
    fn game_end(pos: &Position, ply: usize) -> Option<i32> {
        let outcome = pos.outcome()?;
        Some(match outcome {
            Outcome::Draw => 0,
            _ if outcome.winner() == Some(pos.turn()) => MATE - ply as i32,
            _ => -(MATE - ply as i32),
        })
    }

    fn table_score(
        pos: &Position,
        ply: usize,
        tb: Option<&Tablebase>,
        tb_units: u32,
    ) -> Option<i32> {
        let tb = tb?;
        if pos.board().occupied().count() > tb_units {
            return None;
        }
        match tb.probe_wdl(pos) {
            Ok(Some(Wdl::Win)) => Some(TB_WIN - ply as i32),
            Ok(Some(Wdl::Loss)) => Some(-(TB_WIN - ply as i32)),
            Ok(Some(Wdl::Draw)) => Some(0),
            _ => None,
        }
    }

    #[allow(clippy::too_many_lines)]
    fn negamax(
        &mut self,
        pos: &Position,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        tb: Option<&Tablebase>,
        tb_units: u32,
    ) -> i32 {
        self.pv[ply].clear();
        self.nodes += 1;
        self.check();
        if self.aborted {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply as u32);
        if let Some(score) = Self::game_end(pos, ply) {
            return score;
        }
        if self.repeated(pos) || pos.halfmoves() >= 100 {
            return 0;
        }
        if let Some(score) = Self::table_score(pos, ply, tb, tb_units) {
            return score;
        }
        if ply >= MAX_PLY - 1 {
            return self.evaluate(pos);
        }
        if depth <= 0 {
            return self.quiescence(pos, alpha, beta, ply, 0);
        }
        let key = pos.key();
        let mut tt_move = 0u16;
        let slot = self.tt[self.index(key)];
        if slot.key == key && slot.bound != 0 {
            tt_move = slot.mv;
            if i32::from(slot.depth) >= depth {
                let score = from_tt(slot.score, ply);
                let cut = match slot.bound {
                    EXACT => true,
                    LOWER => score >= beta,
                    _ => score <= alpha,
                };
                if cut {
                    return score;
                }
            }
        }
        let mut moves = pos.legal_moves();
        self.order(&mut moves, tt_move, ply);
        let original_alpha = alpha;
        let mut best = -MATE - 1;
        let mut best_move = moves[0];
        self.path.push(key);
        for &m in &moves {
            let child = pos.play(m);
            let score = -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1, tb, tb_units);
            if self.aborted {
                self.path.pop();
                return 0;
            }
            if score > best {
                best = score;
                best_move = m;
                if score > alpha {
                    alpha = score;
                    let (head, tail) = self.pv.split_at_mut(ply + 1);
                    head[ply].clear();
                    head[ply].push(m);
                    head[ply].extend_from_slice(&tail[0]);
                    if score >= beta {
                        if !pos.is_capture(m) {
                            let k = &mut self.killers[ply];
                            if k[0] != m.bits() {
                                k[1] = k[0];
                                k[0] = m.bits();
                            }
                        }
                        let h = &mut self.history[history_index(m)];
                        *h = (*h + depth * depth).min(1 << 20);
                        break;
                    }
                }
            }
        }
        self.path.pop();
        let bound = if best >= beta {
            LOWER
        } else if best > original_alpha {
            EXACT
        } else {
            UPPER
        };
        self.store(key, best_move, depth, best, bound, ply);
        best
    }

    /// Follows forced captures; a side without a capture is evaluated.
    fn quiescence(&mut self, pos: &Position, mut alpha: i32, beta: i32, ply: usize, q: u32) -> i32 {
        self.pv[ply].clear();
        if q > 0 {
            self.nodes += 1;
            self.check();
            if self.aborted {
                return 0;
            }
            self.seldepth = self.seldepth.max(ply as u32);
            if let Some(score) = Self::game_end(pos, ply) {
                return score;
            }
        }
        if !pos.has_capture() || q >= MAX_QUIESCENCE || ply >= MAX_PLY - 1 {
            return self.evaluate(pos);
        }
        let mut best = -MATE - 1;
        for m in pos.legal_moves() {
            let child = pos.play(m);
            let score = -self.quiescence(&child, -beta, -alpha, ply + 1, q + 1);
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    let (head, tail) = self.pv.split_at_mut(ply + 1);
                    head[ply].clear();
                    head[ply].push(m);
                    head[ply].extend_from_slice(&tail[0]);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    fn order(&self, moves: &mut MoveList, tt_move: u16, ply: usize) {
        let killers = self.killers[ply];
        moves.sort_by_cached_key(|m| {
            let bits = m.bits();
            if bits == tt_move {
                i32::MIN
            } else if bits == killers[0] {
                i32::MIN + 1
            } else if bits == killers[1] {
                i32::MIN + 2
            } else {
                -self.history[history_index(*m)]
            }
        });
    }

    fn index(&self, key: u64) -> usize {
        (key as usize) & (self.tt.len() - 1)
    }

    fn store(&mut self, key: u64, m: Move, depth: i32, score: i32, bound: u8, ply: usize) {
        let i = self.index(key);
        let slot = &mut self.tt[i];
        if slot.key == key && i32::from(slot.depth) > depth && bound != EXACT {
            return;
        }
        *slot = Slot {
            key,
            mv: m.bits(),
            depth: depth.clamp(-1, i32::from(i16::MAX)) as i16,
            bound,
            score: to_tt(score, ply),
        };
    }
}

fn history_index(m: Move) -> usize {
    m.from().index() * 64 + m.to().index()
}

/// Decided scores are stored relative to the node, not the root.
fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= DECIDED {
        score + ply as i32
    } else if score <= -DECIDED {
        score - ply as i32
    } else {
        score
    }
}

fn from_tt(score: i32, ply: usize) -> i32 {
    if score >= DECIDED {
        score - ply as i32
    } else if score <= -DECIDED {
        score + ply as i32
    } else {
        score
    }
}

/// The static evaluation, from the side to move (see the module documentation).
#[must_use]
pub fn evaluate(pos: &Position) -> i32 {
    let ours = pos.us().count() as i32;
    let theirs = pos.them().count() as i32;
    let our_moves = pos.count_moves() as i32;
    let other = Position::from_board_unchecked(*pos.board(), pos.turn().other(), pos.rules());
    let their_moves = other.count_moves() as i32;
    UNIT * (theirs - ours) + MOBILITY * (our_moves - their_moves)
}

#[cfg(test)]
mod tests {
    use super::*;
    use antichess_core::Rules;

    fn search(fen: &str, depth: u32) -> Iteration {
        let pos = Position::from_fen(fen, Rules::INTERNATIONAL).unwrap();
        let mut ab = AlphaBeta::new(1 << 20);
        let limits = Limits {
            depth: Some(depth),
            ..Limits::default()
        };
        ab.search(&pos, &[], &[], None, limits, &mut |_| {})
            .unwrap()
    }

    #[test]
    fn finds_a_forced_win() {
        // White's knight b1 must take a3; Black, without pieces, wins at once.
        let it = search("8/8/8/8/8/p7/8/1N6 w - - 0 1", 3);
        assert_eq!(it.pv[0].to_uci(), "b1a3");
        assert_eq!(it.score, -(MATE - 1));
        // Black's pawn must take b1 (any promotion); White, without pieces, wins.
        let it = search("8/8/8/8/8/8/p7/1N6 b - - 0 1", 3);
        assert_eq!(&it.pv[0].to_uci()[..4], "a2b1");
        assert_eq!(it.score, -(MATE - 1));
    }

    #[test]
    fn the_model_evaluation_scores_from_the_side_to_move_and_finds_wins() {
        let model = Arc::new(Model::builtin());
        let mut ab = AlphaBeta::new(1 << 20);
        ab.set_evaluation(Evaluation::Model(Arc::clone(&model)));
        // The static score is the model's log-odds × MODEL_CP, clipped below decided scores.
        let pos = Position::from_fen(
            "rnbqkbnr/pppp1ppp/4p3/8/8/4P3/PPPP1PPP/RNBQKBNR w - - 0 2",
            Rules::INTERNATIONAL,
        )
        .unwrap();
        let expected = (model.logit(&pos) * MODEL_CP).round() as i32;
        assert_eq!(
            ab.evaluate(&pos),
            expected.clamp(-(DECIDED - 1), DECIDED - 1)
        );
        assert_ne!(ab.evaluate(&pos), evaluate(&pos), "the model is in use");
        // Game ends still decide: the forced win of `finds_a_forced_win`.
        let pos = Position::from_fen("8/8/8/8/8/p7/8/1N6 w - - 0 1", Rules::INTERNATIONAL).unwrap();
        let limits = Limits {
            depth: Some(3),
            ..Limits::default()
        };
        let it = ab
            .search(&pos, &[], &[], None, limits, &mut |_| {})
            .unwrap();
        assert_eq!(it.pv[0].to_uci(), "b1a3");
        assert_eq!(it.score, -(MATE - 1));
        // From the start position, a legal move within a node budget.
        let start = Position::start(Rules::INTERNATIONAL);
        let limits = Limits {
            nodes: Some(20_000),
            ..Limits::default()
        };
        let it = ab
            .search(&start, &[], &[], None, limits, &mut |_| {})
            .unwrap();
        assert!(start.is_legal(it.pv[0]));
    }

    #[test]
    fn royal_rule_sets_score_mate_their_way() {
        // Ra8# mates: pritchard3 plays it and wins; pritchard4 (being mated wins) avoids it.
        let fen = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1";
        let run = |rules: Rules| {
            let pos = Position::from_fen(fen, rules).unwrap();
            let mut ab = AlphaBeta::new(1 << 20);
            let limits = Limits {
                depth: Some(2),
                ..Limits::default()
            };
            let it = ab
                .search(&pos, &[], &[], None, limits, &mut |_| {})
                .unwrap();
            (pos.san(it.pv[0]), it.score)
        };
        assert_eq!(run(Rules::PRITCHARD3), ("Ra8#".to_string(), MATE - 1));
        let (san, score) = run(Rules::PRITCHARD4);
        assert_ne!(san, "Ra8#");
        assert!(score > -(MATE - 10), "{san} {score}");
    }

    /// Issue 63 (MultiPV): each of the best N lines has the score a search of its move
    /// alone gives (depth 2: no transposition can change a score), best first, and the
    /// first has the one-line search's score.
    #[test]
    fn multi_pv_lines_have_exact_scores_best_first() {
        let start = Position::start(Rules::INTERNATIONAL);
        let pos = start.play(start.parse_uci("e2e3").unwrap());
        let limits = || Limits {
            depth: Some(2),
            ..Limits::default()
        };
        let all = pos.legal_moves().len();
        let it = AlphaBeta::new(1 << 20)
            .search_lines(&pos, &[], &[], None, limits(), 5, &mut |_| {})
            .unwrap();
        assert_eq!(it.lines.len(), 5);
        assert_eq!((it.lines[0].score, &it.lines[0].pv), (it.score, &it.pv));
        assert!(it.lines.windows(2).all(|w| w[0].score >= w[1].score));
        for line in &it.lines {
            let alone = AlphaBeta::new(1 << 20)
                .search(&pos, &[], &[line.pv[0]], None, limits(), &mut |_| {})
                .unwrap();
            assert_eq!(alone.score, line.score, "{}", line.pv[0]);
        }
        // The lines are the best: no other move scores more than the last of them.
        let last = it.lines[4].score;
        for m in pos.legal_moves() {
            if it.lines.iter().any(|l| l.pv[0] == m) {
                continue;
            }
            let alone = AlphaBeta::new(1 << 20)
                .search(&pos, &[], &[m], None, limits(), &mut |_| {})
                .unwrap();
            assert!(alone.score <= last, "{m}: {} > {last}", alone.score);
        }
        // More lines than moves: every move once.
        let every = AlphaBeta::new(1 << 20)
            .search_lines(&pos, &[], &[], None, limits(), 500, &mut |_| {})
            .unwrap();
        assert_eq!(every.lines.len(), all);
        let one = AlphaBeta::new(1 << 20)
            .search(&pos, &[], &[], None, limits(), &mut |_| {})
            .unwrap();
        assert_eq!(one.lines.len(), 1);
        assert_eq!(one.score, it.score);
    }

    #[test]
    fn respects_the_node_budget_and_gives_a_legal_move() {
        let pos = Position::start(Rules::INTERNATIONAL);
        let mut ab = AlphaBeta::new(1 << 20);
        let limits = Limits {
            nodes: Some(5_000),
            ..Limits::default()
        };
        let it = ab
            .search(&pos, &[], &[], None, limits, &mut |_| {})
            .unwrap();
        assert!(pos.is_legal(it.pv[0]));
        assert!(it.nodes < 5_000 + CHECK_EVERY, "{}", it.nodes);
    }

    #[test]
    fn the_pv_is_legal_and_root_moves_are_respected() {
        let pos = Position::start(Rules::INTERNATIONAL).play(
            Position::start(Rules::INTERNATIONAL)
                .parse_uci("e2e3")
                .unwrap(),
        );
        let only = pos.parse_uci("b7b5").unwrap();
        let mut ab = AlphaBeta::new(1 << 20);
        let limits = Limits {
            depth: Some(4),
            ..Limits::default()
        };
        let it = ab
            .search(&pos, &[], &[only], None, limits, &mut |_| {})
            .unwrap();
        assert_eq!(it.pv[0], only);
        let mut p = pos;
        for m in &it.pv {
            assert!(p.is_legal(*m), "{m} in {}", p.fen());
            p = p.play(*m);
        }
    }
}
