//! `Board`: piece placement only (no side to move, no clocks), as one bitboard per role and
//! one per colour. Invariant: the role bitboards are pairwise disjoint, the colour
//! bitboards are disjoint, and both partitions cover the same occupied set.

use std::fmt;

use crate::{Bitboard, ByColor, Color, Error, FenField, Piece, Role, Square};

/// Piece placement.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Board {
    by_role: [Bitboard; 6],
    by_color: [Bitboard; 2],
}

impl Board {
    /// No pieces.
    #[must_use]
    pub const fn empty() -> Board {
        Board {
            by_role: [Bitboard::EMPTY; 6],
            by_color: [Bitboard::EMPTY; 2],
        }
    }

    /// The standard starting placement.
    #[must_use]
    pub fn start() -> Board {
        Board::from_board_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR")
            .expect("start position parses")
    }

    #[must_use]
    #[inline(always)]
    pub const fn occupied(&self) -> Bitboard {
        Bitboard(self.by_color[0].0 | self.by_color[1].0)
    }

    #[must_use]
    #[inline(always)]
    pub const fn by_color(&self, color: Color) -> Bitboard {
        self.by_color[color as usize]
    }

    #[must_use]
    #[inline(always)]
    pub const fn by_role(&self, role: Role) -> Bitboard {
        self.by_role[role as usize]
    }

    #[must_use]
    #[inline(always)]
    pub const fn by_piece(&self, piece: Piece) -> Bitboard {
        Bitboard(self.by_role[piece.role as usize].0 & self.by_color[piece.color as usize].0)
    }

    #[must_use]
    #[inline(always)]
    pub const fn pawns(&self) -> Bitboard {
        self.by_role[Role::Pawn as usize]
    }

    #[must_use]
    #[inline(always)]
    pub const fn knights(&self) -> Bitboard {
        self.by_role[Role::Knight as usize]
    }

    #[must_use]
    #[inline(always)]
    pub const fn bishops(&self) -> Bitboard {
        self.by_role[Role::Bishop as usize]
    }

    #[must_use]
    #[inline(always)]
    pub const fn rooks(&self) -> Bitboard {
        self.by_role[Role::Rook as usize]
    }

    #[must_use]
    #[inline(always)]
    pub const fn queens(&self) -> Bitboard {
        self.by_role[Role::Queen as usize]
    }

    #[must_use]
    #[inline(always)]
    pub const fn kings(&self) -> Bitboard {
        self.by_role[Role::King as usize]
    }

    /// Bishops and queens.
    #[must_use]
    #[inline(always)]
    pub const fn diagonal_sliders(&self) -> Bitboard {
        Bitboard(self.bishops().0 | self.queens().0)
    }

    /// Rooks and queens.
    #[must_use]
    #[inline(always)]
    pub const fn straight_sliders(&self) -> Bitboard {
        Bitboard(self.rooks().0 | self.queens().0)
    }

    /// The role of the piece on `sq`, if any.
    #[must_use]
    #[inline]
    pub fn role_at(&self, sq: Square) -> Option<Role> {
        if !self.occupied().contains(sq) {
            None
        } else if self.pawns().contains(sq) {
            Some(Role::Pawn)
        } else if self.knights().contains(sq) {
            Some(Role::Knight)
        } else if self.bishops().contains(sq) {
            Some(Role::Bishop)
        } else if self.rooks().contains(sq) {
            Some(Role::Rook)
        } else if self.queens().contains(sq) {
            Some(Role::Queen)
        } else {
            Some(Role::King)
        }
    }

    /// The colour of the piece on `sq`, if any.
    #[must_use]
    #[inline]
    pub fn color_at(&self, sq: Square) -> Option<Color> {
        if self.by_color[0].contains(sq) {
            Some(Color::White)
        } else if self.by_color[1].contains(sq) {
            Some(Color::Black)
        } else {
            None
        }
    }

    /// The piece on `sq`, if any.
    #[must_use]
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        Some(Piece::new(self.color_at(sq)?, self.role_at(sq)?))
    }

    /// Puts `piece` on the empty square `sq`. The square must be empty.
    #[inline(always)]
    pub fn put_unchecked(&mut self, sq: Square, piece: Piece) {
        debug_assert!(!self.occupied().contains(sq), "{sq} is occupied");
        let bb = Bitboard::from_square(sq);
        self.by_role[piece.role as usize] |= bb;
        self.by_color[piece.color as usize] |= bb;
    }

    /// Removes `piece` from `sq`, where it must stand.
    #[inline(always)]
    pub fn remove_unchecked(&mut self, sq: Square, piece: Piece) {
        debug_assert_eq!(self.piece_at(sq), Some(piece));
        let bb = Bitboard::from_square(sq);
        self.by_role[piece.role as usize] ^= bb;
        self.by_color[piece.color as usize] ^= bb;
    }

    /// Puts `piece` on `sq`, replacing whatever stood there.
    pub fn set(&mut self, sq: Square, piece: Piece) {
        self.clear(sq);
        self.put_unchecked(sq, piece);
    }

    /// Removes whatever stands on `sq`, returning it.
    pub fn clear(&mut self, sq: Square) -> Option<Piece> {
        let piece = self.piece_at(sq)?;
        self.remove_unchecked(sq, piece);
        Some(piece)
    }

    /// Number of pieces (units) of each colour.
    #[must_use]
    pub fn counts(&self) -> ByColor<u32> {
        ByColor::new(self.by_color[0].count(), self.by_color[1].count())
    }

    /// Iterates over all pieces.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        self.occupied()
            .map(move |sq| (sq, self.piece_at(sq).expect("occupied")))
    }

    /// The board with colours swapped and mirrored top to bottom (White's pieces become
    /// Black's pieces on the mirrored squares).
    #[must_use]
    pub fn swap_colors(&self) -> Board {
        let mut by_role = self.by_role;
        for bb in &mut by_role {
            *bb = bb.flip_vertical();
        }
        Board {
            by_role,
            by_color: [
                self.by_color[1].flip_vertical(),
                self.by_color[0].flip_vertical(),
            ],
        }
    }

    /// Parses the board field of a FEN (`rnbqkbnr/pppppppp/8/...`).
    pub fn from_board_fen(text: &str) -> Result<Board, Error> {
        let err = |reason: String| Error::Fen {
            field: FenField::Board,
            token: text.to_string(),
            reason,
        };
        let ranks: Vec<&str> = text.split('/').collect();
        if ranks.len() != 8 {
            return Err(err(format!(
                "has {} ranks separated by '/', expected 8",
                ranks.len()
            )));
        }
        let mut board = Board::empty();
        for (i, rank_text) in ranks.iter().enumerate() {
            let rank = 7 - i as u8;
            let mut file = 0u8;
            for c in rank_text.chars() {
                if let Some(d) = c.to_digit(10) {
                    if d == 0 || d > 8 {
                        return Err(err(format!(
                            "rank {} (\"{rank_text}\") has the digit {d}; empty-square counts \
                             are 1 to 8",
                            rank + 1
                        )));
                    }
                    file += d as u8;
                } else if let Some(piece) = Piece::from_char(c) {
                    if file < 8 {
                        board.put_unchecked(Square::from_coords(file, rank), piece);
                    }
                    file += 1;
                } else {
                    return Err(err(format!(
                        "rank {} (\"{rank_text}\") has '{c}', which is neither a piece letter \
                         (pnbrqk, PNBRQK) nor a digit",
                        rank + 1
                    )));
                }
                if file > 8 {
                    break;
                }
            }
            if file != 8 {
                return Err(err(format!(
                    "rank {} (\"{rank_text}\") covers {} squares, expected 8",
                    rank + 1,
                    if file > 8 {
                        "more than 8".to_string()
                    } else {
                        file.to_string()
                    }
                )));
            }
        }
        Ok(board)
    }

    /// The board field of a FEN.
    #[must_use]
    pub fn board_fen(&self) -> String {
        let mut fen = String::with_capacity(64);
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                match self.piece_at(Square::from_coords(file, rank)) {
                    Some(piece) => {
                        if empty > 0 {
                            fen.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        fen.push(piece.char());
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                fen.push(char::from(b'0' + empty));
            }
            if rank > 0 {
                fen.push('/');
            }
        }
        fen
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Board({})", self.board_fen())
    }
}

impl fmt::Display for Board {
    /// An 8×8 diagram, rank 8 first, `.` for an empty square.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..8).rev() {
            for file in 0..8 {
                let c = self
                    .piece_at(Square::from_coords(file, rank))
                    .map_or('.', Piece::char);
                write!(f, "{c}{}", if file < 7 { " " } else { "\n" })?;
            }
        }
        Ok(())
    }
}
