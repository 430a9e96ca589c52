//! Proof-number search for losing chess: depth-first proof-number search (df-pn) with the
//! 1+ε trick, a lock-free transposition table, tablebase leaves, budgets (nodes, time,
//! memory), several threads, and extraction of proof trees for `antichess-proof`.

mod checkpoint;
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
