//! `antichess tb build --from-proof FILE`: the stages of the tables a proof file records
//! (`antichess_proof::jobs::RecordedTables`), each run by the build job with its progress,
//! then the report comparing the records with the files built
//! (`antichess_proof::jobs::RecordedBuildReport`).

use std::path::Path;
use std::process::ExitCode;

use antichess_proof::jobs::{stage_name, RecordedBuildReport, RecordedStage, RecordedTables};
use antichess_proof::{LeafOracle, TablebaseOracle};
use antichess_tb::jobs::build::TablesBuildOptions;
use anyhow::bail;

use super::build::{build_stage, print_report, BuildArgs};
use crate::common::output::{exit_code, print_json, Format};

/// Builds the tables of the proof at `path` into `args`'s tables directory.
pub(super) fn run(path: &Path, args: &BuildArgs) -> anyhow::Result<ExitCode> {
    let recorded = RecordedTables::read(path)?;
    let rules = args.tables.rules;
    if recorded.rules != rules {
        bail!(
            "{} is a proof under the rules {}, the tables asked for are {rules}: give --rules {}",
            path.display(),
            recorded.rules,
            recorded.rules
        );
    }
    let json = args.format == Format::Json;
    if !recorded.is_empty() {
        eprintln!("{}", recorded.counts_line(path));
    }
    let dir = args.tables.dir();
    let mut stages = Vec::new();
    for (side, materials) in recorded.stages() {
        let options = TablesBuildOptions {
            build: args.tables.build_options(),
            targets: materials,
            bound: side.map(|side| vec![side]),
            dry_run: args.dry_run,
        };
        let report = build_stage(&options, args.format)?;
        if !json {
            print_report(&report, &options, args.format)?;
        }
        stages.push(RecordedStage {
            tables: stage_name(side),
            report,
        });
    }
    let tablebase = match args.dry_run || recorded.is_empty() {
        true => None,
        false => Some(antichess_tb::Tablebase::open(&dir, rules)?),
    };
    let oracle = tablebase.as_ref().map(TablebaseOracle::new);
    let report = RecordedBuildReport::new(
        path,
        &dir,
        &recorded,
        stages,
        oracle.as_ref().map(|o| o as &dyn LeafOracle),
    );
    if json {
        print_json(&report)?;
    } else {
        println!("{report}");
    }
    Ok(exit_code(
        report.complete() || args.dry_run || recorded.is_empty(),
    ))
}
