//! Argument groups shared by several subcommands.

use antichess_core::{play_move_text, Game, Position, Rules};
use anyhow::Context;
use clap::Args;

/// A position: a FEN and/or a move list played from it, under a rule set.
#[derive(Debug, Clone, Args)]
pub struct PositionArgs {
    /// Start from this FEN (default: the start position). The castling field is ignored.
    #[arg(long, value_name = "FEN")]
    pub fen: Option<String>,

    /// Play these moves from the FEN, e.g. "e3 b5" or "1. e3 b5 2. Bxb5" (SAN or UCI).
    #[arg(long, value_name = "MOVES", allow_hyphen_values = true)]
    pub moves: Option<String>,

    /// Rule set: international, fics, joint, vinciperdi, pritchard; any of the first four
    /// may add +queen-only.
    #[arg(long, value_name = "RULES", default_value = "international")]
    pub rules: Rules,
}

impl PositionArgs {
    /// The game from the FEN through the moves.
    pub fn game(&self) -> anyhow::Result<Game> {
        let start = match &self.fen {
            Some(fen) => {
                Position::from_fen(fen, self.rules).with_context(|| format!("--fen {fen:?}"))?
            }
            None => Position::start(self.rules),
        };
        match &self.moves {
            Some(moves) => play_move_text(start, moves).context("--moves"),
            None => Ok(Game::new(start)),
        }
    }

    /// The position after the moves.
    pub fn position(&self) -> anyhow::Result<Position> {
        Ok(*self.game()?.position())
    }
}
