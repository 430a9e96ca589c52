//! The engine's UCI options: their declarations (printed after `uci`) and `setoption`.
//!
//! | option | type | meaning |
//! |---|---|---|
//! | `UCI_Variant` | combo `antichess`, `giveaway`, `suicide`, `chess` | antichess and giveaway: the international rules (lichess); suicide: the FICS rules; chess (an orthodox board, as python-chess's `chess.Board` sends): a royal rule set, `pritchard4` if `Rules` is, else `pritchard3` |
//! | `Rules` | combo of the suite's rule sets | any rule set (`international`, `fics`, `joint`, `vinciperdi`, `pritchard`, `pritchard3`, `pritchard4`); the last of `UCI_Variant` and `Rules` set wins |
//! | `Hash` | spin, MB | memory of the searches: half for df-pn, half for the alpha-beta table |
//! | `Threads` | spin | threads of the df-pn search (the alpha-beta search uses one) |
//! | `Tables` | string | a directory of tablebase files (`antichess tb build`); empty: none |
//! | `Proofs` | string | a proof file or a directory of `*.proof` files; empty: none. Default: see `crate::proofs` |
//! | `ProofIndex` | string | the directory of the proofs' index files (`antichess proof index`); default `$ANTICHESS_PROOF_INDEX`, else `~/.cache/antichess/proof-index` |
//! | `Move Overhead` | spin, ms | time kept back from every move for the GUI and the pipe, at most a quarter of the move's time (`crate::think::time_budget`) |
//! | `MultiPV` | spin | root moves reported, best first, each with its own `info multipv K` line (`crate::think`) |
//! | `Ponder` | check | declared so that GUIs send `go ponder`; the engine ponders whenever asked, whatever its value |
//! | `Evaluation` | combo `simple`, `model` | the alpha-beta search's static evaluation: units and mobility, or the learned model (`crate::search::Evaluation`) |
//! | `EvalFile` | string | the model's weights file (`antichess learn train`); empty: the weights built in |

use std::str::FromStr;
use std::time::Duration;

use antichess_core::Rules;

use crate::UciError;

/// The values of the options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    pub rules: Rules,
    /// The `UCI_Variant` last set (shown in the declaration as its default).
    pub variant: String,
    pub hash_mb: usize,
    pub threads: usize,
    /// Tables directory (empty: none).
    pub tables: String,
    /// Proof file or directory (empty: none).
    pub proofs: String,
    /// Directory of the proofs' index files.
    pub proof_index: String,
    pub move_overhead: Duration,
    /// Root moves reported (`MultiPV`).
    pub multipv: usize,
    /// The alpha-beta search's static evaluation.
    pub evaluation: EvalKind,
    /// The model's weights file (empty: the built-in weights).
    pub eval_file: String,
}

/// The `Evaluation` option's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EvalKind {
    /// Units and mobility.
    #[default]
    Simple,
    /// The learned model (`EvalFile`, else the built-in weights).
    Model,
}

pub const MAX_HASH_MB: usize = 65_536;
pub const MAX_THREADS: usize = 256;
pub const MAX_OVERHEAD_MS: u64 = 5_000;
/// The most lines `MultiPV` takes: more than any position has legal moves (218 is the most
/// known in orthodox chess).
pub const MAX_MULTIPV: usize = 256;

impl Options {
    /// The defaults; `proofs` is the default proofs location (empty if none was found).
    #[must_use]
    pub fn new(proofs: String) -> Options {
        Options {
            rules: Rules::INTERNATIONAL,
            variant: "antichess".into(),
            hash_mb: 16,
            threads: 1,
            tables: String::new(),
            proofs,
            proof_index: antichess_proof::default_index_dir().display().to_string(),
            move_overhead: Duration::from_millis(50),
            multipv: 1,
            evaluation: EvalKind::Simple,
            eval_file: String::new(),
        }
    }

    /// The `option` lines printed after `uci`.
    #[must_use]
    pub fn declarations(&self, default_proofs: &str) -> Vec<String> {
        let empty = |s: &str| {
            if s.is_empty() {
                "<empty>".to_string()
            } else {
                s.to_string()
            }
        };
        vec![
            "option name UCI_Variant type combo default antichess var antichess var giveaway var suicide var chess"
                .to_string(),
            "option name Rules type combo default international var international var fics var joint var vinciperdi var pritchard var pritchard3 var pritchard4"
                .to_string(),
            format!("option name Hash type spin default 16 min 1 max {MAX_HASH_MB}"),
            format!("option name Threads type spin default 1 min 1 max {MAX_THREADS}"),
            "option name Tables type string default <empty>".to_string(),
            format!("option name Proofs type string default {}", empty(default_proofs)),
            format!(
                "option name ProofIndex type string default {}",
                empty(&antichess_proof::default_index_dir().display().to_string())
            ),
            format!("option name Move Overhead type spin default 50 min 0 max {MAX_OVERHEAD_MS}"),
            format!("option name MultiPV type spin default 1 min 1 max {MAX_MULTIPV}"),
            "option name Evaluation type combo default simple var simple var model".to_string(),
            "option name EvalFile type string default <empty>".to_string(),
            "option name Ponder type check default false".to_string(),
        ]
    }

    /// Applies `setoption name <name> value <value>`.
    ///
    /// # Errors
    /// An unknown option, or a value it does not take; the message names both.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<(), UciError> {
        let bad = |message: String| UciError::BadOption {
            name: name.to_string(),
            message,
        };
        let value = value.map(str::trim).unwrap_or("");
        let number = |max: u64| -> Result<u64, UciError> {
            let v: u64 = value
                .parse()
                .map_err(|_| bad(format!("'{value}' is not a whole number")))?;
            if v > max {
                return Err(bad(format!("{v} is above the largest value, {max}")));
            }
            Ok(v)
        };
        match name.to_ascii_lowercase().as_str() {
            "uci_variant" => {
                self.rules = match value.to_ascii_lowercase().as_str() {
                    "antichess" | "giveaway" => Rules::INTERNATIONAL,
                    "suicide" => Rules::FICS,
                    // An orthodox board: the royal rule sets are the suite's games on it.
                    "chess" if self.rules == Rules::PRITCHARD4 => Rules::PRITCHARD4,
                    "chess" => Rules::PRITCHARD3,
                    _ => {
                        return Err(bad(format!(
                            "unknown variant '{value}' (antichess, giveaway, suicide or chess)"
                        )))
                    }
                };
                self.variant = value.to_ascii_lowercase();
            }
            "rules" => {
                self.rules = Rules::from_str(value).map_err(|e| bad(e.to_string()))?;
            }
            "hash" => self.hash_mb = number(MAX_HASH_MB as u64)?.max(1) as usize,
            "threads" => self.threads = number(MAX_THREADS as u64)?.max(1) as usize,
            "move overhead" => {
                self.move_overhead = Duration::from_millis(number(MAX_OVERHEAD_MS)?);
            }
            "multipv" => self.multipv = number(MAX_MULTIPV as u64)?.max(1) as usize,
            "tables" => self.tables = empty_value(value),
            "proofs" => self.proofs = empty_value(value),
            "proofindex" => {
                self.proof_index = match empty_value(value) {
                    dir if dir.is_empty() => {
                        antichess_proof::default_index_dir().display().to_string()
                    }
                    dir => dir,
                };
            }
            "evaluation" => {
                self.evaluation = match value.to_ascii_lowercase().as_str() {
                    "simple" => EvalKind::Simple,
                    "model" => EvalKind::Model,
                    _ => {
                        return Err(bad(format!(
                            "unknown evaluation '{value}' (simple or model)"
                        )))
                    }
                };
            }
            "evalfile" => self.eval_file = empty_value(value),
            // Options GUIs send to every engine (`Ponder` only says whether the GUI will
            // send `go ponder`); nothing to do.
            "ponder" | "uci_analysemode" | "uci_chess960" => {}
            _ => return Err(bad("no such option".into())),
        }
        Ok(())
    }
}

/// `<empty>` (the UCI convention) and an empty value mean none.
fn empty_value(value: &str) -> String {
    if value == "<empty>" {
        String::new()
    } else {
        value.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_and_rules() {
        let mut o = Options::new(String::new());
        o.set("UCI_Variant", Some("suicide")).unwrap();
        assert_eq!(o.rules, Rules::FICS);
        o.set("uci_variant", Some("giveaway")).unwrap();
        assert_eq!(o.rules, Rules::INTERNATIONAL);
        // `chess` (python-chess's chess.Board): a royal rule set, the one chosen if any.
        o.set("UCI_Variant", Some("chess")).unwrap();
        assert_eq!(o.rules, Rules::PRITCHARD3);
        o.set("Rules", Some("pritchard4")).unwrap();
        o.set("UCI_Variant", Some("chess")).unwrap();
        assert_eq!(o.rules, Rules::PRITCHARD4);
        o.set("Rules", Some("pritchard")).unwrap();
        assert_eq!(o.rules, Rules::PRITCHARD);
        o.set("Move Overhead", Some("120")).unwrap();
        assert_eq!(o.move_overhead, Duration::from_millis(120));
        o.set("Proofs", Some("<empty>")).unwrap();
        assert!(o.proofs.is_empty());
        o.set("Evaluation", Some("Model")).unwrap();
        assert_eq!(o.evaluation, EvalKind::Model);
        o.set("EvalFile", Some("/tmp/w.json")).unwrap();
        assert_eq!(o.eval_file, "/tmp/w.json");
        o.set("MultiPV", Some("3")).unwrap();
        assert_eq!(o.multipv, 3);
        o.set("multipv", Some("0")).unwrap();
        assert_eq!(o.multipv, 1, "at least one line");
    }

    #[test]
    fn bad_values_are_named() {
        let mut o = Options::new(String::new());
        let cases = [
            ("UCI_Variant", "crazyhouse", "unknown variant 'crazyhouse'"),
            ("Hash", "lots", "'lots' is not a whole number"),
            ("Threads", "100000", "above the largest value"),
            ("Rules", "chess", "chess"),
            ("Evaluation", "nnue", "unknown evaluation 'nnue'"),
            ("MultiPV", "257", "257 is above the largest value, 256"),
            ("Colour", "blue", "option 'Colour': no such option"),
        ];
        for (name, value, expected) in cases {
            let message = o.set(name, Some(value)).unwrap_err().to_string();
            assert!(message.contains(expected), "{name} {value}: {message}");
        }
        assert_eq!(o, Options::new(String::new()));
    }
}
