//! `book prove` whole: [`book_prove`] checks that the book can give what is asked (its
//! root won, unless only the solved subtrees are), writes the solved subtrees near the
//! root first if asked ([`super::prove::write_subtrees`]), then the proof of the root if
//! it is won and a file is asked for ([`super::prove::prove_book`]); the leaves' proofs
//! are kept in a directory (by default beside the output, removed once the proof
//! verifies) so that a run stopped midway goes on where it was. One outcome, whose
//! reports the CLI prints as text or JSON.

use std::fmt;
use std::path::PathBuf;

use antichess_tb::Tablebase;

use super::prove::{prove_book, write_subtrees, NoProofReport, ProofFileReport, SubtreeReport};
use crate::error::BookError;
use crate::node::{Node, Status};
use crate::prove::{AssembleOptions, ProveEvent};
use crate::store::redact;
use crate::Book;

/// What [`book_prove`] does.
#[derive(Debug, Clone)]
pub struct BookProveOptions {
    /// The assembly's options; `leaf_dir` `None` is the default directory
    /// ([`BookProveOptions::leaf_dir`]), removed once the proof verifies.
    pub assemble: AssembleOptions,
    /// The proof file of the root (`None`: only the subtrees).
    pub output: Option<PathBuf>,
    /// Where the solved subtrees' proofs go (`None`: not written).
    pub subtrees: Option<PathBuf>,
    /// How deep below the root the subtrees are looked for, in plies.
    pub subtree_depth: u32,
}

impl BookProveOptions {
    /// Where the re-solved leaves' proofs are kept: the one given, else OUTPUT.leaves,
    /// else SUBTREES/leaves.
    #[must_use]
    pub fn leaf_dir(&self) -> PathBuf {
        if let Some(dir) = &self.assemble.leaf_dir {
            return dir.clone();
        }
        match (&self.output, &self.subtrees) {
            (Some(output), _) => {
                let mut name = output.clone().into_os_string();
                name.push(".leaves");
                PathBuf::from(name)
            }
            (None, Some(dir)) => dir.join("leaves"),
            (None, None) => PathBuf::from("leaves"),
        }
    }
}

/// What [`book_prove`] tells as it goes.
#[derive(Debug)]
pub enum BookProveEvent<'a> {
    /// A leaf re-solved, or the minimisation's state.
    Assembly(ProveEvent),
    /// The solved subtrees were written (before the root's proof, if any).
    SubtreesWritten(&'a [SubtreeReport]),
}

/// What [`book_prove`] came to.
#[derive(Debug)]
pub enum BookProveOutcome {
    /// A subtree's proof does not verify: the root's proof was not attempted.
    SubtreeRejected(Vec<SubtreeReport>),
    /// No proof of the root was written (it is not won, or none was asked for); the
    /// root's status.
    NoProof(NoProofReport, Status),
    /// The root's proof was written; the directory of the leaves' proofs.
    Proof(Box<ProofFileReport>, PathBuf),
}

/// An error of [`book_prove`], with the step it stopped in (`None`: before any).
#[derive(Debug)]
pub struct BookProveError {
    pub context: Option<String>,
    pub error: BookError,
}

impl fmt::Display for BookProveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.context {
            Some(context) => f.write_str(context),
            None => self.error.fmt(f),
        }
    }
}

impl std::error::Error for BookProveError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.context {
            Some(_) => Some(&self.error),
            None => self.error.source(),
        }
    }
}

/// `error` in the step `context` (`None`: before any).
fn in_step(context: Option<String>) -> impl FnOnce(BookError) -> BookProveError {
    move |error| BookProveError { context, error }
}

/// The root, refused when it is not won and only its proof is asked for (no `subtrees`):
/// [`book_prove`] checks it first, and a caller may before it builds tables.
///
/// # Errors
/// [`BookError::NotReady`] so; the store's.
pub fn check_root(book: &mut Book, subtrees: bool) -> Result<Node, BookError> {
    let root = book.root()?;
    if !root.status.is_win() && !subtrees {
        let number = |n: u32| {
            if n == crate::node::INF {
                "inf".to_string()
            } else {
                n.to_string()
            }
        };
        return Err(BookError::NotReady(format!(
            "the root of {} is not won yet (status {}, proof {}, disproof {}): grow it first",
            redact(book.location()),
            root.status,
            number(root.proof),
            number(root.disproof)
        )));
    }
    Ok(root)
}

/// Runs `book prove` on `book` (see the module documentation).
///
/// # Errors
/// The root is not won and only its proof is asked for; the subtrees' or the proof's
/// assembly fails (the step is named).
pub fn book_prove(
    book: &mut Book,
    tablebase: Option<&Tablebase>,
    options: &BookProveOptions,
    events: &mut dyn FnMut(BookProveEvent<'_>),
) -> Result<BookProveOutcome, BookProveError> {
    let root = check_root(book, options.subtrees.is_some()).map_err(in_step(None))?;
    let root_won = root.status.is_win();
    let shown = redact(book.location());
    let leaf_dir = options.leaf_dir();
    let mut assemble = options.assemble.clone();
    assemble.leaf_dir = Some(leaf_dir.clone());
    let mut subtrees = Vec::new();
    if let Some(dir) = &options.subtrees {
        subtrees = write_subtrees(
            book,
            tablebase,
            &assemble,
            dir,
            options.subtree_depth,
            &mut |e| events(BookProveEvent::Assembly(e)),
        )
        .map_err(in_step(Some(format!(
            "writing the solved subtrees of {shown}"
        ))))?;
        events(BookProveEvent::SubtreesWritten(&subtrees));
        if subtrees.iter().any(|s| !s.verified) {
            return Ok(BookProveOutcome::SubtreeRejected(subtrees));
        }
    }
    let Some(output) = options.output.as_ref().filter(|_| root_won) else {
        let status = book.root().map_err(in_step(None))?.status;
        let report = NoProofReport {
            subtrees,
            proof_file: None,
            root_won,
        };
        return Ok(BookProveOutcome::NoProof(report, status));
    };
    let remove = options.assemble.leaf_dir.is_none().then_some(&leaf_dir);
    let report = prove_book(
        book,
        tablebase,
        &assemble,
        output,
        remove,
        subtrees,
        &mut |e| {
            events(BookProveEvent::Assembly(e));
        },
    )
    .map_err(in_step(Some(format!("proving {shown}"))))?;
    Ok(BookProveOutcome::Proof(Box::new(report), leaf_dir))
}
