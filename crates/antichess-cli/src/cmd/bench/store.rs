//! `antichess bench store`: the load a book store sustains. Creates a fresh book, runs
//! `--processes` `antichess book grow` processes of one worker each on it with a budget of
//! one node per search (empty searches: the time goes to the walk, the claim and the
//! result's write with its minimax), and reports from the search log how many claims and
//! how many result writes per second the store took.

use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use antichess_book::{redact, remove_store, Book, Location};
use antichess_core::{play_move_text, Color, Position, Rules};
use anyhow::{bail, Context};
use clap::Args;
use serde_json::json;

use crate::common::output::Format;
use crate::common::parse::{parse_duration, parse_threads};

#[derive(Debug, Args)]
pub struct StoreBenchArgs {
    /// Where to create the book: a file or a postgres:// URL that holds no book yet
    /// (default: a SQLite file in a temporary directory). It is removed afterwards.
    #[arg(long, value_name = "LOCATION")]
    pub store: Option<String>,

    /// Worker processes (one worker each).
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = parse_threads)]
    pub processes: usize,

    /// How long the workers run: seconds, or with a unit (20s, 1m).
    #[arg(long, value_name = "T", default_value = "20s", value_parser = parse_duration)]
    pub time: Duration,

    /// The book's root, as moves from the start (White to prove a win); short lines are
    /// solved within seconds by empty searches, which would end the measurement early.
    #[arg(long, default_value = "e3")]
    pub moves: String,

    /// Keep the book afterwards.
    #[arg(long)]
    pub keep: bool,

    /// Text, or the figures as one JSON object.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

pub fn run(args: &StoreBenchArgs) -> anyhow::Result<ExitCode> {
    if args.processes == 0 {
        bail!("--processes 0: give at least one");
    }
    let rules = Rules::INTERNATIONAL;
    let game = play_move_text(Position::start(rules), &args.moves)?;
    let temp_dir =
        std::env::temp_dir().join(format!("antichess-bench-store-{}", std::process::id()));
    let location = match &args.store {
        Some(location) => location.clone(),
        None => {
            std::fs::create_dir_all(&temp_dir)
                .with_context(|| format!("creating {}", temp_dir.display()))?;
            temp_dir.join("store.book").display().to_string()
        }
    };
    let shown = redact(&location);
    drop(Book::create(
        &location,
        game.position(),
        Color::White,
        game.moves(),
    )?);
    let kind = match Location::parse(&location) {
        Location::Sqlite(_) => "SQLite",
        Location::Postgres(_) => "PostgreSQL",
    };
    if args.format == Format::Text {
        println!(
            "store benchmark: {kind} book at {shown}, root 1. {}, {} processes of 1 worker, 1 node per search, {} s",
            args.moves,
            args.processes,
            args.time.as_secs_f64()
        );
    }
    let result = measure(args, &location, kind, &shown);
    if !args.keep {
        let _ = remove_store(&location);
    }
    let _ = std::fs::remove_dir_all(&temp_dir);
    result?;
    Ok(ExitCode::SUCCESS)
}

fn measure(args: &StoreBenchArgs, location: &str, kind: &str, shown: &str) -> anyhow::Result<()> {
    let exe = std::env::current_exe().context("finding the antichess binary")?;
    let seconds = args.time.as_secs_f64().to_string();
    let start = Instant::now();
    let children = (0..args.processes)
        .map(|_| {
            Command::new(&exe)
                .args([
                    "book",
                    "grow",
                    location,
                    "--workers",
                    "1",
                    "--search-nodes",
                    "1",
                    "--hash",
                    "1M",
                    "--tb-units",
                    "0",
                    "--time",
                    &seconds,
                    "--format",
                    "json",
                ])
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .context("starting a grow process")
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut failures = Vec::new();
    for child in children {
        let out = child.wait_with_output()?;
        if !out.status.success() {
            failures.push(String::from_utf8_lossy(&out.stderr).into_owned());
        }
    }
    let wall = start.elapsed().as_secs_f64();
    if let Some(first) = failures.first() {
        bail!(
            "{} grow process(es) failed; the first said:\n{first}",
            failures.len()
        );
    }
    let mut book = Book::open(location)?;
    let log = book.search_log()?;
    let counts = book.counts()?;
    let first = log.iter().map(|l| l.started_ms).min().unwrap_or(0);
    let last = log
        .iter()
        .filter_map(|l| l.finished_ms)
        .max()
        .unwrap_or(first);
    let span = ((last - first) as f64 / 1000.0).max(1e-3);
    let claims = log.len() as f64;
    let writes = log.iter().filter(|l| l.finished_ms.is_some()).count() as f64;
    let workers: std::collections::HashSet<_> = log.iter().map(|l| l.worker.as_str()).collect();
    if args.format == Format::Json {
        println!(
            "{}",
            json!({
                "store": kind,
                "location": shown,
                "moves": args.moves,
                "processes": args.processes,
                "seconds": args.time.as_secs_f64(),
                "claims": log.len(),
                "writes": writes as u64,
                "claims_per_second": claims / span,
                "writes_per_second": writes / span,
                "transactions_per_second": (claims + writes) / span,
                "span_seconds": span,
                "book_nodes": counts.nodes,
                "workers": workers.len(),
                "wall_seconds": wall,
            })
        );
        return Ok(());
    }
    println!(
        "{:>10} {:>10} {:>9} {:>9} {:>12} {:>10} {:>10}",
        "claims", "writes", "claims/s", "writes/s", "txns/s", "seconds", "book nodes"
    );
    println!(
        "{:>10} {:>10} {:>9.1} {:>9.1} {:>12.1} {:>10.1} {:>10}",
        claims,
        writes,
        claims / span,
        writes / span,
        (claims + writes) / span,
        span,
        counts.nodes
    );
    println!(
        "({} workers wrote to the log; rates over the log's span from the first claim to the last write; wall time {wall:.1} s)",
        workers.len()
    );
    Ok(())
}
