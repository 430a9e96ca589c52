//! `antichess bench book`: grows a fresh book on a fixed line until it is solved, for each
//! search budget and worker count asked, then proves and verifies it; prints time,
//! searches, searches/s, positions/s, book size, proof size and the time of `book prove`
//! (with as many threads as the grow had workers). A budget of 1 node per search measures
//! the book's own overhead (claim, walk, write and minimax per search).

//! The measuring is [`antichess_book::jobs::bench`]; this prints its rows and report.

use std::process::ExitCode;
use std::time::Duration;

use antichess_book::jobs::bench::{bench_book, BookBenchOptions, BookBenchReport};
use antichess_book::text::bench::header_text;
use antichess_core::{play_move_text, Position, Rules};
use clap::Args;

use crate::common::output::{exit_code, peak_memory, print_json, Format};
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
    let json = args.format == Format::Json;
    let tablebase = solver_tables(&args.tables, rules, args.tb_units, json)?;
    let units = tablebase
        .as_ref()
        .map_or(0, antichess_tb::Tablebase::max_units);
    if !json {
        println!("{}", header_text(&args.moves, units));
    }
    let options = BookBenchOptions {
        search_nodes: args.search_nodes.clone(),
        workers: args.workers.clone(),
        time: args.time,
    };
    let rows = bench_book(&game, tablebase.as_ref(), &options, &mut |row| {
        if !json {
            println!("{row}");
        }
    })?;
    let all_valid = rows.iter().all(|r| r.verified != Some(false));
    if json {
        print_json(&BookBenchReport {
            moves: args.moves.clone(),
            tables_units: units,
            store: "sqlite",
            results: rows,
            peak_memory_bytes: peak_memory(),
        })?;
    } else if let Some(peak) = peak_memory() {
        println!("peak memory: {:.1} MB", peak as f64 / 1e6);
    }
    Ok(exit_code(all_valid))
}
