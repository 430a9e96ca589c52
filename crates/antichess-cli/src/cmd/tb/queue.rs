//! `antichess tb build --queue postgres://…`: one worker of a tablebase build shared by
//! many machines through PostgreSQL (the queue itself is `antichess_book::tbqueue`). This
//! module only turns the worker's events into lines on stderr and its report into the
//! summary on stdout.

use std::process::ExitCode;

use antichess_book::tbqueue::{run_worker, QueueEvent, QueueOptions};
use antichess_tb::{BuildOptions, Material};
use serde_json::json;

use crate::common::output::Format;
use crate::common::progress::bytes_text;

/// The line of a table built: time, speed, file size, peak memory, the queue's count.
fn done_line(built: &antichess_tb::Built, done: usize, tables: usize) -> String {
    let rate = built.stats.positions as f64 / built.seconds.max(1e-9) / 1e6;
    let peak = built
        .peak_memory
        .map_or_else(String::new, |p| format!(", peak memory {}", bytes_text(p)));
    format!(
        "{}: {} positions in {:.1} s ({rate:.2} M positions/s), {}{peak}; {done} of the queue's {tables} tables done",
        built.material,
        built.stats.positions,
        built.seconds,
        bytes_text(built.bytes),
    )
}

fn event_line(event: &QueueEvent) -> Option<String> {
    Some(match event {
        QueueEvent::Joined {
            tables,
            done,
            added,
            positions,
        } => format!(
            "the queue holds {tables} tables ({added} added now), {done} done, {positions} positions left"
        ),
        QueueEvent::Damaged { material, reason } => {
            format!("{material}: {reason}; back in the queue")
        }
        QueueEvent::Claimed {
            material,
            positions,
            reclaimed_from,
        } => match reclaimed_from {
            Some(w) => format!(
                "building {material} ({positions} positions), claimed by {w} before, whose connection is gone"
            ),
            None => format!("building {material} ({positions} positions)"),
        },
        QueueEvent::Done {
            built,
            done,
            tables,
        } => done_line(built, *done, *tables),
        QueueEvent::Found { material } => {
            format!("{material}: its file was already written whole; marked done")
        }
        QueueEvent::Lost { material } => format!(
            "{material}: the connection was lost while it was built, and another worker took it over"
        ),
        QueueEvent::Waiting { left, building } => format!(
            "waiting: {left} tables left, {building} being built by other workers, the others wait for them"
        ),
        QueueEvent::Build(_) => return None,
    })
}

/// Runs one queue worker; `targets` may be empty (the worker only helps).
pub fn run(
    url: &str,
    targets: &[Material],
    options: BuildOptions,
    format: Format,
) -> anyhow::Result<ExitCode> {
    let json = format == Format::Json;
    let worker = antichess_book::worker_id(0);
    let dir = options.dir.clone();
    let queue = QueueOptions {
        url: url.to_string(),
        build: options,
        worker: worker.clone(),
    };
    if !json {
        eprintln!(
            "worker {worker} on the table queue {} ({} rules), tables in {}",
            antichess_book::redact(url),
            queue.build.rules,
            dir.display()
        );
    }
    let report = run_worker(targets, &queue, &|e| {
        if !json {
            if let Some(line) = event_line(&e) {
                eprintln!("{line}");
            }
        }
    })?;
    let positions: u64 = report.built.iter().map(|b| b.stats.positions).sum();
    if json {
        println!(
            "{}",
            json!({
                "queue": antichess_book::redact(url),
                "worker": worker,
                "dir": dir.display().to_string(),
                "rules": queue.build.rules.to_string(),
                "tables": report.tables,
                "built": report.built.len(),
                "reclaimed": report.reclaimed,
                "found": report.found,
                "positions": positions,
                "seconds": report.seconds,
                "built_tables": report.built.iter().map(|b| json!({
                    "material": b.material.name(),
                    "positions": b.stats.positions,
                    "seconds": b.seconds,
                    "bytes": b.bytes,
                    "peak_memory": b.peak_memory,
                })).collect::<Vec<_>>(),
            })
        );
    } else {
        println!(
            "{} tables built by this worker ({} of them reclaimed from a worker that was gone, {} found whole), {positions} positions in {:.1} s; all {} tables of the queue are done",
            report.built.len(),
            report.reclaimed,
            report.found,
            report.seconds,
            report.tables
        );
    }
    Ok(ExitCode::SUCCESS)
}
