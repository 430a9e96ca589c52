//! The index layouts a generation runs on ([`GenIndex`]): the file's combinatorial
//! [`TableIndex`], and the generation-only [`FastIndex`] for materials of single pieces
//! beside the lead group.

use antichess_core::{Board, Piece, Square};

use crate::index::{FastIndex, FastNear, Neighbourhood, TableIndex};

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
