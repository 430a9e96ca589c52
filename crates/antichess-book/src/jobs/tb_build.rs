//! The book's side of `tb build`: the materials a frontier file's proofs need, chosen in
//! the order that lets the most proof nodes verify first ([`frontier_choice`], with its
//! account), and one worker of the PostgreSQL table queue as a job ([`queue_worker`]:
//! options in, one event callback, one serializable report, [`QueueSummary`]; its events
//! as lines, [`queue_event_line`]). The queue
//! itself is [`crate::tbqueue`], the frontier's tables [`crate::frontier_tables`].

use std::path::Path;

use antichess_core::{Color, Rules};
use antichess_tb::jobs::plan::bytes_text;
use antichess_tb::{BuildOptions, Built, Material};
use serde::Serialize;

use crate::error::{BookError, Result};
use crate::frontier_tables::{frontier_tables, FrontierTables};
use crate::tbqueue::{run_worker, QueueEvent, QueueOptions};

/// What a frontier file needs built: its tables found, and the first of them chosen.
#[derive(Debug, Clone)]
pub struct FrontierChoice {
    /// Everything [`frontier_tables`] found (leaves of more than 4 units).
    pub found: FrontierTables,
    /// The materials chosen, in build order.
    pub targets: Vec<Material>,
    /// The side whose wins the tables must make sure of: the frontier's prover.
    pub prover: Color,
    /// What the frontier needs and what building the chosen tables wins back, as a line.
    pub account: String,
}

/// The tables the proofs of the frontier file at `path` need (tablebase leaves of more
/// than 4 units): the first `top` (all with `None`) in the order that wins back the most
/// proof nodes first. `rules`: the rules of the tables asked for, which must be the
/// frontier's.
///
/// # Errors
/// The file cannot be read or is damaged, or its book is under other rules.
pub fn frontier_choice(path: &Path, rules: Rules, top: Option<usize>) -> Result<FrontierChoice> {
    let found = frontier_tables(path, 4)?;
    if found.rules != rules {
        return Err(BookError::Mismatch(format!(
            "{} is a book under the rules {}, the tables asked for are {rules}: give --rules {}",
            path.display(),
            found.rules,
            found.rules
        )));
    }
    let chosen = &found.tables[..top.unwrap_or(usize::MAX).min(found.tables.len())];
    let won_back = chosen.last().map_or(0, |t| t.whole_nodes);
    let account = format!(
        "{}: {} of its {} proofs ({} of {} nodes) have tablebase leaves of more than 4 \
         units, on {} materials; the {} built here let {} of those nodes verify ({:.1}%)",
        path.display(),
        found.needing,
        found.proofs,
        found.needing_nodes,
        found.nodes,
        found.tables.len(),
        chosen.len(),
        won_back,
        100.0 * won_back as f64 / found.needing_nodes.max(1) as f64,
    );
    let targets = chosen
        .iter()
        .map(|t| t.material.parse::<Material>())
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| BookError::Input(format!("{}: {e}", path.display())))?;
    Ok(FrontierChoice {
        prover: found.prover,
        found,
        targets,
        account,
    })
}

/// The first `top` materials of at most `max_units` units that the searches of the book at
/// `location` met most without a table (what `tb build --from-book` builds); the book's
/// rule set must be `rules`.
///
/// # Errors
/// The book cannot be read or is for other rules; a material it records is not one.
pub fn book_targets(
    location: &str,
    top: usize,
    max_units: u32,
    rules: Rules,
) -> Result<Vec<Material>> {
    let mut out = Vec::new();
    for (name, _) in crate::prove_line::materials_met(location, rules)? {
        if out.len() == top {
            break;
        }
        let m: Material = name.parse().map_err(|e| {
            BookError::Input(format!("material {name:?} recorded in the book: {e}"))
        })?;
        if m.units() <= max_units {
            out.push(m);
        }
    }
    Ok(out)
}

/// What [`queue_worker`] reports as it goes.
#[derive(Debug, Clone)]
pub enum QueueWorkerEvent {
    /// The worker starts: its name, the queue (its URL without a password), the rules and
    /// the tables directory.
    Started {
        /// This worker's name in the queue.
        worker: String,
        /// The queue's URL, redacted.
        queue: String,
        /// The rule set.
        rules: Rules,
        /// The tables directory.
        dir: String,
    },
    /// The queue's progress.
    Queue(QueueEvent),
}

/// One table built by a queue worker.
#[derive(Debug, Clone, Serialize)]
pub struct QueueBuilt {
    /// The material's name.
    pub material: String,
    /// Positions, both sides to move.
    pub positions: u64,
    /// Generation and writing.
    pub seconds: f64,
    /// The file's size.
    pub bytes: u64,
    /// The process's peak resident memory while it was built, when known.
    pub peak_memory: Option<u64>,
}

/// What a queue worker did (the JSON of `tb build --queue`).
#[derive(Debug, Clone, Serialize)]
pub struct QueueSummary {
    /// The queue's URL, redacted.
    pub queue: String,
    /// This worker's name.
    pub worker: String,
    /// The tables directory.
    pub dir: String,
    /// The rule set.
    pub rules: String,
    /// Tables of the queue (all done).
    pub tables: usize,
    /// Tables built by this worker.
    pub built: usize,
    /// Of them, built again after their worker was gone.
    pub reclaimed: usize,
    /// Tables marked done because their file was found whole.
    pub found: usize,
    /// Positions built by this worker.
    pub positions: u64,
    /// Wall-clock time.
    pub seconds: f64,
    /// The tables this worker built.
    pub built_tables: Vec<QueueBuilt>,
}

/// Runs one worker of the table queue at `url` until every table of the queue is done,
/// adding `targets` (which may be empty: the worker only helps) first.
///
/// # Errors
/// The queue cannot be reached or a table fails to build.
pub fn queue_worker(
    url: &str,
    targets: &[Material],
    build: BuildOptions,
    on_event: &(dyn Fn(QueueWorkerEvent) + Sync),
) -> Result<QueueSummary> {
    let worker = crate::worker_id(0);
    let dir = build.dir.display().to_string();
    let rules = build.rules;
    let queue = QueueOptions {
        url: url.to_string(),
        build,
        worker: worker.clone(),
    };
    on_event(QueueWorkerEvent::Started {
        worker: worker.clone(),
        queue: crate::redact(url),
        rules,
        dir: dir.clone(),
    });
    let report = run_worker(targets, &queue, &|e| on_event(QueueWorkerEvent::Queue(e)))?;
    Ok(QueueSummary {
        queue: crate::redact(url),
        worker,
        dir,
        rules: rules.to_string(),
        tables: report.tables,
        built: report.built.len(),
        reclaimed: report.reclaimed,
        found: report.found,
        positions: report.built.iter().map(|b| b.stats.positions).sum(),
        seconds: report.seconds,
        built_tables: report
            .built
            .iter()
            .map(|b| QueueBuilt {
                material: b.material.name(),
                positions: b.stats.positions,
                seconds: b.seconds,
                bytes: b.bytes,
                peak_memory: b.peak_memory,
            })
            .collect(),
    })
}

impl QueueWorkerEvent {
    /// The event as a line for people (`None` for a table's build progress).
    #[must_use]
    pub fn line(&self) -> Option<String> {
        match self {
            QueueWorkerEvent::Started {
                worker,
                queue,
                rules,
                dir,
            } => Some(format!(
                "worker {worker} on the table queue {queue} ({rules} rules), tables in {dir}"
            )),
            QueueWorkerEvent::Queue(e) => queue_event_line(e),
        }
    }
}

/// The summary line of `tb build --queue`: what this worker built, reclaimed and found,
/// and that the queue is done.
impl std::fmt::Display for QueueSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} tables built by this worker ({} of them reclaimed from a worker that was gone, {} found whole), {} positions in {:.1} s; all {} tables of the queue are done",
            self.built, self.reclaimed, self.found, self.positions, self.seconds, self.tables
        )
    }
}

/// The line of a table built: time, speed, file size, peak memory, the queue's count.
fn done_line(built: &Built, done: usize, tables: usize) -> String {
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

/// A queue event as a line for people (`None` for a table's build progress).
#[must_use]
pub fn queue_event_line(event: &QueueEvent) -> Option<String> {
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
