//! Position indexing for one material: a bijection-up-to-symmetry between boards and
//! `0..size` (per side to move; both sides use the same index space).
//!
//! Layout: the *lead group* (one colour and role; a pawn group when there are pawns,
//! otherwise the smallest group) is folded by symmetry: the set of squares it occupies is
//! mapped to the representative of its orbit under the allowed transforms (8 without
//! pawns, the left-right mirror with pawns), and the same transform is applied to every
//! other piece. The remaining groups follow, pawn groups first, each as a combination
//! (identical pieces are unordered) of the squares still free: pawns on the 48 squares of
//! ranks 2–7, other pieces on the 64 squares. The index is the mixed-radix number
//! `orbit, group 1, group 2, …`.
//!
//! Encoding is canonical: symmetric images of a position get the same index. When the
//! lead group is fixed by a non-identity transform (for example a lone king on the a1–h8
//! diagonal), the images under those transforms are encoded too and the smallest index is
//! taken; the other indices of such positions are *unused* ([`TableIndex::is_canonical`]
//! is false for them) and must be skipped by generators and statistics.
//! [`TableIndex::encode_with_stab`] also reports how many symmetries fix the position, so
//! that the generator can count moves into symmetric positions exactly.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use antichess_core::{Bitboard, Board, Color, Piece, Role};

use crate::material::Material;
use crate::symmetry::{compose, transform_bb, ALL_TRANSFORMS, PAWN_TRANSFORMS};

mod colex;
mod fast;
mod sets;
pub use colex::binomial;
pub(crate) use colex::colex_rank;
#[cfg(test)]
use colex::colex_unrank_search;
use colex::{colex_unrank, comb_index, select};
pub use fast::{FastIndex, FastNear};
pub use sets::{FastSetIndex, FastSetNear};

/// `TRANSFORMED_SQUARE[t][sq]`: square `sq` under transform `t`.
static TRANSFORMED_SQUARE: [[u8; 64]; 8] = {
    let mut table = [[0u8; 64]; 8];
    let mut t = 0;
    while t < 8 {
        let mut sq = 0;
        while sq < 64 {
            let (mut f, mut r) = (sq % 8, sq / 8);
            if t & 4 != 0 {
                let x = f;
                f = r;
                r = x;
            }
            if t & 1 != 0 {
                f = 7 - f;
            }
            if t & 2 != 0 {
                r = 7 - r;
            }
            table[t][sq] = (r * 8 + f) as u8;
            sq += 1;
        }
        t += 1;
    }
    table
};

/// The bits of the pawn domain (ranks 2–7, shifted down by 8).
const PAWN_DOMAIN: u64 = (1 << 48) - 1;

/// Orbit table of a lead group: for every set of `count` squares, its orbit and the
/// transform that maps it to the orbit's representative.
#[derive(Debug)]
pub struct LeadMap {
    count: u8,
    pawn: bool,
    /// Colex rank of the set (in domain bits) → `orbit << 3 | transform`.
    map: Vec<u32>,
    /// Orbit → representative (board squares).
    reps: Vec<Bitboard>,
    /// Orbit → bitmask of non-identity transforms that fix the representative.
    stabilizers: Vec<u8>,
}

impl LeadMap {
    fn build(count: u8, pawn: bool) -> LeadMap {
        let domain_bits: u32 = if pawn { 48 } else { 64 };
        let transforms: &[u8] = if pawn {
            &PAWN_TRANSFORMS
        } else {
            &ALL_TRANSFORMS
        };
        let total = binomial(domain_bits, u32::from(count)) as usize;
        let mut map = Vec::with_capacity(total);
        let mut reps = Vec::new();
        let mut stabilizers = Vec::new();
        let mut orbit_of: HashMap<u64, u32> = HashMap::new();
        let to_board = |x: u64| if pawn { x << 8 } else { x };
        // Gosper's hack enumerates the sets in increasing order, which is colex order.
        let mut x: u64 = (1u64 << count) - 1;
        for i in 0..total {
            let bb = Bitboard(to_board(x));
            let (mut best, mut best_t) = (u64::MAX, 0u8);
            for &t in transforms {
                let image = transform_bb(t, bb).0;
                if image < best {
                    best = image;
                    best_t = t;
                }
            }
            let next_orbit = reps.len() as u32;
            let orbit = *orbit_of.entry(best).or_insert_with(|| {
                reps.push(Bitboard(best));
                let mut stab = 0u8;
                for &t in transforms {
                    if t != 0 && transform_bb(t, Bitboard(best)).0 == best {
                        stab |= 1 << t;
                    }
                }
                stabilizers.push(stab);
                next_orbit
            });
            map.push(orbit << 3 | u32::from(best_t));
            if i + 1 < total {
                let c = x & x.wrapping_neg();
                let r = x + c;
                x = (((r ^ x) >> 2) / c) | r;
            }
        }
        LeadMap {
            count,
            pawn,
            map,
            reps,
            stabilizers,
        }
    }

    /// Shared maps, built once per (count, pawn) pair.
    fn shared(count: u8, pawn: bool) -> Arc<LeadMap> {
        type Cache = Mutex<HashMap<(u8, bool), Arc<LeadMap>>>;
        static CACHE: OnceLock<Cache> = OnceLock::new();
        let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
        let mut guard = cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        guard
            .entry((count, pawn))
            .or_insert_with(|| Arc::new(LeadMap::build(count, pawn)))
            .clone()
    }

    /// Number of orbits.
    #[must_use]
    pub fn orbits(&self) -> usize {
        self.reps.len()
    }
}

#[derive(Debug, Clone, Copy)]
struct Group {
    piece: Piece,
    count: u8,
    pawn: bool,
    radix: u64,
    /// `⌊(2^64 − 1) / radix⌋ + 1`: the high half of its product with a 32-bit number is
    /// the quotient by `radix` (Lemire, Kaser and Kurz, "Faster remainder by direct
    /// computation", 2019), so that decoding divides by multiplying.
    recip: u64,
}

/// The index of one material (canonical orientation).
#[derive(Debug, Clone)]
pub struct TableIndex {
    material: Material,
    lead_piece: Piece,
    lead: Arc<LeadMap>,
    groups: Vec<Group>,
    /// `weights[i]`: the place value of group `i`'s digit (product of later radices).
    weights: Vec<u64>,
    /// The place value of the lead orbit (the product of all radices).
    lead_weight: u64,
    /// Group of each piece (`color * 6 + role`): its position in `groups`, `LEAD`, or
    /// `ABSENT`.
    group_of: [u8; 12],
    /// The first group from which every group is one piece other than a pawn: a move of
    /// such a piece is indexed by [`TableIndex::encode_view`]'s short path.
    singles_from: usize,
    /// The first group of the short path of `encode_view`: the single pieces from
    /// `singles_from` on, and the group before them if it is a repeated piece (not pawns).
    short_from: usize,
    /// Every index fits in 32 bits and no radix is 1, so decoding may divide by
    /// multiplying with each group's `recip`.
    small: bool,
    size: u64,
    /// Identifies this index (and its clones) to [`TableIndex::decode_into`], which
    /// reuses a [`Decoded`] only if the same index made it.
    id: u64,
}

const LEAD: u8 = 254;
const ABSENT: u8 = 255;

/// A decoded position with the digits and occupancies needed to index its neighbours
/// incrementally.
#[derive(Debug, Clone, Default)]
pub struct Decoded {
    board: Board,
    /// The [`TableIndex::id`] of the index that decoded it (0: none), for incremental
    /// decoding.
    index_id: u64,
    idx: u64,
    /// The lead group's orbit (the most significant digit).
    orbit: u64,
    /// The lead group has no stabiliser, so a neighbour that keeps it is encoded
    /// without symmetry.
    simple: bool,
    digits: [u64; 12],
    group_bits: [u64; 12],
    occ_before: [u64; 12],
    pawn_occ_before: [u64; 12],
}

/// Views of a position for indexing its neighbours; see [`TableIndex::neighbourhood`].
#[derive(Debug, Clone, Default)]
pub struct Neighbourhood {
    first: Decoded,
    /// Images under the symmetries fixing the lead group, with their transforms.
    others: arrayvec::ArrayVec<(Decoded, u8), 7>,
    /// With exactly one image: the first group whose digits differ between the position
    /// and its image (the number of groups if none does), and whether the image's digit is
    /// the smaller there. A move of a later group leaves those digits as they are, so the
    /// smaller view stays the smaller and only it needs encoding.
    split: usize,
    image_smaller: bool,
}

impl Decoded {
    /// The decoded board.
    #[must_use]
    #[inline]
    pub fn board(&self) -> &Board {
        &self.board
    }
}

impl Neighbourhood {
    /// The decoded position.
    #[must_use]
    pub fn board(&self) -> &Board {
        &self.first.board
    }

    /// The number of symmetries fixing the position.
    #[must_use]
    pub fn stab(&self) -> u32 {
        1 + self
            .others
            .iter()
            .filter(|(v, _)| v.board == self.first.board)
            .count() as u32
    }
}

impl TableIndex {
    /// The index of `material`, which should be in canonical orientation.
    #[must_use]
    pub fn new(material: &Material) -> TableIndex {
        let all: Vec<(Piece, u8)> = material.groups().collect();
        let has_pawns = material.has_pawns();
        let lead_pos = if has_pawns {
            let w = material.count(Color::White, Role::Pawn);
            let b = material.count(Color::Black, Role::Pawn);
            let lead_color = if w > 0 && (b == 0 || w <= b) {
                Color::White
            } else {
                Color::Black
            };
            all.iter()
                .position(|(p, _)| *p == Piece::new(lead_color, Role::Pawn))
                .expect("pawn group")
        } else {
            let min = all
                .iter()
                .map(|(_, n)| *n)
                .min()
                .expect("non-empty material");
            all.iter().position(|(_, n)| *n == min).expect("minimum")
        };
        let (lead_piece, lead_count) = all[lead_pos];
        let lead = LeadMap::shared(lead_count, has_pawns);
        let mut rest: Vec<(Piece, u8)> = all
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != lead_pos)
            .map(|(_, g)| *g)
            .collect();
        rest.sort_by_key(|(p, _)| p.role != Role::Pawn);
        let mut groups = Vec::new();
        let mut pawns_placed = if has_pawns { u32::from(lead_count) } else { 0 };
        let mut placed = u32::from(lead_count);
        let mut size = lead.orbits() as u64;
        for (piece, count) in rest {
            let pawn = piece.role == Role::Pawn;
            let free = if pawn { 48 - pawns_placed } else { 64 - placed };
            let radix = binomial(free, u32::from(count));
            groups.push(Group {
                piece,
                count,
                pawn,
                radix,
                recip: (u64::MAX / radix.max(2)).wrapping_add(1),
            });
            size *= radix;
            placed += u32::from(count);
            if pawn {
                pawns_placed += u32::from(count);
            }
        }
        let mut weights = vec![1u64; groups.len()];
        for i in (0..groups.len().saturating_sub(1)).rev() {
            weights[i] = weights[i + 1] * groups[i + 1].radix;
        }
        let mut group_of = [ABSENT; 12];
        let code = |p: Piece| p.color.index() * 6 + p.role.index();
        group_of[code(lead_piece)] = LEAD;
        for (i, g) in groups.iter().enumerate() {
            group_of[code(g.piece)] = i as u8;
        }
        let lead_weight = weights.first().map_or(1, |w| w * groups[0].radix);
        let small = size <= u64::from(u32::MAX) && groups.iter().all(|g| g.radix > 1);
        let singles_from = groups.len()
            - groups
                .iter()
                .rev()
                .take_while(|g| g.count == 1 && !g.pawn)
                .count();
        let short_from = match singles_from.checked_sub(1) {
            Some(g) if !groups[g].pawn => g,
            _ => singles_from,
        };
        TableIndex {
            material: *material,
            lead_piece,
            lead,
            groups,
            weights,
            lead_weight,
            group_of,
            singles_from,
            short_from,
            small,
            size,
            id: {
                static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
                NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            },
        }
    }

    /// Number of indices per side to move.
    #[must_use]
    pub fn size(&self) -> u64 {
        self.size
    }

    #[must_use]
    pub fn material(&self) -> &Material {
        &self.material
    }

    /// Lead orbit and transform of a board.
    #[inline(always)]
    fn lead_of(&self, board: &Board) -> (u64, u8) {
        let lead_bb = board.by_piece(self.lead_piece).0;
        let dom = if self.lead.pawn {
            lead_bb >> 8
        } else {
            lead_bb
        };
        let rank = if self.lead.count == 1 {
            u64::from(dom.trailing_zeros())
        } else {
            colex_rank(dom)
        };
        let packed = self.lead.map[rank as usize];
        (u64::from(packed >> 3), (packed & 7) as u8)
    }

    #[inline(always)]
    fn encode_transformed(&self, board: &Board, orbit: u64, t: u8) -> u64 {
        let tsq = &TRANSFORMED_SQUARE[usize::from(t)];
        let map = |bb: u64, count: u8| -> u64 {
            if count == 1 {
                1u64 << tsq[bb.trailing_zeros() as usize & 63]
            } else {
                let mut bits = bb;
                let mut out = 0u64;
                while bits != 0 {
                    out |= 1u64 << tsq[bits.trailing_zeros() as usize];
                    bits &= bits - 1;
                }
                out
            }
        };
        let mut idx = orbit;
        let mut occ = map(board.by_piece(self.lead_piece).0, self.lead.count);
        let mut pawn_occ = if self.lead.pawn { occ >> 8 } else { 0 };
        for g in &self.groups {
            let bb = map(board.by_piece(g.piece).0, g.count);
            let digit = if g.pawn {
                let d = bb >> 8;
                let v = if g.count == 1 {
                    let s = d.trailing_zeros();
                    u64::from(s - (pawn_occ & ((1u64 << s) - 1)).count_ones())
                } else {
                    comb_index(d, pawn_occ)
                };
                pawn_occ |= d;
                v
            } else if g.count == 1 {
                let s = bb.trailing_zeros();
                u64::from(s - (occ & ((1u64 << s) - 1)).count_ones())
            } else {
                comb_index(bb, occ)
            };
            occ |= bb;
            idx = idx * g.radix + digit;
        }
        idx
    }

    /// The index of a board of this material (White and Black as in the canonical
    /// orientation).
    #[must_use]
    #[inline]
    pub fn encode(&self, board: &Board) -> u64 {
        self.encode_with_stab(board).0
    }

    /// The index, and the number of symmetries that fix the board (1 for almost all
    /// boards).
    #[must_use]
    #[inline]
    pub fn encode_with_stab(&self, board: &Board) -> (u64, u32) {
        let (orbit, t) = self.lead_of(board);
        let idx = self.encode_transformed(board, orbit, t);
        let stab_mask = self.lead.stabilizers[orbit as usize];
        if stab_mask == 0 {
            return (idx, 1);
        }
        // The lead group is symmetric: its symmetric images are candidates too.
        let (mut best, mut count) = (idx, 1);
        for s in 1..8u8 {
            if stab_mask & (1 << s) != 0 {
                let other = self.encode_transformed(board, orbit, compose(s, t));
                if other < best {
                    best = other;
                    count = 1;
                } else if other == best {
                    count += 1;
                }
            }
        }
        (best, count)
    }

    /// Whether `idx` is the canonical index of the board it decodes to (false for the
    /// unused duplicates of symmetric lead groups).
    #[must_use]
    #[inline]
    pub fn is_canonical(&self, idx: u64, board: &Board) -> bool {
        let (orbit, _) = self.lead_of(board);
        self.lead.stabilizers[orbit as usize] == 0 || self.encode(board) == idx
    }

    /// Number of symmetries fixing a board produced by [`TableIndex::decode`] from a
    /// canonical index.
    #[must_use]
    pub fn stab_of_decoded(&self, board: &Board) -> u32 {
        self.encode_with_stab(board).1
    }

    /// The board with index `idx` (< size).
    #[must_use]
    #[inline]
    pub fn decode(&self, idx: u64) -> Board {
        self.decode_full(idx).board
    }

    /// Decodes `idx` and keeps the digits and occupancies, for incremental encoding of
    /// the positions one move away.
    #[must_use]
    #[inline]
    pub fn decode_full(&self, idx: u64) -> Decoded {
        let mut d = Decoded::default();
        self.decode_into(idx, &mut d);
        d
    }

    /// [`TableIndex::decode_full`] into an existing value. When `d` holds the decoding of
    /// another index with the same lead orbit (generators decode indices in increasing
    /// order, most of them differing from the last one in the last digits only), only the
    /// groups from the first changed digit on are placed again.
    #[inline]
    pub fn decode_into(&self, idx: u64, d: &mut Decoded) {
        let n = self.groups.len();
        let mut digits = [0u64; 12];
        let mut rest = idx;
        if self.small {
            for (i, g) in self.groups.iter().enumerate().rev() {
                let q = ((u128::from(g.recip) * u128::from(rest)) >> 64) as u64;
                digits[i] = rest - q * g.radix;
                rest = q;
            }
        } else {
            for (i, g) in self.groups.iter().enumerate().rev() {
                digits[i] = rest % g.radix;
                rest /= g.radix;
            }
        }
        if d.index_id == self.id && d.orbit == rest {
            let Some(first) = (0..n).find(|&i| digits[i] != d.digits[i]) else {
                return; // the same position
            };
            for h in first..n {
                let piece = self.groups[h].piece;
                for sq in Bitboard(d.group_bits[h]) {
                    d.board.remove_unchecked(sq, piece);
                }
            }
            d.digits[first..n].copy_from_slice(&digits[first..n]);
            d.idx = idx;
            self.place_groups(d, first);
            return;
        }
        d.board = Board::empty();
        d.index_id = self.id;
        d.idx = idx;
        d.digits = digits;
        let rep = self.lead.reps[rest as usize];
        d.orbit = rest;
        d.simple = self.lead.stabilizers[rest as usize] == 0;
        for sq in rep {
            d.board.put_unchecked(sq, self.lead_piece);
        }
        d.occ_before[0] = rep.0;
        d.pawn_occ_before[0] = if self.lead.pawn { rep.0 >> 8 } else { 0 };
        self.place_groups(d, 0);
    }

    /// Places the pieces of groups `first..` on `d.board` from their digits, starting from
    /// the occupancies before group `first`, and records each group's squares and the
    /// occupancies before it.
    #[inline]
    fn place_groups(&self, d: &mut Decoded, first: usize) {
        let mut occ = d.occ_before[first];
        let mut pawn_occ = d.pawn_occ_before[first];
        let mut ranks = [0u32; 16];
        for (i, g) in self.groups.iter().enumerate().skip(first) {
            d.occ_before[i] = occ;
            d.pawn_occ_before[i] = pawn_occ;
            let count = usize::from(g.count);
            if count == 1 {
                ranks[0] = d.digits[i] as u32;
            } else {
                colex_unrank(d.digits[i], count, &mut ranks);
            }
            let free = if g.pawn {
                !pawn_occ & PAWN_DOMAIN
            } else {
                !occ
            };
            let mut bits = 0u64;
            for &r in &ranks[..count] {
                let bit = select(free, r);
                let sq = if g.pawn { bit + 8 } else { bit };
                d.board
                    .put_unchecked(antichess_core::Square::from_index(sq), g.piece);
                bits |= 1 << sq;
                if g.pawn {
                    pawn_occ |= 1 << bit;
                }
            }
            occ |= bits;
            d.group_bits[i] = bits;
        }
    }

    /// The digits and occupancies of `board` (whose lead group must be an orbit
    /// representative) encoded without any transform, as in [`TableIndex::decode_full`].
    fn decompose(&self, board: Board) -> Decoded {
        let lead_bb = board.by_piece(self.lead_piece).0;
        let (orbit, _) = self.lead_of(&board);
        let mut d = Decoded {
            board,
            idx: orbit,
            simple: true,
            ..Decoded::default()
        };
        let mut occ = lead_bb;
        let mut pawn_occ = if self.lead.pawn { occ >> 8 } else { 0 };
        for (i, g) in self.groups.iter().enumerate() {
            d.occ_before[i] = occ;
            d.pawn_occ_before[i] = pawn_occ;
            let bits = board.by_piece(g.piece).0;
            d.group_bits[i] = bits;
            d.digits[i] = if g.pawn {
                comb_index(bits >> 8, pawn_occ)
            } else {
                comb_index(bits, occ)
            };
            if g.pawn {
                pawn_occ |= bits >> 8;
            }
            occ |= bits;
            d.idx = d.idx * g.radix + d.digits[i];
        }
        d
    }

    /// The views of a decoded position needed to index its neighbours incrementally: the
    /// position itself, and its images under the symmetries fixing its lead group (each
    /// with the transform that made it).
    #[must_use]
    pub fn neighbourhood(&self, idx: u64) -> Neighbourhood {
        let mut n = Neighbourhood::default();
        self.neighbourhood_into(idx, &mut n);
        n
    }

    /// Decodes `idx` into `n` for its board only (no symmetric views: use
    /// [`TableIndex::neighbourhood_into`] before indexing neighbours); returns whether
    /// `idx` is canonical ([`TableIndex::is_canonical`]).
    #[inline]
    pub fn decode_board_into(&self, idx: u64, n: &mut Neighbourhood) -> bool {
        self.decode_into(idx, &mut n.first);
        n.others.clear();
        self.is_canonical(idx, &n.first.board)
    }

    /// [`TableIndex::neighbourhood`] into an existing value (no copying of large values).
    #[inline]
    pub fn neighbourhood_into(&self, idx: u64, n: &mut Neighbourhood) {
        self.decode_into(idx, &mut n.first);
        n.others.clear();
        if !n.first.simple {
            let (orbit, _) = self.lead_of(&n.first.board);
            let mask = self.lead.stabilizers[orbit as usize];
            for s in 1..8u8 {
                if mask & (1 << s) != 0 {
                    let view = self.decompose(crate::symmetry::transform_board(s, &n.first.board));
                    n.others.push((view, s));
                }
            }
            if let [(view, _)] = n.others.as_slice() {
                let groups = self.groups.len();
                n.split = (0..groups)
                    .find(|&i| view.digits[i] != n.first.digits[i])
                    .unwrap_or(groups);
                n.image_smaller =
                    n.split < groups && view.digits[n.split] < n.first.digits[n.split];
            }
        }
    }

    /// The canonical index and stabiliser size of the position of `n` with `piece` moved
    /// from `from` to the empty square `to`; `None` for some moves of the lead group (a
    /// lead of several pieces, or a lone lead arriving where a symmetry fixes it): then use
    /// [`TableIndex::encode_with_stab`].
    #[must_use]
    #[inline(always)]
    pub fn encode_neighbour(
        &self,
        n: &Neighbourhood,
        piece: Piece,
        from: antichess_core::Square,
        to: antichess_core::Square,
    ) -> Option<(u64, u32)> {
        let gi = self.group_of[piece.color.index() * 6 + piece.role.index()];
        if gi == LEAD && self.lead.count == 1 {
            // A lone lead moving to a square outside the representatives (and fixed by no
            // symmetry there): the whole board is encoded under that square's transform,
            // as `encode_with_stab` would, without finding the transform again.
            let to_i = to.index() as u32;
            let dom = if self.lead.pawn { to_i - 8 } else { to_i };
            let packed = self.lead.map[dom as usize];
            let orbit = u64::from(packed >> 3);
            if packed & 7 != 0 && self.lead.stabilizers[orbit as usize] == 0 {
                let mut board = n.first.board;
                board.remove_unchecked(from, piece);
                board.put_unchecked(to, piece);
                return Some((
                    self.encode_transformed(&board, orbit, (packed & 7) as u8),
                    1,
                ));
            }
        }
        if n.others.len() == 1 && gi < LEAD && usize::from(gi) > n.split {
            // The views differ before the moved group: the smaller one stays the smaller,
            // and the position after the move is fixed by no symmetry.
            let idx = if n.image_smaller {
                let (view, s) = &n.others[0];
                self.encode_view(
                    view,
                    piece,
                    crate::symmetry::transform_square(*s, from),
                    crate::symmetry::transform_square(*s, to),
                )?
            } else {
                self.encode_view(&n.first, piece, from, to)?
            };
            return Some((idx, 1));
        }
        let first_idx = self.encode_view(&n.first, piece, from, to)?;
        if n.others.is_empty() || gi == LEAD {
            // A lead that moved has no stabiliser (checked by `encode_view`).
            return Some((first_idx, 1));
        }
        let (mut best, mut count) = (first_idx, 1);
        for (view, s) in &n.others {
            let idx = self.encode_view(
                view,
                piece,
                crate::symmetry::transform_square(*s, from),
                crate::symmetry::transform_square(*s, to),
            )?;
            if idx < best {
                best = idx;
                count = 1;
            } else if idx == best {
                count += 1;
            }
        }
        Some((best, count))
    }

    /// The identity encoding (no symmetry) of the position `d` with `piece` moved from
    /// `from` to the empty square `to`, computed from `d`'s digits: only the moved
    /// group's digit and the ranks of later groups change. `None` if the lead group moves.
    #[inline(always)]
    fn encode_view(
        &self,
        d: &Decoded,
        piece: Piece,
        from: antichess_core::Square,
        to: antichess_core::Square,
    ) -> Option<u64> {
        let gi = self.group_of[piece.color.index() * 6 + piece.role.index()];
        if gi < LEAD && usize::from(gi) >= self.short_from {
            // A piece (not a pawn), and every later group is one piece (not a pawn): its
            // digit is its square among the squares left free by the groups before it (the
            // combination of its group's squares among them, for a repeated piece), and
            // each later piece's digit moves by one if the piece left from below it or
            // arrives below it.
            let gi = usize::from(gi);
            let (from_i, to_i) = (from.index() as u32, to.index() as u32);
            let digit = if gi >= self.singles_from {
                let below = (1u64 << to_i) - 1;
                u64::from(to_i - (d.occ_before[gi] & below).count_ones())
            } else {
                comb_index(
                    d.group_bits[gi] ^ (1u64 << from_i) ^ (1u64 << to_i),
                    d.occ_before[gi],
                )
            };
            let mut idx = d.idx.wrapping_add(
                digit
                    .wrapping_sub(d.digits[gi])
                    .wrapping_mul(self.weights[gi]),
            );
            for h in gi + 1..self.groups.len() {
                let sq = d.group_bits[h].trailing_zeros();
                let delta = i64::from(from_i < sq) - i64::from(to_i < sq);
                idx = idx.wrapping_add((delta as u64).wrapping_mul(self.weights[h]));
            }
            return Some(idx);
        }
        self.encode_view_general(d, piece, from, to)
    }

    /// [`TableIndex::encode_view`] for any group.
    #[inline(never)]
    fn encode_view_general(
        &self,
        d: &Decoded,
        piece: Piece,
        from: antichess_core::Square,
        to: antichess_core::Square,
    ) -> Option<u64> {
        let gi = self.group_of[piece.color.index() * 6 + piece.role.index()];
        let (from_i, to_i) = (from.index() as u32, to.index() as u32);
        let mut idx = d.idx;
        let (first_later, moved_pawn) = if gi == LEAD {
            // The lead moves: fine if its new square is its own orbit representative and
            // is fixed by no symmetry (always so for a pawn stepping back), so that the
            // other pieces stay untransformed.
            if self.lead.count != 1 {
                return None;
            }
            let dom = if self.lead.pawn { to_i - 8 } else { to_i };
            let packed = self.lead.map[dom as usize];
            let orbit = u64::from(packed >> 3);
            if packed & 7 != 0 || self.lead.stabilizers[orbit as usize] != 0 {
                return None;
            }
            idx = idx.wrapping_add(orbit.wrapping_sub(d.orbit).wrapping_mul(self.lead_weight));
            (0, self.lead.pawn)
        } else if gi == ABSENT {
            return None;
        } else {
            let gi = usize::from(gi);
            let g = &self.groups[gi];
            let digit = if g.count == 1 {
                let (sq, occ) = if g.pawn {
                    (to_i - 8, d.pawn_occ_before[gi])
                } else {
                    (to_i, d.occ_before[gi])
                };
                u64::from(sq - (occ & ((1u64 << sq) - 1)).count_ones())
            } else {
                let bits = d.group_bits[gi] ^ (1u64 << from_i) ^ (1u64 << to_i);
                if g.pawn {
                    comb_index(bits >> 8, d.pawn_occ_before[gi])
                } else {
                    comb_index(bits, d.occ_before[gi])
                }
            };
            idx = idx.wrapping_add(
                digit
                    .wrapping_sub(d.digits[gi])
                    .wrapping_mul(self.weights[gi]),
            );
            (gi + 1, g.pawn)
        };
        let change = (1u64 << from_i) | (1u64 << to_i);
        for h in first_later..self.groups.len() {
            let g = &self.groups[h];
            if g.pawn && !moved_pawn {
                // Pawn ranks count only pawns.
                continue;
            }
            if g.count == 1 {
                // One free square fewer below it if the piece arrives below it, one more if
                // it left from below it.
                let sq = d.group_bits[h].trailing_zeros();
                let delta = i64::from(from_i < sq) - i64::from(to_i < sq);
                if delta != 0 {
                    idx = idx.wrapping_add((delta as u64).wrapping_mul(self.weights[h]));
                }
            } else {
                let digit = if g.pawn {
                    comb_index(d.group_bits[h] >> 8, d.pawn_occ_before[h] ^ (change >> 8))
                } else {
                    comb_index(d.group_bits[h], d.occ_before[h] ^ change)
                };
                idx = idx.wrapping_add(
                    digit
                        .wrapping_sub(d.digits[h])
                        .wrapping_mul(self.weights[h]),
                );
            }
        }
        Some(idx)
    }
}

#[cfg(test)]
mod tests;
