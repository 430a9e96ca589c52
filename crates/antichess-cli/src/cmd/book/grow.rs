//! `antichess book grow`: workers search the book's leaves until the root is solved, the
//! budget is spent or Ctrl-C; a progress line on stderr, a summary (text or JSON) at the end.
//! A book already solved is said to be so at once (exit 0), before any table is built.
//! Arguments to [`antichess_book::jobs::grow`], its events and report printed.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use antichess_book::jobs::grow::{grow_job, solved_report, GrowEvent, GrowJobOptions, GrowReport};
use antichess_book::text::grow::{progress_line, started_line, summary_text};
use antichess_book::{Book, GrowOptions};
use anyhow::bail;
use clap::Args;
use indicatif::ProgressBar;

use crate::common::args::{EvalArgs, SearchTables, WalkArgs, WalkDefaults};
use crate::common::book::open;
use crate::common::interrupt::stop_on_ctrl_c;
use crate::common::output::{print_json, Format};
use crate::common::parse::{parse_duration, parse_nodes, parse_size, parse_threads};
use crate::common::progress::stderr_bar;

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

/// The options of the library's grow, from the arguments.
fn grow_options(
    args: &GrowArgs,
    book: &Book,
    tablebase: Option<&antichess_tb::Tablebase>,
) -> anyhow::Result<GrowOptions> {
    let meta = book.meta();
    Ok(GrowOptions {
        workers: args.workers,
        search_nodes: args.search_nodes.max(1),
        hash_bytes: args.hash,
        max_time: args.time,
        max_searches: args.searches,
        lease: args.lease,
        selection: args.walk.selection(WalkDefaults::GROW)?,
        effort: args
            .walk
            .effort(args.search_nodes.max(1), WalkDefaults::GROW),
        tablebase_units: tablebase.map_or(0, antichess_tb::Tablebase::max_units),
        lone_bishop_rule: !args.no_bishop_rule,
        epsilon: args.epsilon,
        retry: args.retry,
        proof_dir: args.keep_proofs.clone(),
        initial: args.eval.initial_numbers()?,
        hints: args.walk.hints(meta.rules, meta.prover)?,
    })
}

fn check_args(args: &GrowArgs) -> anyhow::Result<()> {
    args.walk.selection(WalkDefaults::GROW)?;
    if !(args.epsilon.is_finite() && args.epsilon >= 0.0) {
        bail!("--epsilon {}: must be a number >= 0", args.epsilon);
    }
    if args.lease < Duration::from_secs(1) {
        bail!(
            "--lease {} s: must be at least a second",
            args.lease.as_secs_f64()
        );
    }
    Ok(())
}

pub fn run_grow(args: &GrowArgs) -> anyhow::Result<ExitCode> {
    let json_out = args.format == Format::Json;
    let mut book = open(&args.book)?;
    check_args(args)?;
    // A decided root leaves nothing to grow: say so before building any table.
    if let Some(report) = solved_report(&mut book)? {
        return print_summary(args, &book, &report);
    }
    let rules = book.meta().rules;
    let tablebase = args.tables.open(rules, json_out)?;
    let options = GrowJobOptions {
        grow: grow_options(args, &book, tablebase.as_ref())?,
        progress_every: if json_out {
            None
        } else if std::io::stderr().is_terminal() {
            Some(Duration::from_secs(1))
        } else {
            Some(args.report_every)
        },
    };
    let tty = std::io::stderr().is_terminal() && !json_out;
    let stop = stop_on_ctrl_c(
        "stopping: the running searches stop and their numbers are written (their leaves return to the pool)",
        None,
    );
    // The progress spinner on a terminal (hidden otherwise).
    let bar = if tty {
        stderr_bar(None, "{spinner} {msg}")
    } else {
        ProgressBar::hidden()
    };
    let (shown, prover) = (book.shown(), book.meta().prover);
    let mut on_event = |event: GrowEvent| match event {
        GrowEvent::Started { root } if !json_out => eprintln!(
            "{}",
            started_line(&shown, rules, prover, &options.grow, &root)
        ),
        GrowEvent::StoreRetry { retries, error } if !json_out => bar.suspend(|| {
            eprintln!(
                "the store cannot be reached or is locked, trying again (retry {retries}): {error}"
            );
        }),
        GrowEvent::Progress(p) if tty => {
            bar.set_message(progress_line(&p));
            bar.tick();
        }
        GrowEvent::Progress(p) => eprintln!("{}", progress_line(&p)),
        _ => {}
    };
    let result = grow_job(
        &mut book,
        tablebase.as_ref(),
        &options,
        &stop,
        &mut on_event,
    );
    bar.finish_and_clear();
    let report = result.map_err(|e| anyhow::Error::from(e).context(format!("growing {shown}")))?;
    print_summary(args, &book, &report)
}

/// The end of a run (or of a book solved already), as text or JSON.
fn print_summary(args: &GrowArgs, book: &Book, r: &GrowReport) -> anyhow::Result<ExitCode> {
    if args.format == Format::Json {
        return print_json(r).map(|()| ExitCode::SUCCESS);
    }
    print!(
        "{}",
        summary_text(r, &book.shown(), args.keep_proofs.as_deref())
    );
    Ok(ExitCode::SUCCESS)
}
