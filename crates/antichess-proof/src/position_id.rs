//! Identity of positions for sharing (`PositionId`: the Zobrist key plus an independent
//! FNV-1a hash of the board), the fixed move order of the compact format, the SAN move
//! paths that name nodes in errors, and the check that a prolog leads to its root.
//!
//! Two positions are "the same" for a proof when board, side to move and available en
//! passant capture agree (clocks are ignored). The Zobrist key alone identifies them with a
//! 64-bit collision risk; `PositionId` adds a second 64-bit hash computed a different way,
//! so a wrong sharing would need both to collide.

use antichess_core::{pgn, Color, Move, MoveList, Position, Role};

use crate::NodeLabel;

/// Zobrist key and a second, independent 64-bit hash of board, side to move and en passant
/// square.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PositionId {
    /// `Position::key()`.
    pub key: u64,
    /// FNV-1a (64 bit) over the eight bitboards (six roles, two colours, little-endian),
    /// the side to move and the en passant square.
    pub check: u64,
}

impl PositionId {
    /// The identity of a position.
    #[must_use]
    pub fn of(pos: &Position) -> PositionId {
        const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
        const PRIME: u64 = 0x0000_0100_0000_01b3;
        let mut hash = OFFSET;
        let mut feed = |byte: u8| {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(PRIME);
        };
        let board = pos.board();
        for role in Role::ALL {
            for byte in board.by_role(role).0.to_le_bytes() {
                feed(byte);
            }
        }
        for color in Color::ALL {
            for byte in board.by_color(color).0.to_le_bytes() {
                feed(byte);
            }
        }
        feed(pos.turn() as u8);
        feed(pos.ep_square().map_or(0xff, |sq| sq.index() as u8));
        PositionId {
            key: pos.key(),
            check: hash,
        }
    }
}

/// The legal moves in the fixed order of the compact format: sorted by [`Move::bits`].
#[must_use]
pub fn ordered_moves(pos: &Position) -> MoveList {
    let mut moves = pos.legal_moves();
    moves.sort_unstable_by_key(|m| m.bits());
    moves
}

/// Units (pieces, kings included) on the board.
#[must_use]
pub fn units(pos: &Position) -> u32 {
    pos.board().occupied().count()
}

/// Movetext for `moves` played from `start` (all must be legal in turn).
#[must_use]
pub(crate) fn movetext(start: &Position, moves: &[Move]) -> String {
    pgn::format_moves(start, moves)
}

/// Checks that `prolog` (if non-empty) leads from the start position to `root`.
pub(crate) fn check_prolog(root: &Position, prolog: &[Move]) -> Result<(), String> {
    if prolog.is_empty() {
        return Ok(());
    }
    let mut pos = Position::start(root.rules());
    for (i, &m) in prolog.iter().enumerate() {
        if !pos.is_legal(m) {
            return Err(format!(
                "prolog move {} ({m}) is not legal in {}",
                i + 1,
                pos.fen()
            ));
        }
        pos.play_mut(m);
    }
    if !pos.same_position(root) {
        return Err(format!(
            "the prolog leads to {}, not to the root {}",
            pos.fen(),
            root.fen()
        ));
    }
    Ok(())
}

/// The label of a node reached by `path` from `root`; with a prolog (moves from the start
/// position to the root) the prolog is shown first, then `|`, then the path.
#[must_use]
pub(crate) fn label(number: u64, root: &Position, prolog: &[Move], path: &[Move]) -> NodeLabel {
    let start = Position::start(root.rules());
    let prolog_ok = check_prolog(root, prolog).is_ok();
    let path_text = if prolog.is_empty() || !prolog_ok {
        movetext(root, path)
    } else if path.is_empty() {
        String::new()
    } else {
        let mut all = prolog.to_vec();
        all.extend_from_slice(path);
        let text = movetext(&start, &all);
        let prolog_text = movetext(&start, prolog);
        match text.strip_prefix(&prolog_text) {
            Some(rest) => format!("{prolog_text} |{rest}"),
            None => text,
        }
    };
    NodeLabel {
        number,
        path: path_text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use antichess_core::Rules;

    #[test]
    fn identity_ignores_clocks_and_sees_turn() {
        let a = Position::from_fen("8/8/8/8/8/8/1p6/B7 w - - 0 1", Rules::INTERNATIONAL).unwrap();
        let b = Position::from_fen("8/8/8/8/8/8/1p6/B7 w - - 7 30", Rules::INTERNATIONAL).unwrap();
        let c = Position::from_fen("8/8/8/8/8/8/1p6/B7 b - - 0 1", Rules::INTERNATIONAL).unwrap();
        assert_eq!(PositionId::of(&a), PositionId::of(&b));
        assert_ne!(PositionId::of(&a), PositionId::of(&c));
        assert_ne!(PositionId::of(&a).check, PositionId::of(&c).check);
    }

    #[test]
    fn labels_name_moves() {
        let start = Position::start(Rules::INTERNATIONAL);
        let e3 = start.parse_san("e3").unwrap();
        let pos = start.play(e3);
        let b5 = pos.parse_san("b5").unwrap();
        assert_eq!(
            label(2, &start, &[], &[e3, b5]).to_string(),
            "node 2 (1. e3 b5)"
        );
        assert_eq!(
            label(1, &pos, &[e3], &[b5]).to_string(),
            "node 1 (1. e3 | b5)"
        );
        assert_eq!(label(0, &start, &[], &[]).to_string(), "node 0 (the root)");
    }
}
