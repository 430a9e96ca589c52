//! `antichess bench`: fixed benchmarks that print their speed and assert their node counts
//! (so that a faster number is never a wrong one). Each is a library job (`movegen`:
//! [`antichess_core::bench`]); this parses the arguments and prints the rows and reports.

use std::process::ExitCode;

use antichess_core::bench::{movegen_bench, MovegenRow};
use clap::{Args, Subcommand};

use crate::common::output::{print_json, print_lines, Format};
use crate::common::parse::parse_threads_or_all;

mod book;
mod solve;
mod store;

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Move generation: single-thread perft on fixed positions, with bulk counting of the
    /// last ply and with every leaf played; node counts are asserted.
    Movegen(MovegenArgs),
    /// Tablebase generation: builds every table with at most --units units into a fresh
    /// directory and prints time, peak memory, positions and positions/s; with --table, then
    /// times each of those tables (their dependencies are built first and not counted):
    /// positions/s, the peak memory while it was built and its bytes per position, and the
    /// file's size.
    Tablebase(TablebaseArgs),
    /// Solver: proves the twelve easy Black replies to 1. e3 and Black's wins after the
    /// first moves e4, d4 and d3, minimises and verifies each proof; prints result, time,
    /// nodes, nodes/s and proof size (as found and minimised) beside the reference
    /// solution's, then nodes/s per thread count.
    Solve(solve::SolveBenchArgs),
    /// Book: grows a fresh book on a fixed line until solved, for each search budget and
    /// worker count, then proves and verifies it; prints time, searches/s, positions/s,
    /// book and proof size (1 node per search measures the store's overhead).
    Book(book::BookBenchArgs),
    /// Book store: claims and result writes per second that a store (SQLite file or
    /// PostgreSQL database) sustains with --processes worker processes doing empty
    /// searches (one node each).
    Store(store::StoreBenchArgs),
}

#[derive(Debug, Args)]
pub struct TablebaseArgs {
    /// Build all tables with at most this many units.
    #[arg(long, default_value_t = 4)]
    pub units: u32,

    /// Also time these larger tables, one by one, e.g. `--table KRkbn --table KPkrp` (a
    /// pawnless and a pawn table).
    #[arg(long, value_name = "SIGNATURE")]
    pub table: Vec<String>,

    /// Rule set.
    #[arg(long, default_value = "international")]
    pub rules: antichess_core::Rules,

    /// Directory to build in (default: a fresh temporary directory, removed afterwards).
    /// Tables already present there are not rebuilt.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<std::path::PathBuf>,

    /// Worker threads (default: all cores).
    #[arg(long, default_value_t = 0, value_parser = parse_threads_or_all)]
    pub threads: usize,

    /// Text, or the figures as one JSON object.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

#[derive(Debug, Args)]
pub struct MovegenArgs {
    /// Repeat each measurement this many times and report the fastest.
    #[arg(long, default_value_t = 3)]
    pub repeat: u32,

    /// Text, or the figures as one JSON object.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

pub fn run(command: &BenchCommand) -> anyhow::Result<ExitCode> {
    match command {
        BenchCommand::Movegen(args) => movegen(args),
        BenchCommand::Tablebase(args) => tablebase(args),
        BenchCommand::Solve(args) => solve::run(args),
        BenchCommand::Book(args) => book::run(args),
        BenchCommand::Store(args) => store::run(args),
    }
}

fn movegen(args: &MovegenArgs) -> anyhow::Result<ExitCode> {
    let json = args.format == Format::Json;
    if !json {
        println!("{}", MovegenRow::heading());
    }
    let report = movegen_bench(args.repeat, &mut |row| {
        if !json {
            println!("{row}");
        }
    })?;
    if json {
        print_json(&report)?;
    } else {
        println!("{}", report.end_text());
    }
    Ok(ExitCode::SUCCESS)
}

fn tablebase(args: &TablebaseArgs) -> anyhow::Result<ExitCode> {
    use antichess_tb::bench::{tablebase_bench, TablebaseBenchEvent, TablebaseBenchOptions};
    let json = args.format == Format::Json;
    let options = TablebaseBenchOptions {
        units: args.units,
        tables: args
            .table
            .iter()
            .map(|sig| sig.parse())
            .collect::<Result<_, _>>()?,
        rules: args.rules,
        dir: args.dir.clone(),
        threads: args.threads,
    };
    let progress = crate::common::progress::BuildProgress::new(json);
    let report = tablebase_bench(&options, &|e| match e {
        TablebaseBenchEvent::Build(e) => progress.event(e),
        TablebaseBenchEvent::BuildEnded => progress.finish(None),
    })?;
    print_lines(&report, args.format)
}
