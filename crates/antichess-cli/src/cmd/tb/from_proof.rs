//! `antichess tb build --from-proof FILE`: the job is `antichess_proof::jobs::build_recorded`
//! (the tables a proof file records, stage by stage, then compared with the files built);
//! this shows each stage as `tb build` shows a build and prints the report.

use std::path::Path;
use std::process::ExitCode;
use std::sync::{Mutex, PoisonError};

use antichess_proof::jobs::{build_recorded, RecordedBuildEvent};

use super::build::{print_report, BuildArgs, StageDisplay};
use crate::common::output::{exit_code, print_json, Format};

/// Builds the tables of the proof at `path` into `args`'s tables directory.
pub(super) fn run(path: &Path, args: &BuildArgs) -> anyhow::Result<ExitCode> {
    let json = args.format == Format::Json;
    let stage: Mutex<Option<StageDisplay>> = Mutex::new(None);
    let build = args.tables.build_options();
    let report = build_recorded(path, &build, args.dry_run, &|e| {
        let mut stage = stage.lock().unwrap_or_else(PoisonError::into_inner);
        match e {
            RecordedBuildEvent::Read(recorded) if !recorded.is_empty() => {
                eprintln!("{}", recorded.counts_line(path));
            }
            RecordedBuildEvent::Stage(options) => {
                *stage = Some(StageDisplay::new(options, args.format))
            }
            RecordedBuildEvent::Build(e) => {
                if let Some(stage) = stage.as_ref() {
                    stage.event(e);
                }
            }
            RecordedBuildEvent::Built(options, report) => {
                if let Some(stage) = stage.take() {
                    stage.finish();
                }
                if !json {
                    // (Printing to stdout fails only when nobody reads it.)
                    let _ = print_report(report, options, args.format);
                }
            }
            RecordedBuildEvent::Read(_) => {}
        }
    });
    // (A stage that failed still clears its bar.)
    let failed = stage.into_inner().unwrap_or_else(PoisonError::into_inner);
    failed.iter().for_each(StageDisplay::finish);
    let report = report?;
    if json {
        print_json(&report)?;
    } else {
        println!("{report}");
    }
    Ok(exit_code(
        report.complete() || args.dry_run || report.recorded == 0,
    ))
}
