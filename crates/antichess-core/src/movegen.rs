//! Legal move generation for this game: if any capture exists only captures are legal,
//! otherwise every pseudo-legal move is (there is no check and no castling). The royal-king
//! rule sets branch off at the entry points to [`crate::royal`]; the generator below is the
//! antichess one only. Pawns promote
//! to knight, bishop, rook, queen or king (queen only under [`PromotionRule::QueenOnly`]);
//! en passant is a capture and so compulsory when available.
//!
//! Three forms: [`Position::legal_moves`] lists, [`Position::count_moves`] counts by popcount
//! without listing (promotions count once per promotion role), and
//! [`Position::has_capture`] answers whether captures are compulsory.
//!
//! Move order is deterministic: knights, diagonal sliders, straight sliders (queens appear in
//! both), kings, then pawns, each by origin square; promotions in the order Q, R, B, N, K.

use crate::attacks::{bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks};
use crate::{Bitboard, Board, Color, Move, MoveList, Position, PromotionRule, Role, Square};

#[inline(always)]
fn push_targets(list: &mut MoveList, from: Square, targets: Bitboard) {
    for to in targets {
        list.push(Move::normal(from, to));
    }
}

#[inline(always)]
fn push_promotions(list: &mut MoveList, from: Square, to: Square, rule: PromotionRule) {
    match rule {
        PromotionRule::Any => {
            for role in Role::PROMOTIONS {
                list.push(Move::new(from, to, Some(role)));
            }
        }
        PromotionRule::QueenOnly => list.push(Move::new(from, to, Some(Role::Queen))),
    }
}

/// Pawn move geometry for one colour: square deltas of a push and the two captures, and
/// the bitboard shifts that produce their destinations.
#[derive(Clone, Copy)]
struct PawnDirs {
    push: i32,
    capture_west: i32,
    capture_east: i32,
    last_rank: Bitboard,
    double_rank: Bitboard,
}

const fn pawn_dirs(color: Color) -> PawnDirs {
    match color {
        Color::White => PawnDirs {
            push: 8,
            capture_west: 7,
            capture_east: 9,
            last_rank: Bitboard::rank(7),
            double_rank: Bitboard::rank(2),
        },
        Color::Black => PawnDirs {
            push: -8,
            capture_west: -9,
            capture_east: -7,
            last_rank: Bitboard::rank(0),
            double_rank: Bitboard::rank(5),
        },
    }
}

#[inline(always)]
const fn shift(bb: Bitboard, delta: i32) -> Bitboard {
    if delta >= 0 {
        Bitboard(bb.0 << delta)
    } else {
        Bitboard(bb.0 >> -delta)
    }
}

const NOT_FILE_A: Bitboard = Bitboard(!Bitboard::file(0).0);
const NOT_FILE_H: Bitboard = Bitboard(!Bitboard::file(7).0);

/// Whether `us` could capture something on `board` (ignoring en passant, which needs the
/// position's history). The test behind [`Position::has_capture`], usable on bare boards
/// (tablebase generation asks it of many predecessor boards).
#[must_use]
#[inline]
pub fn board_has_capture(board: &Board, us: Color) -> bool {
    let ours = board.by_color(us);
    let them = board.by_color(us.other());
    let occupied = ours | them;
    let pawns = board.pawns() & ours;
    if pawns.any() {
        let dirs = pawn_dirs(us);
        let west = shift(pawns & NOT_FILE_A, dirs.capture_west);
        let east = shift(pawns & NOT_FILE_H, dirs.capture_east);
        if ((west | east) & them).any() {
            return true;
        }
    }
    for from in board.knights() & ours {
        if (knight_attacks(from) & them).any() {
            return true;
        }
    }
    for from in board.kings() & ours {
        if (king_attacks(from) & them).any() {
            return true;
        }
    }
    for from in board.diagonal_sliders() & ours {
        if (bishop_attacks(from, occupied) & them).any() {
            return true;
        }
    }
    for from in board.straight_sliders() & ours {
        if (rook_attacks(from, occupied) & them).any() {
            return true;
        }
    }
    false
}

impl Position {
    #[inline(always)]
    fn promotion_count(&self) -> u32 {
        match self.rules.promotion {
            PromotionRule::Any => 5,
            PromotionRule::QueenOnly => 1,
        }
    }

    /// The legal moves.
    #[must_use]
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.legal_moves_into(&mut list);
        list
    }

    /// Appends the legal moves to `list` (which is cleared first).
    pub fn legal_moves_into(&self, list: &mut MoveList) {
        if self.rules.is_royal() {
            return self.royal_legal_moves_into(list);
        }
        list.clear();
        if self.antichess_has_capture() {
            self.gen::<true>(list);
        } else {
            self.gen::<false>(list);
        }
    }

    /// Captures only (the legal moves when [`Position::has_capture`]). Under a royal rule
    /// set, the legal moves that capture.
    #[must_use]
    pub fn captures(&self) -> MoveList {
        let mut list = MoveList::new();
        if self.rules.is_royal() {
            self.royal_legal_moves_into(&mut list);
            list.retain(|m| self.is_capture(*m));
            return list;
        }
        self.gen::<true>(&mut list);
        list
    }

    fn gen<const CAPTURES: bool>(&self, list: &mut MoveList) {
        let board = &self.board;
        let us = self.us();
        let them = self.them();
        let occupied = us | them;
        let targets = if CAPTURES { them } else { !occupied };

        for from in board.knights() & us {
            push_targets(list, from, knight_attacks(from) & targets);
        }
        for from in board.diagonal_sliders() & us {
            push_targets(list, from, bishop_attacks(from, occupied) & targets);
        }
        for from in board.straight_sliders() & us {
            push_targets(list, from, rook_attacks(from, occupied) & targets);
        }
        for from in board.kings() & us {
            push_targets(list, from, king_attacks(from) & targets);
        }

        let pawns = board.pawns() & us;
        if pawns.is_empty() {
            return;
        }
        let dirs = pawn_dirs(self.turn);
        let rule = self.rules.promotion;
        if CAPTURES {
            for (delta, sources) in [
                (dirs.capture_west, pawns & NOT_FILE_A),
                (dirs.capture_east, pawns & NOT_FILE_H),
            ] {
                let dests = shift(sources, delta) & them;
                for to in dests & !dirs.last_rank {
                    list.push(Move::normal(
                        Square::from_index((to.index() as i32 - delta) as u32),
                        to,
                    ));
                }
                for to in dests & dirs.last_rank {
                    let from = Square::from_index((to.index() as i32 - delta) as u32);
                    push_promotions(list, from, to, rule);
                }
            }
            if let Some(ep) = self.ep_square {
                for from in pawn_attacks(self.turn.other(), ep) & pawns {
                    list.push(Move::en_passant(from, ep));
                }
            }
        } else {
            let empty = !occupied;
            let single = shift(pawns, dirs.push) & empty;
            let double = shift(single & dirs.double_rank, dirs.push) & empty;
            for to in single & !dirs.last_rank {
                list.push(Move::normal(
                    Square::from_index((to.index() as i32 - dirs.push) as u32),
                    to,
                ));
            }
            for to in double {
                list.push(Move::normal(
                    Square::from_index((to.index() as i32 - 2 * dirs.push) as u32),
                    to,
                ));
            }
            for to in single & dirs.last_rank {
                let from = Square::from_index((to.index() as i32 - dirs.push) as u32);
                push_promotions(list, from, to, rule);
            }
        }
    }

    /// Whether the side to move has a capture (then only captures are legal). Under a
    /// royal rule set: whether captures are compulsory (not in check, and a legal capture
    /// exists).
    #[must_use]
    #[inline]
    pub fn has_capture(&self) -> bool {
        if self.rules.is_royal() {
            return self.royal_has_capture();
        }
        self.antichess_has_capture()
    }

    /// [`Position::has_capture`] under the antichess rule sets.
    #[inline(always)]
    fn antichess_has_capture(&self) -> bool {
        self.ep_square.is_some() || board_has_capture(&self.board, self.turn)
    }

    /// Whether the side to move has any legal move.
    #[must_use]
    #[inline]
    pub fn has_legal_move(&self) -> bool {
        self.count_moves() != 0
    }

    /// The number of legal moves, counted without listing them.
    #[must_use]
    #[inline]
    pub fn count_moves(&self) -> u32 {
        if self.rules.is_royal() {
            return self.royal_count_moves();
        }
        let board = &self.board;
        let us = self.us();
        let them = self.them();
        let occupied = us | them;
        let empty = !occupied;
        let mut captures = 0u32;
        let mut quiets = 0u32;

        let mut count = |attacks: Bitboard| {
            captures += (attacks & them).count();
            quiets += (attacks & empty).count();
        };
        for from in board.knights() & us {
            count(knight_attacks(from));
        }
        for from in board.diagonal_sliders() & us {
            count(bishop_attacks(from, occupied));
        }
        for from in board.straight_sliders() & us {
            count(rook_attacks(from, occupied));
        }
        for from in board.kings() & us {
            count(king_attacks(from));
        }

        let pawns = board.pawns() & us;
        if pawns.any() {
            let dirs = pawn_dirs(self.turn);
            let promos = self.promotion_count();
            let west = shift(pawns & NOT_FILE_A, dirs.capture_west) & them;
            let east = shift(pawns & NOT_FILE_H, dirs.capture_east) & them;
            captures += (west & !dirs.last_rank).count()
                + (east & !dirs.last_rank).count()
                + promos * ((west & dirs.last_rank).count() + (east & dirs.last_rank).count());
            if let Some(ep) = self.ep_square {
                captures += (pawn_attacks(self.turn.other(), ep) & pawns).count();
            }
            if captures == 0 {
                let single = shift(pawns, dirs.push) & empty;
                let double = shift(single & dirs.double_rank, dirs.push) & empty;
                quiets += (single & !dirs.last_rank).count()
                    + double.count()
                    + promos * (single & dirs.last_rank).count();
            }
        }
        if captures > 0 {
            captures
        } else {
            quiets
        }
    }

    /// The role of the piece a legal move `m` moves.
    #[must_use]
    #[inline]
    pub fn moved_role(&self, m: Move) -> Role {
        self.board.role_at(m.from()).unwrap_or(Role::Pawn)
    }

    /// Whether a legal move `m` captures (including en passant).
    #[must_use]
    #[inline]
    pub fn is_capture(&self, m: Move) -> bool {
        m.is_en_passant() || self.them().contains(m.to())
    }

    /// Whether a legal move `m` is irreversible (capture or pawn move): it resets the
    /// halfmove clock and changes the material or pawn structure.
    #[must_use]
    #[inline]
    pub fn is_irreversible(&self, m: Move) -> bool {
        self.is_capture(m) || self.board.pawns().contains(m.from())
    }
}

#[cfg(test)]
mod tests {
    use crate::{Position, Rules};

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen, Rules::INTERNATIONAL).unwrap()
    }

    #[test]
    fn start_position_has_twenty_moves() {
        let p = Position::start(Rules::INTERNATIONAL);
        assert_eq!(p.legal_moves().len(), 20);
        assert_eq!(p.count_moves(), 20);
        assert!(!p.has_capture());
    }

    #[test]
    fn captures_are_compulsory() {
        // After 1. e3 b5 White must take on b5.
        let p = pos("rnbqkbnr/p1pppppp/8/1p6/8/4P3/PPPP1PPP/RNBQKBNR w - - 0 2");
        let moves: Vec<String> = p.legal_moves().iter().map(|m| m.to_string()).collect();
        assert_eq!(moves, ["f1b5"]);
        assert_eq!(p.count_moves(), 1);
    }

    #[test]
    fn two_pawns_can_take_en_passant() {
        let p = pos("8/8/8/2PpP3/8/8/8/k7 w - d6 0 1");
        let mut moves: Vec<String> = p.legal_moves().iter().map(|m| m.to_string()).collect();
        moves.sort();
        assert_eq!(moves, ["c5d6", "e5d6"]);
        assert!(p.legal_moves().iter().all(|m| m.is_en_passant()));
        assert_eq!(p.count_moves(), 2);
        let after = p.play(p.legal_moves()[0]);
        assert_eq!(after.board().pawns().count(), 2);
    }

    #[test]
    fn promotions_include_king_and_respect_queen_only() {
        let p = pos("8/P7/8/8/8/8/8/k7 w - - 0 1");
        assert_eq!(p.count_moves(), 5);
        let promos: Vec<String> = p.legal_moves().iter().map(|m| m.to_string()).collect();
        assert!(promos.contains(&"a7a8k".to_string()));
        let q = p.with_rules(Rules::PRITCHARD);
        assert_eq!(q.count_moves(), 1);
        assert_eq!(q.legal_moves()[0].to_string(), "a7a8q");
    }
}
