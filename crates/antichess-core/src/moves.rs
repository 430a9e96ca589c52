//! `Move`: a move in 16 bits, and `MoveList`, a list of moves on the stack.
//!
//! Layout (the move field of the reference solution's proof files, so conversion is free):
//!
//! | bits  | meaning                                                        |
//! |-------|----------------------------------------------------------------|
//! | 0–5   | destination square (a1 = 0)                                    |
//! | 6–11  | origin square                                                  |
//! | 12–14 | promotion: 0 none, 2 knight, 3 bishop, 4 rook, 5 queen, 6 king |
//! | 15    | en passant capture                                             |
//!
//! A `Move` is meaningful only together with the position it is played in (it does not say
//! which piece moves or what it captures).

use std::fmt;

use arrayvec::ArrayVec;

use crate::{Role, Square};

/// A move in 16 bits. See the module documentation for the layout.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[repr(transparent)]
pub struct Move(u16);

/// Largest number of legal moves of any position in this game, with margin: the known
/// maximum for chess is 218, and antichess (no king safety, promotion to a king) stays
/// below 256 because a queen has more moves than any promoting pawn.
pub const MAX_MOVES: usize = 256;

/// Moves on the stack.
pub type MoveList = ArrayVec<Move, MAX_MOVES>;

impl Move {
    const EN_PASSANT: u16 = 1 << 15;

    /// A normal move or a promotion.
    #[must_use]
    #[inline(always)]
    pub const fn new(from: Square, to: Square, promotion: Option<Role>) -> Move {
        let promo = match promotion {
            Some(role) => role as u16 + 1,
            None => 0,
        };
        Move(to.to_u8() as u16 | (from.to_u8() as u16) << 6 | promo << 12)
    }

    /// A non-promoting move.
    #[must_use]
    #[inline(always)]
    pub const fn normal(from: Square, to: Square) -> Move {
        Move(to.to_u8() as u16 | (from.to_u8() as u16) << 6)
    }

    /// An en passant capture (`to` is the square the capturing pawn lands on).
    #[must_use]
    #[inline(always)]
    pub const fn en_passant(from: Square, to: Square) -> Move {
        Move(to.to_u8() as u16 | (from.to_u8() as u16) << 6 | Move::EN_PASSANT)
    }

    /// Reinterprets 16 raw bits. Returns `None` for an invalid promotion code (1 or 7), or
    /// for a move flagged both en passant and promotion.
    #[must_use]
    pub const fn from_bits(bits: u16) -> Option<Move> {
        let promo = (bits >> 12) & 7;
        if promo == 1 || promo == 7 || (promo != 0 && bits & Move::EN_PASSANT != 0) {
            None
        } else {
            Some(Move(bits))
        }
    }

    /// The raw 16 bits.
    #[must_use]
    #[inline(always)]
    pub const fn bits(self) -> u16 {
        self.0
    }

    #[must_use]
    #[inline(always)]
    pub const fn from(self) -> Square {
        Square::from_index(((self.0 >> 6) & 63) as u32)
    }

    #[must_use]
    #[inline(always)]
    pub const fn to(self) -> Square {
        Square::from_index((self.0 & 63) as u32)
    }

    /// The role promoted to, if this is a promotion.
    #[must_use]
    #[inline(always)]
    pub const fn promotion(self) -> Option<Role> {
        let code = (self.0 >> 12) & 7;
        if code == 0 {
            None
        } else {
            Role::from_index(code as usize - 1)
        }
    }

    #[must_use]
    #[inline(always)]
    pub const fn is_promotion(self) -> bool {
        self.0 & (7 << 12) != 0
    }

    #[must_use]
    #[inline(always)]
    pub const fn is_en_passant(self) -> bool {
        self.0 & Move::EN_PASSANT != 0
    }

    /// UCI notation (`e2e4`, `e7e8k`), independent of any position. Use
    /// [`crate::Position::uci`] for the same string with validation against a position.
    #[must_use]
    pub fn to_uci(self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Move {
    /// UCI notation.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from(), self.to())?;
        if let Some(role) = self.promotion() {
            write!(f, "{}", role.char())?;
        }
        Ok(())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Move({self}{})",
            if self.is_en_passant() { " ep" } else { "" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip() {
        for from in Square::all() {
            for to in [Square::A1, Square::H8, Square::E4] {
                for promo in [None, Some(Role::Knight), Some(Role::King)] {
                    let m = Move::new(from, to, promo);
                    assert_eq!((m.from(), m.to(), m.promotion()), (from, to, promo));
                    assert!(!m.is_en_passant());
                    assert_eq!(Move::from_bits(m.bits()), Some(m));
                }
            }
        }
        let ep = Move::en_passant(Square::E5, Square::D6);
        assert!(ep.is_en_passant());
        assert_eq!(ep.to_string(), "e5d6");
    }

    #[test]
    fn reference_encoding() {
        // Promotion codes 2..6 = N, B, R, Q, K.
        let m = Move::new(Square::E7, Square::E8, Some(Role::King));
        assert_eq!(m.bits() >> 12, 6);
        assert_eq!(m.bits() & 63, Square::E8.index() as u16);
        assert_eq!((m.bits() >> 6) & 63, Square::E7.index() as u16);
        assert_eq!(Move::from_bits(1 << 12), None);
        assert_eq!(m.to_string(), "e7e8k");
    }
}
