//! The crate's error type: every variant says which book, node or input it is about, so
//! that a user can see what to fix.

use std::fmt;

/// What went wrong with a book.
#[derive(Debug)]
pub enum BookError {
    /// No book at this location.
    Missing(String),
    /// The file exists but is not a book (not SQLite, or no book metadata).
    NotABook { location: String, reason: String },
    /// A book is already there (`new` refuses to overwrite it).
    Exists(String),
    /// The location names a store that cannot do what was asked.
    UnsupportedLocation(String),
    /// The book was written by a newer or unknown format version.
    Version { location: String, found: String },
    /// Two books (or a book and its tables) disagree on the rule set or the prover.
    Mismatch(String),
    /// A position, move or node given by the user is not valid or not in the book.
    Input(String),
    /// The book's content is inconsistent (a corrupt row, a bad FEN or move in a node).
    Corrupt(String),
    /// The store's own integrity check failed (a damaged file): a writer refuses it.
    Damaged {
        location: String,
        problems: Vec<String>,
    },
    /// The book cannot do this yet (e.g. prove an unproven root).
    NotReady(String),
    /// Building, writing or verifying the proof failed.
    Proof(String),
    /// The user stopped the work (Ctrl-C); the message says what was kept.
    Interrupted(String),
    /// The database failed.
    Sql {
        context: String,
        source: rusqlite::Error,
    },
    /// The PostgreSQL database failed (or could not be reached).
    Postgres {
        context: String,
        source: postgres::Error,
    },
    /// Building or reading a tablebase failed.
    Tablebase(antichess_tb::TbError),
    /// A file operation failed.
    Io {
        context: String,
        source: std::io::Error,
    },
    /// A seed proof was not taken: it does not verify (`error.is_rejection()`: the file is
    /// not a proof in our compact format, is damaged, or proves nothing), or it cannot be
    /// checked here (a table it relies on is missing, a table failed).
    Seed {
        /// The proof file (or where its bytes came from).
        file: String,
        error: antichess_proof::ProofError,
    },
}

impl From<antichess_tb::TbError> for BookError {
    fn from(e: antichess_tb::TbError) -> BookError {
        BookError::Tablebase(e)
    }
}

impl BookError {
    pub(crate) fn sql(context: impl Into<String>) -> impl FnOnce(rusqlite::Error) -> BookError {
        let context = context.into();
        move |source| BookError::Sql { context, source }
    }

    pub(crate) fn pg(context: impl Into<String>) -> impl FnOnce(postgres::Error) -> BookError {
        let context = context.into();
        move |source| BookError::Postgres { context, source }
    }

    /// Whether the same operation may succeed if tried again (after reconnecting): the
    /// store could not be reached or lost the connection (a PostgreSQL server restarting
    /// or failing over, a network failure), or a SQLite book stayed locked by another
    /// writer for longer than the busy timeout (the transaction was rolled back, so
    /// trying it again is safe: a 2.8 M-node book's worker once waited out the timeout
    /// behind the other worker's long write, and the run stopped). Errors the server
    /// answered (a constraint, a missing table, bad credentials, a missing database) are
    /// not, and neither is any other SQLite error.
    #[must_use]
    pub fn is_transient(&self) -> bool {
        match self {
            BookError::Postgres { source, .. } => pg_transient(source),
            BookError::Sql { source, .. } => sqlite_busy(source),
            _ => false,
        }
    }
}

impl BookError {
    /// Whether a SQLite book was locked by another writer past the busy timeout (one of
    /// the [`BookError::is_transient`] errors): the other writer is alive and working, so
    /// a grow's worker waits longer for it than for a store that cannot be reached.
    #[must_use]
    pub fn is_busy(&self) -> bool {
        matches!(self, BookError::Sql { source, .. } if sqlite_busy(source))
    }
}

/// See [`BookError::is_transient`]: SQLite's `SQLITE_BUSY` (the lock not taken within the
/// busy timeout) or `SQLITE_LOCKED`.
fn sqlite_busy(e: &rusqlite::Error) -> bool {
    use rusqlite::ErrorCode::{DatabaseBusy, DatabaseLocked};
    matches!(e.sqlite_error_code(), Some(DatabaseBusy | DatabaseLocked))
}

/// See [`BookError::is_transient`]: a closed connection, a network I/O error anywhere in
/// the causes (refused, reset, unreachable, timed out, end of stream), or a server error of class 08
/// (connection exception), 57P01-57P03 (shutting down, crashed, starting up) or 53300
/// (too many connections, e.g. while other workers reconnect).
fn pg_transient(e: &postgres::Error) -> bool {
    if e.is_closed() {
        return true;
    }
    if let Some(code) = e.code() {
        let code = code.code();
        return code.starts_with("08") || matches!(code, "57P01" | "57P02" | "57P03" | "53300");
    }
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        if let Some(io) = c.downcast_ref::<std::io::Error>() {
            use std::io::ErrorKind::*;
            // Not InvalidData: a TLS certificate the client refuses is not cured by waiting.
            return matches!(
                io.kind(),
                ConnectionRefused
                    | ConnectionReset
                    | ConnectionAborted
                    | NotConnected
                    | BrokenPipe
                    | TimedOut
                    | UnexpectedEof
                    | AddrNotAvailable
                    | HostUnreachable
                    | NetworkUnreachable
                    | NetworkDown
                    | Interrupted
            );
        }
        cause = c.source();
    }
    false
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BookError::Missing(location) => write!(
                f,
                "no book at {location} (create one with `antichess book new`)"
            ),
            BookError::NotABook { location, reason } => {
                write!(f, "{location} is not a book: {reason}")
            }
            BookError::Exists(location) => write!(
                f,
                "{location} already exists; choose another name or remove it first"
            ),
            BookError::UnsupportedLocation(location) => {
                write!(f, "{location}: not supported for this store")
            }
            BookError::Version { location, found } => write!(
                f,
                "{location}: book format version {found} is not supported (this build reads version {})",
                crate::format::FORMAT_VERSION
            ),
            BookError::Mismatch(m)
            | BookError::Input(m)
            | BookError::NotReady(m)
            | BookError::Proof(m)
            | BookError::Interrupted(m) => f.write_str(m),
            BookError::Corrupt(m) => write!(f, "corrupt book: {m}"),
            BookError::Damaged { location, problems } => {
                const SHOWN: usize = 3;
                write!(f, "{location} is damaged, so nothing was written to it: ")?;
                f.write_str(&problems[..problems.len().min(SHOWN)].join("; "))?;
                if problems.len() > SHOWN {
                    write!(f, "; and {} more", problems.len() - SHOWN)?;
                }
                f.write_str(" (`antichess book check` reports everything)")
            }
            BookError::Sql { context, source } => write!(f, "{context}: {source}"),
            BookError::Postgres { context, source } => {
                write!(f, "{context}: {}", pg_message(source))
            }
            BookError::Io { context, source } => write!(f, "{context}: {source}"),
            BookError::Tablebase(e) => write!(f, "{e}"),
            BookError::Seed { file, error } => match error {
                antichess_proof::ProofError::BadMagic { .. }
                | antichess_proof::ProofError::NotAProof { .. } => write!(
                    f,
                    "{file}: not a proof file in our compact format, which a seed must be \
                     (`antichess proof convert FILE OUT --to compact` converts a \
                     reference-format proof): {error}"
                ),
                _ if error.is_rejection() => {
                    write!(f, "{file}: the seed proof does not verify: {error}")
                }
                _ => write!(f, "{file}: the seed proof cannot be verified here: {error}"),
            },
        }
    }
}

impl std::error::Error for BookError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BookError::Sql { source, .. } => Some(source),
            // Display already includes the server's message (a chain would repeat it).
            BookError::Postgres { .. } => None,
            BookError::Io { source, .. } => Some(source),
            // Display is the tablebase error's own message.
            _ => None,
        }
    }
}

/// A PostgreSQL error with its causes (the server's message, or e.g. "error connecting
/// to server: Connection refused").
pub(crate) fn pg_message(e: &postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return db.to_string();
    }
    let mut text = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

/// The crate's result type.
pub type Result<T, E = BookError> = std::result::Result<T, E>;
