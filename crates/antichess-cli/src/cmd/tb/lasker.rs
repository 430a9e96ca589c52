//! `antichess tb … --game lasker`: build, probe and inspect Lasker chess tables (orthodox
//! endgames where stalemating the opponent is a lesser win; antichess_tb::lasker).
//!
//! What is counted: legal positions only (the side not to move is not in check), both
//! kings always present, no castling. Positions in which the side to move can capture en
//! passant are not stored and not counted (probing resolves them through their moves; the
//! generator values them as positions of their own, docs/formats/lasker-table.md).
//! Percentages are over the "unique" positions of the published figures (a Nalimov-style
//! index: without pawns the White king in the a1–d1–d4 triangle and, with it on the
//! diagonal, the Black king on or below it; with pawns the White king on files a–d); the
//! counts are also given up to symmetry and on the whole board.

use std::path::PathBuf;
use std::process::ExitCode;

use antichess_core::orthodox::OrthoPosition;
use antichess_tb::jobs::lasker::{
    lasker_plan, lasker_probe, lasker_probe_targets, lasker_stats_text, lasker_tables_stats,
    LaskerBuildSummary,
};
use antichess_tb::jobs::targets::{lasker_dir, lasker_targets};
use antichess_tb::lasker::{lasker_build, LaskerBuildEvent, LaskerTablebase};
use antichess_tb::Material;
use anyhow::{bail, Context};

use crate::common::args::TablesArgs;
use crate::common::output::{print_json, Format};

/// The Lasker tables directory: `--tables`, else `lasker` beside the default antichess
/// directories.
fn dir(tables: &TablesArgs) -> PathBuf {
    lasker_dir(tables.tables.as_deref(), tables.rules)
}

fn build_quietly(
    targets: &[Material],
    tables: &TablesArgs,
    quiet: bool,
) -> anyhow::Result<LaskerTablebase> {
    let dir = dir(tables);
    let progress = |e: LaskerBuildEvent| {
        if quiet {
            return;
        }
        if let LaskerBuildEvent::Started { material, number } = e {
            eprintln!("building Lasker table #{number} {material}");
        }
    };
    lasker_build(targets, &dir, tables.threads, &progress)
        .with_context(|| format!("building Lasker tables in {}", dir.display()))?;
    Ok(LaskerTablebase::open(&dir)?)
}

pub fn run_build(
    signatures: &[String],
    units: Option<u32>,
    format: Format,
    tables: &TablesArgs,
    dry_run: bool,
) -> anyhow::Result<ExitCode> {
    let targets = lasker_targets(signatures, units)?;
    if targets.is_empty() {
        bail!("give signatures (e.g. KQk) or --units N");
    }
    let dir = dir(tables);
    let json = format == Format::Json;
    if dry_run {
        let plan = lasker_plan(&targets, &dir)?;
        if json {
            print_json(&plan)?;
            return Ok(ExitCode::SUCCESS);
        }
        super::build::print_plan_rows(&plan.plan);
        println!("{}", plan.summary);
        return Ok(ExitCode::SUCCESS);
    }
    let progress = |e: LaskerBuildEvent| {
        if json {
            return;
        }
        if let LaskerBuildEvent::Finished {
            material,
            stats,
            seconds,
        } = e
        {
            eprintln!(
                "{material}: {} legal positions, deepest DTM {} and DTS {} plies ({seconds:.1} s)",
                stats.positions, stats.max_dtm, stats.max_dts
            );
        }
    };
    let report = LaskerBuildSummary::new(
        &lasker_build(&targets, &dir, tables.threads, &progress)?,
        &dir,
    );
    if json {
        print_json(&report)?;
    } else {
        println!(
            "{} Lasker tables built, {} already present, in {} ({:.1} s)",
            report.built, report.present, report.dir, report.seconds
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub fn probe_one(fen: &str, format: Format, tables: &TablesArgs) -> anyhow::Result<String> {
    let pos = OrthoPosition::from_fen(fen).with_context(|| format!("--fen \"{fen}\""))?;
    let targets = lasker_probe_targets(fen, &pos)?;
    let tb = build_quietly(&targets, tables, format == Format::Json)?;
    let probe = lasker_probe(&tb, &pos)?;
    if format == Format::Json {
        return Ok(serde_json::to_value(&probe)?.to_string());
    }
    Ok(probe.text())
}

pub fn run_stats(
    signatures: &[String],
    units: Option<u32>,
    format: Format,
    tables: &TablesArgs,
) -> anyhow::Result<ExitCode> {
    let targets = lasker_targets(signatures, units)?;
    let tb = build_quietly(&targets, tables, format == Format::Json)?;
    let report = lasker_tables_stats(&tb, &targets)?;
    match format {
        Format::Json => print_json(&report)?,
        Format::Text => {
            for s in &report.tables {
                println!("{}", lasker_stats_text(s).trim_end());
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
