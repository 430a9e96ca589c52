//! Rules of Losing Chess (antichess): board representation, legal move generation,
//! making moves, Zobrist keys, rule sets and outcomes, and move and position text (FEN,
//! UCI, SAN, PGN move lists).
//!
//! The game: standard pieces and moves, but captures are compulsory, the king is an
//! ordinary piece (no check; it can be captured; pawns may promote to it), and there is
//! no castling. A player with no pieces left to move has won; a stalemate is scored by the
//! [`RuleSet`]. Two rule sets, Pritchard's variants 3 and 4, make the king royal instead
//! (module [`royal`]).
//!
//! Text is parsed into unchecked values ([`Setup`], [`UciMove`], [`SanMove`]) and then
//! checked against the rules ([`Position::from_setup`], [`Position::parse_move`]).
//!
//! ```
//! use antichess_core::{Position, Rules, perft};
//! let pos = Position::start(Rules::INTERNATIONAL);
//! assert_eq!(perft(&pos, 3), 8067);
//! let after = pos.play(pos.parse_san("e3").unwrap());
//! assert_eq!(after.fen(), "rnbqkbnr/pppppppp/8/8/8/4P3/PPPP1PPP/RNBQKBNR b - - 0 1");
//! ```

pub mod attacks;
pub mod bench;
mod bitboard;
mod board;
mod error;
mod game;
pub mod jobs;
mod movegen;
mod moves;
pub mod option_text;
pub mod orthodox;
mod perft;
pub mod pgn;
mod position;
pub mod royal;
mod rules;
mod san;
mod setup;
mod square;
mod types;
mod uci;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use board::Board;
pub use error::{Error, FenField, PositionError};
pub use game::{count_repetitions, Game};
pub use movegen::board_has_capture;
pub use moves::{Move, MoveList, MAX_MOVES};
pub use perft::{divide, perft, perft_full, MOVEGEN_SET};
pub use pgn::play_move_text;
pub use position::Position;
pub use rules::{Outcome, PromotionRule, RuleSet, Rules};
pub use san::SanMove;
pub use setup::{Setup, START_FEN};
pub use square::Square;
pub use types::{ByColor, ByRole, Color, Piece, Role};
pub use uci::UciMove;
