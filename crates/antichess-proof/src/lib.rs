//! Proof trees of Losing Chess (antichess): building them from a solver's choices, two file
//! formats (our compact bitstream and the reference solution's 6 bytes per node), a
//! streaming verifier that replays every move with `antichess-core` alone, statistics, and
//! joining proofs of children into the proof of their parent, and cutting out the proof of a
//! node (a subtree).
//!
//! A proof shows that one side, the *prover*, wins from a root position: at the prover's
//! nodes it gives one move, at the opponent's nodes every legal move, and every line ends
//! in a leaf that is a win for the prover (no legal move, scored by the rule set, or a
//! tablebase win). Identical positions may be shared: a later occurrence refers to the
//! first. This crate depends on no solver crate; tablebases come in through
//! [`LeafOracle`]. A verified proof can be indexed on disk ([`open_or_build_index`]) for
//! players that look positions up.
//!
//! ```
//! use antichess_core::{Color, Position, Rules};
//! use antichess_proof::{build_proof, encode_compact, verify_compact, NoTablebases,
//!     ProofSource, ProverChoice, VerifyOptions};
//!
//! /// Plays the first legal move (enough here: the prover never has a choice).
//! struct FirstMove;
//! impl ProofSource for FirstMove {
//!     fn prover_choice(&mut self, pos: &Position) -> Result<ProverChoice, String> {
//!         Ok(ProverChoice::Play(pos.legal_moves()[0]))
//!     }
//! }
//! // White's knight b1 must capture Black's pawn on a3 (captures are compulsory); then
//! // Black, to move with no pieces left, wins.
//! let root = Position::from_fen("8/8/8/8/8/p7/8/1N6 w - - 0 1", Rules::INTERNATIONAL).unwrap();
//! let tree = build_proof(root, Color::Black, &mut FirstMove).unwrap();
//! let bytes = encode_compact(&tree).unwrap();
//! let options = VerifyOptions::default();
//! let stats = verify_compact(&bytes[..], None, &NoTablebases, &options, &mut |_| {}).unwrap();
//! assert_eq!((stats.counts.opponent, stats.counts.terminal), (1, 1));
//! ```

#![forbid(unsafe_code)]

mod bits;
mod build;
mod check;
mod compact;
mod disk_index;
mod error;
mod expand;
mod files;
pub mod jobs;
mod join;
pub mod loaded;
mod oracle;
mod position_id;
mod read_at;
mod reference;
mod stats;
mod subtree;
mod tables;
#[cfg(feature = "test-support")]
pub mod test_support;
mod tree;
mod walk;

pub use bits::index_width;
pub use build::{build_proof, build_with, Expander, ProofSource, ProverChoice, Step, MAX_RESTARTS};
pub use compact::{
    encode_compact, encode_compact_unchecked, CompactHeader, COMPACT_MAGIC, COMPACT_VERSION,
};
pub use disk_index::{
    default_index_dir, encode_index, index_path, index_proof_files, load_verified,
    open_or_build_index, proof_checksum, proof_files_in, IndexHeader, IndexSource, IndexedFile,
    ProofIndex, INDEX_DIR_ENV, INDEX_MAGIC, INDEX_VERSION,
};
pub use error::{NodeLabel, ProofError};
pub use expand::{expand_tablebase_leaves, playout_proof, ExpandReport};
pub use files::{
    convert_file, detect_file_format, read_compact, read_proof_file, stats_file, verify_compact,
    verify_file, verify_reference, write_atomic, write_proof_file, Format, VerifyOptions,
};
pub use join::{
    common_parent, join_files, join_proofs, ChildProof, IndexedTree, JoinParent, JoinReport,
};
pub use loaded::{LoadedProof, ProofHit, ProofPlay, ProofSummary};
pub use oracle::{
    compare_tables, probed_positions, LeafOracle, LeafValue, NoTablebases, TablebaseOracle,
    DEFAULT_PLAYOUT_DEPTH,
};
pub use position_id::{ordered_moves, units, PositionId};
pub use read_at::{PagedFile, ReadAt};
pub use reference::{
    encode_reference, read_reference, ByteOrder, ReferenceFile, ReferenceOptions,
    REFERENCE_MAX_NODES,
};
pub use stats::{ProofStats, RootMoveStats};
pub use subtree::{extract_file, subtree_proof};
pub use tables::{hex_checksum, unchecked_tables, TableCheck, TableRecord, TableStatus};
pub use tree::{tables_used, Node, NodeKind, ProofCounts, ProofTree};
