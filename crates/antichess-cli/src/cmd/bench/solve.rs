//! `antichess bench solve`: proves the fixed set of opening lines (the twelve easy Black
//! replies to 1. e3, and Black's wins against 1. e4, 1. d4 and 1. d3), writes and verifies
//! each proof, and prints result, time, nodes, nodes/s, proof size and the verifier's verdict
//! beside the reference solution's proof sizes; then the search speed per thread count and
//! the bytes per table entry. The job is the pns crate's ([`antichess_pns::bench`]); this
//! file parses the arguments into its options and prints its events and report.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use antichess_core::Rules;
use antichess_pns::bench::{bench_lines, solve_bench, SolveBenchEvent, SolveBenchOptions};
use antichess_pns::bench_text::{end_text, header_text, unproved_text, SPEED_HEADING};
use clap::Args;

use crate::common::args::EvalArgs;
use crate::common::output::{exit_code, peak_memory, Format};
use crate::common::parse::{parse_duration, parse_nodes, parse_size, parse_threads};
use crate::common::tables::solver_tables;
use antichess_pns::prove::job::minimize_within;

#[derive(Debug, Args)]
pub struct SolveBenchArgs {
    /// Only these lines (the moves after 1. e3, or e4/d4/d3), comma-separated, e.g. "d5,Na6".
    #[arg(long, value_delimiter = ',', value_name = "LINES")]
    pub lines: Vec<String>,

    /// Node budget per line (a count, or 500K, 20M, 2G).
    #[arg(long, value_name = "N", default_value = "2G", value_parser = parse_nodes)]
    pub nodes: u64,

    /// Time budget per line: seconds, or with a unit (90s, 5m). The whole set takes up to
    /// about 40 minutes with the defaults; `--lines` picks a few.
    #[arg(long, value_name = "T", default_value = "10m", value_parser = parse_duration)]
    pub time: Duration,

    /// Transposition table size (one table, emptied before each line).
    #[arg(long, value_name = "SIZE", default_value = "4G", value_parser = parse_size)]
    pub hash: usize,

    /// Search threads.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = parse_threads)]
    pub threads: usize,

    /// Directory of table files (default: ~/.cache/antichess/tables/international). A
    /// complete 4-unit set there (`antichess tb build --units 4`) is used when present.
    #[arg(long, value_name = "DIR")]
    pub tables: Option<PathBuf>,

    /// Build missing tables with at most this many units first (0: no tables).
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub tb_units: u32,

    /// Keep the proof files in this directory (default: a temporary one, removed).
    #[arg(long, value_name = "DIR")]
    pub proof_dir: Option<PathBuf>,

    /// Time per line for proof minimisation before the proof is written (0: off). Small
    /// proofs finish well within it.
    #[arg(long, value_name = "T", default_value = "5m", value_parser = parse_duration)]
    pub minimize: Duration,

    /// Minimise each proof within this many positions searched instead (or as well): the
    /// same proofs on every machine (a count, or 500K, 20M).
    #[arg(long, value_name = "N", value_parser = parse_nodes)]
    pub minimize_nodes: Option<u64>,

    /// Skip the speed measurement by thread count.
    #[arg(long)]
    pub no_speed: bool,

    #[command(flatten)]
    pub eval: EvalArgs,

    /// Text, or the figures as one JSON object.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

pub fn run(args: &SolveBenchArgs) -> anyhow::Result<ExitCode> {
    let lines = bench_lines(&args.lines)?;
    let initial = args.eval.initial_numbers()?;
    let json = args.format == Format::Json;
    let tablebase = solver_tables(&args.tables, Rules::INTERNATIONAL, args.tb_units, json)?;
    let options = SolveBenchOptions {
        lines,
        nodes: args.nodes,
        time: args.time,
        hash_bytes: args.hash,
        threads: args.threads,
        tablebase: tablebase.as_ref(),
        initial,
        proof_dir: args.proof_dir.clone(),
        minimize: minimize_within(args.minimize, args.minimize_nodes),
        speed: !args.no_speed,
    };
    let mut unproved = Vec::new();
    if !json {
        println!("{}", header_text(&options));
    }
    let mut report = solve_bench(&options, &mut |e| {
        if !json {
            print_event(e, &mut unproved);
        }
    })?;
    report.peak_memory_bytes = peak_memory();
    let verified = report.all_verified();
    if json {
        println!("{}", serde_json::to_value(&report)?);
    } else {
        print!("{}", end_text(&report, &unproved));
    }
    Ok(exit_code(verified))
}

/// Prints a line's row, or the speed with one more thread; `unproved` collects the lines
/// not proved, printed before the speed.
fn print_event(event: SolveBenchEvent<'_>, unproved: &mut Vec<String>) {
    match event {
        SolveBenchEvent::Line(row) => {
            if row.result != "proved" {
                unproved.push(row.line.clone());
            }
            println!("{row}");
        }
        SolveBenchEvent::SpeedStarted => {
            print!("{}", unproved_text(unproved));
            println!("{SPEED_HEADING}");
        }
        SolveBenchEvent::Speed(r) => println!("{r}"),
    }
}
