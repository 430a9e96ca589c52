//! Squares of the board, numbered a1 = 0, b1 = 1, …, h8 = 63 (file + 8 × rank).
//!
//! Files and ranks are plain `u8` in 0..8 (file a = 0, rank 1 = 0).

use std::fmt;

use crate::Color;

/// A square, a1 = 0 … h8 = 63. Always valid (< 64).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(transparent)]
pub struct Square(u8);

macro_rules! squares {
    ($($name:ident = $idx:expr),* $(,)?) => {
        impl Square {
            $(pub const $name: Square = Square($idx);)*
        }
    };
}

squares! {
    A1 = 0, B1 = 1, C1 = 2, D1 = 3, E1 = 4, F1 = 5, G1 = 6, H1 = 7,
    A2 = 8, B2 = 9, C2 = 10, D2 = 11, E2 = 12, F2 = 13, G2 = 14, H2 = 15,
    A3 = 16, B3 = 17, C3 = 18, D3 = 19, E3 = 20, F3 = 21, G3 = 22, H3 = 23,
    A4 = 24, B4 = 25, C4 = 26, D4 = 27, E4 = 28, F4 = 29, G4 = 30, H4 = 31,
    A5 = 32, B5 = 33, C5 = 34, D5 = 35, E5 = 36, F5 = 37, G5 = 38, H5 = 39,
    A6 = 40, B6 = 41, C6 = 42, D6 = 43, E6 = 44, F6 = 45, G6 = 46, H6 = 47,
    A7 = 48, B7 = 49, C7 = 50, D7 = 51, E7 = 52, F7 = 53, G7 = 54, H7 = 55,
    A8 = 56, B8 = 57, C8 = 58, D8 = 59, E8 = 60, F8 = 61, G8 = 62, H8 = 63,
}

impl Square {
    /// The square with the given index, if it is below 64.
    #[must_use]
    #[inline]
    pub const fn new(index: u32) -> Option<Square> {
        if index < 64 {
            Some(Square(index as u8))
        } else {
            None
        }
    }

    /// The square with the given index, which must be below 64 (checked in debug builds;
    /// in release builds the index is masked to 6 bits).
    #[must_use]
    #[inline]
    pub const fn from_index(index: u32) -> Square {
        debug_assert!(index < 64);
        Square((index & 63) as u8)
    }

    /// The square on `file` (0 = a) and `rank` (0 = first rank).
    #[must_use]
    #[inline]
    pub const fn from_coords(file: u8, rank: u8) -> Square {
        debug_assert!(file < 8 && rank < 8);
        Square(((rank & 7) << 3) | (file & 7))
    }

    /// All 64 squares in index order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..64).map(Square)
    }

    #[must_use]
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    #[must_use]
    #[inline]
    pub const fn to_u8(self) -> u8 {
        self.0
    }

    /// File, 0 = a … 7 = h.
    #[must_use]
    #[inline]
    pub const fn file(self) -> u8 {
        self.0 & 7
    }

    /// Rank, 0 = first rank … 7 = eighth rank.
    #[must_use]
    #[inline]
    pub const fn rank(self) -> u8 {
        self.0 >> 3
    }

    /// The rank as seen from `color`'s side (0 = its back rank).
    #[must_use]
    #[inline]
    pub const fn relative_rank(self, color: Color) -> u8 {
        match color {
            Color::White => self.rank(),
            Color::Black => 7 - self.rank(),
        }
    }

    /// Mirrors the square top to bottom (a1 ↔ a8).
    #[must_use]
    #[inline]
    pub const fn flip_vertical(self) -> Square {
        Square(self.0 ^ 56)
    }

    /// Mirrors the square left to right (a1 ↔ h1).
    #[must_use]
    #[inline]
    pub const fn flip_horizontal(self) -> Square {
        Square(self.0 ^ 7)
    }

    /// Mirrors the square along the a1–h8 diagonal (b1 ↔ a2).
    #[must_use]
    #[inline]
    pub const fn flip_diagonal(self) -> Square {
        Square(((self.0 >> 3) | (self.0 << 3)) & 63)
    }

    /// Whether the square is light (h1 is light, a1 is dark).
    #[must_use]
    #[inline]
    pub const fn is_light(self) -> bool {
        (self.file() + self.rank()) % 2 == 1
    }

    /// The square `delta` indices away, if that stays on the board. Does not check for
    /// wrapping around the board's edge.
    #[must_use]
    #[inline]
    pub const fn offset(self, delta: i32) -> Option<Square> {
        let index = self.0 as i32 + delta;
        if index >= 0 && index < 64 {
            Some(Square(index as u8))
        } else {
            None
        }
    }

    /// Parses `e4` style names (lowercase file, rank digit).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Square> {
        match name.as_bytes() {
            &[f @ b'a'..=b'h', r @ b'1'..=b'8'] => Some(Square::from_coords(f - b'a', r - b'1')),
            _ => None,
        }
    }

    /// The file letter, `'a'` … `'h'`.
    #[must_use]
    pub const fn file_char(self) -> char {
        (b'a' + self.file()) as char
    }

    /// The rank digit, `'1'` … `'8'`.
    #[must_use]
    pub const fn rank_char(self) -> char {
        (b'1' + self.rank()) as char
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file_char(), self.rank_char())
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            self.file_char().to_ascii_uppercase(),
            self.rank_char()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for sq in Square::all() {
            assert_eq!(Square::from_name(&sq.to_string()), Some(sq));
        }
        assert_eq!(Square::from_name("i1"), None);
        assert_eq!(Square::from_name("a9"), None);
        assert_eq!(Square::from_name("a"), None);
    }

    #[test]
    fn colors_and_flips() {
        assert!(!Square::A1.is_light());
        assert!(Square::H1.is_light());
        assert_eq!(Square::B1.flip_diagonal(), Square::A2);
        assert_eq!(Square::A1.flip_vertical(), Square::A8);
        assert_eq!(Square::A1.flip_horizontal(), Square::H1);
        assert_eq!(Square::E2.relative_rank(Color::Black), 6);
    }
}
