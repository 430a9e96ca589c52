//! The `proof join` job: the proof of a position from proofs of its children (all of them
//! where the opponent is to move, one where the prover is), written atomically and
//! verified before success is reported; the work is [`crate::join_files`]. First
//! [`JoinPlan::prepare`] checks the output, reads the rule set (of the first child) and the
//! parent; then, with the tables of that rule set, [`JoinPlan::run`].
//!
//! An output that is one of the children (the same file, by its canonical path or, on
//! Unix, its device and inode) is refused before anything is read: the join would
//! replace a proof it was given.

use std::fmt;
use std::path::{Path, PathBuf};

use antichess_core::{play_move_text, Game, Position, Rules};
use serde::Serialize;

use super::JobError;
use crate::{
    join_files, read_proof_file, JoinParent, LeafOracle, ProofStats, ReferenceOptions,
    VerifyOptions,
};

/// What to join, and where to.
#[derive(Debug, Clone)]
pub struct JoinOptions {
    /// The child proofs (files of either format).
    pub children: Vec<PathBuf>,
    /// The parent as a FEN (default: the parent the children's recorded lines share).
    pub fen: Option<String>,
    /// The parent as moves from the FEN or the start position.
    pub moves: Option<String>,
    /// The proof to write (our compact format).
    pub output: PathBuf,
    /// How the written proof is verified.
    pub verify: VerifyOptions,
}

/// A join ready to run: its options checked, its rule set and parent read.
#[derive(Debug)]
pub struct JoinPlan {
    options: JoinOptions,
    rules: Rules,
    parent: JoinParent,
}

/// A child file the join used (at a prover node, the one taken).
#[derive(Debug, Clone, Serialize)]
pub struct UsedChild {
    /// The move to the child, in SAN.
    #[serde(rename = "move")]
    pub san: String,
    /// The child's file.
    pub file: String,
}

/// What the join did: the verifier's statistics of the written file and more.
#[derive(Debug, Clone, Serialize)]
pub struct JoinedReport {
    /// The verifier's statistics.
    #[serde(flatten)]
    pub stats: ProofStats,
    /// Always true.
    pub verified: bool,
    /// The file written.
    pub output: String,
    /// The child files used.
    pub children: Vec<UsedChild>,
    /// The children's node counts together.
    pub child_nodes: u64,
    /// The parent's FEN.
    #[serde(skip)]
    pub root_fen: String,
}

impl fmt::Display for JoinedReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let stats = &self.stats;
        write!(
            f,
            "wrote {}: {} wins from {} ({} nodes, {} bytes; the children's proofs have {} nodes together), verified",
            self.output,
            stats.prover,
            self.root_fen,
            stats.counts.total,
            stats.file_bytes.unwrap_or(0),
            self.child_nodes
        )?;
        for child in &self.children {
            write!(f, "\n  {}: {}", child.san, child.file)?;
        }
        Ok(())
    }
}

impl JoinPlan {
    /// Checks the output (it may be replaced and is none of the children), reads the
    /// rule set of the first child (every child must share it) and the parent.
    ///
    /// # Errors
    /// An output that may not be replaced or is a child, a first child that cannot be
    /// read, a FEN or moves that are not valid.
    pub fn prepare(options: JoinOptions) -> Result<JoinPlan, JobError> {
        let output = &options.output;
        let existing = antichess_io::check_target(output)?;
        if existing.is_some() {
            refuse_an_input_as_output(output, &options.children)?;
        }
        let first = &options.children[0];
        let rules = read_proof_file(first, None, &ReferenceOptions::default())
            .map_err(|e| JobError::context(format!("reading {}", first.display()), e))?
            .rules();
        let parent = parent(options.fen.as_deref(), options.moves.as_deref(), rules)?;
        Ok(JoinPlan {
            options,
            rules,
            parent,
        })
    }

    /// The children's rule set: the tables to verify with are this rule set's.
    #[must_use]
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// Joins the children, writes the proof and verifies it with `oracle`.
    ///
    /// # Errors
    /// As [`join_files`]; a rejection of the joined proof (not written) says so.
    pub fn run(self, oracle: &dyn LeafOracle) -> Result<JoinedReport, JobError> {
        let options = &self.options;
        let report = join_files(
            &options.children,
            self.parent,
            &options.output,
            oracle,
            &options.verify,
        )
        .map_err(|err| {
            if err.is_rejection() {
                JobError::Rejected(format!(
                    "the joined proof does not verify (not written): {err}"
                ))
            } else {
                JobError::Proof(err)
            }
        })?;
        Ok(JoinedReport {
            stats: report.stats,
            verified: true,
            output: options.output.display().to_string(),
            children: report
                .used
                .into_iter()
                .map(|(san, path)| UsedChild {
                    san,
                    file: path.display().to_string(),
                })
                .collect(),
            child_nodes: report.child_nodes,
            root_fen: report.root_fen,
        })
    }
}

/// The parent: from `fen` (default: the start position) by `moves`, or, with neither,
/// the one the children's recorded lines share. A line from the start position is
/// recorded in the file.
fn parent(fen: Option<&str>, moves: Option<&str>, rules: Rules) -> Result<JoinParent, JobError> {
    if fen.is_none() && moves.is_none() {
        return Ok(JoinParent::FromChildren);
    }
    let start = match fen {
        Some(fen) => Position::from_fen(fen, rules)
            .map_err(|e| JobError::context(format!("--fen \"{fen}\""), e))?,
        None => Position::start(rules),
    };
    let game = match moves {
        Some(moves) => play_move_text(start, moves).map_err(|e| JobError::context("--moves", e))?,
        None => Game::new(start),
    };
    let prolog = if fen.is_none() {
        game.moves().to_vec()
    } else {
        Vec::new()
    };
    Ok(JoinParent::Given(*game.position(), prolog))
}

/// Refuses `output` when it is the same file as one of `children` (the output exists).
fn refuse_an_input_as_output(output: &Path, children: &[PathBuf]) -> Result<(), JobError> {
    let out = std::fs::canonicalize(output).map_err(|e| {
        JobError::context(format!("-o {}: resolving the path", output.display()), e)
    })?;
    let out_meta = std::fs::metadata(&out).ok();
    for child in children {
        let Ok(path) = std::fs::canonicalize(child) else {
            continue; // (a missing child is reported when the children are read)
        };
        let same = path == out
            || match (&out_meta, std::fs::metadata(&path)) {
                (Some(a), Ok(b)) => same_inode(a, &b),
                _ => false,
            };
        if same {
            return Err(JobError::Invalid(format!(
                "-o {}: it is the child proof {} given to the join, which writing would \
                 replace: write the joined proof to another file",
                output.display(),
                child.display()
            )));
        }
    }
    Ok(())
}

#[cfg(unix)]
fn same_inode(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_inode(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    false
}
