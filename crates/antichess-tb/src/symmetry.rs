//! Board symmetries used to fold tables: the 8 symmetries of the square (without pawns)
//! or the left-right mirror only (with pawns, which move up the board).
//!
//! A transform `t` in 0..8 maps (file, rank) by first transposing (swapping file and rank)
//! if `t & 4`, then mirroring the file if `t & 1`, then mirroring the rank if `t & 2`.
//! Transforms 0 and 1 (identity, left-right mirror) are the only ones allowed with pawns.

use antichess_core::{Bitboard, Board, Square};

/// Transforms allowed for pawnless tables.
pub const ALL_TRANSFORMS: [u8; 8] = [0, 1, 2, 3, 4, 5, 6, 7];
/// Transforms allowed for tables with pawns.
pub const PAWN_TRANSFORMS: [u8; 2] = [0, 1];

/// Transposes a bitboard along the a1–h8 diagonal.
#[must_use]
#[inline]
pub const fn flip_diagonal(bb: u64) -> u64 {
    let k1 = 0x5500_5500_5500_5500u64;
    let k2 = 0x3333_0000_3333_0000u64;
    let k4 = 0x0f0f_0f0f_0000_0000u64;
    let mut x = bb;
    let mut t = k4 & (x ^ (x << 28));
    x ^= t ^ (t >> 28);
    t = k2 & (x ^ (x << 14));
    x ^= t ^ (t >> 14);
    t = k1 & (x ^ (x << 7));
    x ^= t ^ (t >> 7);
    x
}

/// Applies transform `t` to a bitboard.
#[must_use]
#[inline]
pub fn transform_bb(t: u8, bb: Bitboard) -> Bitboard {
    let mut x = bb;
    if t & 4 != 0 {
        x = Bitboard(flip_diagonal(x.0));
    }
    if t & 1 != 0 {
        x = x.flip_horizontal();
    }
    if t & 2 != 0 {
        x = x.flip_vertical();
    }
    x
}

/// Applies transform `t` to a square.
#[must_use]
#[inline]
pub fn transform_square(t: u8, sq: Square) -> Square {
    let (mut f, mut r) = (sq.file(), sq.rank());
    if t & 4 != 0 {
        std::mem::swap(&mut f, &mut r);
    }
    if t & 1 != 0 {
        f = 7 - f;
    }
    if t & 2 != 0 {
        r = 7 - r;
    }
    Square::from_coords(f, r)
}

/// The transform that applies `t` first and then `s`.
#[must_use]
#[inline]
pub fn compose(s: u8, t: u8) -> u8 {
    COMPOSE[usize::from(s & 7)][usize::from(t & 7)]
}

static COMPOSE: [[u8; 8]; 8] = {
    let mut table = [[0u8; 8]; 8];
    let mut s = 0;
    while s < 8 {
        let mut t = 0;
        while t < 8 {
            // Find u with u(sq) == s(t(sq)) for two squares that pin a transform down.
            let mut u = 0;
            while u < 8 {
                if apply(u, 1, 0) == apply2(s as u8, t as u8, 1, 0)
                    && apply(u, 0, 2) == apply2(s as u8, t as u8, 0, 2)
                {
                    table[s][t] = u;
                }
                u += 1;
            }
            t += 1;
        }
        s += 1;
    }
    table
};

/// Square index (rank * 8 + file) of transform `t` applied to (f, r).
const fn apply(t: u8, f: u8, r: u8) -> u8 {
    let (mut f, mut r) = if t & 4 != 0 { (r, f) } else { (f, r) };
    if t & 1 != 0 {
        f = 7 - f;
    }
    if t & 2 != 0 {
        r = 7 - r;
    }
    r * 8 + f
}

const fn apply2(s: u8, t: u8, f: u8, r: u8) -> u8 {
    let sq = apply(t, f, r);
    apply(s, sq % 8, sq / 8)
}

/// Applies transform `t` to every piece of a board.
#[must_use]
pub fn transform_board(t: u8, board: &Board) -> Board {
    if t == 0 {
        return *board;
    }
    let mut out = Board::empty();
    for (sq, piece) in board.pieces() {
        out.put_unchecked(transform_square(t, sq), piece);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bitboard_and_square_transforms_agree() {
        for t in ALL_TRANSFORMS {
            for sq in Square::all() {
                assert_eq!(
                    transform_bb(t, Bitboard::from_square(sq)),
                    Bitboard::from_square(transform_square(t, sq)),
                    "t={t} sq={sq}"
                );
            }
        }
    }

    #[test]
    fn composition_table() {
        for s in ALL_TRANSFORMS {
            for t in ALL_TRANSFORMS {
                for sq in Square::all() {
                    assert_eq!(
                        transform_square(compose(s, t), sq),
                        transform_square(s, transform_square(t, sq))
                    );
                }
            }
        }
    }

    #[test]
    fn transforms_form_a_group() {
        // Every transform has an inverse among the eight.
        for t in ALL_TRANSFORMS {
            assert!(ALL_TRANSFORMS.iter().any(
                |&u| Square::all().all(|sq| transform_square(u, transform_square(t, sq)) == sq)
            ));
        }
    }
}
