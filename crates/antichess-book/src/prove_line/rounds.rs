//! Table rounds: every few thousand searches, the bound tables of the materials the book's
//! searches met most without a table are built beside the searches, by `antichess tb build
//! --bound` in a child process (one thread) that the run can stop when its time is up.

use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

use antichess_core::Color;
use antichess_tb::{Material, Tablebase};

use crate::{BookError, Result};

/// Which searches' counts choose a table round's materials.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum TablesMet {
    /// Every search the book has made.
    All,
    /// The searches since the previous round began (the first round: all).
    Recent,
}

/// What table rounds built.
#[derive(Debug, Clone, Default)]
pub struct GrownTables {
    /// Rounds that built tables.
    pub rounds: u64,
    /// Bound tables built (dependencies included).
    pub tables: usize,
    pub seconds: f64,
}

impl GrownTables {
    pub(super) fn add(&mut self, round: &GrownTables) {
        self.rounds += round.rounds;
        self.tables += round.tables;
        self.seconds += round.seconds;
    }
}

/// A table round under way.
pub(super) struct TableRound {
    pub child: std::process::Child,
    started: Instant,
    /// Table files in the directory when it started.
    files_before: usize,
}

impl TableRound {
    /// What the round built (the table files it added).
    pub fn done(self, dir: &Path) -> GrownTables {
        let built = table_files(dir).saturating_sub(self.files_before);
        GrownTables {
            rounds: u64::from(built > 0),
            tables: built,
            seconds: self.started.elapsed().as_secs_f64(),
        }
    }
}

/// The table files in `dir`.
fn table_files(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |entries| {
        entries
            .filter_map(std::result::Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == "actb"))
            .count()
    })
}

/// The counts of `now` less those of `before`, most first (ties by name), without the
/// materials met no more since.
pub(super) fn since(now: &[(String, u64)], before: &HashMap<String, u64>) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = now
        .iter()
        .map(|(name, n)| {
            (
                name.clone(),
                n.saturating_sub(before.get(name).copied().unwrap_or(0)),
            )
        })
        .filter(|(_, n)| *n > 0)
        .collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out
}

/// The first `k` materials of `met` (most met first) of at most `max_units` units that have
/// no table (exact, or bound for `prover`).
pub(super) fn round_materials(
    met: &[(String, u64)],
    tables: &Tablebase,
    k: usize,
    max_units: u32,
    prover: Color,
) -> Result<Vec<String>> {
    let mut names = Vec::new();
    for (name, _) in met {
        if names.len() == k {
            break;
        }
        let m: Material = name.parse().map_err(|e| {
            BookError::Input(format!("material {name:?} recorded in the book: {e}"))
        })?;
        if m.units() <= max_units && !tables.contains(&m) && !tables.has_bound_table(&m, prover) {
            names.push(m.name());
        }
    }
    Ok(names)
}

/// Starts a table round: `program tb build --bound` of the bound tables of `names` for
/// `prover`, built into `dir` with their dependencies by a child process.
pub(super) fn start_table_round(
    program: &Path,
    names: &[String],
    tables: &Tablebase,
    prover: Color,
    dir: &Path,
) -> Result<TableRound> {
    let files_before = table_files(dir);
    let child = std::process::Command::new(program)
        .args([
            "tb",
            "build",
            "--bound",
            prover.name(),
            "--threads",
            "1",
            "--rules",
        ])
        .arg(tables.rules().to_string())
        .arg("--tables")
        .arg(dir)
        .args(names)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .spawn()
        .map_err(|source| BookError::Io {
            context: "starting `antichess tb build` for the table round".to_string(),
            source,
        })?;
    Ok(TableRound {
        child,
        started: Instant::now(),
        files_before,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_counts_are_those_since_the_previous_round() {
        let before: HashMap<String, u64> = [("KRPPk".to_string(), 900), ("RPPpp".to_string(), 50)]
            .into_iter()
            .collect();
        let now = vec![
            ("KRPPk".to_string(), 1_000),
            ("RPPpp".to_string(), 450),
            ("NPPnp".to_string(), 200),
            ("QPPpp".to_string(), 0),
        ];
        assert_eq!(
            since(&now, &before),
            vec![
                ("RPPpp".to_string(), 400),
                ("NPPnp".to_string(), 200),
                ("KRPPk".to_string(), 100),
            ]
        );
        // Nothing met since: no material.
        let same: HashMap<String, u64> = now.iter().cloned().collect();
        assert!(since(&now, &same).is_empty());
    }
}
