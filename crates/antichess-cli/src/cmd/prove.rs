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
//! being built show their own bar on a terminal. The logic is the book crate's
//! (`antichess_book::{grow, prove_to_file, prove_subtrees, seed_file, frontier}`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use antichess_book::frontier::SaveReport;
use antichess_book::{
    grow, prove_subtrees, prove_to_file, seed_file, Book, GrowEnd, GrowOptions, GrowStats,
    ProveOptions,
};
use antichess_core::{Color, Position};
use anyhow::Context;
use clap::Args;
use serde_json::json;

use crate::common::args::{default_tables_dir, EvalArgs, PositionArgs, WalkArgs, WalkDefaults};
use crate::common::book::{leaf_dir, stop_on_ctrl_c};
use crate::common::output::{json_number, number, Format};
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

/// The cache directory of books.
fn books_dir(args: &ProveArgs) -> PathBuf {
    if let Some(dir) = &args.cache {
        return dir.clone();
    }
    std::env::var_os("XDG_CACHE_HOME")
        .map(|d| PathBuf::from(d).join("antichess/books"))
        .or_else(|| {
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/antichess/books"))
        })
        .unwrap_or_else(|| PathBuf::from("books"))
}

/// The book's name: rules, prover and the line from the start position in SAN (or the
/// root's key for a FEN root), e.g. `international-white-e3-c6.book`.
fn book_name(
    root: &Position,
    prolog: &[antichess_core::Move],
    from_start: bool,
    prover: Color,
) -> String {
    let line = if from_start {
        let mut pos = Position::start(root.rules());
        let mut parts = vec![];
        for &m in prolog {
            parts.push(pos.san(m));
            pos = pos.play(m);
        }
        if parts.is_empty() {
            "start".to_string()
        } else {
            parts.join("-")
        }
    } else {
        format!("fen-{:016x}", root.key())
    };
    let name = format!("{}-{}-{line}", root.rules(), prover.name());
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-=+".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{safe}.book")
}

pub fn run(args: &ProveArgs) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let json_out = args.format == Format::Json;
    let selection = args.walk.selection(WalkDefaults::PROVE)?;
    let initial = args.eval.initial_numbers()?;
    antichess_io::check_target(&args.output)?;
    let game = args.position.game()?;
    let root = *game.position();
    let from_start = args.position.fen.is_none();
    let prolog = if from_start {
        game.moves().to_vec()
    } else {
        Vec::new()
    };
    let prover = args.prover.unwrap_or(root.turn());
    let hints = args.walk.hints(root.rules(), prover)?;
    let rules = root.rules();
    crate::common::seeds::check_prover(&root, args.prover, &args.seed, args.frontier.as_deref())?;

    // Tables first (their building time is not the search's).
    let tables_started = Instant::now();
    let mut tablebase = solver_tables_of("--units", &args.tables, rules, args.units, json_out)?;
    if args.grow_tables > 0 && tablebase.is_none() {
        anyhow::bail!("--grow-tables needs tables to grow from: give --units 2 or more");
    }
    let table_seconds = tables_started.elapsed().as_secs_f64();
    // Every table in the directory is probed (as `solve` and `book grow` do), not only the
    // complete sets: the larger tables built for a line (`tb build --from-book`) are what
    // cut its searches.
    let complete = tablebase
        .as_ref()
        .map_or(0, antichess_tb::Tablebase::complete_units);
    let mut units = tablebase
        .as_ref()
        .map_or(0, antichess_tb::Tablebase::max_units);
    let tables_dir = args
        .tables
        .clone()
        .unwrap_or_else(|| default_tables_dir(rules));
    let larger = if units > complete {
        format!(", and some of up to {units} units")
    } else {
        String::new()
    };
    eprintln!(
        "tables: every table of up to {complete} units{larger} in {} ({table_seconds:.1} s to build what was missing)",
        tables_dir.display()
    );

    eprintln!(
        "searches: {} workers, {} positions each, a {} MB table each, initial numbers: {}; walk {selection:?}{}",
        args.workers,
        args.search_nodes,
        worker_hash(args) >> 20,
        initial.describe(),
        match args.walk.effort(args.search_nodes, WalkDefaults::PROVE) {
            Some(e) => format!(
                ", the work spent weighed in from ply {} (fraction {})",
                e.min_depth, e.fraction
            ),
            None => String::new(),
        }
    );

    // The book: created, or resumed.
    let dir = books_dir(args);
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let path = dir.join(book_name(&root, &prolog, from_start, prover));
    let location = path.display().to_string();
    let resumed = path.exists();
    let from_frontier = !resumed && args.frontier.as_ref().is_some_and(|f| f.exists());
    let mut book = if from_frontier {
        let file = args.frontier.as_ref().expect("checked");
        let header = antichess_book::frontier::read_header(file)?;
        let frontier_root = Position::from_fen(&header.root_fen, header.rules)?;
        if header.prover != prover || header.rules != rules || !frontier_root.same_position(&root) {
            anyhow::bail!(
                "{} is the frontier of a book of another position, prover or rule set ({} to win from {} under {} rules)",
                file.display(),
                header.prover,
                header.root_fen,
                header.rules
            );
        }
        let report = super::book::frontier::load(file, &location, tablebase.as_ref())?;
        eprintln!(
            "{}",
            super::book::frontier::loaded_line(file, &location, &report)
        );
        Book::open_for_writing(&location)?
    } else if resumed {
        let book = Book::open_for_writing(&location)?;
        let meta = book.meta();
        if meta.prover != prover || !book.root_position().same_position(&root) {
            anyhow::bail!(
                "{location} is a book of another position or prover: remove it or give --cache"
            );
        }
        book
    } else {
        Book::create(&location, &root, prover, &prolog)?
    };
    let before = book.counts()?;
    eprintln!(
        "book: {location} ({}: {} nodes, {} searches so far)",
        if resumed { "resumed" } else { "new" },
        before.nodes,
        before.searches
    );
    let mut seeded = 0;
    for file in super::book::seed::proof_files(&args.seed)? {
        let report = seed_file(&mut book, &file, tablebase.as_ref())
            .with_context(|| format!("seeding from {}", file.display()))?;
        seeded += 1;
        if report.won_now > 0 {
            eprintln!(
                "seed {}: {} book node(s) won at once",
                file.display(),
                report.won_now
            );
        }
    }
    for text in &args.line {
        let line = crate::common::book::moves_from_root(&book, Some(text))
            .with_context(|| format!("--line \"{text}\""))?;
        // (A resumed run meets its line decided, or grown: a message, not an error.)
        match book.queue_line(&line) {
            Ok((node, ahead)) => eprintln!(
                "line queued: {text} (at book node {}{})",
                node.id,
                if ahead.is_empty() {
                    String::new()
                } else {
                    format!(", {} move(s) past the book's end", ahead.len())
                }
            ),
            Err(e) => eprintln!("line {text} not queued: {e}"),
        }
    }
    drop(book);

    // Grow until the root is decided, the time runs out or Ctrl-C.
    let stop = stop_on_ctrl_c(
        "stopping: the running searches stop and their numbers are written; run the same command to go on",
    );
    let stats = GrowStats::default();
    let grow_started = Instant::now();
    let mut grown = GrownTables::default();
    // The book grows in rounds; a round ends when a table round building beside it (a
    // child process, every --tables-every searches with --grow-tables) is done, or when a
    // frontier save is due (every --frontier-every); the workers start again after either
    // (a new table is probed from then on).
    let mut tables_at = 0;
    let mut building: Option<TableRound> = None;
    // The book's counts of materials met when the previous round began (--tables-met
    // recent).
    let mut met_before: Option<HashMap<String, u64>> = None;
    let mut frontier_at = Instant::now();
    let mut frontier_saves = 0u32;
    let mut saving: Option<std::thread::JoinHandle<anyhow::Result<SaveReport>>> = None;
    let end = loop {
        let done = stats.searches.load(Relaxed);
        let can_build = args.grow_tables > 0 && tablebase.is_some();
        if can_build && building.is_none() && done >= tables_at + args.tables_every {
            tables_at = done;
            if let Some(tables) = tablebase.as_ref() {
                let met = crate::common::book::materials_met(&location, tables.rules())?;
                let choice = match (args.tables_met, &met_before) {
                    (TablesMet::Recent, Some(before)) => since(&met, before),
                    _ => met.clone(),
                };
                met_before = Some(met.into_iter().collect());
                building = start_table_round(
                    &choice,
                    tables,
                    args.grow_tables,
                    args.units + 1,
                    prover,
                    &tables_dir,
                )?;
            }
        }
        let left = args.searches.map(|n| n.saturating_sub(done));
        let next_tables = (can_build && building.is_none())
            .then(|| (tables_at + args.tables_every).saturating_sub(done).max(1));
        let time_left = args.time.map(|t| t.saturating_sub(grow_started.elapsed()));
        let frontier_left = args.frontier.as_ref().map(|_| {
            args.frontier_every
                .saturating_sub(frontier_at.elapsed())
                .max(Duration::from_secs(1))
        });
        let options = GrowOptions {
            workers: args.workers,
            search_nodes: args.search_nodes,
            hash_bytes: worker_hash(args),
            max_time: match (time_left, frontier_left) {
                (Some(t), Some(f)) => Some(t.min(f)),
                (t, f) => t.or(f),
            },
            max_searches: match (left, next_tables) {
                (Some(l), Some(r)) => Some(l.min(r)),
                (l, r) => l.or(r),
            },
            tablebase_units: units,
            proof_dir: Some(leaf_dir(&path)),
            selection,
            effort: args.walk.effort(args.search_nodes, WalkDefaults::PROVE),
            initial: initial.clone(),
            hints: hints.clone(),
            ..GrowOptions::default()
        };
        // The round stops on Ctrl-C or when the table round beside it is done.
        let round_stop = Arc::new(AtomicBool::new(false));
        let round_over = AtomicBool::new(false);
        let mut finished = None;
        let end = std::thread::scope(|scope| {
            let watcher = scope.spawn(|| -> Option<std::io::Result<std::process::ExitStatus>> {
                while !round_over.load(Relaxed) {
                    if stop.load(Relaxed) {
                        round_stop.store(true, Relaxed);
                    }
                    if let Some(round) = building.as_mut() {
                        match round.child.try_wait() {
                            Ok(None) => {}
                            Ok(Some(status)) => {
                                round_stop.store(true, Relaxed);
                                return Some(Ok(status));
                            }
                            Err(e) => {
                                round_stop.store(true, Relaxed);
                                return Some(Err(e));
                            }
                        }
                    }
                    std::thread::sleep(Duration::from_millis(100));
                }
                None
            });
            let end = grow_with_progress(
                &location,
                tablebase.as_ref(),
                &options,
                &round_stop,
                &stats,
                args.report_every,
                grow_started,
            );
            round_over.store(true, Relaxed);
            finished = watcher.join().unwrap_or(None);
            end
        })?;
        let time_up = args.time.is_some_and(|t| grow_started.elapsed() >= t);
        let searches_up = args
            .searches
            .is_some_and(|n| stats.searches.load(Relaxed) >= n);
        let interrupted = stop.load(Relaxed);
        let run_over = matches!(end, GrowEnd::Solved) || interrupted || time_up || searches_up;
        if finished.is_none() && run_over {
            // A table round under way: finished for a run that ends by its search budget
            // (the same tables every time), stopped otherwise (the tables it finished are
            // kept; a table is written whole or not at all).
            if let Some(mut round) = building.take() {
                let finish = searches_up && !interrupted && end != GrowEnd::Solved;
                if !finish {
                    let _ = round.child.kill();
                    eprintln!("tables: the table round under way stops with the run (the tables it finished are kept)");
                }
                if round.child.wait().is_ok() {
                    let built = round.done(&tables_dir);
                    let any = built.tables > 0;
                    grown.add(built);
                    if any {
                        // The report names the tables the run ends with.
                        tablebase =
                            solver_tables_of("--units", &args.tables, rules, args.units, json_out)?;
                        units = tablebase
                            .as_ref()
                            .map_or(0, antichess_tb::Tablebase::max_units);
                    }
                }
            }
        }
        if let Some(status) = finished {
            let round = building.take().expect("a table round was watched");
            match status {
                Ok(s) if s.success() => {}
                Ok(s) => eprintln!(
                    "warning: the table round ended with {s}; the run goes on without its tables"
                ),
                Err(e) => eprintln!(
                    "warning: the table round could not be watched ({e}); the run goes on"
                ),
            }
            let built = round.done(&tables_dir);
            eprintln!(
                "tables: {} bound table(s) built in {:.1} s beside the searches; probed from now on",
                built.tables, built.seconds
            );
            let any = built.tables > 0;
            grown.add(built);
            if any {
                tablebase = solver_tables_of("--units", &args.tables, rules, args.units, json_out)?;
                units = tablebase
                    .as_ref()
                    .map_or(0, antichess_tb::Tablebase::max_units);
            }
        }
        if run_over {
            break if interrupted { GrowEnd::Stopped } else { end };
        }
        if let Some(file) = &args.frontier {
            // A save writes the proof of every solved subtree (minutes on a big book): it
            // runs beside the searches on its own read-only handle (a won subtree no
            // longer changes), and the next one starts only when it is done.
            if saving
                .as_ref()
                .is_some_and(std::thread::JoinHandle::is_finished)
            {
                frontier_saves += finish_save(saving.take(), file)?;
            }
            if saving.is_none() && frontier_at.elapsed() >= args.frontier_every {
                let options = frontier_options(args, units, &path);
                let (location, file) = (location.clone(), file.clone());
                let tables = tablebase.is_some().then(|| tables_dir.clone());
                saving = Some(std::thread::spawn(move || {
                    let tablebase = tables
                        .map(|dir| antichess_tb::Tablebase::open(&dir, rules))
                        .transpose()?;
                    let mut book = Book::open_read_only(&location)?;
                    super::book::frontier::save(&mut book, tablebase.as_ref(), &options, &file)
                }));
                frontier_at = Instant::now();
            }
        }
        let in_rounds = args.grow_tables > 0 || args.frontier.is_some();
        if end != GrowEnd::Budget && end != GrowEnd::Stopped || !in_rounds {
            break end;
        }
    };
    if let Some(file) = &args.frontier {
        frontier_saves += finish_save(saving.take(), file)?;
    }
    let grow_seconds = started.elapsed().as_secs_f64();
    if let Some(last) = stats
        .last_proof_error
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .as_ref()
    {
        eprintln!(
            "warning: {} proved node(s) whose proof could not be extracted from the search's table; the last: {last}",
            stats.proofs_failed.load(Relaxed)
        );
    }
    let mut book = Book::open(&location)?;
    let root_node = book.root()?;
    let searches = stats.searches.load(Relaxed);
    let counts = book.counts()?;
    let mut report = json!({
        "book": location,
        "resumed": resumed,
        "workers": args.workers,
        "search_nodes": args.search_nodes,
        "hash_bytes": worker_hash(args),
        "walk": format!("{selection:?}"),
        "from_frontier": from_frontier,
        "seeds": seeded,
        "tables_units": units,
        "tables_complete_units": complete,
        "tables_seconds": table_seconds,
        "tables_grown": {"rounds": grown.rounds, "tables": grown.tables, "seconds": grown.seconds, "met": format!("{:?}", args.tables_met).to_lowercase()},
        "searches": searches,
        "searches_in_all": counts.searches,
        "book_nodes": counts.nodes,
        "root": {"status": root_node.status.to_string(), "proof": json_number(root_node.proof), "disproof": json_number(root_node.disproof)},
        "grow_seconds": grow_seconds,
        "proofs_not_kept": stats.proofs_failed.load(Relaxed),
        "proof_file": null,
        "verified": null,
    });
    if !root_node.status.is_proven() {
        // Not solved in this run: keep what is solved as proof files, and the frontier.
        if let Some(file) = &args.frontier {
            let options = frontier_options(args, units, &path);
            let saved = super::book::frontier::save(&mut book, tablebase.as_ref(), &options, file)?;
            eprintln!("{}", super::book::frontier::saved_line(file, &saved));
            frontier_saves += 1;
            report["frontier"] =
                json!({"file": file.display().to_string(), "saves": frontier_saves, "last": saved});
        }
        let sub = PathBuf::from(format!("{location}.subtrees"));
        let mut written = 0;
        if end != GrowEnd::Stopped {
            let options = prove_options(args, units, None, &path, Some(stop.clone()));
            if let Ok(list) = prove_subtrees(
                &mut book,
                tablebase.as_ref(),
                &options,
                &sub,
                2,
                &mut |_| {},
            ) {
                written = list.iter().filter(|s| s.result.is_ok()).count();
            }
        }
        report["solved"] = false.into();
        report["subtrees"] = json!({"dir": sub.display().to_string(), "written": written});
        if json_out {
            println!("{}", serde_json::to_string_pretty(&report)?);
        } else {
            println!(
                "not proved yet after {searches} searches in this run ({}): root proof {} disproof {}; the book is kept in {location}, run the same command to go on{}",
                match end {
                    GrowEnd::Stopped => "stopped",
                    GrowEnd::Budget => "time is up",
                    GrowEnd::Solved => "solved",
                },
                number(root_node.proof),
                number(root_node.disproof),
                if written > 0 {
                    format!("; {written} solved subtrees written to {}", sub.display())
                } else {
                    String::new()
                }
            );
        }
        return Ok(ExitCode::from(3));
    }
    if !root_node.status.is_win() {
        report["solved"] = true.into();
        if json_out {
            println!("{}", serde_json::to_string_pretty(&report)?);
        } else {
            println!("disproved: {prover} does not win from {}", root.fen());
        }
        return Ok(ExitCode::from(1));
    }

    // Prove, minimising with the time left.
    let left = args
        .time
        .filter(|_| !args.no_minimize)
        .map(|t| t.saturating_sub(started.elapsed()))
        .filter(|t| *t >= Duration::from_secs(1));
    let options = prove_options(args, units, left, &path, Some(stop));
    eprintln!("the root is won: assembling the proof");
    let (proved, verified) = prove_to_file(
        &mut book,
        tablebase.as_ref(),
        &options,
        &args.output,
        &mut |e| {
            if let antichess_book::ProveEvent::LeafSolved { leaves, .. } = e {
                if leaves % 100 == 0 {
                    eprintln!("leaves re-solved: {leaves}");
                }
            }
        },
    )?;
    report["solved"] = true.into();
    report["proof_file"] = args.output.display().to_string().into();
    report["verified"] = verified.verdict.is_ok().into();
    report["proof_nodes"] = proved.counts.total.into();
    report["bytes"] = verified.bytes.into();
    report["assembled_nodes"] = proved.assembled_nodes.into();
    report["minimized"] = proved.minimized.is_some().into();
    report["seconds"] = started.elapsed().as_secs_f64().into();
    if let Err(e) = &verified.verdict {
        report["error"] = e.clone().into();
    }
    if json_out {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!(
            "proved: {} wins from {} ({} searches in all, {} book nodes); proof {} ({} nodes{}, {} bytes), {} in {:.1} s",
            prover,
            root.fen(),
            counts.searches,
            counts.nodes,
            args.output.display(),
            proved.counts.total,
            if proved.minimized.is_some() {
                format!(", {} before minimising", proved.assembled_nodes)
            } else {
                String::new()
            },
            verified.bytes,
            match &verified.verdict {
                Ok(_) => "verified".to_string(),
                Err(e) => format!("verification FAILED: {e}"),
            },
            started.elapsed().as_secs_f64()
        );
    }
    Ok(if verified.verdict.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// How the leaves are re-solved: their proofs kept beside the book, so a stopped prove
/// goes on from them too.
fn prove_options(
    args: &ProveArgs,
    units: u32,
    minimize: Option<Duration>,
    book: &Path,
    stop: Option<Arc<AtomicBool>>,
) -> ProveOptions {
    ProveOptions {
        hash_bytes: worker_hash(args).max(64 << 20),
        tablebase_units: units,
        minimize,
        stop,
        leaf_dir: Some(leaf_dir(book)),
        threads: args.workers,
        ..ProveOptions::default()
    }
}

/// Each worker's transposition table: --hash, or half the memory available (at the
/// first call: the workers' tables are not counted again later) shared by the workers, at
/// most 4G and at least 256M each.
fn worker_hash(args: &ProveArgs) -> usize {
    static AVAILABLE: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    if let Some(hash) = args.hash {
        return hash;
    }
    let available = AVAILABLE.get_or_init(memory_available);
    let share = available.map_or(256 << 20, |a| a / 2 / args.workers.max(1) as u64);
    usize::try_from(share.clamp(256 << 20, 4 << 30)).unwrap_or(256 << 20)
}

/// The memory available for new work (MemAvailable of /proc/meminfo), if known.
fn memory_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// How a frontier save assembles the won subtrees' proofs: from the leaf proofs the
/// workers kept, a leaf that was not kept searched again within a few searches' budget.
fn frontier_options(args: &ProveArgs, units: u32, book: &Path) -> ProveOptions {
    ProveOptions {
        hash_bytes: 64 << 20,
        leaf_nodes: Some(args.search_nodes.saturating_mul(4)),
        tablebase_units: units,
        leaf_dir: Some(leaf_dir(book)),
        ..ProveOptions::default()
    }
}

/// Waits for a frontier save started beside the searches (if any) and prints its line;
/// 1 if it wrote the file.
fn finish_save(
    saving: Option<std::thread::JoinHandle<anyhow::Result<SaveReport>>>,
    file: &Path,
) -> anyhow::Result<u32> {
    let Some(handle) = saving else {
        return Ok(0);
    };
    let report = handle
        .join()
        .map_err(|_| anyhow::anyhow!("the frontier save beside the searches panicked"))?
        .with_context(|| format!("writing the frontier {}", file.display()))?;
    eprintln!("{}", super::book::frontier::saved_line(file, &report));
    Ok(1)
}

/// Runs `grow`, writing a progress line to stderr every `every`.
fn grow_with_progress(
    location: &str,
    tablebase: Option<&antichess_tb::Tablebase>,
    options: &GrowOptions,
    stop: &Arc<AtomicBool>,
    stats: &GrowStats,
    every: Duration,
    started: Instant,
) -> anyhow::Result<GrowEnd> {
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let mut next = (started.elapsed().as_secs_f64() / every.as_secs_f64()).floor() as u32 * every + every;
            while !done.load(Relaxed) {
                std::thread::sleep(Duration::from_millis(100).min(every));
                if started.elapsed() < next {
                    continue;
                }
                next += every;
                let Ok(mut book) = Book::open_read_only(location) else { continue };
                let (Ok(root), Ok(counts)) = (book.root(), book.counts()) else { continue };
                let failed = stats.proofs_failed.load(Relaxed);
                eprintln!(
                    "{:>6.0}s  root proof {} disproof {}  book {} nodes ({} won, {} lost, {} open leaves)  {} searches, {} leaves decided{}",
                    started.elapsed().as_secs_f64(),
                    number(root.proof),
                    number(root.disproof),
                    counts.nodes,
                    counts.won,
                    counts.lost,
                    counts.open_leaves,
                    stats.searches.load(Relaxed),
                    stats.decided.load(Relaxed),
                    if failed > 0 {
                        format!(", {failed} proofs not kept (searched again at the assembly)")
                    } else {
                        String::new()
                    },
                );
            }
        });
        let end = grow(location, tablebase, options, stop, stats);
        done.store(true, Relaxed);
        Ok(end?)
    })
}

/// What --grow-tables built over a run.
#[derive(Debug, Default)]
struct GrownTables {
    /// Rounds that built tables.
    rounds: u64,
    /// Bound tables built (dependencies included).
    tables: usize,
    seconds: f64,
}

impl GrownTables {
    fn add(&mut self, round: GrownTables) {
        self.rounds += round.rounds;
        self.tables += round.tables;
        self.seconds += round.seconds;
    }
}

/// A table round of --grow-tables under way: `antichess tb build --bound` in a child
/// process beside the searches (one thread), so that the run can stop it when its time is
/// up.
struct TableRound {
    child: std::process::Child,
    started: Instant,
    /// Table files in the directory when it started.
    files_before: usize,
}

impl TableRound {
    /// What the round built (the table files it added).
    fn done(self, dir: &Path) -> GrownTables {
        let built = table_files(dir).saturating_sub(self.files_before);
        GrownTables {
            rounds: u64::from(built > 0),
            tables: built,
            seconds: self.started.elapsed().as_secs_f64(),
        }
    }
}

/// The table files in `dir`.
fn table_files(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |entries| {
        entries
            .filter_map(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == "actb"))
            .count()
    })
}

/// Starts a table round: the bound tables, for `prover`, of the `k` materials of at most
/// `max_units` units that the book's searches met most without any table (exact, or bound
/// for `prover`), built into `dir` with their dependencies by a child process. `None` when
/// there is nothing to build.
/// Which searches' counts choose a table round's materials (`--tables-met`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TablesMet {
    /// Every search the book has made.
    All,
    /// The searches since the previous round began (the first round: all).
    Recent,
}

/// The counts of `now` less those of `before`, most first (ties by name), without the
/// materials met no more since.
fn since(now: &[(String, u64)], before: &HashMap<String, u64>) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = now
        .iter()
        .map(|(name, n)| {
            (
                name.clone(),
                n.saturating_sub(before.get(name).copied().unwrap_or(0)),
            )
        })
        .filter(|(_, n)| *n > 0)
        .collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out
}

fn start_table_round(
    met: &[(String, u64)],
    tables: &antichess_tb::Tablebase,
    k: usize,
    max_units: u32,
    prover: Color,
    dir: &Path,
) -> anyhow::Result<Option<TableRound>> {
    let mut names = Vec::new();
    for (name, _) in met {
        if names.len() == k {
            break;
        }
        let m: antichess_tb::Material = name
            .parse()
            .with_context(|| format!("material {name:?} recorded in the book"))?;
        if m.units() <= max_units && !tables.contains(&m) && !tables.has_bound_table(&m, prover) {
            names.push(m.name());
        }
    }
    if names.is_empty() {
        return Ok(None);
    }
    eprintln!(
        "tables: building bound tables for {prover} of the materials met most, beside the searches: {}",
        names.join(", ")
    );
    let exe = std::env::current_exe().context("finding this program to build tables")?;
    let files_before = table_files(dir);
    let child = std::process::Command::new(exe)
        .args([
            "tb",
            "build",
            "--bound",
            prover.name(),
            "--threads",
            "1",
            "--rules",
        ])
        .arg(tables.rules().to_string())
        .arg("--tables")
        .arg(dir)
        .args(&names)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .spawn()
        .context("starting `antichess tb build` for the table round")?;
    Ok(Some(TableRound {
        child,
        started: Instant::now(),
        files_before,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_counts_are_those_since_the_previous_round() {
        let before: HashMap<String, u64> = [("KRPPk".to_string(), 900), ("RPPpp".to_string(), 50)]
            .into_iter()
            .collect();
        let now = vec![
            ("KRPPk".to_string(), 1_000),
            ("RPPpp".to_string(), 450),
            ("NPPnp".to_string(), 200),
            ("QPPpp".to_string(), 0),
        ];
        assert_eq!(
            since(&now, &before),
            vec![
                ("RPPpp".to_string(), 400),
                ("NPPnp".to_string(), 200),
                ("KRPPk".to_string(), 100),
            ]
        );
        // Nothing met since: no material.
        let same: HashMap<String, u64> = now.iter().cloned().collect();
        assert!(since(&now, &same).is_empty());
    }
}
