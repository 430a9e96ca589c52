//! The `learn` commands as jobs on files: [`dataset_file`] (the sources of a directory,
//! the data set built and written), [`train_file`] and [`train_cost_file`] (the data set
//! read, the model fitted and its weights file written). Each returns a serializable
//! report whose `Display` is the command's text: what the CLI prints as text or JSON (the
//! progress lines are the events' `Display`).

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;

use crate::{
    build_dataset, read_csv, train, train_cost, write_csv, CostTrainOptions, CostTrainReport,
    DatasetEvent, DatasetOptions, DatasetReport, LearnError, Row, TrainOptions, TrainReport,
};

/// The *.proof files of a directory, in name order.
///
/// # Errors
/// When the directory cannot be read, or holds no *.proof file.
pub fn proofs_in(dir: &Path) -> Result<Vec<PathBuf>, LearnError> {
    let context = || format!("--proofs-dir {}", dir.display());
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| LearnError::io(context(), e))? {
        let path = entry.map_err(|e| LearnError::io(context(), e))?.path();
        if path.extension().is_some_and(|e| e == "proof") && path.is_file() {
            files.push(path);
        }
    }
    files.sort();
    if files.is_empty() {
        return Err(LearnError::Invalid(format!(
            "--proofs-dir {}: no *.proof file there",
            dir.display()
        )));
    }
    Ok(files)
}

/// What [`dataset_file`] reads and writes.
#[derive(Debug, Clone)]
pub struct DatasetFileOptions {
    /// The sources; `dataset.proofs` are read before those of `proofs_dir`.
    pub dataset: DatasetOptions,
    /// Every *.proof file of this directory is a source too (in name order).
    pub proofs_dir: Option<PathBuf>,
    /// The data set file to write.
    pub output: PathBuf,
}

/// What [`dataset_file`] did.
#[derive(Debug, Clone, Serialize)]
pub struct DatasetFileReport {
    /// The data set's report.
    #[serde(flatten)]
    pub report: DatasetReport,
    /// The file written.
    pub output: String,
    /// Seconds spent writing it.
    pub write_seconds: f64,
}

/// Builds the data set of `options` ([`build_dataset`]) and writes it.
///
/// # Errors
/// No source at all, a directory without proofs; as [`build_dataset`] and [`write_csv`].
pub fn dataset_file(
    options: &DatasetFileOptions,
    on_event: &mut dyn FnMut(DatasetEvent),
) -> Result<DatasetFileReport, LearnError> {
    let mut dataset = options.dataset.clone();
    if let Some(dir) = &options.proofs_dir {
        dataset.proofs.extend(proofs_in(dir)?);
    }
    if dataset.proofs.is_empty() && dataset.games.is_empty() && dataset.tables.is_none() {
        return Err(LearnError::Invalid(
            "no source: give --proof FILE, --proofs-dir DIR, --games FILE or --tables DIR"
                .to_string(),
        ));
    }
    let (rows, report) = build_dataset(&dataset, on_event)?;
    let start = Instant::now();
    write_csv(&options.output, &rows)?;
    Ok(DatasetFileReport {
        report,
        output: options.output.display().to_string(),
        write_seconds: start.elapsed().as_secs_f64(),
    })
}

impl fmt::Display for DatasetFileReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let report = &self.report;
        writeln!(
            f,
            "{:<12} {:>10} {:>10} {:>9} {:>9} {:>9} {:>8}",
            "source", "nodes", "positions", "rows", "wins", "losses", "seconds"
        )?;
        for r in &report.sources {
            writeln!(
                f,
                "{:<12} {:>10} {:>10} {:>9} {:>9} {:>9} {:>8.1}",
                r.source, r.nodes, r.positions, r.rows, r.wins, r.losses, r.seconds
            )?;
        }
        for r in &report.sources {
            if let (Some(games), Some(skipped)) = (r.games, r.games_skipped) {
                writeln!(
                    f,
                    "{}: {games} games read, {skipped} skipped (drawn or unfinished); nodes: \
                     the plies of the {} decided",
                    r.source,
                    games - skipped
                )?;
            }
        }
        write!(
            f,
            "{} rows ({} wins, {} losses) written to {} in {:.1} s (sources read in {:.1} s)",
            report.rows,
            report.wins,
            report.losses,
            self.output,
            self.write_seconds,
            report.seconds
        )
    }
}

/// The progress line of an event of [`build_dataset`].
impl fmt::Display for DatasetEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DatasetEvent::SourceStarted { source, path, .. } => {
                write!(f, "reading {source} ({path})")
            }
            DatasetEvent::SourceFinished(r) => match (r.games, r.games_skipped) {
                (Some(games), Some(skipped)) => write!(
                    f,
                    "{}: {games} games ({skipped} drawn or unfinished skipped), {} plies, {} \
                     positions, {} rows ({} wins, {} losses) in {:.1} s",
                    r.source, r.nodes, r.positions, r.rows, r.wins, r.losses, r.seconds
                ),
                _ => write!(
                    f,
                    "{}: {} nodes, {} positions, {} rows ({} wins, {} losses) in {:.1} s",
                    r.source, r.nodes, r.positions, r.rows, r.wins, r.losses, r.seconds
                ),
            },
        }
    }
}

/// A data set was read (the event of [`train_file`] and [`train_cost_file`]).
#[derive(Debug, Clone)]
pub struct RowsRead {
    /// Rows read.
    pub rows: usize,
    /// The file.
    pub path: PathBuf,
    /// Seconds spent.
    pub seconds: f64,
}

impl fmt::Display for RowsRead {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "read {} rows from {} in {:.1} s",
            self.rows,
            self.path.display(),
            self.seconds
        )
    }
}

/// A fit's report with where its weights went and how long the data took to read.
#[derive(Debug, Clone, Serialize)]
pub struct FitFileReport<R> {
    /// The fit's report.
    #[serde(flatten)]
    pub report: R,
    /// The weights file written.
    pub output: String,
    /// Seconds spent reading the data set.
    pub read_seconds: f64,
}

/// Reads the data set `data` (telling `on_read`), fits with `fit` and writes the model's
/// JSON (atomically) to `output`.
fn fit_file<R>(
    data: &Path,
    output: &Path,
    on_read: &mut dyn FnMut(&RowsRead),
    fit: impl FnOnce(&[Row]) -> Result<(String, R), LearnError>,
) -> Result<FitFileReport<R>, LearnError> {
    let start = Instant::now();
    let rows = read_csv(data)?;
    let read_seconds = start.elapsed().as_secs_f64();
    on_read(&RowsRead {
        rows: rows.len(),
        path: data.to_path_buf(),
        seconds: read_seconds,
    });
    let (model, report) = fit(&rows)?;
    antichess_io::write_atomic(output, model.as_bytes())
        .map_err(|e| LearnError::io(format!("writing {}", output.display()), e))?;
    Ok(FitFileReport {
        report,
        output: output.display().to_string(),
        read_seconds,
    })
}

/// Fits the logistic model ([`train`]) on the data set `data` and writes its weights to
/// `output`.
///
/// # Errors
/// As [`read_csv`] and [`train`]; writing the weights.
pub fn train_file(
    data: &Path,
    output: &Path,
    options: &TrainOptions,
    on_read: &mut dyn FnMut(&RowsRead),
) -> Result<FitFileReport<TrainReport>, LearnError> {
    fit_file(data, output, on_read, |rows| {
        let (model, report) = train(rows, options)?;
        Ok((model.to_json(), report))
    })
}

/// Fits the cost model ([`train_cost`]) on the data set `data` and writes its weights to
/// `output`.
///
/// # Errors
/// As [`read_csv`] and [`train_cost`]; writing the weights.
pub fn train_cost_file(
    data: &Path,
    output: &Path,
    options: &CostTrainOptions,
    on_read: &mut dyn FnMut(&RowsRead),
) -> Result<FitFileReport<CostTrainReport>, LearnError> {
    fit_file(data, output, on_read, |rows| {
        let (model, report) = train_cost(rows, options)?;
        Ok((model.to_json(), report))
    })
}

impl fmt::Display for FitFileReport<CostTrainReport> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let report = &self.report;
        writeln!(
            f,
            "{:<12} {:>8} {:>8} {:>9} {:>9} {:>8} {:>8}",
            "source", "turn", "set", "rows", "ln cost", "bias", "corr"
        )?;
        for s in &report.sources {
            writeln!(
                f,
                "{:<12} {:>8} {:>8} {:>9} {:>9.3} {:>+8.3} {:>8.3}",
                s.source,
                s.part,
                if s.held_out { "held out" } else { "train" },
                s.rows,
                s.mean_ln_cost,
                s.bias,
                s.correlation
            )?;
        }
        for part in &report.parts {
            let held = part
                .holdout_r2
                .map(|r| format!(", held out {} rows R² {r:.3}", part.holdout_rows))
                .unwrap_or_default();
            writeln!(
                f,
                "{}'s turn: {} rows, R² {:.3}{held}; mean ln cost {:.3}; weights (ln cost per standard deviation):",
                part.part, part.train_rows, part.train_r2, part.bias
            )?;
            for (name, w) in &part.weights {
                writeln!(f, "  {name:<18} {w:>+9.4}")?;
            }
        }
        write!(
            f,
            "l2 {}, {} rows without a cost skipped; fitted in {:.1} s; weights written to {}",
            report.l2, report.skipped_rows, report.seconds, self.output
        )
    }
}

impl fmt::Display for FitFileReport<TrainReport> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let report = &self.report;
        writeln!(
            f,
            "{:<12} {:>8} {:>9} {:>8} {:>9} {:>9} {:>9}",
            "source", "set", "rows", "wins", "log-loss", "baseline", "accuracy"
        )?;
        for s in &report.sources {
            writeln!(
                f,
                "{:<12} {:>8} {:>9} {:>8} {:>9.4} {:>9.4} {:>9.4}",
                s.source,
                if s.held_out { "held out" } else { "train" },
                s.rows,
                s.wins,
                s.log_loss,
                s.baseline_log_loss,
                s.accuracy
            )?;
        }
        writeln!(
            f,
            "train: {} rows, log-loss {:.4} (constant prediction {:.4}), accuracy {:.4}",
            report.train_rows,
            report.train_log_loss,
            report.train_baseline_log_loss,
            report.train_accuracy
        )?;
        if let (Some(loss), Some(base), Some(acc)) = (
            report.holdout_log_loss,
            report.holdout_baseline_log_loss,
            report.holdout_accuracy,
        ) {
            writeln!(
                f,
                "held out: {} rows, log-loss {loss:.4} (constant prediction {base:.4}), accuracy {acc:.4}",
                report.holdout_rows
            )?;
        }
        writeln!(f, "weights (log-odds per standard deviation):")?;
        for w in &report.weights {
            writeln!(
                f,
                "  {:<18} {:>+9.4}   (mean {:.3}, sd {:.3})",
                w.feature, w.weight, w.mean, w.scale
            )?;
        }
        writeln!(f, "  {:<18} {:>+9.4}", "bias", report.bias)?;
        write!(
            f,
            "{} Newton steps ({}), l2 {}, sources {}; fitted in {:.1} s; weights written to {}",
            report.iterations,
            if report.converged {
                "converged"
            } else {
                "not converged"
            },
            report.l2,
            if report.balance_sources {
                "balanced"
            } else {
                "not balanced"
            },
            report.seconds,
            self.output
        )
    }
}

#[cfg(test)]
mod tests {
    use super::{dataset_file, proofs_in, DatasetFileOptions};
    use crate::{DatasetOptions, LearnError};

    #[test]
    fn a_directory_without_proofs_and_no_source_are_errors() {
        let dir =
            std::env::temp_dir().join(format!("antichess-learn-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let err = proofs_in(&dir).unwrap_err();
        assert!(matches!(err, LearnError::Invalid(_)));
        assert!(err.to_string().ends_with("no *.proof file there"), "{err}");
        let options = DatasetFileOptions {
            dataset: DatasetOptions::default(),
            proofs_dir: None,
            output: dir.join("data.csv"),
        };
        let err = dataset_file(&options, &mut |_| {}).unwrap_err();
        assert!(err.to_string().starts_with("no source: "), "{err}");
        assert!(!dir.join("data.csv").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
