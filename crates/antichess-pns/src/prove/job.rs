//! `solve` as a job: [`solve_job`] makes the solver (a table of
//! [`SolveJobOptions::hash_bytes`] over the tables given), runs the prove pipeline with
//! the checkpoint if one is asked for ([`super::resume::prove_resumable`]) and returns
//! the outcome with its report, [`SolveJobReport`]: the [`SolveReport`] of `/api/solve`,
//! with what became of the checkpoint's final save and why no proof was written when one
//! was asked for. The CLI's `solve` prints its events and this report (text or JSON).
//!
//! Also here: the minimiser's budgets from a time and a node count ([`minimize_within`]),
//! and an error's text with its causes ([`error_text`]).

use std::time::Duration;

use antichess_core::Position;
use antichess_tb::Tablebase;
use serde::Serialize;

use super::resume::{prove_resumable, Checkpointing, ResumeEvent, Resumed};
use super::{ProofOutput, ProveOptions, SolveReport, Solved};
use crate::error::Result;
use crate::minimize::MinimizeOptions;
use crate::search::Solver;

/// What [`solve_job`] does.
#[derive(Debug, Clone)]
pub struct SolveJobOptions {
    /// The pipeline: the search, the prolog, where the proof goes, its minimisation.
    pub prove: ProveOptions,
    /// The transposition table's size in bytes.
    pub hash_bytes: usize,
    /// Keep the search's state in this file (resumed if it exists).
    pub checkpoint: Option<Checkpointing>,
}

/// What became of the checkpoint's final save, in a [`SolveJobReport`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckpointReport {
    pub path: String,
    /// The entries saved (`None`: the save failed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entries: Option<u64>,
    /// Why the save failed, with its causes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The report of a solve: [`SolveReport`]'s fields, and two more when they apply.
#[derive(Debug, Clone, Serialize)]
pub struct SolveJobReport {
    #[serde(flatten)]
    pub solve: SolveReport,
    /// A proof file was asked for and none was written: why ("the result is disproved").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proof_not_written: Option<String>,
    /// The checkpoint's final save (absent without a checkpoint).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<CheckpointReport>,
}

/// What [`solve_job`] returns: the solve, the final save of the checkpoint (`None`
/// without one), and the report of both.
#[derive(Debug)]
pub struct SolveOutcome {
    pub solved: Solved,
    pub saved: Option<Result<u64>>,
    pub report: SolveJobReport,
}

impl SolveOutcome {
    /// Whether a proof was written and the verifier rejected it.
    #[must_use]
    pub fn proof_rejected(&self) -> bool {
        self.solved.proof.as_ref().is_some_and(|p| !p.verified())
    }
}

/// Solves `root` as `options` say, with `tablebase`'s tables: see the module
/// documentation. `events` hears of the checkpoint and of the pipeline as they go.
///
/// # Errors
/// When the table cannot be reserved, the checkpoint is of another search or cannot be
/// read, or the pipeline fails. The final save's failure is not an error: it is in
/// [`SolveOutcome::saved`] and the report.
pub fn solve_job(
    root: &Position,
    tablebase: Option<&Tablebase>,
    options: &SolveJobOptions,
    events: &mut dyn FnMut(ResumeEvent<'_>),
) -> Result<SolveOutcome> {
    let solver = Solver::try_new(options.hash_bytes, tablebase)?;
    let Resumed { solved, saved } = prove_resumable(
        &solver,
        root,
        &options.prove,
        options.checkpoint.as_ref(),
        events,
    )?;
    let proof_not_written = match (&options.prove.output, &solved.proof) {
        (ProofOutput::File(_), None) => {
            Some(format!("the result is {}", solved.search.status.name()))
        }
        _ => None,
    };
    let checkpoint = options
        .checkpoint
        .as_ref()
        .zip(saved.as_ref())
        .map(|(c, saved)| CheckpointReport {
            path: c.path.display().to_string(),
            entries: saved.as_ref().ok().copied(),
            error: saved.as_ref().err().map(|e| error_text(e)),
        });
    let report = SolveJobReport {
        solve: SolveReport::new(&solved, options.prove.search.max_time),
        proof_not_written,
        checkpoint,
    };
    Ok(SolveOutcome {
        solved,
        saved,
        report,
    })
}

/// The minimiser's options for a time (zero: none) and a node budget: the budget alone
/// gives the same proof on every machine; with both, whichever comes first ends it (and
/// the revisits of the largest subtrees get a sixteenth of the budget). `None`: neither.
#[must_use]
pub fn minimize_within(time: Duration, nodes: Option<u64>) -> Option<MinimizeOptions> {
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

/// An error with its sources, each once (a source whose text the message already holds
/// is not repeated), joined by ": ".
#[must_use]
pub fn error_text(e: &dyn std::error::Error) -> String {
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
