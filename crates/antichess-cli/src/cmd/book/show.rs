//! `antichess book show` (a node and its children, with the book's counts) and `antichess
//! book check` (the book's structure): arguments to [`antichess_book::jobs::show`], its
//! reports printed.

use std::process::ExitCode;

use antichess_book::jobs::show::{check_book, show_node, CheckReport, NodeReport, ShowReport};
use antichess_book::jobs::Ratio;
use antichess_book::Book;
use clap::Args;

use crate::common::args::read_hints;
use crate::common::book::moves_from_root;
use crate::common::output::{number, print_json, Format};

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

/// A ratio as text: `inf` for a won node.
fn ratio_text(n: &NodeReport) -> String {
    match n.ratio {
        Ratio::Finite(r) => format!("{r:.3}"),
        Ratio::Inf(s) => s.to_string(),
    }
}

pub fn run_show(args: &ShowArgs) -> anyhow::Result<ExitCode> {
    let mut book = Book::open_read_only(&args.book)?;
    let moves = moves_from_root(&book, args.moves.as_deref())?;
    let hints = match &args.hints {
        Some(path) => Some(read_hints(path, book.meta().rules, book.meta().prover)?),
        None => None,
    };
    let report = show_node(&mut book, &moves, hints.as_ref())?;
    if args.format == Format::Json {
        print_json(&report)?;
    } else {
        print_show(&report);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_show(r: &ShowReport) {
    let c = &r.counts;
    println!(
        "book: {} ({} rules, proving a win for {}); root {}",
        r.book, r.rules, r.prover, r.root_fen
    );
    println!(
        "counts: {} nodes, {} leaves ({} open), {} won, {} lost, {} claimed, {} searches, {} queued{}",
        c.nodes, c.leaves, c.open_leaves, c.won, c.lost, c.claimed, c.searches, c.queued,
        r.pin.map_or(String::new(), |p| format!(", walk pinned at node {p}"))
    );
    let node = &r.node;
    println!("node {}: {}", node.id, r.line);
    println!("  fen: {}", node.fen);
    println!(
        "  {} to move ({}); status {}; proof {} disproof {} ratio {}{}; subtree ~{}; {} search(es){}{}",
        r.turn,
        if r.prover_to_move { "prover" } else { "opponent" },
        node.status,
        number(node.proof),
        number(node.disproof),
        ratio_text(node),
        node.hinted
            .map_or(String::new(), |h| format!("; record tree proof {}", number(h))),
        node.size,
        node.searches,
        node.transposition_of.map_or(String::new(), |t| format!("; transposition of node {t}")),
        node.claimed_by
            .as_ref()
            .map_or(String::new(), |w| format!("; claimed by {w}"))
    );
    if r.children.is_empty() {
        println!("  (a leaf)");
        return;
    }
    let hinted = |n: &NodeReport| {
        n.hinted
            .map_or(String::new(), |h| format!(" {:>11}", number(h)))
    };
    println!(
        "  {:<8} {:<6} {:>11} {:>11} {:>10} {:<12} {:>12} {:>8}{}",
        "move",
        "uci",
        "proof",
        "disproof",
        "ratio",
        "status",
        "subtree",
        "searches",
        if node.hinted.is_some() {
            format!(" {:>11}", "record")
        } else {
            String::new()
        }
    );
    for c in &r.children {
        println!(
            "  {:<8} {:<6} {:>11} {:>11} {:>10} {:<12} {:>12} {:>8}{}{}",
            c.san.clone().unwrap_or_default(),
            c.uci.clone().unwrap_or_default(),
            number(c.proof),
            number(c.disproof),
            ratio_text(c),
            c.status,
            c.size,
            c.searches,
            hinted(c),
            if c.expanded { "  +" } else { "" }
        );
    }
    println!(
        "  (+: expanded in the book{})",
        if node.hinted.is_some() {
            "; record: the proof number of the record's tree below the move, by --hints"
        } else {
            ""
        }
    );
}

pub fn run_check(args: &CheckArgs) -> anyhow::Result<ExitCode> {
    let mut book = Book::open_read_only(&args.book)?;
    let report = check_book(&mut book)?;
    let code = if report.sound {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    };
    if args.format == Format::Json {
        print_json(&report)?;
    } else {
        print_check(&report);
    }
    Ok(code)
}

fn print_check(r: &CheckReport) {
    println!(
        "integrity: {}: {}",
        r.integrity_check,
        if r.integrity_ok { "ok" } else { "FAILED" }
    );
    let nodes = r
        .nodes
        .map_or_else(|| "nodes unknown".into(), |n| format!("{n} nodes"));
    if r.sound {
        println!("{}: sound ({nodes})", r.book);
    } else {
        for p in &r.problems {
            println!("{p}");
        }
        println!("{}: {} problem(s) ({nodes})", r.book, r.problems.len());
    }
}
