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

use std::sync::Arc;

use antichess_core::{Color, Position};
use antichess_eval::Model;

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
