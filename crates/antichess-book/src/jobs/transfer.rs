//! Moving nodes between books as jobs: `book export` (a subtree cut into a book of its
//! own), `book import` (spliced back) and `book copy` (a whole book between stores), each
//! returning one report.

use std::time::Instant;

use antichess_core::Move;

use crate::error::Result;
use crate::jobs::{NodeRef, Numbers};
use crate::store::redact;
use crate::transfer::{copy_book, export, import};
use crate::Book;

/// What `book export` reports.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ExportReport {
    pub book: String,
    /// The node cut out.
    pub node: NodeRef,
    /// Nodes written to the new book.
    pub nodes: u64,
    pub output: String,
}

/// Cuts the subtree at `moves` from the root of `book` into a new book at `output`.
///
/// # Errors
/// A move that leaves the book; a book already at `output`; the stores'.
pub fn export_subtree(book: &mut Book, moves: &[Move], output: &str) -> Result<ExportReport> {
    let node = book.find(moves)?;
    let nodes = export(book, node.id, output)?;
    Ok(ExportReport {
        book: book.shown(),
        node: NodeRef::of(book, node.id)?,
        nodes,
        output: redact(output),
    })
}

/// What `book import` reports.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ImportJobReport {
    pub book: String,
    pub sub_book: String,
    pub added: u64,
    pub updated: u64,
    pub kept: u64,
    /// The root after the import.
    pub root: Numbers,
}

/// Splices the book at `sub_book` into `book` at `at` (moves from the root; `None`: where
/// it was cut from).
///
/// # Errors
/// Books of other rules or provers, a place that does not fit; the stores'.
pub fn import_subtree(
    book: &mut Book,
    sub_book: &str,
    at: Option<&[Move]>,
) -> Result<ImportJobReport> {
    let report = import(book, sub_book, at)?;
    let root = book.root()?;
    Ok(ImportJobReport {
        book: book.shown(),
        sub_book: redact(sub_book),
        added: report.added,
        updated: report.updated,
        kept: report.kept,
        root: Numbers::of(&root),
    })
}

/// What `book copy` reports.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CopyJobReport {
    pub source: String,
    pub destination: String,
    pub nodes: u64,
    /// Search log entries.
    pub searches: u64,
    pub queued: u64,
    /// Meta entries.
    pub meta: u64,
    pub seconds: f64,
}

/// Copies the book at `source` to a new book at `destination`; `on_rows` gets (rows copied,
/// rows in all) after each page.
///
/// # Errors
/// A book already at `destination`; the stores'.
pub fn copy(
    source: &str,
    destination: &str,
    on_rows: &mut dyn FnMut(u64, u64),
) -> Result<CopyJobReport> {
    let start = Instant::now();
    let report = copy_book(source, destination, on_rows)?;
    Ok(CopyJobReport {
        source: redact(source),
        destination: redact(destination),
        nodes: report.nodes,
        searches: report.searches,
        queued: report.queued,
        meta: report.meta,
        seconds: start.elapsed().as_secs_f64(),
    })
}
