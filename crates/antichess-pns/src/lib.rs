//! Proof-number search for losing chess: depth-first proof-number search (df-pn) with the
//! 1+ε trick, a lock-free transposition table, tablebase leaves, budgets (nodes, time,
//! memory), several threads, extraction of proof trees for `antichess-proof`, and their
//! minimisation (a pool of proofs, exact searches of small subtrees, and with the `mip`
//! feature a global choice over the pool as an integer program).
//!
//! Modules: `search` and `tt` (the search and its table; `worker` its threads, `options`
//! what the two share), `checkpoint`, [`minimize`]
//! (extraction and minimisation), [`prove`] (the pipeline from a position to a written,
//! verified proof, the JSON report of a solve, and [`prove::resume`]: the same with a
//! checkpoint), [`bench`] (the solve benchmark's job) and `error` ([`PnsError`]).

pub mod bench;
pub mod bench_text;
mod checkpoint;
mod error;
pub mod initial;
pub mod initial_choice;
pub mod minimize;
mod missing;
mod options;
pub mod prove;
mod search;
mod tt;
mod worker;

pub use checkpoint::{
    load_checkpoint, read_checkpoint_info, remove_stale_checkpoint_temps, save_checkpoint,
    CheckpointInfo,
};
pub use error::{PnsError, Result};
pub use initial::InitialNumbers;
pub use initial_choice::{InitialChoice, InitialKind};
pub use minimize::{
    extract_minimized, extract_proof, extract_proof_at, minimize_proof, MinimizeOptions,
    MinimizeProgress, MinimizeReport, PoolReport, ProofPool, GLOBAL_CHOICE,
};
pub use missing::MissingTable;
pub use prove::{
    finish_proof, prove_position, write_proof, write_proof_with_progress, ProofOutcome,
    ProofOutput, ProveEvent, ProveOptions, SolveReport, Solved, WrittenProof,
};
pub use search::{
    MoveNumbers, NodeNumbers, Progress, SearchOptions, SearchResult, SearchStatus, Solver, INF,
};
pub use tt::{TranspositionTable, TtEntry, ENTRY_BYTES, SEED};

/// Helpers of the unit tests.
#[cfg(test)]
mod testing {
    use std::ops::Range;

    use antichess_core::{Board, Color, Piece, Position, Role, Rules, Setup, Square};
    use antichess_proof::{encode_compact, verify_compact, NoTablebases, ProofTree, VerifyOptions};

    /// Random positions with a number of units drawn from `units` (pawns, knights, kings;
    /// no bishops, so no dead draws) and a legal move, from a fixed seed.
    pub(crate) fn random_positions(count: usize, units: Range<u64>) -> Vec<Position> {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let mut out = Vec::new();
        while out.len() < count {
            let mut board = Board::default();
            for _ in 0..units.start + next(units.end - units.start) {
                let sq = Square::from_index(next(64) as u32);
                let piece = Piece::from_char(['P', 'N', 'K', 'p', 'n', 'k'][next(6) as usize])
                    .expect("a piece letter");
                let pawn_on_back_rank = piece.role == Role::Pawn && !(8..56).contains(&sq.index());
                if !(board.occupied().contains(sq) || pawn_on_back_rank) {
                    board.put_unchecked(sq, piece);
                }
            }
            let turn = if next(2) == 0 {
                Color::White
            } else {
                Color::Black
            };
            let setup = Setup::new(board, turn);
            if let Ok(pos) = Position::from_setup(setup, Rules::INTERNATIONAL) {
                if !pos.legal_moves().is_empty() {
                    out.push(pos);
                }
            }
        }
        out
    }

    /// Encodes `tree` and runs the verifier on it; returns its node count.
    pub(crate) fn verified(tree: &ProofTree) -> u64 {
        let bytes = encode_compact(tree).unwrap();
        verify_compact(
            &bytes[..],
            None,
            &NoTablebases,
            &VerifyOptions::default(),
            &mut |_| {},
        )
        .unwrap()
        .counts
        .total
    }
}
