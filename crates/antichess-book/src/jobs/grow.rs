//! `book grow` as a job: the workers of [`crate::grow`] on an open book, with a monitor on
//! the caller's thread that reports progress and store failures as events, and one report
//! (the same in text and JSON) at the end. A book already solved is reported at once.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use antichess_tb::Tablebase;

use crate::error::{BookError, Result};
use crate::grow::{check_options, prepare, run_workers, GrowEnd, GrowOptions, GrowStats};
use crate::jobs::number;
use crate::node::Node;
use crate::store::BookCounts;
use crate::Book;

/// How to grow a book.
#[derive(Debug, Clone)]
pub struct GrowJobOptions {
    pub grow: GrowOptions,
    /// Report [`GrowEvent::Progress`] this often (`None`: never).
    pub progress_every: Option<Duration>,
}

/// A snapshot of a growing book.
#[derive(Debug, Clone)]
pub struct GrowProgress {
    /// Seconds since the job began.
    pub seconds: f64,
    pub root: Node,
    pub counts: BookCounts,
    /// Leaves written, positions searched and leaves decided by this job's workers.
    pub searches: u64,
    pub nodes: u64,
    pub decided: u64,
    /// Proved nodes whose proof could not be kept.
    pub proofs_failed: u64,
}

/// What a growing book reports as it goes.
#[derive(Debug, Clone)]
pub enum GrowEvent {
    /// The workers are about to start; the root as it is.
    Started { root: Node },
    /// The store could not be reached; the workers reconnect (`retries` so far).
    StoreRetry { retries: u64, error: String },
    /// Every [`GrowJobOptions::progress_every`].
    Progress(GrowProgress),
}

/// The proofs the searches kept for `book prove` (when a directory was given).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ProofsKept {
    pub proofs_kept: u64,
    pub proofs_not_kept: u64,
    /// The last reason a proof could not be kept.
    pub last_proof_error: Option<String>,
}

/// What `book grow` reports at the end.
#[derive(Debug, Clone, serde::Serialize)]
pub struct GrowReport {
    /// `solved`, `budget` or `stopped`.
    pub end: &'static str,
    /// The root's status and numbers.
    pub status: &'static str,
    #[serde(serialize_with = "number")]
    pub proof: u32,
    #[serde(serialize_with = "number")]
    pub disproof: u32,
    pub searches: u64,
    pub nodes_searched: u64,
    pub seconds: f64,
    pub book_nodes: u64,
    pub open_leaves: u64,
    pub won: u64,
    pub lost: u64,
    pub searches_logged: u64,
    pub store_retries: u64,
    /// The longest write of one search's result, in seconds (it holds the book's write
    /// lock; the other writers wait).
    pub longest_write_seconds: f64,
    /// `None` when the book was solved before the job began.
    #[serde(flatten)]
    pub proofs: Option<ProofsKept>,
    /// The book was solved before the job began: nothing was grown.
    #[serde(skip)]
    pub already_solved: bool,
    /// The root is won (a proof can be written).
    #[serde(skip)]
    pub won_root: bool,
    /// The last snapshot (`None` when nothing was grown).
    #[serde(skip)]
    pub last: Option<GrowProgress>,
}

impl GrowReport {
    fn new(end: GrowEnd, root: &Node, counts: &BookCounts) -> GrowReport {
        GrowReport {
            end: match end {
                GrowEnd::Solved => "solved",
                GrowEnd::Budget => "budget",
                GrowEnd::Stopped => "stopped",
            },
            status: root.status.name(),
            proof: root.proof,
            disproof: root.disproof,
            searches: 0,
            nodes_searched: 0,
            seconds: 0.0,
            book_nodes: counts.nodes,
            open_leaves: counts.open_leaves,
            won: counts.won,
            lost: counts.lost,
            searches_logged: counts.searches,
            store_retries: 0,
            longest_write_seconds: 0.0,
            proofs: None,
            already_solved: false,
            won_root: root.status.is_win(),
            last: None,
        }
    }
}

/// The report of a book whose root is decided already (nothing to grow), else `None`.
///
/// # Errors
/// The store's.
pub fn solved_report(book: &mut Book) -> Result<Option<GrowReport>> {
    let root = book.root()?;
    if !root.status.is_decided() {
        return Ok(None);
    }
    let mut report = GrowReport::new(GrowEnd::Solved, &root, &book.counts()?);
    report.already_solved = true;
    Ok(Some(report))
}

fn last_error(slot: &std::sync::Mutex<Option<String>>) -> Option<String> {
    slot.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone()
}

fn snapshot(book: &mut Book, stats: &GrowStats, start: Instant) -> Result<GrowProgress> {
    Ok(GrowProgress {
        seconds: start.elapsed().as_secs_f64().max(1e-9),
        root: book.root()?,
        counts: book.counts()?,
        searches: stats.searches.load(Relaxed),
        nodes: stats.nodes.load(Relaxed),
        decided: stats.decided.load(Relaxed),
        proofs_failed: stats.proofs_failed.load(Relaxed),
    })
}

/// Reports store failures and progress until `done`. While the store cannot be reached
/// the snapshot waits (the failures are reported) and the book is opened again.
fn monitor(
    book: &mut Book,
    every: Option<Duration>,
    stats: &GrowStats,
    start: Instant,
    done: &AtomicBool,
    on_event: &mut dyn FnMut(GrowEvent),
) -> Result<()> {
    let mut last_report = Instant::now();
    let mut retries_told = 0;
    let mut reopen = false;
    while !done.load(Relaxed) {
        std::thread::sleep(Duration::from_millis(200));
        let retries = stats.retries.load(Relaxed);
        if retries > retries_told {
            retries_told = retries;
            let error = last_error(&stats.last_store_error).unwrap_or_default();
            on_event(GrowEvent::StoreRetry { retries, error });
        }
        let Some(every) = every else { continue };
        if last_report.elapsed() < every {
            continue;
        }
        last_report = Instant::now();
        if reopen {
            match Book::open(book.given_location()) {
                Ok(b) => *book = b,
                Err(e) if e.is_transient() => continue,
                Err(e) => return Err(e),
            }
            reopen = false;
        }
        match snapshot(book, stats, start) {
            Ok(p) => on_event(GrowEvent::Progress(p)),
            Err(e) if e.is_transient() => reopen = true,
            Err(e) => return Err(e),
        }
    }
    if reopen {
        *book = Book::open(book.given_location())?;
    }
    Ok(())
}

/// Grows `book` with the workers of [`crate::grow::grow`] until its root is solved, the
/// budget is spent or `stop` is set; events on this thread meanwhile. A book solved
/// already is reported at once.
///
/// # Errors
/// Options no worker can run with, a damaged book, the workers' errors, the store's.
pub fn grow_job(
    book: &mut Book,
    tablebase: Option<&Tablebase>,
    options: &GrowJobOptions,
    stop: &Arc<AtomicBool>,
    on_event: &mut dyn FnMut(GrowEvent),
) -> Result<GrowReport> {
    if let Some(report) = solved_report(book)? {
        return Ok(report);
    }
    let start = Instant::now();
    let stats = GrowStats::default();
    on_event(GrowEvent::Started { root: book.root()? });
    check_options(&options.grow)?;
    let ready = prepare(book)?;
    let location = book.given_location().to_string();
    let done = AtomicBool::new(false);
    let (grown, monitored) = std::thread::scope(|scope| {
        let workers = scope.spawn(|| {
            let end = run_workers(&location, &ready, tablebase, &options.grow, stop, &stats);
            done.store(true, Relaxed);
            end
        });
        let monitored = monitor(book, options.progress_every, &stats, start, &done, on_event);
        let grown = workers
            .join()
            .unwrap_or_else(|_| Err(BookError::Input("a book worker panicked".into())));
        (grown, monitored)
    });
    let end = grown?;
    monitored?;
    let last = snapshot(book, &stats, start)?;
    let mut report = GrowReport::new(end, &last.root, &last.counts);
    report.searches = last.searches;
    report.nodes_searched = last.nodes;
    report.seconds = start.elapsed().as_secs_f64();
    report.store_retries = stats.retries.load(Relaxed);
    report.longest_write_seconds = stats.longest_write_ms.load(Relaxed) as f64 / 1000.0;
    report.proofs = Some(ProofsKept {
        proofs_kept: stats.proofs_kept.load(Relaxed),
        proofs_not_kept: last.proofs_failed,
        last_proof_error: last_error(&stats.last_proof_error),
    });
    report.last = Some(last);
    Ok(report)
}
