//! The `learn eval` job, [`explain`]: the evaluation of one position by a model, the
//! probability that the side to move wins, and each feature's share of the log-odds (its
//! standardised value times its weight).

use std::fmt;

use antichess_core::Position;
use antichess_eval::{features, Model, FEATURES};
use serde::Serialize;

/// One feature of [`EvalReport`].
#[derive(Debug, Clone, Serialize)]
pub struct FeatureContribution {
    /// The feature's name.
    pub name: &'static str,
    /// Its value in the position.
    pub value: f32,
    /// Its share of the log-odds.
    pub contribution: f64,
}

/// The evaluation of a position, feature by feature.
#[derive(Debug, Clone, Serialize)]
pub struct EvalReport {
    /// The position.
    pub fen: String,
    /// Its rule set.
    pub rules: String,
    /// The side to move.
    pub turn: &'static str,
    /// The model's file, or "builtin".
    pub model: String,
    /// The log-odds that the side to move wins.
    pub logit: f64,
    /// The probability that it wins.
    pub win_probability: f64,
    /// The model's bias (the log-odds of a position of mean features).
    pub bias: f64,
    /// The features, in the model's order.
    pub features: Vec<FeatureContribution>,
}

/// Evaluates `pos` with `model` (named `model_name` in the report).
#[must_use]
pub fn explain(pos: &Position, model: &Model, model_name: String) -> EvalReport {
    let x = features(pos);
    let logit = model.logit_of(&x);
    EvalReport {
        fen: pos.fen(),
        rules: pos.rules().to_string(),
        turn: pos.turn().name(),
        model: model_name,
        logit,
        win_probability: 1.0 / (1.0 + (-logit).exp()),
        bias: model.bias,
        features: FEATURES
            .iter()
            .enumerate()
            .map(|(i, &name)| FeatureContribution {
                name,
                value: x[i],
                contribution: model.weights[i] * (f64::from(x[i]) - model.mean[i]) / model.scale[i],
            })
            .collect(),
    }
}

impl fmt::Display for EvalReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "fen: {}", self.fen)?;
        writeln!(f, "model: {}", self.model)?;
        writeln!(
            f,
            "{} to move wins with probability {:.4} (log-odds {:+.4})",
            self.turn, self.win_probability, self.logit
        )?;
        writeln!(f, "{:<18} {:>9} {:>13}", "feature", "value", "contribution")?;
        for feature in &self.features {
            writeln!(
                f,
                "{:<18} {:>9} {:>+13.4}",
                feature.name, feature.value, feature.contribution
            )?;
        }
        write!(f, "{:<18} {:>9} {:>+13.4}", "bias", "", self.bias)
    }
}

#[cfg(test)]
mod tests {
    use antichess_core::{Position, Rules};
    use antichess_eval::Model;

    use super::explain;

    #[test]
    fn the_contributions_and_the_bias_add_up_to_the_log_odds() {
        let pos = Position::start(Rules::INTERNATIONAL);
        let report = explain(&pos, &Model::builtin(), "builtin".to_string());
        let sum: f64 = report.features.iter().map(|f| f.contribution).sum::<f64>() + report.bias;
        assert!((sum - report.logit).abs() < 1e-9, "{sum} {}", report.logit);
        assert!(report.win_probability > 0.0 && report.win_probability < 1.0);
        assert_eq!(report.turn, "white");
        assert!(report.to_string().starts_with("fen: "));
    }
}
