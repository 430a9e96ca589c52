//! The proof and disproof numbers of a position met for the first time and not decided by
//! a terminal test: [`InitialNumbers`], mobility (the default) or mobility weighted by the
//! learned evaluation of `antichess-eval` (issue 60).
//!
//! Mobility: at the prover's turn (1, m), at the opponent's (m, 1), m the legal moves of
//! the side to move. With a model, let y be the model's log-odds that the *prover* wins
//! (clipped to ±[`LOGIT_CLIP`]); then the numbers are `scale × mobility × e^(∓ strength ×
//! y)` (proof number down and disproof number up where the prover looks like winning),
//! rounded and at least 1. `scale` gives the weighting room below 1 (mobility's numbers
//! start at 1); with `strength` 0 the order of the search is mobility's, every number
//! multiplied by `scale`.
//!
//! With a cost model ([`InitialNumbers::Cost`]), let c be the model's predicted ln(size of
//! the position's subtree in a proof), less the model's mean for positions at the prover's
//! turn (so a typical prover position counts 1), clipped to ±[`LOGIT_CLIP`]; the proof
//! number is `scale × e^((1 − strength) × ln p₀ + strength × c)`, p₀ mobility's proof
//! number (1 or m), and the disproof number mobility's times `scale`. At strength 1 the
//! proof number is the predicted proof size; at 0 it is mobility's.

use std::sync::Arc;

use antichess_core::{Color, Position};
use antichess_eval::{CostModel, Model};

/// The largest log-odds the weighting believes (e^(strength × 6) at most).
pub const LOGIT_CLIP: f64 = 6.0;

/// How new nodes get their numbers.
#[derive(Debug, Clone, Default)]
pub enum InitialNumbers {
    /// (1, m) at the prover's turn, (m, 1) at the opponent's.
    #[default]
    Mobility,
    /// Mobility weighted by a learned evaluation (see the module documentation).
    Model {
        /// The evaluation.
        model: Arc<Model>,
        /// How strongly the evaluation bends the numbers (the exponent's factor).
        strength: f64,
        /// The factor every initial number is multiplied by.
        scale: u32,
    },
    /// Proof numbers from a model of the proof's size (see the module documentation).
    Cost {
        /// The model.
        model: Arc<CostModel>,
        /// How far the proof numbers go from mobility's towards the prediction (0 to 1).
        strength: f64,
        /// The factor every initial number is multiplied by.
        scale: u32,
    },
}

impl InitialNumbers {
    /// The built-in model (`models/eval-v1.json`) with the given strength and scale.
    #[must_use]
    pub fn builtin(strength: f64, scale: u32) -> InitialNumbers {
        InitialNumbers::Model {
            model: Arc::new(Model::builtin()),
            strength,
            scale,
        }
    }

    /// A short description for reports ("mobility", "model 1.0×4").
    #[must_use]
    pub fn describe(&self) -> String {
        match self {
            InitialNumbers::Mobility => "mobility".to_string(),
            InitialNumbers::Model {
                strength, scale, ..
            } => format!("model (strength {strength}, scale {scale})"),
            InitialNumbers::Cost {
                strength, scale, ..
            } => format!("cost model (strength {strength}, scale {scale})"),
        }
    }

    /// The numbers of a position with `moves` legal moves (at least 1), not decided.
    #[inline]
    #[must_use]
    pub fn numbers(&self, pos: &Position, prover: Color, moves: u32) -> (u32, u32) {
        let prover_to_move = pos.turn() == prover;
        match self {
            InitialNumbers::Mobility => {
                if prover_to_move {
                    (1, moves)
                } else {
                    (moves, 1)
                }
            }
            InitialNumbers::Model {
                model,
                strength,
                scale,
            } => {
                let z = model.logit_with_moves(pos, moves);
                let y = if prover_to_move { z } else { -z };
                let y = y.clamp(-LOGIT_CLIP, LOGIT_CLIP);
                let (p0, d0) = if prover_to_move {
                    (1.0, f64::from(moves))
                } else {
                    (f64::from(moves), 1.0)
                };
                let s = f64::from(*scale);
                let w = (strength * y).exp();
                let round = |v: f64| (v.round() as u32).max(1);
                (round(s * p0 / w), round(s * d0 * w))
            }
            InitialNumbers::Cost {
                model,
                strength,
                scale,
            } => {
                let c = model.ln_cost(pos, moves, prover_to_move) - model.prover.bias;
                let c = c.clamp(-LOGIT_CLIP, LOGIT_CLIP);
                let (p0, d0) = if prover_to_move {
                    (1.0, f64::from(moves))
                } else {
                    (f64::from(moves), 1.0)
                };
                let s = f64::from(*scale);
                let ln_p = (1.0 - strength) * p0.ln() + strength * c;
                let round = |v: f64| (v.round() as u32).max(1);
                (round(s * ln_p.exp()), round(s * d0))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use antichess_core::Rules;

    #[test]
    fn mobility_is_the_default() {
        let pos = Position::start(Rules::default());
        let n = InitialNumbers::default();
        assert_eq!(n.numbers(&pos, Color::White, 20), (1, 20));
        assert_eq!(n.numbers(&pos, Color::Black, 20), (20, 1));
    }

    #[test]
    fn strength_zero_is_scaled_mobility() {
        let pos = Position::start(Rules::default());
        let n = InitialNumbers::Model {
            model: Arc::new(Model::neutral()),
            strength: 0.0,
            scale: 4,
        };
        assert_eq!(n.numbers(&pos, Color::White, 20), (4, 80));
        assert_eq!(n.numbers(&pos, Color::Black, 20), (80, 4));
    }

    #[test]
    fn the_cost_model_sets_the_proof_number_and_leaves_the_disproof_number() {
        let pos = Position::start(Rules::default());
        let mut model = CostModel::constant();
        model.prover.bias = 2.0;
        model.opponent.bias = 2.0 + 3.0f64.ln();
        let model = Arc::new(model);
        let at = |strength: f64| InitialNumbers::Cost {
            model: model.clone(),
            strength,
            scale: 4,
        };
        // Strength 0: mobility's numbers, scaled.
        assert_eq!(at(0.0).numbers(&pos, Color::White, 20), (4, 80));
        assert_eq!(at(0.0).numbers(&pos, Color::Black, 20), (80, 4));
        // Strength 1: a typical prover position counts 1 (× scale), the opponent's
        // positions three times that, whatever their mobility.
        assert_eq!(at(1.0).numbers(&pos, Color::White, 20), (4, 80));
        assert_eq!(at(1.0).numbers(&pos, Color::Black, 20), (12, 4));
        // Half way: the geometric mean of 20 and 3.
        let (p, d) = at(0.5).numbers(&pos, Color::Black, 20);
        assert_eq!((p, d), ((4.0 * 60f64.sqrt()).round() as u32, 4));
    }

    #[test]
    fn a_prover_that_looks_like_winning_gets_a_smaller_proof_number() {
        let pos = Position::start(Rules::default());
        let mut model = Model::neutral();
        model.bias = 1.0; // the side to move (White) looks like winning
        let n = InitialNumbers::Model {
            model: Arc::new(model),
            strength: 1.0,
            scale: 4,
        };
        let (p, d) = n.numbers(&pos, Color::White, 20);
        assert!(p < 4 && d > 80, "{p} {d}");
        // For Black as the prover the same position (White to move) looks lost.
        let (p, d) = n.numbers(&pos, Color::Black, 20);
        assert!(p > 80 && d < 4, "{p} {d}");
    }
}
