//! `antichess tb build --queue postgres://…`: one worker of a tablebase build shared by
//! many machines through PostgreSQL (the job is `antichess_book::jobs::tb_build`, the
//! queue itself `antichess_book::tbqueue`). This module only prints the worker's events as
//! lines on stderr and its report as the summary on stdout.

use std::process::ExitCode;

use antichess_book::jobs::tb_build::queue_worker;
use antichess_tb::{BuildOptions, Material};

use crate::common::output::{print_report, Format};

/// Runs one queue worker; `targets` may be empty (the worker only helps).
pub(super) fn run(
    url: &str,
    targets: &[Material],
    options: BuildOptions,
    format: Format,
) -> anyhow::Result<ExitCode> {
    let json = format == Format::Json;
    let report = queue_worker(url, targets, options, &|e| {
        if let Some(line) = e.line().filter(|_| !json) {
            eprintln!("{line}");
        }
    })?;
    print_report(&report, format)
}
