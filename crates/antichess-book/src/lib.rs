//! The book: the upper-level tree of proof-number searches for losing chess.
//!
//! A book is a tree of positions from a root, stored in a [`Store`] (SQLite by default,
//! PostgreSQL for workers on many machines).
//! Each leaf gets a bounded proof-number search whose proof and disproof numbers serve as
//! its evaluation; numbers are minimaxed to the root, and the book grows best-first —
//! workers walk from the root to a promising leaf, claim it with a lease, search it and
//! write the result — until the root is proven. A proven book is pruned to one winning
//! move per prover node, its leaves are re-solved with proof output, and the pieces are
//! assembled into one proof file that the independent verifier checks.
//!
//! Modules: [`node`] (numbers, status, minimax), `format` (the book format's name and
//! version), [`store`] (the storage trait, the
//! shared schema, row mapping and claim rule, and its two implementations,
//! [`store::sqlite`] and [`store::postgres`]), [`nav`] (navigation over the store: a node
//! by its line, the line to a node, the pin), [`book`] (opening, steering, checking), [`damage`] (damaged rows: what `book check`
//! reports and why a worker finds nothing to claim), [`expand`]
//! (searching a leaf and writing the result), [`select`] (the walk; [`walk_choice`] the walk as a user chooses it), [`grow`] (workers),
//! [`prove`] (proof assembly), [`prove_line`] (the `prove` job: a line's book grown in a cache until solved, then its proof written), [`frontier`] (a book's state in one small file, across runs and machines), `queue` (queued lines that go on beyond the book), [`leaves`] (the leaf-proof directory grow writes and prove reads), [`seed`] (verified proofs taken as given; `seed_meta` how a book stores them; [`seed_files`] the files named and their check against the book to be made), [`subtrees`] (solved
//! subtrees kept as proof files), [`transfer`] (export and import of subtrees), [`tbqueue`] (building tablebases on many
//! machines through a PostgreSQL queue), [`jobs`] (the `book` commands as jobs: options, events, one report). The file layout is documented
//! in `docs/formats/book.md`.

#![forbid(unsafe_code)]

pub mod book;
pub mod damage;
mod error;
pub mod expand;
mod format;
pub mod frontier;
pub mod frontier_tables;
pub mod grow;
pub mod hints;
pub mod jobs;
pub mod leaves;
pub mod nav;
pub mod node;
pub mod pending;
pub mod prove;
pub mod prove_line;
mod queue;
pub mod seed;
pub mod seed_files;
mod seed_meta;
pub mod select;
pub mod store;
pub mod subtrees;
pub mod tables;
pub mod tbqueue;
pub mod text;
pub mod transfer;
mod tree;
pub mod walk_choice;

pub use book::{open_with_rules, Book, BookMeta};
pub use error::{BookError, Result};
pub use expand::{apply, expand_leaf, Applied, Expansion, LeafOutcome, KEEP_FRACTION};
pub use grow::{grow, release_dead_claims, worker_id, GrowEnd, GrowOptions, GrowStats};
pub use hints::Hints;
pub use nav::{BookView, Reached};
pub use node::{same_position, Node, NodeId, Status, INF};
pub use prove::{
    assemble_proof, prove_node_to_file, prove_to_file, AssembleOptions, ProveEvent, ProveReport,
    Verified,
};
pub use prove_line::{
    prove_line, ProveLineEvent, ProveLineOptions, ProveLineOutcome, ProveLineReport,
};
pub use seed::{seed_bytes, seed_file, seeds, Seed, SeedReport};
pub use select::{Effort, Rng, Selection};
pub use store::{
    create_store, now_ms, open_store, open_store_read_only, redact, remove_store, BookCounts,
    Integrity, Location, PostgresStore, QueueEntry, SearchLog, SqliteStore, Store, Txn,
};
pub use subtrees::{prove_subtrees, SubtreeProof};
pub use transfer::{copy_book, export, import, CopyReport, ImportReport};
pub use tree::NewChild;
