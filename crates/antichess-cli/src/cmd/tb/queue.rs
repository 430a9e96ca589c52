//! `antichess tb build --queue postgres://…`: one worker of a tablebase build shared by
//! many machines through PostgreSQL (the job is `antichess_book::jobs::tb_build`, the
//! queue itself `antichess_book::tbqueue`). This module only turns the worker's events
//! into lines on stderr (`queue_event_line`) and its report into the summary on stdout.

use std::process::ExitCode;

use antichess_book::jobs::tb_build::{queue_event_line, queue_worker, QueueWorkerEvent};
use antichess_tb::{BuildOptions, Material};

use crate::common::output::{print_json, Format};

/// Runs one queue worker; `targets` may be empty (the worker only helps).
pub(super) fn run(
    url: &str,
    targets: &[Material],
    options: BuildOptions,
    format: Format,
) -> anyhow::Result<ExitCode> {
    let json = format == Format::Json;
    let report = queue_worker(url, targets, options, &|e| {
        if json {
            return;
        }
        let line = match e {
            QueueWorkerEvent::Started {
                worker,
                queue,
                rules,
                dir,
            } => Some(format!(
                "worker {worker} on the table queue {queue} ({rules} rules), tables in {dir}"
            )),
            QueueWorkerEvent::Queue(e) => queue_event_line(&e),
        };
        if let Some(line) = line {
            eprintln!("{line}");
        }
    })?;
    if json {
        print_json(&report)?;
    } else {
        println!(
            "{} tables built by this worker ({} of them reclaimed from a worker that was gone, {} found whole), {} positions in {:.1} s; all {} tables of the queue are done",
            report.built,
            report.reclaimed,
            report.found,
            report.positions,
            report.seconds,
            report.tables
        );
    }
    Ok(ExitCode::SUCCESS)
}
