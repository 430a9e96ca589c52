//! `tb build --bound`: bound tables (promotions left open; see
//! `antichess_tb::TableKind`), their plan (`--dry-run`) and their report.

use std::process::ExitCode;

use antichess_core::Color;
use antichess_tb::{
    bound_dependencies, build_bounds, BuildOptions, Material, TableKind, Tablebase,
};
use anyhow::bail;
use serde_json::json;

use super::build::{print_report, BoundSide, BuildArgs};
use super::plan::Size;
use crate::common::output::Format;
use crate::common::progress::{bytes_text, BuildProgress};

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
    let tb = Tablebase::open(&dir, rules)?;
    let plan = bound_dependencies(&pairs, &tb);
    let rows: Vec<_> = plan
        .iter()
        .map(|(m, kind)| {
            let positions = antichess_tb::positions(m);
            // (A dry run checks each file as the build will; before a build, a file that
            // is there counts, the build checking it again.)
            let present = match kind {
                TableKind::Bound(c) if args.dry_run => {
                    tb.bound_table(m, *c).ok().flatten().is_some()
                }
                TableKind::Bound(c) => tb.has_bound_table(m, *c),
                _ => tb.contains(m),
            };
            (m, kind, positions, present)
        })
        .collect();
    let size = Size::of(rows.iter().map(|r| (*r.0, r.2, r.3)), false);
    drop(tb);
    if args.dry_run {
        let positions = size.positions;
        let peak = size.peak_memory();
        if json {
            println!(
                "{}",
                json!({
                    "dir": dir.display().to_string(),
                    "rules": rules.to_string(),
                    "tables": rows.len(),
                    "to_build": size.to_build,
                    "positions": positions,
                    "largest_memory_estimate": peak,
                    "largest": size.largest.map(|(m, _)| m.name()),
                    "disk_estimate": size.disk(),
                    "plan": rows.iter().map(|(m, kind, positions, present)| json!({
                        "material": m.name(),
                        "kind": kind.to_string(),
                        "units": m.units(),
                        "pawns": m.pawns(),
                        "positions": positions,
                        "memory_estimate": positions * super::plan::BYTES_PER_POSITION,
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
                    bytes_text(positions * super::plan::BYTES_PER_POSITION),
                    if *present { "present" } else { "to build" }
                );
            }
            println!("{}", size.line("bound tables", &dir));
        }
        size.warn();
        return Ok(ExitCode::SUCCESS);
    }
    size.announce("bound tables", &dir, json, None);
    let progress = BuildProgress::new(json).at(&options).table_lines();
    let report = build_bounds(&pairs, &options, &|e| progress.event(e));
    progress.finish(None);
    let report = report?;
    print_report(&report, &dir, rules, json, "bound tables");
    Ok(ExitCode::SUCCESS)
}
