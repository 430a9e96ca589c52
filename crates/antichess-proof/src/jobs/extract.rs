//! The `proof extract` job, [`ExtractPlan`]: the proof of a node inside a proof (the
//! subtree reached by a line of moves from its root), written atomically and verified
//! before success is reported; the work is [`crate::extract_file`]. [`ExtractPlan::prepare`]
//! reads the source (its rule set says which tables to open), [`ExtractPlan::run`] writes.

use std::fmt;
use std::path::{Path, PathBuf};

use antichess_core::{play_move_text, Game, Rules};
use serde::Serialize;

use super::JobError;
use crate::{
    extract_file, read_proof_file, LeafOracle, ProofStats, ProofTree, ReferenceOptions,
    VerifyOptions,
};

/// What to extract, and where to.
#[derive(Debug, Clone)]
pub struct ExtractOptions {
    /// The node: moves from the proof's root, e.g. "Nd4 exd4 e5".
    pub moves: String,
    /// The proof to write (our compact format).
    pub output: PathBuf,
    /// How the written proof is verified.
    pub verify: VerifyOptions,
}

/// What the extraction did: the verifier's statistics of the written file and more.
#[derive(Debug, Clone, Serialize)]
pub struct ExtractReport {
    /// The verifier's statistics.
    #[serde(flatten)]
    pub stats: ProofStats,
    /// Always true.
    pub verified: bool,
    /// The file written.
    pub output: String,
    /// Nodes of the proof it was cut from.
    pub source_nodes: u64,
    /// The node's FEN.
    #[serde(skip)]
    pub root_fen: String,
}

impl fmt::Display for ExtractReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "wrote {}: {} wins from {} ({} nodes, {} bytes; the source has {} nodes), verified",
            self.output,
            self.stats.prover,
            self.root_fen,
            self.stats.counts.total,
            self.stats.file_bytes.unwrap_or(0),
            self.source_nodes
        )
    }
}

/// An extraction ready to run: the source read and the node's line played.
#[derive(Debug)]
pub struct ExtractPlan {
    source: ProofTree,
    game: Game,
    options: ExtractOptions,
}

impl ExtractPlan {
    /// Checks the output (it may be replaced), reads the proof `input` (either format; a
    /// reference-format file with the default rules and prover) and plays the moves from
    /// its root.
    ///
    /// # Errors
    /// An output that may not be replaced, a source that cannot be read, moves that are
    /// not legal from its root.
    pub fn prepare(input: &Path, options: ExtractOptions) -> Result<ExtractPlan, JobError> {
        antichess_io::check_target(&options.output)?;
        let source = read_proof_file(input, None, &ReferenceOptions::default())
            .map_err(|e| JobError::context(format!("reading {}", input.display()), e))?;
        let game = play_move_text(*source.root(), &options.moves).map_err(|e| {
            JobError::context(
                format!("--moves \"{}\" from the proof's root", options.moves),
                e,
            )
        })?;
        Ok(ExtractPlan {
            source,
            game,
            options,
        })
    }

    /// The source's rule set: the tables to verify with are this rule set's.
    #[must_use]
    pub fn rules(&self) -> Rules {
        self.source.rules()
    }

    /// Writes the proof of the node and verifies it with `oracle`.
    ///
    /// # Errors
    /// A node the proof does not hold, writing; a rejection of the extracted proof (not
    /// written) says so.
    pub fn run(self, oracle: &dyn LeafOracle) -> Result<ExtractReport, JobError> {
        let options = &self.options;
        let source_nodes = self.source.len() as u64;
        let line = self.game.moves();
        let stats = extract_file(self.source, line, &options.output, oracle, &options.verify)
            .map_err(|err| {
                if err.is_rejection() {
                    JobError::Rejected(format!(
                        "the extracted proof does not verify (not written): {err}"
                    ))
                } else {
                    JobError::Proof(err)
                }
            })?;
        Ok(ExtractReport {
            stats,
            verified: true,
            output: options.output.display().to_string(),
            source_nodes,
            root_fen: self.game.position().fen(),
        })
    }
}
