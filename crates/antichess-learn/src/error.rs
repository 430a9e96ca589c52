//! `LearnError`, the one error type of this crate: each message names the file, line,
//! column, source or option that is wrong, in the user's terms.

use std::fmt;
use std::io;

/// Errors of `antichess-learn`.
#[derive(Debug)]
#[non_exhaustive]
pub enum LearnError {
    /// Reading or writing a file failed (`context` names it).
    Io {
        /// What was being done, with the path.
        context: String,
        /// The underlying error.
        source: io::Error,
    },
    /// A proof file could not be read or replayed.
    Proof {
        /// The proof file.
        path: String,
        /// What went wrong.
        source: antichess_proof::ProofError,
    },
    /// A game of a PGN file could not be read or played.
    Game {
        /// The PGN file.
        path: String,
        /// The game's number in the file, from 1.
        game: u64,
        /// The line of the file the game starts on, from 1.
        line: u64,
        /// What is wrong (the move, the tag, ...).
        message: String,
    },
    /// The tablebase directory could not be opened or probed.
    Tables(String),
    /// A data set file is malformed at a line (1 is the header).
    Csv {
        /// The file.
        path: String,
        /// The line number, from 1.
        line: u64,
        /// What is wrong there.
        message: String,
    },
    /// The options or the data do not allow the job (no rows, an unknown held-out
    /// source, two sources of one name, ...).
    Invalid(String),
}

impl LearnError {
    pub(crate) fn io(context: impl Into<String>, source: io::Error) -> LearnError {
        LearnError::Io {
            context: context.into(),
            source,
        }
    }
}

impl fmt::Display for LearnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LearnError::Io { context, source } => write!(f, "{context}: {source}"),
            LearnError::Proof { path, source } => write!(f, "{path}: {source}"),
            LearnError::Game {
                path,
                game,
                line,
                message,
            } => write!(f, "{path} game {game} (line {line}): {message}"),
            LearnError::Tables(why) => write!(f, "tables: {why}"),
            LearnError::Csv {
                path,
                line,
                message,
            } => write!(f, "{path} line {line}: {message}"),
            LearnError::Invalid(why) => write!(f, "{why}"),
        }
    }
}

impl std::error::Error for LearnError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LearnError::Io { source, .. } => Some(source),
            LearnError::Proof { source, .. } => Some(source),
            _ => None,
        }
    }
}
