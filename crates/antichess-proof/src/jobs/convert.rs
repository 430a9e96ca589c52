//! The `proof convert` job, [`convert_verified`]: a proof file written again in the other
//! format. Only a proof that verifies is converted: the readers build a tree from what
//! they read, and would otherwise turn a file the verifier rejects into one it accepts.
//! Written in our format, the file records the tables its tablebase leaves were just
//! verified with (so a proof written before files recorded them gains the record).

use std::fmt;
use std::path::PathBuf;

use antichess_core::Position;
use serde::Serialize;

use super::{FileHead, JobError};
use crate::{
    convert_file, read_proof_file, verify_file, write_proof_file, Format, LeafOracle, VerifyOptions,
};

/// What [`convert_verified`] writes.
#[derive(Debug, Clone)]
pub struct ConvertOptions {
    /// The file to write (atomically).
    pub output: PathBuf,
    /// The format to write.
    pub to: Format,
}

/// What [`convert_verified`] did.
#[derive(Debug, Clone, Serialize)]
pub struct ConvertReport {
    /// The file read.
    pub input: String,
    /// The file written.
    pub output: String,
    /// The format written.
    pub format: &'static str,
    /// Nodes of the input.
    pub nodes_before: u64,
    /// Nodes written.
    pub nodes_after: u64,
    /// Always true: the input verified.
    pub verified: bool,
    /// When the reference format cannot record the root (not the start position and no
    /// line from it): the options that read the file back.
    #[serde(skip)]
    pub read_back_with: Option<String>,
}

impl fmt::Display for ConvertReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "wrote {} ({} format, {} nodes)",
            self.output, self.format, self.nodes_after
        )
    }
}

impl ConvertReport {
    /// The note on how to read the output back, when the format does not record its root.
    #[must_use]
    pub fn note(&self) -> Option<String> {
        self.read_back_with.as_ref().map(|options| {
            format!(
                "note: the reference format does not record the root; read it back with {options}"
            )
        })
    }
}

/// Verifies the proof file of `input` with `oracle` (`has_tables`: it holds tables) and
/// writes it to `options.output` in `options.to`.
///
/// # Errors
/// A rejection when the input does not verify (nothing is written) or the conversion's
/// result is refused; other errors when the input cannot be verified (missing tables),
/// read or written.
pub fn convert_verified(
    input: &FileHead,
    oracle: &dyn LeafOracle,
    has_tables: bool,
    options: &ConvertOptions,
) -> Result<ConvertReport, JobError> {
    let path = &input.path;
    let reference = &input.reference;
    let verify = VerifyOptions {
        reference: reference.clone(),
        ..VerifyOptions::default()
    };
    let before = match verify_file(path, Some(input.format), oracle, &verify, &mut |_| {}) {
        Ok(stats) => stats.counts.total,
        Err(err) if err.is_rejection() => {
            return Err(JobError::Rejected(format!(
                "{} does not verify, not converted: {err}",
                path.display()
            )));
        }
        Err(err) => {
            return Err(JobError::context(
                format!(
                    "{} cannot be verified, so it is not converted",
                    path.display()
                ),
                err,
            ))
        }
    };
    let to = options.to;
    let tree = if to == Format::Compact && has_tables {
        let mut tree = read_proof_file(path, Some(input.format), reference)?;
        if tree.counts().tablebase > 0 {
            tree.record_tables(oracle)?;
        }
        let order = reference.byte_order.unwrap_or_default();
        write_proof_file(&tree, &options.output, to, order)?;
        tree
    } else {
        convert_file(path, &options.output, to, reference)?
    };
    let unrecorded_root = to == Format::Reference
        && tree.prolog().is_empty()
        && !tree.root().same_position(&Position::start(tree.rules()));
    Ok(ConvertReport {
        input: path.display().to_string(),
        output: options.output.display().to_string(),
        format: to.name(),
        nodes_before: before,
        nodes_after: tree.counts().total,
        verified: true,
        read_back_with: unrecorded_root.then(|| {
            format!(
                "--fen \"{}\" --rules {} --prover {}",
                tree.root().fen(),
                tree.rules(),
                tree.prover()
            )
        }),
    })
}
