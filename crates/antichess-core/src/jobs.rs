//! The `perft` and `moves` commands as jobs, each with its options in and one
//! serializable report out, which the CLI prints as text or JSON: [`run_perft`] counts the
//! leaves of the legal move tree to a depth in plies (with the count below each root move
//! on request), reporting each root move done; [`moves_report`] lists the legal moves of a
//! game's position, or says how the game ended and why.

use std::fmt;
use std::time::Instant;

use serde::Serialize;

use crate::{perft, perft_full, Game, Move, Position};

/// What [`run_perft`] counts.
#[derive(Debug, Clone, Copy)]
pub struct PerftOptions {
    /// Depth in plies.
    pub depth: u32,
    /// Also the count below each legal move.
    pub divide: bool,
    /// Play every leaf move instead of counting the last ply.
    pub full: bool,
}

/// What [`run_perft`] reports as it goes (nothing at depth 0).
#[derive(Debug, Clone, Copy)]
pub enum PerftEvent {
    /// The count starts below `root_moves` legal moves.
    Started {
        /// The root's legal moves.
        root_moves: usize,
    },
    /// One root move is counted.
    RootMove,
}

/// The count below one root move.
#[derive(Debug, Clone, Serialize)]
pub struct DivideRow {
    /// The move in UCI.
    pub uci: String,
    /// The move in SAN.
    pub san: String,
    /// Leaves below it.
    pub nodes: u64,
}

/// What [`run_perft`] counted.
#[derive(Debug, Clone, Serialize)]
pub struct PerftReport {
    /// The position.
    pub fen: String,
    /// Its rule set.
    pub rules: String,
    /// Depth in plies.
    pub depth: u32,
    /// Leaves.
    pub nodes: u64,
    /// Wall-clock time.
    pub seconds: f64,
    /// Every leaf was played.
    pub full: bool,
    /// With [`PerftOptions::divide`]: the count below each root move, in UCI order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub divide: Option<Vec<DivideRow>>,
}

/// Counts the leaves of `pos`'s legal move tree to `options.depth`.
pub fn run_perft(
    pos: &Position,
    options: PerftOptions,
    on_event: &mut dyn FnMut(PerftEvent),
) -> PerftReport {
    let start = Instant::now();
    let mut rows: Vec<(Move, DivideRow)> = Vec::new();
    let nodes = if options.depth == 0 {
        1
    } else {
        let moves = pos.legal_moves();
        on_event(PerftEvent::Started {
            root_moves: moves.len(),
        });
        for m in &moves {
            let child = pos.play(*m);
            let nodes = if options.full {
                perft_full(&child, options.depth - 1)
            } else {
                perft(&child, options.depth - 1)
            };
            let (uci, san) = (m.to_string(), pos.san(*m));
            rows.push((*m, DivideRow { uci, san, nodes }));
            on_event(PerftEvent::RootMove);
        }
        rows.iter().map(|(_, r)| r.nodes).sum()
    };
    rows.sort_by_key(|(m, _)| m.to_string());
    PerftReport {
        fen: pos.fen(),
        rules: pos.rules().to_string(),
        depth: options.depth,
        nodes,
        seconds: start.elapsed().as_secs_f64(),
        full: options.full,
        divide: options
            .divide
            .then(|| rows.into_iter().map(|(_, r)| r).collect()),
    }
}

impl PerftReport {
    /// The line `perft` writes on stderr: depth, position, time and speed, and whether
    /// every leaf was played.
    #[must_use]
    pub fn summary_line(&self) -> String {
        format!(
            "perft({}) of {} in {:.3} s, {:.1} Mnodes/s{}",
            self.depth,
            self.fen,
            self.seconds,
            self.nodes as f64 / self.seconds.max(1e-9) / 1e6,
            if self.full {
                " (every leaf played)"
            } else {
                " (last ply counted)"
            }
        )
    }
}

/// The text of `perft`: with the count below each root move (UCI, SAN, count; depth 1 or
/// more), a row each and an empty line, then the count of leaves.
impl fmt::Display for PerftReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(rows) = self.divide.as_ref().filter(|_| self.depth > 0) {
            for row in rows {
                writeln!(f, "{} {:<8} {}", row.uci, row.san, row.nodes)?;
            }
            writeln!(f)?;
        }
        writeln!(f, "{}", self.nodes)
    }
}

/// How a game ended, in PGN notation, and why.
#[derive(Debug, Clone, Serialize)]
pub struct OutcomeReport {
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub result: &'static str,
    /// Why, in words.
    pub reason: String,
}

/// A legal move.
#[derive(Debug, Clone, Serialize)]
pub struct MoveReport {
    /// In UCI.
    pub uci: String,
    /// In SAN.
    pub san: String,
}

/// A position's legal moves, or how its game ended (the JSON of `moves`).
#[derive(Debug, Clone, Serialize)]
pub struct MovesReport {
    /// The position.
    pub fen: String,
    /// Its rule set.
    pub rules: String,
    /// The side to move.
    pub turn: &'static str,
    /// How the game ended, if it has.
    pub outcome: Option<OutcomeReport>,
    /// The game goes on and its moves are captures.
    pub captures_compulsory: bool,
    /// The side to move is in check (royal-king rule sets only).
    pub check: bool,
    /// The legal moves (none once the game is over).
    pub moves: Vec<MoveReport>,
    /// The side to move has a capture.
    #[serde(skip)]
    pub has_capture: bool,
}

/// The text of `moves`: the position, its rules and side to move, then the result of a
/// game that is over, or the number of legal moves (saying whether they are compulsory
/// captures, or the side is in check) and a line per move (SAN, UCI).
impl fmt::Display for MovesReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "fen: {}", self.fen)?;
        writeln!(f, "rules: {}", self.rules)?;
        writeln!(f, "to move: {}", self.turn)?;
        if let Some(outcome) = &self.outcome {
            return writeln!(f, "result: {} ({})", outcome.result, outcome.reason);
        }
        writeln!(
            f,
            "legal moves: {}{}",
            self.moves.len(),
            if self.has_capture {
                " (captures are compulsory)"
            } else if self.check {
                " (in check)"
            } else {
                ""
            }
        )?;
        for m in &self.moves {
            writeln!(f, "{:<8} {}", m.san, m.uci)?;
        }
        Ok(())
    }
}

/// The legal moves of `game`'s position, or how the game ended (repetition included, the
/// 50-move rule not).
#[must_use]
pub fn moves_report(game: &Game) -> MovesReport {
    let pos = game.position();
    let outcome = game.outcome(false).map(|outcome| OutcomeReport {
        result: outcome.pgn(),
        reason: end_reason(pos),
    });
    let moves = if outcome.is_some() {
        Vec::new()
    } else {
        pos.legal_moves()
            .iter()
            .map(|m| MoveReport {
                uci: m.to_string(),
                san: pos.san(*m),
            })
            .collect()
    };
    MovesReport {
        fen: pos.fen(),
        rules: pos.rules().to_string(),
        turn: pos.turn().name(),
        captures_compulsory: outcome.is_none() && pos.has_capture(),
        outcome,
        check: pos.is_check(),
        moves,
        has_capture: pos.has_capture(),
    }
}

/// Why the game of a final position `pos` ended.
fn end_reason(pos: &Position) -> String {
    if !pos.has_legal_move() {
        if pos.us().is_empty() {
            format!("{} has no pieces left", pos.turn())
        } else if pos.rules().is_royal() && pos.has_bare_king() {
            format!("{} has a bare king", pos.turn())
        } else if pos.is_check() {
            format!("{} is checkmated", pos.turn())
        } else {
            format!("{} is stalemated", pos.turn())
        }
    } else if pos.is_dead_draw() {
        "only bishops on opposite colours remain; no capture can ever happen".to_string()
    } else {
        "threefold repetition".to_string()
    }
}
