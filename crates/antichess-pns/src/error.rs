//! `PnsError`, the one error type of this crate, and [`Result`].
//!
//! An error names what it is about in the user's terms (the position's FEN, the file's
//! path, the size asked for); callers add context on the way up with
//! [`PnsError::context`] ("minimising the proof: ...", "proof 2 to merge: ..."), which
//! [`std::error::Error::source`] then walks back down.

use std::fmt;
use std::path::PathBuf;

use antichess_proof::ProofError;
use antichess_tb::TbError;

/// Errors of `antichess-pns`.
#[derive(Debug)]
#[non_exhaustive]
pub enum PnsError {
    /// The transposition table could not be reserved.
    TableMemory { bytes: usize, message: String },
    /// A tablebase probe failed (a missing or damaged table).
    Tablebase { fen: String, source: TbError },
    /// Building, encoding, writing or reading a proof failed.
    Proof(ProofError),
    /// The position is not proved, so there is no proof to write.
    NotProved,
    /// A written proof was rejected by the verifier (`path`: the file, if it was one).
    Rejected {
        path: Option<PathBuf>,
        source: ProofError,
    },
    /// A checkpoint file could not be read, written or used.
    Checkpoint { path: PathBuf, message: String },
    /// The input cannot be used as asked (a proof for another prover or rule set, a
    /// checkpoint of another search).
    Mismatch(String),
    /// A proof given to the minimiser is malformed (an illegal move, a reference to a
    /// later node, no nodes), or the proof pool holds no complete proof of its root.
    Invalid(String),
    /// A proof the search had found could not be found again (a re-search did not prove a
    /// node again, no proved move at a node): the proof cannot be completed.
    Lost(String),
    /// Writing or reading a file (other than a proof or a checkpoint) failed.
    Io {
        context: String,
        source: std::io::Error,
    },
    /// `source`, in the course of `context`.
    Context {
        context: String,
        source: Box<PnsError>,
    },
}

/// The result type of this crate.
pub type Result<T, E = PnsError> = std::result::Result<T, E>;

impl PnsError {
    /// This error, in the course of `context` (e.g. "minimising the proof").
    #[must_use]
    pub fn context(self, context: impl Into<String>) -> PnsError {
        PnsError::Context {
            context: context.into(),
            source: Box::new(self),
        }
    }

    /// The error under the contexts added on the way up.
    #[must_use]
    pub fn innermost(&self) -> &PnsError {
        match self {
            PnsError::Context { source, .. } => source.innermost(),
            other => other,
        }
    }

    pub(crate) fn lost(message: impl Into<String>) -> PnsError {
        PnsError::Lost(message.into())
    }

    pub(crate) fn invalid(message: impl Into<String>) -> PnsError {
        PnsError::Invalid(message.into())
    }

    pub(crate) fn tablebase(fen: String, source: TbError) -> PnsError {
        PnsError::Tablebase { fen, source }
    }
}

impl fmt::Display for PnsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PnsError::TableMemory { bytes, message } => write!(
                f,
                "cannot reserve {} MB for the transposition table (--hash): {message}",
                bytes >> 20
            ),
            PnsError::Tablebase { fen, source } => {
                write!(f, "probing the tablebases at {fen}: {source}")
            }
            PnsError::Proof(e) => write!(f, "{e}"),
            PnsError::NotProved => {
                f.write_str("the position is not proved, so there is no proof to write")
            }
            PnsError::Rejected { path, source } => match path {
                Some(p) => write!(f, "{}: the proof does not verify ({source})", p.display()),
                None => write!(f, "the proof does not verify ({source})"),
            },
            PnsError::Checkpoint { path, message } => {
                write!(f, "checkpoint {}: {message}", path.display())
            }
            PnsError::Mismatch(message) | PnsError::Invalid(message) | PnsError::Lost(message) => {
                f.write_str(message)
            }
            PnsError::Io { context, source } => write!(f, "{context}: {source}"),
            PnsError::Context { context, source } => write!(f, "{context}: {source}"),
        }
    }
}

impl std::error::Error for PnsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PnsError::Tablebase { source, .. } => Some(source),
            PnsError::Proof(e) | PnsError::Rejected { source: e, .. } => Some(e),
            PnsError::Io { source, .. } => Some(source),
            PnsError::Context { source, .. } => Some(source.as_ref()),
            PnsError::TableMemory { .. }
            | PnsError::NotProved
            | PnsError::Checkpoint { .. }
            | PnsError::Mismatch(_)
            | PnsError::Invalid(_)
            | PnsError::Lost(_) => None,
        }
    }
}

impl From<ProofError> for PnsError {
    fn from(e: ProofError) -> PnsError {
        PnsError::Proof(e)
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error;

    use super::PnsError;

    #[test]
    fn context_reads_outside_in_and_keeps_the_source() {
        let e = PnsError::Mismatch("proof 2 is for black".into()).context("minimising a.proof");
        assert_eq!(e.to_string(), "minimising a.proof: proof 2 is for black");
        assert!(matches!(e.innermost(), PnsError::Mismatch(_)));
        assert_eq!(e.source().unwrap().to_string(), "proof 2 is for black");
    }
}
