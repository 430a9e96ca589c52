//! Rule sets (how a stalemate is scored, whether the king is royal), the promotion rule,
//! and game outcomes.
//!
//! The first four rule sets are losing chess with an ordinary king. Every one of them
//! agrees that a player to move with no pieces left has won. They differ only when the
//! side to move still has pieces but no legal move ("stalemate"):
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
//!
//! The last two, `pritchard3` and `pritchard4` (variants 3 and 4 of losing chess in
//! Pritchard's *Encyclopedia of Chess Variants*, which numbers them so; `pritchard` alone
//! stays variant 2), make the king **royal** (see [`crate::royal`]): a move may not leave
//! one's own king in check, in check every orthodox evasion is legal, otherwise captures
//! are compulsory; promotion is to Q, R, B or N; exactly one king per side. A player whose
//! pieces are reduced to a bare king has won at once. Checkmate ends the game: under
//! `pritchard3` the side that gives mate wins, under `pritchard4` the side that is mated
//! wins. Stalemate is a draw under both.

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
    /// Pritchard's variant 3: royal king, the side that gives checkmate wins.
    Pritchard3 = 4,
    /// Pritchard's variant 4: royal king, the side that is checkmated wins.
    Pritchard4 = 5,
}

impl RuleSet {
    pub const ALL: [RuleSet; 6] = [
        RuleSet::International,
        RuleSet::Fics,
        RuleSet::Joint,
        RuleSet::Vinciperdi,
        RuleSet::Pritchard3,
        RuleSet::Pritchard4,
    ];

    /// Whether the king is royal (check, checkmate, one king per side): `pritchard3` and
    /// `pritchard4`.
    #[must_use]
    #[inline(always)]
    pub const fn is_royal(self) -> bool {
        self as u8 >= RuleSet::Pritchard3 as u8
    }

    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            RuleSet::International => "international",
            RuleSet::Fics => "fics",
            RuleSet::Joint => "joint",
            RuleSet::Vinciperdi => "vinciperdi",
            RuleSet::Pritchard3 => "pritchard3",
            RuleSet::Pritchard4 => "pritchard4",
        }
    }

    /// The outcome when the side to move (`turn`) is checkmated. Only the royal rule sets
    /// have check; for the others this answers as orthodox chess would (the mater wins),
    /// and no position of theirs asks.
    #[must_use]
    pub const fn checkmate_outcome(self, turn: Color) -> Outcome {
        match self {
            RuleSet::Pritchard4 => Outcome::Win(turn),
            RuleSet::Pritchard3
            | RuleSet::International
            | RuleSet::Fics
            | RuleSet::Joint
            | RuleSet::Vinciperdi => Outcome::Win(turn.other()),
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
            RuleSet::Vinciperdi | RuleSet::Pritchard3 | RuleSet::Pritchard4 => Outcome::Draw,
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
    /// Knight, bishop, rook, queen or king (without the king under the royal rule sets).
    #[default]
    Any = 0,
    /// Queen only (Pritchard's variant 2).
    QueenOnly = 1,
}

/// The complete rules of a game: rule set and promotion rule.
///
/// Text form: `international`, `fics`, `joint`, `vinciperdi`, `pritchard` (= vinciperdi with
/// promotion to a queen only), `pritchard3`, `pritchard4`, or any rule set name followed by
/// `+queen-only`.
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
    /// Pritchard's variant 3 (royal king; checkmating wins).
    pub const PRITCHARD3: Rules = Rules {
        rule_set: RuleSet::Pritchard3,
        promotion: PromotionRule::Any,
    };
    /// Pritchard's variant 4 (royal king; being checkmated wins).
    pub const PRITCHARD4: Rules = Rules {
        rule_set: RuleSet::Pritchard4,
        promotion: PromotionRule::Any,
    };

    /// Names accepted by [`Rules::from_str`], for help texts.
    pub const NAMES: &'static str = crate::error::RULE_NAMES;

    /// Whether the king is royal under these rules (see [`RuleSet::is_royal`]).
    #[must_use]
    #[inline(always)]
    pub const fn is_royal(self) -> bool {
        self.rule_set.is_royal()
    }

    #[must_use]
    pub const fn new(rule_set: RuleSet, promotion: PromotionRule) -> Rules {
        Rules {
            rule_set,
            promotion,
        }
    }

    /// A compact code (0..12) for file headers. Codes 0..8 (rule set + 4 × promotion rule)
    /// are the four antichess rule sets, as every earlier file wrote them; the royal rule
    /// sets take 8 + (0 for `pritchard3`, 1 for `pritchard4`) + 2 × promotion rule, so that
    /// a reader that predates them refuses their files instead of misreading them.
    #[must_use]
    pub const fn code(self) -> u8 {
        let promotion = self.promotion as u8;
        match self.rule_set {
            RuleSet::Pritchard3 => 8 | promotion << 1,
            RuleSet::Pritchard4 => 9 | promotion << 1,
            RuleSet::International | RuleSet::Fics | RuleSet::Joint | RuleSet::Vinciperdi => {
                self.rule_set as u8 | promotion << 2
            }
        }
    }

    /// Inverse of [`Rules::code`]; `None` for codes 12 and above.
    #[must_use]
    pub const fn from_code(code: u8) -> Option<Rules> {
        let (rule_set, promotion) = match code {
            0..=7 => (
                match code & 3 {
                    0 => RuleSet::International,
                    1 => RuleSet::Fics,
                    2 => RuleSet::Joint,
                    _ => RuleSet::Vinciperdi,
                },
                code >> 2,
            ),
            8..=11 => (
                if code & 1 == 0 {
                    RuleSet::Pritchard3
                } else {
                    RuleSet::Pritchard4
                },
                (code >> 1) & 1,
            ),
            _ => return None,
        };
        let promotion = if promotion == 0 {
            PromotionRule::Any
        } else {
            PromotionRule::QueenOnly
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
            "pritchard3" | "pritchard-3" => RuleSet::Pritchard3,
            "pritchard4" | "pritchard-4" => RuleSet::Pritchard4,
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
        assert_eq!(Rules::PRITCHARD3.code(), 8);
        assert_eq!(Rules::PRITCHARD4.code(), 9);
        assert_eq!(Rules::from_code(12), None);
        assert_eq!("pritchard3".parse::<Rules>().unwrap(), Rules::PRITCHARD3);
        assert_eq!("Pritchard4".parse::<Rules>().unwrap(), Rules::PRITCHARD4);
        assert_eq!("pritchard".parse::<Rules>().unwrap(), Rules::PRITCHARD);
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
        assert_eq!(o(RuleSet::Pritchard3, 1, 3), Outcome::Draw);
        assert_eq!(o(RuleSet::Pritchard4, 3, 1), Outcome::Draw);
        assert_eq!(
            RuleSet::Pritchard3.checkmate_outcome(White),
            Outcome::Win(Black)
        );
        assert_eq!(
            RuleSet::Pritchard4.checkmate_outcome(White),
            Outcome::Win(White)
        );
        assert!(RuleSet::ALL.iter().filter(|r| r.is_royal()).count() == 2);
    }
}
