//! `book seed` and `book new` as jobs: proof files taken as given by a book, one by one
//! (those that cannot be taken here are skipped, those that are not sound proofs
//! rejected, the others seeded all the same), and the report of a new book, seeded or
//! not.

use std::path::PathBuf;

use antichess_tb::Tablebase;

use crate::error::{BookError, Result};
use crate::node::NodeId;
use crate::seed::seed_file;
use crate::Book;

/// One proof file taken.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Seeded {
    pub file: String,
    /// The seed's root position.
    pub fen: String,
    pub proof_nodes: u64,
    /// Book nodes of that position won by it now.
    pub won_now: u64,
    /// The book keeps a smaller proof of this position it had already.
    pub kept_earlier: bool,
}

/// One proof file not taken, and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct NotTaken {
    pub file: String,
    pub reason: String,
}

/// What seeding a list of files did: the proofs taken, the files skipped (they cannot be
/// taken here: a table they rely on is missing, they prove another prover's win or are
/// under other rules, they cannot be read) and the files rejected (they are not proofs in
/// our format, are damaged, or do not prove what they claim).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Seeding {
    pub seeds: Vec<Seeded>,
    pub skipped: Vec<NotTaken>,
    pub rejected: Vec<NotTaken>,
}

impl Seeding {
    /// Whether the command fails: a file was rejected, or files were given and none was
    /// taken.
    #[must_use]
    pub fn failed(&self) -> bool {
        !self.rejected.is_empty() || self.seeds.is_empty() && !self.skipped.is_empty()
    }
}

/// Seeds `book` with `files`, verified with `tablebase`: every file that can be taken is,
/// the others are listed with the reason (see [`Seeding`]).
///
/// # Errors
/// The book's store's (they stop the work, named `seeding <book>`).
pub fn seed_files(
    book: &mut Book,
    files: &[PathBuf],
    tablebase: Option<&Tablebase>,
) -> Result<Seeding> {
    let mut out = Seeding::default();
    for file in files {
        let not_taken = |e: &BookError| NotTaken {
            file: file.display().to_string(),
            reason: e.to_string(),
        };
        match seed_file(book, file, tablebase) {
            Ok(r) => out.seeds.push(Seeded {
                file: file.display().to_string(),
                fen: r.fen,
                proof_nodes: r.proof_nodes,
                won_now: r.won_now,
                kept_earlier: r.kept_earlier,
            }),
            Err(e @ BookError::Seed { .. }) => {
                if matches!(&e, BookError::Seed { error, .. } if error.is_rejection()) {
                    out.rejected.push(not_taken(&e));
                } else {
                    out.skipped.push(not_taken(&e));
                }
            }
            Err(e @ (BookError::Mismatch(_) | BookError::Io { .. })) => {
                out.skipped.push(not_taken(&e));
            }
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

/// What `book seed` reports.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SeedJobReport {
    pub book: String,
    #[serde(flatten)]
    pub seeding: Seeding,
    /// The root's status after seeding.
    pub root_status: String,
}

/// Seeds `book` with `files` (see [`seed_files`]) and reports the root's status after.
///
/// # Errors
/// The book's store's.
pub fn seed_job(
    book: &mut Book,
    files: &[PathBuf],
    tablebase: Option<&Tablebase>,
) -> Result<SeedJobReport> {
    let seeding = seed_files(book, files, tablebase)?;
    Ok(SeedJobReport {
        book: book.shown(),
        seeding,
        root_status: book.root()?.status.to_string(),
    })
}

/// What `book new` reports.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct NewReport {
    pub book: String,
    pub created: bool,
    pub root_fen: String,
    pub rules: String,
    pub prover: &'static str,
    /// The root node's id.
    pub root: NodeId,
    #[serde(flatten)]
    pub seeding: Seeding,
}

impl NewReport {
    /// The report of `book`, just created at `pos` and seeded as `seeding` says.
    ///
    /// # Errors
    /// The store's.
    pub fn of(
        book: &mut Book,
        pos: &antichess_core::Position,
        seeding: Seeding,
    ) -> Result<NewReport> {
        let root = book.root()?;
        Ok(NewReport {
            book: book.shown(),
            created: true,
            root_fen: pos.fen(),
            rules: pos.rules().to_string(),
            prover: book.meta().prover.name(),
            root: root.id,
            seeding,
        })
    }
}
