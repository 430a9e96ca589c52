//! Proof-number search for losing chess: depth-first proof-number search (df-pn) with the
//! 1+ε trick, a lock-free transposition table, tablebase leaves, budgets (nodes, time,
//! memory), several threads, extraction of proof trees for `antichess-proof`, and their
//! minimisation (a pool of proofs, exact searches of small subtrees).

mod checkpoint;
mod exact;
mod extract;
mod minimize;
mod pool;
mod search;
mod tt;

pub use checkpoint::{
    load_checkpoint, read_checkpoint_info, save_checkpoint, CheckpointError, CheckpointInfo,
};
pub use extract::{extract_minimized, extract_proof, write_proof, ExtractError, WrittenProof};
pub use minimize::{minimize_proof, MinimizeOptions, MinimizeReport};
pub use pool::{PoolReport, ProofPool};
pub use search::{
    MoveNumbers, NodeNumbers, Progress, SearchOptions, SearchResult, SearchStatus, Solver, INF,
};
pub use tt::{TranspositionTable, TtEntry, ENTRY_BYTES, SEED};

/// Helpers of the unit tests.
#[cfg(test)]
mod testing {
    use antichess_proof::{encode_compact, verify_compact, NoTablebases, ProofTree, VerifyOptions};

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
