//! `antichess tb … --game lasker`: build, probe and inspect Lasker chess tables (orthodox
//! endgames where stalemating the opponent is a lesser win): arguments to the jobs of
//! `antichess_tb::jobs::lasker`, whose statistics count as `antichess_tb::lasker::stats` says.

use std::path::PathBuf;
use std::process::ExitCode;

use antichess_core::orthodox::OrthoPosition;
use antichess_tb::jobs::lasker::{
    lasker_plan, lasker_probe, lasker_probe_targets, lasker_tables_stats, LaskerBuildSummary,
};
use antichess_tb::jobs::targets::{lasker_dir, lasker_targets};
use antichess_tb::lasker::{lasker_build, LaskerBuildEvent, LaskerTablebase};
use antichess_tb::Material;
use anyhow::{bail, Context};

use crate::common::args::TablesArgs;
use crate::common::output::{print_lines, print_report, Format};

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
        if let (LaskerBuildEvent::Started { .. }, Some(line)) = (&e, e.line()) {
            if !quiet {
                eprintln!("{line}");
            }
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
    if dry_run {
        return print_lines(&lasker_plan(&targets, &dir)?, format);
    }
    let progress = |e: LaskerBuildEvent| {
        if let (LaskerBuildEvent::Finished { .. }, Some(line)) = (&e, e.line()) {
            if format == Format::Text {
                eprintln!("{line}");
            }
        }
    };
    let report = lasker_build(&targets, &dir, tables.threads, &progress)?;
    print_report(&LaskerBuildSummary::new(&report, &dir), format)
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
    print_lines(&lasker_tables_stats(&tb, &targets)?, format)
}
