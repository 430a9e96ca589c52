//! The `proof minimize` job's budgets as the user gives them and as words: the options
//! from a time and a work budget ([`MinimizeOptions::with_budget`]), the budget's text
//! ([`budget_text`]) and the line that starts the job ([`started_text`]).

use std::path::Path;
use std::time::Duration;

use super::MinimizeOptions;

impl MinimizeOptions {
    /// The options of a minimisation within `time` and `work` (positions searched): with
    /// no time, a work budget has no time limit and no budget is five minutes. The
    /// searches of the moves minimised on their own get a sixteenth of the work.
    #[must_use]
    pub fn with_budget(time: Option<Duration>, work: Option<u64>) -> MinimizeOptions {
        let time = match (time, work) {
            (Some(time), _) => time,
            (None, Some(_)) => Duration::MAX,
            (None, None) => Duration::from_secs(300),
        };
        let mut options = MinimizeOptions::new(time);
        options.work = work;
        options.top_work = work.map(|n| n / 16);
        options
    }

    /// Whether a global phase ends the minimisation (a time, a work budget or a limit of
    /// branch-and-bound nodes for it).
    #[must_use]
    pub fn has_global_phase(&self) -> bool {
        self.global_time.is_some() || self.global_work.is_some() || self.global_mip_nodes.is_some()
    }
}

/// "30 s", "2000000 positions", "30 s or 2000000 positions" or "no limit" (`time`
/// `Duration::MAX`: none).
#[must_use]
pub fn budget_text(time: Duration, nodes: Option<u64>) -> String {
    let time_text = (time != Duration::MAX).then(|| format!("{:.0} s", time.as_secs_f64()));
    let nodes_text = nodes.map(|n| format!("{n} positions"));
    match (time_text, nodes_text) {
        (Some(t), Some(n)) => format!("{t} or {n}"),
        (Some(t), None) => t,
        (None, Some(n)) => n,
        (None, None) => "no limit".to_string(),
    }
}

/// What is minimised, for how long: the line of the job's `Started` event (the input of
/// `nodes` nodes, the sizes of the proofs `merged`).
#[must_use]
pub fn started_text(
    input: &Path,
    options: &MinimizeOptions,
    nodes: usize,
    merged: &[usize],
) -> String {
    format!(
        "{}: {nodes} nodes{}; minimising for {}{}",
        input.display(),
        if merged.is_empty() {
            String::new()
        } else {
            let sizes: Vec<String> = merged.iter().map(ToString::to_string).collect();
            format!(" (merged: {})", sizes.join(", "))
        },
        budget_text(options.time, options.work),
        if options.has_global_phase() {
            format!(
                ", then a global phase of at most {}",
                budget_text(
                    options.global_time.unwrap_or(Duration::MAX),
                    options.global_work
                )
            )
        } else {
            String::new()
        }
    )
}

/// The figures of a minimisation under way, for a progress bar's message: the proof's
/// nodes, and the pool's positions, searches and proofs (`None` before the pool's phase).
#[must_use]
pub fn progress_figures(p: &super::MinimizeProgress<'_>) -> Option<String> {
    p.report.map(|r| {
        format!(
            "{} nodes, {} positions in the pool, {} searches, {} proved",
            p.size, r.positions, r.searched, r.proved
        )
    })
}

impl super::file::MinimizeFileEvent<'_> {
    /// The event as a line for people: what is minimised (the job's `input`, for how long
    /// by `options`), and the saves of the proof so far to `output`; `None` for the
    /// progress ([`progress_figures`]).
    #[must_use]
    pub fn line(&self, input: &Path, options: &MinimizeOptions, output: &Path) -> Option<String> {
        use super::file::MinimizeFileEvent;
        Some(match self {
            MinimizeFileEvent::Started { nodes, merged } => {
                started_text(input, options, *nodes, merged)
            }
            MinimizeFileEvent::Progress(_) => return None,
            MinimizeFileEvent::Saved { nodes } => format!(
                "saved the proof so far ({nodes} nodes) to {}",
                output.display()
            ),
            MinimizeFileEvent::NotSaved(e) => format!(
                "warning: the proof so far was not saved: {}",
                crate::prove::job::error_text(*e)
            ),
        })
    }
}
