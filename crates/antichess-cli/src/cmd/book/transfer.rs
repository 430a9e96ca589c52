//! Moving nodes between books: `antichess book export` (cut a subtree out), `import`
//! (splice it back) and `copy` (a whole book between stores).

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Instant;

use antichess_book::{copy_book, export, import, redact, Book};
use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::json;

use crate::common::book::{find, line_text, moves_from_root, open};
use crate::common::output::{json_number, number, Format};

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
    let node = find(&mut book, Some(&args.moves))?;
    let copied = export(&mut book, node.id, &args.output)?;
    if args.format == Format::Json {
        println!(
            "{}",
            json!({
                "book": redact(&args.book),
                "node": { "id": node.id, "line": line_text(&mut book, node.id)? },
                "nodes": copied,
                "output": redact(&args.output),
            })
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "exported node {} ({}) and its subtree: {} nodes into {}",
        node.id,
        line_text(&mut book, node.id)?,
        copied,
        redact(&args.output)
    );
    Ok(ExitCode::SUCCESS)
}

pub fn run_import(args: &ImportArgs) -> anyhow::Result<ExitCode> {
    let mut book = Book::open_for_writing(&args.book)?;
    let moves = match &args.moves {
        Some(text) => Some(moves_from_root(&book, Some(text))?),
        None => None,
    };
    let report = import(&mut book, &args.sub_book, moves.as_deref())?;
    let root = book.root()?;
    if args.format == Format::Json {
        println!(
            "{}",
            json!({
                "book": redact(&args.book),
                "sub_book": redact(&args.sub_book),
                "added": report.added,
                "updated": report.updated,
                "kept": report.kept,
                "root": {
                    "status": root.status.name(),
                    "proof": json_number(root.proof),
                    "disproof": json_number(root.disproof),
                },
            })
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "imported {}: {} nodes added, {} updated, {} kept; root: {} (proof {}, disproof {})",
        redact(&args.sub_book),
        report.added,
        report.updated,
        report.kept,
        root.status,
        number(root.proof),
        number(root.disproof)
    );
    Ok(ExitCode::SUCCESS)
}

pub fn run_copy(args: &CopyArgs) -> anyhow::Result<ExitCode> {
    let (from, to) = (redact(&args.source), redact(&args.destination));
    let bar = if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(0);
        bar.set_draw_target(ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} copying [{bar:30}] {pos}/{len} rows ({per_sec}, {eta} left)",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    let start = Instant::now();
    let report = copy_book(&args.source, &args.destination, &mut |done, total| {
        bar.set_length(total);
        bar.set_position(done);
    })
    .with_context(|| format!("copying {from} to {to}"))?;
    bar.finish_and_clear();
    if args.format == Format::Json {
        println!(
            "{}",
            json!({
                "source": from,
                "destination": to,
                "nodes": report.nodes,
                "searches": report.searches,
                "queued": report.queued,
                "meta": report.meta,
                "seconds": start.elapsed().as_secs_f64(),
            })
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "copied {from} to {to}: {} nodes, {} search log entries, {} queued, {} meta entries in {:.1} s",
        report.nodes,
        report.searches,
        report.queued,
        report.meta,
        start.elapsed().as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}
