//! The prove pipeline: one call that takes a position to a written, verified proof.
//!
//! [`prove_position`] searches the position ([`Solver::search`]); once it is proved, it
//! extracts the proof from the transposition table, or with [`ProveOptions::minimize`]
//! first minimises it ([`crate::extract_minimized`]), saving the smallest proof so far to
//! the output now and then while that runs ([`ProofSaver`]); then it writes the proof
//! (compact format, to a temporary name renamed into place) or encodes it in memory, and
//! checks it with `antichess-proof`'s independent verifier. [`finish_proof`] does the
//! second half for a proof given as a tree (a book's assembled proof): minimisation with
//! [`crate::minimize_proof`], the saver, the write and the verification.
//!
//! [`resume::prove_resumable`] runs [`prove_position`] with the search's state kept in a
//! checkpoint file, so that a long search can be stopped and resumed (`solve
//! --checkpoint`), and [`job::solve_job`] is `solve` whole: the solver, the pipeline with
//! its checkpoint, and the report.
//!
//! The CLI's `solve`, the web app's `/api/solve` and `book prove` all go through here, and
//! [`SolveReport`] is the JSON both `solve --format json` and `/api/solve` answer with.
//! What the caller sees as it goes comes through one callback, as [`ProveEvent`]s.

pub mod job;
mod report;
pub mod resume;
mod saver;
pub mod text;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use antichess_core::{Color, Move, Position};
use antichess_proof::{
    encode_compact, verify_compact, verify_file, write_proof_file, ByteOrder, Format, LeafOracle,
    ProofCounts, ProofError, ProofStats, ProofTree, TablebaseOracle, VerifyOptions,
};

pub use report::{MoveReport, ProofTreeReport, SolveReport};
pub use saver::{write_verified, ProofSaver};

use crate::error::{PnsError, Result};
use crate::minimize::{
    extract_minimized, minimize_proof, MinimizeOptions, MinimizeProgress, MinimizeReport,
};
use crate::search::{Progress, SearchOptions, SearchResult, SearchStatus, Solver};

/// Where a proof goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProofOutput {
    /// No proof: search only.
    None,
    /// Kept in memory ([`ProofOutcome::tree`]); with `verify`, encoded in the compact
    /// format and checked by the verifier there.
    Memory { verify: bool },
    /// Written to this file in the compact format (to a temporary name, then renamed) and
    /// checked there by the verifier.
    File(PathBuf),
}

/// What [`prove_position`] and [`finish_proof`] do.
#[derive(Debug, Clone)]
pub struct ProveOptions {
    /// The search: prover, budgets, threads, tablebase units, stop flag. The extraction
    /// and the minimiser take its rules (tablebase units, lone-bishop rule) but not its
    /// budgets or stop flag.
    pub search: SearchOptions,
    /// The moves from the standard start position to the root, if known (recorded in the
    /// proof). [`finish_proof`] keeps the tree's own.
    pub prolog: Vec<Move>,
    /// Where the proof goes once the root is proved.
    pub output: ProofOutput,
    /// Minimise the proof first, within these limits (`None`: the proof as found).
    pub minimize: Option<MinimizeOptions>,
    /// With a minimisation and a file: the smallest proof so far is saved to the file
    /// (verified, atomically) at most this often, the first one at once (zero: only the
    /// final proof is written).
    pub save_every: Duration,
    /// Longest main line reported, in plies (0: none).
    pub main_line_plies: usize,
}

impl ProveOptions {
    /// A search with `search`'s options, no proof written, a main line of 40 plies.
    #[must_use]
    pub fn new(search: SearchOptions) -> ProveOptions {
        ProveOptions {
            search,
            prolog: Vec::new(),
            output: ProofOutput::None,
            minimize: None,
            save_every: Duration::ZERO,
            main_line_plies: 40,
        }
    }
}

/// What the pipeline tells its caller as it goes.
#[derive(Debug)]
pub enum ProveEvent<'a> {
    /// The search's progress (about once a second).
    Search(Progress),
    /// How the minimisation stands (its figures, the proof's size).
    Minimizing(&'a MinimizeProgress<'a>),
    /// The proof so far, of `nodes` nodes, was saved (verified) to `path`.
    Saved { nodes: u64, path: &'a Path },
    /// Saving the proof so far failed; the minimisation goes on.
    NotSaved(&'a PnsError),
}

/// What a proof became.
#[derive(Debug)]
pub struct ProofOutcome {
    /// The file it was written to (`None`: in memory).
    pub path: Option<PathBuf>,
    pub counts: ProofCounts,
    /// Bytes of the compact encoding (0 if it was neither written nor verified).
    pub bytes: u64,
    /// Nodes the extraction had to search again (the table had lost them).
    pub researched: u64,
    /// What the minimiser did, if it ran.
    pub minimized: Option<MinimizeReport>,
    /// The verifier's verdict (`None`: not verified).
    pub verdict: Option<std::result::Result<ProofStats, ProofError>>,
    /// From the start of the extraction to the end of the verification.
    pub elapsed: Duration,
    /// The proof itself, when kept in memory.
    pub tree: Option<ProofTree>,
}

impl ProofOutcome {
    /// Whether the verifier accepted the proof.
    #[must_use]
    pub fn verified(&self) -> bool {
        matches!(self.verdict, Some(Ok(_)))
    }

    /// Why the verifier rejected the proof, if it did.
    #[must_use]
    pub fn rejection(&self) -> Option<&ProofError> {
        match &self.verdict {
            Some(Err(e)) => Some(e),
            _ => None,
        }
    }
}

/// What [`prove_position`] did.
#[derive(Debug)]
pub struct Solved {
    pub root: Position,
    pub prover: Color,
    /// The search's result: its status, the root's and each move's numbers.
    pub search: SearchResult,
    /// The most proving line from the root (up to `main_line_plies`).
    pub main_line: Vec<Move>,
    /// The transposition table's size, and how full the search left it.
    pub hash_bytes: usize,
    pub tt_usage: f64,
    /// The proof, if the root was proved and a proof was asked for.
    pub proof: Option<ProofOutcome>,
}

/// Searches `root` with `options.search` and, if it is proved and `options.output` asks
/// for a proof, extracts it (minimised with `options.minimize`, saved as it goes every
/// `options.save_every`), writes it and verifies it. `events` hears of the search's and
/// the minimisation's progress and of each save.
///
/// # Errors
/// When the proof cannot be extracted, minimised or written. A proof the verifier rejects
/// is not an error: [`ProofOutcome::verdict`] says so.
pub fn prove_position(
    solver: &Solver<'_>,
    root: &Position,
    options: &ProveOptions,
    events: &mut dyn FnMut(ProveEvent<'_>),
) -> Result<Solved> {
    let search = &options.search;
    let result = solver.search(root, search, &mut |p| events(ProveEvent::Search(p)));
    let main_line = if options.main_line_plies > 0 {
        solver.main_line(root, search.prover, options.main_line_plies)
    } else {
        Vec::new()
    };
    let tt_usage = solver.table().usage();
    let proof = if result.status == SearchStatus::Proved && options.output != ProofOutput::None {
        let start = Instant::now();
        let oracle = oracle(solver);
        let mut saver = saver_for(&oracle, &options.prolog, options);
        let (tree, researched, minimized) = extract_minimized(
            solver,
            root,
            &options.prolog,
            search,
            options.minimize.as_ref(),
            &mut |p| offer(&mut saver, p, events),
        )?;
        Some(output(solver, tree, researched, minimized, options, start)?)
    } else {
        None
    };
    Ok(Solved {
        root: *root,
        prover: search.prover,
        search: result,
        main_line,
        hash_bytes: solver.table().bytes(),
        tt_usage,
        proof,
    })
}

/// The second half of the pipeline for a proof given as a tree (valid: the minimiser
/// takes it as it is), e.g. a book's assembled proof: minimises it with
/// `options.minimize` (saving it as it goes), then writes and verifies it as
/// `options.output` says (`ProofOutput::None` reads as in memory, unverified). The
/// options' prolog, search budget and main line are not used.
///
/// # Errors
/// When the minimisation or the write fails.
pub fn finish_proof(
    solver: &Solver<'_>,
    tree: ProofTree,
    options: &ProveOptions,
    events: &mut dyn FnMut(ProveEvent<'_>),
) -> Result<ProofOutcome> {
    let start = Instant::now();
    let (tree, minimized) = match &options.minimize {
        Some(minimize) => {
            let oracle = oracle(solver);
            let mut saver = saver_for(&oracle, tree.prolog(), options);
            let before = tree.len() as u64;
            let (smaller, pool) =
                minimize_proof(solver, &tree, &[], &options.search, minimize, &mut |p| {
                    offer(&mut saver, p, events)
                })
                .map_err(|e| e.context("minimising the proof"))?;
            let report = MinimizeReport {
                nodes_before: before,
                nodes_after: smaller.len() as u64,
                interrupted: minimize
                    .stop
                    .as_ref()
                    .is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed)),
                elapsed: start.elapsed(),
                pool: Some(pool),
                ..MinimizeReport::default()
            };
            (smaller, Some(report))
        }
        None => (tree, None),
    };
    output(solver, tree, 0, minimized, options, start)
}

/// The saver of a minimisation, if the proof goes to a file and saves are asked for.
fn saver_for<'a>(
    oracle: &'a dyn LeafOracle,
    prolog: &[Move],
    options: &ProveOptions,
) -> Option<ProofSaver<'a>> {
    match (&options.output, &options.minimize) {
        (ProofOutput::File(path), Some(_)) if !options.save_every.is_zero() => {
            Some(ProofSaver::new(path, oracle, prolog, options.save_every))
        }
        _ => None,
    }
}

/// Tells `events` of a minimisation's progress, and saves the proof if a save is due.
fn offer(
    saver: &mut Option<ProofSaver<'_>>,
    progress: &MinimizeProgress<'_>,
    events: &mut dyn FnMut(ProveEvent<'_>),
) {
    events(ProveEvent::Minimizing(progress));
    let Some(saver) = saver else {
        return;
    };
    match saver.offer(progress) {
        None => {}
        Some(Ok(nodes)) => events(ProveEvent::Saved {
            nodes,
            path: saver.output(),
        }),
        Some(Err(e)) => events(ProveEvent::NotSaved(&e)),
    }
}

/// The verifier's view of the solver's tables.
fn oracle<'a>(solver: &Solver<'a>) -> Option<TablebaseOracle<'a>> {
    solver.tablebase().map(TablebaseOracle::new)
}

/// Writes or encodes `tree` as `options.output` says and verifies it.
fn output(
    solver: &Solver<'_>,
    tree: ProofTree,
    researched: u64,
    minimized: Option<MinimizeReport>,
    options: &ProveOptions,
    start: Instant,
) -> Result<ProofOutcome> {
    let oracle = oracle(solver);
    let mut tree = tree;
    if !matches!(
        options.output,
        ProofOutput::None | ProofOutput::Memory { verify: false }
    ) {
        // The file records the tables its tablebase leaves rely on.
        tree.record_tables(&oracle)?;
    }
    let counts = tree.counts();
    let mut outcome = ProofOutcome {
        path: None,
        counts,
        bytes: 0,
        researched,
        minimized,
        verdict: None,
        elapsed: Duration::ZERO,
        tree: None,
    };
    match &options.output {
        ProofOutput::File(path) => {
            write_proof_file(&tree, path, Format::Compact, ByteOrder::Little)
                .map_err(|e| writing(path, e))?;
            drop(tree);
            outcome.bytes = std::fs::metadata(path).map_or(0, |m| m.len());
            outcome.verdict = Some(verify_file(
                path,
                Some(Format::Compact),
                &oracle,
                &VerifyOptions::default(),
                &mut |_| {},
            ));
            outcome.path = Some(path.clone());
        }
        ProofOutput::Memory { verify: true } => {
            let bytes = encode_compact(&tree)?;
            outcome.bytes = bytes.len() as u64;
            outcome.verdict = Some(verify_compact(
                bytes.as_slice(),
                Some(bytes.len() as u64),
                &oracle,
                &VerifyOptions::default(),
                &mut |_| {},
            ));
            outcome.tree = Some(tree);
        }
        ProofOutput::Memory { verify: false } | ProofOutput::None => {
            outcome.tree = Some(tree);
        }
    }
    outcome.elapsed = start.elapsed();
    Ok(outcome)
}

/// The statistics of a proof written by [`write_proof`].
#[derive(Debug, Clone, Copy)]
pub struct WrittenProof {
    pub counts: ProofCounts,
    /// Nodes that had to be searched again because the table had lost them.
    pub researched: u64,
    pub bytes: u64,
    /// What the minimiser did, if it ran.
    pub minimized: Option<MinimizeReport>,
}

/// Builds the proof that `options.prover` wins from `root` (which the solver has proved)
/// and writes it to `path` in the compact format, unverified ([`prove_position`] is the
/// whole pipeline). `prolog` is the move list from the game's start to `root`, if known.
/// With `minimize`, looks for smaller proofs first.
///
/// # Errors
/// When the root is not proved, or the extraction, minimisation or write fails.
pub fn write_proof(
    solver: &Solver<'_>,
    root: &Position,
    prolog: &[Move],
    options: &SearchOptions,
    minimize: Option<&MinimizeOptions>,
    path: &Path,
) -> Result<(WrittenProof, ProofTree)> {
    write_proof_with_progress(solver, root, prolog, options, minimize, path, &mut |_| {})
}

/// As [`write_proof`], telling `progress` how the minimisation stands as it goes.
///
/// # Errors
/// As [`write_proof`].
pub fn write_proof_with_progress(
    solver: &Solver<'_>,
    root: &Position,
    prolog: &[Move],
    options: &SearchOptions,
    minimize: Option<&MinimizeOptions>,
    path: &Path,
    progress: &mut dyn FnMut(&MinimizeProgress<'_>),
) -> Result<(WrittenProof, ProofTree)> {
    let (mut tree, researched, minimized) =
        extract_minimized(solver, root, prolog, options, minimize, progress)?;
    tree.record_tables(&oracle(solver))?;
    write_proof_file(&tree, path, Format::Compact, ByteOrder::Little)
        .map_err(|e| writing(path, e))?;
    let bytes = std::fs::metadata(path).map_or(0, |m| m.len());
    Ok((
        WrittenProof {
            counts: tree.counts(),
            researched,
            bytes,
            minimized,
        },
        tree,
    ))
}

/// An error of writing the proof file `path`, which names it once.
fn writing(path: &Path, e: antichess_proof::ProofError) -> PnsError {
    match e {
        // (Its context is "writing PATH".)
        antichess_proof::ProofError::Io { .. } => PnsError::Proof(e),
        e => PnsError::Proof(e).context(format!("writing {}", path.display())),
    }
}
