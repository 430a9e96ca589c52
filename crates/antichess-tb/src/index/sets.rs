//! A generation-only index for materials with repeated pieces: the lead group folded by
//! symmetry as in [`TableIndex`] (its set of squares under the 8 symmetries without pawns,
//! the lead pawns under the left-right mirror with pawns), then one field per other group, in
//! [`TableIndex`]'s group order (most significant first), holding the colex rank of the
//! group's set of squares: a single piece's square, a pair's rank among the C(64, 2) =
//! 2,016 pairs of squares, a triple's among the 41,664 triples; pawns count the 48 squares
//! of ranks 2–7 (square minus 8). The fields form a mixed-radix number whose radices are
//! those counts (64, 2,016, …; 48, 1,128, … for pawns).
//!
//! Unlike the file's digit (the group's rank among the squares still *free*), a field
//! depends on its group alone, so a move of a piece other than the lead changes one field:
//! `(to − from) × weight` for a single piece, the difference of two colex ranks (`k`
//! binomial lookups) for a group of `k`. A lead move or a symmetric image transforms every
//! group's set and ranks it again. Slots whose groups overlap, and the non-canonical images
//! of positions whose lead group symmetries fix (the canonical slot is the smallest of the
//! images' fields), are unused.
//!
//! This serves every material of at least two groups whose slots fit in 32 bits; [`FastIndex`](super::FastIndex), whose fields
//! are 6-bit shifts, serves the materials of single pieces beside the lead. At the end of
//! a generation the words are moved in place into the file's index
//! ([`FastSetIndex::for_each_file_index`]; docs/research/tb-memory.md).

use std::sync::Arc;

use antichess_core::{Bitboard, Board, Piece, Role, Square};

use super::{
    binomial, colex_rank, colex_unrank, LeadMap, TableIndex, ABSENT, LEAD, TRANSFORMED_SQUARE,
};
use crate::material::Material;
use crate::symmetry::transform_bb;

/// Ranks 2–7: the squares a pawn may stand on.
const PAWN_SQUARES: u64 = 0x00ff_ffff_ffff_ff00;

/// One group's field.
#[derive(Debug, Clone, Copy)]
struct Field {
    piece: Piece,
    count: u8,
    pawn: bool,
    /// Number of values: C(64, count), or C(48, count) for pawns.
    radix: u64,
    /// `⌊(2^64 − 1) / radix⌋ + 1`, to divide numbers below 2^32 by `radix` with a
    /// multiplication (as [`TableIndex`]'s groups do).
    recip: u64,
    /// Place value: the product of the later fields' radices.
    weight: u64,
}

impl Field {
    /// The field's value for the group on the squares `set` (board bits).
    #[inline(always)]
    fn digit(&self, set: u64) -> u64 {
        let bits = if self.pawn { set >> 8 } else { set };
        if self.count == 1 {
            u64::from(bits.trailing_zeros())
        } else {
            colex_rank(bits)
        }
    }

    /// `set` (the group's squares) under transform `t`.
    #[inline(always)]
    fn transform(&self, t: u8, set: u64) -> u64 {
        if self.count == 1 {
            1u64 << TRANSFORMED_SQUARE[usize::from(t)][set.trailing_zeros() as usize & 63]
        } else {
            transform_bb(t, Bitboard(set)).0
        }
    }
}

/// `n / d` for `n < 2^32`, from `recip` = `⌊(2^64 − 1) / d⌋ + 1` (Lemire, Kaser and
/// Kurz, 2019).
#[inline(always)]
fn div(n: u64, recip: u64) -> u64 {
    debug_assert!(n <= u64::from(u32::MAX));
    ((u128::from(recip) * u128::from(n)) >> 64) as u64
}

/// Keeps the least of the fields' values seen (`best`) and how many were equal to it.
#[inline(always)]
fn least(best: &mut u64, count: &mut u32, image: u64) {
    if image < *best {
        *best = image;
        *count = 1;
    } else if image == *best {
        *count += 1;
    }
}

/// The reciprocal `div` takes for divisor `d` (> 1).
fn recip(d: u64) -> u64 {
    (u64::MAX / d).wrapping_add(1)
}

/// The bits of `mask` selected by the low bits of `x` (the `i`-th set bit of `mask` kept
/// when bit `i` of `x` is set).
#[inline(always)]
fn deposit(x: u64, mask: u64) -> u64 {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    {
        // Safety: the bmi2 target feature is enabled at compile time for this code path.
        unsafe { core::arch::x86_64::_pdep_u64(x, mask) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    {
        let (mut m, mut x, mut out) = (mask, x, 0u64);
        while m != 0 && x != 0 {
            if x & 1 != 0 {
                out |= m & m.wrapping_neg();
            }
            m &= m - 1;
            x >>= 1;
        }
        out
    }
}

/// The index of one material in the set-field layout.
#[derive(Debug, Clone)]
pub struct FastSetIndex {
    lead_piece: Piece,
    lead: Arc<LeadMap>,
    /// The other groups' fields, most significant first.
    fields: arrayvec::ArrayVec<Field, 11>,
    /// Field of each piece (`color * 6 + role`), `LEAD` or `ABSENT`.
    field_of: [u8; 12],
    /// Slots per lead orbit: the product of the radices.
    stride: u64,
    stride_recip: u64,
    size: u64,
}

/// A decoded position of a [`FastSetIndex`] (in its orbit representative's frame).
#[derive(Debug, Clone, Default)]
pub struct FastSetNear {
    board: Board,
    /// The orbit part of the index (`orbit × stride`).
    base: u64,
    /// The fields' value (the index minus `base`).
    rel: u64,
    /// `images[t]`: the fields' value of the image under transform `t`, for each `t` of
    /// `syms`.
    images: [u64; 8],
    /// The lead group's squares.
    lead: u64,
    /// The non-identity transforms fixing the lead group, as a mask (`1 << t`): 4, the
    /// transpose, for a lone lead on the a1–h8 diagonal; 1, the mirror, for lead pawns
    /// symmetric about the centre line; several for a pair of pieces.
    syms: u8,
    /// Each field's squares (board bits).
    sets: [u64; 11],
}

impl FastSetNear {
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
        let mut stab = 1;
        let mut syms = self.syms;
        while syms != 0 {
            let t = syms.trailing_zeros() as usize;
            syms &= syms - 1;
            stab += u32::from(self.images[t] == self.rel);
        }
        stab
    }
}

impl FastSetIndex {
    /// The layout of `material` (canonical orientation), if it has at least two groups and
    /// its slots fit in 32 bits.
    #[must_use]
    pub fn new(material: &Material) -> Option<FastSetIndex> {
        let index = TableIndex::new(material);
        if index.groups.is_empty() {
            return None;
        }
        let mut fields = arrayvec::ArrayVec::<Field, 11>::new();
        let mut field_of = [ABSENT; 12];
        let code = |p: Piece| p.color.index() * 6 + p.role.index();
        field_of[code(index.lead_piece)] = LEAD;
        for (k, g) in index.groups.iter().enumerate() {
            let radix = binomial(if g.pawn { 48 } else { 64 }, u32::from(g.count));
            fields.push(Field {
                piece: g.piece,
                count: g.count,
                pawn: g.pawn,
                radix,
                recip: recip(radix),
                weight: 1,
            });
            field_of[code(g.piece)] = k as u8;
        }
        let mut stride = 1u64;
        for f in fields.iter_mut().rev() {
            f.weight = stride;
            stride = stride.checked_mul(f.radix)?;
        }
        let lead = index.lead.clone();
        let size = (lead.orbits() as u64).checked_mul(stride)?;
        if size > u64::from(u32::MAX) {
            return None;
        }
        Some(FastSetIndex {
            lead_piece: index.lead_piece,
            lead,
            fields,
            field_of,
            stride,
            stride_recip: recip(stride),
            size,
        })
    }

    /// Number of slots per side to move (used or not).
    #[must_use]
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Number of lead orbits.
    #[must_use]
    pub fn orbits(&self) -> usize {
        self.lead.orbits()
    }

    /// The non-identity transforms fixing orbit `orbit`'s lead group (`1 << t`; the mask
    /// has no bit 0).
    #[inline(always)]
    fn syms_of(&self, orbit: u64) -> u8 {
        self.lead.stabilizers[orbit as usize]
    }

    /// The lead map's entry (`orbit << 3 | transform`) for the lead group on `squares`.
    #[inline(always)]
    fn lead_entry(&self, squares: u64) -> u32 {
        let bits = if self.lead.pawn {
            squares >> 8
        } else {
            squares
        };
        let rank = if self.lead.count == 1 {
            u64::from(bits.trailing_zeros() & 63)
        } else {
            colex_rank(bits)
        };
        self.lead.map[rank as usize]
    }

    /// The fields' value of the groups on `sets` under transform `t`.
    #[inline(always)]
    fn rel_of(&self, t: u8, sets: &[u64; 11]) -> u64 {
        self.fields
            .iter()
            .zip(sets)
            .map(|(f, &set)| f.digit(f.transform(t, set)) * f.weight)
            .sum()
    }

    /// The canonical index and stabiliser size of the groups on `sets` (with fields' value
    /// `rel`) in the orbit starting at slot `base` whose lead group the transforms of
    /// `syms` fix (`1 << t`).
    #[inline(always)]
    fn slot(&self, base: u64, syms: u8, rel: u64, sets: &[u64; 11]) -> (u64, u32) {
        let (mut best, mut stab) = (rel, 1);
        let mut rest = syms;
        while rest != 0 {
            let t = rest.trailing_zeros() as u8;
            rest &= rest - 1;
            least(&mut best, &mut stab, self.rel_of(t, sets));
        }
        (base + best, stab)
    }

    /// Decodes `idx` into `near`; returns whether it is a used slot (no two pieces on one
    /// square, and the canonical one of its symmetric images).
    #[inline]
    pub fn decode_used(&self, idx: u64, near: &mut FastSetNear) -> bool {
        let orbit = div(idx, self.stride_recip);
        let base = orbit * self.stride;
        let rel = idx - base;
        let lead = self.lead.reps[orbit as usize].0;
        let mut occ = lead;
        let mut board = Board::empty();
        let mut bits = lead;
        while bits != 0 {
            board.put_unchecked(Square::from_index(bits.trailing_zeros()), self.lead_piece);
            bits &= bits - 1;
        }
        let mut sets = [0u64; 11];
        let mut rest = rel;
        let mut ranks = [0u32; 16];
        for (i, f) in self.fields.iter().enumerate().rev() {
            let q = div(rest, f.recip);
            let digit = rest - q * f.radix;
            rest = q;
            let mut set = if f.count == 1 {
                1u64 << digit
            } else {
                let k = usize::from(f.count);
                colex_unrank(digit, k, &mut ranks);
                ranks[..k].iter().fold(0, |s, &r| s | 1u64 << r)
            };
            if f.pawn {
                set <<= 8;
            }
            if occ & set != 0 {
                return false;
            }
            occ |= set;
            sets[i] = set;
            let mut bits = set;
            while bits != 0 {
                board.put_unchecked(Square::from_index(bits.trailing_zeros()), f.piece);
                bits &= bits - 1;
            }
        }
        let syms = self.syms_of(orbit);
        let mut images = [0u64; 8];
        let mut rest = syms;
        while rest != 0 {
            let t = rest.trailing_zeros();
            rest &= rest - 1;
            let image = self.rel_of(t as u8, &sets);
            if image < rel {
                return false;
            }
            images[t as usize] = image;
        }
        *near = FastSetNear {
            board,
            base,
            rel,
            images,
            lead,
            syms,
            sets,
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
        let (orbit, t) = (u64::from(packed >> 3), (packed & 7) as u8);
        let mut sets = [0u64; 11];
        for (set, f) in sets.iter_mut().zip(&self.fields) {
            *set = f.transform(t, board.by_piece(f.piece).0);
        }
        let rel = self.rel_of(0, &sets);
        self.slot(orbit * self.stride, self.syms_of(orbit), rel, &sets)
    }

    /// The canonical index and stabiliser size of the position of `near` with `piece`
    /// moved from `from` to the empty square `to` (a pawn staying on ranks 2–7).
    #[must_use]
    #[inline(always)]
    pub fn neighbour(
        &self,
        near: &FastSetNear,
        piece: Piece,
        from: Square,
        to: Square,
    ) -> (u64, u32) {
        let fi = self.field_of[piece.color.index() * 6 + piece.role.index()];
        debug_assert!(fi != ABSENT);
        debug_assert!(piece.role != Role::Pawn || PAWN_SQUARES & (1 << to.index()) != 0);
        let (from_i, to_i) = (from.index(), to.index());
        if fi != LEAD {
            let f = &self.fields[usize::from(fi)];
            let old = near.sets[usize::from(fi)];
            let new = old ^ (1u64 << from_i) ^ (1u64 << to_i);
            let change = |before: u64, after: u64| {
                if f.count == 1 {
                    i64::from(after.trailing_zeros() as i32 - before.trailing_zeros() as i32) as u64
                } else {
                    f.digit(after).wrapping_sub(f.digit(before))
                }
            };
            let rel = near
                .rel
                .wrapping_add(change(old, new).wrapping_mul(f.weight));
            let (mut best, mut stab) = (rel, 1);
            let mut rest = near.syms;
            while rest != 0 {
                let t = rest.trailing_zeros() as u8;
                rest &= rest - 1;
                let image = near.images[usize::from(t)].wrapping_add(
                    change(f.transform(t, old), f.transform(t, new)).wrapping_mul(f.weight),
                );
                least(&mut best, &mut stab, image);
            }
            return (near.base + best, stab);
        }
        let packed = self.lead_entry(near.lead ^ (1u64 << from_i) ^ (1u64 << to_i));
        let (orbit, t) = (u64::from(packed >> 3), (packed & 7) as u8);
        let mut sets = near.sets;
        for (set, f) in sets.iter_mut().zip(&self.fields) {
            *set = f.transform(t, *set);
        }
        let rel = self.rel_of(0, &sets);
        self.slot(orbit * self.stride, self.syms_of(orbit), rel, &sets)
    }

    /// Calls `f(file index, slot)`, in increasing order of the file index, for the indices
    /// of `file` (the combinatorial index of the same material) whose lead is in `orbit`:
    /// `slot` is this layout's index of the same position, or `None` where the file's
    /// index is unused (a non-canonical image). Nothing is decoded: the file's digit of a
    /// group is the colex rank of its set among the squares still free (of ranks 2–7 for
    /// pawns, which are placed before pieces), so its index grows by one at every step of
    /// nested loops over the groups, each enumerating its sets of free squares in colex
    /// order. The slot is never below the file index (a colex rank among the free squares
    /// is at most the rank of the squares themselves, and each place value at most the
    /// field's). With every group before the first one that differs from its image fixed
    /// by the lead's symmetry, the file's digits and this layout's fields compare the same
    /// way there, so the file's canonical images are exactly this layout's.
    pub fn for_each_file_index(
        &self,
        file: &TableIndex,
        orbit: usize,
        mut f: impl FnMut(u64, Option<u64>),
    ) {
        let lead = self.lead.reps[orbit].0;
        let start = orbit as u64 * file.lead_weight;
        let base = orbit as u64 * self.stride;
        let syms = self.syms_of(orbit as u64);
        let mut idx = start;
        let mut leaf = |rel: u64, sets: &[u64; 11]| {
            let mut used = true;
            let mut rest = syms;
            while rest != 0 && used {
                let t = rest.trailing_zeros() as u8;
                rest &= rest - 1;
                used = self.rel_of(t, sets) >= rel;
            }
            f(idx, used.then_some(base + rel));
            idx += 1;
        };
        let mut sets = [0u64; 11];
        self.nest(0, lead, 0, &mut sets, &mut leaf);
        debug_assert_eq!(idx - start, file.lead_weight);
    }

    /// The nested loops of [`FastSetIndex::for_each_file_index`] from field `k` on.
    fn nest(
        &self,
        k: usize,
        occ: u64,
        rel: u64,
        sets: &mut [u64; 11],
        leaf: &mut impl FnMut(u64, &[u64; 11]),
    ) {
        let Some(f) = self.fields.get(k) else {
            leaf(rel, sets);
            return;
        };
        let free = if f.pawn { PAWN_SQUARES & !occ } else { !occ };
        if f.count == 1 {
            let mut bits = free;
            while bits != 0 {
                let set = bits & bits.wrapping_neg();
                bits &= bits - 1;
                sets[k] = set;
                self.nest(k + 1, occ | set, rel + f.digit(set) * f.weight, sets, leaf);
            }
            return;
        }
        // The sets of `count` free squares in colex order: Gosper's hack enumerates the
        // subsets of the free squares' positions in increasing order.
        let n = free.count_ones();
        let count = u32::from(f.count);
        if count > n {
            return;
        }
        let mut x: u64 = (1u64 << count) - 1;
        while x >> n == 0 {
            let set = deposit(x, free);
            sets[k] = set;
            self.nest(k + 1, occ | set, rel + f.digit(set) * f.weight, sets, leaf);
            let c = x & x.wrapping_neg();
            let r = x + c;
            x = (((r ^ x) >> 2) >> c.trailing_zeros()) | r;
        }
    }
}

#[cfg(test)]
mod tests;
