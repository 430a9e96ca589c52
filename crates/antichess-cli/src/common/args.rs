//! Argument groups shared by several subcommands: a position, a tables directory, the
//! proof file format, what a reference-format proof file does not record, and the book
//! walk.

use antichess_book::walk_choice::{Replies, Tolerance, WalkChoice, WalkRule};
use antichess_book::{Effort, Selection};
use antichess_core::{play_move_text, Color, Game, Position, Rules};
use antichess_proof::{ByteOrder, ReferenceOptions};
use anyhow::Context;
use clap::Args;

use crate::common::parse::{parse_color, parse_threads_or_all};

/// A position: a FEN and/or a move list played from it, under a rule set.
#[derive(Debug, Clone, Args)]
pub struct PositionArgs {
    /// Start from this FEN (default: the start position). The castling field is ignored.
    #[arg(long, value_name = "FEN")]
    pub fen: Option<String>,

    /// Play these moves from the FEN, e.g. "e3 b5" or "1. e3 b5 2. Bxb5" (SAN or UCI).
    #[arg(long, value_name = "MOVES", allow_hyphen_values = true)]
    pub moves: Option<String>,

    /// Rule set: international, fics, joint, vinciperdi, pritchard, or the royal-king
    /// pritchard3 / pritchard4; any but pritchard may add +queen-only.
    #[arg(long, value_name = "RULES", default_value = "international")]
    pub rules: Rules,
}

impl PositionArgs {
    /// The game from the FEN through the moves.
    pub fn game(&self) -> anyhow::Result<Game> {
        let start = match &self.fen {
            Some(fen) => {
                Position::from_fen(fen, self.rules).with_context(|| format!("--fen \"{fen}\""))?
            }
            None => Position::start(self.rules),
        };
        match &self.moves {
            Some(moves) => play_move_text(start, moves).context("--moves"),
            None => Ok(Game::new(start)),
        }
    }

    /// The position after the moves.
    pub fn position(&self) -> anyhow::Result<Position> {
        Ok(*self.game()?.position())
    }
}

pub use antichess_tb::default_tables_dir;

/// A tables directory and rule set.
#[derive(Debug, Clone, Args)]
pub struct TablesArgs {
    /// Directory of table files (default: $ANTICHESS_TABLES/<rules>, else
    /// ~/.cache/antichess/tables/<rules>). Tables are specific to a rule set.
    #[arg(long, value_name = "DIR")]
    pub tables: Option<std::path::PathBuf>,

    /// Rule set: international, fics, joint, vinciperdi, pritchard, or the royal-king
    /// pritchard3 / pritchard4; any but pritchard may add +queen-only.
    #[arg(long, value_name = "RULES", default_value = "international")]
    pub rules: Rules,

    /// Worker threads for building (default: all cores).
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = parse_threads_or_all)]
    pub threads: usize,
}

impl TablesArgs {
    pub fn dir(&self) -> std::path::PathBuf {
        self.tables
            .clone()
            .unwrap_or_else(|| default_tables_dir(self.rules))
    }

    /// The build's options: the directory, rules and threads given.
    pub fn build_options(&self) -> antichess_tb::BuildOptions {
        antichess_tb::BuildOptions {
            rules: self.rules,
            dir: self.dir(),
            threads: self.threads,
            strategy: Default::default(),
        }
    }
}

/// What a reference-format file does not record.
#[derive(Debug, Clone, Args)]
pub struct ReferenceArgs {
    /// Rules of a reference-format file (ours records them). Rule sets: international,
    /// fics, joint, vinciperdi, pritchard, pritchard3, pritchard4.
    #[arg(long, value_name = "RULES", default_value = "international")]
    pub rules: Rules,

    /// The side a reference-format file proves to win.
    #[arg(long, value_name = "COLOR", default_value = "white", value_parser = parse_color)]
    pub prover: Color,

    /// The position a reference-format file's prolog starts from (default: the start
    /// position).
    #[arg(long, value_name = "FEN")]
    pub fen: Option<String>,

    /// Byte order of a reference-format file (default: detect; little-endian preferred).
    #[arg(long, value_enum)]
    pub byte_order: Option<ByteOrder>,
}

impl ReferenceArgs {
    pub fn options(&self) -> anyhow::Result<ReferenceOptions> {
        if let Some(fen) = &self.fen {
            Position::from_fen(fen, self.rules).with_context(|| format!("--fen \"{fen}\""))?;
        }
        Ok(ReferenceOptions {
            rules: self.rules,
            prover: self.prover,
            byte_order: self.byte_order,
            start_fen: self.fen.clone(),
        })
    }
}
/// Tables for searching (as in `antichess solve`).
#[derive(Debug, Clone, Args)]
pub struct SearchTables {
    /// Directory of table files (default: ~/.cache/antichess/tables/<rules>).
    #[arg(long, value_name = "DIR")]
    pub tables: Option<std::path::PathBuf>,

    /// Build missing tables with at most this many units first (0: use no tables); larger
    /// complete sets already in the directory are used too.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub tb_units: u32,
}

/// How the book's walk picks a child (shared by `book grow` and `prove`, whose defaults
/// differ: [`WalkDefaults::GROW`] and [`WalkDefaults::PROVE`]).
#[derive(Debug, Args)]
pub struct WalkArgs {
    /// How the walk from the root picks a child: the most proving child (smallest proof
    /// number where the prover moves, smallest disproof number where the opponent moves),
    /// the same with a tolerance (slack: among the children within --slack of the
    /// smallest, the hardest for the other side to answer), the most proving unless one of
    /// the prover's moves stands out by its disproof number (dominant), or at random with
    /// the most proving child the likeliest. Default: dominant for `prove`, best for `book
    /// grow`.
    #[arg(long, value_enum)]
    pub select: Option<WalkRule>,

    /// The exponent of the weighted walk: a child's weight is (best / number) to this
    /// power, `number` being its proof number where the prover moves (its disproof number
    /// where the opponent moves) and `best` the smallest among the open children.
    #[arg(long, value_name = "E", default_value_t = 2.0)]
    pub exponent: f64,

    /// The tolerance of --select slack and dominant: children whose proof number (at the
    /// prover's nodes; disproof number at the opponent's, slack only) is at most this
    /// fraction above the smallest are candidates.
    #[arg(long, value_name = "F", default_value_t = 0.2)]
    pub slack: f64,

    /// The factor of --select dominant: how many times the disproof number of every other
    /// open move the standing-out move must have. Default: 3 for `prove`, 10 for `book
    /// grow`.
    #[arg(long, value_name = "R")]
    pub dominance: Option<f64>,

    /// How --select dominant's tolerance on the proof number grows with how far the move
    /// stands out: fixed (--slack), or log (a move whose disproof number is r times every
    /// other's may stand --slack × ln r / ln --dominance above the smallest proof number,
    /// at most twice it). Default: fixed.
    #[arg(long, value_enum)]
    pub dominant_tolerance: Option<Tolerance>,

    /// How --select dominant walks at the opponent's nodes: refuting (the reply with the
    /// smallest disproof number, the most proving child), or nearest (among the replies
    /// within --slack of the smallest disproof number, the one with the smallest proof
    /// number: where the opponent has no reply that stands out as a refutation, the one
    /// that can be won soonest). Default: refuting.
    #[arg(long, value_enum)]
    pub replies: Option<Replies>,

    /// Weigh the work already spent into the walk: where the prover moves, a move with at
    /// least --effort-min searches' worth of positions searched below it counts as proof ×
    /// (1 + its share of its parent's positions / F). A subtree that ate the work without
    /// its proof number falling then gives way for a while to siblings up to 1 + 1/F times
    /// worse by proof number (0: proof numbers alone; 0.25 lets siblings up to 5 times
    /// worse in). Default: 0.25 for `prove`, 0 for `book grow`.
    #[arg(long, value_name = "F")]
    pub effort: Option<f64>,

    /// With --effort: how many searches' worth of positions (--search-nodes each) a move
    /// must have below it before its work counts.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub effort_min: u64,

    /// With --effort: nodes fewer than this many plies below the book's root choose by
    /// proof number alone (early in a run the root's moves stand close together, and
    /// weighing the work there spreads it over all of them). Default: 10 for `prove`, 0
    /// for `book grow`.
    #[arg(long, value_name = "PLIES")]
    pub effort_depth: Option<u32>,

    /// Lines of moves the walk follows at the prover's nodes (a published solution's
    /// lines, or any a person trusts): one line per text line, UCI moves from the start
    /// position, `#` comments (docs/formats/hints.md). At a prover's node whose position
    /// a line passes through, the walk takes that line's move instead of choosing by the
    /// numbers, unless the move was found lost; the book's own searches still decide
    /// every node, and the proof is checked as always. scripts/record-lines.py makes such
    /// a file from the 2016 solution's published lines.
    #[arg(long, value_name = "FILE")]
    pub hints: Option<std::path::PathBuf>,
}

pub use antichess_book::walk_choice::WalkDefaults;

/// A hints file (docs/formats/hints.md) read for `prover` under `rules`; a line on stderr
/// says how many positions it names.
pub fn read_hints(
    path: &std::path::Path,
    rules: antichess_core::Rules,
    prover: antichess_core::Color,
) -> anyhow::Result<antichess_book::Hints> {
    let hints = antichess_book::walk_choice::read_hints(path, rules, prover)?;
    eprintln!("{}", hints.summary_line(path));
    Ok(hints)
}

impl WalkArgs {
    /// The --hints file read for `prover` under `rules` (`None` without the flag); a line
    /// on stderr says how many positions it names.
    pub fn hints(
        &self,
        rules: antichess_core::Rules,
        prover: antichess_core::Color,
    ) -> anyhow::Result<Option<std::sync::Arc<antichess_book::Hints>>> {
        let Some(path) = &self.hints else {
            return Ok(None);
        };
        let hints = read_hints(path, rules, prover)?;
        Ok(Some(std::sync::Arc::new(hints)))
    }

    /// The walk as the arguments choose it.
    fn choice(&self) -> WalkChoice {
        WalkChoice {
            rule: self.select,
            exponent: self.exponent,
            slack: self.slack,
            dominance: self.dominance,
            tolerance: self.dominant_tolerance,
            replies: self.replies,
            effort: self.effort,
            effort_min: self.effort_min,
            effort_depth: self.effort_depth,
        }
    }

    /// How the walk weighs the work spent (`None`: it does not), for searches of
    /// `search_nodes` positions, with `defaults` for what was not given.
    #[must_use]
    pub fn effort(&self, search_nodes: u64, defaults: WalkDefaults) -> Option<Effort> {
        self.choice().effort(search_nodes, defaults)
    }

    /// The walk asked for, with `defaults` for what was not given; an error names a bad
    /// parameter.
    pub fn selection(&self, defaults: WalkDefaults) -> anyhow::Result<Selection> {
        Ok(self.choice().selection(defaults)?)
    }
}

/// How a search's new nodes get their proof and disproof numbers (issue 60).
#[derive(Debug, Clone, Args)]
pub struct EvalArgs {
    /// Initial proof and disproof numbers of new nodes: mobility; mobility weighted by
    /// the learned evaluation (numbers × scale × e^(∓ strength × log-odds of the prover's
    /// win)); or proof numbers from the model of a proof's size (scale × e^((1 − strength)
    /// × ln mobility's + strength × predicted ln size), strength 0 to 1).
    #[arg(long = "initial", value_enum, default_value = "mobility")]
    pub initial: antichess_pns::InitialKind,

    /// Weights file of the evaluation (default: the built-in models/eval-v1.json).
    #[arg(long, value_name = "FILE")]
    pub eval_model: Option<std::path::PathBuf>,

    /// Weights file of the cost model (default: the built-in models/cost-v2.json).
    #[arg(long, value_name = "FILE")]
    pub cost_model: Option<std::path::PathBuf>,

    /// How strongly the evaluation bends the numbers (0: mobility order; with --initial
    /// cost at most 1; default 0.05 with model, 0.5 with cost).
    #[arg(long, value_name = "K")]
    pub eval_strength: Option<f64>,

    /// Every initial number is multiplied by this (room for the weighting below 1).
    #[arg(long, value_name = "S", default_value_t = 4)]
    pub eval_scale: u32,
}

impl EvalArgs {
    /// The search's initial numbers; a bad weights file or value is an error naming it.
    pub fn initial_numbers(&self) -> anyhow::Result<antichess_pns::InitialNumbers> {
        use antichess_pns::InitialChoice;
        let choice = InitialChoice {
            kind: self.initial,
            eval_model: self.eval_model.clone(),
            cost_model: self.cost_model.clone(),
            strength: self.eval_strength,
            scale: self.eval_scale,
        };
        Ok(choice.numbers()?)
    }
}
