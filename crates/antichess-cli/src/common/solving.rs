//! [`solve_position`]: one position through the library's prove pipeline
//! ([`antichess_pns::prove_position`]: search, extraction or minimisation, the periodic
//! saver, the write and the verification), shared by `solve` and `bench solve`; and
//! [`minimize_options`], the minimiser's options from the command line's budgets.

use std::path::{Path, PathBuf};
use std::time::Duration;

use antichess_core::{Color, Move, Position};
use antichess_pns::{
    prove_position, MinimizeOptions, MinimizeReport, ProofOutput, ProveEvent, ProveOptions,
    SearchOptions, SearchResult, SolveReport, Solver,
};

/// What a solve did, for printing.
pub struct Solved {
    pub pos: Position,
    pub prover: Color,
    pub result: SearchResult,
    pub main_line: Vec<Move>,
    pub hash_bytes: usize,
    pub tt_usage: f64,
    pub proof: Option<ProofReport>,
    /// The JSON report (`--format json`), shared with the web app's `/api/solve`.
    pub report: SolveReport,
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

/// Solves one position with the library's prove pipeline
/// ([`antichess_pns::prove_position`]); writes and verifies the proof if `proof_path` is
/// given and the position is proved. With `minimize`, the proof so far is also saved to
/// `proof_path` as the minimisation goes, at most every `save_every` (zero: only at the
/// end), and `on_save` is told of each save.
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
    let mut prove = ProveOptions::new(options.clone());
    prove.prolog = prolog.to_vec();
    prove.output = proof_path.map_or(ProofOutput::None, |p| ProofOutput::File(p.to_path_buf()));
    prove.minimize = minimize.cloned();
    prove.save_every = save_every;
    let solved = prove_position(solver, pos, &prove, &mut |event| match event {
        ProveEvent::Search(p) => progress(p),
        ProveEvent::Minimizing(_) => {}
        ProveEvent::Saved { nodes, path } => on_save(&format!(
            "saved the proof so far ({nodes} nodes) to {}",
            path.display()
        )),
        ProveEvent::NotSaved(e) => on_save(&format!(
            "warning: the proof so far was not saved: {}",
            describe_error(e)
        )),
    })?;
    let report = SolveReport::new(&solved, options.max_time);
    let proof = solved.proof.map(|p| ProofReport {
        path: p.path.clone().unwrap_or_default(),
        nodes: p.counts.total,
        bytes: p.bytes,
        tablebase_leaves: p.counts.tablebase,
        verified: match &p.verdict {
            Some(Ok(_)) => Ok(()),
            Some(Err(e)) => Err(e.to_string()),
            None => Err("not verified".to_string()),
        },
        seconds: p.elapsed.as_secs_f64(),
        minimized: p.minimized,
    });
    Ok(Solved {
        pos: solved.root,
        prover: solved.prover,
        result: solved.search,
        main_line: solved.main_line,
        hash_bytes: solved.hash_bytes,
        tt_usage: solved.tt_usage,
        proof,
        report,
    })
}

/// An error with its sources, each once.
fn describe_error(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// The minimiser's options for `--minimize T` (zero: none) and `--minimize-nodes N`.
pub fn minimize_options(time: Duration, nodes: Option<u64>) -> Option<MinimizeOptions> {
    match (time.is_zero(), nodes) {
        (true, None) => None,
        (true, Some(n)) => Some(MinimizeOptions::with_work(n)),
        (false, nodes) => {
            let mut options = MinimizeOptions::new(time);
            options.work = nodes;
            options.top_work = nodes.map(|n| n / 16);
            Some(options)
        }
    }
}
