//! `Position`: a validated position of the game with its rules, side to move, en passant
//! square, clocks and Zobrist key. Moves are made by copy (`play`) or in place
//! (`play_mut`); the key is updated incrementally.
//!
//! Invariants of a `Position` built by [`Position::from_setup`]: the board is not empty, the
//! side not to move has pieces, no pawn stands on a back rank, and `ep_square` is set only
//! when an en passant capture is actually available (so that the key and the FEN describe
//! the position, not the history). Positions built by the `*_unchecked` constructors
//! (used by tablebase indexing) skip the checks but keep the en passant invariant.

use std::fmt;

use crate::attacks::pawn_attacks;
use crate::orthodox::{in_check, OrthoPosition};
use crate::zobrist::{self, en_passant_key, piece_key};
use crate::{
    Bitboard, Board, ByColor, Color, Error, Move, Outcome, Piece, PositionError, Role, Rules,
    Setup, Square,
};

/// A position of the game, with the rules it is played under.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) board: Board,
    key: u64,
    halfmoves: u32,
    fullmoves: u32,
    pub(crate) turn: Color,
    pub(crate) ep_square: Option<Square>,
    pub(crate) rules: Rules,
}

impl Position {
    /// The start position.
    #[must_use]
    pub fn start(rules: Rules) -> Position {
        Position::from_setup(Setup::start(), rules).expect("start position is valid")
    }

    /// Parses and validates a FEN.
    pub fn from_fen(fen: &str, rules: Rules) -> Result<Position, Error> {
        Position::from_setup(Setup::from_fen(fen)?, rules)
    }

    /// Validates a setup. See the module documentation for what is checked.
    pub fn from_setup(setup: Setup, rules: Rules) -> Result<Position, Error> {
        let board = setup.board;
        if board.occupied().is_empty() {
            return Err(PositionError::EmptyBoard.into());
        }
        if let Some(sq) = (board.pawns() & Bitboard::BACKRANKS).first() {
            return Err(PositionError::PawnOnBackRank(sq).into());
        }
        for color in Color::ALL {
            let ours = board.by_color(color);
            let count = ours.count();
            if count > 16 {
                return Err(PositionError::TooManyPieces(color, count).into());
            }
            let pawns = (ours & board.pawns()).count();
            if pawns > 8 {
                return Err(PositionError::TooManyPawns(color, pawns).into());
            }
            let n = |role: Role| (ours & board.by_role(role)).count();
            let promoted = n(Role::Knight).saturating_sub(2)
                + n(Role::Bishop).saturating_sub(2)
                + n(Role::Rook).saturating_sub(2)
                + n(Role::Queen).saturating_sub(1)
                + n(Role::King).saturating_sub(1);
            if promoted > 8 - pawns {
                return Err(
                    PositionError::TooManyPromotedPieces(color, promoted - (8 - pawns)).into(),
                );
            }
        }
        let them = setup.turn.other();
        if board.by_color(them).is_empty() {
            return Err(PositionError::NoPiecesForSideNotToMove(them).into());
        }
        if rules.is_royal() {
            validate(&board, setup.turn)?;
        }
        let mut ep_square = None;
        if let Some(sq) = setup.ep_square {
            check_en_passant(&board, setup.turn, sq)?;
            ep_square = Some(sq);
        }
        let mut pos = Position {
            board,
            key: 0,
            halfmoves: setup.halfmoves,
            fullmoves: setup.fullmoves.max(1),
            turn: setup.turn,
            ep_square,
            rules,
        };
        pos.normalize_en_passant();
        pos.key = pos.compute_key();
        Ok(pos)
    }

    /// A position from a board without validation, with no en passant square, halfmove
    /// clock 0 and fullmove number 1. For tablebase indexing and tests; the board must not
    /// have pawns on back ranks.
    #[must_use]
    pub fn from_board_unchecked(board: Board, turn: Color, rules: Rules) -> Position {
        let mut pos = Position::from_board_unhashed(board, turn, rules);
        pos.key = pos.compute_key();
        pos
    }

    /// Like [`Position::from_board_unchecked`], without computing the Zobrist key: for
    /// retrograde generators, which generate and play moves by the million and never hash
    /// a position. [`Position::key`] of the result (and of positions played from it) is
    /// meaningless; nothing that compares or stores positions by key may receive it.
    #[must_use]
    #[inline]
    pub fn from_board_unhashed(board: Board, turn: Color, rules: Rules) -> Position {
        Position {
            board,
            key: 0,
            halfmoves: 0,
            fullmoves: 1,
            turn,
            ep_square: None,
            rules,
        }
    }

    /// Like [`Position::from_board_unchecked`], with an en passant square that the caller
    /// knows a pawn has just passed. It is dropped if no capture on it is possible.
    #[must_use]
    pub fn from_board_with_ep_unchecked(
        board: Board,
        turn: Color,
        ep_square: Option<Square>,
        rules: Rules,
    ) -> Position {
        let mut pos = Position {
            board,
            key: 0,
            halfmoves: 0,
            fullmoves: 1,
            turn,
            ep_square,
            rules,
        };
        pos.normalize_en_passant();
        pos.key = pos.compute_key();
        pos
    }

    /// Drops the en passant square unless a pawn of the side to move can capture on it
    /// (legally, i.e. without leaving its king in check, under a royal rule set).
    fn normalize_en_passant(&mut self) {
        if let Some(sq) = self.ep_square {
            let capturers = pawn_attacks(self.turn.other(), sq) & self.our(Role::Pawn);
            if capturers.is_empty()
                || (self.rules.is_royal() && !en_passant_is_legal(&self.board, self.turn, sq))
            {
                self.ep_square = None;
            }
        }
    }

    /// The key computed from scratch (the incremental key must always equal it).
    #[must_use]
    pub fn compute_key(&self) -> u64 {
        let mut key = 0;
        for color in Color::ALL {
            let ours = self.board.by_color(color);
            for role in Role::ALL {
                for sq in ours & self.board.by_role(role) {
                    key ^= piece_key(color, role, sq);
                }
            }
        }
        if self.turn == Color::Black {
            key ^= zobrist::BLACK_TO_MOVE;
        }
        if let Some(sq) = self.ep_square {
            key ^= en_passant_key(sq.file());
        }
        key
    }

    /// The setup (for FEN output).
    #[must_use]
    pub fn to_setup(&self) -> Setup {
        Setup {
            board: self.board,
            turn: self.turn,
            ep_square: self.ep_square,
            halfmoves: self.halfmoves,
            fullmoves: self.fullmoves,
        }
    }

    /// The FEN. The castling field is always `-`; the en passant field is set only when an
    /// en passant capture is available.
    #[must_use]
    pub fn fen(&self) -> String {
        self.to_setup().fen()
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

    /// The en passant square, set only when an en passant capture is available.
    #[must_use]
    #[inline(always)]
    pub const fn ep_square(&self) -> Option<Square> {
        self.ep_square
    }

    /// Plies since the last capture or pawn move (irreversible move).
    #[must_use]
    #[inline(always)]
    pub const fn halfmoves(&self) -> u32 {
        self.halfmoves
    }

    #[must_use]
    #[inline(always)]
    pub const fn fullmoves(&self) -> u32 {
        self.fullmoves
    }

    /// The Zobrist key of board, side to move and available en passant capture.
    #[must_use]
    #[inline(always)]
    pub const fn key(&self) -> u64 {
        self.key
    }

    #[must_use]
    #[inline(always)]
    pub const fn rules(&self) -> Rules {
        self.rules
    }

    /// The same position under other rules.
    #[must_use]
    pub fn with_rules(mut self, rules: Rules) -> Position {
        self.rules = rules;
        self
    }

    /// The same position with the given clocks.
    #[must_use]
    pub fn with_clocks(mut self, halfmoves: u32, fullmoves: u32) -> Position {
        self.halfmoves = halfmoves;
        self.fullmoves = fullmoves.max(1);
        self
    }

    /// Pieces of the side to move.
    #[must_use]
    #[inline(always)]
    pub fn us(&self) -> Bitboard {
        self.board.by_color(self.turn)
    }

    /// Pieces of the side not to move.
    #[must_use]
    #[inline(always)]
    pub fn them(&self) -> Bitboard {
        self.board.by_color(self.turn.other())
    }

    #[inline(always)]
    pub(crate) fn our(&self, role: Role) -> Bitboard {
        self.board.by_role(role) & self.us()
    }

    /// Number of pieces (units, kings included) per colour.
    #[must_use]
    pub fn counts(&self) -> ByColor<u32> {
        self.board.counts()
    }

    /// Whether two positions are the same for the game (board, side to move, available en
    /// passant capture), ignoring clocks and rules.
    #[must_use]
    pub fn same_position(&self, other: &Position) -> bool {
        self.board == other.board && self.turn == other.turn && self.ep_square == other.ep_square
    }

    /// Plays a legal move, returning the new position. The move must be legal here
    /// (checked in debug builds).
    #[must_use]
    #[inline]
    pub fn play(&self, m: Move) -> Position {
        let mut next = *self;
        next.play_mut(m);
        next
    }

    /// Plays a legal move in place.
    #[inline]
    pub fn play_mut(&mut self, m: Move) {
        debug_assert!(self.is_legal(m), "illegal move {m} in {}", self.fen());
        let us = self.turn;
        let them = us.other();
        let (from, to) = (m.from(), m.to());
        let role = self.board.role_at(from).unwrap_or(Role::Pawn);
        let mut key = self.key ^ zobrist::BLACK_TO_MOVE;
        if let Some(ep) = self.ep_square.take() {
            key ^= en_passant_key(ep.file());
        }
        self.halfmoves += 1;
        if m.is_en_passant() {
            let captured = Square::from_coords(to.file(), from.rank());
            self.board
                .remove_unchecked(captured, Piece::new(them, Role::Pawn));
            key ^= piece_key(them, Role::Pawn, captured);
            self.halfmoves = 0;
        } else if self.board.by_color(them).contains(to) {
            let captured = self.board.role_at(to).unwrap_or(Role::Pawn);
            self.board.remove_unchecked(to, Piece::new(them, captured));
            key ^= piece_key(them, captured, to);
            self.halfmoves = 0;
        }
        self.board.remove_unchecked(from, Piece::new(us, role));
        key ^= piece_key(us, role, from);
        let placed = match m.promotion() {
            Some(promoted) => promoted,
            None => role,
        };
        self.board.put_unchecked(to, Piece::new(us, placed));
        key ^= piece_key(us, placed, to);
        if role == Role::Pawn {
            self.halfmoves = 0;
            if from.index() ^ to.index() == 16 {
                let passed = Square::from_index(((from.index() + to.index()) / 2) as u32);
                let their_pawns = self.board.pawns() & self.board.by_color(them);
                if (pawn_attacks(us, passed) & their_pawns).any()
                    && (!self.rules.is_royal() || en_passant_is_legal(&self.board, them, passed))
                {
                    self.ep_square = Some(passed);
                    key ^= en_passant_key(passed.file());
                }
            }
        }
        if us == Color::Black {
            self.fullmoves += 1;
        }
        self.turn = them;
        self.key = key;
    }

    /// Whether `m` is a legal move here (generates the legal moves).
    #[must_use]
    pub fn is_legal(&self, m: Move) -> bool {
        self.legal_moves().contains(&m)
    }

    /// The outcome, if the game is over: the side to move has no legal move (scored by the
    /// rules), or only bishops remain and no capture can ever happen (a dead draw).
    /// Repetition and the 50-move rule need history; see [`crate::Game`].
    #[must_use]
    pub fn outcome(&self) -> Option<Outcome> {
        if !self.has_legal_move() {
            Some(self.no_move_outcome())
        } else if self.is_dead_draw() {
            Some(Outcome::Draw)
        } else {
            None
        }
    }

    /// The outcome when the side to move has no legal move: a win for it when it has no
    /// pieces (every rule set), otherwise the rule set's stalemate scoring. Under a royal
    /// rule set: a win for a bare king, checkmate as the rule set scores it, stalemate a
    /// draw (see [`crate::royal`]).
    #[must_use]
    pub fn no_move_outcome(&self) -> Outcome {
        if self.rules.is_royal() {
            return self.royal_no_move_outcome();
        }
        let own = self.us().count();
        if own == 0 {
            Outcome::Win(self.turn)
        } else {
            self.rules
                .rule_set
                .stalemate_outcome(self.turn, own, self.them().count())
        }
    }

    /// Only bishops remain, all of one side's on one square colour and all of the other
    /// side's on the other: no capture can ever happen and nobody can be stalemated, so the
    /// game is drawn under every rule set.
    #[must_use]
    pub fn is_dead_draw(&self) -> bool {
        let board = &self.board;
        if board.occupied() != board.bishops() {
            return false;
        }
        let white = board.by_color(Color::White);
        let black = board.by_color(Color::Black);
        if white.is_empty() || black.is_empty() {
            return false;
        }
        let light = Bitboard::LIGHT_SQUARES;
        let dark = Bitboard::DARK_SQUARES;
        ((white & dark).is_empty() && (black & light).is_empty())
            || ((white & light).is_empty() && (black & dark).is_empty())
    }

    /// The position with colours swapped and the board mirrored top to bottom, Black to
    /// move where White was. Clocks are kept; the key is recomputed.
    #[must_use]
    pub fn swap_colors(&self) -> Position {
        let mut pos = Position {
            board: self.board.swap_colors(),
            key: 0,
            halfmoves: self.halfmoves,
            fullmoves: self.fullmoves,
            turn: self.turn.other(),
            ep_square: self.ep_square.map(Square::flip_vertical),
            rules: self.rules,
        };
        pos.key = pos.compute_key();
        pos
    }
}

/// Checks that a pawn of the side not to move could just have passed `sq` with a double
/// step.
fn check_en_passant(board: &Board, turn: Color, sq: Square) -> Result<(), PositionError> {
    let them = turn.other();
    if sq.relative_rank(turn) != 5 {
        return Err(PositionError::InvalidEnPassant(
            sq,
            if turn == Color::White {
                "with White to move it must be on the sixth rank"
            } else {
                "with Black to move it must be on the third rank"
            },
        ));
    }
    let (pushed_to, pushed_from) = match turn {
        Color::White => (Square::from_index(sq.index() as u32 - 8), sq.offset(8)),
        Color::Black => (Square::from_index(sq.index() as u32 + 8), sq.offset(-8)),
    };
    if board.piece_at(pushed_to) != Some(Piece::new(them, Role::Pawn)) {
        return Err(PositionError::InvalidEnPassant(
            sq,
            if them == Color::Black {
                "no black pawn stands in front of it (on the fifth rank)"
            } else {
                "no white pawn stands in front of it (on the fourth rank)"
            },
        ));
    }
    if board.occupied().contains(sq) {
        return Err(PositionError::InvalidEnPassant(
            sq,
            "the square is occupied",
        ));
    }
    if pushed_from.is_some_and(|from| board.occupied().contains(from)) {
        return Err(PositionError::InvalidEnPassant(
            sq,
            "the square the pawn came from is occupied",
        ));
    }
    Ok(())
}

// The royal rule sets' checks of a board (see [`crate::royal`]), made when a position is
// built and when a move is made.

/// Whether `color` has only its king left on `board`.
#[must_use]
#[inline]
pub fn is_bare_king(board: &Board, color: Color) -> bool {
    let ours = board.by_color(color);
    ours.count() == 1 && (ours & board.kings()).any()
}

/// Checks a board for the royal rule sets (see [`crate::royal`]); `turn` is the side to
/// move.
pub(crate) fn validate(board: &Board, turn: Color) -> Result<(), PositionError> {
    for color in Color::ALL {
        let kings = (board.kings() & board.by_color(color)).count();
        if kings != 1 {
            return Err(PositionError::KingCount(color, kings));
        }
    }
    let them = turn.other();
    if in_check(board, them) {
        return Err(PositionError::OpponentInCheck(them));
    }
    if is_bare_king(board, them) {
        return Err(PositionError::BareKingNotToMove(them));
    }
    Ok(())
}

/// Whether a legal (king-safe) en passant capture onto `ep` exists for `turn`.
pub(crate) fn en_passant_is_legal(board: &Board, turn: Color, ep: Square) -> bool {
    let ortho = OrthoPosition::from_parts_unchecked(*board, turn, Some(ep));
    let capturers =
        crate::attacks::pawn_attacks(turn.other(), ep) & board.pawns() & board.by_color(turn);
    Iterator::any(&mut capturers.into_iter(), |from| {
        ortho.is_safe(Move::en_passant(from, ep))
    })
}

impl Default for Position {
    fn default() -> Position {
        Position::start(Rules::default())
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({}, {})", self.fen(), self.rules)
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.board)?;
        writeln!(f, "{} to move, {} rules", self.turn, self.rules)?;
        write!(f, "{}", self.fen())
    }
}
