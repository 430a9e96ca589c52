//! `antichess learn`: the learned evaluation's data set, training and a look at one
//! position (issue 60). The jobs are `antichess_learn`'s: `dataset_file`, `train_file`,
//! `train_cost_file` and `explain`; this module parses, shows progress on stderr and
//! prints the reports.

use std::path::PathBuf;
use std::process::ExitCode;

use antichess_core::{Position, Rules};
use antichess_eval::Model;
use antichess_learn::{
    dataset_file, explain, train_cost_file, train_file, CostTrainOptions, DatasetFileOptions,
    DatasetOptions, TrainOptions,
};
use anyhow::Context;
use clap::{Args, Subcommand};

use crate::common::output::{print_report as print, Format};

#[derive(Debug, Subcommand)]
pub enum LearnCommand {
    Dataset(DatasetArgs),
    Train(TrainArgs),
    TrainCost(TrainCostArgs),
    Eval(EvalArgs),
}

/// Build a data set (CSV, docs/formats/eval-dataset.md) from proof files, PGN files of
/// played games and tablebases.
///
/// Every position of a proof that is not a reference gives a row (deduplicated within the
/// proof): the features, label 1 if the side to move is the prover (it wins) else 0, and
/// the size of its subtree in the proof. With --games: every position of a decided game
/// (Result 1-0 or 0-1; draws and unfinished games skipped) from ply --games-skip-plies on,
/// but not the final one nor one with a single legal move, labelled 1 if its side to move
/// won the game, cost 0 (a position met in several games gives a row each time). With
/// --tables: random positions of every material of at most --table-units units whose
/// table is present, labelled by the table (draws skipped). Progress on stderr; the summary
/// on stdout.
///
/// In JSON: `output`, `rows`, `wins`, `losses`, `seed`, `max_rows_per_source`, `seconds`,
/// and `sources` (`source`, `kind`, `path`, `nodes`, `positions`, `rows`, `wins`,
/// `losses`, `seconds`; for a PGN file also `games` and `games_skipped`, and `nodes` are
/// the plies played).
#[derive(Debug, Args)]
pub struct DatasetArgs {
    /// A proof file (either format); repeat for several. Each is a source named by its
    /// file stem (e3-c6).
    #[arg(long = "proof", value_name = "FILE")]
    pub proofs: Vec<PathBuf>,

    /// Every *.proof file in this directory (in name order), after the --proof files.
    #[arg(long, value_name = "DIR")]
    pub proofs_dir: Option<PathBuf>,

    /// A PGN file of games (lichess, python-chess: tag pairs then movetext, any number of
    /// games); repeat for several. Each is a source named by its file stem. A game's
    /// Variant tag sets its rules (Antichess, Giveaway: international; Suicide: fics;
    /// none: --rules), its FEN tag its start, its Result tag the label.
    #[arg(long = "games", value_name = "FILE")]
    pub games: Vec<PathBuf>,

    /// The first ply of a game whose position gives a row, counted from the game's start
    /// (0: the start position on). The first few moves of a game say little about who
    /// wins it.
    #[arg(long, value_name = "N", default_value_t = 4, requires = "games")]
    pub games_skip_plies: u32,

    /// A directory of tablebase files to sample (source "tables").
    #[arg(long, value_name = "DIR")]
    pub tables: Option<PathBuf>,

    /// The rules of the tables, and of the games without a Variant tag.
    #[arg(long, value_name = "RULES", default_value = "international")]
    pub rules: Rules,

    /// Sample the materials of at most this many units.
    #[arg(long, value_name = "N", default_value_t = 4, requires = "tables")]
    pub table_units: u32,

    /// Random positions drawn per material.
    #[arg(long, value_name = "N", default_value_t = 1000, requires = "tables")]
    pub table_samples: u32,

    /// The most rows a source gives (a deterministic sample of its positions); 0: all.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub max_rows: u64,

    /// The seed of the samples.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub seed: u64,

    /// The data set file to write.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: PathBuf,

    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

/// Fit the evaluation's logistic model on a data set and write its weights file.
///
/// L2-regularised logistic regression on the standardised features, by Newton's method;
/// deterministic. --holdout names sources (proof stems) left out of the fit and reported
/// apart. Prints per source its rows, log-loss and accuracy (with the constant
/// prediction's log-loss), and the weights.
///
/// In JSON: `output`, `train_rows`, `holdout_rows`, `train_log_loss`, `train_accuracy`,
/// `train_baseline_log_loss`, `holdout_log_loss`, `holdout_accuracy`,
/// `holdout_baseline_log_loss`, `sources` (`source`, `held_out`, `rows`, `wins`,
/// `log_loss`, `accuracy`, `baseline_log_loss`), `weights` (`feature`, `weight`, `mean`,
/// `scale`), `bias`, `l2`, `balance_sources`, `iterations`, `converged`, `objective`,
/// `seconds`, `read_seconds`.
#[derive(Debug, Args)]
pub struct TrainArgs {
    /// The data set (from `antichess learn dataset`).
    #[arg(value_name = "DATA.csv")]
    pub data: PathBuf,

    /// The weights file to write.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: PathBuf,

    /// Sources held out of the fit, separated by commas (e3-Nf6,e3-Na6).
    #[arg(long, value_name = "SOURCES", value_delimiter = ',')]
    pub holdout: Vec<String>,

    /// The L2 penalty on the standardised weights (the row weights sum to 1).
    #[arg(long, value_name = "X", default_value_t = 1e-3)]
    pub l2: f64,

    /// The most Newton steps.
    #[arg(long, value_name = "N", default_value_t = 25)]
    pub iterations: u32,

    /// Weigh every row the same, instead of every training source the same in total.
    #[arg(long)]
    pub no_balance: bool,

    /// Features left out of the fit (weight 0), separated by commas: e.g. the side to
    /// move's mobility (us_moves,us_moves_log,us_one_move), which the search's initial
    /// numbers already hold.
    #[arg(long, value_name = "FEATURES", value_delimiter = ',')]
    pub exclude: Vec<String>,

    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

/// Fit the cost model (docs/formats/eval-cost-model.md) on a data set's proof rows and
/// write its weights file: what `--initial cost` reads for the search's proof numbers.
///
/// Two ridge regressions of ln(the position's subtree size in its proof) on the
/// standardised features, one over the positions whose side to move is the prover, one
/// over the opponent's; rows without a cost (tables, games) are skipped. Exact and
/// deterministic. --holdout names sources (proof stems) left out of the fit and reported
/// apart. Prints per part R² (train and held out) and the weights, per source the
/// correlation of the prediction with ln(cost).
///
/// In JSON: `output`, `read_seconds`, `skipped_rows`, `l2`, `seconds`, `parts` (`part`,
/// `train_rows`, `holdout_rows`, `train_r2`, `holdout_r2`, `weights` as [name, weight]
/// pairs, `bias`) and `sources` (`source`, `part`, `held_out`, `rows`, `mean_ln_cost`,
/// `bias`, `correlation`).
#[derive(Debug, Args)]
pub struct TrainCostArgs {
    /// The data set (from `antichess learn dataset --proof ...`).
    #[arg(value_name = "DATA.csv")]
    pub data: PathBuf,

    /// The weights file to write.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: PathBuf,

    /// Sources held out of the fit, separated by commas (e3-Nf6,e3-Na6).
    #[arg(long, value_name = "SOURCES", value_delimiter = ',')]
    pub holdout: Vec<String>,

    /// The L2 penalty on the standardised weights (the squared error is a mean over rows).
    #[arg(long, value_name = "X", default_value_t = 1e-3)]
    pub l2: f64,

    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

/// The evaluation of one position: the probability that the side to move wins, and the
/// features with their share of the log-odds.
///
/// In JSON: `fen`, `rules`, `turn`, `model` (the file, or "builtin"), `logit`,
/// `win_probability`, `bias`, and `features` (`name`, `value`, `contribution`).
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// The position.
    #[arg(value_name = "FEN")]
    pub fen: String,

    /// A weights file (default: the weights built into this program, models/eval-v1.json).
    #[arg(long, value_name = "FILE")]
    pub model: Option<PathBuf>,

    /// The rule set.
    #[arg(long, value_name = "RULES", default_value = "international")]
    pub rules: Rules,

    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

pub fn run(command: &LearnCommand) -> anyhow::Result<ExitCode> {
    match command {
        LearnCommand::Dataset(args) => dataset(args),
        LearnCommand::Train(args) => train_command(args),
        LearnCommand::TrainCost(args) => train_cost_command(args),
        LearnCommand::Eval(args) => eval(args),
    }
}

fn dataset(args: &DatasetArgs) -> anyhow::Result<ExitCode> {
    let options = DatasetFileOptions {
        dataset: DatasetOptions {
            proofs: args.proofs.clone(),
            games: args.games.clone(),
            games_skip_plies: args.games_skip_plies,
            tables: args.tables.clone(),
            rules: args.rules,
            table_units: args.table_units,
            table_samples: args.table_samples,
            max_rows_per_source: args.max_rows,
            seed: args.seed,
        },
        proofs_dir: args.proofs_dir.clone(),
        output: args.output.clone(),
    };
    let report = dataset_file(&options, &mut |event| eprintln!("{event}"))?;
    print(&report, args.format)
}

fn train_command(args: &TrainArgs) -> anyhow::Result<ExitCode> {
    let options = TrainOptions {
        l2: args.l2,
        iterations: args.iterations,
        holdout: args.holdout.clone(),
        balance_sources: !args.no_balance,
        exclude: args.exclude.clone(),
    };
    let report = train_file(&args.data, &args.output, &options, &mut |read| {
        eprintln!("{read}");
    })?;
    print(&report, args.format)
}

fn train_cost_command(args: &TrainCostArgs) -> anyhow::Result<ExitCode> {
    let options = CostTrainOptions {
        l2: args.l2,
        holdout: args.holdout.clone(),
    };
    let report = train_cost_file(&args.data, &args.output, &options, &mut |read| {
        eprintln!("{read}");
    })?;
    print(&report, args.format)
}

fn eval(args: &EvalArgs) -> anyhow::Result<ExitCode> {
    let pos = Position::from_fen(&args.fen, args.rules)
        .with_context(|| format!("FEN \"{}\"", args.fen))?;
    let model = Model::load_or_builtin(args.model.as_deref())?;
    let name = args
        .model
        .as_ref()
        .map_or("builtin".to_string(), |p| p.display().to_string());
    print(&explain(&pos, &model, name), args.format)
}
