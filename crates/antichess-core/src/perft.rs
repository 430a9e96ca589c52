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
