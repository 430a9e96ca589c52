//! Moving nodes between books: `antichess book export` (cut a subtree out), `import`
//! (splice it back) and `copy` (a whole book between stores): arguments to
//! [`antichess_book::jobs::transfer`], its reports printed.

use std::io::IsTerminal;
use std::process::ExitCode;

use antichess_book::jobs::transfer::{copy, export_subtree, import_subtree};
use antichess_book::{redact, Book};
use anyhow::Context;
use clap::Args;
use indicatif::ProgressBar;

use crate::common::book::{moves_from_root, open};
use crate::common::output::{print_report, Format};
use crate::common::progress::stderr_bar;

/// Cut the subtree at a node into a book of its own (to grow it elsewhere and import it
/// back).
#[derive(Debug, Args)]
pub struct ExportArgs {
    pub book: String,

    /// The node: moves from the book's root.
    #[arg(long, value_name = "MOVES", allow_hyphen_values = true)]
    pub moves: String,

    /// The new book: a file or a postgres:// URL.
    #[arg(short, long, value_name = "BOOK")]
    pub output: String,
    /// Output format: text, or a JSON object saying what was done.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

/// Splice a book cut with `export` back in (merging what both know).
#[derive(Debug, Args)]
pub struct ImportArgs {
    pub book: String,

    /// The book to splice in.
    pub sub_book: String,

    /// Where it goes: moves from the book's root (default: where it was cut from).
    #[arg(long, value_name = "MOVES", allow_hyphen_values = true)]
    pub moves: Option<String>,
    /// Output format: text, or a JSON object saying what was done.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

/// Copy a whole book to a new location, between SQLite files and PostgreSQL databases in
/// either direction (all nodes in id order, the queue, the search log, the metadata; not
/// the claims of running workers). The destination must not hold a book.
#[derive(Debug, Args)]
pub struct CopyArgs {
    /// The book to copy (a file or a postgres:// URL).
    pub source: String,

    /// The new book (a file or a postgres:// URL).
    pub destination: String,
    /// Output format: text, or a JSON object saying what was done.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

pub fn run_export(args: &ExportArgs) -> anyhow::Result<ExitCode> {
    let mut book = open(&args.book)?;
    let moves = moves_from_root(&book, Some(&args.moves))?;
    print_report(
        &export_subtree(&mut book, &moves, &args.output)?,
        args.format,
    )
}

pub fn run_import(args: &ImportArgs) -> anyhow::Result<ExitCode> {
    let mut book = Book::open_for_writing(&args.book)?;
    let moves = match &args.moves {
        Some(text) => Some(moves_from_root(&book, Some(text))?),
        None => None,
    };
    let r = import_subtree(&mut book, &args.sub_book, moves.as_deref())?;
    print_report(&r, args.format)
}

pub fn run_copy(args: &CopyArgs) -> anyhow::Result<ExitCode> {
    let (from, to) = (redact(&args.source), redact(&args.destination));
    let bar = if std::io::stderr().is_terminal() {
        stderr_bar(
            Some(0),
            "{spinner} copying [{bar:30}] {pos}/{len} rows ({per_sec}, {eta} left)",
        )
    } else {
        ProgressBar::hidden()
    };
    let r = copy(&args.source, &args.destination, &mut |done, total| {
        bar.set_length(total);
        bar.set_position(done);
    })
    .with_context(|| format!("copying {from} to {to}"))?;
    bar.finish_and_clear();
    print_report(&r, args.format)
}
