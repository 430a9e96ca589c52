//! `antichess bench book`: grows a fresh book on a fixed line until it is solved, for each
//! search budget and worker count asked, then proves and verifies it; prints time,
//! searches, searches/s, positions/s, book size, proof size and the time of `book prove`
//! (with as many threads as the grow had workers). A budget of 1 node per search measures
//! the book's own overhead (claim, walk, write and minimax per search).

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use antichess_book::{
    grow, prove_to_file, AssembleOptions, Book, GrowEnd, GrowOptions, GrowStats, Selection,
};
use antichess_core::{play_move_text, Color, Position, Rules};
use anyhow::Context;
use clap::Args;
use serde_json::json;

use crate::common::output::{peak_memory, Format};
use crate::common::parse::{parse_duration, parse_nodes, parse_threads};
use crate::common::tables::solver_tables;

#[derive(Debug, Args)]
pub struct BookBenchArgs {
    /// The book's root, as moves from the start (White to prove a win).
    #[arg(long, default_value = "e3 Na6")]
    pub moves: String,

    /// Node budgets of one leaf search to measure, comma-separated (counts, or 20K, 2M).
    #[arg(long, value_delimiter = ',', default_value = "1,20000,200000", value_parser = parse_nodes)]
    pub search_nodes: Vec<u64>,

    /// Worker counts to measure, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,2", value_parser = parse_threads)]
    pub workers: Vec<usize>,

    /// Give up on one configuration after this long.
    #[arg(long, value_name = "T", default_value = "5m", value_parser = parse_duration)]
    pub time: Duration,

    /// Build missing tables with at most this many units first (0: no tables).
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub tb_units: u32,

    /// Directory of table files (default: ~/.cache/antichess/tables/international).
    #[arg(long, value_name = "DIR")]
    pub tables: Option<std::path::PathBuf>,

    /// Text, or the figures as one JSON object.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

pub fn run(args: &BookBenchArgs) -> anyhow::Result<ExitCode> {
    let rules = Rules::INTERNATIONAL;
    let game = play_move_text(Position::start(rules), &args.moves)?;
    let tablebase = solver_tables(
        &args.tables,
        rules,
        args.tb_units,
        args.format == Format::Json,
    )?;
    let units = tablebase
        .as_ref()
        .map_or(0, antichess_tb::Tablebase::max_units);
    let dir = std::env::temp_dir().join(format!("antichess-bench-book-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let json = args.format == Format::Json;
    let mut rows = Vec::new();
    if !json {
        println!(
        "book benchmark: 1. {} (White to win), most-proving walk, tables up to {units} units, SQLite store",
        args.moves
    );
        println!(
            "{:>12} {:>7} {:<9} {:>8} {:>9} {:>10} {:>12} {:>10} {:>11} {:>8}  verifier",
            "search nodes",
            "workers",
            "result",
            "seconds",
            "searches",
            "searches/s",
            "positions/s",
            "book nodes",
            "proof nodes",
            "prove s"
        );
    }
    let mut all_valid = true;
    let result = (|| -> anyhow::Result<()> {
        for &search_nodes in &args.search_nodes {
            for &workers in &args.workers {
                let location = dir
                    .join(format!("b-{search_nodes}-{workers}.book"))
                    .display()
                    .to_string();
                drop(Book::create(
                    &location,
                    game.position(),
                    Color::White,
                    game.moves(),
                )?);
                let options = GrowOptions {
                    workers: workers.max(1),
                    search_nodes: search_nodes.max(1),
                    hash_bytes: 64 << 20,
                    max_time: Some(args.time),
                    selection: Selection::MostProving,
                    tablebase_units: units,
                    ..GrowOptions::default()
                };
                let stats = GrowStats::default();
                let start = Instant::now();
                let end = grow(
                    &location,
                    tablebase.as_ref(),
                    &options,
                    &Arc::new(AtomicBool::new(false)),
                    &stats,
                )?;
                let seconds = start.elapsed().as_secs_f64();
                let mut book = Book::open(&location)?;
                let counts = book.counts()?;
                let searches = stats.searches.load(Relaxed);
                let (proof_nodes, prove_seconds, verdict) = if end == GrowEnd::Solved {
                    let (report, verified) = prove_to_file(
                        &mut book,
                        tablebase.as_ref(),
                        &AssembleOptions {
                            hash_bytes: 256 << 20,
                            tablebase_units: units,
                            threads: workers.max(1),
                            ..AssembleOptions::default()
                        },
                        &dir.join("p.proof"),
                        &mut |_| {},
                    )?;
                    let verdict = match verified.verdict {
                        Ok(_) => "valid".to_string(),
                        Err(e) => {
                            all_valid = false;
                            format!("INVALID: {e}")
                        }
                    };
                    (
                        report.counts.total.to_string(),
                        format!("{:.2}", report.seconds),
                        verdict,
                    )
                } else {
                    ("-".to_string(), "-".to_string(), "-".to_string())
                };
                if json {
                    rows.push(json!({
                        "search_nodes": search_nodes,
                        "workers": workers,
                        "result": if end == GrowEnd::Solved { "solved" } else { "unsolved" },
                        "seconds": seconds,
                        "searches": searches,
                        "searches_per_second": searches as f64 / seconds.max(1e-9),
                        "positions_per_second": stats.nodes.load(Relaxed) as f64 / seconds.max(1e-9),
                        "book_nodes": counts.nodes,
                        "proof_nodes": proof_nodes.parse::<u64>().ok(),
                        "prove_seconds": prove_seconds.parse::<f64>().ok(),
                        "verified": (verdict != "-").then(|| verdict == "valid"),
                        "error": verdict.strip_prefix("INVALID: "),
                    }));
                    continue;
                }
                println!(
                    "{:>12} {:>7} {:<9} {:>8.2} {:>9} {:>10.1} {:>12.0} {:>10} {:>11} {:>8}  {verdict}",
                    search_nodes,
                    workers,
                    if end == GrowEnd::Solved { "solved" } else { "unsolved" },
                    seconds,
                    searches,
                    searches as f64 / seconds.max(1e-9),
                    stats.nodes.load(Relaxed) as f64 / seconds.max(1e-9),
                    counts.nodes,
                    proof_nodes,
                    prove_seconds,
                );
            }
        }
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result?;
    if json {
        println!(
            "{}",
            json!({
                "moves": args.moves,
                "tables_units": units,
                "store": "sqlite",
                "results": rows,
                "peak_memory_bytes": peak_memory(),
            })
        );
    } else if let Some(peak) = peak_memory() {
        println!("peak memory: {:.1} MB", peak as f64 / 1e6);
    }
    Ok(if all_valid {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
