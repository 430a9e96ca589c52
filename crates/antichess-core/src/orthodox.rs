//! Orthodox chess rules for endgame positions (the "Lasker chess" tables of
//! `antichess-tb`): legal moves with check, pins, checkmate, stalemate, en passant and
//! promotion to queen, rook, bishop or knight. There is no castling: endgame tables never
//! need it, and a castling field in a FEN is accepted and ignored.
//!
//! [`OrthoPosition`] reuses the core's [`Board`], attack tables and [`Move`] encoding but
//! not [`crate::Position`], whose move generation is the losing-chess one. Legal moves are
//! the pseudo-legal moves after which the mover's king is not attacked; with the few men
//! of an endgame this make-and-test is as fast as pin bookkeeping and simpler to trust.
//!
//! Validation ([`OrthoPosition::from_setup`]): exactly one king per side, no pawn on a back
//! rank, the side not to move not in check, and an en passant square only where a pawn can
//! just have passed (it is kept only while a *legal* en passant capture exists, so the FEN
//! and equality describe the position, not its history).

use std::fmt;

use crate::attacks::{bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks};
use crate::{
    Bitboard, Board, Color, Error, Move, MoveList, Piece, PositionError, Role, Setup, Square,
};

/// Promotion roles of orthodox chess, in move order.
pub const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

/// How an orthodox game ends when the side to move has no legal move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ending {
    /// In check without a legal move: the side to move is mated.
    Checkmate,
    /// Not in check, no legal move: the side to move is stalemated.
    Stalemate,
}

/// The pieces of colour `by` that attack `sq` when `occupied` are the occupied squares.
#[must_use]
#[inline]
pub fn attackers(board: &Board, sq: Square, by: Color, occupied: Bitboard) -> Bitboard {
    let theirs = board.by_color(by) & occupied;
    ((knight_attacks(sq) & board.knights())
        | (king_attacks(sq) & board.kings())
        | (pawn_attacks(by.other(), sq) & board.pawns())
        | (bishop_attacks(sq, occupied) & board.diagonal_sliders())
        | (rook_attacks(sq, occupied) & board.straight_sliders()))
        & theirs
}

/// Whether the king of `color` is attacked on `board` (false if it has no king).
#[must_use]
#[inline]
pub fn in_check(board: &Board, color: Color) -> bool {
    match (board.kings() & board.by_color(color)).first() {
        Some(king) => attackers(board, king, color.other(), board.occupied()).any(),
        None => false,
    }
}

/// A position of orthodox chess without castling rights.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct OrthoPosition {
    board: Board,
    turn: Color,
    ep_square: Option<Square>,
}

impl OrthoPosition {
    /// Parses and validates a FEN (castling field ignored, clocks ignored).
    pub fn from_fen(fen: &str) -> Result<OrthoPosition, Error> {
        OrthoPosition::from_setup(Setup::from_fen(fen)?)
    }

    /// Validates a setup; see the module documentation for what is checked.
    pub fn from_setup(setup: Setup) -> Result<OrthoPosition, Error> {
        let board = setup.board;
        if let Some(sq) = (board.pawns() & Bitboard::BACKRANKS).first() {
            return Err(PositionError::PawnOnBackRank(sq).into());
        }
        for color in Color::ALL {
            let kings = (board.kings() & board.by_color(color)).count();
            if kings != 1 {
                return Err(PositionError::KingCount(color, kings).into());
            }
        }
        let them = setup.turn.other();
        if in_check(&board, them) {
            return Err(PositionError::OpponentInCheck(them).into());
        }
        if let Some(sq) = setup.ep_square {
            check_en_passant(&board, setup.turn, sq)?;
        }
        Ok(OrthoPosition::from_board_with_ep_unchecked(
            board,
            setup.turn,
            setup.ep_square,
        ))
    }

    /// A position from a board without validation and without en passant square.
    #[must_use]
    #[inline]
    pub const fn from_board_unchecked(board: Board, turn: Color) -> OrthoPosition {
        OrthoPosition {
            board,
            turn,
            ep_square: None,
        }
    }

    /// Like [`OrthoPosition::from_board_unchecked`] with an en passant square that a pawn
    /// of the side not to move has just passed; it is dropped unless a legal en passant
    /// capture onto it exists.
    #[must_use]
    pub fn from_board_with_ep_unchecked(
        board: Board,
        turn: Color,
        ep_square: Option<Square>,
    ) -> OrthoPosition {
        let mut pos = OrthoPosition {
            board,
            turn,
            ep_square,
        };
        if let Some(ep) = ep_square {
            let capturers = pawn_attacks(turn.other(), ep) & board.pawns() & board.by_color(turn);
            if !Iterator::any(&mut capturers.into_iter(), |from| {
                pos.is_safe(Move::en_passant(from, ep))
            }) {
                pos.ep_square = None;
            }
        }
        pos
    }

    #[must_use]
    #[inline(always)]
    pub const fn board(&self) -> &Board {
        &self.board
    }

    #[must_use]
    #[inline(always)]
    pub const fn turn(&self) -> Color {
        self.turn
    }

    /// The en passant square, set only when a legal en passant capture exists.
    #[must_use]
    #[inline(always)]
    pub const fn ep_square(&self) -> Option<Square> {
        self.ep_square
    }

    /// The setup (for FEN output), clocks 0 and 1.
    #[must_use]
    pub fn to_setup(&self) -> Setup {
        let mut setup = Setup::new(self.board, self.turn);
        setup.ep_square = self.ep_square;
        setup
    }

    /// The FEN (castling field `-`, clocks `0 1`).
    #[must_use]
    pub fn fen(&self) -> String {
        self.to_setup().fen()
    }

    /// Whether the side to move is in check.
    #[must_use]
    #[inline]
    pub fn is_check(&self) -> bool {
        in_check(&self.board, self.turn)
    }

    /// The position with colours swapped and the board mirrored top to bottom.
    #[must_use]
    pub fn swap_colors(&self) -> OrthoPosition {
        OrthoPosition {
            board: self.board.swap_colors(),
            turn: self.turn.other(),
            ep_square: self.ep_square.map(Square::flip_vertical),
        }
    }

    /// A position with exactly these fields, no check of the en passant square (for the
    /// royal rule sets of [`crate::royal`], whose positions keep the same invariant).
    #[must_use]
    #[inline(always)]
    pub(crate) const fn from_parts_unchecked(
        board: Board,
        turn: Color,
        ep_square: Option<Square>,
    ) -> OrthoPosition {
        OrthoPosition {
            board,
            turn,
            ep_square,
        }
    }

    /// Whether pseudo-legal move `m` of the side to move leaves its king unattacked.
    #[inline]
    pub(crate) fn is_safe(&self, m: Move) -> bool {
        let us = self.turn;
        let board = &self.board;
        let (from, to) = (m.from(), m.to());
        let mut occupied = board.occupied();
        occupied = occupied.without(from).with(to);
        // Enemy pieces still standing after the move.
        let mut removed = Bitboard::from_square(to);
        if m.is_en_passant() {
            let captured = Square::from_coords(to.file(), from.rank());
            occupied = occupied.without(captured);
            removed = removed.with(captured);
        }
        let king = if board.kings().contains(from) {
            to
        } else {
            match (board.kings() & board.by_color(us)).first() {
                Some(k) => k,
                None => return true,
            }
        };
        let them = board.by_color(us.other()) & !removed;
        ((knight_attacks(king) & board.knights())
            | (king_attacks(king) & board.kings())
            | (pawn_attacks(us, king) & board.pawns())
            | (bishop_attacks(king, occupied) & board.diagonal_sliders())
            | (rook_attacks(king, occupied) & board.straight_sliders()))
            & them
            == Bitboard::EMPTY
    }

    /// The pseudo-legal moves (king safety not checked), promotions in the order Q R B N.
    pub(crate) fn pseudo_legal(&self, list: &mut MoveList) {
        let board = &self.board;
        let us = self.board.by_color(self.turn);
        let them = self.board.by_color(self.turn.other());
        let occupied = us | them;
        let targets = !us;
        let push = |list: &mut MoveList, from: Square, to: Bitboard| {
            for t in to {
                list.push(Move::normal(from, t));
            }
        };
        for from in board.knights() & us {
            push(list, from, knight_attacks(from) & targets);
        }
        for from in board.diagonal_sliders() & us {
            push(list, from, bishop_attacks(from, occupied) & targets);
        }
        for from in board.straight_sliders() & us {
            push(list, from, rook_attacks(from, occupied) & targets);
        }
        for from in board.kings() & us {
            push(list, from, king_attacks(from) & targets);
        }
        let (step, start_rank, last_rank): (i32, u8, u8) = match self.turn {
            Color::White => (8, 1, 7),
            Color::Black => (-8, 6, 0),
        };
        for from in board.pawns() & us {
            let mut dests = pawn_attacks(self.turn, from) & them;
            if let Some(one) = from.offset(step) {
                if !occupied.contains(one) {
                    dests = dests.with(one);
                    if from.rank() == start_rank {
                        if let Some(two) = one.offset(step) {
                            if !occupied.contains(two) {
                                dests = dests.with(two);
                            }
                        }
                    }
                }
            }
            for to in dests {
                if to.rank() == last_rank {
                    for role in PROMOTIONS {
                        list.push(Move::new(from, to, Some(role)));
                    }
                } else {
                    list.push(Move::normal(from, to));
                }
            }
        }
        if let Some(ep) = self.ep_square {
            for from in pawn_attacks(self.turn.other(), ep) & board.pawns() & us {
                list.push(Move::en_passant(from, ep));
            }
        }
    }

    /// The legal moves.
    #[must_use]
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.legal_moves_into(&mut list);
        list
    }

    /// Appends the legal moves to `list` (cleared first).
    pub fn legal_moves_into(&self, list: &mut MoveList) {
        list.clear();
        self.pseudo_legal(list);
        list.retain(|m| self.is_safe(*m));
    }

    /// Whether the side to move has a legal move.
    #[must_use]
    pub fn has_legal_move(&self) -> bool {
        let mut list = MoveList::new();
        self.pseudo_legal(&mut list);
        list.iter().any(|m| self.is_safe(*m))
    }

    /// Checkmate or stalemate, if the side to move has no legal move.
    #[must_use]
    pub fn ending(&self) -> Option<Ending> {
        if self.has_legal_move() {
            None
        } else if self.is_check() {
            Some(Ending::Checkmate)
        } else {
            Some(Ending::Stalemate)
        }
    }

    /// Whether `m` is a legal move here.
    #[must_use]
    pub fn is_legal(&self, m: Move) -> bool {
        self.legal_moves().contains(&m)
    }

    /// Whether a legal move `m` captures (en passant included).
    #[must_use]
    #[inline]
    pub fn is_capture(&self, m: Move) -> bool {
        m.is_en_passant() || self.board.by_color(self.turn.other()).contains(m.to())
    }

    /// Plays a legal move (not checked), returning the new position.
    #[must_use]
    pub fn play(&self, m: Move) -> OrthoPosition {
        let us = self.turn;
        let them = us.other();
        let (from, to) = (m.from(), m.to());
        let mut board = self.board;
        let role = board.role_at(from).unwrap_or(Role::Pawn);
        if m.is_en_passant() {
            board.remove_unchecked(
                Square::from_coords(to.file(), from.rank()),
                Piece::new(them, Role::Pawn),
            );
        } else if let Some(captured) = board.piece_at(to) {
            board.remove_unchecked(to, captured);
        }
        board.remove_unchecked(from, Piece::new(us, role));
        board.put_unchecked(to, Piece::new(us, m.promotion().unwrap_or(role)));
        let ep = (role == Role::Pawn && from.index().abs_diff(to.index()) == 16)
            .then(|| Square::from_index(((from.index() + to.index()) / 2) as u32));
        OrthoPosition::from_board_with_ep_unchecked(board, them, ep)
    }

    /// Finds a legal move given in UCI (`e7e8q`) or SAN (`e8=Q`, `Kxd2`, `Qh7#`).
    pub fn parse_move(&self, token: &str) -> Result<Move, Error> {
        let moves = self.legal_moves();
        let bare = token.trim_end_matches(['+', '#', '!', '?']);
        if let Some(m) = moves
            .iter()
            .find(|m| m.to_string() == bare || self.san(**m).trim_end_matches(['+', '#']) == bare)
        {
            return Ok(*m);
        }
        Err(Error::IllegalMove {
            token: token.to_string(),
            fen: self.fen(),
            reason: "not a legal move of orthodox chess here (legal moves: ".to_string()
                + &moves
                    .iter()
                    .map(|m| self.san(*m))
                    .collect::<Vec<_>>()
                    .join(" ")
                + ")",
        })
    }

    /// SAN of a legal move, with `+` for check and `#` for mate.
    #[must_use]
    pub fn san(&self, m: Move) -> String {
        let board = &self.board;
        let role = board.role_at(m.from()).unwrap_or(Role::Pawn);
        let capture = self.is_capture(m);
        let mut san = String::with_capacity(8);
        if role == Role::Pawn {
            if capture {
                san.push(m.from().file_char());
                san.push('x');
            }
            san.push_str(&m.to().to_string());
            if let Some(promo) = m.promotion() {
                san.push('=');
                san.push(promo.upper_char());
            }
        } else {
            san.push(role.upper_char());
            let rivals: Vec<Move> = self
                .legal_moves()
                .iter()
                .copied()
                .filter(|o| *o != m && o.to() == m.to() && board.role_at(o.from()) == Some(role))
                .collect();
            if !rivals.is_empty() {
                let same_file = rivals.iter().any(|o| o.from().file() == m.from().file());
                let same_rank = rivals.iter().any(|o| o.from().rank() == m.from().rank());
                if !same_file {
                    san.push(m.from().file_char());
                } else if !same_rank {
                    san.push(m.from().rank_char());
                } else {
                    san.push_str(&m.from().to_string());
                }
            }
            if capture {
                san.push('x');
            }
            san.push_str(&m.to().to_string());
        }
        let after = self.play(m);
        match after.ending() {
            Some(Ending::Checkmate) => san.push('#'),
            _ if after.is_check() => san.push('+'),
            _ => {}
        }
        san
    }
}

/// Checks that a pawn of the side not to move can just have passed `sq` with a double step.
fn check_en_passant(board: &Board, turn: Color, sq: Square) -> Result<(), PositionError> {
    let them = turn.other();
    if sq.relative_rank(turn) != 5 {
        return Err(PositionError::InvalidEnPassant(
            sq,
            "it must be on the sixth rank of the side to move",
        ));
    }
    let (pushed_to, pushed_from) = match turn {
        Color::White => (sq.offset(-8), sq.offset(8)),
        Color::Black => (sq.offset(8), sq.offset(-8)),
    };
    if pushed_to.and_then(|s| board.piece_at(s)) != Some(Piece::new(them, Role::Pawn)) {
        return Err(PositionError::InvalidEnPassant(
            sq,
            "no pawn of the side not to move stands in front of it",
        ));
    }
    if board.occupied().contains(sq) || pushed_from.is_some_and(|s| board.occupied().contains(s)) {
        return Err(PositionError::InvalidEnPassant(
            sq,
            "the square or the one the pawn came from is occupied",
        ));
    }
    Ok(())
}

/// Number of leaf positions `depth` plies ahead.
#[must_use]
pub fn perft(pos: &OrthoPosition, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = pos.legal_moves();
    if depth == 1 {
        return moves.len() as u64;
    }
    moves.iter().map(|m| perft(&pos.play(*m), depth - 1)).sum()
}

impl fmt::Debug for OrthoPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "OrthoPosition({})", self.fen())
    }
}

impl fmt::Display for OrthoPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.fen())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> OrthoPosition {
        OrthoPosition::from_fen(fen).unwrap()
    }

    #[test]
    fn mate_and_stalemate() {
        assert_eq!(
            pos("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1").ending(),
            Some(Ending::Checkmate)
        );
        assert_eq!(
            pos("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").ending(),
            Some(Ending::Stalemate)
        );
        assert_eq!(pos("7k/8/6K1/8/8/8/8/5Q2 b - - 0 1").ending(), None);
    }

    #[test]
    fn pins_and_checks() {
        // The knight on e2 is pinned by the rook on e8.
        let p = pos("4r2k/8/8/8/8/8/4N3/4K3 w - - 0 1");
        assert!(p.legal_moves().iter().all(|m| m.from() != Square::E2));
        // In check by a rook: only evasions (king moves, block or capture).
        let p = pos("4r2k/8/8/8/8/8/3N4/4K3 w - - 0 1");
        let mut moves: Vec<String> = p.legal_moves().iter().map(|m| p.san(*m)).collect();
        moves.sort();
        assert_eq!(moves, ["Kd1", "Kf1", "Kf2", "Ne4"]);
    }

    #[test]
    fn en_passant_kept_only_when_legal() {
        // The capture d5xe6 would expose the king on a5 to the rook on h5.
        let p = pos("7k/8/8/K2Pp2r/8/8/8/8 w - e6 0 1");
        assert_eq!(p.ep_square(), None);
        let p = pos("7k/8/8/3Pp3/8/8/8/K7 w - e6 0 1");
        assert_eq!(p.ep_square(), Some(Square::E6));
        assert!(p.legal_moves().iter().any(|m| m.is_en_passant()));
    }

    #[test]
    fn validation() {
        assert!(OrthoPosition::from_fen("8/8/8/8/8/8/8/K7 w - - 0 1").is_err());
        // Black in check with White to move.
        assert!(OrthoPosition::from_fen("k6R/8/8/8/8/8/8/K7 w - - 0 1").is_err());
        assert!(OrthoPosition::from_fen("k6R/8/8/8/8/8/8/K7 b - - 0 1").is_ok());
    }

    #[test]
    fn promotions_are_four() {
        let p = pos("8/P6k/8/8/8/8/8/K7 w - - 0 1");
        assert_eq!(
            p.legal_moves().iter().filter(|m| m.is_promotion()).count(),
            4
        );
        assert_eq!(p.san(p.parse_move("a8=Q").unwrap()), "a8=Q");
    }
}
