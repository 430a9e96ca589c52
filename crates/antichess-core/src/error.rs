//! The crate's error type. Every variant names the offending input (a FEN field, a move
//! token, a rule set name) so that a user can see what to fix.

use std::fmt;

use crate::{Color, Square};

/// The rule set names that parse ([`crate::Rules::NAMES`]): the error for an unknown one
/// lists them. Kept here, below the rules (whose parsing returns [`Error`]).
pub(crate) const RULE_NAMES: &str = "international, fics, joint, vinciperdi, pritchard, \
     pritchard3, pritchard4 (the others may add +queen-only)";

/// The fields of a FEN string, for error messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FenField {
    Board,
    Turn,
    Castling,
    EnPassant,
    Halfmoves,
    Fullmoves,
    /// A field after the sixth.
    Extra,
}

impl FenField {
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            FenField::Board => "board",
            FenField::Turn => "side to move",
            FenField::Castling => "castling",
            FenField::EnPassant => "en passant",
            FenField::Halfmoves => "halfmove clock",
            FenField::Fullmoves => "fullmove number",
            FenField::Extra => "extra",
        }
    }
}

/// Why a parsed setup is not a valid position of this game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PositionError {
    /// No pieces at all.
    EmptyBoard,
    /// The side that just moved has no pieces: it had already won before its last move.
    NoPiecesForSideNotToMove(Color),
    /// A pawn on the first or eighth rank.
    PawnOnBackRank(Square),
    /// More than 16 pieces of one colour.
    TooManyPieces(Color, u32),
    /// More than 8 pawns of one colour.
    TooManyPawns(Color, u32),
    /// More pieces beyond the initial set than missing pawns could have promoted to.
    TooManyPromotedPieces(Color, u32),
    /// The en passant square is not one a pawn could just have passed.
    InvalidEnPassant(Square, &'static str),
    /// Orthodox chess ([`crate::orthodox`]): a side without exactly one king.
    KingCount(Color, u32),
    /// Orthodox chess: the side not to move is in check (it would have left its king
    /// attacked).
    OpponentInCheck(Color),
    /// Royal-king rule sets: the side not to move has only its king left (it had already
    /// won before its last move).
    BareKingNotToMove(Color),
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::EmptyBoard => f.write_str("board field: the board is empty"),
            PositionError::NoPiecesForSideNotToMove(color) => write!(
                f,
                "board field: {color} has no pieces but is not to move ({color} had already won)"
            ),
            PositionError::PawnOnBackRank(sq) => {
                write!(
                    f,
                    "board field: pawn on {sq} (pawns cannot stand on the first or eighth rank)"
                )
            }
            PositionError::TooManyPieces(color, n) => {
                write!(f, "board field: {color} has {n} pieces (at most 16)")
            }
            PositionError::TooManyPawns(color, n) => {
                write!(f, "board field: {color} has {n} pawns (at most 8)")
            }
            PositionError::TooManyPromotedPieces(color, n) => write!(
                f,
                "board field: {color} has {n} more pieces than its missing pawns could have \
                 promoted to"
            ),
            PositionError::InvalidEnPassant(sq, why) => {
                write!(f, "en passant field: \"{sq}\" is impossible: {why}")
            }
            PositionError::KingCount(color, n) => {
                write!(
                    f,
                    "board field: {color} has {n} kings (orthodox chess and the royal-king \
                     rule sets pritchard3 and pritchard4 need exactly one)"
                )
            }
            PositionError::OpponentInCheck(color) => write!(
                f,
                "board field: {color} is in check but not to move (an illegal position)"
            ),
            PositionError::BareKingNotToMove(color) => write!(
                f,
                "board field: {color} has a bare king but is not to move ({color} had already \
                 won)"
            ),
        }
    }
}

/// Errors of `antichess-core`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A FEN string could not be parsed.
    Fen {
        field: FenField,
        token: String,
        reason: String,
    },
    /// The FEN was well-formed but does not describe a position of this game.
    Position(PositionError),
    /// An unknown rule set name.
    UnknownRules(String),
    /// Text that is not a move in the notation expected (UCI or SAN).
    MoveSyntax { token: String, reason: String },
    /// A well-formed move that is not legal in the position.
    IllegalMove {
        token: String,
        fen: String,
        reason: String,
    },
    /// A move of a move list failed; `ply` counts from 1 at the list's start.
    MoveList {
        ply: usize,
        label: String,
        source: Box<Error>,
    },
    /// Something else malformed in a move list (PGN text).
    MoveListSyntax { token: String, reason: String },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Fen {
                field,
                token,
                reason,
            } => {
                write!(
                    f,
                    "invalid FEN, {} field \"{token}\": {reason}",
                    field.name()
                )
            }
            Error::Position(err) => write!(f, "invalid position, {err}"),
            Error::UnknownRules(name) => {
                write!(
                    f,
                    "unknown rule set \"{name}\" (expected one of: {})",
                    RULE_NAMES
                )
            }
            Error::MoveSyntax { token, reason } => write!(f, "invalid move \"{token}\": {reason}"),
            Error::IllegalMove { token, fen, reason } => {
                write!(f, "illegal move \"{token}\" in position {fen}: {reason}")
            }
            Error::MoveList { ply, label, source } => {
                write!(f, "move list, ply {ply} ({label}): {source}")
            }
            Error::MoveListSyntax { token, reason } => {
                write!(f, "invalid move list at \"{token}\": {reason}")
            }
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::MoveList { source, .. } => Some(source.as_ref()),
            _ => None,
        }
    }
}

impl From<PositionError> for Error {
    fn from(err: PositionError) -> Error {
        Error::Position(err)
    }
}
