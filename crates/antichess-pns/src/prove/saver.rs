//! Saving a long minimisation's proof as it goes ([`ProofSaver`]), so that a run killed
//! outright keeps its smallest proof so far, and [`write_verified`], the write it uses:
//! beside the output ([`antichess_io::AtomicFile`]), verified there, renamed into place
//! only if valid.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use antichess_core::Move;
use antichess_io::AtomicFile;
use antichess_proof::{
    encode_compact, verify_file, Format, LeafOracle, ProofStats, ProofTree, VerifyOptions,
};

use crate::error::{PnsError, Result};
use crate::minimize::MinimizeProgress;

/// Saves the smallest proof so far of a long minimisation to its output, as the
/// minimiser tells of it ([`MinimizeProgress`]): at most every `every` (zero: never), only
/// when smaller than the last one saved, and always through [`write_verified`], so that the
/// output holds a verified proof whenever a save has succeeded.
pub struct ProofSaver<'a> {
    output: PathBuf,
    oracle: &'a dyn LeafOracle,
    prolog: Vec<Move>,
    every: Duration,
    /// When the last save was (or the one to beat was written); `None`: the first proof
    /// told is saved at once.
    last: Option<Instant>,
    saved_size: u64,
}

impl std::fmt::Debug for ProofSaver<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProofSaver")
            .field("output", &self.output)
            .field("every", &self.every)
            .field("saved_size", &self.saved_size)
            .finish_non_exhaustive()
    }
}

impl<'a> ProofSaver<'a> {
    /// A saver to `output`, verifying with `oracle`, with nothing saved yet: the first
    /// proof it is told of is saved at once. Saved proofs get `prolog`.
    pub fn new(
        output: &Path,
        oracle: &'a dyn LeafOracle,
        prolog: &[Move],
        every: Duration,
    ) -> ProofSaver<'a> {
        ProofSaver {
            output: output.to_path_buf(),
            oracle,
            prolog: prolog.to_vec(),
            every,
            last: None,
            saved_size: u64::MAX,
        }
    }

    /// Where it saves.
    #[must_use]
    pub fn output(&self) -> &Path {
        &self.output
    }

    /// Records that a proof of `size` nodes is already at the output (or elsewhere, to be
    /// beaten): the next save is due after `every`, and only if smaller.
    pub fn saved(&mut self, size: u64) {
        self.last = Some(Instant::now());
        self.saved_size = size;
    }

    /// Saves the proof `progress` tells of if a save is due: `None` if none was, else the
    /// size saved or why the save failed.
    pub fn offer(&mut self, progress: &MinimizeProgress<'_>) -> Option<Result<u64>> {
        if self.every.is_zero()
            || progress.size >= self.saved_size
            || self.last.is_some_and(|t| t.elapsed() < self.every)
        {
            return None;
        }
        self.last = Some(Instant::now());
        let oracle = self.oracle;
        let saved = progress.proof().and_then(|mut t| {
            t.set_prolog(self.prolog.clone());
            write_verified(&t, &self.output, oracle)
        });
        Some(saved.map(|_| {
            self.saved_size = progress.size;
            progress.size
        }))
    }
}

/// Writes `tree` to a temporary file beside `output` ([`antichess_io::AtomicFile`]),
/// verifies it there, and renames it over `output` only if it is valid; returns the
/// verifier's statistics. An existing `output` that is not a regular file (a symbolic
/// link, a directory, a device, a FIFO) is refused before anything is written.
///
/// # Errors
/// When the write or the rename fails, `output` may not be replaced, or the verifier
/// rejects the proof ([`PnsError::Rejected`]; the temporary file is removed and `output`
/// left as it was).
pub fn write_verified(
    tree: &ProofTree,
    output: &Path,
    oracle: &dyn LeafOracle,
) -> Result<ProofStats> {
    // The file records the tables its tablebase leaves rely on (the oracle's).
    let recorded;
    let tree = if tree.counts().tablebase > 0 {
        let mut t = tree.clone();
        t.record_tables(oracle)?;
        recorded = t;
        &recorded
    } else {
        tree
    };
    let bytes = encode_compact(tree).map_err(PnsError::Proof)?;
    let io = |source: std::io::Error| PnsError::Io {
        context: "writing the proof".to_string(),
        source,
    };
    let mut file = AtomicFile::create(output).map_err(io)?;
    file.write_all(&bytes).map_err(io)?;
    file.sync().map_err(io)?;
    // (Dropped on an error, the temporary file is removed.)
    let stats = verify_file(
        file.temp_path(),
        Some(Format::Compact),
        oracle,
        &VerifyOptions::default(),
        &mut |_| {},
    )
    .map_err(|source| PnsError::Rejected { path: None, source })?;
    file.commit().map_err(io)?;
    Ok(stats)
}
