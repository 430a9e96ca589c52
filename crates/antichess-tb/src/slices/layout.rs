//! Where a position of a pawn material lives in the slice generator's store: its pawn
//! configuration (the set of White's pawns and the set of Black's pawns, each a colex rank
//! over the 48 squares of ranks 2–7), its side to move, and the placement of the other
//! units (one 6-bit square field per unit, in [`Material::groups`] order). The layout
//! is the prototype's and is not a file format: every placement (two units on one square,
//! a unit on a pawn) and both mirror images of a configuration have room, the unused
//! ones are never written.
//!
//! The advancement of a configuration (the sum over White's pawns of their rank above
//! the second, and over Black's below the seventh) grows by one or two with every pawn
//! move that stays in the material, so the configurations of one advancement depend only
//! on those of larger ones (and on other materials).

use antichess_core::{Bitboard, Board, Color, Piece, Role, Square};

use crate::index::{binomial, colex_rank};
use crate::material::Material;

/// The squares pawns can stand on (ranks 2–7).
const PAWN_SQUARES: u64 = 0x00ff_ffff_ffff_ff00;

/// The pawn configurations and unit placements of one material.
#[derive(Debug, Clone)]
pub(crate) struct SliceLayout {
    /// White's pawn sets in colex order (bitboards).
    pub(crate) white_sets: Vec<u64>,
    /// Black's pawn sets in colex order.
    pub(crate) black_sets: Vec<u64>,
    white_pawns: u32,
    black_pawns: u32,
    /// The units other than pawns, one per field.
    pub(crate) units: Vec<Piece>,
}

/// All `k`-subsets of the 48 pawn squares in colex order (Gosper's hack enumerates the
/// 48-bit masks in increasing order, which is colex order).
fn sets(k: u32) -> Vec<u64> {
    if k == 0 {
        return vec![0];
    }
    let mut out = Vec::with_capacity(binomial(48, k) as usize);
    let mut x: u64 = (1 << k) - 1;
    while x < 1 << 48 {
        out.push(x << 8);
        let c = x & x.wrapping_neg();
        let r = x + c;
        x = (((r ^ x) >> 2) / c) | r;
    }
    out
}

/// The colex rank of a set of pawn squares among the sets of its size.
#[inline]
fn rank_set(bb: u64) -> u64 {
    colex_rank(bb >> 8)
}

/// The advancement of a set of `color`'s pawns (0 when all stand on their second rank).
pub(crate) fn advancement(bb: u64, color: Color) -> u32 {
    Bitboard(bb)
        .map(|sq| match color {
            Color::White => u32::from(sq.rank()) - 1,
            Color::Black => 6 - u32::from(sq.rank()),
        })
        .sum()
}

impl SliceLayout {
    pub(crate) fn new(material: &Material) -> SliceLayout {
        let white_pawns = u32::from(material.count(Color::White, Role::Pawn));
        let black_pawns = u32::from(material.count(Color::Black, Role::Pawn));
        let mut units = Vec::new();
        for (piece, count) in material.groups() {
            if piece.role != Role::Pawn {
                units.extend((0..count).map(|_| piece));
            }
        }
        SliceLayout {
            white_sets: sets(white_pawns),
            black_sets: sets(black_pawns),
            white_pawns,
            black_pawns,
            units,
        }
    }

    /// Pawn configurations (including those with a square taken twice, never used).
    pub(crate) fn configs(&self) -> u64 {
        (self.white_sets.len() * self.black_sets.len()) as u64
    }

    /// Placements of the other units per configuration and side: `64^units`.
    pub(crate) fn placements(&self) -> u64 {
        1 << (6 * self.units.len())
    }

    /// The configuration of White's and Black's pawn sets.
    #[inline]
    pub(crate) fn config(&self, white: u64, black: u64) -> u64 {
        rank_set(white) * self.black_sets.len() as u64 + rank_set(black)
    }

    /// The pawn sets of a configuration.
    #[inline]
    pub(crate) fn pawns(&self, config: u64) -> (u64, u64) {
        let n = self.black_sets.len() as u64;
        (
            self.white_sets[(config / n) as usize],
            self.black_sets[(config % n) as usize],
        )
    }

    /// The configuration of the left-right mirror images of the pawn sets.
    #[inline]
    pub(crate) fn mirror_config(&self, white: u64, black: u64) -> u64 {
        self.config(
            Bitboard(white).flip_horizontal().0,
            Bitboard(black).flip_horizontal().0,
        )
    }

    /// The store's position number of a configuration, side to move and placement.
    #[inline]
    pub(crate) fn position(&self, config: u64, side: Color, placement: u64) -> u64 {
        (config * 2 + side.index() as u64) * self.placements() + placement
    }

    /// The board of a configuration and placement, or `None` if two units share a square.
    pub(crate) fn board(&self, white: u64, black: u64, placement: u64) -> Option<Board> {
        let mut board = Board::empty();
        for sq in Bitboard(white) {
            board.put_unchecked(sq, Piece::new(Color::White, Role::Pawn));
        }
        for sq in Bitboard(black) {
            board.put_unchecked(sq, Piece::new(Color::Black, Role::Pawn));
        }
        let mut occupied = white | black;
        for (i, &piece) in self.units.iter().enumerate() {
            let sq = ((placement >> (6 * i)) & 63) as u32;
            if occupied & 1 << sq != 0 {
                return None;
            }
            occupied |= 1 << sq;
            board.put_unchecked(Square::from_index(sq), piece);
        }
        Some(board)
    }

    /// The store's position number of `board` (of this material, pawns on ranks 2–7)
    /// with `side` to move, mirrored into the canonical configuration if needed.
    pub(crate) fn locate(&self, board: &Board, side: Color) -> u64 {
        let white = board.by_piece(Piece::new(Color::White, Role::Pawn)).0;
        let black = board.by_piece(Piece::new(Color::Black, Role::Pawn)).0;
        debug_assert_eq!(white.count_ones(), self.white_pawns);
        debug_assert_eq!(black.count_ones(), self.black_pawns);
        debug_assert_eq!((white | black) & !PAWN_SQUARES, 0);
        let config = self.config(white, black);
        let mirror = self.mirror_config(white, black);
        let flip = mirror < config;
        let mut placement = 0;
        let mut field = 0;
        let mut i = 0;
        while i < self.units.len() {
            let piece = self.units[i];
            let mut bb = board.by_piece(piece);
            if flip {
                bb = bb.flip_horizontal();
            }
            for sq in bb {
                placement |= (sq.index() as u64) << (6 * field);
                field += 1;
            }
            while i < self.units.len() && self.units[i] == piece {
                i += 1;
            }
        }
        debug_assert_eq!(field, self.units.len());
        self.position(config.min(mirror), side, placement)
    }

    /// Whether the configuration is the smaller of it and its mirror image (the one
    /// generated).
    #[inline]
    pub(crate) fn is_canonical(&self, config: u64) -> bool {
        let (w, b) = self.pawns(config);
        w & b == 0 && self.mirror_config(w, b) >= config
    }
}
