//! The initial numbers as a user chooses them ([`InitialChoice`]: the kind, the weights
//! files, the strength and the scale), checked and turned into [`InitialNumbers`] with
//! their models loaded. Errors name the command-line option at fault (`--eval-strength`,
//! `--cost-model`, …), which the CLI's searches all share.

use std::path::PathBuf;
use std::sync::Arc;

use antichess_eval::{CostModel, Model};

use crate::error::{PnsError, Result};
use crate::initial::InitialNumbers;
use crate::prove::job::error_text;

/// Which initial numbers (`--initial`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum InitialKind {
    /// (1, m) at the prover's turn, (m, 1) at the opponent's: m the legal moves.
    Mobility,
    /// Mobility weighted by the learned evaluation (models/eval-v1.json, or --eval-model).
    Model,
    /// Proof numbers from the model of a proof's size (models/cost-v2.json, or
    /// --cost-model); disproof numbers mobility's.
    Cost,
}

/// The initial numbers as chosen, before they are checked and their models loaded.
#[derive(Debug, Clone)]
pub struct InitialChoice {
    pub kind: InitialKind,
    /// Weights of the evaluation (`None`: the built-in one); only with `Model`.
    pub eval_model: Option<PathBuf>,
    /// Weights of the cost model (`None`: the built-in one); only with `Cost`.
    pub cost_model: Option<PathBuf>,
    /// How strongly the model bends the numbers (`None`: 0.05 with `Model`, 0.5 with
    /// `Cost`, which takes at most 1).
    pub strength: Option<f64>,
    /// Every initial number is multiplied by this (1 to 1024).
    pub scale: u32,
}

impl InitialChoice {
    /// The numbers chosen, their model loaded.
    ///
    /// # Errors
    /// [`PnsError::Invalid`], naming the option: a weights file given for another kind, a
    /// strength or scale out of range, a weights file that cannot be used.
    pub fn numbers(&self) -> Result<InitialNumbers> {
        let invalid = |m: String| Err(PnsError::Invalid(m));
        if self.eval_model.is_some() && self.kind != InitialKind::Model {
            return invalid("--eval-model is only read with --initial model".into());
        }
        if self.cost_model.is_some() && self.kind != InitialKind::Cost {
            return invalid("--cost-model is only read with --initial cost".into());
        }
        if self.kind == InitialKind::Mobility {
            return Ok(InitialNumbers::Mobility);
        }
        let strength = self.strength.unwrap_or(match self.kind {
            InitialKind::Cost => 0.5,
            _ => 0.05,
        });
        if !(strength.is_finite() && strength >= 0.0) {
            return invalid(format!("--eval-strength {strength}: must be a number >= 0"));
        }
        if self.scale == 0 || self.scale > 1024 {
            return invalid(format!("--eval-scale {}: must be 1 to 1024", self.scale));
        }
        let unusable = |flag: &str, e: &dyn std::error::Error| {
            PnsError::Invalid(format!(
                "{flag}: cannot use the weights file: {}",
                error_text(e)
            ))
        };
        let scale = self.scale;
        if self.kind == InitialKind::Cost {
            if strength > 1.0 {
                return invalid(format!(
                    "--eval-strength {strength}: with --initial cost it must be 0 to 1"
                ));
            }
            let model = match &self.cost_model {
                Some(path) => CostModel::load(path).map_err(|e| unusable("--cost-model", &e))?,
                None => CostModel::builtin(),
            };
            let model = Arc::new(model);
            return Ok(InitialNumbers::Cost {
                model,
                strength,
                scale,
            });
        }
        let model = Model::load_or_builtin(self.eval_model.as_deref())
            .map_err(|e| unusable("--eval-model", &e))?;
        let model = Arc::new(model);
        Ok(InitialNumbers::Model {
            model,
            strength,
            scale,
        })
    }
}
