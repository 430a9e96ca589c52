//! The moves the generator walks: a quiet position's external moves (promotions and
//! double steps allowing en passant), its internal moves generated straight from the
//! board, the un-moves that give a position's predecessors, and the grouping of un-moves
//! by predecessor (shared with the Lasker and royal generators).

use antichess_core::attacks;
use antichess_core::{Bitboard, Board, Color, Move, Piece, Position, PromotionRule, Role, Square};

/// The moves of a quiet position that leave the table without capturing: promotions and
/// double steps that allow an en passant capture, with their DTC contribution (1 for a
/// promotion, 2 for the double step: the opponent's capture converts on the next ply).
pub(super) fn external_moves(pos: &Position, out: &mut Vec<(Move, u16)>) {
    out.clear();
    let board = pos.board();
    let us = pos.turn();
    let our_pawns = board.by_piece(Piece::new(us, Role::Pawn));
    if our_pawns.is_empty() {
        return;
    }
    let their_pawns = board.by_piece(Piece::new(us.other(), Role::Pawn));
    let empty = !board.occupied();
    let (push, seventh, second): (i32, u8, u8) = match us {
        Color::White => (8, 6, 1),
        Color::Black => (-8, 1, 6),
    };
    for from in our_pawns & Bitboard::rank(seventh) {
        let to = Square::from_index((from.index() as i32 + push) as u32);
        if empty.contains(to) {
            match pos.rules().promotion {
                PromotionRule::Any => {
                    for role in Role::PROMOTIONS {
                        out.push((Move::new(from, to, Some(role)), 1));
                    }
                }
                PromotionRule::QueenOnly => out.push((Move::new(from, to, Some(Role::Queen)), 1)),
            }
        }
    }
    for from in our_pawns & Bitboard::rank(second) {
        let mid = Square::from_index((from.index() as i32 + push) as u32);
        let to = Square::from_index((from.index() as i32 + 2 * push) as u32);
        if empty.contains(mid)
            && empty.contains(to)
            && (attacks::pawn_attacks(us, mid) & their_pawns).any()
        {
            out.push((Move::normal(from, to), 2));
        }
    }
}
/// The quiet un-moves of `mover`'s pieces other than pawns on `board`: for each, the piece,
/// the square it stands on now and an empty square it could have come from (shared by the
/// antichess, Lasker and royal generators; each filters them by its own rules).
#[inline]
pub(crate) fn piece_un_moves(
    board: &Board,
    mover: Color,
    mut f: impl FnMut(Piece, Square, Square),
) {
    let occupied = board.occupied();
    let empty = !occupied;
    let ours = board.by_color(mover);
    for role in [
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
        Role::King,
    ] {
        let piece = Piece::new(mover, role);
        for to in ours & board.by_role(role) {
            for from in attacks::attacks(mover, role, to, occupied) & empty {
                f(piece, to, from);
            }
        }
    }
}

/// The moves of `side` on `board` that stay in the table, when `side` has no capture (so
/// that every quiet move is legal): quiet moves other than promotions and double steps that
/// allow an en passant capture, reported as (piece, from, to). The forward pass's children;
/// exactly the moves initialisation counts as internal.
pub(super) fn internal_moves(board: &Board, side: Color, mut f: impl FnMut(Piece, Square, Square)) {
    // A piece other than a pawn reaches an empty square exactly when it could have come
    // from it: its un-moves are its moves.
    piece_un_moves(board, side, &mut f);
    let pawn = Piece::new(side, Role::Pawn);
    let empty = !board.occupied();
    let their_pawns = board.by_piece(Piece::new(side.other(), Role::Pawn));
    let (push, last, second): (i32, u8, u8) = match side {
        Color::White => (8, 7, 1),
        Color::Black => (-8, 0, 6),
    };
    for from in board.by_piece(pawn) {
        let to = Square::from_index((from.index() as i32 + push) as u32);
        if to.rank() == last || !empty.contains(to) {
            continue; // a promotion (external) or blocked
        }
        f(pawn, from, to);
        if from.rank() == second {
            let to2 = Square::from_index((to.index() as i32 + push) as u32);
            // A double step past an enemy pawn's capture allows en passant: external.
            if empty.contains(to2) && (attacks::pawn_attacks(side, to) & their_pawns).is_empty() {
                f(pawn, from, to2);
            }
        }
    }
}

/// The quiet moves that stay in the table by which `mover` could have reached `board`
/// (not captures, not promotions, not double steps that allow en passant), reported as
/// (piece, square it stands on now, square it came from).
pub(super) fn predecessors(board: &Board, mover: Color, mut f: impl FnMut(Piece, Square, Square)) {
    let occupied = board.occupied();
    let empty = !occupied;
    let ours = board.by_color(mover);
    piece_un_moves(board, mover, &mut f);
    let pawn = Piece::new(mover, Role::Pawn);
    let their_pawns = board.by_piece(Piece::new(mover.other(), Role::Pawn));
    let (back, min_rank, double_rank): (i32, u8, u8) = match mover {
        Color::White => (-8, 2, 3),
        Color::Black => (8, 5, 4),
    };
    for to in ours & board.pawns() {
        let from = Square::from_index((to.index() as i32 + back) as u32);
        let rank_ok = match mover {
            Color::White => to.rank() >= min_rank,
            Color::Black => to.rank() <= min_rank,
        };
        if !rank_ok || !empty.contains(from) {
            continue;
        }
        f(pawn, to, from);
        if to.rank() == double_rank {
            let start = Square::from_index((to.index() as i32 + 2 * back) as u32);
            // After the double step the opponent must not be able to take en passant,
            // or the position reached would not be this stored one.
            let passed = from;
            if empty.contains(start)
                && (attacks::pawn_attacks(mover, passed) & their_pawns).is_empty()
            {
                f(pawn, to, start);
            }
        }
    }
}

/// The un-moves `preds` (predecessor index, stabiliser weight) of a board fixed by `stab`
/// symmetries, grouped by predecessor: `f(predecessor, moves)` with the number of moves
/// they stand for (several un-moves may be images of one move). Shared by the antichess
/// and Lasker generators.
pub(crate) fn for_each_predecessor_move(
    preds: &mut [(u64, u32)],
    stab: u32,
    mut f: impl FnMut(u64, u32),
) {
    preds.sort_unstable();
    let mut i = 0;
    while i < preds.len() {
        let pidx = preds[i].0;
        let mut sum = 0;
        while i < preds.len() && preds[i].0 == pidx {
            sum += preds[i].1;
            i += 1;
        }
        debug_assert_eq!(sum % stab, 0, "stabiliser weights must divide");
        f(pidx, sum / stab);
    }
}
