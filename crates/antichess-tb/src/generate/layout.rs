//! The index layouts a generation runs on ([`GenIndex`]): the file's combinatorial
//! [`TableIndex`], the generation-only [`FastIndex`] for materials of single pieces beside
//! the lead group, and the generation-only [`FastSetIndex`] for materials with repeated
//! pieces; and the order in which the generation-only layouts' words are moved to the
//! file's index ([`FileOrder`]).

use std::sync::atomic::{AtomicU16, Ordering::Relaxed};

use antichess_core::{Board, Piece, Square};

use crate::index::{FastIndex, FastNear, FastSetIndex, FastSetNear, Neighbourhood, TableIndex};
use crate::zeroed::ZeroedArray;

/// The index a generation runs on: the file's combinatorial [`TableIndex`], or the
/// generation-only [`FastIndex`] (one square field per piece) whose words are converted to
/// the file's index at the end.
pub(super) trait GenIndex: Sync {
    /// A decoded position with what indexing its neighbours needs.
    type Near: Default + Send;
    /// Words per side to move.
    fn size(&self) -> u64;
    /// Decodes `idx` (its board only); returns whether it is a used index (canonical, and
    /// for the fast layout no two pieces on one square).
    fn decode_used(&self, idx: u64, near: &mut Self::Near) -> bool;
    /// Decodes the used index `idx` for indexing its neighbours.
    fn near_into(&self, idx: u64, near: &mut Self::Near);
    fn board(near: &Self::Near) -> &Board;
    /// The number of symmetries fixing the decoded position.
    fn stab(near: &Self::Near) -> u32;
    /// The canonical index and stabiliser size of the position of `near` with `piece`
    /// moved from `from` to the empty square `to`.
    fn neighbour(&self, near: &Self::Near, piece: Piece, from: Square, to: Square) -> (u64, u32);
}

impl GenIndex for TableIndex {
    type Near = Neighbourhood;

    fn size(&self) -> u64 {
        TableIndex::size(self)
    }

    #[inline]
    fn decode_used(&self, idx: u64, near: &mut Neighbourhood) -> bool {
        self.decode_board_into(idx, near)
    }

    #[inline]
    fn near_into(&self, idx: u64, near: &mut Neighbourhood) {
        self.neighbourhood_into(idx, near);
    }

    #[inline(always)]
    fn board(near: &Neighbourhood) -> &Board {
        near.board()
    }

    #[inline(always)]
    fn stab(near: &Neighbourhood) -> u32 {
        near.stab()
    }

    #[inline(always)]
    fn neighbour(
        &self,
        near: &Neighbourhood,
        piece: Piece,
        from: Square,
        to: Square,
    ) -> (u64, u32) {
        self.encode_neighbour(near, piece, from, to)
            .unwrap_or_else(|| {
                let mut board = *near.board();
                board.remove_unchecked(from, piece);
                board.put_unchecked(to, piece);
                self.encode_with_stab(&board)
            })
    }
}

impl GenIndex for FastIndex {
    type Near = FastNear;

    fn size(&self) -> u64 {
        FastIndex::size(self)
    }

    #[inline]
    fn decode_used(&self, idx: u64, near: &mut FastNear) -> bool {
        FastIndex::decode_used(self, idx, near)
    }

    #[inline]
    fn near_into(&self, idx: u64, near: &mut FastNear) {
        let used = FastIndex::decode_used(self, idx, near);
        debug_assert!(used, "a used slot");
    }

    #[inline(always)]
    fn board(near: &FastNear) -> &Board {
        near.board()
    }

    #[inline(always)]
    fn stab(near: &FastNear) -> u32 {
        near.stab()
    }

    #[inline(always)]
    fn neighbour(&self, near: &FastNear, piece: Piece, from: Square, to: Square) -> (u64, u32) {
        FastIndex::neighbour(self, near, piece, from, to)
    }
}

impl GenIndex for FastSetIndex {
    type Near = FastSetNear;

    fn size(&self) -> u64 {
        FastSetIndex::size(self)
    }

    #[inline]
    fn decode_used(&self, idx: u64, near: &mut FastSetNear) -> bool {
        FastSetIndex::decode_used(self, idx, near)
    }

    #[inline]
    fn near_into(&self, idx: u64, near: &mut FastSetNear) {
        let used = FastSetIndex::decode_used(self, idx, near);
        debug_assert!(used, "a used slot");
    }

    #[inline(always)]
    fn board(near: &FastSetNear) -> &Board {
        near.board()
    }

    #[inline(always)]
    fn stab(near: &FastSetNear) -> u32 {
        near.stab()
    }

    #[inline(always)]
    fn neighbour(&self, near: &FastSetNear, piece: Piece, from: Square, to: Square) -> (u64, u32) {
        FastSetIndex::neighbour(self, near, piece, from, to)
    }
}

/// A generation-only layout whose words are moved in place to the file's index.
pub(super) trait FileOrder: GenIndex {
    /// The layout's name, for timing reports.
    const NAME: &'static str;
    /// Number of lead orbits.
    fn orbits(&self) -> usize;
    /// Calls `f(file index, slot)` for the file's indices whose lead is in `orbit`, in
    /// increasing order, each slot at least its file index (`None`: an unused file
    /// index).
    fn for_each_file_index(&self, file: &TableIndex, orbit: usize, f: impl FnMut(u64, Option<u64>));
}

impl FileOrder for FastIndex {
    const NAME: &'static str = "fast layout";

    fn orbits(&self) -> usize {
        FastIndex::orbits(self)
    }

    fn for_each_file_index(
        &self,
        file: &TableIndex,
        orbit: usize,
        mut f: impl FnMut(u64, Option<u64>),
    ) {
        for first in 0..64 {
            FastIndex::for_each_file_index(self, file, orbit, first, &mut f);
        }
    }
}

impl FileOrder for FastSetIndex {
    const NAME: &'static str = "set layout";

    fn orbits(&self) -> usize {
        FastSetIndex::orbits(self)
    }

    fn for_each_file_index(
        &self,
        file: &TableIndex,
        orbit: usize,
        f: impl FnMut(u64, Option<u64>),
    ) {
        FastSetIndex::for_each_file_index(self, file, orbit, f);
    }
}

/// The words of a generation-only layout `fast_words` rewritten in place in the file's
/// index: each canonical index takes the word of its position's slot, every other index
/// the fixed draw it has when generated in the file's index; the arrays are then cut to
/// the file's size. The file's indices are enumerated in order without decoding
/// ([`FastIndex::for_each_file_index`], [`FastSetIndex::for_each_file_index`]), and with
/// them the slots, also in increasing order and never below the file index (each digit
/// of the file's index is at most the field it counts, and its place values at most the
/// fields'), so no slot is overwritten before it is read. One thread per side.
/// `unused` is the word of an index without a slot (the generator's fixed draw).
pub(super) fn to_file_layout<F: FileOrder>(
    index: &TableIndex,
    fast: &F,
    fast_words: [ZeroedArray<AtomicU16>; 2],
    unused: u16,
) -> [ZeroedArray<AtomicU16>; 2] {
    let size = index.size() as usize;
    let compact = |mut words: ZeroedArray<AtomicU16>| {
        for orbit in 0..fast.orbits() {
            fast.for_each_file_index(index, orbit, |idx, slot| {
                debug_assert!(slot.is_none_or(|slot| slot >= idx));
                let v = slot.map_or(unused, |slot| words[slot as usize].load(Relaxed));
                words[idx as usize].store(v, Relaxed);
            });
        }
        words.truncate(size);
        words
    };
    let [white, black] = fast_words;
    let (white, black) = rayon::join(|| compact(white), || compact(black));
    [white, black]
}
