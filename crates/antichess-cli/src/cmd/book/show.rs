//! `antichess book show` (a node and its children, with the book's counts) and `antichess
//! book check` (the book's structure): arguments to [`antichess_book::jobs::show`], its
//! reports printed.

use std::process::ExitCode;

use antichess_book::jobs::show::{check_book, show_node};
use antichess_book::Book;
use clap::Args;

use crate::common::args::read_hints;
use crate::common::book::moves_from_root;
use crate::common::output::{exit_code, print_lines, Format};

/// Show a node (default: the root) and its children with numbers, ratio, status and
/// subtree estimate, and the book's counts.
#[derive(Debug, Args)]
pub struct ShowArgs {
    pub book: String,

    /// The node: moves from the book's root.
    #[arg(long, value_name = "MOVES", allow_hyphen_values = true)]
    pub moves: Option<String>,

    /// Also give, for the node and each child, the proof number of the record's tree below
    /// it: the prover plays the move this hints file names (docs/formats/hints.md) wherever
    /// it is open, else the most-proving move (the work left on the record's line, which
    /// the book's own proof number hides while other prover moves are untried).
    #[arg(long, value_name = "FILE")]
    pub hints: Option<std::path::PathBuf>,

    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

/// Check a book: first the store's own integrity check (SQLite's `PRAGMA
/// integrity_check`; PostgreSQL's index and constraint state, and `amcheck` if
/// installed), then its structure (parent links, leases, children are the legal moves,
/// numbers agree with the minimax, transpositions point to won twins). Exit code 1 if
/// anything is wrong. Opens the book read-only.
///
/// In JSON: `book`, `sound`, `nodes`, `integrity_check` (what it covered) and `problems`
/// (one text per problem).
#[derive(Debug, Args)]
pub struct CheckArgs {
    pub book: String,

    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

pub fn run_show(args: &ShowArgs) -> anyhow::Result<ExitCode> {
    let mut book = Book::open_read_only(&args.book)?;
    let moves = moves_from_root(&book, args.moves.as_deref())?;
    let hints = match &args.hints {
        Some(path) => Some(read_hints(path, book.meta().rules, book.meta().prover)?),
        None => None,
    };
    print_lines(&show_node(&mut book, &moves, hints.as_ref())?, args.format)
}

pub fn run_check(args: &CheckArgs) -> anyhow::Result<ExitCode> {
    let mut book = Book::open_read_only(&args.book)?;
    let report = check_book(&mut book)?;
    print_lines(&report, args.format)?;
    Ok(exit_code(report.sound))
}
