//! `tb build --bound`: bound tables (promotions left open; see
//! `antichess_tb::TableKind`), their plan (`--dry-run`) and their report.

use std::process::ExitCode;

use antichess_core::Color;
use antichess_tb::{bound_plan, build_bounds, BuildOptions, Material};
use anyhow::bail;

use super::build::{print_report, BoundSide, BuildArgs};
use super::plan::{print_plan, Size};
use crate::common::output::Format;
use crate::common::progress::BuildProgress;

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
    // (A dry run checks each file as the build will; before a build, a file that is there
    // counts, the build checking it again.)
    let plan = bound_plan(&pairs, &options, args.dry_run)?;
    if args.dry_run {
        print_plan(&plan, &options, args.format, true);
        Size::of(
            plan.iter().map(|e| (e.material, e.positions, e.present)),
            false,
        )
        .warn();
        return Ok(ExitCode::SUCCESS);
    }
    let size = Size::of(
        plan.iter().map(|e| (e.material, e.positions, e.present)),
        false,
    );
    size.announce("bound tables", &dir, json, None);
    let progress = BuildProgress::new(json).at(&options).table_lines();
    let report = build_bounds(&pairs, &options, &|e| progress.event(e));
    progress.finish(None);
    let report = report?;
    print_report(&report, &dir, rules, json, "bound tables");
    Ok(ExitCode::SUCCESS)
}
