//! The `prove` job: one call for a person who wants a line proved. It owns the whole
//! pipeline: where the line's book lives in the cache (created, resumed, or built from a
//! frontier file), its seeds and queued lines, the growth until the root is decided (in
//! rounds, with table rounds and frontier saves beside the searches: [`growing`]), then
//! the assembly, minimisation with the time left, verification and writing of the proof;
//! when the run ends unsolved, the frontier and the solved subtrees' proofs are written.
//!
//! Options in ([`ProveLineOptions`]), events out ([`ProveLineEvent`]: progress, what was
//! loaded, queued, built and saved), one serializable report ([`ProveLineReport`]). The
//! tables it starts from are given opened (the caller builds the missing ones first, with
//! its own progress display).

mod growing;
mod rounds;
mod start;
mod types;

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use antichess_tb::Tablebase;

use crate::{prove_subtrees, prove_to_file, Book, GrowEnd, GrowStats, ProveEvent, Result};
use types::{frontier_options, prove_options};

pub use growing::materials_met;
pub use rounds::{GrownTables, TablesMet};
pub use start::{book_name, books_dir, worker_hash};
pub use types::{
    FrontierReport, ProveLineEvent, ProveLineOptions, ProveLineOutcome, ProveLineReport,
    RootReport, SubtreesReport, TablesGrownReport,
};

/// Proves a line: see the module documentation.
pub fn prove_line(
    mut options: ProveLineOptions,
    on_event: &mut dyn FnMut(ProveLineEvent),
) -> Result<ProveLineReport> {
    on_event(options.started_event());
    let complete = options
        .tablebase
        .as_ref()
        .map_or(0, Tablebase::complete_units);
    let opened = start::open_book(&options, on_event)?;
    let stats = GrowStats::default();
    let grown = growing::grow_rounds(&mut options, &opened.location, &stats, on_event)?;
    let mut book = Book::open(&opened.location)?;
    let root = book.root()?;
    let counts = book.counts()?;
    let units = options.tablebase.as_ref().map_or(0, Tablebase::max_units);
    let mut report = ProveLineReport {
        book: opened.location.clone(),
        resumed: opened.resumed,
        workers: options.workers,
        search_nodes: options.search_nodes,
        hash_bytes: options.hash_bytes,
        walk: format!("{:?}", options.selection),
        from_frontier: opened.from_frontier,
        seeds: opened.seeded,
        tables_units: units,
        tables_complete_units: complete,
        tables_seconds: options.tables_seconds,
        tables_grown: TablesGrownReport {
            rounds: grown.tables.rounds,
            tables: grown.tables.tables,
            seconds: grown.tables.seconds,
            met: options.tables_met,
        },
        searches: stats.searches.load(Relaxed),
        searches_in_all: counts.searches,
        book_nodes: counts.nodes,
        root: RootReport {
            status: root.status.to_string(),
            proof: root.proof,
            disproof: root.disproof,
        },
        grow_seconds: grown.seconds,
        proofs_not_kept: stats.proofs_failed.load(Relaxed),
        store_retries: stats.retries.load(Relaxed),
        longest_write_seconds: stats.longest_write_ms.load(Relaxed) as f64 / 1000.0,
        longest_write_node: stats.longest_write_node.load(Relaxed) as i64,
        proof_file: None,
        verified: None,
        frontier: None,
        solved: root.status.is_proven(),
        subtrees: None,
        proof_nodes: None,
        bytes: None,
        assembled_nodes: None,
        minimized: None,
        seconds: None,
        error: None,
        outcome: ProveLineOutcome::Open,
        end: grown.end,
    };
    let frontier_saves = grown.frontier_saves;
    if !root.status.is_proven() {
        let path = opened.path();
        keep_unsolved(
            &options,
            &mut book,
            &path,
            frontier_saves,
            &mut report,
            on_event,
        )?;
    } else if !root.status.is_win() {
        report.outcome = ProveLineOutcome::Disproved;
    } else {
        prove(&options, &mut book, &opened.path(), &mut report, on_event)?;
    }
    Ok(report)
}

/// Not solved in this run: the frontier is written, and the solved subtrees' proofs.
fn keep_unsolved(
    options: &ProveLineOptions,
    book: &mut Book,
    path: &Path,
    mut frontier_saves: u32,
    report: &mut ProveLineReport,
    on_event: &mut dyn FnMut(ProveLineEvent),
) -> Result<()> {
    let tables = options.tablebase.as_ref();
    let units = tables.map_or(0, Tablebase::max_units);
    if let Some(file) = &options.frontier {
        let assemble = frontier_options(options, units, path);
        let saved = crate::frontier::save_frontier(book, tables, &assemble, file, &mut |e| {
            on_event(ProveLineEvent::Frontier(e));
        })?;
        on_event(ProveLineEvent::FrontierSaved {
            file: file.clone(),
            report: saved.clone(),
        });
        frontier_saves += 1;
        report.frontier = Some(FrontierReport {
            file: file.clone(),
            saves: frontier_saves,
            last: saved,
        });
    }
    let sub = PathBuf::from(format!("{}.subtrees", report.book));
    let mut written = 0;
    if report.end != GrowEnd::Stopped {
        let assemble = prove_options(options, units, None, path);
        if let Ok(list) = prove_subtrees(book, tables, &assemble, &sub, 2, &mut |_| {}) {
            written = list.iter().filter(|s| s.result.is_ok()).count();
        }
    }
    report.subtrees = Some(SubtreesReport { dir: sub, written });
    Ok(())
}

/// The root is won: the proof is assembled, minimised with the time left, verified and
/// written.
fn prove(
    options: &ProveLineOptions,
    book: &mut Book,
    path: &Path,
    report: &mut ProveLineReport,
    on_event: &mut dyn FnMut(ProveLineEvent),
) -> Result<()> {
    let left = options
        .time
        .filter(|_| !options.no_minimize)
        .map(|t| t.saturating_sub(options.started.elapsed()))
        .filter(|t| *t >= Duration::from_secs(1));
    let tables = options.tablebase.as_ref();
    let assemble = prove_options(options, report.tables_units, left, path);
    on_event(ProveLineEvent::Assembling);
    let (proved, verified) = prove_to_file(book, tables, &assemble, &options.output, &mut |e| {
        if let ProveEvent::LeafSolved { leaves, .. } = e {
            if leaves % 100 == 0 {
                on_event(ProveLineEvent::LeavesSolved(leaves));
            }
        }
    })?;
    report.outcome = ProveLineOutcome::Proved;
    report.proof_file = Some(options.output.clone());
    report.verified = Some(verified.verdict.is_ok());
    report.proof_nodes = Some(proved.counts.total);
    report.bytes = Some(verified.bytes);
    report.assembled_nodes = Some(proved.assembled_nodes);
    report.minimized = Some(proved.minimized.is_some());
    report.seconds = Some(options.started.elapsed().as_secs_f64());
    report.error = verified.verdict.err();
    Ok(())
}
