//! `antichess proof join`: the proof of a position from proofs of its children (all of
//! them where the opponent is to move, one where the prover is), written atomically and
//! verified before success is reported. The job is `antichess_proof::jobs::JoinPlan`
//! (which also refuses an output that is one of the children); this module parses the
//! arguments, opens the tables and prints.

use std::path::PathBuf;
use std::process::ExitCode;

use antichess_proof::jobs::{JoinOptions, JoinPlan};
use antichess_proof::TablebaseOracle;
use clap::Args;

use antichess_tb::verification_tables;

use super::write::{finish, print};

use crate::common::output::Format as OutputFormat;

#[derive(Debug, Args)]
pub struct JoinArgs {
    /// The child proofs (files of either format; a reference-format file needs --fen and
    /// is read with the default rules and prover).
    #[arg(required = true, value_name = "CHILD")]
    pub children: Vec<PathBuf>,

    /// The parent position as a FEN (default: the parent the children's recorded lines
    /// share).
    #[arg(long, value_name = "FEN")]
    pub fen: Option<String>,

    /// The parent as moves from the FEN or the start position, e.g. "e3" (default: the
    /// parent the children's recorded lines share).
    #[arg(long, value_name = "MOVES", allow_hyphen_values = true)]
    pub moves: Option<String>,

    #[command(flatten)]
    pub write: super::write::WriteVerifiedArgs,
}

pub fn run(args: &JoinArgs) -> anyhow::Result<ExitCode> {
    let json = args.write.format == OutputFormat::Json;
    let plan = JoinPlan::prepare(JoinOptions {
        children: args.children.clone(),
        fen: args.fen.clone(),
        moves: args.moves.clone(),
        output: args.write.output.clone(),
        verify: args.write.verify_options(),
    })?;
    let tablebase = verification_tables(args.write.tables.as_deref(), plan.rules())?;
    let oracle = tablebase.as_ref().map(TablebaseOracle::new);
    finish(plan.run(&oracle), json, print)
}
