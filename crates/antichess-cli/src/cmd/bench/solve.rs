//! `antichess bench solve`: proves the fixed set of opening lines (the twelve easy Black
//! replies to 1. e3, and Black's wins against 1. e4, 1. d4 and 1. d3), writes and verifies
//! each proof, and prints result, time, nodes, nodes/s, proof size and the verifier's verdict
//! beside the reference solution's proof sizes; then the search speed per thread count and
//! the bytes per table entry.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use antichess_core::{play_move_text, Color, Position, Rules};
use antichess_pns::{SearchOptions, SearchStatus, ENTRY_BYTES};
use anyhow::Context;
use clap::Args;
use serde_json::{json, Value};

use crate::common::args::EvalArgs;
use crate::common::output::{peak_memory, Format};
use crate::common::parse::{parse_duration, parse_nodes, parse_size, parse_threads};
use crate::common::solving::{minimize_options, solve_position};
use crate::common::tables::solver_tables;

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

/// (moves from the start, prover, proof size of the reference solution when published).
const LINES: &[(&str, Color, Option<u64>)] = &[
    ("e3 d5", Color::White, Some(33)),
    ("e3 d6", Color::White, Some(33)),
    ("e3 Na6", Color::White, Some(3_271)),
    ("e3 g6", Color::White, Some(4_489)),
    ("e3 Nf6", Color::White, Some(23_388)),
    ("e3 h6", Color::White, Some(43_130)),
    ("e3 e5", Color::White, Some(43_271)),
    ("e3 h5", Color::White, Some(69_190)),
    ("e3 f5", Color::White, Some(89_635)),
    ("e3 a6", Color::White, Some(234_355)),
    ("e3 a5", Color::White, Some(261_691)),
    ("e3 f6", Color::White, Some(273_036)),
    ("e4", Color::Black, None),
    ("d4", Color::Black, None),
    ("d3", Color::Black, None),
];

fn selected(args: &SolveBenchArgs) -> anyhow::Result<Vec<(&'static str, Color, Option<u64>)>> {
    if args.lines.is_empty() {
        return Ok(LINES.to_vec());
    }
    args.lines
        .iter()
        .map(|name| {
            let name = name.trim();
            LINES
                .iter()
                .find(|(moves, _, _)| {
                    *moves == name || moves.strip_prefix("e3 ") == Some(name)
                })
                .copied()
                .ok_or_else(|| {
                    anyhow::anyhow!(
                        "--lines: \"{name}\" is not a benchmark line (the replies to 1. e3: d5, d6, Na6, g6, Nf6, h6, e5, h5, f5, a6, a5, f6; or e4, d4, d3)"
                    )
                })
        })
        .collect()
}

pub fn run(args: &SolveBenchArgs) -> anyhow::Result<ExitCode> {
    let lines = selected(args)?;
    let initial = args.eval.initial_numbers()?;
    let rules = Rules::INTERNATIONAL;
    let tablebase = solver_tables(
        &args.tables,
        rules,
        args.tb_units,
        args.format == Format::Json,
    )?;
    let units = tablebase
        .as_ref()
        .map_or(0, antichess_tb::Tablebase::max_units);
    let (proof_dir, temporary) = match &args.proof_dir {
        Some(dir) => (dir.clone(), false),
        None => (
            std::env::temp_dir().join(format!("antichess-bench-solve-{}", std::process::id())),
            true,
        ),
    };
    std::fs::create_dir_all(&proof_dir)
        .with_context(|| format!("creating {}", proof_dir.display()))?;
    let json = args.format == Format::Json;
    let mut out = json!({
        "rules": rules.to_string(),
        "tables_units": units,
        "threads": args.threads,
        "hash_bytes": args.hash,
        "nodes_budget": args.nodes,
        "seconds_budget": args.time.as_secs_f64(),
        "initial": initial.describe(),
    });
    let mut rows = Vec::new();
    if !json {
        println!(
        "solve benchmark: {rules} rules, tables up to {units} units, {} thread(s), hash {} MB, budget {} nodes / {:.0} s per line, initial numbers: {}",
        args.threads,
        args.hash >> 20,
        args.nodes,
        args.time.as_secs_f64(),
        initial.describe()
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
    let minimize = minimize_options(args.minimize, args.minimize_nodes);
    // One table for all lines, emptied before each: its pages are faulted in once.
    let solver = antichess_pns::Solver::try_new(args.hash, tablebase.as_ref())?;
    let mut all_verified = true;
    let mut unfinished = Vec::new();
    let result = (|| -> anyhow::Result<()> {
        for (moves, prover, reference) in &lines {
            let game = play_move_text(Position::start(rules), moves)?;
            let pos = *game.position();
            let mut options = SearchOptions::new(*prover);
            options.max_nodes = Some(args.nodes);
            options.max_time = Some(args.time);
            options.threads = args.threads.max(1);
            options.tablebase_units = units;
            options.initial = initial.clone();
            let path = proof_dir.join(format!("{}.proof", moves.replace(' ', "-")));
            solver.table().clear();
            let solved = solve_position(
                &solver,
                &pos,
                game.moves(),
                &options,
                Some(&path),
                minimize.as_ref(),
                Duration::ZERO,
                &mut |_| {},
                &mut |_| {},
            )?;
            let r = &solved.result;
            let seconds = r.elapsed.as_secs_f64();
            let (found, min_seconds) = match solved.proof.as_ref().and_then(|p| p.minimized) {
                Some(m) => (
                    m.nodes_before.to_string(),
                    format!("{:.1}", m.elapsed.as_secs_f64()),
                ),
                None => ("-".into(), "-".into()),
            };
            let (proof_nodes, bytes_per_node, verdict) = match &solved.proof {
                Some(p) => (
                    p.nodes.to_string(),
                    format!("{:.2}", p.bytes as f64 / p.nodes.max(1) as f64),
                    match &p.verified {
                        Ok(()) => "valid".to_string(),
                        Err(e) => {
                            all_verified = false;
                            format!("INVALID: {e}")
                        }
                    },
                ),
                None => ("-".into(), "-".into(), "-".into()),
            };
            if r.status != SearchStatus::Proved {
                unfinished.push(*moves);
            }
            if json {
                let proof = solved.proof.as_ref();
                rows.push(json!({
                    "line": moves,
                    "prover": prover.name(),
                    "result": r.status.name(),
                    "seconds": seconds,
                    "nodes": r.nodes,
                    "nodes_per_second": r.nodes as f64 / seconds.max(1e-9),
                    "unminimized_proof_nodes": proof.and_then(|p| p.minimized.map(|m| m.nodes_before)),
                    "minimize_seconds": proof.and_then(|p| p.minimized.map(|m| m.elapsed.as_secs_f64())),
                    "proof_nodes": proof.map(|p| p.nodes),
                    "reference_proof_nodes": reference,
                    "bytes_per_node": proof.map(|p| p.bytes as f64 / p.nodes.max(1) as f64),
                    "verified": proof.map(|p| p.verified.is_ok()),
                    "error": proof.and_then(|p| p.verified.as_ref().err()),
                }));
                continue;
            }
            println!(
                "{:<10} {:<8} {:<10} {:>8.2} {:>12} {:>10.0} {:>10} {:>8} {:>11} {:>11} {:>9}  {verdict}",
                moves,
                prover.name(),
                r.status.name(),
                seconds,
                r.nodes,
                r.nodes as f64 / seconds.max(1e-9),
                found,
                min_seconds,
                proof_nodes,
                reference.map_or("-".into(), |n| n.to_string()),
                bytes_per_node,
            );
        }
        Ok(())
    })();
    if temporary {
        let _ = std::fs::remove_dir_all(&proof_dir);
    }
    result?;
    if json {
        out["lines"] = rows.into();
        out["unproved"] = unfinished.into();
        if !args.no_speed {
            out["speed"] = speed(&solver, args, units)?.into();
        }
        out["entry_bytes"] = ENTRY_BYTES.into();
        out["peak_memory_bytes"] = peak_memory().into();
        println!("{out}");
        return Ok(if all_verified {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        });
    }
    if !unfinished.is_empty() {
        println!("not proved within the budget: {}", unfinished.join(", "));
    }
    if !args.no_speed {
        speed(&solver, args, units)?;
    }
    println!("table entry: {ENTRY_BYTES} bytes");
    if let Some(peak) = peak_memory() {
        println!("peak memory: {:.1} MB", peak as f64 / 1e6);
    }
    Ok(if all_verified {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Nodes/s on a fixed search (1. e3 g6, 10 seconds) with 1, 2, ... threads up to the cores:
/// printed as text, or returned as JSON rows with --format json.
fn speed(
    solver: &antichess_pns::Solver<'_>,
    args: &SolveBenchArgs,
    units: u32,
) -> anyhow::Result<Vec<Value>> {
    let json = args.format == Format::Json;
    let mut rows = Vec::new();
    let pos = *play_move_text(Position::start(Rules::INTERNATIONAL), "e3 g6")?.position();
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    if !json {
        println!("search speed on 1. e3 g6 (10 s or until solved, per thread count):");
    }
    let mut base = None;
    for threads in 1..=cores.max(args.threads) {
        let mut options = SearchOptions::new(Color::White);
        options.max_time = Some(Duration::from_secs(10));
        options.threads = threads;
        options.tablebase_units = units;
        options.initial = args.eval.initial_numbers()?;
        solver.table().clear();
        let r = solver.search(&pos, &options, &mut |_| {});
        let seconds = r.elapsed.as_secs_f64();
        let nps = r.nodes as f64 / seconds.max(1e-9);
        let (base_nps, base_seconds) = *base.get_or_insert((nps, seconds));
        if json {
            rows.push(json!({
                "threads": threads,
                "result": r.status.name(),
                "seconds": seconds,
                "nodes": r.nodes,
                "nodes_per_second": nps,
                "speedup_nodes_per_second": nps / base_nps,
                "speedup_time": base_seconds / seconds.max(1e-9),
            }));
            continue;
        }
        println!(
            "  {threads} thread(s): {} in {seconds:.2} s, {} nodes, {nps:.0} nodes/s ({:.0} per thread); speed-up: nodes/s x{:.2}, time x{:.2}",
            r.status.name(),
            r.nodes,
            nps / threads as f64,
            nps / base_nps,
            base_seconds / seconds.max(1e-9)
        );
    }
    Ok(rows)
}
