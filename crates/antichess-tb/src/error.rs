//! The crate's error type: every failure names the table (signature and file) and, for
//! corrupt files, what is wrong and where.

use std::fmt;
use std::path::{Path, PathBuf};

/// Errors of `antichess-tb`.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum TbError {
    /// A material signature that cannot be parsed.
    Signature { text: String, reason: String },
    /// A file could not be read or written.
    Io {
        path: PathBuf,
        kind: std::io::ErrorKind,
        message: String,
    },
    /// A table file is damaged or not a table file.
    Corrupt { path: PathBuf, reason: String },
    /// A table built for other rules than requested.
    WrongRules {
        path: PathBuf,
        found: String,
        expected: String,
    },
    /// A table file whose header names another material than the one it was opened
    /// for (a renamed or copied file).
    WrongMaterial {
        path: PathBuf,
        found: String,
        expected: String,
    },
    /// No table covers a material.
    Missing { material: String, dir: PathBuf },
    /// A stored value disagrees with its successors (found by `verify`).
    Verification { table: String, reason: String },
    /// Anything else that makes a request impossible (e.g. too many units).
    Unsupported(String),
    /// A core error (e.g. a bad FEN).
    Core(antichess_core::Error),
}

impl fmt::Display for TbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TbError::Signature { text, reason } => {
                write!(f, "invalid material signature \"{text}\": {reason}")
            }
            TbError::Io { path, message, .. } => write!(f, "{}: {message}", path.display()),
            TbError::Corrupt { path, reason } => {
                write!(f, "corrupt tablebase file {}: {reason}", path.display())
            }
            TbError::WrongRules {
                path,
                found,
                expected,
            } => write!(
                f,
                "tablebase file {} was built for {found} rules, but {expected} rules were \
                 requested (use a separate --tables directory per rule set)",
                path.display()
            ),
            TbError::WrongMaterial {
                path,
                found,
                expected,
            } => write!(
                f,
                "tablebase file {} holds the table of {found}, not of {expected}: it was \
                 renamed or copied from another table (rebuild it with `antichess tb build \
                 {expected}` after removing the file)",
                path.display()
            ),
            TbError::Missing { material, dir } => {
                write!(f, "no table for {material} in {}", dir.display())
            }
            TbError::Verification { table, reason } => {
                write!(f, "table {table} failed verification: {reason}")
            }
            TbError::Unsupported(reason) => f.write_str(reason),
            TbError::Core(err) => write!(f, "{err}"),
        }
    }
}

impl std::error::Error for TbError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TbError::Core(err) => Some(err),
            _ => None,
        }
    }
}

impl From<antichess_core::Error> for TbError {
    fn from(err: antichess_core::Error) -> TbError {
        TbError::Core(err)
    }
}

impl TbError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> TbError {
        TbError::Io {
            path: path.into(),
            kind: source.kind(),
            message: source.to_string(),
        }
    }

    pub(crate) fn corrupt(path: impl Into<PathBuf>, reason: impl Into<String>) -> TbError {
        TbError::Corrupt {
            path: path.into(),
            reason: reason.into(),
        }
    }
}

/// The error for a symbolic link that cannot be followed.
pub(crate) fn unfollowable_link(path: &Path, e: &std::io::Error) -> TbError {
    let what = if e.kind() == std::io::ErrorKind::NotFound {
        "a symbolic link to nothing".to_string()
    } else {
        format!("a symbolic link that cannot be followed ({e}; a loop?)")
    };
    TbError::Io {
        path: path.to_path_buf(),
        kind: e.kind(),
        message: what,
    }
}
