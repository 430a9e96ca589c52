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
use antichess_pns::bench::{
    bench_lines, solve_bench, LineRow, SolveBenchEvent, SolveBenchOptions, SolveBenchReport,
};
use clap::Args;

use crate::common::args::EvalArgs;
use crate::common::output::{peak_memory, Format};
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
        print_header(&options);
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
        print_end(&report, &unproved);
    }
    Ok(if verified {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The settings and the table's heading.
fn print_header(options: &SolveBenchOptions<'_>) {
    let units = options
        .tablebase
        .map_or(0, antichess_tb::Tablebase::max_units);
    println!(
        "solve benchmark: {} rules, tables up to {units} units, {} thread(s), hash {} MB, budget {} nodes / {:.0} s per line, initial numbers: {}",
        Rules::INTERNATIONAL,
        options.threads,
        options.hash_bytes >> 20,
        options.nodes,
        options.time.as_secs_f64(),
        options.initial.describe()
    );
    println!(
        "{:<10} {:<8} {:<10} {:>8} {:>12} {:>10} {:>10} {:>8} {:>11} {:>11} {:>9}  verifier",
        "line",
        "prover",
        "result",
        "seconds",
        "nodes",
        "nodes/s",
        "as found",
        "min. s",
        "proof nodes",
        "reference",
        "bytes/node"
    );
}

/// Prints a line's row, or the speed with one more thread; `unproved` collects the lines
/// not proved, printed before the speed.
fn print_event(event: SolveBenchEvent<'_>, unproved: &mut Vec<String>) {
    match event {
        SolveBenchEvent::Line(row) => {
            if row.result != "proved" {
                unproved.push(row.line.clone());
            }
            print_row(row);
        }
        SolveBenchEvent::SpeedStarted => {
            print_unproved(unproved);
            println!("search speed on 1. e3 g6 (10 s or until solved, per thread count):");
        }
        SolveBenchEvent::Speed(r) => println!(
            "  {} thread(s): {} in {:.2} s, {} nodes, {:.0} nodes/s ({:.0} per thread); speed-up: nodes/s x{:.2}, time x{:.2}",
            r.threads,
            r.result,
            r.seconds,
            r.nodes,
            r.nodes_per_second,
            r.nodes_per_second / r.threads as f64,
            r.speedup_nodes_per_second,
            r.speedup_time
        ),
    }
}

/// One line's row of the table.
fn print_row(row: &LineRow) {
    let verdict = match (row.verified, &row.error) {
        (Some(true), _) => "valid".to_string(),
        (Some(false), Some(e)) => format!("INVALID: {e}"),
        (Some(false), None) => "INVALID".to_string(),
        (None, _) => "-".to_string(),
    };
    let or_dash = |n: Option<String>| n.unwrap_or_else(|| "-".to_string());
    println!(
        "{:<10} {:<8} {:<10} {:>8.2} {:>12} {:>10.0} {:>10} {:>8} {:>11} {:>11} {:>9}  {verdict}",
        row.line,
        row.prover,
        row.result,
        row.seconds,
        row.nodes,
        row.nodes_per_second,
        or_dash(row.unminimized_proof_nodes.map(|n| n.to_string())),
        or_dash(row.minimize_seconds.map(|s| format!("{s:.1}"))),
        or_dash(row.proof_nodes.map(|n| n.to_string())),
        or_dash(row.reference_proof_nodes.map(|n| n.to_string())),
        or_dash(row.bytes_per_node.map(|b| format!("{b:.2}"))),
    );
}

fn print_unproved(unproved: &[String]) {
    if !unproved.is_empty() {
        println!("not proved within the budget: {}", unproved.join(", "));
    }
}

/// The lines after the table (and the speed): the lines not proved, the entry's size, the
/// peak memory.
fn print_end(report: &SolveBenchReport, unproved: &[String]) {
    if report.speed.is_none() {
        print_unproved(unproved);
    }
    println!("table entry: {} bytes", report.entry_bytes);
    if let Some(peak) = report.peak_memory_bytes {
        println!("peak memory: {:.1} MB", peak as f64 / 1e6);
    }
}
