//! Perft: the number of leaf nodes of the legal move tree to a given depth, the standard
//! test of move generation. [`perft`] counts the last ply without playing it (bulk
//! counting); [`perft_full`] plays every move, to measure make-move as well.

use crate::{Move, Position};

/// Leaf count at `depth` plies, counting the last ply by [`Position::count_moves`].
#[must_use]
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => u64::from(pos.count_moves()),
        _ => {
            let moves = pos.legal_moves();
            moves.iter().map(|m| perft(&pos.play(*m), depth - 1)).sum()
        }
    }
}

/// Leaf count at `depth` plies, playing every move down to the leaves.
#[must_use]
pub fn perft_full(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = pos.legal_moves();
    if depth == 1 {
        // Play the leaves anyway, so that make-move is measured too.
        for m in &moves {
            std::hint::black_box(pos.play(*m));
        }
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|m| perft_full(&pos.play(*m), depth - 1))
        .sum()
}

/// Perft of each legal move at `depth - 1` (depth must be at least 1).
#[must_use]
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    pos.legal_moves()
        .iter()
        .map(|m| (*m, perft(&pos.play(*m), depth.saturating_sub(1))))
        .collect()
}

/// The position set of `antichess bench movegen` and of the core example `movegen_bench`:
/// (name, FEN, depth, nodes, every leaf played?). Counts agree with shakmaty (see
/// tests/data/antichess.perft).
pub const MOVEGEN_SET: &[(&str, &str, u32, u64, bool)] = &[
    (
        "start",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
        6,
        46_264_162,
        false,
    ),
    (
        "middlegame",
        "rnq3n1/1p3p2/2kp1p2/p1p5/2P4K/P4P1N/3PP1P1/RN3B2 w - - 2 16",
        7,
        47_075_243,
        false,
    ),
    (
        "endgame",
        "1n1k4/3p4/p7/5p2/1p6/7K/2PP4/1N5B w - - 0 21",
        7,
        11_598_034,
        false,
    ),
    (
        "promotions",
        "8/PPP5/8/8/8/8/5ppp/8 w - - 0 1",
        6,
        13_295_080,
        false,
    ),
    (
        "start",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
        5,
        2_732_672,
        true,
    ),
    (
        "middlegame",
        "rnq3n1/1p3p2/2kp1p2/p1p5/2P4K/P4P1N/3PP1P1/RN3B2 w - - 2 16",
        6,
        3_333_913,
        true,
    ),
    (
        "endgame",
        "1n1k4/3p4/p7/5p2/1p6/7K/2PP4/1N5B w - - 0 21",
        6,
        951_676,
        true,
    ),
    (
        "promotions",
        "8/PPP5/8/8/8/8/5ppp/8 w - - 0 1",
        5,
        941_871,
        true,
    ),
];
