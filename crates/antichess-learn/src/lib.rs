//! Learning the evaluation of `antichess-eval` (issue 60): the data set and the training.
//!
//! - [`dataset`]: rows of (features, who wins, how hard it is to show) taken from proof
//!   files (every position of a proof is won by the prover), from PGN files of decided
//!   games (module `games`: labelled by the game's result) and from tablebases, as a job
//!   ([`build_dataset`]: options, one event callback, a serializable report).
//! - [`csv`]: the data set's file (`docs/formats/eval-dataset.md`).
//! - [`train`]: L2-regularised logistic regression by Newton's method, with sources held
//!   out to measure how the model does on lines it never saw.
//! - [`cost`]: ridge regressions of ln(subtree size in a proof), the cost model the
//!   search's `--initial cost` reads ([`antichess_eval::CostModel`]).
//!
//! - [`files`]: the commands' jobs on files (data set built and written, a model fitted
//!   from a data set file and its weights written), [`explain`]: one position's evaluation
//!   feature by feature; their reports' `Display` is the commands' text.
//!
//! The weights this crate writes are read by [`antichess_eval::Model`]. The command line
//! is `antichess learn dataset | train | train-cost | eval`.
#![warn(missing_docs)]
#![forbid(unsafe_code)]

pub mod cost;
pub mod csv;
pub mod dataset;
pub mod error;
pub mod explain;
pub mod files;
mod games;
pub mod train;

pub use cost::{train_cost, CostPartReport, CostSourceFit, CostTrainOptions, CostTrainReport};
pub use csv::{read_csv, write_csv};
pub use dataset::{
    build_dataset, DatasetEvent, DatasetOptions, DatasetReport, Row, SourceKind, SourceReport,
};
pub use error::LearnError;
pub use explain::{explain, EvalReport, FeatureContribution};
pub use files::{
    dataset_file, proofs_in, train_cost_file, train_file, DatasetFileOptions, DatasetFileReport,
    FitFileReport, RowsRead,
};
pub use train::{train, FeatureWeight, SourceFit, TrainOptions, TrainReport};
