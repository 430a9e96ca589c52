//! [`CostModel`]: a model of how hard a won position is to prove, read from and written to
//! its JSON weights file (format described in `docs/formats/eval-cost-model.md`).
//!
//! Two linear regressions over [`crate::features`] predict the natural logarithm of the
//! size of a position's subtree in a proof: one for positions where the prover is to move,
//! one for positions where the opponent is (the features are the side to move's view, so
//! the two kinds of position need their own weights). The search uses the prediction for
//! the initial proof numbers of new nodes (`antichess-pns`, `--initial cost`): where the
//! mobility rule says "one move to find" or "m replies to answer", the model says how big
//! the proof below is likely to be.

use std::path::Path;

use antichess_core::Position;
use serde::{Deserialize, Serialize};

use crate::features::{features_with_moves, FEATURES, FEATURE_COUNT};
use crate::model::{check_header, load_with, ModelError};

/// The `format` field of a cost weights file.
pub const COST_FORMAT: &str = "antichess-eval-cost";

/// The weights shipped with this build (`models/cost-v2.json`).
const BUILTIN: &str = include_str!("../../../models/cost-v2.json");

/// One linear regression: `bias + Σ wᵢ (xᵢ − meanᵢ) / scaleᵢ`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Linear {
    /// Each feature's mean over the training rows.
    pub mean: Vec<f64>,
    /// Each feature's spread (standard deviation, at least a small positive number).
    pub scale: Vec<f64>,
    /// The weights of the standardised features.
    pub weights: Vec<f64>,
    /// The prediction at the mean (the training rows' mean of the target).
    pub bias: f64,
}

impl Linear {
    /// A regression that predicts `bias` everywhere.
    #[must_use]
    pub fn constant(bias: f64) -> Linear {
        Linear {
            mean: vec![0.0; FEATURE_COUNT],
            scale: vec![1.0; FEATURE_COUNT],
            weights: vec![0.0; FEATURE_COUNT],
            bias,
        }
    }

    /// The prediction for features `x`.
    #[must_use]
    pub fn predict(&self, x: &[f32; FEATURE_COUNT]) -> f64 {
        let mut z = self.bias;
        for i in 0..FEATURE_COUNT {
            z += self.weights[i] * (f64::from(x[i]) - self.mean[i]) / self.scale[i];
        }
        z
    }

    fn check(&self, part: &str) -> Result<(), ModelError> {
        for (name, v) in [
            ("mean", &self.mean),
            ("scale", &self.scale),
            ("weights", &self.weights),
        ] {
            if v.len() != FEATURE_COUNT {
                return Err(ModelError::Invalid(format!(
                    "{part}.{name} has {} values, expected {FEATURE_COUNT}",
                    v.len()
                )));
            }
            if v.iter().any(|x| !x.is_finite()) {
                return Err(ModelError::Invalid(format!(
                    "{part}.{name} has a value that is not finite"
                )));
            }
        }
        if self.scale.iter().any(|&s| s <= 0.0) {
            return Err(ModelError::Invalid(format!(
                "{part}.scale has a value that is not positive"
            )));
        }
        if !self.bias.is_finite() {
            return Err(ModelError::Invalid(format!("{part}.bias is not finite")));
        }
        Ok(())
    }
}

/// What a cost model was trained on and how well it did (kept in the weights file).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CostProvenance {
    /// The data set's sources (proof files).
    #[serde(default)]
    pub sources: Vec<String>,
    /// Sources held out of the fit.
    #[serde(default)]
    pub holdout: Vec<String>,
    /// Training rows (both kinds).
    #[serde(default)]
    pub rows: u64,
    /// R² of ln(cost) on the training rows, prover to move and opponent to move.
    #[serde(default)]
    pub train_r2: [f64; 2],
    /// R² on the held-out rows, if any were held out.
    #[serde(default)]
    pub holdout_r2: Option<[f64; 2]>,
}

/// Two regressions of ln(subtree size in a proof): see the module documentation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostModel {
    /// Always [`COST_FORMAT`].
    pub format: String,
    /// The weights' version (the file name's `v1`).
    pub version: u32,
    /// What the model predicts (text for the reader).
    pub target: String,
    /// The feature names, in [`FEATURES`] order.
    pub features: Vec<String>,
    /// Positions whose side to move is the prover.
    pub prover: Linear,
    /// Positions whose side to move is the prover's opponent.
    pub opponent: Linear,
    /// Where the weights came from.
    #[serde(default)]
    pub provenance: CostProvenance,
}

impl CostModel {
    /// The weights shipped with this build.
    #[must_use]
    pub fn builtin() -> CostModel {
        CostModel::from_json(BUILTIN).expect("the shipped cost weights file is valid")
    }

    /// A model predicting the same cost (e¹) for every position: the search then orders
    /// as mobility does at the prover's turn and by nothing at the opponent's.
    #[must_use]
    pub fn constant() -> CostModel {
        CostModel {
            format: COST_FORMAT.to_string(),
            version: 1,
            target: "ln of the position's subtree size in a proof".to_string(),
            features: FEATURES.iter().map(|s| (*s).to_string()).collect(),
            prover: Linear::constant(1.0),
            opponent: Linear::constant(1.0),
            provenance: CostProvenance::default(),
        }
    }

    /// Reads a weights file.
    pub fn load(path: &Path) -> Result<CostModel, ModelError> {
        load_with(path, CostModel::from_json)
    }

    /// Parses and checks a weights file's text.
    pub fn from_json(text: &str) -> Result<CostModel, ModelError> {
        let model: CostModel = serde_json::from_str(text)
            .map_err(|e| ModelError::Invalid(format!("not a cost weights file: {e}")))?;
        model.check()?;
        Ok(model)
    }

    /// The weights file's text.
    #[must_use]
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("a model serialises");
        text.push('\n');
        text
    }

    fn check(&self) -> Result<(), ModelError> {
        check_header(&self.format, COST_FORMAT, self.version, &self.features)?;
        self.prover.check("prover")?;
        self.opponent.check("opponent")
    }

    /// The predicted ln(subtree size) of a position with features `x`.
    #[must_use]
    pub fn ln_cost_of(&self, x: &[f32; FEATURE_COUNT], prover_to_move: bool) -> f64 {
        if prover_to_move {
            self.prover.predict(x)
        } else {
            self.opponent.predict(x)
        }
    }

    /// The predicted ln(subtree size) of `pos`, its side to move having `us_moves` legal
    /// moves.
    #[must_use]
    pub fn ln_cost(&self, pos: &Position, us_moves: u32, prover_to_move: bool) -> f64 {
        self.ln_cost_of(&features_with_moves(pos, us_moves), prover_to_move)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use antichess_core::Rules;

    #[test]
    fn the_shipped_weights_load_and_predict_finite_costs() {
        let model = CostModel::builtin();
        let pos = Position::start(Rules::default());
        let moves = pos.count_moves();
        for prover in [true, false] {
            assert!(model.ln_cost(&pos, moves, prover).is_finite());
        }
    }

    #[test]
    fn a_round_trip_keeps_the_model() {
        let mut model = CostModel::constant();
        model.prover.weights[2] = 0.5;
        model.opponent.bias = 2.25;
        assert_eq!(CostModel::from_json(&model.to_json()).unwrap(), model);
    }

    #[test]
    fn bad_files_are_refused_with_the_reason() {
        let e = CostModel::from_json("{}").unwrap_err().to_string();
        assert!(e.contains("not a cost weights file"), "{e}");
        let mut model = CostModel::constant();
        model.opponent.weights.pop();
        let e = CostModel::from_json(&model.to_json())
            .unwrap_err()
            .to_string();
        assert!(e.contains("opponent.weights has 23 values"), "{e}");
        let mut model = CostModel::constant();
        model.format = "antichess-eval-linear".to_string();
        let e = CostModel::from_json(&model.to_json())
            .unwrap_err()
            .to_string();
        assert!(e.contains("expected \"antichess-eval-cost\""), "{e}");
    }

    #[test]
    fn each_kind_of_position_reads_its_own_weights() {
        let mut model = CostModel::constant();
        model.prover.bias = 3.0;
        model.opponent.bias = 5.0;
        let pos = Position::start(Rules::default());
        assert_eq!(model.ln_cost(&pos, 20, true), 3.0);
        assert_eq!(model.ln_cost(&pos, 20, false), 5.0);
    }
}
