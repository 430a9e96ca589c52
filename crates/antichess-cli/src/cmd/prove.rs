//! `antichess prove`: one command for a person who wants a line proved. It grows a book in
//! a cache directory (`~/.cache/antichess/books/<rules>-<prover>-<line>.book`; run the same
//! command again after Ctrl-C, a crash or a `--time` that ran out, and it goes on from the
//! book; with `--frontier FILE` it goes on from a file that carries the book across
//! machines), builds the tables it needs first (and with `--grow-tables`, beside the
//! searches, the bound tables of the materials its searches met most), seeds the book
//! from proof files if given, queues known lines (`--line`), and once the root is won
//! assembles the proof (`book prove`:
//! leaves re-solved, their proofs kept in the cache too), minimises it with the time left,
//! verifies it and writes it.
//! When the time runs out first, the proofs of the subtrees solved so far are written
//! beside the book (`<book>.subtrees/`), for seeding books elsewhere.
//!
//! Progress goes to stderr, one line every `--report-every` (terminal or log alike): the
//! root's proof and disproof numbers, the book's size, the leaves decided; the tables
//! being built show their own bar on a terminal. The job is the book crate's
//! ([`antichess_book::prove_line`]); this file parses the arguments into its options and
//! prints its events and report.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use antichess_book::prove_line::{books_dir, worker_hash, TablesMet};
use antichess_book::text::prove_line::{end_text, slow_write_note};
use antichess_book::{prove_line, ProveLineEvent, ProveLineOptions, ProveLineOutcome};
use antichess_core::Color;
use anyhow::Context;
use clap::Args;

use crate::common::args::{default_tables_dir, EvalArgs, PositionArgs, WalkArgs, WalkDefaults};
use crate::common::interrupt::stop_on_ctrl_c;
use crate::common::output::{exit_code, print_json_pretty, Format};
use crate::common::parse::{parse_color, parse_duration, parse_nodes, parse_size, parse_threads};
use crate::common::tables::solver_tables_of;

/// Prove a line in one command: grow a book in a cache directory (resumable: run the same
/// command again), build the tables it needs, then assemble, minimise with the time left,
/// verify and write the proof.
#[derive(Debug, Args)]
pub struct ProveArgs {
    #[command(flatten)]
    pub position: PositionArgs,

    /// The side whose win is to be proved (default: the side to move).
    #[arg(long, value_parser = parse_color)]
    pub prover: Option<Color>,

    /// The proof file to write (our compact format).
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,

    /// Book workers (each a search with a table of --hash).
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = parse_threads)]
    pub workers: usize,

    /// Stop growing after this long (the book is kept: the same command goes on from it);
    /// time left after the root is won goes to minimising the proof. Default: no limit.
    #[arg(long, value_name = "T", value_parser = parse_duration)]
    pub time: Option<Duration>,

    /// Write the proof as assembled, without spending the time left on minimising it.
    #[arg(long)]
    pub no_minimize: bool,

    /// Tables of up to this many units are built first if missing (0: none). The 4-unit
    /// set takes about 7 minutes on 2 cores and 3 GB of disk.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub units: u32,

    /// Directory of table files (default: ~/.cache/antichess/tables/<rules>).
    #[arg(long, value_name = "DIR")]
    pub tables: Option<PathBuf>,

    /// Proof files (or directories of them) to seed the book with (`book seed`).
    #[arg(long, value_name = "PROOF", num_args = 1..)]
    pub seed: Vec<PathBuf>,

    /// A known line to grow the book along first (moves from the root, e.g. the
    /// published "Ba6 Nxa6" against 1. e3 g5): queued as `book queue` does, past the
    /// book's end if need be; the walk takes over where it ends. May be given more than
    /// once. A line only says where to look first: nothing on it is taken as proved.
    #[arg(long, value_name = "MOVES", allow_hyphen_values = true)]
    pub line: Vec<String>,

    /// Where the books live (default: ~/.cache/antichess/books).
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,

    /// Node budget of one book search.
    #[arg(long, value_name = "N", default_value = "5M", value_parser = parse_nodes)]
    pub search_nodes: u64,

    /// Transposition table of each worker: MB, or with a unit (512M, 4G). Default: the
    /// workers share half the memory available when the run starts, at most 4G and at
    /// least 256M each.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub hash: Option<usize>,

    #[command(flatten)]
    pub walk: WalkArgs,

    #[command(flatten)]
    pub eval: EvalArgs,

    /// Stop growing after this many searches in this run (like --time, the book is kept).
    #[arg(long, value_name = "N")]
    pub searches: Option<u64>,

    /// Grow the tables with the book: every --tables-every searches, build the bound
    /// tables (for the prover) of the K materials of at most --units + 1 units that the
    /// book's searches met most without a table, with their dependencies, beside the
    /// searches (`antichess tb build --bound` in a child process, one thread); the workers
    /// probe them from the moment they are built. A round under way when --time runs out
    /// or Ctrl-C stops the run is stopped (the tables it finished are kept); one under way
    /// when --searches are done is finished first. 0: off.
    #[arg(long, value_name = "K", default_value_t = 0)]
    pub grow_tables: usize,

    /// With --grow-tables: the searches between two rounds of table building.
    #[arg(long, value_name = "N", default_value_t = 5000, value_parser = clap::value_parser!(u64).range(1..))]
    pub tables_every: u64,

    /// With --grow-tables: whose counts choose a round's materials: every search the book
    /// has made (all), or only those since the previous round began (recent: the rounds
    /// follow the walk to the endings of the lines it settles on; the first round counts
    /// all).
    #[arg(long, value_enum, default_value_t = TablesMet::All)]
    pub tables_met: TablesMet,

    /// Carry the run across machines and fresh checkouts in one file (its format:
    /// docs/formats/frontier.md): when the cache holds no book of the line, the book is
    /// built from FILE if it exists (`book load-frontier`: its open nodes with their
    /// numbers and work, and its solved subtrees' proofs, verified); the book's frontier is
    /// written to FILE every --frontier-every and when the run ends unsolved (`book
    /// save-frontier`). The shipped ones are proofs/partial/<line>.frontier.
    #[arg(long, value_name = "FILE")]
    pub frontier: Option<PathBuf>,

    /// With --frontier: how often the frontier is written while the book grows.
    #[arg(long, value_name = "T", default_value = "30m", value_parser = parse_duration)]
    pub frontier_every: Duration,

    /// How often a progress line is written to stderr.
    #[arg(long, value_name = "T", default_value = "10s", value_parser = parse_duration)]
    pub report_every: Duration,

    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

pub fn run(args: &ProveArgs) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let options = options(args, started)?;
    let (root, prover) = (options.root, options.prover);
    let report = prove_line(options, &mut print_event)?;
    let json = args.format == Format::Json;
    if json {
        print_json_pretty(&report)?;
    }
    if let Some(note) = slow_write_note(&report).filter(|_| !json) {
        eprintln!("{note}");
    }
    if !json {
        let seconds = started.elapsed().as_secs_f64();
        println!("{}", end_text(&report, prover, &root.fen(), seconds));
    }
    Ok(match report.outcome {
        ProveLineOutcome::Open => ExitCode::from(3),
        ProveLineOutcome::Disproved => ExitCode::from(1),
        ProveLineOutcome::Proved => exit_code(report.verified == Some(true)),
    })
}

/// The job's options from the arguments; the tables are built first if missing.
fn options(args: &ProveArgs, started: Instant) -> anyhow::Result<ProveLineOptions> {
    let selection = args.walk.selection(WalkDefaults::PROVE)?;
    let initial = args.eval.initial_numbers()?;
    antichess_io::check_target(&args.output)?;
    let game = args.position.game()?;
    let root = *game.position();
    let prover = args.prover.unwrap_or(root.turn());
    let hints = args.walk.hints(root.rules(), prover)?;
    let rules = root.rules();
    antichess_book::seed_files::check_prover(
        &root,
        args.prover,
        &args.seed,
        args.frontier.as_deref(),
    )?;

    // Tables first (their building time is not the search's).
    let tables_started = Instant::now();
    let json_out = args.format == Format::Json;
    let tablebase = solver_tables_of("--units", &args.tables, rules, args.units, json_out)?;
    if args.grow_tables > 0 && tablebase.is_none() {
        anyhow::bail!("--grow-tables needs tables to grow from: give --units 2 or more");
    }
    let tables_seconds = tables_started.elapsed().as_secs_f64();
    Ok(ProveLineOptions {
        root,
        prolog: args.position.fen.is_none().then(|| game.moves().to_vec()),
        prover,
        output: args.output.clone(),
        cache: books_dir(args.cache.as_deref()),
        workers: args.workers,
        search_nodes: args.search_nodes,
        hash_bytes: worker_hash(args.hash, args.workers),
        selection,
        effort: args.walk.effort(args.search_nodes, WalkDefaults::PROVE),
        initial,
        hints,
        tablebase,
        tables_dir: args
            .tables
            .clone()
            .unwrap_or_else(|| default_tables_dir(rules)),
        units: args.units,
        tables_seconds,
        seeds: antichess_book::seed_files::proof_files(&args.seed)?,
        lines: args.line.clone(),
        time: args.time,
        searches: args.searches,
        no_minimize: args.no_minimize,
        grow_tables: args.grow_tables,
        tables_every: args.tables_every,
        tables_met: args.tables_met,
        table_builder: std::env::current_exe().context("finding this program to build tables")?,
        frontier: args.frontier.clone(),
        frontier_every: args.frontier_every,
        report_every: args.report_every,
        stop: stop_on_ctrl_c(
            "stopping: the running searches stop and their numbers are written; run the same command to go on",
            None,
        ),
        started,
    })
}

/// Prints an event on stderr (the frontier's progress only on a terminal).
fn print_event(event: ProveLineEvent) {
    match event.text() {
        Some(text) => eprintln!("{text}"),
        None => {
            if let ProveLineEvent::Frontier(e) = event {
                super::book::frontier::progress(std::io::stderr().is_terminal())(e);
            }
        }
    }
}
