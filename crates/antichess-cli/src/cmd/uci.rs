//! `antichess uci`: the UCI engine of `antichess-uci` on standard input and output. The
//! command-line options only give the engine options their first values (a GUI may change
//! them with `setoption`).

use std::process::ExitCode;

use clap::Args;

/// Run as a UCI engine for antichess (python-chess, cutechess, lichess-bot, GUIs).
///
/// It plays from the loaded proofs (the prover's move; the longest resistance against
/// one), from tablebases where they cover the position, and searches elsewhere (df-pn for
/// forced wins of either side, then alpha-beta). Options: UCI_Variant (antichess and
/// giveaway: international rules; suicide: FICS rules), Rules, Hash, Threads, Tables,
/// Proofs, Move Overhead, Evaluation, EvalFile, Ponder. See docs/guide.md, "A UCI engine".
#[derive(Debug, Args)]
pub struct UciArgs {
    /// First value of the Proofs option: a proof file or a directory of *.proof files
    /// ("" for none). Default: $ANTICHESS_PROOFS, else ./proofs, else the proofs/ directory
    /// of the source tree the binary was built from. Only the files' headers are read at
    /// start; a file is indexed when the game reaches a position that may be in it.
    #[arg(long, value_name = "PATH")]
    pub proofs: Option<String>,

    /// First value of the Tables option: a directory of table files (default: none).
    #[arg(long, value_name = "DIR")]
    pub tables: Option<String>,

    /// First value of the Rules option: international (default), fics, joint,
    /// vinciperdi, pritchard, pritchard3, pritchard4.
    #[arg(long, value_name = "RULES")]
    pub rules: Option<String>,

    /// First value of the Hash option, in MB.
    #[arg(long, value_name = "MB")]
    pub hash: Option<u64>,

    /// First value of the Threads option (threads of the df-pn search).
    #[arg(long, value_name = "N")]
    pub threads: Option<u64>,

    /// First value of the Evaluation option: the alpha-beta search's static evaluation,
    /// simple (units and mobility; the default) or model (the learned model of
    /// docs/research/learned-eval.md).
    #[arg(long, value_name = "KIND")]
    pub evaluation: Option<String>,

    /// First value of the EvalFile option: the model's weights (`antichess learn train`);
    /// default: the weights built in (models/eval-v1.json).
    #[arg(long, value_name = "FILE")]
    pub eval_file: Option<String>,
}

pub fn run(args: &UciArgs) -> anyhow::Result<ExitCode> {
    let mut first = Vec::new();
    let mut set = |name: &str, value: Option<String>| {
        if let Some(value) = value {
            first.push((name.to_string(), value));
        }
    };
    set("Proofs", args.proofs.clone());
    set("Tables", args.tables.clone());
    set("Rules", args.rules.clone());
    set("Hash", args.hash.map(|v| v.to_string()));
    set("Threads", args.threads.map(|v| v.to_string()));
    set("Evaluation", args.evaluation.clone());
    set("EvalFile", args.eval_file.clone());
    let stdin = std::io::stdin().lock();
    antichess_uci::run_with_options(stdin, std::io::stdout(), &first)?;
    Ok(ExitCode::SUCCESS)
}
