//! [`ProofSaver`]: keeps the smallest proof so far of a long minimisation at its output,
//! verified, so that a run killed outright keeps it (`solve --minimize`, `proof minimize`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use antichess_core::Move;
use antichess_pns::MinimizeProgress;
use antichess_proof::{
    verify_file, write_proof_file, ByteOrder, Format, LeafOracle, ProofTree, VerifyOptions,
};
use anyhow::{bail, Context};

/// Saves the smallest proof so far of a long minimisation to its output, as the
/// minimiser tells of it ([`MinimizeProgress`]): at most every `every` (zero: never), only
/// when smaller than the last one saved, and always through [`write_verified`], so that the
/// output holds a verified proof whenever a save has succeeded.
pub struct ProofSaver<'a> {
    output: &'a Path,
    oracle: &'a dyn LeafOracle,
    prolog: Vec<Move>,
    every: Duration,
    /// When the last save was (or the one to beat was written); `None`: the first proof
    /// told is saved at once.
    last: Option<Instant>,
    saved_size: u64,
}

impl<'a> ProofSaver<'a> {
    /// A saver with nothing saved yet: the first proof it is told of is saved at once.
    pub fn new(
        output: &'a Path,
        oracle: &'a dyn LeafOracle,
        prolog: &[Move],
        every: Duration,
    ) -> Self {
        ProofSaver {
            output,
            oracle,
            prolog: prolog.to_vec(),
            every,
            last: None,
            saved_size: u64::MAX,
        }
    }

    /// Records that a proof of `size` nodes is already at the output (or elsewhere, to be
    /// beaten): the next save is due after `every`, and only if smaller.
    pub fn saved(&mut self, size: u64) {
        self.last = Some(Instant::now());
        self.saved_size = size;
    }

    /// Saves the proof `progress` tells of if a save is due; returns what to tell the user
    /// (`None`: nothing was due).
    pub fn offer(&mut self, progress: &MinimizeProgress<'_>) -> Option<String> {
        if self.every.is_zero()
            || progress.size >= self.saved_size
            || self.last.is_some_and(|t| t.elapsed() < self.every)
        {
            return None;
        }
        self.last = Some(Instant::now());
        let saved = progress
            .proof()
            .map_err(anyhow::Error::msg)
            .and_then(|mut t| {
                t.set_prolog(self.prolog.clone());
                write_verified(&t, self.output, self.oracle)
            });
        Some(match saved {
            Ok(()) => {
                self.saved_size = progress.size;
                format!(
                    "saved the proof so far ({} nodes) to {}",
                    progress.size,
                    self.output.display()
                )
            }
            Err(e) => format!("warning: the proof so far was not saved: {e:#}"),
        })
    }
}

/// Writes `tree` beside `output`, verifies it there, and renames it over `output` only if
/// it is valid.
pub fn write_verified(
    tree: &ProofTree,
    output: &Path,
    oracle: &dyn LeafOracle,
) -> anyhow::Result<()> {
    let mut pending = output.to_path_buf().into_os_string();
    pending.push(".unverified");
    let pending = PathBuf::from(pending);
    write_proof_file(tree, &pending, Format::Compact, ByteOrder::Little)?;
    if let Err(e) = verify_file(
        &pending,
        Some(Format::Compact),
        oracle,
        &VerifyOptions::default(),
        &mut |_| {},
    ) {
        let _ = std::fs::remove_file(&pending);
        bail!("the proof does not verify ({e})");
    }
    std::fs::rename(&pending, output)
        .with_context(|| format!("renaming {} to {}", pending.display(), output.display()))
}
