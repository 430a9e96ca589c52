//! The en passant nodes of the Lasker generator ([`super::generate`]), and the geometry of
//! double steps they need.
//!
//! With pawns of both colours, a double step can give the opponent an en passant capture.
//! The position reached, `E`, is not stored (the index has no en passant square) but it is
//! a node of its own: its moves are the en passant captures (external, into a smaller
//! table) and every move of its *twin* `T`, the stored position with the same board and
//! side to move, so its value is the better of the en passant captures' and `T`'s. The
//! generator keeps such nodes here, one per board, side to move and en passant square
//! with a legal en passant capture and a legal predecessor, sorted by key (side to move,
//! twin index, en passant square in the frame of the board the twin's index decodes to),
//! each with a word and a mark bit like a stored position's. How they are linked to their
//! twins and predecessors is in the generator's documentation.

use std::ops::Range;
use std::sync::atomic::{AtomicU16, AtomicU64};

use antichess_core::attacks;
use antichess_core::orthodox::{in_check, OrthoPosition};
use antichess_core::{Board, Color, Piece, Role, Square};
use rayon::prelude::*;

use crate::index::TableIndex;

/// Key of an en passant node: the side to move, its twin's index, and the en passant
/// square in the frame of the board the twin's index decodes to.
#[inline]
fn ep_key(side: Color, idx: u64, ep: Square) -> u64 {
    (side.index() as u64) << 63 | idx << 6 | ep.index() as u64
}

/// Side to move, twin index and en passant square of an en passant key.
#[inline]
fn split_ep_key(key: u64) -> (Color, u64, Square) {
    let side = if key >> 63 == 0 {
        Color::White
    } else {
        Color::Black
    };
    let idx = (key & !(1 << 63)) >> 6;
    (side, idx, Square::from_index((key & 63) as u32))
}

/// The en passant square of a double step `from` → `to` that leaves `board` (after the
/// step) with a legal en passant capture for the side to move `turn`; `None` otherwise.
#[inline]
pub(super) fn ep_after(board: &Board, turn: Color, from: Square, to: Square) -> Option<Square> {
    let pawns = board.pawns();
    if !pawns.contains(to) || from.index().abs_diff(to.index()) != 16 {
        return None;
    }
    let ep = Square::from_index(((from.index() + to.index()) / 2) as u32);
    if (attacks::pawn_attacks(turn.other(), ep) & pawns & board.by_color(turn)).is_empty() {
        return None;
    }
    OrthoPosition::from_board_with_ep_unchecked(*board, turn, Some(ep)).ep_square()
}

/// The square a pawn of `mover` reached by a double step over `ep`, and its start square.
#[inline]
fn double_step_squares(mover: Color, ep: Square) -> (Square, Square) {
    let e = ep.index() as u32;
    match mover {
        Color::White => (Square::from_index(e + 8), Square::from_index(e - 8)),
        Color::Black => (Square::from_index(e - 8), Square::from_index(e + 8)),
    }
}

/// The en passant squares of the en passant nodes with `board`, `side` to move: every pawn
/// of the other side that may just have made a double step (both squares behind it empty,
/// the position before it legal) after which `side` has a legal en passant capture.
fn ep_nodes_of(board: &Board, side: Color, mut f: impl FnMut(Square)) {
    let mover = side.other();
    let rank = match mover {
        Color::White => 3,
        Color::Black => 4,
    };
    let empty = !board.occupied();
    let pawn = Piece::new(mover, Role::Pawn);
    for to in board.by_piece(pawn) {
        if to.rank() != rank {
            continue;
        }
        let ep = match mover {
            Color::White => Square::from_index(to.index() as u32 - 8),
            Color::Black => Square::from_index(to.index() as u32 + 8),
        };
        let (_, start) = double_step_squares(mover, ep);
        if !empty.contains(ep) || !empty.contains(start) {
            continue;
        }
        if ep_after(board, side, start, to).is_none() {
            continue;
        }
        let mut before = *board;
        before.remove_unchecked(to, pawn);
        before.put_unchecked(start, pawn);
        if !in_check(&before, side) {
            f(ep);
        }
    }
}

/// The positions reached by a double step that gives the opponent a legal en passant
/// capture, sorted by key, with their words and mark bits.
#[derive(Default)]
pub(super) struct EpNodes {
    keys: Vec<u64>,
    pub(super) words: Vec<AtomicU16>,
    pub(super) marks: Vec<AtomicU64>,
}

impl EpNodes {
    /// The en passant nodes of the table: for each stored position (`is_position`) and
    /// each pawn of the side not to move that may just have made a double step (both
    /// squares behind it empty, the position before it legal) after which the side to move
    /// has a legal en passant capture. Words start at zero.
    pub(super) fn find(
        index: &TableIndex,
        is_position: impl Fn(Color, u64) -> bool + Sync,
    ) -> EpNodes {
        const CHUNK: u64 = 1 << 12;
        let mut keys = Vec::new();
        for side in Color::ALL {
            let size = index.size();
            let parts: Vec<Vec<u64>> = (0..size.div_ceil(CHUNK))
                .into_par_iter()
                .map(|chunk| {
                    let mut out = Vec::new();
                    for idx in chunk * CHUNK..((chunk + 1) * CHUNK).min(size) {
                        if !is_position(side, idx) {
                            continue;
                        }
                        let board = index.decode(idx);
                        ep_nodes_of(&board, side, |ep| out.push(ep_key(side, idx, ep)));
                    }
                    out
                })
                .collect();
            keys.extend(parts.into_iter().flatten());
        }
        debug_assert!(keys.windows(2).all(|w| w[0] < w[1]));
        let n = keys.len();
        EpNodes {
            keys,
            words: (0..n).map(|_| AtomicU16::new(0)).collect(),
            marks: (0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// The number of nodes.
    pub(super) fn len(&self) -> usize {
        self.keys.len()
    }

    /// The position of node `i`, with its en passant right.
    pub(super) fn position(&self, index: &TableIndex, i: usize) -> OrthoPosition {
        let (side, idx, ep) = split_ep_key(self.keys[i]);
        let pos = OrthoPosition::from_board_with_ep_unchecked(index.decode(idx), side, Some(ep));
        debug_assert_eq!(pos.ep_square(), Some(ep));
        pos
    }

    /// Side to move and twin index of node `i`.
    pub(super) fn twin(&self, i: usize) -> (Color, u64) {
        let (side, idx, _) = split_ep_key(self.keys[i]);
        (side, idx)
    }

    /// The player who made the double step into node `i`, and the board before it.
    pub(super) fn predecessor(&self, index: &TableIndex, i: usize) -> (Color, Board) {
        let (side, idx, ep) = split_ep_key(self.keys[i]);
        let mut board = index.decode(idx);
        let mover = side.other();
        let pawn = Piece::new(mover, Role::Pawn);
        let (to, start) = double_step_squares(mover, ep);
        board.remove_unchecked(to, pawn);
        board.put_unchecked(start, pawn);
        (mover, board)
    }

    /// The node with `board` (any frame), `turn` to move and en passant square `ep`.
    pub(super) fn lookup(
        &self,
        index: &TableIndex,
        board: &Board,
        turn: Color,
        ep: Square,
    ) -> usize {
        let idx = index.encode(board);
        let ep = if index.decode(idx) == *board {
            ep
        } else {
            ep.flip_horizontal()
        };
        self.keys
            .binary_search(&ep_key(turn, idx, ep))
            .expect("every en passant node is listed")
    }

    /// The nodes whose twin is index `idx` with `side` to move.
    pub(super) fn twins_of(&self, side: Color, idx: u64) -> Range<usize> {
        if self.keys.is_empty() {
            return 0..0;
        }
        let lo = ep_key(side, idx, Square::from_index(0));
        let first = self.keys.partition_point(|&k| k < lo);
        let len = self.keys[first..]
            .iter()
            .take_while(|&&k| k >> 6 == lo >> 6)
            .count();
        first..first + len
    }
}
