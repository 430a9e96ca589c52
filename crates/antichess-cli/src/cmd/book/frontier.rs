//! `antichess book save-frontier` and `load-frontier`: a book's state in one small file
//! (its open nodes with their numbers and work, its lost leaves, and the proofs of its won
//! subtrees), to carry a line across runs, machines and fresh checkouts. The logic is
//! `antichess_book::frontier`'s; the format is docs/formats/frontier.md.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use antichess_book::frontier::{load_frontier, save_frontier, FrontierEvent};
use antichess_book::jobs::frontier::{FrontierLoaded, FrontierSaved};
use antichess_book::text::frontier::{loaded_line, saved_line};
use antichess_book::{redact, AssembleOptions};
use clap::Args;

use crate::common::args::SearchTables;
use crate::common::book::open;
use crate::common::output::{print_json_pretty, Format};
use crate::common::parse::{parse_nodes, parse_size};

/// Write a book's frontier to one file: every node not inside a decided subtree (numbers,
/// positions searched, searches), lost leaves, and the proof of every won subtree
/// whose parent is not won. `load-frontier` (or `prove --frontier`) builds a book from it
/// on any machine, verifying each proof.
#[derive(Debug, Args)]
pub struct SaveFrontierArgs {
    pub book: String,

    /// The frontier file to write (replaced atomically).
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,

    #[command(flatten)]
    pub tables: SearchTables,

    /// Where the book's workers kept their leaf proofs (default: BOOK.leaves, as `prove`
    /// and `book grow --keep-proofs` write them beside a book file).
    #[arg(long, value_name = "DIR")]
    pub leaf_dir: Option<PathBuf>,

    /// Node budget of a leaf whose proof was not kept (it is searched again); a won
    /// subtree with a leaf that is not proved within it is written as an open node.
    #[arg(long, value_name = "N", default_value = "20M", value_parser = parse_nodes)]
    pub leaf_nodes: u64,

    /// Transposition table of that search (one is made for each won subtree): MB, or with
    /// a unit (512M, 4G).
    #[arg(long, value_name = "SIZE", default_value = "64M", value_parser = parse_size)]
    pub hash: usize,

    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

/// Build a new book from a frontier file (`save-frontier`, `prove --frontier`), taking its
/// proofs as seeds (each verified with the tables given; one that does not verify leaves
/// its node open).
#[derive(Debug, Args)]
pub struct LoadFrontierArgs {
    /// The frontier file.
    pub file: PathBuf,

    /// The book to create: a file (SQLite) or a postgres:// URL.
    #[arg(short, long, value_name = "BOOK")]
    pub output: String,

    #[command(flatten)]
    pub tables: SearchTables,

    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

/// A progress line on a terminal (every 50 proofs, and the last), for saves and loads.
pub fn progress(terminal: bool) -> impl FnMut(FrontierEvent) {
    move |e| {
        let (done, total, what) = match e {
            FrontierEvent::Proved { done, total } => (done, total, "won subtrees proved"),
            FrontierEvent::Seeded { done, total } => (done, total, "proofs verified and seeded"),
        };
        if terminal && (done % 50 == 0 || done == total) {
            eprint!("\rfrontier: {done} of {total} {what}");
            if done == total {
                eprintln!();
            }
        }
    }
}

pub fn run_save(args: &SaveFrontierArgs) -> anyhow::Result<ExitCode> {
    let json_out = args.format == Format::Json;
    let mut book = open(&args.book)?;
    let tablebase = args.tables.open(book.meta().rules, json_out)?;
    let leaf_dir = args
        .leaf_dir
        .clone()
        .unwrap_or_else(|| antichess_book::leaves::leaf_dir(Path::new(&args.book)));
    let options = AssembleOptions {
        hash_bytes: args.hash,
        leaf_nodes: Some(args.leaf_nodes),
        tablebase_units: tablebase
            .as_ref()
            .map_or(0, antichess_tb::Tablebase::max_units),
        leaf_dir: Some(leaf_dir),
        ..AssembleOptions::default()
    };
    let mut progress = progress(std::io::stderr().is_terminal());
    let report = save_frontier(
        &mut book,
        tablebase.as_ref(),
        &options,
        &args.output,
        &mut progress,
    )?;
    if json_out {
        print_json_pretty(&FrontierSaved {
            book: redact(&args.book),
            output: args.output.display().to_string(),
            report,
        })?;
    } else {
        println!("{}", saved_line(&args.output, &report));
    }
    Ok(ExitCode::SUCCESS)
}

pub fn run_load(args: &LoadFrontierArgs) -> anyhow::Result<ExitCode> {
    let json_out = args.format == Format::Json;
    let header = antichess_book::frontier::read_header(&args.file)?;
    let tablebase = args.tables.open(header.rules, json_out)?;
    let mut progress = progress(std::io::stderr().is_terminal());
    let report = load_frontier(&args.file, &args.output, tablebase.as_ref(), &mut progress)?;
    if json_out {
        print_json_pretty(&FrontierLoaded {
            file: args.file.display().to_string(),
            book: redact(&args.output),
            report,
        })?;
    } else {
        println!("{}", loaded_line(&args.file, &args.output, &report));
    }
    Ok(ExitCode::SUCCESS)
}
