//! `antichess tb`: build, probe, inspect and verify endgame tablebases.

use std::io::BufRead;
use std::process::ExitCode;

use antichess_core::Position;
use antichess_tb::jobs::build::bound_kinds;
use antichess_tb::jobs::probe::{probe_position, ProbeFailure, ProbeOptions};
use antichess_tb::jobs::stats::tables_stats;
use antichess_tb::jobs::targets::{parse_signatures, targets};
use antichess_tb::{verify_tables, Material, TableKind, VerifyTablesOptions};
use anyhow::{bail, Context};
use clap::{Args, Subcommand};

use crate::common::args::TablesArgs;
use crate::common::output::{describe, exit_code, print_json, print_report, Format};
use crate::common::tables::ensure_tables;

mod build;
mod from_proof;
mod lasker;
mod queue;

use antichess_tb::jobs::build::BoundSide;
use build::{BuildArgs, Game};

/// The largest tables `tb probe` builds on its own.
const AUTO_BUILD_UNITS: u32 = 5;

#[derive(Debug, Subcommand)]
pub enum TbCommand {
    Build(BuildArgs),
    Probe(ProbeArgs),
    Stats(StatsArgs),
    Verify(VerifyArgs),
}

/// Probe positions: WDL and DTC (distance to conversion in plies), and every legal move's
/// result, best first. Missing tables are built first.
///
/// In JSON output (one object per position) the position's "category" ("win", "draw" or
/// "loss") and "dtc" are for the side to move; a move's "category" and "dtc" describe the
/// position after the move, for the side then to move (as lichess's tablebase API does),
/// and "conversion" says whether the move captures or promotes.
#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// The position, or "-" to read FENs from standard input, one per line.
    #[arg(long, value_name = "FEN")]
    pub fen: String,

    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,

    /// The game: antichess (default) or lasker (orthodox endgames, stalemate a lesser win).
    #[arg(long, value_enum, default_value = "antichess")]
    pub game: Game,

    #[command(flatten)]
    pub tables: TablesArgs,
}

/// Statistics of tables: positions by result and side to move, longest wins, mutual
/// zugzwangs (also totalled over the tables without knights and pawns).
#[derive(Debug, Args)]
pub struct StatsArgs {
    #[arg(value_name = "SIGNATURE", required_unless_present = "units")]
    pub signatures: Vec<String>,

    /// Every table with at most this many units.
    #[arg(long, value_name = "N", conflicts_with = "signatures")]
    pub units: Option<u32>,

    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,

    /// The game: antichess (default) or lasker (orthodox endgames, stalemate a lesser win).
    #[arg(long, value_enum, default_value = "antichess")]
    pub game: Game,

    #[command(flatten)]
    pub tables: TablesArgs,
}

/// Check tables against the rules: every stored value (and DTC) is re-derived from its
/// successors (this table for quiet moves, the smaller tables for captures and
/// promotions, the rules' scoring without legal moves), by a code path separate from the
/// generator, and disagreements are reported with a FEN. A file that is not the table of
/// its name (a renamed or copied file) is refused. Exit code 1 if any table fails.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    #[arg(value_name = "SIGNATURE", required_unless_present = "all")]
    pub signatures: Vec<String>,

    /// Verify every table in the directory (bound tables included).
    #[arg(long, conflicts_with = "signatures")]
    pub all: bool,

    /// Verify the materials' bound tables for this side (colours as written; `both` for
    /// the two) instead of their exact tables.
    #[arg(long, value_enum, value_name = "SIDE", conflicts_with = "all")]
    pub bound: Option<BoundSide>,

    /// Output: text, or one JSON object with a row per table (material, positions,
    /// status "ok", "mismatch" or "error", the first disagreements, seconds).
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,

    #[command(flatten)]
    pub tables: TablesArgs,
}

pub fn run(command: &TbCommand) -> anyhow::Result<ExitCode> {
    match command {
        TbCommand::Build(args) => run_build(args),
        TbCommand::Probe(args) => run_probe(args),
        TbCommand::Stats(args) => run_stats(args),
        TbCommand::Verify(args) => run_verify(args),
    }
}

fn run_build(args: &BuildArgs) -> anyhow::Result<ExitCode> {
    if args.game == Game::Lasker && args.queue.is_some() {
        bail!("--queue builds antichess tables; build Lasker tables without it");
    }
    if args.game == Game::Lasker {
        return lasker::run_build(
            &args.signatures,
            args.units,
            args.format,
            &args.tables,
            args.dry_run,
        );
    }
    if let Some(path) = &args.from_proof {
        return from_proof::run(path, args);
    }
    build::run(args)
}

fn probe_one(fen: &str, args: &ProbeArgs) -> anyhow::Result<String> {
    if args.game == Game::Lasker {
        return lasker::probe_one(fen, args.format, &args.tables);
    }
    let pos =
        Position::from_fen(fen, args.tables.rules).with_context(|| format!("--fen \"{fen}\""))?;
    let options = ProbeOptions {
        dir: args.tables.dir(),
        rules: args.tables.rules,
        build_units: AUTO_BUILD_UNITS,
    };
    let report = probe_position(fen, &pos, &options, |targets| {
        ensure_tables(targets, &args.tables, args.format == Format::Json)
    })?;
    Ok(match args.format {
        Format::Json => serde_json::to_value(&report)?.to_string(),
        Format::Text => report.text(),
    })
}

fn run_probe(args: &ProbeArgs) -> anyhow::Result<ExitCode> {
    if args.fen != "-" {
        println!("{}", probe_one(&args.fen, args)?.trim_end());
        return Ok(ExitCode::SUCCESS);
    }
    let mut failed = false;
    for (n, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line.context("reading standard input")?;
        let fen = line.trim();
        if fen.is_empty() {
            continue;
        }
        match probe_one(fen, args) {
            Ok(text) => println!("{}", text.trim_end()),
            Err(err) => {
                failed = true;
                let error = describe(&err);
                match args.format {
                    Format::Json => print_json(&ProbeFailure {
                        fen: fen.to_string(),
                        error,
                    })?,
                    Format::Text => eprintln!("error: line {}: {error}", n + 1),
                }
            }
        }
    }
    Ok(exit_code(!failed))
}

fn run_stats(args: &StatsArgs) -> anyhow::Result<ExitCode> {
    if args.game == Game::Lasker {
        return lasker::run_stats(&args.signatures, args.units, args.format, &args.tables);
    }
    let targets: Vec<Material> = targets(&args.signatures, args.units)?
        .iter()
        .map(|m| m.canonical().0)
        .collect();
    let tb = ensure_tables(&targets, &args.tables, args.format == Format::Json)?;
    print_report(&tables_stats(&tb, &targets)?, args.format)
}

fn run_verify(args: &VerifyArgs) -> anyhow::Result<ExitCode> {
    let tables = if args.all {
        None
    } else {
        let materials = parse_signatures(&args.signatures)?;
        Some(match args.bound {
            None => materials.iter().map(|&m| (m, TableKind::Exact)).collect(),
            Some(side) => bound_kinds(&materials, side.colors()),
        })
    };
    let options = VerifyTablesOptions {
        dir: args.tables.dir(),
        rules: args.tables.rules,
        tables,
        threads: args.tables.threads,
    };
    let json = args.format == Format::Json;
    let report = verify_tables(&options, &mut |row| {
        if !json {
            println!("{}", row.text());
        }
    })?;
    if json {
        print_json(&report)?;
    }
    Ok(exit_code(report.ok))
}
