//! The features of a position, from the side to move's point of view: what a model of
//! "who wins, and how hard is it to show" reads. Every feature is cheap (bitboard counts;
//! the two move counts are the most costly part), and none depends on the colour to move,
//! so a model trained on White's wins applies to Black's.

use antichess_core::attacks::attacks;
use antichess_core::{board_has_capture, Bitboard, Board, Color, Position, Role};

/// The number of features.
pub const FEATURE_COUNT: usize = 24;

/// The features' names, in order (the weights file names them, and loading checks them).
pub const FEATURES: [&str; FEATURE_COUNT] = [
    "us_units",
    "them_units",
    "us_moves",
    "them_moves",
    "us_moves_log",
    "them_moves_log",
    "us_must_capture",
    "them_must_capture",
    "us_one_move",
    "us_hanging",
    "them_hanging",
    "us_pawns",
    "us_knights",
    "us_bishops",
    "us_rooks",
    "us_queens",
    "us_kings",
    "them_pawns",
    "them_knights",
    "them_bishops",
    "them_rooks",
    "them_queens",
    "them_kings",
    "pawn_advance",
];

/// Every square a side's pieces attack (pawns: their capture squares).
fn attacked_by(board: &Board, color: Color) -> Bitboard {
    let occupied = board.occupied();
    let mut all = Bitboard(0);
    for role in Role::ALL {
        for sq in board.by_role(role) & board.by_color(color) {
            all |= attacks(color, role, sq, occupied);
        }
    }
    all
}

/// The sum of a side's pawns' ranks counted from its own side (0 on the second rank).
fn pawn_advance(board: &Board, color: Color) -> u32 {
    (board.pawns() & board.by_color(color))
        .into_iter()
        .map(|sq| u32::from(sq.relative_rank(color)).saturating_sub(1))
        .sum()
}

/// The features of `pos` (see [`FEATURES`] for their order).
#[must_use]
pub fn features(pos: &Position) -> [f32; FEATURE_COUNT] {
    features_with_moves(pos, pos.count_moves())
}

/// The features of `pos` whose side to move has `us_moves` legal moves (already counted
/// by the caller, as the search has).
#[must_use]
pub fn features_with_moves(pos: &Position, us_moves: u32) -> [f32; FEATURE_COUNT] {
    let board = pos.board();
    let us = pos.turn();
    let them = us.other();
    let ours = board.by_color(us);
    let theirs = board.by_color(them);
    let them_moves = Position::from_board_unhashed(*board, them, pos.rules()).count_moves();
    let attacked_by_us = attacked_by(board, us);
    let attacked_by_them = attacked_by(board, them);
    let count = |role: Role, side: Bitboard| (board.by_role(role) & side).count() as f32;
    let advance = pawn_advance(board, us) as f32 - pawn_advance(board, them) as f32;
    [
        ours.count() as f32,
        theirs.count() as f32,
        us_moves as f32,
        them_moves as f32,
        (1.0 + us_moves as f32).ln(),
        (1.0 + them_moves as f32).ln(),
        f32::from(u8::from(pos.has_capture())),
        f32::from(u8::from(board_has_capture(board, them))),
        f32::from(u8::from(us_moves == 1)),
        (attacked_by_them & ours).count() as f32,
        (attacked_by_us & theirs).count() as f32,
        count(Role::Pawn, ours),
        count(Role::Knight, ours),
        count(Role::Bishop, ours),
        count(Role::Rook, ours),
        count(Role::Queen, ours),
        count(Role::King, ours),
        count(Role::Pawn, theirs),
        count(Role::Knight, theirs),
        count(Role::Bishop, theirs),
        count(Role::Rook, theirs),
        count(Role::Queen, theirs),
        count(Role::King, theirs),
        advance,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use antichess_core::Rules;

    #[test]
    fn the_start_position_is_symmetric() {
        let pos = Position::start(Rules::default());
        let f = features(&pos);
        assert_eq!(f[0], 16.0);
        assert_eq!(f[1], 16.0);
        assert_eq!(f[2], 20.0);
        assert_eq!(f[3], 20.0);
        assert_eq!(f[6], 0.0);
        assert_eq!(f[9], 0.0);
        assert_eq!(f[23], 0.0);
    }

    #[test]
    fn features_do_not_depend_on_the_colour_to_move() {
        let rules = Rules::default();
        let pos = Position::from_fen(
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w - - 0 2",
            rules,
        )
        .unwrap();
        let mirrored = pos.swap_colors();
        assert_eq!(features(&pos), features(&mirrored));
        assert_eq!(features(&pos), features_with_moves(&pos, pos.count_moves()));
    }

    #[test]
    fn a_forced_capture_and_hanging_pieces_are_seen() {
        let pos = Position::from_fen(
            "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w - - 0 2",
            Rules::default(),
        )
        .unwrap();
        let f = features(&pos);
        assert_eq!(f[2], 1.0, "exd5 is the only move");
        assert_eq!(f[6], 1.0);
        assert_eq!(f[7], 1.0, "dxe4 is there for Black");
        assert_eq!(f[8], 1.0);
        assert_eq!(f[9], 1.0);
        assert_eq!(f[10], 1.0);
    }
}
