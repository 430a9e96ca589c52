//! `bench store` as a job: the load a book store sustains. [`store_bench`] creates a fresh
//! book (at the location given, else a SQLite file in a temporary directory), starts
//! [`StoreBenchOptions::processes`] worker processes on it through the caller's `spawn`
//! (the CLI's is [`grow_worker`]: `antichess book grow` with one worker and one node per
//! search, so that the time goes to the walk, the claim and the result's write with its
//! minimax), waits for
//! them, and reports from the search log how many claims and result writes per second the
//! store took, over the log's span from the first claim to the last write (seconds). The
//! book is removed afterwards unless kept.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use antichess_core::{Color, Game};

use crate::error::{BookError, Result};
use crate::store::{redact, remove_store, Location};
use crate::Book;

/// What [`store_bench`] measures.
#[derive(Debug, Clone)]
pub struct StoreBenchOptions {
    /// Where to create the book: a file or a `postgres://` URL that holds no book yet;
    /// `None`: a SQLite file in a temporary directory.
    pub location: Option<String>,
    /// The book's root (White to prove a win), and the moves as given (for the report).
    pub game: Game,
    pub moves: String,
    /// Worker processes.
    pub processes: usize,
    /// How long each worker runs.
    pub time: Duration,
    /// Keep the book afterwards.
    pub keep: bool,
}

/// What [`store_bench`] reports before it measures.
#[derive(Debug, Clone)]
pub enum StoreBenchEvent {
    /// The book was created: the store's kind (`SQLite`, `PostgreSQL`) and its location
    /// with any password hidden.
    Created {
        store: &'static str,
        location: String,
    },
}

/// What [`store_bench`] measured (the JSON of `bench store --format json`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct StoreBenchReport {
    pub store: &'static str,
    /// The location, password hidden.
    pub location: String,
    pub moves: String,
    pub processes: usize,
    /// The workers' time.
    pub seconds: f64,
    /// Claims (searches started) and result writes in the search log.
    pub claims: u64,
    pub writes: u64,
    pub claims_per_second: f64,
    pub writes_per_second: f64,
    pub transactions_per_second: f64,
    pub span_seconds: f64,
    pub book_nodes: u64,
    /// Workers that wrote to the log.
    pub workers: usize,
    pub wall_seconds: f64,
}

/// The benchmark's worker: `program` (the `antichess` binary) runs `book grow` on the book
/// at the location given, with one worker, one node per search, a 1 MB table and no
/// tables, for the time given, its summary in JSON; its output piped.
pub fn grow_worker(program: &Path) -> impl Fn(&str, Duration) -> std::io::Result<Child> + '_ {
    move |location, time| {
        Command::new(program)
            .args([
                "book",
                "grow",
                location,
                "--workers",
                "1",
                "--search-nodes",
                "1",
                "--hash",
                "1M",
                "--tb-units",
                "0",
                "--time",
                &time.as_secs_f64().to_string(),
                "--format",
                "json",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
    }
}

/// Runs the benchmark (see the module's comment). `spawn(location, time)` starts one
/// worker process on the book at `location`, which must exit with success after `time`.
///
/// # Errors
/// The book cannot be created or read, a worker cannot be started, or one failed (the
/// message gives the first one's standard error).
pub fn store_bench(
    options: &StoreBenchOptions,
    spawn: &dyn Fn(&str, Duration) -> std::io::Result<Child>,
    on_event: &mut dyn FnMut(StoreBenchEvent),
) -> Result<StoreBenchReport> {
    let temp_dir =
        std::env::temp_dir().join(format!("antichess-bench-store-{}", std::process::id()));
    let location = match &options.location {
        Some(location) => location.clone(),
        None => {
            std::fs::create_dir_all(&temp_dir).map_err(|source| BookError::Io {
                context: format!("creating {}", temp_dir.display()),
                source,
            })?;
            temp_dir.join("store.book").display().to_string()
        }
    };
    let game = &options.game;
    drop(Book::create(
        &location,
        game.position(),
        Color::White,
        game.moves(),
    )?);
    let store = match Location::parse(&location) {
        Location::Sqlite(_) => "SQLite",
        Location::Postgres(_) => "PostgreSQL",
    };
    on_event(StoreBenchEvent::Created {
        store,
        location: redact(&location),
    });
    let result = measure(options, &location, store, spawn);
    if !options.keep {
        let _ = remove_store(&location);
    }
    let _ = std::fs::remove_dir_all(&temp_dir);
    result
}

fn measure(
    options: &StoreBenchOptions,
    location: &str,
    store: &'static str,
    spawn: &dyn Fn(&str, Duration) -> std::io::Result<Child>,
) -> Result<StoreBenchReport> {
    let start = Instant::now();
    let children = (0..options.processes)
        .map(|_| {
            spawn(location, options.time).map_err(|source| BookError::Io {
                context: "starting a grow process".to_string(),
                source,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let mut failures = Vec::new();
    for child in children {
        let out = child.wait_with_output().map_err(|source| BookError::Io {
            context: "waiting for a grow process".to_string(),
            source,
        })?;
        if !out.status.success() {
            failures.push(String::from_utf8_lossy(&out.stderr).into_owned());
        }
    }
    let wall = start.elapsed().as_secs_f64();
    if let Some(first) = failures.first() {
        return Err(BookError::Input(format!(
            "{} grow process(es) failed; the first said:\n{first}",
            failures.len()
        )));
    }
    let mut book = Book::open(location)?;
    let log = book.search_log()?;
    let counts = book.counts()?;
    let first = log.iter().map(|l| l.started_ms).min().unwrap_or(0);
    let last = log
        .iter()
        .filter_map(|l| l.finished_ms)
        .max()
        .unwrap_or(first);
    let span = ((last - first) as f64 / 1000.0).max(1e-3);
    let claims = log.len() as u64;
    let writes = log.iter().filter(|l| l.finished_ms.is_some()).count() as u64;
    let workers: std::collections::HashSet<_> = log.iter().map(|l| l.worker.as_str()).collect();
    Ok(StoreBenchReport {
        store,
        location: redact(location),
        moves: options.moves.clone(),
        processes: options.processes,
        seconds: options.time.as_secs_f64(),
        claims,
        writes,
        claims_per_second: claims as f64 / span,
        writes_per_second: writes as f64 / span,
        transactions_per_second: (claims + writes) as f64 / span,
        span_seconds: span,
        book_nodes: counts.nodes,
        workers: workers.len(),
        wall_seconds: wall,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use antichess_core::{play_move_text, Position, Rules};
    use std::process::{Command, Stdio};

    fn options() -> StoreBenchOptions {
        StoreBenchOptions {
            location: None,
            game: play_move_text(Position::start(Rules::INTERNATIONAL), "e3").unwrap(),
            moves: "e3".to_string(),
            processes: 2,
            time: Duration::from_millis(10),
            keep: false,
        }
    }

    fn spawn(program: &'static str) -> impl Fn(&str, Duration) -> std::io::Result<Child> {
        move |_, _| {
            Command::new(program)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
        }
    }

    #[test]
    fn workers_that_search_nothing_measure_no_claims_and_a_failing_one_is_an_error() {
        if Command::new("true").status().is_err() {
            eprintln!("skipped: no `true` program to start as a worker");
            return;
        }
        let mut created = Vec::new();
        let report = store_bench(&options(), &spawn("true"), &mut |e| created.push(e)).unwrap();
        assert!(matches!(
            created.as_slice(),
            [StoreBenchEvent::Created {
                store: "SQLite",
                ..
            }]
        ));
        assert_eq!((report.claims, report.writes, report.workers), (0, 0, 0));
        assert!(report.book_nodes >= 1);
        assert!(!std::path::Path::new(&report.location).exists());
        let err = store_bench(&options(), &spawn("false"), &mut |_| {}).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("2 grow process(es) failed; the first said:"),
            "{err}"
        );
    }
}
