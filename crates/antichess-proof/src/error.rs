//! `ProofError`, the one error type of this crate, and `NodeLabel`, the way errors name a
//! node of a proof: its number (preorder, root = 0) and the moves from the root in SAN.
//!
//! Errors split into two families, which the command line maps to different exit codes:
//! *rejections* ([`ProofError::is_rejection`]: the file is damaged or the proof is wrong)
//! and everything else (I/O, usage, a missing tablebase, a failing proof source).

use std::fmt;
use std::io;

/// A node of a proof, named for people: its number (preorder position in the file, the
/// root is 0) and the moves that reach it from the root (or from the standard start
/// position when the proof has a prolog).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeLabel {
    /// Preorder number of the node in the file (root = 0).
    pub number: u64,
    /// Movetext from the root, e.g. `1. e3 b5 2. Bxb5` (empty for the root).
    pub path: String,
}

impl fmt::Display for NodeLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "node {} (the root)", self.number)
        } else {
            write!(f, "node {} ({})", self.number, self.path)
        }
    }
}

/// Errors of `antichess-proof`.
#[derive(Debug)]
#[non_exhaustive]
pub enum ProofError {
    /// Reading or writing a file failed.
    Io { context: String, source: io::Error },
    /// The file does not start with the magic bytes of the format expected.
    BadMagic { found: Vec<u8> },
    /// The file is in neither format (no compact magic, and no reference-format header
    /// node that fits its length): some other file given by mistake.
    NotAProof { detail: String },
    /// A compact-format file of a version this program does not read.
    UnsupportedVersion { found: u16, supported: u16 },
    /// The file is damaged or malformed at a byte offset (truncated, checksum mismatch,
    /// impossible field value).
    Corrupt { offset: u64, message: String },
    /// A count in the header does not match what the body contains.
    CountMismatch {
        what: &'static str,
        header: u64,
        found: u64,
    },
    /// The proof is wrong at a node (illegal move, missing move, leaf that is not a win,
    /// bad reference, ...).
    Rejected { node: NodeLabel, reason: String },
    /// A proof's index file (`crate::disk_index`) is damaged, of another version, or not
    /// the index of the proof it is opened for: it is never used, and is built again.
    BadIndex { message: String },
    /// The proof has tablebase leaves that the available tables cannot check.
    NeedTablebases {
        /// Tablebase leaves in the proof (0 when not known before the first one is met).
        leaves: u64,
        /// Units (pieces, kings included) the proof relies on.
        units: u32,
        /// Units the available tables cover (0: none).
        available: u32,
    },
    /// A proof source (the solver side of the builder) failed at a node.
    Source { node: NodeLabel, message: String },
    /// A leaf oracle (tablebase) failed at a node; not a verdict on the proof.
    Oracle { node: NodeLabel, message: String },
    /// The request cannot be carried out (e.g. a tree too large for the reference format).
    Unsupported(String),
    /// Child proofs that do not make the proof of a parent (a missing move, a proof of
    /// another position, other rules or another prover).
    Join(String),
}

impl ProofError {
    /// Whether this error is a verdict that the file or the proof in it is bad (the
    /// verifier's "rejected"), as opposed to I/O trouble, a usage error, missing tables or
    /// a failing proof source.
    #[must_use]
    pub fn is_rejection(&self) -> bool {
        matches!(
            self,
            ProofError::BadMagic { .. }
                | ProofError::NotAProof { .. }
                | ProofError::UnsupportedVersion { .. }
                | ProofError::Corrupt { .. }
                | ProofError::CountMismatch { .. }
                | ProofError::Rejected { .. }
        )
    }

    /// The node an error names, if it names one.
    #[must_use]
    pub fn node(&self) -> Option<&NodeLabel> {
        match self {
            ProofError::Rejected { node, .. }
            | ProofError::Source { node, .. }
            | ProofError::Oracle { node, .. } => Some(node),
            _ => None,
        }
    }

    pub(crate) fn io(context: impl Into<String>, source: io::Error) -> ProofError {
        ProofError::Io {
            context: context.into(),
            source,
        }
    }

    pub(crate) fn corrupt(offset: u64, message: impl Into<String>) -> ProofError {
        ProofError::Corrupt {
            offset,
            message: message.into(),
        }
    }
}

impl fmt::Display for ProofError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProofError::Io { context, source } => write!(f, "{context}: {source}"),
            ProofError::BadMagic { found } => write!(
                f,
                "not a proof file of the expected format: bad magic bytes {}",
                hex(found)
            ),
            ProofError::NotAProof { detail } => {
                write!(f, "not an antichess proof file ({detail})")
            }
            ProofError::UnsupportedVersion { found, supported } => write!(
                f,
                "unsupported proof format version {found} (this program reads versions 1 to {supported})"
            ),
            ProofError::Corrupt { offset, message } => {
                write!(f, "corrupt proof file at byte offset {offset}: {message}")
            }
            ProofError::CountMismatch {
                what,
                header,
                found,
            } => write!(
                f,
                "header count mismatch: the header says {header} {what}, the body has {found}"
            ),
            ProofError::Rejected { node, reason } => write!(f, "{node}: {reason}"),
            ProofError::BadIndex { message } => write!(f, "proof index: {message}"),
            ProofError::NeedTablebases {
                leaves,
                units,
                available,
            } => {
                write!(f, "tablebase leaves cannot be checked without tables")?;
                if *leaves > 0 {
                    write!(f, " (the proof has {leaves} tablebase leaves")?;
                } else {
                    write!(f, " (the proof has tablebase leaves")?;
                }
                if *units > 0 {
                    write!(f, " of up to {units} units")?;
                }
                if *available > 0 {
                    write!(f, "; the tables cover up to {available} units")?;
                }
                write!(f, ")")
            }
            ProofError::Source { node, message } => {
                write!(f, "{node}: the proof source failed: {message}")
            }
            ProofError::Oracle { node, message } => {
                write!(f, "{node}: the tablebase failed: {message}")
            }
            ProofError::Unsupported(message) | ProofError::Join(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for ProofError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ProofError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    let mut out = String::new();
    for b in bytes {
        out.push_str(&format!("{b:02x}"));
    }
    if out.is_empty() {
        out.push_str("(none: the file is empty)");
    }
    out
}
