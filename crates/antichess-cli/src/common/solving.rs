//! [`solve_position`]: one search of a position, then (when proved and a file is named) the
//! proof written, optionally minimised, and verified; shared by `solve` and `bench solve`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use antichess_core::{Color, Move, Position};
use antichess_pns::{
    write_proof_with_progress, MinimizeOptions, MinimizeReport, SearchOptions, SearchResult,
    SearchStatus, Solver,
};
use antichess_proof::{verify_file, Format, LeafOracle, TablebaseOracle, VerifyOptions};

use crate::common::saver::ProofSaver;

/// What a solve did, for printing.
pub struct Solved {
    pub pos: Position,
    pub prover: Color,
    pub result: SearchResult,
    pub main_line: Vec<Move>,
    pub hash_bytes: usize,
    pub tt_usage: f64,
    pub proof: Option<ProofReport>,
}

pub struct ProofReport {
    pub path: PathBuf,
    pub nodes: u64,
    pub bytes: u64,
    pub tablebase_leaves: u64,
    pub verified: Result<(), String>,
    pub seconds: f64,
    /// What the minimiser did, if it ran.
    pub minimized: Option<MinimizeReport>,
}

/// Solves one position; writes and verifies the proof if `proof_path` is given and the
/// position is proved. With `minimize`, the proof so far is also saved to `proof_path`
/// as the minimisation goes, at most every `save_every` (zero: only at the end), and
/// `on_save` is told of each save.
#[allow(clippy::too_many_arguments)]
pub fn solve_position(
    solver: &Solver<'_>,
    pos: &Position,
    prolog: &[Move],
    options: &SearchOptions,
    proof_path: Option<&Path>,
    minimize: Option<&MinimizeOptions>,
    save_every: Duration,
    on_save: &mut dyn FnMut(&str),
    progress: &mut dyn FnMut(antichess_pns::Progress),
) -> anyhow::Result<Solved> {
    let tablebase = solver.tablebase();
    let hash_bytes = solver.table().bytes();
    let result = solver.search(pos, options, progress);
    let main_line = solver.main_line(pos, options.prover, 40);
    let tt_usage = solver.table().usage();
    let mut proof = None;
    if let (Some(path), SearchStatus::Proved) = (proof_path, result.status) {
        let start = Instant::now();
        let oracle: &dyn LeafOracle = &tablebase.map(TablebaseOracle::new);
        let mut saver = ProofSaver::new(path, oracle, prolog, save_every);
        let (written, _) =
            write_proof_with_progress(solver, pos, prolog, options, minimize, path, &mut |p| {
                if let Some(message) = saver.offer(p) {
                    on_save(&message);
                }
            })
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let verified = verify_file(
            path,
            Some(Format::Compact),
            oracle,
            &VerifyOptions::default(),
            &mut |_| {},
        )
        .map(|_| ())
        .map_err(|e| e.to_string());
        proof = Some(ProofReport {
            path: path.to_path_buf(),
            nodes: written.counts.total,
            bytes: written.bytes,
            tablebase_leaves: written.counts.tablebase,
            verified,
            seconds: start.elapsed().as_secs_f64(),
            minimized: written.minimized,
        });
    }
    Ok(Solved {
        pos: *pos,
        prover: options.prover,
        result,
        main_line,
        hash_bytes,
        tt_usage,
        proof,
    })
}
