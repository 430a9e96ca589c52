//! The walk as a user chooses it ([`WalkChoice`]: the rule, its parameters, the work
//! weighed in), with the defaults of the command that asks ([`WalkDefaults::GROW`] for
//! `book grow`, [`WalkDefaults::PROVE`] for `prove`), checked and turned into the
//! [`Selection`] and [`Effort`] of [`crate::select`]; and a hints file read
//! ([`read_hints`]). Errors name the command-line option at fault (`--slack`, `--hints`).

use std::path::Path;

use antichess_core::{Color, Rules};

use crate::error::{BookError, Result};
use crate::hints::Hints;
use crate::select::{Effort, Selection};

/// Which rule picks a child (`--select`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum WalkRule {
    /// A random walk that favours the most proving child: weight (best/number)^exponent.
    Weighted,
    /// Always the most proving child.
    Best,
    /// Among the children within --slack of the smallest number, the one whose other
    /// number is largest (the move the other side finds hardest to answer). Measured: fewer
    /// searches on small lines, 76% more on 1. e3 f6 (docs/research/hard-lines.md).
    Slack,
    /// Best, except where one of the prover's moves within --slack of the smallest proof
    /// number has --dominance times the disproof number of every other: then that move.
    Dominant,
}

/// How far the dominant rule's tolerance reaches (`--dominant-tolerance`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Tolerance {
    /// --slack, however far the move stands out.
    Fixed,
    /// --slack × ln r / ln --dominance for a move r times above the others (at most 100%).
    Log,
}

/// Which reply the dominant rule follows where the opponent moves (`--replies`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Replies {
    /// The reply with the smallest disproof number.
    Refuting,
    /// Among the replies within --slack of the smallest disproof number, the smallest
    /// proof number.
    Nearest,
}

/// The walk's defaults of one command (what a [`WalkChoice`] leaves out).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WalkDefaults {
    pub rule: WalkRule,
    /// The factor of the dominant rule.
    pub dominance: f64,
    /// How far the dominant rule's tolerance reaches.
    pub tolerance: Tolerance,
    /// Which reply the dominant rule follows where the opponent moves.
    pub replies: Replies,
    /// The fraction of the work weighed in (0: none).
    pub effort: f64,
    /// Plies below the root from which the work is weighed in.
    pub effort_depth: u32,
}

impl WalkDefaults {
    /// `book grow`: the most proving walk, as measured on the small lines and 1. e3 f6.
    pub const GROW: WalkDefaults = WalkDefaults {
        rule: WalkRule::Best,
        dominance: 10.0,
        tolerance: Tolerance::Fixed,
        replies: Replies::Refuting,
        effort: 0.0,
        effort_depth: 0,
    };
    /// `prove`: the walk that proved 1. e3 c6 from an empty book unsteered (58 min,
    /// docs/research/hard-lines.md): a prover's move whose disproof number stands 3 times
    /// above its siblings' is followed, and from 10 plies down the work already spent
    /// below a move weighs against it.
    pub const PROVE: WalkDefaults = WalkDefaults {
        rule: WalkRule::Dominant,
        dominance: 3.0,
        tolerance: Tolerance::Fixed,
        replies: Replies::Refuting,
        effort: 0.25,
        effort_depth: 10,
    };
}

/// The walk as chosen (`None`: the command's default).
#[derive(Debug, Clone, PartialEq)]
pub struct WalkChoice {
    pub rule: Option<WalkRule>,
    /// The exponent of the weighted walk.
    pub exponent: f64,
    /// The tolerance of the slack and dominant rules (a fraction).
    pub slack: f64,
    pub dominance: Option<f64>,
    pub tolerance: Option<Tolerance>,
    pub replies: Option<Replies>,
    /// The fraction of the work weighed in.
    pub effort: Option<f64>,
    /// Searches' worth of positions a move needs below it before its work counts.
    pub effort_min: u64,
    pub effort_depth: Option<u32>,
}

impl WalkChoice {
    /// The walk chosen, with `defaults` for what was not given.
    ///
    /// # Errors
    /// [`BookError::Input`] naming a parameter that is not a number >= 0.
    pub fn selection(&self, defaults: WalkDefaults) -> Result<Selection> {
        let dominance = self.dominance.unwrap_or(defaults.dominance);
        for (name, value) in [
            ("exponent", self.exponent),
            ("slack", self.slack),
            ("dominance", dominance),
            ("effort", self.effort.unwrap_or(defaults.effort)),
        ] {
            if !(value.is_finite() && value >= 0.0) {
                return Err(BookError::Input(format!(
                    "--{name} {value}: must be a number >= 0"
                )));
            }
        }
        Ok(match self.rule.unwrap_or(defaults.rule) {
            WalkRule::Weighted => Selection::Weighted {
                exponent: self.exponent,
            },
            WalkRule::Best => Selection::MostProving,
            WalkRule::Slack => Selection::Slack { slack: self.slack },
            WalkRule::Dominant => Selection::Dominant {
                ratio: dominance,
                slack: self.slack,
                scaled: self.tolerance.unwrap_or(defaults.tolerance) == Tolerance::Log,
                nearest: self.replies.unwrap_or(defaults.replies) == Replies::Nearest,
            },
        })
    }

    /// How the walk weighs the work spent (`None`: it does not), for searches of
    /// `search_nodes` positions, with `defaults` for what was not given.
    #[must_use]
    pub fn effort(&self, search_nodes: u64, defaults: WalkDefaults) -> Option<Effort> {
        let fraction = self.effort.unwrap_or(defaults.effort);
        (fraction > 0.0).then_some(Effort {
            fraction,
            min_size: search_nodes.saturating_mul(self.effort_min),
            min_depth: self.effort_depth.unwrap_or(defaults.effort_depth),
        })
    }
}

/// The hints file at `path` (docs/formats/hints.md) read for `prover` under `rules`.
///
/// # Errors
/// [`BookError::Input`] naming the file (`--hints FILE: …`) when it cannot be read; the
/// parser's, naming the line and the move.
pub fn read_hints(path: &Path, rules: Rules, prover: Color) -> Result<Hints> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| BookError::Input(format!("--hints {}: {e}", path.display())))?;
    Hints::parse(&text, rules, prover, &path.display().to_string())
}
