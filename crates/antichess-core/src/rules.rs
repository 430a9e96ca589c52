//! Rule sets (how a stalemate is scored), the promotion rule, and game outcomes.
//!
//! Every rule set agrees that a player to move with no pieces left has won. They differ
//! only when the side to move still has pieces but no legal move ("stalemate"):
//!
//! | rule set        | stalemated side to move                                  |
//! |-----------------|----------------------------------------------------------|
//! | `international` | wins (lichess "antichess"; the default)                  |
//! | `fics`          | the side with fewer pieces wins; equal counts draw       |
//! | `joint`         | wins only where `international` and `fics` agree: i.e. when it has fewer pieces; otherwise a draw |
//! | `vinciperdi`    | draw                                                     |
//!
//! Pritchard's variant 2 is `vinciperdi` scoring with promotion to a queen only; its name
//! `pritchard` is accepted wherever a rule set is parsed.

use std::fmt;
use std::str::FromStr;

use crate::{Color, Error};

/// How a stalemate (side to move has pieces but no legal move) is scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
#[repr(u8)]
pub enum RuleSet {
    #[default]
    International = 0,
    Fics = 1,
    Joint = 2,
    Vinciperdi = 3,
}

impl RuleSet {
    pub const ALL: [RuleSet; 4] = [
        RuleSet::International,
        RuleSet::Fics,
        RuleSet::Joint,
        RuleSet::Vinciperdi,
    ];

    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            RuleSet::International => "international",
            RuleSet::Fics => "fics",
            RuleSet::Joint => "joint",
            RuleSet::Vinciperdi => "vinciperdi",
        }
    }

    /// The outcome of a stalemate: the side to move (`turn`) has `own` pieces, its opponent
    /// `theirs`, and it has no legal move.
    #[must_use]
    pub const fn stalemate_outcome(self, turn: Color, own: u32, theirs: u32) -> Outcome {
        match self {
            RuleSet::International => Outcome::Win(turn),
            RuleSet::Fics => {
                if own < theirs {
                    Outcome::Win(turn)
                } else if own > theirs {
                    Outcome::Win(turn.other())
                } else {
                    Outcome::Draw
                }
            }
            RuleSet::Joint => {
                if own < theirs {
                    Outcome::Win(turn)
                } else {
                    Outcome::Draw
                }
            }
            RuleSet::Vinciperdi => Outcome::Draw,
        }
    }
}

impl fmt::Display for RuleSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which roles a pawn may promote to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
#[repr(u8)]
pub enum PromotionRule {
    /// Knight, bishop, rook, queen or king.
    #[default]
    Any = 0,
    /// Queen only (Pritchard's variant 2).
    QueenOnly = 1,
}

/// The complete rules of a game: stalemate scoring and promotion rule.
///
/// Text form: `international`, `fics`, `joint`, `vinciperdi`, `pritchard` (= vinciperdi with
/// promotion to a queen only), or any rule set name followed by `+queen-only`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Rules {
    pub rule_set: RuleSet,
    pub promotion: PromotionRule,
}

impl Rules {
    pub const INTERNATIONAL: Rules = Rules {
        rule_set: RuleSet::International,
        promotion: PromotionRule::Any,
    };
    pub const FICS: Rules = Rules {
        rule_set: RuleSet::Fics,
        promotion: PromotionRule::Any,
    };
    pub const JOINT: Rules = Rules {
        rule_set: RuleSet::Joint,
        promotion: PromotionRule::Any,
    };
    pub const VINCIPERDI: Rules = Rules {
        rule_set: RuleSet::Vinciperdi,
        promotion: PromotionRule::Any,
    };
    pub const PRITCHARD: Rules = Rules {
        rule_set: RuleSet::Vinciperdi,
        promotion: PromotionRule::QueenOnly,
    };

    /// Names accepted by [`Rules::from_str`], for help texts.
    pub const NAMES: &'static str =
        "international, fics, joint, vinciperdi, pritchard (any of the first four may add +queen-only)";

    #[must_use]
    pub const fn new(rule_set: RuleSet, promotion: PromotionRule) -> Rules {
        Rules {
            rule_set,
            promotion,
        }
    }

    /// A compact code (0..8) for file headers: rule set + 4 × promotion rule.
    #[must_use]
    pub const fn code(self) -> u8 {
        self.rule_set as u8 | (self.promotion as u8) << 2
    }

    /// Inverse of [`Rules::code`].
    #[must_use]
    pub const fn from_code(code: u8) -> Option<Rules> {
        let rule_set = match code & 3 {
            0 => RuleSet::International,
            1 => RuleSet::Fics,
            2 => RuleSet::Joint,
            _ => RuleSet::Vinciperdi,
        };
        let promotion = match code >> 2 {
            0 => PromotionRule::Any,
            1 => PromotionRule::QueenOnly,
            _ => return None,
        };
        Some(Rules {
            rule_set,
            promotion,
        })
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.rule_set, self.promotion) {
            (RuleSet::Vinciperdi, PromotionRule::QueenOnly) => f.write_str("pritchard"),
            (rule_set, PromotionRule::Any) => f.write_str(rule_set.name()),
            (rule_set, PromotionRule::QueenOnly) => write!(f, "{}+queen-only", rule_set.name()),
        }
    }
}

impl FromStr for Rules {
    type Err = Error;

    fn from_str(s: &str) -> Result<Rules, Error> {
        let lower = s.trim().to_ascii_lowercase();
        let (base, promotion) = match lower.strip_suffix("+queen-only") {
            Some(base) => (base, PromotionRule::QueenOnly),
            None => (lower.as_str(), PromotionRule::Any),
        };
        let rule_set = match base {
            "international" | "antichess" | "lichess" => RuleSet::International,
            "fics" | "suicide" => RuleSet::Fics,
            "joint" => RuleSet::Joint,
            "vinciperdi" => RuleSet::Vinciperdi,
            "pritchard" => return Ok(Rules::PRITCHARD),
            _ => return Err(Error::UnknownRules(s.to_string())),
        };
        Ok(Rules {
            rule_set,
            promotion,
        })
    }
}

/// The result of a finished game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    Win(Color),
    Draw,
}

impl Outcome {
    /// The winner, if the game is decisive.
    #[must_use]
    pub const fn winner(self) -> Option<Color> {
        match self {
            Outcome::Win(color) => Some(color),
            Outcome::Draw => None,
        }
    }

    /// PGN result token: `1-0`, `0-1` or `1/2-1/2`.
    #[must_use]
    pub const fn pgn(self) -> &'static str {
        match self {
            Outcome::Win(Color::White) => "1-0",
            Outcome::Win(Color::Black) => "0-1",
            Outcome::Draw => "1/2-1/2",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Win(color) => write!(f, "{color} wins ({})", self.pgn()),
            Outcome::Draw => write!(f, "draw ({})", self.pgn()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_text_round_trip() {
        for rule_set in RuleSet::ALL {
            for promotion in [PromotionRule::Any, PromotionRule::QueenOnly] {
                let rules = Rules::new(rule_set, promotion);
                assert_eq!(rules.to_string().parse::<Rules>().unwrap(), rules);
                assert_eq!(Rules::from_code(rules.code()), Some(rules));
            }
        }
        assert!("losers"
            .parse::<Rules>()
            .unwrap_err()
            .to_string()
            .contains("losers"));
    }

    #[test]
    fn stalemate_scoring() {
        use Color::*;
        let o = |r: RuleSet, own, theirs| r.stalemate_outcome(White, own, theirs);
        assert_eq!(o(RuleSet::International, 3, 1), Outcome::Win(White));
        assert_eq!(o(RuleSet::Fics, 1, 3), Outcome::Win(White));
        assert_eq!(o(RuleSet::Fics, 3, 1), Outcome::Win(Black));
        assert_eq!(o(RuleSet::Fics, 2, 2), Outcome::Draw);
        assert_eq!(o(RuleSet::Joint, 1, 3), Outcome::Win(White));
        assert_eq!(o(RuleSet::Joint, 3, 1), Outcome::Draw);
        assert_eq!(o(RuleSet::Joint, 2, 2), Outcome::Draw);
        assert_eq!(o(RuleSet::Vinciperdi, 1, 3), Outcome::Draw);
    }
}
