//! `bench book` as a job: a fresh book on a fixed line grown until solved (or a time
//! limit) for each search budget and worker count, then proved and verified; one row per
//! configuration as it is measured, and all of them in one report.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use antichess_core::{Color, Game};
use antichess_tb::Tablebase;

use crate::error::{BookError, Result};
use crate::grow::{grow, GrowEnd, GrowOptions, GrowStats};
use crate::prove::{prove_to_file, AssembleOptions};
use crate::select::Selection;
use crate::Book;

/// What to measure.
#[derive(Debug, Clone)]
pub struct BookBenchOptions {
    /// Node budgets of one leaf search.
    pub search_nodes: Vec<u64>,
    /// Worker counts.
    pub workers: Vec<usize>,
    /// Give up on one configuration after this long.
    pub time: Duration,
}

/// What `bench book --format json` prints: the line, the tables' units, the store, a row
/// per configuration and the process's peak memory.
#[derive(Debug, Clone, serde::Serialize)]
pub struct BookBenchReport {
    pub moves: String,
    pub tables_units: u32,
    pub store: &'static str,
    pub results: Vec<BenchRow>,
    pub peak_memory_bytes: Option<u64>,
}

/// One configuration measured.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct BenchRow {
    pub search_nodes: u64,
    pub workers: usize,
    /// `solved` or `unsolved`.
    pub result: &'static str,
    pub seconds: f64,
    pub searches: u64,
    pub searches_per_second: f64,
    pub positions_per_second: f64,
    pub book_nodes: u64,
    /// The proof of a solved book: its nodes, the time `book prove` took, the verdict.
    pub proof_nodes: Option<u64>,
    pub prove_seconds: Option<f64>,
    pub verified: Option<bool>,
    pub error: Option<String>,
}

/// Grows and proves one book at `location` (created here) on `game`'s line.
fn measure(
    location: &str,
    proof: &Path,
    game: &Game,
    tablebase: Option<&Tablebase>,
    (search_nodes, workers): (u64, usize),
    time: Duration,
) -> Result<BenchRow> {
    drop(Book::create(
        location,
        game.position(),
        Color::White,
        game.moves(),
    )?);
    let units = tablebase.map_or(0, Tablebase::max_units);
    let options = GrowOptions {
        workers: workers.max(1),
        search_nodes: search_nodes.max(1),
        hash_bytes: 64 << 20,
        max_time: Some(time),
        selection: Selection::MostProving,
        tablebase_units: units,
        ..GrowOptions::default()
    };
    let stats = GrowStats::default();
    let start = Instant::now();
    let stop = Arc::new(AtomicBool::new(false));
    let end = grow(location, tablebase, &options, &stop, &stats)?;
    let seconds = start.elapsed().as_secs_f64();
    let mut book = Book::open(location)?;
    let searches = stats.searches.load(Relaxed);
    let mut row = BenchRow {
        search_nodes,
        workers,
        result: if end == GrowEnd::Solved {
            "solved"
        } else {
            "unsolved"
        },
        seconds,
        searches,
        searches_per_second: searches as f64 / seconds.max(1e-9),
        positions_per_second: stats.nodes.load(Relaxed) as f64 / seconds.max(1e-9),
        book_nodes: book.counts()?.nodes,
        proof_nodes: None,
        prove_seconds: None,
        verified: None,
        error: None,
    };
    if end == GrowEnd::Solved {
        let options = AssembleOptions {
            hash_bytes: 256 << 20,
            tablebase_units: units,
            threads: workers.max(1),
            ..AssembleOptions::default()
        };
        let (report, verified) = prove_to_file(&mut book, tablebase, &options, proof, &mut |_| {})?;
        row.proof_nodes = Some(report.counts.total);
        // As the text gives it: two decimals.
        row.prove_seconds = format!("{:.2}", report.seconds).parse().ok();
        row.verified = Some(verified.verdict.is_ok());
        row.error = verified.verdict.err();
    }
    Ok(row)
}

/// Measures every configuration of `options` on `game`'s line (White to win), in a
/// temporary directory removed at the end; `on_row` gets each row as it is measured.
///
/// # Errors
/// The directory cannot be made; the books' and the proofs' errors.
pub fn bench_book(
    game: &Game,
    tablebase: Option<&Tablebase>,
    options: &BookBenchOptions,
    on_row: &mut dyn FnMut(&BenchRow),
) -> Result<Vec<BenchRow>> {
    let dir = std::env::temp_dir().join(format!("antichess-bench-book-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|source| BookError::Io {
        context: format!("creating {}", dir.display()),
        source,
    })?;
    let mut rows = Vec::new();
    let result = (|| -> Result<()> {
        for &search_nodes in &options.search_nodes {
            for &workers in &options.workers {
                let name = format!("b-{search_nodes}-{workers}.book");
                let location = dir.join(name).display().to_string();
                let config = (search_nodes, workers);
                let proof = dir.join("p.proof");
                let row = measure(&location, &proof, game, tablebase, config, options.time)?;
                on_row(&row);
                rows.push(row);
            }
        }
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result.map(|()| rows)
}
