//! `Setup`: an unchecked position as read from a FEN. Parsing checks syntax only;
//! [`crate::Position::from_setup`] checks that it is a position of this game.
//!
//! FEN fields: board, side to move, castling, en passant, halfmove clock, fullmove number.
//! Trailing fields may be omitted (defaults `w - - 0 1`). The castling field is checked for
//! syntax (`-`, or letters from `KQkq` and files `A`–`H`/`a`–`h`) and then ignored: there is
//! no castling in this game, so FENs from lichess and python-chess read as they are.

use std::fmt;
use std::str::FromStr;

use crate::{Board, Color, Error, FenField, Square};

/// A position as written in a FEN, not yet validated.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Setup {
    pub board: Board,
    pub turn: Color,
    /// The en passant target square as written (validated later).
    pub ep_square: Option<Square>,
    /// Plies since the last capture or pawn move.
    pub halfmoves: u32,
    /// Starts at 1 and increases after each Black move.
    pub fullmoves: u32,
}

impl Default for Setup {
    fn default() -> Setup {
        Setup::start()
    }
}

/// The start position's FEN. Note the empty castling field: there is no castling.
pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1";

impl Setup {
    /// The standard start position.
    #[must_use]
    pub fn start() -> Setup {
        Setup {
            board: Board::start(),
            turn: Color::White,
            ep_square: None,
            halfmoves: 0,
            fullmoves: 1,
        }
    }

    /// A setup with the given board, `turn` to move, no en passant square and fresh clocks.
    #[must_use]
    pub fn new(board: Board, turn: Color) -> Setup {
        Setup {
            board,
            turn,
            ep_square: None,
            halfmoves: 0,
            fullmoves: 1,
        }
    }

    /// Parses a FEN. Fields after the board may be omitted.
    pub fn from_fen(fen: &str) -> Result<Setup, Error> {
        let mut fields = fen.split_whitespace();
        let board_text = fields.next().ok_or_else(|| Error::Fen {
            field: FenField::Board,
            token: fen.to_string(),
            reason: "the FEN is empty".to_string(),
        })?;
        let board = Board::from_board_fen(board_text)?;
        let mut setup = Setup::new(board, Color::White);

        if let Some(turn) = fields.next() {
            setup.turn = match turn {
                "w" => Color::White,
                "b" => Color::Black,
                _ => {
                    return Err(Error::Fen {
                        field: FenField::Turn,
                        token: turn.to_string(),
                        reason: "expected 'w' or 'b'".to_string(),
                    })
                }
            };
        }

        if let Some(castling) = fields.next() {
            check_castling(castling)?;
        }

        if let Some(ep) = fields.next() {
            if ep != "-" {
                let sq = Square::from_name(ep).ok_or_else(|| Error::Fen {
                    field: FenField::EnPassant,
                    token: ep.to_string(),
                    reason: "expected '-' or a square such as e3 or d6".to_string(),
                })?;
                setup.ep_square = Some(sq);
            }
        }

        if let Some(halfmoves) = fields.next() {
            setup.halfmoves = halfmoves.parse().map_err(|_| Error::Fen {
                field: FenField::Halfmoves,
                token: halfmoves.to_string(),
                reason: "expected a non-negative integer".to_string(),
            })?;
        }

        if let Some(fullmoves) = fields.next() {
            let n: u32 = fullmoves.parse().map_err(|_| Error::Fen {
                field: FenField::Fullmoves,
                token: fullmoves.to_string(),
                reason: "expected a positive integer".to_string(),
            })?;
            // Some writers emit 0; read it as 1, as python-chess does.
            setup.fullmoves = n.max(1);
        }

        if let Some(extra) = fields.next() {
            return Err(Error::Fen {
                field: FenField::Extra,
                token: extra.to_string(),
                reason: "a FEN has at most six fields".to_string(),
            });
        }
        Ok(setup)
    }

    /// The FEN, with an empty castling field.
    #[must_use]
    pub fn fen(&self) -> String {
        format!(
            "{} {} - {} {} {}",
            self.board.board_fen(),
            self.turn.char(),
            self.ep_square
                .map_or_else(|| "-".to_string(), |sq| sq.to_string()),
            self.halfmoves,
            self.fullmoves
        )
    }
}

fn check_castling(castling: &str) -> Result<(), Error> {
    if castling == "-" {
        return Ok(());
    }
    let mut seen = Vec::new();
    for c in castling.chars() {
        let valid = matches!(c, 'K' | 'Q' | 'k' | 'q' | 'A'..='H' | 'a'..='h');
        if !valid || seen.contains(&c) || seen.len() >= 4 {
            return Err(Error::Fen {
                field: FenField::Castling,
                token: castling.to_string(),
                reason: if valid {
                    "castling rights repeat or exceed four".to_string()
                } else {
                    format!(
                        "'{c}' is not a castling right (expected '-' or letters from KQkq or \
                         files A-H/a-h; castling rights are accepted and ignored)"
                    )
                },
            });
        }
        seen.push(c);
    }
    Ok(())
}

impl FromStr for Setup {
    type Err = Error;
    fn from_str(fen: &str) -> Result<Setup, Error> {
        Setup::from_fen(fen)
    }
}

impl fmt::Debug for Setup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Setup({})", self.fen())
    }
}

impl fmt::Display for Setup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.fen())
    }
}
