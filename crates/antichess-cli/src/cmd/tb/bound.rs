//! `tb build --bound`: bound tables (promotions left open; see
//! `antichess_tb::TableKind`), their plan (`--dry-run`) and their report.

use std::process::ExitCode;

use antichess_core::Color;
use antichess_tb::{
    bound_dependencies, build_bounds, BuildOptions, Material, TableKind, Tablebase,
};
use anyhow::bail;
use serde_json::json;

use super::BuildArgs;
use crate::common::output::Format;
use crate::common::progress::{bytes_text, BuildProgress};

/// Whose wins a bound table makes sure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BoundSide {
    /// White's wins are sure (promotions count against White): what proving a White win
    /// needs.
    White,
    /// Black's wins are sure.
    Black,
    /// Both bound tables.
    Both,
}

impl BoundSide {
    pub(super) fn colors(self) -> &'static [Color] {
        match self {
            BoundSide::White => &[Color::White],
            BoundSide::Black => &[Color::Black],
            BoundSide::Both => &Color::ALL,
        }
    }
}

/// Bytes per position of a bound build: the exact generator's (see `BYTES_PER_POSITION`).
const BYTES_PER_POSITION: u64 = 3;

pub(super) fn run(
    targets: &[Material],
    side: BoundSide,
    args: &BuildArgs,
) -> anyhow::Result<ExitCode> {
    if targets.is_empty() {
        bail!("--bound: give the materials (e.g. RPPpp) or --from-book BOOK");
    }
    let rules = args.tables.rules;
    if rules.is_royal() {
        bail!("--bound builds tables for the antichess rule sets, not {rules}");
    }
    let pairs: Vec<(Material, Color)> = targets
        .iter()
        .flat_map(|m| side.colors().iter().map(move |&c| (*m, c)))
        .collect();
    let dir = args.tables.dir();
    let options = BuildOptions {
        rules,
        dir: dir.clone(),
        threads: args.tables.threads,
        strategy: Default::default(),
    };
    let json = args.format == Format::Json;
    if args.dry_run {
        let tb = Tablebase::open(&dir, rules)?;
        let plan = bound_dependencies(&pairs, &tb);
        let rows: Vec<_> = plan
            .iter()
            .map(|(m, kind)| {
                let positions = antichess_tb::positions(m);
                let TableKind::Bound(c) = kind else {
                    unreachable!("a bound plan")
                };
                let present = tb.bound_table(m, *c).ok().flatten().is_some();
                (m, kind, positions, present)
            })
            .collect();
        let to_build: Vec<_> = rows.iter().filter(|r| !r.3).collect();
        let positions: u64 = to_build.iter().map(|r| r.2).sum();
        let peak = to_build
            .iter()
            .map(|r| r.2 * BYTES_PER_POSITION)
            .max()
            .unwrap_or(0);
        if json {
            println!(
                "{}",
                json!({
                    "dir": dir.display().to_string(),
                    "rules": rules.to_string(),
                    "tables": rows.len(),
                    "to_build": to_build.len(),
                    "positions": positions,
                    "largest_memory_estimate": peak,
                    "plan": rows.iter().map(|(m, kind, positions, present)| json!({
                        "material": m.name(),
                        "kind": kind.to_string(),
                        "units": m.units(),
                        "pawns": m.pawns(),
                        "positions": positions,
                        "memory_estimate": positions * BYTES_PER_POSITION,
                        "status": if *present { "present" } else { "missing" },
                    })).collect::<Vec<_>>(),
                })
            );
        } else {
            for (m, kind, positions, present) in &rows {
                println!(
                    "{:<10} {:<15} {:>14} positions  ~{:>9}  {}",
                    m.name(),
                    kind.to_string(),
                    positions,
                    bytes_text(positions * BYTES_PER_POSITION),
                    if *present { "present" } else { "to build" }
                );
            }
            println!(
                "{} bound tables needed, {} present, {} to build ({positions} positions, the largest needing ~{}) in {}",
                rows.len(),
                rows.len() - to_build.len(),
                to_build.len(),
                bytes_text(peak),
                dir.display()
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    let progress = BuildProgress::new(json).at(&options).table_lines();
    let report = build_bounds(&pairs, &options, &|e| progress.event(e));
    progress.finish(None);
    let report = report?;
    super::print_report(&report, &dir, rules, json, "bound tables");
    Ok(ExitCode::SUCCESS)
}
