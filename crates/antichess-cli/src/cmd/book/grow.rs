//! `antichess book grow`: workers search the book's leaves until the root is solved, the
//! budget is spent or Ctrl-C; a progress line on stderr, a summary (text or JSON) at the end.
//! A book already solved is said to be so at once (exit 0), before any table is built.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::{Duration, Instant};

use antichess_book::{grow, redact, Book, GrowEnd, GrowOptions, GrowStats};
use anyhow::bail;
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::json;

use crate::common::args::{EvalArgs, SearchTables, WalkArgs, WalkDefaults};
use crate::common::book::{open, ratio_text, stop_on_ctrl_c};
use crate::common::output::{json_number, number, Format};
use crate::common::parse::{parse_duration, parse_nodes, parse_size, parse_threads};
use crate::common::tables::solver_tables;

/// Grow a book: workers search leaves and write their numbers until the root is solved
/// (the default), --time runs out, --searches are done, or Ctrl-C (the running searches
/// stop and are written; a second Ctrl-C quits at once). Run it again to resume: nothing is kept
/// in memory.
#[derive(Debug, Args)]
pub struct GrowArgs {
    /// The book: a file or a postgres:// URL.
    pub book: String,

    /// Worker threads, each with its own search and transposition table.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = parse_threads)]
    pub workers: usize,

    /// Node budget of one leaf search (a count, or 500K, 20M, 2G).
    #[arg(long, value_name = "N", default_value = "10M", value_parser = parse_nodes)]
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

    #[command(flatten)]
    pub walk: WalkArgs,

    #[command(flatten)]
    pub eval: EvalArgs,

    /// The search's ε of the 1+ε trick.
    #[arg(long, value_name = "E", default_value_t = 0.25)]
    pub epsilon: f64,

    /// Turn off the lone opposite-bishop rule.
    #[arg(long)]
    pub no_bishop_rule: bool,

    /// Print a progress line this often when stderr is not a terminal.
    #[arg(long, value_name = "T", default_value = "60s", value_parser = parse_duration)]
    pub report_every: Duration,

    /// Keep the proof of every node a search proves in this directory (one compact proof
    /// file per position, named by its key and the table units), extracted while the
    /// worker's table still holds it; `book prove --leaf-dir DIR` then reads them instead
    /// of searching those leaves again. Default: none kept.
    #[arg(long, value_name = "DIR")]
    pub keep_proofs: Option<PathBuf>,

    /// Summary format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

/// One progress snapshot of a growing book.
fn progress_line(book: &mut Book, stats: &GrowStats, start: Instant) -> anyhow::Result<String> {
    let root = book.root()?;
    let counts = book.counts()?;
    let seconds = start.elapsed().as_secs_f64().max(1e-9);
    let searches = stats.searches.load(Relaxed);
    let failed = stats.proofs_failed.load(Relaxed);
    let failed = if failed > 0 {
        format!("  {failed} proofs not kept (see the end of the run)")
    } else {
        String::new()
    };
    Ok(format!(
        "{:>7.0}s  root proof {} disproof {} ratio {}  book {} nodes ({} open leaves, {} won, {} lost)  {} searches {:.2}/s  {:.0} nodes/s  {} leaves decided{}",
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
        failed,
    ))
}

/// The proved nodes whose proof could not be kept, if any, with the last error.
fn print_proof_failures(stats: &GrowStats) {
    let failed = stats.proofs_failed.load(Relaxed);
    if failed > 0 {
        let last = stats
            .last_proof_error
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
            .unwrap_or_default();
        println!(
            "{failed} proved node(s) whose proof could not be extracted from the search's table \
             (the book keeps them won; the assembly searches them again); the last: {last}"
        );
    }
}

/// Whether `e` comes from a store that cannot be reached (see
/// [`antichess_book::BookError::is_transient`]).
fn store_unreachable(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<antichess_book::BookError>()
            .is_some_and(antichess_book::BookError::is_transient)
    })
}

pub fn run_grow(args: &GrowArgs) -> anyhow::Result<ExitCode> {
    let json_out = args.format == Format::Json;
    let mut book = open(&args.book)?;
    let rules = book.meta().rules;
    let selection = args.walk.selection(WalkDefaults::GROW)?;
    if !(args.epsilon.is_finite() && args.epsilon >= 0.0) {
        bail!("--epsilon {}: must be a number >= 0", args.epsilon);
    }
    if args.lease < Duration::from_secs(1) {
        bail!(
            "--lease {} s: must be at least a second",
            args.lease.as_secs_f64()
        );
    }
    // A decided root leaves nothing to grow: say so before building any table.
    let root = book.root()?;
    if root.status.is_decided() {
        let counts = book.counts()?;
        if json_out {
            println!(
                "{}",
                json!({
                    "end": "solved",
                    "status": root.status.name(),
                    "proof": json_number(root.proof),
                    "disproof": json_number(root.disproof),
                    "searches": 0,
                    "nodes_searched": 0,
                    "seconds": 0.0,
                    "book_nodes": counts.nodes,
                    "open_leaves": counts.open_leaves,
                    "won": counts.won,
                    "lost": counts.lost,
                    "searches_logged": counts.searches,
                    "store_retries": 0,
                })
            );
        } else {
            println!(
                "{} is already solved: root {} (proof {}, disproof {}), book {} nodes; nothing to grow{}",
                redact(&args.book),
                root.status,
                number(root.proof),
                number(root.disproof),
                counts.nodes,
                if root.status.is_win() {
                    " (`antichess book prove` writes its proof)"
                } else {
                    ""
                }
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    let tablebase = solver_tables(&args.tables.tables, rules, args.tables.tb_units, json_out)?;
    let options = GrowOptions {
        workers: args.workers,
        search_nodes: args.search_nodes.max(1),
        hash_bytes: args.hash,
        max_time: args.time,
        max_searches: args.searches,
        lease: args.lease,
        selection,
        effort: args
            .walk
            .effort(args.search_nodes.max(1), WalkDefaults::GROW),
        tablebase_units: tablebase
            .as_ref()
            .map_or(0, antichess_tb::Tablebase::max_units),
        lone_bishop_rule: !args.no_bishop_rule,
        epsilon: args.epsilon,
        retry: args.retry,
        proof_dir: args.keep_proofs.clone(),
        initial: args.eval.initial_numbers()?,
        hints: args.walk.hints(rules, book.meta().prover)?,
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
                "proofs_kept": stats.proofs_kept.load(Relaxed),
                "proofs_not_kept": stats.proofs_failed.load(Relaxed),
                "last_proof_error": stats.last_proof_error.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone(),
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
        if let Some(dir) = &args.keep_proofs {
            println!(
                "{} proofs of proved nodes kept in {}",
                stats.proofs_kept.load(Relaxed),
                dir.display()
            );
            print_proof_failures(&stats);
        }
        let retries = stats.retries.load(Relaxed);
        if retries > 0 {
            println!("the store could not be reached {retries} time(s); the workers reconnected");
        }
    }
    Ok(ExitCode::SUCCESS)
}
