//! Steering a book by hand: `antichess book queue`, `pin` and `mark`: arguments to
//! [`antichess_book::jobs::steer`], its reports printed.

use std::process::ExitCode;

use clap::Args;

use antichess_book::jobs::steer::{self, queue_text, Mark, QueueAction};
use antichess_book::Book;

use crate::common::book::moves_from_root;
use crate::common::output::{print_json, print_report, Format};

/// Queue a node to be searched (a leaf) or walked from (an inner node) before the normal
/// selection; or list or clear the queue. A queued line may go beyond the book (the known
/// first moves of a line): the book grows along it first.
#[derive(Debug, Args)]
pub struct QueueArgs {
    pub book: String,

    /// The node to queue: moves from the book's root. Moves past the book's end are
    /// allowed: the entry goes to the leaf where the book ends on the line, and each
    /// search there moves it on along the rest of the line.
    #[arg(long, value_name = "MOVES", allow_hyphen_values = true)]
    pub moves: Option<String>,

    /// Empty the queue.
    #[arg(long, conflicts_with = "moves")]
    pub clear: bool,
    /// Output format: text, or a JSON object saying what was done.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

/// Pin the walk's start to a node, or --clear the pin (the walk starts at the root).
#[derive(Debug, Args)]
pub struct PinArgs {
    pub book: String,

    /// The node: moves from the book's root.
    #[arg(
        long,
        value_name = "MOVES",
        allow_hyphen_values = true,
        required_unless_present = "clear"
    )]
    pub moves: Option<String>,

    #[arg(long, conflicts_with = "moves")]
    pub clear: bool,
    /// Output format: text, or a JSON object saying what was done.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

/// Mark a node as won or lost by your judgement (it is no longer searched and counts as
/// decided), or remove the mark. A proof still re-solves marked wins.
#[derive(Debug, Args)]
pub struct MarkArgs {
    pub book: String,

    /// The node: moves from the book's root.
    #[arg(long, value_name = "MOVES", allow_hyphen_values = true)]
    pub moves: String,

    /// Your judgement of the node, from the side of the book's prover.
    #[arg(long = "as", value_enum)]
    pub as_: Mark,
    /// Output format: text, or a JSON object saying what was done.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

pub fn run_queue(args: &QueueArgs) -> anyhow::Result<ExitCode> {
    let mut book = Book::open_for_writing(&args.book)?;
    let action = match &args.moves {
        _ if args.clear => QueueAction::Clear,
        Some(moves) => QueueAction::Push(moves_from_root(&book, Some(moves))?),
        None => QueueAction::List,
    };
    let report = steer::queue(&mut book, &action)?;
    if args.format == Format::Json {
        print_json(&report)?;
    } else {
        print!("{}", queue_text(&mut book, &report)?);
    }
    Ok(ExitCode::SUCCESS)
}

pub fn run_pin(args: &PinArgs) -> anyhow::Result<ExitCode> {
    let mut book = Book::open_for_writing(&args.book)?;
    let moves = if args.clear {
        None
    } else {
        Some(moves_from_root(&book, args.moves.as_deref())?)
    };
    print_report(&steer::pin(&mut book, moves.as_deref())?, args.format)
}

pub fn run_mark(args: &MarkArgs) -> anyhow::Result<ExitCode> {
    let mut book = Book::open_for_writing(&args.book)?;
    let moves = moves_from_root(&book, Some(&args.moves))?;
    print_report(&steer::mark(&mut book, &moves, args.as_)?, args.format)
}
