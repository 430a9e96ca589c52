//! A generation-only index for materials whose pieces, apart from the lead group, are
//! distinct single pieces: the lead group folded by symmetry (its orbit, as in
//! [`TableIndex`]: a single piece under the 8 symmetries without pawns, the lead pawns
//! under the left-right mirror with pawns), then one 6-bit square field per other piece,
//! so that decoding is bit extraction and a move of a piece other than the lead adds
//! `(to − from) << shift` to the index. A pawn's field holds its square minus 8 (ranks
//! 2–7 are 0..48), and the most significant field, when it is a pawn's, takes only those
//! 48 values. Slots whose pieces collide or put a pawn on rank 1 or 8, and the
//! non-canonical images of positions whose lead group a symmetry fixes, are unused. The
//! file's combinatorial index ([`TableIndex`]) is filled from this layout once generation
//! is over (docs/research/tb-memory.md).

use std::sync::Arc;

use antichess_core::{Board, Piece, Role, Square};

use super::{colex_rank, LeadMap, TableIndex, ABSENT, LEAD};
use crate::material::Material;

/// The low three bits (file) of every 6-bit field.
const FILES: u64 = 0o0707_0707_0707_0707_0707;
/// Ranks 2–7: the squares a pawn may stand on.
const PAWN_SQUARES: u64 = 0x00ff_ffff_ffff_ff00;

/// The index of one material in the generation layout.
#[derive(Debug, Clone)]
pub struct FastIndex {
    lead_piece: Piece,
    lead: Arc<LeadMap>,
    /// The other pieces, most significant field first (the order of [`TableIndex`]'s
    /// groups), with their fields' shifts and whether they are pawns.
    pieces: arrayvec::ArrayVec<(Piece, u32, bool), 11>,
    /// Shift of each piece's field (`color * 6 + role`), `LEAD` or `ABSENT`.
    shift_of: [u8; 12],
    /// Bits of the fields below the most significant one.
    low: u32,
    /// The most significant field is a pawn's (48 values, not 64).
    top_pawn: bool,
    /// Slots per lead orbit: the fields' range.
    stride: u64,
    /// [`FILES`] restricted to the fields.
    files: u64,
    size: u64,
}

/// A decoded position of a [`FastIndex`] (in its orbit representative's frame).
#[derive(Debug, Clone, Default)]
pub struct FastNear {
    board: Board,
    /// The orbit part of the index (`orbit × stride`).
    base: u64,
    fields: u64,
    /// The lead group's squares.
    lead: u64,
    /// The non-identity transform fixing the lead group (4, the transpose, for a lead on
    /// the a1–h8 diagonal; 1, the mirror, for lead pawns symmetric about the centre
    /// line), or 0.
    sym: u8,
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
        // The mirror fixes no square (no file is its own image), so only the transpose
        // can fix a position.
        1 + u32::from(self.sym == 4 && transpose(self.fields) == self.fields)
    }
}

/// Every field's square transposed (file and rank swapped).
#[inline(always)]
fn transpose(x: u64) -> u64 {
    ((x & FILES) << 3) | ((x >> 3) & FILES)
}

/// The fields under the stabilising transform `sym` (4, the transpose, or 1, the mirror;
/// `files` covers the fields).
#[inline(always)]
fn image(sym: u8, fields: u64, files: u64) -> u64 {
    if sym == 4 {
        transpose(fields)
    } else {
        fields ^ files
    }
}

impl FastIndex {
    /// The layout of `material` (canonical orientation), if every group but the lead is a
    /// single piece (the lead too when there are no pawns) and there are at least two
    /// groups.
    #[must_use]
    pub fn new(material: &Material) -> Option<FastIndex> {
        let index = TableIndex::new(material);
        if index.groups.is_empty() || index.groups.iter().any(|g| g.count != 1) {
            return None;
        }
        // With pawns the lead is a pawn group (any count: the mirror fixes no square, so at
        // most one transform fixes it); without, one piece (a set of pieces may be fixed
        // by several transforms).
        if !index.lead.pawn && index.lead.count != 1 {
            return None;
        }
        let m = index.groups.len() as u32;
        let low = 6 * (m - 1);
        let mut pieces = arrayvec::ArrayVec::new();
        let mut shift_of = [ABSENT; 12];
        let code = |p: Piece| p.color.index() * 6 + p.role.index();
        shift_of[code(index.lead_piece)] = LEAD;
        for (k, g) in index.groups.iter().enumerate() {
            let s = 6 * (m - 1 - k as u32);
            pieces.push((g.piece, s, g.pawn));
            shift_of[code(g.piece)] = s as u8;
        }
        let top_pawn = index.groups[0].pawn;
        let stride = if top_pawn { 48 } else { 64 } << low;
        let lead = index.lead.clone();
        let size = lead.orbits() as u64 * stride;
        Some(FastIndex {
            lead_piece: index.lead_piece,
            lead,
            pieces,
            shift_of,
            low,
            top_pawn,
            stride,
            files: FILES & ((1u64 << (low + 6)) - 1),
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

    /// The transform fixing orbit `orbit`'s lead group other than the identity, or 0.
    #[inline(always)]
    fn sym_of(&self, orbit: u64) -> u8 {
        let mask = self.lead.stabilizers[orbit as usize];
        if mask == 0 {
            0
        } else {
            debug_assert!(mask.count_ones() == 1, "one symmetry fixes the lead");
            mask.trailing_zeros() as u8
        }
    }

    /// The canonical index and stabiliser size of the lead orbit `orbit` with `fields`
    /// (already in the representative's frame).
    #[inline(always)]
    fn canonical(&self, orbit: u64, fields: u64) -> (u64, u32) {
        self.slot(orbit * self.stride, self.sym_of(orbit), fields)
    }

    /// The canonical index and stabiliser size of `fields` in the orbit starting at slot
    /// `base` whose lead group transform `sym` fixes (0: none).
    #[inline(always)]
    fn slot(&self, base: u64, sym: u8, fields: u64) -> (u64, u32) {
        if sym == 0 {
            return (base + fields, 1);
        }
        let image = image(sym, fields, self.files);
        (base + fields.min(image), 1 + u32::from(image == fields))
    }

    /// The orbit of slot `idx`.
    #[inline(always)]
    fn orbit_of(&self, idx: u64) -> u64 {
        let high = idx >> self.low;
        if self.top_pawn {
            high / 48
        } else {
            high >> 6
        }
    }

    /// The lead map's entry (`orbit << 3 | transform`) for the lead group on `squares`.
    #[inline(always)]
    fn lead_entry(&self, squares: u64) -> u32 {
        let rank = if self.lead.pawn {
            if self.lead.count == 1 {
                u64::from(squares.trailing_zeros()) - 8
            } else {
                colex_rank(squares >> 8)
            }
        } else {
            u64::from(squares.trailing_zeros() & 63)
        };
        self.lead.map[rank as usize]
    }

    /// Decodes `idx` into `near`; returns whether it is a used slot (no two pieces on one
    /// square, no pawn on rank 1 or 8, and the canonical one of its symmetric images).
    #[inline]
    pub fn decode_used(&self, idx: u64, near: &mut FastNear) -> bool {
        let orbit = self.orbit_of(idx);
        let base = orbit * self.stride;
        let fields = idx - base;
        let lead = self.lead.reps[orbit as usize].0;
        let mut occ = lead;
        let mut board = Board::empty();
        let mut bits = lead;
        while bits != 0 {
            board.put_unchecked(Square::from_index(bits.trailing_zeros()), self.lead_piece);
            bits &= bits - 1;
        }
        for &(piece, s, pawn) in &self.pieces {
            let field = ((fields >> s) & 63) as u32;
            let sq = if pawn {
                if field >= 48 {
                    return false;
                }
                field + 8
            } else {
                field
            };
            if occ & (1 << sq) != 0 {
                return false;
            }
            occ |= 1 << sq;
            board.put_unchecked(Square::from_index(sq), piece);
        }
        let sym = self.sym_of(orbit);
        if sym != 0 && image(sym, fields, self.files) < fields {
            return false;
        }
        *near = FastNear {
            board,
            base,
            fields,
            lead,
            sym,
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
        let packed = self.lead_entry(board.by_piece(self.lead_piece).0);
        let mut fields = 0u64;
        for &(piece, s, pawn) in &self.pieces {
            let sq = board.by_piece(piece).0.trailing_zeros() & 63;
            fields |= u64::from(if pawn { sq - 8 } else { sq }) << s;
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
    /// Nothing is decoded: the file's digits of single pieces count the free squares (of
    /// ranks 2–7 for a pawn; pawns are placed before pieces) in order, so its index grows
    /// by one at every step of nested loops over the pieces' squares; and with every piece
    /// before it fixed by the lead's symmetry, a piece's digit compares with its image's
    /// as its square does, so the file's canonical images are exactly this layout's.
    pub fn for_each_file_index(
        &self,
        file: &TableIndex,
        orbit: usize,
        first: u32,
        mut f: impl FnMut(u64, Option<u64>),
    ) {
        let lead = self.lead.reps[orbit].0;
        let (_, s0, pawn0) = self.pieces[0];
        let allowed = if pawn0 { PAWN_SQUARES } else { !0 };
        if (lead | !allowed) & (1u64 << first) != 0 {
            return;
        }
        let below = (1u64 << first) - 1;
        // Before the first group only the lead is placed: pawns count the free squares of
        // ranks 2–7, pieces the free squares of the board.
        let digit = if pawn0 {
            u64::from(first - 8 - (lead & below & PAWN_SQUARES).count_ones())
        } else {
            u64::from(first - (lead & below).count_ones())
        };
        let start = orbit as u64 * file.lead_weight + digit * file.weights[0];
        let base = orbit as u64 * self.stride;
        let sym = self.sym_of(orbit as u64);
        let mut idx = start;
        let mut leaf = |fields: u64| {
            let used = sym == 0 || image(sym, fields, self.files) >= fields;
            f(idx, used.then_some(base + fields));
            idx += 1;
        };
        let field0 = if pawn0 { first - 8 } else { first };
        self.nest(1, lead | 1 << first, u64::from(field0) << s0, &mut leaf);
        debug_assert_eq!(idx - start, file.weights[0]);
    }

    /// The nested loops of [`FastIndex::for_each_file_index`] from piece `k` on.
    fn nest(&self, k: usize, occ: u64, fields: u64, leaf: &mut impl FnMut(u64)) {
        let Some(&(_, s, pawn)) = self.pieces.get(k) else {
            leaf(fields);
            return;
        };
        let last = k + 1 == self.pieces.len();
        let (mut free, offset) = if pawn {
            (PAWN_SQUARES & !occ, 8)
        } else {
            (!occ, 0)
        };
        while free != 0 {
            let sq = free.trailing_zeros();
            free &= free - 1;
            let fields = fields | u64::from(sq - offset) << s;
            if last {
                leaf(fields);
            } else {
                self.nest(k + 1, occ | 1 << sq, fields, leaf);
            }
        }
    }

    /// The canonical index and stabiliser size of the position of `near` with `piece`
    /// moved from `from` to the empty square `to` (a pawn staying on ranks 2–7).
    #[must_use]
    #[inline(always)]
    pub fn neighbour(&self, near: &FastNear, piece: Piece, from: Square, to: Square) -> (u64, u32) {
        let s = self.shift_of[piece.color.index() * 6 + piece.role.index()];
        debug_assert!(s != ABSENT);
        debug_assert!(piece.role != Role::Pawn || PAWN_SQUARES & (1 << to.index()) != 0);
        if s != LEAD {
            let fields = near
                .fields
                .wrapping_add((i64::from(to.index() as i32 - from.index() as i32) << s) as u64);
            return self.slot(near.base, near.sym, fields);
        }
        let packed = self.lead_entry(near.lead ^ (1 << from.index()) ^ (1 << to.index()));
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
    use antichess_core::{attacks, Bitboard};

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
                    let targets = if piece.role == Role::Pawn {
                        // Pushes and un-pushes by one rank, staying on ranks 2–7.
                        let f = 1u64 << from.index();
                        Bitboard((f << 8 | f >> 8) & PAWN_SQUARES)
                    } else {
                        attacks::attacks(piece.color, piece.role, from, board.occupied())
                    } & !board.occupied();
                    for to in targets {
                        let mut child = board;
                        child.remove_unchecked(from, piece);
                        child.put_unchecked(to, piece);
                        let expected = fast.encode_with_stab(&child);
                        assert_eq!(fast.neighbour(&near, piece, from, to), expected, "{name}");
                        assert_eq!(file.encode_with_stab(&child).1, expected.1, "{name}");
                        let mut child_near = FastNear::default();
                        assert!(
                            fast.decode_used(expected.0, &mut child_near),
                            "{name} {idx} {from:?} {to:?} {expected:?}"
                        );
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
        check_file_order("KPk");
        check_file_order("PPk");
        check_file_order("KPkp");
        check_file_order("PPkn");
        check_file_order("NPk");
        check_file_order("Pkp");
    }

    #[test]
    fn slots_round_trip_and_index_their_neighbours() {
        check("Kk", 1);
        check("KBn", 1);
        check("KQr", 1);
        check("KRkn", 7);
        check("KBNkr", 977);
        check("KPk", 1);
        check("Pkp", 1);
        check("PPk", 1);
        check("KPkp", 1);
        check("PPPk", 1);
        check("KRNkp", 1553);
    }

    #[test]
    fn only_materials_of_single_pieces_beside_the_lead() {
        for name in ["KKk", "BBk", "NNkr", "KPPkp", "Pppk", "KPkk"] {
            let material: Material = name.parse().unwrap();
            assert!(FastIndex::new(&material.canonical().0).is_none(), "{name}");
        }
        let kbnkr = FastIndex::new(&"KBNkr".parse().unwrap()).unwrap();
        assert_eq!(kbnkr.size(), 10 << 24);
        // A lone black pawn leads (24 squares of files a–d); four piece fields.
        let krnkp = FastIndex::new(&"KRNkp".parse::<Material>().unwrap().canonical().0).unwrap();
        assert_eq!(krnkp.size(), 24 << 24);
        // The white pawn leads; the black pawn's field is the most significant: 48 values.
        let kpkp = FastIndex::new(&"KPkp".parse().unwrap()).unwrap();
        assert_eq!(kpkp.size(), (24 * 48) << 12);
    }
}
