//! The `proof minimize` job: a proof file made smaller with the solver's help. The input
//! (either format) is read ([`MinimizeInput::read`], whose rule set says which tables to
//! open) and verified, as is every proof to merge (of the same prover and rules); then
//! [`minimize_proof`] runs, the smallest proof so far saved to the output now and then
//! ([`ProofSaver`]), and the result is written beside the output and renamed into place
//! only if it verifies ([`write_verified`]).

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use antichess_core::Rules;
use antichess_proof::{
    read_proof_file, verify_file, Format, LeafOracle, ProofTree, ReferenceOptions, TablebaseOracle,
    VerifyOptions,
};
use antichess_tb::Tablebase;
use serde::Serialize;

use super::{minimize_proof, MinimizeOptions, MinimizeProgress, PoolReport};
use crate::error::{PnsError, Result};
use crate::prove::{write_verified, ProofSaver};
use crate::search::{SearchOptions, Solver};

/// The proof file to minimise, read.
#[derive(Debug)]
pub struct MinimizeInput {
    pub path: PathBuf,
    /// Its format (`None`: detected from the magic bytes).
    pub format: Option<Format>,
    pub reference: ReferenceOptions,
    pub tree: ProofTree,
}

impl MinimizeInput {
    /// Reads the proof file at `path`.
    ///
    /// # Errors
    /// When it cannot be read, or has no nodes.
    pub fn read(
        path: &Path,
        format: Option<Format>,
        reference: &ReferenceOptions,
    ) -> Result<MinimizeInput> {
        let tree = read_proof_file(path, format, reference)
            .map_err(|e| PnsError::Proof(e).context(format!("reading {}", path.display())))?;
        if tree.is_empty() {
            return Err(PnsError::Invalid(format!(
                "{}: the proof has no nodes",
                path.display()
            )));
        }
        Ok(MinimizeInput {
            path: path.to_path_buf(),
            format,
            reference: reference.clone(),
            tree,
        })
    }

    /// The proof's rule set.
    #[must_use]
    pub fn rules(&self) -> Rules {
        self.tree.rules()
    }
}

/// What [`minimize_file`] does besides the input.
#[derive(Debug)]
pub struct MinimizeFileOptions {
    /// Where the smaller proof goes (compact format).
    pub output: PathBuf,
    /// More proofs for the pool (of the same position or below it).
    pub merge: Vec<PathBuf>,
    /// The solver's transposition table.
    pub hash_bytes: usize,
    pub tablebase: Option<Tablebase>,
    /// The minimiser's budgets and stop flag.
    pub minimize: MinimizeOptions,
    /// The smallest proof so far is saved to the output at most this often (zero: only at
    /// the end).
    pub save_every: Duration,
}

/// What [`minimize_file`] tells as it goes.
#[derive(Debug)]
pub enum MinimizeFileEvent<'a> {
    /// The input and the proofs to merge verified: their sizes.
    Started { nodes: usize, merged: Vec<usize> },
    /// The minimisation's progress.
    Progress(&'a MinimizeProgress<'a>),
    /// The proof so far, of `nodes` nodes, was saved to the output.
    Saved { nodes: u64 },
    /// Saving the proof so far failed; the minimisation goes on.
    NotSaved(&'a PnsError),
}

/// What [`minimize_file`] did.
#[derive(Debug, Serialize)]
pub struct MinimizeFileReport {
    pub input: PathBuf,
    pub output: PathBuf,
    /// The output's format.
    pub format: &'static str,
    pub nodes_before: usize,
    pub nodes_after: usize,
    pub seconds: f64,
    /// Whether the stop flag ended the minimisation.
    pub interrupted: bool,
    /// Whether the output was written (it verified).
    pub verified: bool,
    /// The pool's figures.
    #[serde(skip)]
    pub pool: PoolReport,
    /// Why the output was not written (it is left as it was).
    #[serde(skip)]
    pub write_error: Option<PnsError>,
}

/// Minimises `input`: see the module documentation.
///
/// # Errors
/// When the input or a proof to merge does not verify or does not fit, the table cannot
/// be allocated, or the minimisation fails. A result that does not verify is not an
/// error: [`MinimizeFileReport::write_error`] says why it was not written.
pub fn minimize_file(
    input: &MinimizeInput,
    options: &MinimizeFileOptions,
    on_event: &mut dyn FnMut(MinimizeFileEvent<'_>),
) -> Result<MinimizeFileReport> {
    let tree = &input.tree;
    let oracle: &dyn LeafOracle = &options.tablebase.as_ref().map(TablebaseOracle::new);
    let others = verified_inputs(input, &options.merge, oracle)?;
    let mut search = SearchOptions::new(tree.prover());
    search.tablebase_units = options.tablebase.as_ref().map_or(0, Tablebase::max_units);
    let solver = Solver::try_new(options.hash_bytes, options.tablebase.as_ref())?;
    let before = tree.len();
    on_event(MinimizeFileEvent::Started {
        nodes: before,
        merged: others.iter().map(ProofTree::len).collect(),
    });
    let started = Instant::now();
    // The input is the proof to beat: the first save comes after `save_every`.
    let mut saver = ProofSaver::new(&options.output, oracle, tree.prolog(), options.save_every);
    saver.saved(before as u64);
    let minimized = minimize_proof(
        &solver,
        tree,
        &others,
        &search,
        &options.minimize,
        &mut |p| {
            on_event(MinimizeFileEvent::Progress(p));
            match saver.offer(p) {
                None => {}
                Some(Ok(nodes)) => on_event(MinimizeFileEvent::Saved { nodes }),
                Some(Err(e)) => on_event(MinimizeFileEvent::NotSaved(&e)),
            }
        },
    );
    let (out, pool) = minimized
        .map_err(|e| PnsError::Invalid(format!("minimising {}: {e}", input.path.display())))?;
    let write_error = write_verified(&out, &options.output, oracle).err();
    let stop = options.minimize.stop.as_ref();
    Ok(MinimizeFileReport {
        input: input.path.clone(),
        output: options.output.clone(),
        format: Format::Compact.name(),
        nodes_before: before,
        nodes_after: out.len(),
        seconds: started.elapsed().as_secs_f64(),
        interrupted: stop.is_some_and(|s| s.load(Ordering::Relaxed)),
        verified: write_error.is_none(),
        pool,
        write_error,
    })
}

/// Verifies the input (the pool takes every proof it is given as valid) and reads and
/// verifies the proofs to merge, which must prove a win for the same side under the same
/// rules.
fn verified_inputs(
    input: &MinimizeInput,
    merge: &[PathBuf],
    oracle: &dyn LeafOracle,
) -> Result<Vec<ProofTree>> {
    let verify = VerifyOptions {
        reference: input.reference.clone(),
        ..VerifyOptions::default()
    };
    let invalid =
        |path: &Path, e| PnsError::Invalid(format!("{} is not a valid proof: {e}", path.display()));
    verify_file(&input.path, input.format, oracle, &verify, &mut |_| {})
        .map_err(|e| invalid(&input.path, e))?;
    let tree = &input.tree;
    let mut others = Vec::with_capacity(merge.len());
    for path in merge {
        let other = read_proof_file(path, None, &input.reference)
            .map_err(|e| PnsError::Proof(e).context(format!("reading {}", path.display())))?;
        if other.prover() != tree.prover() || other.rules() != tree.rules() {
            return Err(PnsError::Mismatch(format!(
                "{} proves a win for {} under {} rules, {} for {} under {}: they cannot be merged",
                path.display(),
                other.prover(),
                other.rules(),
                input.path.display(),
                tree.prover(),
                tree.rules()
            )));
        }
        verify_file(path, None, oracle, &verify, &mut |_| {}).map_err(|e| invalid(path, e))?;
        others.push(other);
    }
    Ok(others)
}
