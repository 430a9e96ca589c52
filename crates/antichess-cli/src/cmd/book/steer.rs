//! Steering a book by hand: `antichess book queue`, `pin` and `mark`.

use std::process::ExitCode;

use clap::{Args, ValueEnum};
use serde_json::json;

use antichess_book::{redact, Book};

use crate::common::book::{find, line_text, moves_from_root};
use crate::common::output::{json_number, number, Format};

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
        let line = moves_from_root(&book, Some(moves))?;
        let (node, ahead) = book.queue_line(&line)?;
        let ahead: Vec<String> = ahead.iter().map(|m| m.to_uci()).collect();
        if !json_out {
            println!(
                "queued node {}: {}{}",
                node.id,
                line_text(&mut book, node.id)?,
                then_text(&mut book, node.id, &ahead)?
            );
        }
        queued = Some((node.id, ahead));
    }
    let queue = book.queue_lines()?;
    if json_out {
        let with_line = |book: &mut Book, id: i64, ahead: &[String]| {
            node_json(book, id).map(|mut v| {
                v["then"] = json!(ahead.join(" "));
                v
            })
        };
        let queued = queued
            .map(|(id, ahead)| with_line(&mut book, id, &ahead))
            .transpose()?;
        let entries = queue
            .iter()
            .map(|(q, ahead)| with_line(&mut book, q.node, ahead))
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
    for (q, ahead) in queue {
        println!(
            "  node {}: {}{}",
            q.node,
            line_text(&mut book, q.node)?,
            then_text(&mut book, q.node, &ahead)?
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The moves a queued line still goes on along from node `id` (UCI), for the text output:
/// in SAN with move numbers.
fn then_text(book: &mut Book, id: i64, ahead: &[String]) -> anyhow::Result<String> {
    if ahead.is_empty() {
        return Ok(String::new());
    }
    let node = book.node(id)?;
    let start = book.position(&node)?;
    let mut pos = start;
    let mut moves = Vec::new();
    for uci in ahead {
        let mv = pos
            .parse_uci(uci)
            .map_err(|e| anyhow::anyhow!("queued line of node {id}: {uci}: {e}"))?;
        pos = pos.play(mv);
        moves.push(mv);
    }
    Ok(format!(
        " (then {}, as the book grows)",
        antichess_core::pgn::format_moves(&start, &moves)
    ))
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
