//! `Game`: a start position and the moves played from it, with the Zobrist keys of every
//! position so that repetitions can be detected. Repetition is checked only over the plies
//! since the last irreversible move (capture or pawn move), which bounds the scan.

use crate::{Error, Move, Outcome, Position};

/// How many times the last key of `keys` occurred before, looking back over at most
/// `halfmoves` plies (the positions since the last irreversible move), every second ply.
#[must_use]
pub fn count_repetitions(keys: &[u64], halfmoves: u32) -> usize {
    let Some((&current, earlier)) = keys.split_last() else {
        return 0;
    };
    let window = (halfmoves as usize).min(earlier.len());
    earlier[earlier.len() - window..]
        .iter()
        .rev()
        .skip(1)
        .step_by(2)
        .filter(|k| **k == current)
        .count()
}

/// A game: start position, moves, and the position after each move.
#[derive(Debug, Clone)]
pub struct Game {
    start: Position,
    moves: Vec<Move>,
    keys: Vec<u64>,
    current: Position,
}

impl Game {
    #[must_use]
    pub fn new(start: Position) -> Game {
        Game {
            start,
            moves: Vec::new(),
            keys: vec![start.key()],
            current: start,
        }
    }

    /// Plays a move given as a `Move` (checked for legality).
    pub fn play(&mut self, m: Move) -> Result<(), Error> {
        if !self.current.is_legal(m) {
            return Err(Error::IllegalMove {
                token: m.to_string(),
                fen: self.current.fen(),
                reason: "not among the legal moves".to_string(),
            });
        }
        self.play_unchecked(m);
        Ok(())
    }

    /// Plays a legal move without checking it.
    pub fn play_unchecked(&mut self, m: Move) {
        self.current.play_mut(m);
        self.moves.push(m);
        self.keys.push(self.current.key());
    }

    /// Plays a move given in SAN or UCI.
    pub fn play_text(&mut self, token: &str) -> Result<Move, Error> {
        let m = self.current.parse_move(token)?;
        self.play_unchecked(m);
        Ok(m)
    }

    #[must_use]
    pub fn start(&self) -> &Position {
        &self.start
    }

    #[must_use]
    pub fn position(&self) -> &Position {
        &self.current
    }

    #[must_use]
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Keys of the start position and of the position after each move.
    #[must_use]
    pub fn keys(&self) -> &[u64] {
        &self.keys
    }

    /// How many times the current position occurred before.
    #[must_use]
    pub fn repetitions(&self) -> usize {
        count_repetitions(&self.keys, self.current.halfmoves())
    }

    /// The current position occurred at least twice before.
    #[must_use]
    pub fn is_threefold_repetition(&self) -> bool {
        self.repetitions() >= 2
    }

    /// The outcome of the game as played: the position's own outcome, then threefold
    /// repetition, then (if asked for) the 50-move rule.
    #[must_use]
    pub fn outcome(&self, fifty_move_rule: bool) -> Option<Outcome> {
        self.current.outcome().or_else(|| {
            let fifty = fifty_move_rule && self.current.halfmoves() >= 100;
            (self.is_threefold_repetition() || fifty).then_some(Outcome::Draw)
        })
    }

    /// The moves in SAN, one string each.
    #[must_use]
    pub fn san_moves(&self) -> Vec<String> {
        let mut pos = self.start;
        self.moves
            .iter()
            .map(|m| {
                let san = pos.san(*m);
                pos.play_mut(*m);
                san
            })
            .collect()
    }
}
