//! The prove pipeline's options from the command line, shared by `solve` and `bench
//! solve`: [`prove_options`] (the search, the prolog, where the proof goes, the
//! minimisation) and [`minimize_options`] (the minimiser's budgets); and how a proof's
//! verdict and an error with its causes are written.

use std::path::Path;
use std::time::Duration;

use antichess_core::Move;
use antichess_pns::{MinimizeOptions, ProofOutcome, ProofOutput, ProveOptions, SearchOptions};

/// The prove pipeline's options: `search`, the moves from the start position (`prolog`),
/// the proof written to `proof_path` if given, minimised with `minimize` and saved as it
/// goes at most every `save_every` (zero: only at the end).
pub fn prove_options(
    search: SearchOptions,
    prolog: &[Move],
    proof_path: Option<&Path>,
    minimize: Option<MinimizeOptions>,
    save_every: Duration,
) -> ProveOptions {
    let mut prove = ProveOptions::new(search);
    prove.prolog = prolog.to_vec();
    prove.output = proof_path.map_or(ProofOutput::None, |p| ProofOutput::File(p.to_path_buf()));
    prove.minimize = minimize;
    prove.save_every = save_every;
    prove
}

/// The verifier's verdict on a proof: `Ok`, or why it was rejected (or not verified).
pub fn verdict(p: &ProofOutcome) -> Result<(), String> {
    match &p.verdict {
        Some(Ok(_)) => Ok(()),
        Some(Err(e)) => Err(e.to_string()),
        None => Err("not verified".to_string()),
    }
}

/// An error with its sources, each once.
pub fn describe_error(e: &dyn std::error::Error) -> String {
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
