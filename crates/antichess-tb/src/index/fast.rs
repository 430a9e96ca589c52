//! A generation-only index for pawnless materials of distinct single pieces: the lead
//! piece folded by the 8 symmetries (its orbit, as in [`TableIndex`]), then one 6-bit
//! square field per other piece, so that decoding is bit extraction and a move of a piece
//! other than the lead adds `(to − from) << shift` to the index. Slots whose pieces
//! collide, and the non-canonical images of positions whose lead stands on the a1–h8
//! diagonal, are unused. The file's combinatorial index ([`TableIndex`]) is filled from
//! this layout once generation is over (docs/research/tb-memory.md).

use std::sync::Arc;

use antichess_core::{Board, Piece, Square};

use super::{LeadMap, TableIndex, ABSENT, LEAD};
use crate::material::Material;

/// The low three bits (file) of every 6-bit field.
const FILES: u64 = 0o0707_0707_0707_0707_0707;

/// The index of one material in the generation layout.
#[derive(Debug, Clone)]
pub struct FastIndex {
    lead_piece: Piece,
    lead: Arc<LeadMap>,
    /// The other pieces, most significant field first (the order of [`TableIndex`]'s
    /// groups).
    pieces: arrayvec::ArrayVec<(Piece, u32), 11>,
    /// Shift of each piece's field (`color * 6 + role`), `LEAD` or `ABSENT`.
    shift_of: [u8; 12],
    /// Bits of the fields.
    shift: u32,
    /// [`FILES`] restricted to the fields.
    files: u64,
    size: u64,
}

/// A decoded position of a [`FastIndex`] (in its orbit representative's frame).
#[derive(Debug, Clone, Default)]
pub struct FastNear {
    board: Board,
    /// The orbit part of the index (`orbit << shift`).
    base: u64,
    fields: u64,
    /// The lead stands on the a1–h8 diagonal: the transpose fixes it.
    diagonal: bool,
}

impl FastNear {
    /// The decoded board.
    #[must_use]
    #[inline]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The number of symmetries fixing the position.
    #[must_use]
    #[inline]
    pub fn stab(&self) -> u32 {
        1 + u32::from(self.diagonal && transpose(self.fields) == self.fields)
    }
}

/// Every field's square transposed (file and rank swapped).
#[inline(always)]
fn transpose(x: u64) -> u64 {
    ((x & FILES) << 3) | ((x >> 3) & FILES)
}

impl FastIndex {
    /// The layout of `material` (canonical orientation), if it has no pawns, at least two
    /// pieces and no repeated piece.
    #[must_use]
    pub fn new(material: &Material) -> Option<FastIndex> {
        if material.has_pawns() {
            return None;
        }
        let index = TableIndex::new(material);
        if index.groups.is_empty() || index.groups.iter().any(|g| g.count != 1) {
            return None;
        }
        if index.lead.count != 1 || index.lead.pawn {
            return None;
        }
        let m = index.groups.len() as u32;
        let shift = 6 * m;
        let mut pieces = arrayvec::ArrayVec::new();
        let mut shift_of = [ABSENT; 12];
        let code = |p: Piece| p.color.index() * 6 + p.role.index();
        shift_of[code(index.lead_piece)] = LEAD;
        for (k, g) in index.groups.iter().enumerate() {
            let s = 6 * (m - 1 - k as u32);
            pieces.push((g.piece, s));
            shift_of[code(g.piece)] = s as u8;
        }
        let lead = index.lead.clone();
        let size = (lead.orbits() as u64) << shift;
        Some(FastIndex {
            lead_piece: index.lead_piece,
            lead,
            pieces,
            shift_of,
            shift,
            files: FILES & ((1u64 << shift) - 1),
            size,
        })
    }

    /// Number of slots per side to move (used or not).
    #[must_use]
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The fields of every piece under transform `t`.
    #[inline(always)]
    fn transform(&self, t: u8, x: u64) -> u64 {
        let mut y = x;
        if t & 4 != 0 {
            y = transpose(y);
        }
        if t & 1 != 0 {
            y ^= self.files;
        }
        if t & 2 != 0 {
            y ^= self.files << 3;
        }
        y
    }

    /// The canonical index and stabiliser size of the lead orbit `orbit` with `fields`
    /// (already in the representative's frame).
    #[inline(always)]
    fn canonical(&self, orbit: u64, fields: u64) -> (u64, u32) {
        let base = orbit << self.shift;
        if self.lead.stabilizers[orbit as usize] == 0 {
            return (base | fields, 1);
        }
        let image = transpose(fields);
        (base | fields.min(image), 1 + u32::from(image == fields))
    }

    /// Decodes `idx` into `near`; returns whether it is a used slot (no two pieces on one
    /// square, and the canonical one of its symmetric images).
    #[inline]
    pub fn decode_used(&self, idx: u64, near: &mut FastNear) -> bool {
        let orbit = idx >> self.shift;
        let fields = idx & ((1u64 << self.shift) - 1);
        let lead_sq = self.lead.reps[orbit as usize].0.trailing_zeros();
        let mut occ = 1u64 << lead_sq;
        let mut board = Board::empty();
        board.put_unchecked(Square::from_index(lead_sq), self.lead_piece);
        for &(piece, s) in &self.pieces {
            let sq = ((fields >> s) & 63) as u32;
            if occ & (1 << sq) != 0 {
                return false;
            }
            occ |= 1 << sq;
            board.put_unchecked(Square::from_index(sq), piece);
        }
        let diagonal = self.lead.stabilizers[orbit as usize] != 0;
        if diagonal && transpose(fields) < fields {
            return false;
        }
        *near = FastNear {
            board,
            base: orbit << self.shift,
            fields,
            diagonal,
        };
        true
    }

    /// The canonical index of `board` (of this material).
    #[must_use]
    #[inline]
    pub fn encode(&self, board: &Board) -> u64 {
        self.encode_with_stab(board).0
    }

    /// The canonical index of `board` and the number of symmetries fixing it.
    #[must_use]
    #[inline]
    pub fn encode_with_stab(&self, board: &Board) -> (u64, u32) {
        let lead_sq = board.by_piece(self.lead_piece).0.trailing_zeros();
        let packed = self.lead.map[lead_sq as usize & 63];
        let mut fields = 0u64;
        for &(piece, s) in &self.pieces {
            fields |= u64::from(board.by_piece(piece).0.trailing_zeros() & 63) << s;
        }
        self.canonical(
            u64::from(packed >> 3),
            self.transform((packed & 7) as u8, fields),
        )
    }

    /// Number of lead orbits.
    #[must_use]
    pub fn orbits(&self) -> usize {
        self.lead.orbits()
    }

    /// Calls `f(file index, slot)`, in increasing order of the file index, for the indices
    /// of `file` (the combinatorial index of the same material) whose lead is in `orbit`
    /// and whose first other piece stands on `first`: `slot` is this layout's index of the
    /// same position, or `None` where the file's index is unused (a non-canonical image).
    /// Nothing is decoded: the file's digits of single pieces count the free squares in
    /// order, so its index grows by one at every step of nested loops over the pieces'
    /// squares; and with every piece before it on the diagonal, a piece's digit compares
    /// with its transposed image's as its square does, so the file's canonical images are
    /// exactly this layout's.
    pub fn for_each_file_index(
        &self,
        file: &TableIndex,
        orbit: usize,
        first: u32,
        mut f: impl FnMut(u64, Option<u64>),
    ) {
        let lead_sq = self.lead.reps[orbit].0.trailing_zeros();
        if first == lead_sq {
            return;
        }
        let occ = (1u64 << lead_sq) | (1u64 << first);
        let digit = u64::from(first - ((1u64 << lead_sq) & ((1u64 << first) - 1)).count_ones());
        let start = orbit as u64 * file.lead_weight + digit * file.weights[0];
        let base = (orbit as u64) << self.shift;
        let diagonal = self.lead.stabilizers[orbit] != 0;
        let mut idx = start;
        let mut leaf = |fields: u64| {
            let used = !diagonal || transpose(fields) >= fields;
            f(idx, used.then_some(base | fields));
            idx += 1;
        };
        self.nest(1, occ, u64::from(first) << self.pieces[0].1, &mut leaf);
        debug_assert_eq!(idx - start, file.weights[0]);
    }

    /// The nested loops of [`FastIndex::for_each_file_index`] from piece `k` on.
    fn nest(&self, k: usize, occ: u64, fields: u64, leaf: &mut impl FnMut(u64)) {
        let Some(&(_, s)) = self.pieces.get(k) else {
            leaf(fields);
            return;
        };
        let last = k + 1 == self.pieces.len();
        let mut free = !occ;
        while free != 0 {
            let sq = free.trailing_zeros();
            free &= free - 1;
            let fields = fields | u64::from(sq) << s;
            if last {
                leaf(fields);
            } else {
                self.nest(k + 1, occ | 1 << sq, fields, leaf);
            }
        }
    }

    /// The canonical index and stabiliser size of the position of `near` with `piece`
    /// moved from `from` to the empty square `to`.
    #[must_use]
    #[inline(always)]
    pub fn neighbour(&self, near: &FastNear, piece: Piece, from: Square, to: Square) -> (u64, u32) {
        let s = self.shift_of[piece.color.index() * 6 + piece.role.index()];
        debug_assert!(s != ABSENT);
        if s != LEAD {
            let fields = near
                .fields
                .wrapping_add((i64::from(to.index() as i32 - from.index() as i32) << s) as u64);
            if !near.diagonal {
                return (near.base | fields, 1);
            }
            let image = transpose(fields);
            return (
                near.base | fields.min(image),
                1 + u32::from(image == fields),
            );
        }
        let packed = self.lead.map[to.index()];
        self.canonical(
            u64::from(packed >> 3),
            self.transform((packed & 7) as u8, near.fields),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::TRANSFORMED_SQUARE;
    use antichess_core::attacks;

    #[test]
    fn transforms_of_the_fields_are_the_square_transforms() {
        let index = FastIndex::new(&"KBNkr".parse().unwrap()).unwrap();
        for t in 0..8u8 {
            for sq in 0..64u64 {
                let x = sq << 18 | (63 - sq) << 6 | (sq * 7 % 64);
                let y = index.transform(t, x);
                let ts = &TRANSFORMED_SQUARE[usize::from(t)];
                for s in [0, 6, 12, 18] {
                    assert_eq!((y >> s) & 63, u64::from(ts[((x >> s) & 63) as usize]));
                }
            }
        }
    }

    /// Every used slot (or every `step`-th slot) decodes to a board whose encoding is the
    /// slot, with the stabiliser of [`TableIndex`]; every move of a piece to an empty
    /// square it attacks is indexed as the encoding of the board after it; the used slots
    /// are as many as the file index's canonical indices when `step` is 1.
    fn check(name: &str, step: u64) {
        let material: Material = name.parse().unwrap();
        let material = material.canonical().0;
        let fast = FastIndex::new(&material).unwrap();
        let file = TableIndex::new(&material);
        let mut near = FastNear::default();
        let mut used = 0u64;
        let mut idx = 0;
        while idx < fast.size() {
            if fast.decode_used(idx, &mut near) {
                used += 1;
                let board = *near.board();
                assert_eq!(
                    fast.encode_with_stab(&board),
                    (idx, near.stab()),
                    "{name} {idx}"
                );
                assert_eq!(file.encode_with_stab(&board).1, near.stab(), "{name} {idx}");
                for (from, piece) in board.pieces() {
                    let targets = attacks::attacks(piece.color, piece.role, from, board.occupied())
                        & !board.occupied();
                    for to in targets {
                        let mut child = board;
                        child.remove_unchecked(from, piece);
                        child.put_unchecked(to, piece);
                        let expected = fast.encode_with_stab(&child);
                        assert_eq!(fast.neighbour(&near, piece, from, to), expected, "{name}");
                        assert_eq!(file.encode_with_stab(&child).1, expected.1, "{name}");
                        let mut child_near = FastNear::default();
                        assert!(fast.decode_used(expected.0, &mut child_near));
                    }
                }
            }
            idx += step;
        }
        if step == 1 {
            let canonical = (0..file.size())
                .filter(|&i| file.is_canonical(i, &file.decode(i)))
                .count() as u64;
            assert_eq!(used, canonical, "{name}");
        }
    }

    /// The file's indices, enumerated without decoding, with the slots of their positions.
    fn check_file_order(name: &str) {
        let material = name.parse::<Material>().unwrap().canonical().0;
        let fast = FastIndex::new(&material).unwrap();
        let file = TableIndex::new(&material);
        let mut next = 0;
        for orbit in 0..fast.orbits() {
            for first in 0..64 {
                fast.for_each_file_index(&file, orbit, first, |idx, slot| {
                    assert_eq!(idx, next, "{name}");
                    next += 1;
                    let board = file.decode(idx);
                    if file.is_canonical(idx, &board) {
                        assert_eq!(slot, Some(fast.encode(&board)), "{name} {idx}");
                    } else {
                        assert_eq!(slot, None, "{name} {idx}");
                    }
                });
            }
        }
        assert_eq!(next, file.size(), "{name}");
    }

    #[test]
    fn file_indices_in_order_with_their_slots() {
        check_file_order("Kk");
        check_file_order("KBn");
        check_file_order("KRkn");
    }

    #[test]
    fn slots_round_trip_and_index_their_neighbours() {
        check("Kk", 1);
        check("KBn", 1);
        check("KQr", 1);
        check("KRkn", 7);
        check("KBNkr", 977);
    }

    #[test]
    fn only_distinct_pawnless_materials() {
        for name in ["KPk", "KKk", "BBk", "NNkr"] {
            let material: Material = name.parse().unwrap();
            assert!(FastIndex::new(&material.canonical().0).is_none(), "{name}");
        }
        let kbnkr = FastIndex::new(&"KBNkr".parse().unwrap()).unwrap();
        assert_eq!(kbnkr.size(), 10 << 24);
    }
}
