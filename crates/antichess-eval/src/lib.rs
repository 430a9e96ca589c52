//! A learned evaluation of losing-chess positions (issue 60): [`features`] describes a
//! position by the terms a chess programmer would pick for this game (units, mobility of
//! both sides, forced captures, pieces left hanging, pawn advance), and [`Model`] is a
//! logistic model over them that predicts whether the side to move wins. The search uses
//! it for the initial proof and disproof numbers of new nodes (`antichess-pns`), the book
//! at its new leaves, and the engine outside proofs and tables.
//!
//! The weights are a versioned JSON file (`models/eval-v1.json` in the repository,
//! embedded here as [`Model::builtin`]); `antichess learn` builds the data set and trains
//! it (crate `antichess-learn`). This crate depends on the rules only, so every crate
//! that searches can use it.
#![warn(missing_docs)]

pub mod cost;
pub mod features;
pub mod model;

pub use cost::{CostModel, CostProvenance, Linear, COST_FORMAT};
pub use features::{features, features_with_moves, FEATURES, FEATURE_COUNT};
pub use model::{Model, ModelError, MODEL_FORMAT};
