//! Steering a book by hand: `antichess book queue`, `pin` and `mark`.

use std::process::ExitCode;

use clap::{Args, ValueEnum};
use serde_json::json;

use antichess_book::{redact, Book};

use crate::common::book::{find, line_text};
use crate::common::output::{json_number, number, Format};

/// Queue a node to be searched (a leaf) or walked from (an inner node) before the normal
/// selection; or list or clear the queue.
#[derive(Debug, Args)]
pub struct QueueArgs {
    pub book: String,

    /// The node to queue: moves from the book's root.
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MarkArg {
    /// The book's prover wins here (`book prove` still re-solves the node).
    Win,
    /// The prover does not win here: the book looks for a win elsewhere (e.g. mark the
    /// move a proof uses as lost to see whether another move wins too).
    Loss,
    /// Remove the mark.
    None,
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
    pub as_: MarkArg,
    /// Output format: text, or a JSON object saying what was done.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

/// A node as JSON: its id and its line from the root.
fn node_json(book: &mut Book, id: i64) -> anyhow::Result<serde_json::Value> {
    Ok(json!({ "id": id, "line": line_text(book, id)? }))
}

pub fn run_queue(args: &QueueArgs) -> anyhow::Result<ExitCode> {
    let json_out = args.format == Format::Json;
    let mut book = Book::open_for_writing(&args.book)?;
    let mut queued = None;
    if args.clear {
        book.queue_clear()?;
        if !json_out {
            println!("queue cleared");
            return Ok(ExitCode::SUCCESS);
        }
    } else if let Some(moves) = &args.moves {
        let node = find(&mut book, Some(moves))?;
        book.queue_push(node.id)?;
        if !json_out {
            println!(
                "queued node {}: {}",
                node.id,
                line_text(&mut book, node.id)?
            );
        }
        queued = Some(node.id);
    }
    let queue = book.queue()?;
    if json_out {
        let queued = queued.map(|id| node_json(&mut book, id)).transpose()?;
        let entries = queue
            .iter()
            .map(|q| node_json(&mut book, q.node))
            .collect::<anyhow::Result<Vec<_>>>()?;
        println!(
            "{}",
            json!({
                "book": redact(&args.book),
                "cleared": args.clear,
                "queued": queued,
                "queue": entries,
            })
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "queue: {} entr{}",
        queue.len(),
        if queue.len() == 1 { "y" } else { "ies" }
    );
    for q in queue {
        println!("  node {}: {}", q.node, line_text(&mut book, q.node)?);
    }
    Ok(ExitCode::SUCCESS)
}

pub fn run_pin(args: &PinArgs) -> anyhow::Result<ExitCode> {
    let mut book = Book::open_for_writing(&args.book)?;
    let pinned = if args.clear {
        book.pin(None)?;
        None
    } else {
        let node = find(&mut book, args.moves.as_deref())?;
        book.pin(Some(node.id))?;
        Some(node.id)
    };
    if args.format == Format::Json {
        let pin = pinned.map(|id| node_json(&mut book, id)).transpose()?;
        println!("{}", json!({ "book": redact(&args.book), "pin": pin }));
        return Ok(ExitCode::SUCCESS);
    }
    match pinned {
        None => println!("pin cleared: the walk starts at the root"),
        Some(id) => println!(
            "the walk starts at node {id}: {}",
            line_text(&mut book, id)?
        ),
    }
    Ok(ExitCode::SUCCESS)
}

pub fn run_mark(args: &MarkArgs) -> anyhow::Result<ExitCode> {
    let mut book = Book::open_for_writing(&args.book)?;
    let node = find(&mut book, Some(&args.moves))?;
    let win = match args.as_ {
        MarkArg::Win => Some(true),
        MarkArg::Loss => Some(false),
        MarkArg::None => None,
    };
    let node = book.mark(node.id, win)?;
    let root = book.root()?;
    if args.format == Format::Json {
        let mut marked = node_json(&mut book, node.id)?;
        marked["status"] = json!(node.status.name());
        marked["marked"] = json!(node.marked);
        println!(
            "{}",
            json!({
                "book": redact(&args.book),
                "node": marked,
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
        "node {} ({}) is now {}; root: {} (proof {}, disproof {})",
        node.id,
        line_text(&mut book, node.id)?,
        node.status,
        root.status,
        number(root.proof),
        number(root.disproof)
    );
    Ok(ExitCode::SUCCESS)
}
