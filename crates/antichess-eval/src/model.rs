//! [`Model`]: a logistic model over [`crate::features`], read from and written to its JSON
//! weights file (format described in `docs/formats/eval-model.md`).
//!
//! The model gives the log-odds that the side to move wins: `bias + Σ wᵢ (xᵢ − meanᵢ) /
//! scaleᵢ`. Loading checks the format name, the version and the feature names against
//! this build's, so weights trained on other features are refused, never misread.

use std::path::Path;

use antichess_core::Position;
use serde::{Deserialize, Serialize};

use crate::features::{features, features_with_moves, FEATURES, FEATURE_COUNT};

/// The `format` field of a weights file.
pub const MODEL_FORMAT: &str = "antichess-eval-linear";

/// The weights shipped with this build (`models/eval-v1.json`).
const BUILTIN: &str = include_str!("../../../models/eval-v1.json");

/// Why a weights file was refused.
#[derive(Debug)]
pub enum ModelError {
    /// The file could not be read.
    Io(String, std::io::Error),
    /// The file is not a weights file of this format, or names other features.
    Invalid(String),
}

impl std::fmt::Display for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ModelError::Io(path, e) => write!(f, "{path}: {e}"),
            ModelError::Invalid(why) => write!(f, "{why}"),
        }
    }
}

impl std::error::Error for ModelError {}

/// What a model was trained on and how well it did (kept in the weights file).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// The data set's sources (proof files, tables), as given to `antichess learn`.
    #[serde(default)]
    pub sources: Vec<String>,
    /// Training rows.
    #[serde(default)]
    pub rows: u64,
    /// Log-loss and accuracy on the training rows.
    #[serde(default)]
    pub train_log_loss: f64,
    /// Share of the training rows predicted right.
    #[serde(default)]
    pub train_accuracy: f64,
    /// Log-loss on rows held out (other lines), if any.
    #[serde(default)]
    pub holdout_log_loss: Option<f64>,
    /// Accuracy on the held-out rows.
    #[serde(default)]
    pub holdout_accuracy: Option<f64>,
}

/// A logistic model of "the side to move wins" over the features.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Model {
    /// Always [`MODEL_FORMAT`].
    pub format: String,
    /// The weights' version (the file name's `v1`).
    pub version: u32,
    /// What the model predicts (text for the reader).
    pub target: String,
    /// The feature names, in [`FEATURES`] order.
    pub features: Vec<String>,
    /// Each feature's mean over the training rows.
    pub mean: Vec<f64>,
    /// Each feature's spread (standard deviation, at least a small positive number).
    pub scale: Vec<f64>,
    /// The weights of the standardised features.
    pub weights: Vec<f64>,
    /// The log-odds at the mean.
    pub bias: f64,
    /// Where the weights came from.
    #[serde(default)]
    pub provenance: Provenance,
}

impl Model {
    /// The weights shipped with this build.
    #[must_use]
    pub fn builtin() -> Model {
        Model::from_json(BUILTIN).expect("the shipped weights file is valid")
    }

    /// A model that says nothing (every position even): the search then starts from
    /// mobility alone. Also the starting point of training.
    #[must_use]
    pub fn neutral() -> Model {
        Model {
            format: MODEL_FORMAT.to_string(),
            version: 1,
            target: "the side to move wins".to_string(),
            features: FEATURES.iter().map(|s| (*s).to_string()).collect(),
            mean: vec![0.0; FEATURE_COUNT],
            scale: vec![1.0; FEATURE_COUNT],
            weights: vec![0.0; FEATURE_COUNT],
            bias: 0.0,
            provenance: Provenance::default(),
        }
    }

    /// Reads a weights file.
    pub fn load(path: &Path) -> Result<Model, ModelError> {
        load_with(path, Model::from_json)
    }

    /// The weights file at `path`, or without one the weights shipped with this build.
    pub fn load_or_builtin(path: Option<&Path>) -> Result<Model, ModelError> {
        path.map_or_else(|| Ok(Model::builtin()), Model::load)
    }

    /// Parses and checks a weights file's text.
    pub fn from_json(text: &str) -> Result<Model, ModelError> {
        let model: Model = serde_json::from_str(text)
            .map_err(|e| ModelError::Invalid(format!("not an evaluation weights file: {e}")))?;
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
        check_header(&self.format, MODEL_FORMAT, self.version, &self.features)?;
        for (name, v) in [
            ("mean", &self.mean),
            ("scale", &self.scale),
            ("weights", &self.weights),
        ] {
            if v.len() != FEATURE_COUNT {
                return Err(ModelError::Invalid(format!(
                    "{name} has {} values, expected {FEATURE_COUNT}",
                    v.len()
                )));
            }
            if v.iter().any(|x| !x.is_finite()) {
                return Err(ModelError::Invalid(format!(
                    "{name} has a value that is not finite"
                )));
            }
        }
        if self.scale.iter().any(|&s| s <= 0.0) {
            return Err(ModelError::Invalid("a scale is not positive".to_string()));
        }
        if !self.bias.is_finite() {
            return Err(ModelError::Invalid("the bias is not finite".to_string()));
        }
        Ok(())
    }

    /// The log-odds that the side to move wins, from features already computed.
    #[must_use]
    pub fn logit_of(&self, x: &[f32; FEATURE_COUNT]) -> f64 {
        let mut z = self.bias;
        for i in 0..FEATURE_COUNT {
            z += self.weights[i] * (f64::from(x[i]) - self.mean[i]) / self.scale[i];
        }
        z
    }

    /// The log-odds that the side to move of `pos` wins.
    #[must_use]
    pub fn logit(&self, pos: &Position) -> f64 {
        self.logit_of(&features(pos))
    }

    /// The log-odds that the side to move of `pos` wins, its legal moves already counted.
    #[must_use]
    pub fn logit_with_moves(&self, pos: &Position, us_moves: u32) -> f64 {
        self.logit_of(&features_with_moves(pos, us_moves))
    }

    /// The probability that the side to move of `pos` wins.
    #[must_use]
    pub fn win_probability(&self, pos: &Position) -> f64 {
        1.0 / (1.0 + (-self.logit(pos)).exp())
    }
}

/// Reads a weights file at `path` with `parse`, naming the file in the error.
pub(crate) fn load_with<T>(
    path: &Path,
    parse: fn(&str) -> Result<T, ModelError>,
) -> Result<T, ModelError> {
    let text =
        std::fs::read_to_string(path).map_err(|e| ModelError::Io(path.display().to_string(), e))?;
    parse(&text).map_err(|e| match e {
        ModelError::Invalid(why) => ModelError::Invalid(format!("{}: {why}", path.display())),
        other => other,
    })
}

/// Checks a weights file's format name (against `expected`), its version (1) and its
/// feature names (this build's).
pub(crate) fn check_header(
    format: &str,
    expected: &str,
    version: u32,
    features: &[String],
) -> Result<(), ModelError> {
    if format != expected {
        return Err(ModelError::Invalid(format!(
            "format is {format:?}, expected {expected:?}"
        )));
    }
    if version != 1 {
        return Err(ModelError::Invalid(format!(
            "version {version} is not supported (this build reads version 1)"
        )));
    }
    if features != FEATURES {
        return Err(ModelError::Invalid(format!(
            "the file's features ({}) are not this build's ({})",
            features.join(", "),
            FEATURES.join(", ")
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use antichess_core::Rules;

    #[test]
    fn the_shipped_weights_load() {
        let model = Model::builtin();
        assert_eq!(model.features, FEATURES);
        let p = model.win_probability(&Position::start(Rules::default()));
        assert!(p > 0.0 && p < 1.0);
    }

    #[test]
    fn a_round_trip_keeps_the_model() {
        let mut model = Model::neutral();
        model.weights[3] = 0.5;
        model.bias = -0.25;
        assert_eq!(Model::from_json(&model.to_json()).unwrap(), model);
    }

    #[test]
    fn other_features_are_refused_by_name() {
        let mut model = Model::neutral();
        model.features[0] = "material".to_string();
        let e = Model::from_json(&model.to_json()).unwrap_err().to_string();
        assert!(e.contains("material"), "{e}");
        let e = Model::from_json("{\"format\": 3}").unwrap_err().to_string();
        assert!(e.contains("not an evaluation weights file"), "{e}");
        let mut model = Model::neutral();
        model.weights.pop();
        let e = Model::from_json(&model.to_json()).unwrap_err().to_string();
        assert!(e.contains("weights has 23 values"), "{e}");
    }

    #[test]
    fn the_neutral_model_is_even() {
        let model = Model::neutral();
        assert_eq!(model.logit(&Position::start(Rules::default())), 0.0);
    }
}
