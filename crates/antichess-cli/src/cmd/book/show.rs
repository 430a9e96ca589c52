//! `antichess book show` (a node and its children, with the book's counts) and `antichess
//! book check` (the book's structure).

use std::process::ExitCode;

use antichess_book::{redact, Book, Node};
use clap::Args;
use serde_json::json;

use crate::common::book::{find, line_text, ratio_text};
use crate::common::output::{json_number, number, Format};

/// Show a node (default: the root) and its children with numbers, ratio, status and
/// subtree estimate, and the book's counts.
#[derive(Debug, Args)]
pub struct ShowArgs {
    pub book: String,

    /// The node: moves from the book's root.
    #[arg(long, value_name = "MOVES", allow_hyphen_values = true)]
    pub moves: Option<String>,

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

fn node_json(parent: Option<&antichess_core::Position>, n: &Node) -> serde_json::Value {
    let mv = parent.and_then(|p| n.move_from(p).ok());
    json!({
        "id": n.id,
        "uci": n.uci,
        "san": mv.zip(parent).map(|(m, p)| p.san(m)),
        "fen": n.fen,
        "status": n.status.name(),
        "proof": json_number(n.proof),
        "disproof": json_number(n.disproof),
        "ratio": if n.proof == 0 { json!("inf") } else { json!(n.ratio()) },
        "size": n.size,
        "searches": n.searches,
        "expanded": n.expanded,
        "transposition_of": n.same_as,
        "claimed_by": n.claimed_by,
    })
}

pub fn run_show(args: &ShowArgs) -> anyhow::Result<ExitCode> {
    let mut book = Book::open_read_only(&args.book)?;
    let node = find(&mut book, args.moves.as_deref())?;
    let pos = book.position(&node)?;
    let mut children = book.children(node.id)?;
    if node.prover_to_move {
        children.sort_by_key(|c| (c.proof, std::cmp::Reverse(c.disproof), c.id));
    } else {
        children.sort_by_key(|c| (c.disproof, std::cmp::Reverse(c.proof), c.id));
    }
    let counts = book.counts()?;
    let line = line_text(&mut book, node.id)?;
    let pinned = book.pinned()?;
    let queue = book.queue()?;
    let meta = book.meta().clone();
    if args.format == Format::Json {
        let kids: Vec<_> = children.iter().map(|c| node_json(Some(&pos), c)).collect();
        println!(
            "{}",
            json!({
                "book": redact(&args.book),
                "rules": meta.rules.to_string(),
                "prover": meta.prover.name(),
                "root_fen": meta.root_fen,
                "line": line,
                "node": node_json(None, &node),
                "children": kids,
                "counts": {
                    "nodes": counts.nodes,
                    "leaves": counts.leaves,
                    "open_leaves": counts.open_leaves,
                    "won": counts.won,
                    "lost": counts.lost,
                    "claimed": counts.claimed,
                    "searches": counts.searches,
                    "queued": counts.queued,
                },
                "pin": pinned,
                "queue": queue.iter().map(|q| q.node).collect::<Vec<_>>(),
            })
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "book: {} ({} rules, proving a win for {}); root {}",
        redact(&args.book),
        meta.rules,
        meta.prover,
        meta.root_fen
    );
    println!(
        "counts: {} nodes, {} leaves ({} open), {} won, {} lost, {} claimed, {} searches, {} queued{}",
        counts.nodes,
        counts.leaves,
        counts.open_leaves,
        counts.won,
        counts.lost,
        counts.claimed,
        counts.searches,
        counts.queued,
        pinned.map_or(String::new(), |p| format!(", walk pinned at node {p}"))
    );
    println!("node {}: {line}", node.id);
    println!("  fen: {}", node.fen);
    println!(
        "  {} to move ({}); status {}; proof {} disproof {} ratio {}; subtree ~{}; {} search(es){}{}",
        pos.turn(),
        if node.prover_to_move { "prover" } else { "opponent" },
        node.status,
        number(node.proof),
        number(node.disproof),
        ratio_text(&node),
        node.size,
        node.searches,
        node.same_as.map_or(String::new(), |t| format!("; transposition of node {t}")),
        node.claimed_by
            .as_ref()
            .map_or(String::new(), |w| format!("; claimed by {w}"))
    );
    if children.is_empty() {
        println!("  (a leaf)");
    } else {
        println!(
            "  {:<8} {:<6} {:>11} {:>11} {:>10} {:<12} {:>12} {:>8}",
            "move", "uci", "proof", "disproof", "ratio", "status", "subtree", "searches"
        );
        for c in &children {
            let san = c.move_from(&pos).map(|m| pos.san(m)).unwrap_or_default();
            println!(
                "  {:<8} {:<6} {:>11} {:>11} {:>10} {:<12} {:>12} {:>8}{}",
                san,
                c.uci.clone().unwrap_or_default(),
                number(c.proof),
                number(c.disproof),
                ratio_text(c),
                c.status.name(),
                c.size,
                c.searches,
                if c.expanded { "  +" } else { "" }
            );
        }
        println!("  (+: expanded in the book)");
    }
    Ok(ExitCode::SUCCESS)
}

pub fn run_check(args: &CheckArgs) -> anyhow::Result<ExitCode> {
    let mut book = Book::open_read_only(&args.book)?;
    let (integrity, problems) = book.check_all()?;
    // A damaged file may not count.
    let nodes = book.counts().ok().map(|c| c.nodes);
    let code = if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    if args.format == Format::Json {
        println!(
            "{}",
            json!({
                "book": redact(&args.book),
                "sound": problems.is_empty(),
                "nodes": nodes,
                "integrity_check": integrity.checked,
                "problems": problems,
            })
        );
        return Ok(code);
    }
    println!(
        "integrity: {}: {}",
        integrity.checked,
        if integrity.problems.is_empty() {
            "ok"
        } else {
            "FAILED"
        }
    );
    let nodes = nodes.map_or_else(|| "nodes unknown".into(), |n| format!("{n} nodes"));
    if problems.is_empty() {
        println!("{}: sound ({nodes})", redact(&args.book));
    } else {
        for p in &problems {
            println!("{p}");
        }
        println!(
            "{}: {} problem(s) ({nodes})",
            redact(&args.book),
            problems.len()
        );
    }
    Ok(code)
}
