//! UCI move notation: `e2e4`, `e7e8q`, `e7e8k` (promotion to a king). En passant is written
//! as the pawn's move (`e5d6`). The null move `0000` is not a move of this game.

use crate::{Error, Move, Position, Role, Square};

/// The parts of a UCI move, checked for syntax only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UciMove {
    pub from: Square,
    pub to: Square,
    pub promotion: Option<Role>,
}

impl UciMove {
    /// Parses UCI syntax (`e2e4`, `a7a8k`); does not look at any position.
    pub fn parse(token: &str) -> Result<UciMove, Error> {
        let err = |reason: &str| Error::MoveSyntax {
            token: token.to_string(),
            reason: reason.to_string(),
        };
        if token == "0000" {
            return Err(err("null moves do not exist in this game"));
        }
        if !token.is_ascii() || !(4..=5).contains(&token.len()) {
            return Err(err("a UCI move is an origin and a destination square, then an optional promotion letter (e2e4, e7e8k)"));
        }
        let from = Square::from_name(&token[0..2])
            .ok_or_else(|| err("the origin square is not a square (a1 to h8)"))?;
        let to = Square::from_name(&token[2..4])
            .ok_or_else(|| err("the destination square is not a square (a1 to h8)"))?;
        let promotion = match token[4..].chars().next() {
            None => None,
            Some(c) => match Role::from_char(c) {
                Some(Role::Pawn) | None => {
                    return Err(err("the promotion letter must be one of n, b, r, q, k"))
                }
                Some(role) => Some(role),
            },
        };
        Ok(UciMove {
            from,
            to,
            promotion,
        })
    }

    /// The legal move of `pos` that this denotes.
    pub fn to_move(self, pos: &Position, token: &str) -> Result<Move, Error> {
        let legal = pos.legal_moves();
        if let Some(m) = legal
            .iter()
            .find(|m| m.from() == self.from && m.to() == self.to && m.promotion() == self.promotion)
        {
            return Ok(*m);
        }
        let reason = if !pos.us().contains(self.from) {
            format!("no {} piece stands on {}", pos.turn(), self.from)
        } else if legal
            .iter()
            .any(|m| m.from() == self.from && m.to() == self.to)
        {
            if self.promotion.is_some() {
                "this promotion piece is not allowed by the rules".to_string()
            } else {
                "a promotion needs a piece letter (n, b, r, q, k)".to_string()
            }
        } else if pos.has_capture() {
            "a capture is available, and captures are compulsory".to_string()
        } else {
            "the piece cannot move there".to_string()
        };
        Err(Error::IllegalMove {
            token: token.to_string(),
            fen: pos.fen(),
            reason,
        })
    }
}

impl Position {
    /// Parses a UCI move and finds it among the legal moves.
    pub fn parse_uci(&self, token: &str) -> Result<Move, Error> {
        UciMove::parse(token)?.to_move(self, token)
    }
}
