//! `antichess bench`: fixed benchmarks that print their speed and assert their node counts
//! (so that a faster number is never a wrong one).

use std::process::ExitCode;
use std::time::Instant;

use antichess_core::{perft, perft_full, Position, Rules};
use anyhow::bail;
use clap::{Args, Subcommand};
use serde_json::json;

use crate::common::output::{peak_memory, Format};
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
        println!(
            "{:<12} {:>5} {:>12} {:>10} {:>10}  mode",
            "position", "depth", "nodes", "seconds", "Mnodes/s"
        );
    }
    let mut rows = Vec::new();
    let mut totals = [(0u64, 0f64); 2];
    for &(name, fen, depth, expected, full) in antichess_core::MOVEGEN_SET {
        let pos = Position::from_fen(fen, Rules::INTERNATIONAL)?;
        let mut best = f64::INFINITY;
        for _ in 0..args.repeat.max(1) {
            let start = Instant::now();
            let nodes = if full {
                perft_full(&pos, depth)
            } else {
                perft(&pos, depth)
            };
            best = best.min(start.elapsed().as_secs_f64());
            if nodes != expected {
                bail!("node count mismatch for {name} depth {depth}: {nodes}, expected {expected}");
            }
        }
        let mode = if full {
            "every leaf played"
        } else {
            "last ply counted"
        };
        if json {
            rows.push(json!({
                "position": name,
                "fen": fen,
                "depth": depth,
                "nodes": expected,
                "seconds": best,
                "nodes_per_second": expected as f64 / best,
                "every_leaf_played": full,
            }));
        } else {
            println!(
                "{name:<12} {depth:>5} {expected:>12} {best:>10.3} {:>10.1}  {mode}",
                expected as f64 / best / 1e6
            );
        }
        let t = &mut totals[usize::from(full)];
        t.0 += expected;
        t.1 += best;
    }
    let counted = totals[0].0 as f64 / totals[0].1;
    let played = totals[1].0 as f64 / totals[1].1;
    if json {
        println!(
            "{}",
            json!({
                "results": rows,
                "nodes_per_second_last_ply_counted": counted,
                "nodes_per_second_every_leaf_played": played,
                "threads": 1,
            })
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!();
    println!("total, last ply counted:  {:.1} Mnodes/s", counted / 1e6);
    println!("total, every leaf played: {:.1} Mnodes/s", played / 1e6);
    println!("(single thread; node counts asserted)");
    Ok(ExitCode::SUCCESS)
}

fn tablebase(args: &TablebaseArgs) -> anyhow::Result<ExitCode> {
    use antichess_tb::{build, BuildOptions, Material};
    let json = args.format == Format::Json;
    let (dir, temporary) = match &args.dir {
        Some(dir) => (dir.clone(), false),
        None => (
            std::env::temp_dir().join(format!("antichess-bench-tb-{}", std::process::id())),
            true,
        ),
    };
    let progress = crate::common::progress::BuildProgress::new(json);
    let options = BuildOptions {
        rules: args.rules,
        dir: dir.clone(),
        threads: args.threads,
        strategy: Default::default(),
    };
    let result = (|| -> anyhow::Result<()> {
        let report = build(&Material::all_up_to(args.units), &options, &|e| {
            progress.event(e)
        })?;
        progress.finish(None);
        let by_units = |n: u32| {
            report
                .built
                .iter()
                .filter(|b| b.material.units() == n)
                .fold((0usize, 0u64, 0f64), |acc, b| {
                    (acc.0 + 1, acc.1 + b.stats.positions, acc.2 + b.seconds)
                })
        };
        let threads = if args.threads == 0 {
            rayon::current_num_threads()
        } else {
            args.threads
        };
        let mut out = json!({
            "rules": args.rules.to_string(),
            "threads": threads,
            "dir": dir.display().to_string(),
        });
        if !json {
            println!(
                "tablebase generation, {} rules, {threads} threads, into {}",
                args.rules,
                dir.display()
            );
            println!(
                "{:>5} {:>7} {:>14} {:>10} {:>14}",
                "units", "tables", "positions", "seconds", "positions/s"
            );
        }
        let mut units = Vec::new();
        for n in 2..=args.units {
            let (tables, positions, seconds) = by_units(n);
            if tables > 0 {
                let rate = positions as f64 / seconds.max(1e-9);
                if json {
                    units.push(json!({
                        "units": n,
                        "tables": tables,
                        "positions": positions,
                        "seconds": seconds,
                        "positions_per_second": rate,
                    }));
                } else {
                    println!("{n:>5} {tables:>7} {positions:>14} {seconds:>10.1} {rate:>14.0}");
                }
            }
        }
        let rate = report.positions as f64 / report.seconds.max(1e-9);
        if json {
            out["by_units"] = units.into();
            out["tables_built"] = report.built.len().into();
            out["tables_present"] = report.present.into();
            out["positions"] = report.positions.into();
            out["seconds"] = report.seconds.into();
            out["positions_per_second"] = rate.into();
        } else {
            println!(
                "total: {} tables built ({} already present), {} positions in {:.1} s = {:.2} M positions/s",
                report.built.len(),
                report.present,
                report.positions,
                report.seconds,
                rate / 1e6
            );
        }
        let mut tables = Vec::new();
        for sig in &args.table {
            let m: Material = sig.parse()?;
            let deps = antichess_tb::dependencies(&[m], args.rules);
            let deps: Vec<Material> = deps.into_iter().filter(|d| *d != m.canonical().0).collect();
            build(&deps, &options, &|e| progress.event(e))?;
            let one = build(&[m], &options, &|e| progress.event(e))?;
            progress.finish(None);
            match one.built.first() {
                Some(b) => {
                    let positions = b.stats.positions.max(1) as f64;
                    let per_position = b.peak_memory.map(|p| p as f64 / positions);
                    if json {
                        tables.push(json!({
                            "material": b.material.name(),
                            "present": false,
                            "positions": b.stats.positions,
                            "seconds": b.seconds,
                            "positions_per_second": b.stats.positions as f64 / b.seconds,
                            "peak_memory_bytes": b.peak_memory,
                            "bytes_per_position": per_position,
                            "file_bytes": b.bytes,
                            "file_bytes_per_position": b.bytes as f64 / positions,
                            "wins": b.stats.wins,
                            "draws": b.stats.draws,
                            "losses": b.stats.losses,
                            "max_dtc": b.stats.max_dtc,
                        }));
                    } else {
                        let memory = match (b.peak_memory, per_position) {
                            (Some(p), Some(r)) => {
                                format!(
                                    "peak memory {:.1} MB = {r:.2} bytes per position",
                                    p as f64 / 1e6
                                )
                            }
                            _ => "peak memory unknown".to_string(),
                        };
                        println!(
                            "{}: {} positions in {:.1} s = {:.2} M positions/s, {memory}, file {:.1} MB = {:.3} bytes per position (wins {}, draws {}, losses {}, longest DTC {} plies)",
                            b.material,
                            b.stats.positions,
                            b.seconds,
                            b.stats.positions as f64 / b.seconds / 1e6,
                            b.bytes as f64 / 1e6,
                            b.bytes as f64 / positions,
                            b.stats.wins,
                            b.stats.draws,
                            b.stats.losses,
                            b.stats.max_dtc
                        );
                    }
                }
                None if json => {
                    tables.push(json!({ "material": m.name(), "present": true }));
                }
                None => println!("{m}: already present in {}", dir.display()),
            }
        }
        if json && !tables.is_empty() {
            out["table"] = tables[0].clone();
            out["tables"] = tables.into();
        }
        let peak = peak_memory();
        if json {
            out["peak_memory_bytes"] = peak.into();
            println!("{out}");
        } else if let Some(peak) = peak {
            println!("peak memory: {:.1} MB", peak as f64 / 1e6);
        }
        Ok(())
    })();
    if temporary {
        let _ = std::fs::remove_dir_all(&dir);
    }
    result?;
    Ok(ExitCode::SUCCESS)
}
