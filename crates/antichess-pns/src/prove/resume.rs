//! The prove pipeline with a checkpoint: [`prove_resumable`] runs [`prove_position`] on a
//! search whose state is kept in a file, so that it can be stopped and resumed. If the
//! file exists the search resumes from it (same position, prover and rules; temporary
//! files of saves killed midway are removed first); it is saved every
//! [`Checkpointing::every`] while the search runs and once more at the end (a solved
//! checkpoint gives the answer, and a proof, at once). The final save's failure does not
//! lose the result: it is returned beside it.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use antichess_core::{Color, Position};

use super::{prove_position, ProveEvent, ProveOptions, Solved};
use crate::checkpoint::{
    load_checkpoint, read_checkpoint_info, remove_stale_checkpoint_temps, save_checkpoint,
    CheckpointInfo,
};
use crate::error::{PnsError, Result};
use crate::search::Solver;

/// Where the search's state is kept, and how often it is saved while searching.
#[derive(Debug, Clone)]
pub struct Checkpointing {
    pub path: PathBuf,
    pub every: Duration,
}

/// What [`prove_resumable`] tells as it goes.
#[derive(Debug)]
pub enum ResumeEvent<'a> {
    /// Temporary files left by interrupted saves of the checkpoint were removed.
    TempsRemoved { path: &'a Path, count: usize },
    /// The search resumes from the checkpoint: its entries, the nodes and seconds
    /// searched before, and the seconds the load took.
    Resumed {
        path: &'a Path,
        entries: u64,
        nodes: u64,
        seconds: f64,
        load_seconds: f64,
    },
    /// The checkpoint was saved (`entries` entries in `seconds`).
    Saved {
        path: &'a Path,
        entries: u64,
        seconds: f64,
    },
    /// A save while searching failed (the search goes on).
    NotSaved(&'a PnsError),
    /// The prove pipeline's own events.
    Prove(ProveEvent<'a>),
}

/// The outcome of [`prove_resumable`]: the solve, and the final save of the checkpoint
/// (`None` without a checkpoint; else its entries, or why it failed).
#[derive(Debug)]
pub struct Resumed {
    pub solved: Solved,
    pub saved: Option<Result<u64>>,
}

/// The checkpoint's file and what it counts from earlier runs.
struct Keeper<'a> {
    checkpoint: &'a Checkpointing,
    root: &'a Position,
    prover: Color,
    /// Nodes and seconds searched before this run.
    prior: (u64, f64),
}

impl Keeper<'_> {
    /// Saves the table, with `nodes` and `seconds` searched in this run.
    fn save(
        &self,
        solver: &Solver<'_>,
        nodes: u64,
        seconds: f64,
        events: &mut dyn FnMut(ResumeEvent<'_>),
    ) -> Result<u64> {
        let (nodes, seconds) = (self.prior.0 + nodes, self.prior.1 + seconds);
        let info = CheckpointInfo::for_search(self.root, self.prover, nodes, seconds);
        let started = Instant::now();
        let path = &self.checkpoint.path;
        let entries = save_checkpoint(solver.table(), &info, path)?;
        events(ResumeEvent::Saved {
            path,
            entries,
            seconds: started.elapsed().as_secs_f64(),
        });
        Ok(entries)
    }
}

/// [`prove_position`] with the search's state kept in `checkpoint` (if given): see the
/// module documentation.
///
/// # Errors
/// When the checkpoint is of another search or cannot be read, or [`prove_position`]
/// fails; the final save's failure is in [`Resumed::saved`].
pub fn prove_resumable(
    solver: &Solver<'_>,
    root: &Position,
    options: &ProveOptions,
    checkpoint: Option<&Checkpointing>,
    events: &mut dyn FnMut(ResumeEvent<'_>),
) -> Result<Resumed> {
    let Some(checkpoint) = checkpoint else {
        let solved = prove_position(solver, root, options, &mut |e| {
            events(ResumeEvent::Prove(e))
        })
        .map_err(|e| e.context("solving"))?;
        return Ok(Resumed {
            solved,
            saved: None,
        });
    };
    let prover = options.search.prover;
    let keeper = Keeper {
        checkpoint,
        root,
        prover,
        prior: resume(solver, root, prover, &checkpoint.path, events)?,
    };
    let mut last_save = Instant::now();
    let solved = prove_position(solver, root, options, &mut |e| {
        if let ProveEvent::Search(p) = &e {
            if last_save.elapsed() >= checkpoint.every {
                if let Err(error) = keeper.save(solver, p.nodes, p.elapsed.as_secs_f64(), events) {
                    events(ResumeEvent::NotSaved(&error));
                }
                last_save = Instant::now();
            }
        }
        events(ResumeEvent::Prove(e));
    })
    .map_err(|e| e.context("solving"))?;
    let (nodes, seconds) = (solved.search.nodes, solved.search.elapsed.as_secs_f64());
    let saved = Some(keeper.save(solver, nodes, seconds, events));
    Ok(Resumed { solved, saved })
}

/// Removes the temporaries of killed saves, and loads the checkpoint if it exists; the
/// nodes and seconds it had searched.
fn resume(
    solver: &Solver<'_>,
    root: &Position,
    prover: Color,
    path: &Path,
    events: &mut dyn FnMut(ResumeEvent<'_>),
) -> Result<(u64, f64)> {
    let removed = remove_stale_checkpoint_temps(path)?;
    if !removed.is_empty() {
        events(ResumeEvent::TempsRemoved {
            path,
            count: removed.len(),
        });
    }
    if !path.exists() {
        return Ok((0, 0.0));
    }
    let header = read_checkpoint_info(path)?;
    header
        .matches(root, prover)
        .map_err(|e| PnsError::Mismatch(format!("{}: {e}", path.display())))?;
    let started = Instant::now();
    let info = load_checkpoint(solver.table(), path)?;
    events(ResumeEvent::Resumed {
        path,
        entries: info.entries,
        nodes: info.nodes,
        seconds: info.seconds,
        load_seconds: started.elapsed().as_secs_f64(),
    });
    Ok((info.nodes, info.seconds))
}
