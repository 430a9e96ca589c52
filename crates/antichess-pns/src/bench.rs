//! The solve benchmark (`antichess bench solve`): the fixed set of opening lines (the
//! twelve easy Black replies to 1. e3, and Black's wins against 1. e4, 1. d4 and 1. d3),
//! each proved through the prove pipeline ([`prove_position`]: the proof written and
//! verified, minimised if asked) on one table emptied before each line; then the search
//! speed per thread count on a fixed search. Options in ([`SolveBenchOptions`]), one event
//! per line and per thread count ([`SolveBenchEvent`]), one report ([`SolveBenchReport`]).

use std::path::PathBuf;
use std::time::Duration;

use antichess_core::{play_move_text, Color, Position, Rules};
use antichess_tb::Tablebase;
use serde::Serialize;

use crate::error::{PnsError, Result};
use crate::initial::InitialNumbers;
use crate::minimize::MinimizeOptions;
use crate::prove::{prove_position, ProofOutput, ProveOptions, Solved};
use crate::search::{SearchOptions, SearchStatus, Solver};
use crate::tt::ENTRY_BYTES;

/// A benchmark line: moves from the start, the prover, and the proof size of the reference
/// solution when published.
pub type BenchLine = (&'static str, Color, Option<u64>);

/// Every benchmark line.
pub const BENCH_LINES: &[BenchLine] = &[
    ("e3 d5", Color::White, Some(33)),
    ("e3 d6", Color::White, Some(33)),
    ("e3 Na6", Color::White, Some(3_271)),
    ("e3 g6", Color::White, Some(4_489)),
    ("e3 Nf6", Color::White, Some(23_388)),
    ("e3 h6", Color::White, Some(43_130)),
    ("e3 e5", Color::White, Some(43_271)),
    ("e3 h5", Color::White, Some(69_190)),
    ("e3 f5", Color::White, Some(89_635)),
    ("e3 a6", Color::White, Some(234_355)),
    ("e3 a5", Color::White, Some(261_691)),
    ("e3 f6", Color::White, Some(273_036)),
    ("e4", Color::Black, None),
    ("d4", Color::Black, None),
    ("d3", Color::Black, None),
];

/// The lines named (the moves after 1. e3, or e4/d4/d3); every line if none.
///
/// # Errors
/// A name that is not a benchmark line.
pub fn bench_lines(names: &[String]) -> Result<Vec<BenchLine>> {
    if names.is_empty() {
        return Ok(BENCH_LINES.to_vec());
    }
    names
        .iter()
        .map(|name| {
            let name = name.trim();
            BENCH_LINES
                .iter()
                .find(|(moves, _, _)| *moves == name || moves.strip_prefix("e3 ") == Some(name))
                .copied()
                .ok_or_else(|| {
                    PnsError::Invalid(format!(
                        "--lines: \"{name}\" is not a benchmark line (the replies to 1. e3: d5, d6, Na6, g6, Nf6, h6, e5, h5, f5, a6, a5, f6; or e4, d4, d3)"
                    ))
                })
        })
        .collect()
}

/// What [`solve_bench`] runs.
#[derive(Debug, Clone)]
pub struct SolveBenchOptions<'a> {
    pub lines: Vec<BenchLine>,
    /// Node and time budgets of each line.
    pub nodes: u64,
    pub time: Duration,
    /// The one table's size.
    pub hash_bytes: usize,
    pub threads: usize,
    pub tablebase: Option<&'a Tablebase>,
    pub initial: InitialNumbers,
    /// Where the proofs are kept (`None`: a temporary directory, removed).
    pub proof_dir: Option<PathBuf>,
    pub minimize: Option<MinimizeOptions>,
    /// Measure the search speed per thread count.
    pub speed: bool,
}

/// What [`solve_bench`] tells as it goes.
#[derive(Debug)]
pub enum SolveBenchEvent<'a> {
    /// A line was proved (or its budget ran out).
    Line(&'a LineRow),
    /// The speed measurement starts.
    SpeedStarted,
    /// The speed with one more thread.
    Speed(&'a SpeedRow),
}

/// One line's figures.
#[derive(Debug, Clone, Serialize)]
pub struct LineRow {
    pub line: String,
    pub prover: String,
    pub result: String,
    pub seconds: f64,
    pub nodes: u64,
    pub nodes_per_second: f64,
    /// The proof as found, before the minimisation.
    pub unminimized_proof_nodes: Option<u64>,
    pub minimize_seconds: Option<f64>,
    pub proof_nodes: Option<u64>,
    pub reference_proof_nodes: Option<u64>,
    pub bytes_per_node: Option<f64>,
    pub verified: Option<bool>,
    pub error: Option<String>,
}

/// The search speed with `threads` threads.
#[derive(Debug, Clone, Serialize)]
pub struct SpeedRow {
    pub threads: usize,
    pub result: String,
    pub seconds: f64,
    pub nodes: u64,
    pub nodes_per_second: f64,
    pub speedup_nodes_per_second: f64,
    pub speedup_time: f64,
}

/// What [`solve_bench`] found.
#[derive(Debug, Clone, Serialize)]
pub struct SolveBenchReport {
    pub rules: String,
    pub tables_units: u32,
    pub threads: usize,
    pub hash_bytes: usize,
    pub nodes_budget: u64,
    pub seconds_budget: f64,
    /// The initial numbers, described.
    pub initial: String,
    pub lines: Vec<LineRow>,
    /// The lines not proved within the budget.
    pub unproved: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speed: Option<Vec<SpeedRow>>,
    pub entry_bytes: usize,
    /// The process's peak memory, which the caller fills in at the end.
    pub peak_memory_bytes: Option<u64>,
}

impl SolveBenchReport {
    /// Whether every proof written verified.
    #[must_use]
    pub fn all_verified(&self) -> bool {
        self.lines.iter().all(|l| l.verified != Some(false))
    }
}

/// Runs the benchmark: see the module documentation.
///
/// # Errors
/// When the table cannot be allocated, the proof directory made, or a proof written.
pub fn solve_bench(
    options: &SolveBenchOptions<'_>,
    on_event: &mut dyn FnMut(SolveBenchEvent<'_>),
) -> Result<SolveBenchReport> {
    let units = options.tablebase.map_or(0, Tablebase::max_units);
    let mut report = SolveBenchReport {
        rules: Rules::INTERNATIONAL.to_string(),
        tables_units: units,
        threads: options.threads,
        hash_bytes: options.hash_bytes,
        nodes_budget: options.nodes,
        seconds_budget: options.time.as_secs_f64(),
        initial: options.initial.describe(),
        lines: Vec::new(),
        unproved: Vec::new(),
        speed: None,
        entry_bytes: ENTRY_BYTES,
        peak_memory_bytes: None,
    };
    let (dir, temporary) = match &options.proof_dir {
        Some(dir) => (dir.clone(), false),
        None => (
            std::env::temp_dir().join(format!("antichess-bench-solve-{}", std::process::id())),
            true,
        ),
    };
    std::fs::create_dir_all(&dir).map_err(|source| PnsError::Io {
        context: format!("creating {}", dir.display()),
        source,
    })?;
    // One table for all lines, emptied before each: its pages are faulted in once.
    let solver = Solver::try_new(options.hash_bytes, options.tablebase)?;
    let result = (|| -> Result<()> {
        for &(moves, prover, reference) in &options.lines {
            let path = dir.join(format!("{}.proof", moves.replace(' ', "-")));
            let solved = solve_line(&solver, options, moves, prover, path)?;
            let row = line_row(moves, prover, reference, &solved);
            if solved.search.status != SearchStatus::Proved {
                report.unproved.push(moves.to_string());
            }
            on_event(SolveBenchEvent::Line(&row));
            report.lines.push(row);
        }
        Ok(())
    })();
    if temporary {
        let _ = std::fs::remove_dir_all(&dir);
    }
    result?;
    if options.speed {
        report.speed = Some(speed(&solver, options, on_event)?);
    }
    Ok(report)
}

/// Proves one line, its proof written to `path`.
fn solve_line(
    solver: &Solver<'_>,
    options: &SolveBenchOptions<'_>,
    moves: &str,
    prover: Color,
    path: PathBuf,
) -> Result<Solved> {
    let game = play_move_text(Position::start(Rules::INTERNATIONAL), moves)
        .map_err(|e| PnsError::Invalid(e.to_string()))?;
    let mut search = SearchOptions::new(prover);
    search.max_nodes = Some(options.nodes);
    search.max_time = Some(options.time);
    search.threads = options.threads.max(1);
    search.tablebase_units = options.tablebase.map_or(0, Tablebase::max_units);
    search.initial = options.initial.clone();
    let mut prove = ProveOptions::new(search);
    prove.prolog = game.moves().to_vec();
    prove.output = ProofOutput::File(path);
    prove.minimize = options.minimize.clone();
    prove.save_every = Duration::ZERO;
    solver.table().clear();
    prove_position(solver, game.position(), &prove, &mut |_| {})
}

/// One line's figures from its solve.
fn line_row(moves: &str, prover: Color, reference: Option<u64>, solved: &Solved) -> LineRow {
    let r = &solved.search;
    let seconds = r.elapsed.as_secs_f64();
    let proof = solved.proof.as_ref();
    let minimized = proof.and_then(|p| p.minimized);
    LineRow {
        line: moves.to_string(),
        prover: prover.name().to_string(),
        result: r.status.name().to_string(),
        seconds,
        nodes: r.nodes,
        nodes_per_second: r.nodes as f64 / seconds.max(1e-9),
        unminimized_proof_nodes: minimized.map(|m| m.nodes_before),
        minimize_seconds: minimized.map(|m| m.elapsed.as_secs_f64()),
        proof_nodes: proof.map(|p| p.counts.total),
        reference_proof_nodes: reference,
        bytes_per_node: proof.map(|p| p.bytes as f64 / p.counts.total.max(1) as f64),
        verified: proof.map(crate::prove::ProofOutcome::verified),
        error: proof.and_then(|p| match &p.verdict {
            Some(Ok(_)) => None,
            Some(Err(e)) => Some(e.to_string()),
            None => Some("not verified".to_string()),
        }),
    }
}

/// Nodes/s on a fixed search (1. e3 g6, 10 seconds) with 1, 2, ... threads up to the
/// cores (or `options.threads` if more).
fn speed(
    solver: &Solver<'_>,
    options: &SolveBenchOptions<'_>,
    on_event: &mut dyn FnMut(SolveBenchEvent<'_>),
) -> Result<Vec<SpeedRow>> {
    let game = play_move_text(Position::start(Rules::INTERNATIONAL), "e3 g6")
        .map_err(|e| PnsError::Invalid(e.to_string()))?;
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    on_event(SolveBenchEvent::SpeedStarted);
    let mut rows = Vec::new();
    let mut base = None;
    for threads in 1..=cores.max(options.threads) {
        let mut search = SearchOptions::new(Color::White);
        search.max_time = Some(Duration::from_secs(10));
        search.threads = threads;
        search.tablebase_units = options.tablebase.map_or(0, Tablebase::max_units);
        search.initial = options.initial.clone();
        solver.table().clear();
        let r = solver.search(game.position(), &search, &mut |_| {});
        let seconds = r.elapsed.as_secs_f64();
        let nps = r.nodes as f64 / seconds.max(1e-9);
        let (base_nps, base_seconds) = *base.get_or_insert((nps, seconds));
        let row = SpeedRow {
            threads,
            result: r.status.name().to_string(),
            seconds,
            nodes: r.nodes,
            nodes_per_second: nps,
            speedup_nodes_per_second: nps / base_nps,
            speedup_time: base_seconds / seconds.max(1e-9),
        };
        on_event(SolveBenchEvent::Speed(&row));
        rows.push(row);
    }
    Ok(rows)
}
