//! [`JobError`], the error of the proof jobs (`crate::jobs`): a proof error, or a message
//! with the error behind it (as a context on the way up), each either a verdict on a
//! proof (a rejection) or not.

use std::error::Error;
use std::fmt;

use crate::ProofError;

/// Why a proof job failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum JobError {
    /// The proof library's own error.
    Proof(ProofError),
    /// What was being done (naming the file or option), and what failed.
    Context {
        /// What was being done.
        message: String,
        /// What failed.
        source: Box<dyn Error + Send + Sync + 'static>,
    },
    /// A file could not be checked, read or written (the message names it).
    Io(std::io::Error),
    /// A verdict that a proof is bad (the caller prints it as a rejection).
    Rejected(String),
    /// A usage or consistency error.
    Invalid(String),
}

impl JobError {
    /// Whether this is a verdict that a proof is bad (exit 1), not trouble (exit 2).
    #[must_use]
    pub fn is_rejection(&self) -> bool {
        match self {
            JobError::Proof(e) => e.is_rejection(),
            JobError::Rejected(_) => true,
            JobError::Context { .. } | JobError::Io(_) | JobError::Invalid(_) => false,
        }
    }

    /// `source` with `message` saying what was being done.
    pub(crate) fn context(
        message: impl Into<String>,
        source: impl Error + Send + Sync + 'static,
    ) -> JobError {
        JobError::Context {
            message: message.into(),
            source: Box::new(source),
        }
    }
}

impl From<ProofError> for JobError {
    fn from(e: ProofError) -> JobError {
        JobError::Proof(e)
    }
}

impl From<std::io::Error> for JobError {
    fn from(e: std::io::Error) -> JobError {
        JobError::Io(e)
    }
}

impl fmt::Display for JobError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JobError::Proof(e) => e.fmt(f),
            JobError::Io(e) => e.fmt(f),
            JobError::Context { message, .. } => f.write_str(message),
            JobError::Rejected(message) | JobError::Invalid(message) => f.write_str(message),
        }
    }
}

impl Error for JobError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            // The proof error stands for itself: its causes follow it.
            JobError::Proof(e) => e.source(),
            JobError::Io(e) => e.source(),
            JobError::Context { source, .. } => Some(source.as_ref()),
            JobError::Rejected(_) | JobError::Invalid(_) => None,
        }
    }
}
