//! `antichess book`: the upper-level tree of proof-number searches — create a book, grow
//! it with workers (resumable: stop it any time and run `grow` again), look at it, steer
//! it (queue, pin, mark), cut subtrees out and splice them back, copy it between stores,
//! and turn a solved book into a verified proof file. The logic lives in `antichess-book`.
//!
//! A book is named by a location: a file path (a SQLite book) or a `postgres://` URL (a
//! PostgreSQL database, for workers on many machines); every command takes either.
//! `--moves` of the commands that name a node are played from the book's root (not from
//! the start position).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use antichess_book::{
    copy_book, export, grow, import, prove_to_file, redact, Book, GrowEnd, GrowOptions, GrowStats,
    Node, ProveEvent, ProveOptions, Selection, INF,
};
use antichess_core::{play_move_text, Color, Move};
use anyhow::{bail, Context};
use clap::{Args, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::json;

use crate::args::PositionArgs;
use crate::cmd::solve::{parse_color, parse_duration, parse_size, solver_tables};
use crate::cmd::tb::Format;

#[derive(Debug, Subcommand)]
pub enum BookCommand {
    New(NewArgs),
    Grow(GrowArgs),
    Show(ShowArgs),
    Queue(QueueArgs),
    Pin(PinArgs),
    Mark(MarkArgs),
    Export(ExportArgs),
    Import(ImportArgs),
    Copy(CopyArgs),
    Prove(ProveArgs),
    Check(CheckArgs),
}

/// Create a book rooted at a position (given by --fen and/or --moves from the start).
#[derive(Debug, Args)]
pub struct NewArgs {
    /// The book to create: a file (SQLite) or a postgres://user@host/db URL (the database
    /// is created if it does not exist and the user may; it must not hold a book).
    pub book: String,

    #[command(flatten)]
    pub position: PositionArgs,

    /// The side whose win the book is to prove (default: the side to move at the root).
    #[arg(long, value_parser = parse_color)]
    pub prover: Option<Color>,
}

/// Tables for searching (as in `antichess solve`).
#[derive(Debug, Clone, Args)]
pub struct SearchTables {
    /// Directory of table files (default: ~/.cache/antichess/tables/<rules>).
    #[arg(long, value_name = "DIR")]
    pub tables: Option<PathBuf>,

    /// Build missing tables with at most this many units first (0: use no tables); larger
    /// complete sets already in the directory are used too.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub tb_units: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SelectArg {
    /// A random walk weighted by ratio^exponent.
    Weighted,
    /// Always the most proving child.
    Best,
}

/// Grow a book: workers search leaves and write their numbers until the root is solved
/// (the default), --time runs out, --searches are done, or Ctrl-C (the running searches
/// stop and are written; a second Ctrl-C quits at once). Run it again to resume: nothing is kept
/// in memory.
#[derive(Debug, Args)]
pub struct GrowArgs {
    /// The book: a file or a postgres:// URL.
    pub book: String,

    /// Worker threads, each with its own search and transposition table.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = crate::cmd::solve::parse_threads)]
    pub workers: usize,

    /// Node budget of one leaf search (a count, or 500K, 20M, 2G).
    #[arg(long, value_name = "N", default_value = "10M", value_parser = crate::cmd::solve::parse_nodes)]
    pub search_nodes: u64,

    /// Stop after this long: seconds, or with a unit (90s, 5m, 2h).
    #[arg(long, value_name = "T", value_parser = parse_duration, conflicts_with = "until_solved")]
    pub time: Option<Duration>,

    /// Run until the root is solved (the default when no --time is given).
    #[arg(long)]
    pub until_solved: bool,

    /// Stop after this many searches in all.
    #[arg(long, value_name = "N")]
    pub searches: Option<u64>,

    /// Transposition table of each worker: MB, or with a unit (512M, 4G).
    #[arg(long, value_name = "SIZE", default_value = "256M", value_parser = parse_size)]
    pub hash: usize,

    #[command(flatten)]
    pub tables: SearchTables,

    /// How long a claimed leaf stays reserved without renewal (renewed during the
    /// search); a leaf of a worker that died returns to the pool when it expires.
    #[arg(long, value_name = "T", default_value = "10m", value_parser = parse_duration)]
    pub lease: Duration,

    /// When the store cannot be reached (a PostgreSQL server restarting or failing over,
    /// a network failure), keep reconnecting for this long before stopping with the error
    /// (0: stop at once). Searches under way go on meanwhile.
    #[arg(long, value_name = "T", default_value = "5m", value_parser = parse_duration)]
    pub retry: Duration,

    /// How the walk from the root picks a child.
    #[arg(long, value_enum, default_value = "weighted")]
    pub select: SelectArg,

    /// The exponent of the weighted walk: a child's weight is its ratio (from the side to
    /// move's point of view) to this power.
    #[arg(long, value_name = "E", default_value_t = 2.0)]
    pub exponent: f64,

    /// The search's ε of the 1+ε trick.
    #[arg(long, value_name = "E", default_value_t = 0.25)]
    pub epsilon: f64,

    /// Turn off the lone opposite-bishop rule.
    #[arg(long)]
    pub no_bishop_rule: bool,

    /// Print a progress line this often when stderr is not a terminal.
    #[arg(long, value_name = "T", default_value = "60s", value_parser = parse_duration)]
    pub report_every: Duration,

    /// Summary format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

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
}

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
}

/// Turn a solved book into one proof file: keep one winning prover move per node (the
/// cheapest), re-solve each leaf with proof output, assemble and write the proof, and
/// verify it.
#[derive(Debug, Args)]
pub struct ProveArgs {
    pub book: String,

    /// The proof file to write (our compact format).
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,

    /// Transposition table of the leaves' solver (of each thread's): MB, or with a unit
    /// (512M, 4G).
    #[arg(long, value_name = "SIZE", default_value = "1G", value_parser = parse_size)]
    pub hash: usize,

    /// Threads re-solving leaves, each with a solver and table of its own.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = crate::cmd::solve::parse_threads)]
    pub threads: usize,

    #[command(flatten)]
    pub tables: SearchTables,

    /// Node budget of one leaf's re-solve (a count, or 500K, 20M, 2G; default: none).
    #[arg(long, value_name = "N", value_parser = crate::cmd::solve::parse_nodes)]
    pub leaf_nodes: Option<u64>,

    /// Turn off the lone opposite-bishop rule.
    #[arg(long)]
    pub no_bishop_rule: bool,

    /// Then spend up to this long making the proof smaller, as `antichess proof minimize`
    /// does (seconds, or with a unit: 90s, 10m). Ctrl-C ends it sooner, and the proof is
    /// written.
    #[arg(long, value_name = "T", value_parser = crate::cmd::solve::parse_duration)]
    pub minimize: Option<std::time::Duration>,

    /// Save each re-solved leaf's proof in this directory and read saved ones back, so
    /// that a prove stopped by Ctrl-C (or killed) goes on where it was when run again.
    /// Default: OUTPUT.leaves, removed once the proof is written and verified; a
    /// directory given here is kept.
    #[arg(long, value_name = "DIR")]
    pub leaf_dir: Option<PathBuf>,

    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

/// Check a book's structure (children are the legal moves, numbers agree with the
/// minimax, transpositions point to won twins). Exit code 1 if anything is wrong.
#[derive(Debug, Args)]
pub struct CheckArgs {
    pub book: String,
}

pub fn run(command: &BookCommand) -> anyhow::Result<ExitCode> {
    match command {
        BookCommand::New(args) => run_new(args),
        BookCommand::Grow(args) => run_grow(args),
        BookCommand::Show(args) => run_show(args),
        BookCommand::Queue(args) => run_queue(args),
        BookCommand::Pin(args) => run_pin(args),
        BookCommand::Mark(args) => run_mark(args),
        BookCommand::Export(args) => run_export(args),
        BookCommand::Import(args) => run_import(args),
        BookCommand::Copy(args) => run_copy(args),
        BookCommand::Prove(args) => run_prove(args),
        BookCommand::Check(args) => run_check(args),
    }
}

fn number(n: u32) -> String {
    if n == INF {
        "inf".to_string()
    } else {
        n.to_string()
    }
}

fn ratio_text(node: &Node) -> String {
    if node.proof == 0 {
        "inf".into()
    } else {
        format!("{:.3}", node.ratio())
    }
}

fn json_number(n: u32) -> serde_json::Value {
    if n == INF {
        json!("inf")
    } else {
        json!(n)
    }
}

fn open(location: &str) -> anyhow::Result<Book> {
    Ok(Book::open(location)?)
}

/// The moves `text` from the book's root.
fn moves_from_root(book: &Book, text: Option<&str>) -> anyhow::Result<Vec<Move>> {
    match text {
        None => Ok(Vec::new()),
        Some(text) => Ok(play_move_text(*book.root_position(), text)
            .with_context(|| format!("--moves {text:?} (played from the book's root)"))?
            .moves()
            .to_vec()),
    }
}

fn find(book: &mut Book, text: Option<&str>) -> anyhow::Result<Node> {
    let moves = moves_from_root(book, text)?;
    Ok(book.find(&moves)?)
}

/// The line to a node, in SAN with move numbers.
fn line_text(book: &mut Book, id: i64) -> anyhow::Result<String> {
    let line = book.line_to(id)?;
    Ok(if line.is_empty() {
        "(root)".to_string()
    } else {
        antichess_core::pgn::format_moves(book.root_position(), &line)
    })
}

fn run_new(args: &NewArgs) -> anyhow::Result<ExitCode> {
    let game = args.position.game()?;
    let pos = *game.position();
    let prolog: &[Move] = if args.position.fen.is_none() {
        game.moves()
    } else {
        &[]
    };
    let prover = args.prover.unwrap_or(pos.turn());
    let mut book = Book::create(&args.book, &pos, prover, prolog)?;
    println!(
        "created {}: root {} ({} rules), proving a win for {}",
        redact(&args.book),
        pos.fen(),
        pos.rules(),
        prover
    );
    let root = book.root()?;
    println!(
        "root node {} (a leaf: run `antichess book grow {}`)",
        root.id,
        redact(&args.book)
    );
    Ok(ExitCode::SUCCESS)
}

/// One progress snapshot of a growing book.
fn progress_line(book: &mut Book, stats: &GrowStats, start: Instant) -> anyhow::Result<String> {
    let root = book.root()?;
    let counts = book.counts()?;
    let seconds = start.elapsed().as_secs_f64().max(1e-9);
    let searches = stats.searches.load(Relaxed);
    Ok(format!(
        "{:>7.0}s  root proof {} disproof {} ratio {}  book {} nodes ({} open leaves, {} won, {} lost)  {} searches {:.2}/s  {:.0} nodes/s  {} leaves decided",
        seconds,
        number(root.proof),
        number(root.disproof),
        ratio_text(&root),
        counts.nodes,
        counts.open_leaves,
        counts.won,
        counts.lost,
        searches,
        searches as f64 / seconds,
        stats.nodes.load(Relaxed) as f64 / seconds,
        stats.decided.load(Relaxed),
    ))
}

/// Whether `e` comes from a store that cannot be reached (see
/// [`antichess_book::BookError::is_transient`]).
fn store_unreachable(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<antichess_book::BookError>()
            .is_some_and(antichess_book::BookError::is_transient)
    })
}

static INTERRUPTS: AtomicUsize = AtomicUsize::new(0);

/// A flag that the first Ctrl-C raises (printing `message`); the second quits at once.
fn stop_on_ctrl_c(message: &'static str) -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    // A second handler cannot be installed in one process; ignore that (tests).
    let _ = ctrlc::set_handler(move || {
        if INTERRUPTS.fetch_add(1, Relaxed) == 0 {
            flag.store(true, Relaxed);
            eprintln!("\n{message} (Ctrl-C again to quit at once)");
        } else {
            std::process::exit(130);
        }
    });
    stop
}

fn run_grow(args: &GrowArgs) -> anyhow::Result<ExitCode> {
    let json_out = args.format == Format::Json;
    let mut book = open(&args.book)?;
    let rules = book.meta().rules;
    if !(args.exponent.is_finite() && args.exponent >= 0.0) {
        bail!("--exponent {}: must be a number >= 0", args.exponent);
    }
    if !(args.epsilon.is_finite() && args.epsilon >= 0.0) {
        bail!("--epsilon {}: must be a number >= 0", args.epsilon);
    }
    if args.lease < Duration::from_secs(1) {
        bail!("--lease {:?}: must be at least a second", args.lease);
    }
    let tablebase = solver_tables(&args.tables.tables, rules, args.tables.tb_units, json_out)?;
    let options = GrowOptions {
        workers: args.workers,
        search_nodes: args.search_nodes.max(1),
        hash_bytes: args.hash,
        max_time: args.time,
        max_searches: args.searches,
        lease: args.lease,
        selection: match args.select {
            SelectArg::Weighted => Selection::Weighted {
                exponent: args.exponent,
            },
            SelectArg::Best => Selection::MostProving,
        },
        tablebase_units: tablebase
            .as_ref()
            .map_or(0, antichess_tb::Tablebase::complete_units),
        lone_bishop_rule: !args.no_bishop_rule,
        epsilon: args.epsilon,
        retry: args.retry,
    };
    let stop = stop_on_ctrl_c(
        "stopping: the running searches stop and their numbers are written (their leaves return to the pool)",
    );
    let stats = GrowStats::default();
    let start = Instant::now();
    let tty = std::io::stderr().is_terminal() && !json_out;
    let bar = if tty {
        let bar = ProgressBar::new_spinner();
        bar.set_draw_target(ProgressDrawTarget::stderr());
        bar.set_style(ProgressStyle::with_template("{spinner} {msg}").expect("valid template"));
        bar
    } else {
        ProgressBar::hidden()
    };
    if !json_out {
        let root = book.root()?;
        eprintln!(
            "growing {} ({} rules, prover {}): {} worker(s), {} nodes per search, hash {} MB each, tables up to {} units; root proof {} disproof {}",
            redact(&args.book),
            rules,
            book.meta().prover,
            options.workers,
            options.search_nodes,
            options.hash_bytes >> 20,
            options.tablebase_units,
            number(root.proof),
            number(root.disproof)
        );
    }
    let done = AtomicBool::new(false);
    let result = std::thread::scope(|scope| {
        let monitor = scope.spawn(|| -> anyhow::Result<()> {
            let mut last_report = Instant::now();
            let mut book = Some(book);
            let mut retries_told = 0;
            while !done.load(Relaxed) {
                std::thread::sleep(Duration::from_millis(200));
                let retries = stats.retries.load(Relaxed);
                if retries > retries_told && !json_out {
                    retries_told = retries;
                    let error = stats
                        .last_store_error
                        .lock()
                        .map(|e| e.clone())
                        .unwrap_or_default();
                    bar.suspend(|| {
                        eprintln!(
                            "the store cannot be reached, reconnecting (retry {retries}): {}",
                            error.unwrap_or_default()
                        );
                    });
                }
                let due = if tty {
                    start.elapsed().as_millis() % 1000 < 200
                } else {
                    !json_out && last_report.elapsed() >= args.report_every
                };
                if !due {
                    continue;
                }
                last_report = Instant::now();
                // The progress line reads the store too: while it cannot be reached, the
                // line waits (the workers say why above) and the book is opened again.
                let line = match book.take().map_or_else(|| open(&args.book), Ok) {
                    Ok(mut b) => match progress_line(&mut b, &stats, start) {
                        Ok(line) => {
                            book = Some(b);
                            line
                        }
                        Err(e) if store_unreachable(&e) => continue,
                        Err(e) => return Err(e),
                    },
                    Err(e) if store_unreachable(&e) => continue,
                    Err(e) => return Err(e),
                };
                if tty {
                    bar.set_message(line);
                    bar.tick();
                } else {
                    eprintln!("{line}");
                }
            }
            Ok(())
        });
        let result = grow(&args.book, tablebase.as_ref(), &options, &stop, &stats);
        done.store(true, Relaxed);
        let monitored = monitor.join().unwrap_or(Ok(()));
        match (result, monitored) {
            (Err(e), _) => Err(anyhow::Error::from(e)),
            (Ok(_), Err(e)) => Err(e),
            (Ok(end), Ok(())) => Ok(end),
        }
    });
    bar.finish_and_clear();
    let end = match result {
        Ok(end) => end,
        Err(e) => return Err(e.context(format!("growing {}", redact(&args.book)))),
    };
    let mut book = open(&args.book)?;
    let root = book.root()?;
    let counts = book.counts()?;
    let seconds = start.elapsed().as_secs_f64();
    let searches = stats.searches.load(Relaxed);
    let end_name = match end {
        GrowEnd::Solved => "solved",
        GrowEnd::Budget => "budget",
        GrowEnd::Stopped => "stopped",
    };
    if json_out {
        println!(
            "{}",
            json!({
                "end": end_name,
                "status": root.status.name(),
                "proof": json_number(root.proof),
                "disproof": json_number(root.disproof),
                "searches": searches,
                "nodes_searched": stats.nodes.load(Relaxed),
                "seconds": seconds,
                "book_nodes": counts.nodes,
                "open_leaves": counts.open_leaves,
                "won": counts.won,
                "lost": counts.lost,
                "searches_logged": counts.searches,
                "store_retries": stats.retries.load(Relaxed),
            })
        );
    } else {
        println!("{}", progress_line(&mut book, &stats, start)?);
        println!(
            "{}: root {} (proof {}, disproof {}); {} searches in {:.1} s ({:.2} searches/s), book {} nodes",
            match end {
                GrowEnd::Solved => "solved",
                GrowEnd::Budget => "budget spent",
                GrowEnd::Stopped => "stopped (run grow again to resume)",
            },
            root.status,
            number(root.proof),
            number(root.disproof),
            searches,
            seconds,
            searches as f64 / seconds.max(1e-9),
            counts.nodes
        );
        let retries = stats.retries.load(Relaxed);
        if retries > 0 {
            println!("the store could not be reached {retries} time(s); the workers reconnected");
        }
    }
    Ok(ExitCode::SUCCESS)
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

fn run_show(args: &ShowArgs) -> anyhow::Result<ExitCode> {
    let mut book = open(&args.book)?;
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

fn run_queue(args: &QueueArgs) -> anyhow::Result<ExitCode> {
    let mut book = open(&args.book)?;
    if args.clear {
        book.queue_clear()?;
        println!("queue cleared");
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(moves) = &args.moves {
        let node = find(&mut book, Some(moves))?;
        book.queue_push(node.id)?;
        println!(
            "queued node {}: {}",
            node.id,
            line_text(&mut book, node.id)?
        );
    }
    let queue = book.queue()?;
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

fn run_pin(args: &PinArgs) -> anyhow::Result<ExitCode> {
    let mut book = open(&args.book)?;
    if args.clear {
        book.pin(None)?;
        println!("pin cleared: the walk starts at the root");
    } else {
        let node = find(&mut book, args.moves.as_deref())?;
        book.pin(Some(node.id))?;
        println!(
            "the walk starts at node {}: {}",
            node.id,
            line_text(&mut book, node.id)?
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn run_mark(args: &MarkArgs) -> anyhow::Result<ExitCode> {
    let mut book = open(&args.book)?;
    let node = find(&mut book, Some(&args.moves))?;
    let win = match args.as_ {
        MarkArg::Win => Some(true),
        MarkArg::Loss => Some(false),
        MarkArg::None => None,
    };
    let node = book.mark(node.id, win)?;
    let root = book.root()?;
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

fn run_export(args: &ExportArgs) -> anyhow::Result<ExitCode> {
    let mut book = open(&args.book)?;
    let node = find(&mut book, Some(&args.moves))?;
    let copied = export(&mut book, node.id, &args.output)?;
    println!(
        "exported node {} ({}) and its subtree: {} nodes into {}",
        node.id,
        line_text(&mut book, node.id)?,
        copied,
        redact(&args.output)
    );
    Ok(ExitCode::SUCCESS)
}

fn run_import(args: &ImportArgs) -> anyhow::Result<ExitCode> {
    let mut book = open(&args.book)?;
    let moves = match &args.moves {
        Some(text) => Some(moves_from_root(&book, Some(text))?),
        None => None,
    };
    let report = import(&mut book, &args.sub_book, moves.as_deref())?;
    let root = book.root()?;
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

fn run_copy(args: &CopyArgs) -> anyhow::Result<ExitCode> {
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

fn run_prove(args: &ProveArgs) -> anyhow::Result<ExitCode> {
    let json_out = args.format == Format::Json;
    let mut book = open(&args.book)?;
    let root = book.root()?;
    if !root.status.is_win() {
        bail!(
            "the root of {} is not won yet (status {}, proof {}, disproof {}): grow it first",
            redact(&args.book),
            root.status,
            number(root.proof),
            number(root.disproof)
        );
    }
    let tablebase = solver_tables(
        &args.tables.tables,
        book.meta().rules,
        args.tables.tb_units,
        json_out,
    )?;
    let leaf_dir = args.leaf_dir.clone().unwrap_or_else(|| {
        let mut name = args.output.clone().into_os_string();
        name.push(".leaves");
        PathBuf::from(name)
    });
    let options = ProveOptions {
        hash_bytes: args.hash,
        leaf_nodes: args.leaf_nodes,
        tablebase_units: tablebase
            .as_ref()
            .map_or(0, antichess_tb::Tablebase::complete_units),
        lone_bishop_rule: !args.no_bishop_rule,
        minimize: args.minimize,
        minimize_work: None,
        // Ctrl-C stops the leaf under search (the saved ones are kept for the next run),
        // or ends the minimisation, and the proof is written as it then is.
        stop: Some(stop_on_ctrl_c(
            "stopping: a leaf being re-solved stops (the saved leaves are kept for the next run); a minimisation ends and the proof is written",
        )),
        leaf_dir: Some(leaf_dir.clone()),
        threads: args.threads,
    };
    let tty = std::io::stderr().is_terminal() && !json_out;
    let mut progress = |e: ProveEvent| {
        if !tty {
            return;
        }
        match e {
            ProveEvent::LeafSolved {
                leaves,
                proof_nodes,
                search_nodes,
                ..
            } => eprint!("\rleaves re-solved: {leaves} (last: {proof_nodes} proof nodes, {search_nodes} nodes searched)   "),
            ProveEvent::Minimizing {
                proof_nodes,
                searches,
            } => eprint!("\rminimising: {proof_nodes} proof nodes after {searches} searches              "),
        }
    };
    let (report, verified) = prove_to_file(
        &mut book,
        tablebase.as_ref(),
        &options,
        &args.output,
        &mut progress,
    )
    .with_context(|| format!("proving {}", redact(&args.book)))?;
    if tty {
        eprintln!();
    }
    if verified.verdict.is_ok() && args.leaf_dir.is_none() {
        std::fs::remove_dir_all(&leaf_dir)
            .with_context(|| format!("removing {}", leaf_dir.display()))?;
    }
    let c = &report.counts;
    if json_out {
        println!(
            "{}",
            json!({
                "proof_file": args.output.display().to_string(),
                "verified": verified.verdict.is_ok(),
                "error": verified.verdict.as_ref().err(),
                "proof_nodes": c.total,
                "bytes": verified.bytes,
                "book_nodes": report.book_nodes,
                "leaves": report.leaves,
                "leaves_reused": report.leaves_reused,
                "search_nodes": report.search_nodes,
                "assembled_nodes": report.assembled_nodes,
                "seconds": report.seconds,
                "counts": c,
            })
        );
    } else {
        println!(
            "pruned book: {} book nodes, {} leaves re-solved ({} nodes searched, {} re-searched by extraction) in {:.1} s",
            report.book_nodes, report.leaves, report.search_nodes, report.researched, report.seconds
        );
        if report.leaves_reused > 0 {
            println!(
                "{} of the leaves' proofs read back from {} (saved by an earlier run)",
                report.leaves_reused,
                leaf_dir.display()
            );
        }
        if let Some(m) = &report.minimized {
            println!(
                "minimised: {} -> {} nodes ({} searches with {} positions, {} proved, {} switches)",
                report.assembled_nodes, c.total, m.searched, m.search_nodes, m.proved, m.switches
            );
        }
        println!(
            "proof: {} ({} nodes: {} prover, {} opponent, {} terminal, {} tablebase, {} references; {} bytes = {:.2} bytes/node)",
            args.output.display(),
            c.total,
            c.prover,
            c.opponent,
            c.terminal,
            c.tablebase,
            c.references,
            verified.bytes,
            verified.bytes as f64 / c.total.max(1) as f64
        );
        match &verified.verdict {
            Ok(stats) => println!(
                "verified: the proof is valid ({} nodes, {} unfolded, depth {}) in {:.2} s",
                stats.counts.total,
                stats.unfolded_nodes,
                stats.max_depth,
                verified.seconds.as_secs_f64()
            ),
            Err(e) => println!("verification FAILED: {e}"),
        }
    }
    Ok(if verified.verdict.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn run_check(args: &CheckArgs) -> anyhow::Result<ExitCode> {
    let mut book = open(&args.book)?;
    let problems = book.check()?;
    let counts = book.counts()?;
    if problems.is_empty() {
        println!("{}: sound ({} nodes)", redact(&args.book), counts.nodes);
        Ok(ExitCode::SUCCESS)
    } else {
        for p in &problems {
            println!("{p}");
        }
        println!("{}: {} problem(s)", redact(&args.book), problems.len());
        Ok(ExitCode::from(1))
    }
}
